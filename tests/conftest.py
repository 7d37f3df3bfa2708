"""Shared fixtures: a real emulator server on a free port, fresh accounts, SDK clients."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import stripe
import uvicorn

from markers import MARKERS, PROOF_TIER
from stripebench.emulator.app import EmulatorApp
from stripebench.emulator.server import build, uvicorn_config

TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test from the one table in markers.py; a module missing there, or a test
    that asks for the browser fixture in a module not marked `browser`, fails collection."""
    unlisted = set()
    for item in items:
        module = item.path.resolve().relative_to(TESTS).as_posix()
        if module not in MARKERS:
            unlisted.add(module)
            continue
        for name in MARKERS[module]:
            item.add_marker(name)
        if module in PROOF_TIER and getattr(item, "originalname", "") == "test_variant":
            item.add_marker("proof_tier")
        if "browser" in getattr(item, "fixturenames", ()) and "browser" not in MARKERS[module]:
            raise pytest.UsageError(f"{module} uses the browser fixture: mark it `browser` "
                                    "in tests/markers.py")
    if unlisted:
        raise pytest.UsageError("test modules missing from tests/markers.py (say which "
                                f"markers they need, or () for fast): {sorted(unlisted)}")


def load_module(path: Path, name: str) -> ModuleType:
    """Import a task's helper script under a unique name: several tasks ship a
    `make_partial.py`, and one pytest worker imports them all."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RunningEmulator:
    app: EmulatorApp
    base: str
    thread: threading.Thread
    server: uvicorn.Server

    def new_account(self, **body: object) -> dict[str, str]:
        r = httpx.post(f"{self.base}/_emulator/accounts", json=body)
        r.raise_for_status()
        data: dict[str, str] = r.json()
        return data

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def start_emulator(**kwargs: object) -> RunningEmulator:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    app = build(local_origin=base, **kwargs)  # type: ignore[arg-type]
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("emulator did not start")
        time.sleep(0.02)
    return RunningEmulator(app, base, thread, server)


STRIPEBENCH = str(Path(sys.executable).parent / "stripebench")


def run_exec(emulator: RunningEmulator, account: dict[str, str], workdir: Path, *command: str,
             timeout: float = 90) -> subprocess.CompletedProcess[str]:
    """`stripebench exec`: a command in a routed sandbox, reaching the emulator as Stripe."""
    return subprocess.run([STRIPEBENCH, "exec", "--emulator", emulator.base, "--account",
                           account["id"], "--workdir", str(workdir), "--", *command],
                          capture_output=True, text=True, timeout=timeout)


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium through Playwright, one per test module."""
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian chromium is not installed (/usr/bin/chromium); run make setup")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser context (no cookies or storage from other tests) and its tab."""
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    context.set_default_timeout(15_000)
    tab = context.new_page()
    yield tab
    context.close()


@pytest.fixture(scope="session")
def emulator() -> Iterator[RunningEmulator]:
    running = start_emulator()
    yield running
    running.stop()


@pytest.fixture()
def account(emulator: RunningEmulator) -> dict[str, str]:
    """A fresh, isolated account (its own keys and objects) for one test."""
    return emulator.new_account()


@pytest.fixture()
def client(emulator: RunningEmulator, account: dict[str, str]) -> stripe.StripeClient:
    """The official python SDK's StripeClient pointed at the emulator."""
    return stripe.StripeClient(account["secret_key"],
                               base_addresses={"api": emulator.base, "files": emulator.base,
                                               "meter_events": emulator.base},
                               max_network_retries=2)


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    """The harness's emulator (a child process, as a benchmark run starts it), one per
    test module: what task proofs run their trials against."""
    from stripebench.harness.emulator import Emulator

    running = Emulator.start()
    yield running
    running.stop()


def proof_trial(task_dir: Path, server: Any, tmp_path: Path, name: str, agent: Any,
                sandbox: str = "local") -> dict[str, Any]:
    """One scored trial of the task at `task_dir` under the harness, as a run makes it
    (its folder is tmp_path/name); the trial must complete."""
    from stripebench.harness.task import load_task
    from stripebench.harness.trial import TrialConfig, run_trial

    record = run_trial(load_task(task_dir), 0, tmp_path / name, agent, server,
                       TrialConfig("proof", name, None, sandbox=sandbox))
    assert record["status"] == "completed", record["error"]
    return record
