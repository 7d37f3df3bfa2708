"""The goose adapter (harness/agents/clis/goose.py): goose is not installable from the
registries here, so a stand-in binary (tests/fixtures/bin/goose) finds our MCP server in
`--with-extension` where goose would and prints plain text as goose does."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from paths import TESTS
from stripebench.harness.agents import make_agent
from stripebench.harness.emulator import Emulator
from stripebench.harness.runner import RunPlan, execute
from stripebench.harness.task import load_task
from stripebench.results import load_run, summarize
from stripebench.results.html import page

HERE = TESTS / "fixtures"
SHOP = load_task(HERE / "tasks" / "fixture-shop")
SOLVE = ('curl -sf "$STRIPE_API_BASE/v1/customers" -u "$STRIPE_SECRET_KEY:" '
         '-d email=ada@example.com -d "name=Ada Lovelace" | python3 -c '
         '\'import json,sys; print(json.load(sys.stdin)["id"], end="")\' > customer.txt')
STEPS = [["bash", {"command": SOLVE}], ["view", {"path": "customer.txt"}],
         ["submit", {"summary": "done"}]]


def test_goose_through_our_mcp_server(tmp_path: Path, emulator: Any,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """goose is not installable from the registries here: a stand-in finds our server in
    `--with-extension` where goose would, and prints plain text (no turns, tokens or
    cost: the calls our server saw are counted)."""
    monkeypatch.setenv("FAKE_PYTHON", sys.executable)
    monkeypatch.setenv("FAKE_AGENT_STEPS", json.dumps(STEPS))
    (result,) = execute(
        RunPlan(out=tmp_path, tasks=[SHOP], agent_name="goose", model="some-model"),
        lambda: make_agent("goose", "some-model",
                           options={"binary": str(HERE / "bin" / "goose")}),
        emulator=Emulator(emulator.base))
    assert result["status"] == "completed", result["error"]
    assert result["reward"] == 1.0
    assert result["tool_calls"] == result["turns"] == 3
    assert result["agent_extra"]["mcp_tool_calls"] == 3
    log = (tmp_path / "trials" / "fixture-shop" / "1" / "agent.log").read_text()
    assert "Done." in log
    html = page([summarize(load_run(tmp_path))])
    assert "Agent output (agent.log)" in html  # the CLI's raw output, readable


def test_missing_cli_is_an_agent_error_in_one_clear_line(tmp_path: Path, emulator: Any,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.delenv("STRIPEBENCH_GOOSE_BIN", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    (result,) = execute(
        RunPlan(out=tmp_path, tasks=[SHOP], agent_name="goose", model=None),
        lambda: make_agent("goose", None), emulator=Emulator(emulator.base))
    assert result["status"] == "agent_error"
    assert result["error"] == (
        "goose: 'goose' is not installed (goose is not on the package registries "
        "stripebench installs from; install it from its own releases; or set "
        "STRIPEBENCH_GOOSE_BIN to the binary)")


