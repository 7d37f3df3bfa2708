"""External CLI adapters: a CLI that hangs; how the adapters read output recorded from the
real Claude Code 2.1.332 and Codex 0.171.0. The real CLIs themselves:
tests/harness/test_agents_real_cli.py; goose (not installable here, a stand-in):
tests/harness/agents/clis/test_goose.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paths import TESTS
from stripebench.harness.agents import make_agent
from stripebench.harness.agents.external import judge, parse_output, parse_report
from stripebench.harness.emulator import Emulator
from stripebench.harness.runner import RunPlan, execute
from stripebench.harness.task import load_task

HERE = TESTS / "fixtures"
SHOP = load_task(HERE / "tasks" / "fixture-shop")
SOLVE = ('curl -sf "$STRIPE_API_BASE/v1/customers" -u "$STRIPE_SECRET_KEY:" '
         '-d email=ada@example.com -d "name=Ada Lovelace" | python3 -c '
         '\'import json,sys; print(json.load(sys.stdin)["id"], end="")\' > customer.txt')
STEPS = [["bash", {"command": SOLVE}], ["view", {"path": "customer.txt"}],
         ["submit", {"summary": "done"}]]


def test_hung_cli_is_killed_and_recorded_as_timeout(tmp_path: Path, emulator: Any) -> None:
    """The real Codex waiting on a model that does not answer is killed at the deadline
    (its whole process group, our MCP server included)."""
    from scripted_models import ScriptedModelServer

    model = ScriptedModelServer([("sleep", 120, None)])
    try:
        (result,) = execute(
            RunPlan(out=tmp_path, tasks=[SHOP], agent_name="codex", model="m",
                    agent_timeout=12),
            lambda: make_agent("codex", "m", base_url=f"{model.url}/v1"),
            emulator=Emulator(emulator.base))
    finally:
        model.stop()
    assert result["status"] == "agent_timeout"
    assert len(model.requests) == 1  # it was waiting on the model, not failing to start
    assert result["agent_seconds"] < 60  # killed at the deadline, not when the model answers


def test_claude_max_turns_result_is_a_turn_limit() -> None:
    line = json.dumps({"type": "result", "subtype": "error_max_turns", "is_error": True,
                       "num_turns": 20, "usage": {"input_tokens": 5, "output_tokens": 1}})
    outcome = parse_output("claude-code", "noise\n" + line)
    assert outcome.status == "turn_limit" and outcome.turns == 20


def test_codex_refusing_every_call_to_our_tools_is_an_agent_error() -> None:
    """Codex without an approval for our server refuses each MCP call under `exec`
    (output recorded from Codex 0.171.0): the agent never got to work, so the trial is
    an agent error, not a genuine 0."""
    refused = {"id": "item_1", "type": "mcp_tool_call", "server": "stripebench",
               "tool": "bash", "arguments": {"command": "ls"}, "result": None,
               "error": {"message": "MCP tool call requires approval, but approval policy "
                                    "is never"}, "status": "failed"}
    output = "\n".join(json.dumps(e) for e in [
        {"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
        {"type": "item.completed", "item": refused},
        {"type": "item.completed", "item": {**refused, "id": "item_2"}},
        {"type": "item.completed", "item": {"id": "item_3", "type": "agent_message",
                                            "text": "I could not run anything."}},
        {"type": "turn.completed", "usage": {"input_tokens": 3000, "output_tokens": 90}}])
    report = parse_report("codex", output)
    outcome = judge(report, calls=0, code=0, timed_out=False, max_turns=20, binary="codex")
    assert outcome.status == "error"
    assert outcome.error == ("codex refused every call to our tools (2), e.g. "
                             "stripebench.bash: MCP tool call requires approval, but "
                             "approval policy is never")
    assert outcome.turns == 1  # the failed calls are not turns of work; the reply is


def test_claude_tokens_agree_with_the_cost_and_denials_are_kept() -> None:
    """Claude Code's result `usage` counts the main model only while `total_cost_usd`
    includes side requests (another model): tokens are summed over `modelUsage`, like
    the cost; permission denials become refused calls in the record."""
    result = {"type": "result", "subtype": "success", "is_error": False, "num_turns": 2,
              "total_cost_usd": 0.0125,
              "usage": {"input_tokens": 2000, "output_tokens": 100},
              "modelUsage": {
                  "claude-sonnet-4-5": {"inputTokens": 2000, "outputTokens": 100,
                                        "cacheReadInputTokens": 500, "costUSD": 0.0075},
                  "claude-haiku-4-5": {"inputTokens": 4000, "outputTokens": 200,
                                       "costUSD": 0.005}},
              "permission_denials": [{"tool_name": "mcp__stripebench__bash",
                                      "tool_use_id": "toolu_9",
                                      "tool_input": {"command": "ls"}}]}
    init = {"type": "system", "subtype": "init", "model": "claude-sonnet-4-5",
            "mcp_servers": [{"name": "stripebench", "status": "connected"}]}
    report = parse_report("claude-code", f"{json.dumps(init)}\n{json.dumps(result)}")
    assert (report.outcome.input_tokens, report.outcome.output_tokens) == (6500, 300)
    assert report.outcome.cost_usd == 0.0125 and report.model == "claude-sonnet-4-5"
    assert [c["id"] for c in report.refused] == ["toolu_9"]
    outcome = judge(report, calls=0, code=0, timed_out=False, max_turns=20,
                    binary="claude")
    assert outcome.status == "error" and "refused every call" in str(outcome.error)


def test_claude_without_our_server_is_an_agent_error() -> None:
    init = {"type": "system", "subtype": "init", "model": "claude-sonnet-4-5",
            "mcp_servers": [{"name": "stripebench", "status": "failed"}]}
    done = {"type": "result", "subtype": "success", "is_error": False, "num_turns": 1}
    report = parse_report("claude-code", f"{json.dumps(init)}\n{json.dumps(done)}")
    outcome = judge(report, calls=0, code=0, timed_out=False, max_turns=20,
                    binary="claude")
    assert (outcome.status, outcome.error) == (
        "error", "Claude Code could not use our MCP server (status 'failed')")


def test_external_agent_in_bubblewrap_works_in_the_trials_own_sandbox(
        tmp_path: Path, emulator: Any) -> None:
    """The real Claude Code's MCP server joins the trial's sandbox rather than making its
    own: its bash reaches the service the trial started there, and Stripe's real host
    name; so does its browser."""
    from scripted_models import ScriptedModelServer

    reach = ('curl -sf "$WEB_URL/health" > health.txt; curl -s -o /dev/null -w "%{http_code}" '
             'https://api.stripe.com/v1/customers -u "$STRIPE_SECRET_KEY:" > api.txt')
    model = ScriptedModelServer([
        ("tool", "bash", {"command": reach}),
        ("tool", "browser_navigate", {"url": "http://127.0.0.1:8000/health"}),
        ("tool", "browser_navigate", {"url": "https://js.stripe.com/v3/"}),
        *[("tool", name, args) for name, args in STEPS], ("text", "Done.", None)])
    try:
        (result,) = execute(
            RunPlan(out=tmp_path, tasks=[SHOP], agent_name="claude-code", model=None,
                    sandbox="bwrap"),
            lambda: make_agent("claude-code", None, base_url=model.url),
            emulator=Emulator(emulator.base))
    finally:
        model.stop()
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
