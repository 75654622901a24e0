# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``python -m gamepanel_emulator`` (installed wheel) or ``python -m emulator`` (``tests/`` on sys.path).

The same command line as ``run.py``; ``--help`` lists the options.
"""

from __future__ import annotations

import os
import sys


def run(argv: list[str] | None = None) -> int:
    """Start the emulator and serve until SIGTERM, Ctrl-C or (with --watch-stdin) end of stdin."""
    # The emulator never opens an outbound TLS connection, but aiohttp builds client SSL
    # contexts when it is imported, and loading the system CA bundle for them is a large
    # share of the start-up time. Pointing OpenSSL at no CA files makes those contexts
    # cheap; only this process is affected.
    os.environ["SSL_CERT_FILE"] = os.devnull
    os.environ["SSL_CERT_DIR"] = os.devnull
    from .server import main  # pylint: disable=import-outside-toplevel

    return main(argv)


if __name__ == "__main__":
    sys.exit(run())
