"""Build and run the emulator server (uvicorn)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import uvicorn

from .app import EmulatorApp
from .clock import DEFAULT_START
from .store import Store
from .versions import LATEST


def build(seed: int = 0, data: Path | None = None, start_time: int = DEFAULT_START,
          api_version: str = LATEST, control_token: str | None = None,
          local_origin: str = "http://127.0.0.1:12111") -> EmulatorApp:
    store = Store(seed=seed, start_time=start_time, data_dir=data, default_version=api_version)
    if not store.accounts:
        store.create_account()
        store.flush()  # stored now: a data folder that takes no writes fails here, at start
    return EmulatorApp(store, control_token=control_token, local_origin=local_origin)


def default_account(app: EmulatorApp):  # type: ignore[no-untyped-def]
    return next(iter(app.store.accounts.values()))


def uvicorn_config(app: EmulatorApp, host: str, port: int,
                   log_level: str = "warning") -> uvicorn.Config:
    """How every emulator server runs (CLI, harness, tests).

    h11, not httptools: with pipelined requests httptools parses ahead, and a malformed
    request behind a valid one made it answer only a 400 and drop the valid one's
    response, though the valid one had been executed. h11 parses one request at a time,
    so each is answered in order before the next is read.
    """
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False,
                          lifespan="on", http="h11")


def serve(app: EmulatorApp, host: str, port: int, log_level: str = "warning") -> None:
    server = uvicorn.Server(uvicorn_config(app, host, port, log_level))
    asyncio.run(server.serve())
