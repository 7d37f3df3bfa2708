"""Build and run the emulator server (uvicorn)."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .app import EmulatorApp
from .clock import DEFAULT_START
from .landing import Landing
from .request_record import DEFAULT_BUDGET
from .store import Store
from .versions import LATEST


def build(seed: int = 0, data: Path | None = None, start_time: int = DEFAULT_START,
          api_version: str = LATEST, control_token: str | None = None,
          local_origin: str = "http://127.0.0.1:12111", salt: str = "",
          request_budget: int = DEFAULT_BUDGET) -> EmulatorApp:
    store = Store(seed=seed, start_time=start_time, data_dir=data, default_version=api_version,
                  salt=salt, request_budget=request_budget)
    if not store.accounts:
        store.create_account()
        store.flush()  # stored now: a data folder that takes no writes fails here, at start
    return EmulatorApp(store, control_token=control_token, local_origin=local_origin)


def default_account(app: EmulatorApp):  # type: ignore[no-untyped-def]
    return next(iter(app.store.accounts.values()))


class InOrderHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol, answering pipelined requests in order.

    httptools parses everything a client sent at once. When a malformed request followed
    valid ones still being handled, uvicorn wrote its 400 and closed the connection at
    once: the valid requests ran, but their answers were lost. Here the 400 waits until
    every earlier request has been answered, and nothing after the bad one is read.
    (h11 behaves so by itself but costs ~25 % more CPU per request.)
    """

    _bad_request: str | None = None

    def _busy(self) -> bool:
        return bool(self.pipeline) or (self.cycle is not None
                                       and not self.cycle.response_complete)

    def data_received(self, data: bytes) -> None:
        if self._bad_request is None:  # after a malformed request, read nothing more
            super().data_received(data)

    def send_400_response(self, msg: str) -> None:
        if self._busy():
            self._bad_request = msg
            self.flow.pause_reading()
            return
        super().send_400_response(msg)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._bad_request is not None and not self._busy() \
                and not self.transport.is_closing():
            super().send_400_response(self._bad_request)


def uvicorn_config(app: EmulatorApp, host: str, port: int,
                   log_level: str = "warning") -> uvicorn.Config:
    """How every emulator server runs (CLI, harness, tests)."""
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False,
                          lifespan="on", http=InOrderHttpTools)


def serve(app: EmulatorApp, host: str, port: int, log_level: str = "warning",
          sock: socket.socket | None = None, landing: bool = False) -> None:
    """Serve until interrupted; on `sock` when given (bound already, see standalone.py),
    with the landing page (landing.py) only when asked."""
    config = uvicorn_config(app, host, port, log_level)
    if landing:
        config.app = Landing(app)
    server = uvicorn.Server(config)
    asyncio.run(server.serve(sockets=[sock] if sock is not None else None))
