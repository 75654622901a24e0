# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Command line of the emulator: load the fixture, listen, print the base URLs, stop on a signal."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import signal
import sys

from .fixture import FixtureError, load_fixture
from .state import PanelState


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="run.py", description="Panel emulator: the v1 API of the game-server panel, for tests and demos."
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on; 0 picks a free one (default)")
    parser.add_argument("--fixture", help="YAML or JSON fixture file (default: the built-in fixtures/default.yaml)")
    parser.add_argument("--fleet-size", type=int, help="replace the fleet account's servers with N generated ones")
    parser.add_argument(
        "--no-controls", dest="controls", action="store_false", help="do not serve the /_emulator control interface"
    )
    parser.add_argument(
        "--watch-stdin",
        action="store_true",
        help="stop when standard input closes (the harness uses it so no emulator outlives its test run)",
    )
    args = parser.parse_args(argv)
    if args.fleet_size is not None and args.fleet_size < 0:
        parser.error("--fleet-size must be >= 0")
    return args


def advertised_host(host: str) -> str:
    """The address clients should use: loopback for a wildcard, IPv6 literals in brackets."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def watch_stdin(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    """Set ``stop`` when standard input reaches end of file (the parent closed it, or died)."""
    descriptor = sys.stdin.fileno()

    def on_readable() -> None:
        try:
            data = os.read(descriptor, 65536)
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(descriptor)
            stop.set()

    # Read in the event loop, not in a thread: a thread blocked on stdin would make the
    # interpreter abort at exit.
    loop.add_reader(descriptor, on_readable)


async def serve(args: argparse.Namespace, state: PanelState) -> int:
    # Imported here, after the fixture has been checked: a bad fixture is reported without
    # paying for the import of aiohttp, the largest part of the start-up time.
    from aiohttp import web  # pylint: disable=import-outside-toplevel

    from .app import build_app  # pylint: disable=import-outside-toplevel

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    if args.watch_stdin:
        watch_stdin(loop, stop)
    # No access log: it would cost more than answering at the request rates the benchmarks use.
    runner = web.AppRunner(build_app(state, controls=args.controls), access_log=None, handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, args.host, args.port, backlog=1024)
        try:
            await site.start()
        except OSError as exc:
            print(f"run.py: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
            return 1
        port = runner.addresses[0][1]
        root = f"http://{advertised_host(args.host)}:{port}"
        announcement = {
            "live": f"{root}/v1",
            "planned": f"{root}/planned/v1",
            "control": f"{root}/_emulator" if args.controls else None,
            "pid": os.getpid(),
        }
        sys.stdout.write(json.dumps(announcement) + "\n")
        sys.stdout.flush()
        gc.freeze()
        gc.enable()
        await stop.wait()
    finally:
        await runner.cleanup()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Start-up allocates a great many long-lived objects (a 10,000-server fleet, aiohttp's
    # modules): collecting garbage while they pile up only slows the start. Collection resumes
    # once the port is listening, with those objects frozen out of its way.
    gc.disable()
    try:
        state = PanelState(load_fixture(args.fixture, args.fleet_size))
    except FixtureError as exc:
        print(f"run.py: {exc}", file=sys.stderr)
        return 2
    return asyncio.run(serve(args, state))
