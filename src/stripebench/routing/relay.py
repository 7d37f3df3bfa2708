"""A byte relay between TCP and unix sockets, standard library only.

It runs on both sides of the sandbox wall, so it must work with any Python 3 and no
third-party packages:

- inside the sandbox, as the namespace's first process: listens on 127.0.0.1:443 and
  carries each connection to the emulator's TLS front through a unix socket that is
  bind-mounted into the sandbox (the network namespace has only loopback);
- in the other direction, to expose a port of the sandbox (an app the agent started) to
  the harness: unix socket inside -> 127.0.0.1:PORT inside, TCP port outside -> that
  unix socket.

Usage: python3 relay.py LISTEN=TARGET [LISTEN=TARGET ...]
       python3 relay.py --hold
       python3 relay.py --probe ADDRESS [--timeout SECONDS]
where an address is `tcp:HOST:PORT` or `unix:PATH`. Prints `ready` once listening.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import signal
import socket
import stat
import sys
import time
from collections.abc import Awaitable, Callable

Connector = Callable[[], Awaitable[tuple[asyncio.StreamReader, asyncio.StreamWriter]]]
# Serves one accepted connection given its target (default: `splice`, bytes both ways).
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, Connector], Awaitable[None]]


def parse(address: str) -> tuple[str, str, int]:
    kind, _, rest = address.partition(":")
    if kind == "unix" and rest:
        return "unix", rest, 0
    if kind == "tcp":
        host, _, port = rest.rpartition(":")
        if host and port.isdigit():
            return "tcp", host.strip("[]"), int(port)
    raise ValueError(f"bad address {address!r}: expected tcp:HOST:PORT or unix:PATH")


def connector(address: str) -> Connector:
    kind, where, port = parse(address)
    if kind == "unix":
        return lambda: open_unix(where)
    return lambda: asyncio.open_connection(where, port)


async def open_unix(path: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect to the unix socket at `path` itself, never to what a symlink planted there
    names (a socket folder may be written by another sandbox's code): opened without
    following, checked, and connected through /proc/self/fd."""
    fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if not stat.S_ISSOCK(os.fstat(fd).st_mode):
            raise OSError(errno.ENOTSOCK, "not a unix socket (never followed)", path)
        return await asyncio.open_unix_connection(f"/proc/self/fd/{fd}")
    finally:
        os.close(fd)


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            if writer.can_write_eof():
                writer.write_eof()
            else:
                # A TLS stream cannot half-close: close it, or a client whose keep-alive
                # connection the server dropped would send its next request into a
                # connection nobody answers (and wait out its own timeout).
                writer.close()


async def splice(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter,
                 connect: Connector) -> None:
    """Carry one accepted connection to the target, both directions, until both close."""
    try:
        upstream_reader, upstream_writer = await connect()
    except OSError:
        client_writer.close()
        return
    try:
        await asyncio.gather(pipe(client_reader, upstream_writer),
                             pipe(upstream_reader, client_writer))
    finally:
        for w in (client_writer, upstream_writer):
            with contextlib.suppress(OSError, RuntimeError):
                w.close()


async def listen(address: str, connect: Connector, serve_one: Handler | None = None,
                 **server_options: object) -> asyncio.Server:
    """Accept on `address`, handing each connection to `connect`'s target."""
    kind, where, port = parse(address)
    serve_one = serve_one or splice

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await serve_one(reader, writer, connect)
        except asyncio.CancelledError:
            # The relay is stopping (its loop cancels what is open). Ending quietly keeps
            # Python 3.11's stream callback from logging the cancellation as an error
            # traceback on every open connection at teardown.
            writer.close()

    if kind == "unix":
        with contextlib.suppress(FileNotFoundError):
            os.unlink(where)
        return await asyncio.start_unix_server(handler, where, **server_options)  # type: ignore[arg-type]
    return await asyncio.start_server(handler, where, port, reuse_address=True,
                                      **server_options)  # type: ignore[arg-type]


async def serve(routes: list[tuple[str, str]]) -> None:
    servers = [await listen(src, connector(dst)) for src, dst in routes]
    print("ready", flush=True)
    await asyncio.gather(*(s.serve_forever() for s in servers))


def probe(address: str, timeout: float) -> bool:
    """Wait until something accepts connections at address."""
    kind, where, port = parse(address)
    deadline = time.monotonic() + timeout
    while True:
        family = socket.AF_UNIX if kind == "unix" else socket.AF_INET6 if ":" in where \
            else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(1)
            try:
                s.connect(where if kind == "unix" else (where, port))
                return True
            except OSError:
                pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def become_init() -> None:
    """As the sandbox's PID 1: reap orphans, and ignore the signals an agent's
    `pkill python` or `kill -9 -1` would send (the kernel never delivers an unhandled
    signal to a namespace's init from inside it, but Python handles SIGINT itself)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_IGN)

    def reap(*_: object) -> None:
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass

    signal.signal(signal.SIGCHLD, reap)


def main(argv: list[str]) -> int:
    if os.getpid() == 1:
        become_init()
    if argv[:1] == ["--probe"] and len(argv) >= 2:
        timeout = float(argv[3]) if argv[2:3] == ["--timeout"] and len(argv) > 3 else 0.0
        return 0 if probe(argv[1], timeout) else 1
    if argv == ["--hold"]:  # keep a namespace alive with nothing to relay
        print("ready", flush=True)
        while True:
            time.sleep(3600)
    routes = []
    for arg in argv:
        src, sep, dst = arg.partition("=")
        if not sep:
            print(f"relay: expected LISTEN=TARGET, got {arg!r}", file=sys.stderr)
            return 2
        parse(src), parse(dst)
        routes.append((src, dst))
    if not routes:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        asyncio.run(serve(routes))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
