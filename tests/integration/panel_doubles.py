# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Real sockets standing where a panel should be, for the failure tests.

* ``closed_port()``: a loopback port nobody listens on (connections are refused);
* ``SilentPanel``: a socket that accepts connections (the kernel completes the
  handshake) and never answers;
* ``CannedPanel``: an HTTP server that answers every request with one fixed answer
  (an HTML page, an empty body, a huge body...), recording what it was asked;
* ``RecordingProxy``: stands where HTTP_PROXY points, records every connection that
  reaches it (its first line) and forwards nothing.

They are real network peers: the collection's HTTP stack runs unchanged against them.
"""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def closed_port() -> int:
    """A loopback port that was free a moment ago and has no listener."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SilentPanel:
    """Accepts connections and never answers (a hung panel or a black-holing proxy)."""

    def __init__(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)  # never accept(): the backlog holds the connections, nothing reads them
        self.url = "http://127.0.0.1:%d/v1" % self.socket.getsockname()[1]

    def close(self):
        self.socket.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


class CannedPanel:
    """Answers every request with ``status``, ``body`` and ``headers``; ``requests`` lists (method, path)."""

    def __init__(self, status=200, body=b"", headers=None):
        self.status = status
        self.body = body if isinstance(body, bytes) else body.encode("utf-8")
        self.headers = dict(headers or {})
        self.requests = []
        canned = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                canned.requests.append((self.command, self.path))
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                self.send_response(canned.status)
                for name, value in canned.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(canned.body)))
                self.end_headers()
                self.wfile.write(canned.body)

            do_GET = do_POST = _answer  # noqa: N815

            def log_message(self, *args):  # the test output stays clean
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.root = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


class RecordingProxy:
    """A threaded TCP listener standing for a proxy: records the first line of every connection, answers 502.

    ``lines`` has one entry per connection (empty when the peer sent no line), so a
    connection made and dropped is seen too; ``headers`` has the header block sent with each.
    """

    ANSWER = b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

    def __init__(self):
        self.lines = []
        self.headers = []
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.settimeout(0.2)
        self.url = "http://127.0.0.1:%d" % self.socket.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self):
        while not self._stop.is_set():
            try:
                connection, unused_address = self.socket.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            threading.Thread(target=self._record, args=(connection,), daemon=True).start()

    def _record(self, connection):
        with connection:
            connection.settimeout(5)
            data = b""
            try:
                while b"\r\n\r\n" not in data and len(data) < 65536:
                    chunk = connection.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                pass
            head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1")
            self.lines.append(head.split("\r\n", 1)[0])
            self.headers.append(head)
            try:
                connection.sendall(self.ANSWER)
            except OSError:
                pass

    def close(self):
        self._stop.set()
        self._thread.join(5)
        self.socket.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
