"""Relays that run in the harness's own process, on a background event loop.

`RelayThread` hosts any number of listeners: the TLS front (TLS with our leaf
certificate on a unix socket or TCP port, plaintext HTTP on to the emulator's port, so
the emulator itself never needs to know about TLS; every request passes `gate.py`,
which keeps the control plane out of reach) and port forwards out of a sandbox.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
from collections.abc import Coroutine
from typing import Any
from urllib.parse import urlsplit

from ..emulator.tls import ensure_certificates
from ..sandbox.sockets import pinned_socket_path
from . import relay
from .env import host_resolver_rules
from .gate import serve_gated


def emulator_address(url: str) -> str:
    """`http://127.0.0.1:12111` -> `tcp:127.0.0.1:12111` (the emulator's plain HTTP port)."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme != "http" or not parts.hostname:
        raise ValueError(f"expected the emulator's plain HTTP address like "
                         f"http://127.0.0.1:12111, got {url!r}")
    return f"tcp:{parts.hostname}:{parts.port or 80}"


class RelayThread:
    """An asyncio loop in a daemon thread carrying relays until `stop()`."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._servers: list[asyncio.Server] = []
        self._listening: dict[str, asyncio.Server] = {}   # unix listeners, by address
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                        name="stripebench-relay")
        self._thread.start()

    def _run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=30)

    def add(self, listen: str, target: str, tls: ssl.SSLContext | None = None) -> str:
        """Listen at `listen` (tcp:HOST:0 picks a free port), relay to `target`. With
        `tls` this is a TLS front for the emulator: HTTP, through the gate.

        Returns the bound address (with the real port)."""
        async def start() -> asyncio.Server:
            if tls is None:
                return await relay.listen(listen, host_connector(target))
            return await relay.listen(listen, relay.connector(target), serve_gated, ssl=tls)

        server: asyncio.Server = self._run(start())
        self._servers.append(server)
        kind, where, _ = relay.parse(listen)
        if kind == "unix":
            self._listening[listen] = server
            return listen
        port = server.sockets[0].getsockname()[1]
        return f"tcp:{where}:{port}"

    def remove(self, listen: str) -> None:
        """Stop listening at the unix address `listen` (connections it carries stay)."""
        server = self._listening.pop(listen, None)
        if server is None or not self.loop.is_running():
            return
        self._servers.remove(server)
        self.loop.call_soon_threadsafe(server.close)

    def stop(self) -> None:
        async def close() -> None:
            for server in self._servers:
                server.close()
            self._servers.clear()
            self._listening.clear()
            # Connections still open end here, not when the loop is collected (which
            # printed "Task was destroyed but it is pending!" into a run's output).
            pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=5)

        if self.loop.is_running():
            self._run(close())
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=5)
        if not self.loop.is_running() and not self.loop.is_closed():
            self.loop.close()


def host_connector(target: str) -> relay.Connector:
    """Like relay.connector, for this side of the wall: a unix socket in a sandbox's
    folder is connected to without following a symlink planted there."""
    kind, where, _ = relay.parse(target)
    if kind != "unix":
        return relay.connector(target)

    async def connect() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        with pinned_socket_path(where) as pinned:
            return await asyncio.open_unix_connection(pinned)

    return connect


def port_of(address: str) -> int:
    return relay.parse(address)[2]


_SERVING: list[RelayThread] = []


def serve_https(host: str, https_port: int, http_port: int) -> str:
    """Start a TLS front for `emulator serve --https`; returns lines describing it."""

    certs = ensure_certificates()
    relays = RelayThread()
    _SERVING.append(relays)  # lives as long as the process
    relays.add(f"tcp:{host}:{https_port}", f"tcp:127.0.0.1:{http_port}",
               certs.server_context())
    return "\n".join([
        f"  HTTPS            https://{host}:{https_port} (any Stripe host name, local CA)",
        f"  CA certificate   {certs.ca_cert}",
        f"  CA bundle        {certs.bundle}",
        f"  Chromium flags   --ignore-certificate-errors-spki-list={','.join(certs.spki)}",
        f"                   --host-resolver-rules=\"{host_resolver_rules(https_port)}\"",
    ])
