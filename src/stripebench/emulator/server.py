"""Build and run the emulator server (uvicorn)."""

from __future__ import annotations

import asyncio
from pathlib import Path

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
    return EmulatorApp(store, control_token=control_token, local_origin=local_origin)


def default_account(app: EmulatorApp):  # type: ignore[no-untyped-def]
    return next(iter(app.store.accounts.values()))


def serve(app: EmulatorApp, host: str, port: int, log_level: str = "warning") -> None:
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False,
                            lifespan="on")
    server = uvicorn.Server(config)
    asyncio.run(server.serve())
