"""External CLI adapters (goose, Claude Code, Codex) against fake binaries that find our
MCP server where the real CLI would, call its tools, and print recorded-format output."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from stripebench.harness.agents import make_agent
from stripebench.harness.agents.external import parse_output
from stripebench.harness.emulator import Emulator
from stripebench.harness.runner import RunPlan, execute
from stripebench.harness.task import load_task

HERE = Path(__file__).parent / "fixtures"
SHOP = load_task(HERE / "tasks" / "fixture-shop")
SOLVE = ('curl -sf "$STRIPE_API_BASE/v1/customers" -u "$STRIPE_SECRET_KEY:" '
         '-d email=ada@example.com -d "name=Ada Lovelace" | python3 -c '
         '\'import json,sys; print(json.load(sys.stdin)["id"], end="")\' > customer.txt')
STEPS = [["bash", {"command": SOLVE}], ["view", {"path": "customer.txt"}],
         ["submit", {"summary": "done"}]]


@pytest.mark.parametrize("agent,binary", [("claude-code", "claude"), ("codex", "codex"),
                                          ("goose", "goose")])
def test_external_agent_through_our_mcp_server(agent: str, binary: str, tmp_path: Path,
                                               emulator: Any,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_PYTHON", sys.executable)
    monkeypatch.setenv("FAKE_AGENT_STEPS", json.dumps(STEPS))
    (result,) = execute(
        RunPlan(out=tmp_path, tasks=[SHOP], agent_name=agent, model="some-model"),
        lambda: make_agent(agent, "some-model", options={"binary": str(HERE / "bin" / binary)}),
        emulator=Emulator(emulator.base))
    assert result["status"] == "completed", result["error"]
    assert result["reward"] == 1.0
    assert result["tool_calls"] == 3  # seen by our MCP server, in the trial transcript
    assert result["agent_extra"]["mcp_tool_calls"] == 3
    if agent == "claude-code":
        assert (result["turns"], result["input_tokens"], result["output_tokens"]) == \
            (4, 1500, 210)
        assert result["cost_usd"] == 0.0123
    elif agent == "codex":
        assert (result["turns"], result["input_tokens"], result["output_tokens"]) == \
            (4, 900, 90)
    else:
        assert result["turns"] == 3  # goose reports nothing: tool calls are counted
    log = (tmp_path / "trials" / "fixture-shop" / "1" / "agent.log").read_text()
    assert "Done." in log
    events = [json.loads(line) for line in (tmp_path / "trials" / "fixture-shop" / "1" /
                                            "transcript.jsonl").read_text().splitlines()]
    said = [e["text"] for e in events if e["type"] == "message" and e["role"] == "assistant"]
    # the CLI's own replies join its tool calls in the transcript (goose prints plain text)
    assert said == ([] if agent == "goose" else ["Done."])
    from stripebench.results import load_run, summarize
    from stripebench.results.html import page

    html = page([summarize(load_run(tmp_path))])
    assert "Agent output (agent.log)" in html  # the CLI's raw output, readable
    assert ("mcp__stripebench__bash" in html) == (agent == "claude-code")


def test_hung_cli_is_killed_and_recorded_as_timeout(tmp_path: Path, emulator: Any,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_PYTHON", sys.executable)
    monkeypatch.setenv("FAKE_AGENT_STEPS", "[]")
    monkeypatch.setenv("FAKE_AGENT_HANG", "1")
    (result,) = execute(
        RunPlan(out=tmp_path, tasks=[SHOP], agent_name="codex", model=None, agent_timeout=2),
        lambda: make_agent("codex", None, options={"binary": str(HERE / "bin" / "codex")}),
        emulator=Emulator(emulator.base))
    assert result["status"] == "agent_timeout"
    assert result["agent_seconds"] < 10


def test_missing_cli_is_an_agent_error(tmp_path: Path, emulator: Any) -> None:
    (result,) = execute(
        RunPlan(out=tmp_path, tasks=[SHOP], agent_name="goose", model=None),
        lambda: make_agent("goose", None, options={"binary": "/nonexistent/goose"}),
        emulator=Emulator(emulator.base))
    assert result["status"] == "agent_error" and "not installed" in result["error"]


def test_claude_max_turns_result_is_a_turn_limit() -> None:
    line = json.dumps({"type": "result", "subtype": "error_max_turns", "is_error": True,
                       "num_turns": 20, "usage": {"input_tokens": 5, "output_tokens": 1}})
    outcome = parse_output("claude-code", "noise\n" + line)
    assert outcome.status == "turn_limit" and outcome.turns == 20


def test_external_agent_in_bubblewrap_works_in_the_trials_own_sandbox(
        tmp_path: Path, emulator: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's MCP server joins the trial's sandbox rather than making its own: its
    bash reaches the service the trial started there, and Stripe's real host name."""
    reach = ('curl -sf "$WEB_URL/health" > health.txt; curl -s -o /dev/null -w "%{http_code}" '
             'https://api.stripe.com/v1/customers -u "$STRIPE_SECRET_KEY:" > api.txt')
    monkeypatch.setenv("FAKE_PYTHON", sys.executable)
    browse = [["browser_navigate", {"url": "http://127.0.0.1:8000/health"}],
              ["browser_navigate", {"url": "https://js.stripe.com/v3/"}]]
    monkeypatch.setenv("FAKE_AGENT_STEPS", json.dumps([["bash", {"command": reach}], *browse,
                                                       *STEPS]))
    (result,) = execute(
        RunPlan(out=tmp_path, tasks=[SHOP], agent_name="claude-code", model=None,
                sandbox="bwrap"),
        lambda: make_agent("claude-code", None,
                           options={"binary": str(HERE / "bin" / "claude")}),
        emulator=Emulator(emulator.base))
    assert result["status"] == "completed", result["error"]
    workdir = tmp_path / "trials" / "fixture-shop" / "1" / "workdir"
    assert (workdir / "health.txt").read_text() == "ok"
    assert (workdir / "api.txt").read_text() == "200"
    assert result["reward"] == 1.0
    pages = [json.loads(line) for line in (workdir.parent / "transcript.jsonl").read_text()
             .splitlines() if '"browser_navigate"' in line and '"tool_result"' in line]
    # the browser runs in the trial's sandbox too: its service on the declared port, and
    # Stripe.js by its real host name
    assert [("(HTTP 200)" in e["text"], e["is_error"]) for e in pages] == [(True, False)] * 2
