"""The real Claude Code and Codex CLIs (installed from npm by scripts/setup.sh) run
fixture trials through our MCP server, driven by a local scripted model server that
speaks each provider's streaming wire format (tests/scripted_models.py): no real model,
the real programs. What a scripted model tries beyond our tools must fail and be
recorded; what reaches the model server must offer our tools only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paths import REPO
from scripted_models import INPUT_TOKENS, OUTPUT_TOKENS, ScriptedModelServer, Step
from stripebench.harness.agents import make_agent
from stripebench.harness.emulator import Emulator
from stripebench.harness.runner import RunPlan, execute
from stripebench.harness.task import load_task
from stripebench.harness.tools.toolbox import SPEC_BY_NAME

ROOT = REPO
SHOP = load_task(ROOT / "tests" / "fixtures" / "tasks" / "fixture-shop")
SOLVE = ('curl -sf "$STRIPE_API_BASE/v1/customers" -u "$STRIPE_SECRET_KEY:" '
         '-d email=ada@example.com -d "name=Ada Lovelace" | python3 -c '
         '\'import json,sys; print(json.load(sys.stdin)["id"], end="")\' > customer.txt')
OURS: list[Step] = [("tool", "bash", {"command": SOLVE}), ("tool", "view", {"path":
                                                                             "customer.txt"}),
                    ("tool", "submit", {"summary": "created Ada"}), ("text", "Done.", None)]


@pytest.fixture()
def models() -> Iterator[list[ScriptedModelServer]]:
    started: list[ScriptedModelServer] = []
    yield started
    for server in started:
        server.stop()


def _run(tmp_path: Path, emulator: Any, agent: str, model: str | None, url: str,
         max_turns: int | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    (result,) = execute(
        RunPlan(out=tmp_path / "run", tasks=[SHOP], agent_name=agent, model=model,
                max_turns=max_turns),
        lambda: make_agent(agent, model, base_url=url), emulator=Emulator(emulator.base))
    trial = tmp_path / "run" / "trials" / SHOP.id / "1"
    events = [json.loads(line) for line in (trial / "transcript.jsonl").read_text()
              .splitlines()]
    return result, events


def test_claude_code_solves_a_trial_with_our_tools_only(tmp_path: Path, emulator: Any,
                                                       models: list[Any]) -> None:
    """Claude Code offers the model nothing but our MCP tools: its built-in Bash and Read
    (which ran on the host, outside the sandbox, before) are refused by the CLI, recorded
    in the transcript, and touch nothing; our tools solve the task and the trial is
    scored, with the CLI's model, its tool-use ids, turns, tokens and cost."""
    planted = tmp_path / "host-was-touched"
    server = ScriptedModelServer([("tool", "Bash", {"command": f"touch {planted}"}),
                                  ("tool", "Read", {"file_path": "/etc/hostname"}),
                                  *OURS])
    models.append(server)
    result, events = _run(tmp_path, emulator, "claude-code", None, server.url)
    assert result["status"] == "completed", result["error"]
    assert result["reward"] == 1.0
    assert not planted.exists()
    offered = [sorted(t["name"] for t in r["tools"]) for r in server.requests]
    assert offered and all(names == sorted(f"mcp__stripebench__{n}" for n in SPEC_BY_NAME)
                           for names in offered)
    assert len(server.requests) == 6 and not server.side_requests
    # the CLI's own attempts, refused, are in the transcript next to our tools' calls
    cli = [(e["name"], e["is_error"]) for e in events if e["type"] == "cli_tool_call"]
    assert cli == [("Bash", True), ("Read", True)]
    calls = [(e["name"], e["id"]) for e in events if e["type"] == "tool_call"]
    assert calls == [("bash", "toolu_03"), ("view", "toolu_04"), ("submit", "toolu_05")]
    assert result["tool_calls"] == 3 and result["turns"] == 6
    # the model the CLI chose (no --model given), and tokens that agree with the cost
    assert result["model"] == server.requests[0]["model"]
    assert (result["input_tokens"], result["output_tokens"]) == (6 * INPUT_TOKENS,
                                                                 6 * OUTPUT_TOKENS)
    assert result["cost_usd"] is not None and result["cost_usd"] > 0
    said = [e["text"] for e in events if e["type"] == "message" and e.get("role") ==
            "assistant"]
    assert said == ["Done."]
    from stripebench.results import load_run, summarize
    from stripebench.results.html import page

    html = page([summarize(load_run(tmp_path / "run"))])
    assert "Agent output (agent.log)" in html and "mcp__stripebench__bash" in html


def test_claude_code_at_its_turn_limit_is_a_scored_turn_limit(tmp_path: Path,
                                                              emulator: Any,
                                                              models: list[Any]) -> None:
    """`--max-turns` ends the CLI with `error_max_turns` and exit code 1: that is a trial
    that used its turns (graded), not an agent error."""
    server = ScriptedModelServer([("tool", "bash", {"command": "true"})])
    models.append(server)
    result, _ = _run(tmp_path, emulator, "claude-code", "claude-sonnet-4-5", server.url,
                     max_turns=2)
    assert result["status"] == "turn_limit", result["error"]
    assert result["reward"] == 0.0 and result["turns"] == 2
    assert result["model"] == "claude-sonnet-4-5"


def test_codex_solves_a_trial_with_our_tools_only(tmp_path: Path, emulator: Any,
                                                 models: list[Any]) -> None:
    """Codex reaches the model through `--base-url` (a model provider of ours: it ignores
    OPENAI_BASE_URL), runs our tools without an approval it cannot get under `exec`, and
    offers neither its shell nor its other host tools: a scripted `exec_command` does
    nothing. Turns are the model's responses; the model is the one Codex used."""
    planted = tmp_path / "host-was-touched"
    server = ScriptedModelServer([("tool", "exec_command", {"cmd": f"touch {planted}"}),
                                  *OURS])
    models.append(server)
    # an OpenAI-compatible base URL, as for the built-in openai agent: with /v1
    result, events = _run(tmp_path, emulator, "codex", "scripted-model", f"{server.url}/v1")
    assert result["status"] == "completed", result["error"]
    assert result["reward"] == 1.0
    assert not planted.exists()
    assert len(server.requests) == 5
    for request in server.requests:
        names = {t.get("name") for t in request["tools"]}
        ours = [t for t in request["tools"] if t.get("name") == "mcp__stripebench"]
        assert sorted(t["name"] for t in ours[0]["tools"]) == sorted(SPEC_BY_NAME)
        # what is left of Codex's own tools reads our server's resources or asks the user
        assert names == {"mcp__stripebench", "list_mcp_resources",
                         "list_mcp_resource_templates", "read_mcp_resource",
                         "request_user_input"}
    refused = [o for o in server.requests[1]["input"] if o.get("type") ==
               "function_call_output"]
    assert refused and "unsupported call: exec_command" in json.dumps(refused[0])
    calls = [(e["name"], e["id"]) for e in events if e["type"] == "tool_call"]
    assert calls == [("bash", "call_02"), ("view", "call_03"), ("submit", "call_04")]
    # the attempt shows only in Codex's session log: recorded from there
    cli = [(e["name"], e["result"]) for e in events if e["type"] == "cli_tool_call"]
    assert cli == [("exec_command", "unsupported call: exec_command")]
    assert result["tool_calls"] == 3 and result["turns"] == 5
    assert result["model"] == "scripted-model"
    assert (result["input_tokens"], result["output_tokens"]) == (5 * INPUT_TOKENS,
                                                                 5 * OUTPUT_TOKENS)
    assert result["cost_usd"] is None  # an unpriced model: no made-up cost


def test_codex_default_model_works_our_tools_from_its_code_mode(tmp_path: Path,
                                                               emulator: Any,
                                                               models: list[Any]) -> None:
    """With no --model, Codex uses its default model and "code mode": one `exec` tool
    runs JavaScript that calls nested tools. Ours are there (`tools.mcp__stripebench__*`)
    and work; its own `apply_patch`, still nested, is refused by Codex's read-only
    sandbox, so a patch outside the workdir never lands."""
    planted = tmp_path / "patched-on-host.txt"
    patch = f"*** Begin Patch\n*** Add File: {planted}\n+pwned\n*** End Patch\n"
    script = "\n".join([
        f"try {{ await tools.apply_patch({json.dumps(patch)}); }} "
        "catch (e) { text('refused: ' + e); }",
        f"text(JSON.stringify(await tools.mcp__stripebench__bash({json.dumps(OURS[0][2])})));",
        f"text(JSON.stringify(await tools.mcp__stripebench__view({json.dumps(OURS[1][2])})));",
        "await tools.mcp__stripebench__submit({summary: 'created Ada'});"])
    server = ScriptedModelServer([("custom", "exec", script), ("text", "Done.", None)])
    models.append(server)
    result, events = _run(tmp_path, emulator, "codex", None, f"{server.url}/v1")
    assert result["status"] == "completed", result["error"]
    assert result["reward"] == 1.0 and not planted.exists()
    output = json.dumps([o for o in server.requests[1]["input"]
                         if o.get("type") == "custom_tool_call_output"])
    assert "refused: " in output and "read-only sandbox" in output
    assert [e["name"] for e in events if e["type"] == "tool_call"] == ["bash", "view",
                                                                       "submit"]
    (ran,) = [e for e in events if e["type"] == "cli_tool_call"]  # the script, kept
    assert ran["name"] == "exec" and ran["args"] == script
    assert "read-only sandbox" in ran["result"]
    assert result["turns"] == 2 and result["tool_calls"] == 3
    assert result["model"] == server.requests[0]["model"]  # Codex's default, not null


def test_claude_code_ignores_settings_the_agent_writes_into_its_workdir(
        tmp_path: Path, emulator: Any, models: list[Any]) -> None:
    """The CLI runs on the host and reloads the project's `.claude/settings*.json` while
    it runs: hooks an agent wrote there with our (sandboxed) bash ran on the host, outside
    the sandbox. They must not: the CLI reads no settings files."""
    planted = tmp_path / "hook-ran-on-host"
    hook = {"hooks": {event: [{"matcher": "*", "hooks": [
        {"type": "command", "command": f"touch {planted}"}]}]
        for event in ("PreToolUse", "PostToolUse", "Stop")}}
    write = (f"mkdir -p .claude && echo '{json.dumps(hook)}' > .claude/settings.json && "
             "cp .claude/settings.json .claude/settings.local.json")
    server = ScriptedModelServer([("tool", "bash", {"command": write}),
                                  ("tool", "bash", {"command": "sleep 2"}), *OURS])
    models.append(server)
    result, _ = _run(tmp_path, emulator, "claude-code", None, server.url)
    assert result["status"] == "completed", result["error"]
    trial = tmp_path / "run" / "trials" / SHOP.id / "1"
    assert (trial / "workdir" / ".claude" / "settings.local.json").exists()
    assert not planted.exists()
    assert result["reward"] == 1.0


def test_stripebench_run_passes_base_url_to_codex(tmp_path: Path, models: list[Any]) -> None:
    """`stripebench run --agent codex --base-url U` reaches the model at U (it used to be
    dropped for external agents, and Codex ignores OPENAI_BASE_URL)."""
    server = ScriptedModelServer(OURS)
    models.append(server)
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(
        [sys.executable, "-m", "stripebench.cli", "run", "--agent", "codex", "--model",
         "scripted-model", "--base-url", f"{server.url}/v1", "--tasks", SHOP.id,
         "--tasks-dir", str(SHOP.path.parent), "--sandbox", "local", "--allow-unsealed", "--out",
         str(tmp_path / "run"), "--no-report"],
        capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads((tmp_path / "run" / "trials" / SHOP.id / "1" / "result.json")
                        .read_text())
    assert (result["status"], result["reward"]) == ("completed", 1.0), result["error"]
    assert len(server.requests) == 4
