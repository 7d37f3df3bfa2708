"""Codex (`codex exec`, @openai/codex 0.171) with only our MCP tools.

Verified against the real CLI (tests/harness/test_agents_real_cli.py):
- The model is reached through a model provider of our own (`-c model_provider=...`,
  `model_providers.<id>.base_url`, `wire_api="responses"`): Codex ignores
  OPENAI_BASE_URL. It speaks the Responses API, streaming.
- MCP tools need `default_tools_approval_mode="approve"`: under `codex exec`'s approval
  policy "never" every call is otherwise refused ("MCP tool call requires approval").
  `required=true` makes Codex wait for our server before the first request (it would
  otherwise start without its tools) and fail if it cannot start.
- Its own tools are switched off: the shell (`exec_command`, `write_stdin`),
  `view_image`, sub-agents, goals, web search, image generation, apps and plugins. What
  stays is harmless to the sandbox: listing and reading MCP resources (of our server
  only) and `request_user_input` (plan mode only).
- A private CODEX_HOME per trial (no user config, rules, skills or sessions of the
  user's); its session log there (`sessions/**/rollout-*.jsonl`) counts the model's
  responses (turns) and names the model used.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..base import AgentContext
from ..cli_report import SERVER, CliReport, json_lines, result_text
from ..pricing import cost
from . import register

PROVIDER = "stripebench"
OFF = ("shell_tool", "unified_exec", "view_image", "multi_agent", "goals",
       "image_generation", "apps", "plugins", "hooks")


def _argv(ctx: AgentContext, exe: str, server: list[str], model: str | None,
         base_url: str | None) -> list[str]:
    mcp = f"mcp_servers.{SERVER}"
    tool_seconds = max(60, int(ctx.time_left()) + 60)  # a bash call may take 600 s
    args = [exe, "exec", "--json", "--skip-git-repo-check", "--ignore-user-config",
            "--ignore-rules",
            "-c", f"{mcp}.command={json.dumps(server[0])}",
            "-c", f"{mcp}.args={json.dumps(server[1:])}",
            "-c", f"{mcp}.required=true",
            "-c", f'{mcp}.default_tools_approval_mode="approve"',
            "-c", f"{mcp}.startup_timeout_sec=60",
            "-c", f"{mcp}.tool_timeout_sec={tool_seconds}",
            "-c", 'web_search="disabled"']
    for feature in OFF:
        args += ["--disable", feature]
    if base_url:
        provider = f"model_providers.{PROVIDER}"
        args += ["-c", f'model_provider="{PROVIDER}"',
                 "-c", f'{provider}.name="stripebench --base-url"',
                 "-c", f"{provider}.base_url={json.dumps(base_url)}",
                 "-c", f'{provider}.wire_api="responses"',
                 "-c", f'{provider}.env_key="OPENAI_API_KEY"']
    if model:
        args += ["-m", model]
    return [*args, ctx.prompt]


def _env(ctx: AgentContext, base_url: str | None, environ: dict[str, str]) -> dict[str, str]:
    home = ctx.trial_dir / "codex-home"
    home.mkdir(exist_ok=True)
    out = {"CODEX_HOME": str(home)}
    if base_url and not environ.get("OPENAI_API_KEY"):
        out["OPENAI_API_KEY"] = "stripebench-local"  # a local server takes any key
    return out


def _parse(text: str, trial_dir: Path | None = None) -> CliReport:
    report = CliReport()
    outcome = report.outcome
    items = 0
    for event in json_lines(text):
        kind = event.get("type")
        item = event.get("item") or {}
        if kind == "turn.completed":
            usage = event.get("usage") or {}
            outcome.input_tokens += int(usage.get("input_tokens") or 0)
            outcome.output_tokens += int(usage.get("output_tokens") or 0)
        elif kind == "turn.failed":
            outcome.status = "error"
            outcome.error = str((event.get("error") or {}).get("message") or
                                json.dumps(event))[:500]
        elif kind == "error":
            report.warnings.append(str(event.get("message") or json.dumps(event))[:500])
        elif kind == "item.completed":
            items += _item(item, report)
    session = _session(trial_dir)
    if session is not None:
        outcome.turns, report.model, own_calls = session
        report.foreign += own_calls
    else:  # no session log (a stand-in CLI): the items the model produced
        outcome.turns = items
    if report.model and outcome.cost_usd is None:
        outcome.cost_usd = cost(report.model, outcome.input_tokens, outcome.output_tokens)
    return report


def _item(item: dict[str, Any], report: CliReport) -> int:
    """Record one finished item; 1 if the model produced it and it did not fail."""
    kind = item.get("type")
    if kind == "agent_message":
        if item.get("text"):
            report.messages.append(str(item["text"]))
        return 1
    if kind == "error":
        report.warnings.append(str(item.get("message"))[:500])
        return 0
    if kind == "reasoning":
        return 0
    call = {"id": item.get("id"), "name": kind, "args": item.get("arguments")}
    if kind == "mcp_tool_call":
        call["name"] = f"{item.get('server')}.{item.get('tool')}"
        failed = item.get("status") == "failed" or item.get("error")
        if failed:
            call["error"] = str((item.get("error") or {}).get("message") or "failed")
        if item.get("server") != SERVER:
            report.foreign.append(call)
        elif failed:
            report.refused.append(call)  # stopped by Codex, never reached our server
            return 0
        return 1
    # anything else Codex did itself: commands, file changes, searches
    call["args"] = {k: v for k, v in item.items() if k not in ("id", "type")}
    call["result"] = result_text(item.get("aggregated_output"))[:2000]
    report.foreign.append(call)
    return 1


def _session(trial_dir: Path | None) -> tuple[int, str | None, list[dict[str, Any]]] | None:
    """From Codex's session log in the trial's CODEX_HOME: the model's responses (turns),
    the model, and the calls the model made to anything but our tools (with what Codex
    answered): its `exec` scripts in code mode, a tool it was not offered. Its JSON
    output shows neither."""
    if trial_dir is None:
        return None
    logs = sorted((trial_dir / "codex-home" / "sessions").glob("**/rollout-*.jsonl"))
    if not logs:
        return None
    responses: set[str] = set()
    model = None
    calls: dict[str, dict[str, Any]] = {}
    for log in logs:
        for event in json_lines(log.read_text(errors="replace")):
            payload = event.get("payload") or {}
            kind = payload.get("type")
            if event.get("type") == "token_usage_record":
                responses.add(str(payload.get("response_id")))
            elif kind == "thread_settings_applied":
                model = (payload.get("thread_settings") or {}).get("model") or model
            elif event.get("type") == "turn_context" and not model:
                model = payload.get("model")
            elif event.get("type") != "response_item":
                continue
            elif kind in ("function_call", "custom_tool_call") and \
                    payload.get("namespace") != f"mcp__{SERVER}":
                calls[str(payload.get("call_id"))] = {
                    "id": payload.get("call_id"), "name": payload.get("name"),
                    "args": payload.get("arguments") or payload.get("input")}
            elif kind in ("function_call_output", "custom_tool_call_output") and \
                    str(payload.get("call_id")) in calls:
                calls[str(payload.get("call_id"))]["result"] = result_text(
                    payload.get("output"))[:2000]
    return len(responses), model, list(calls.values())


class Codex:
    name = "codex"
    binary = "codex"
    install = "npm install @openai/codex (scripts/setup.sh does)"

    def argv(self, ctx: AgentContext, exe: str, server: list[str], model: str | None,
             base_url: str | None) -> list[str]:
        return _argv(ctx, exe, server, model, base_url)

    def env(self, ctx: AgentContext, model: str | None, base_url: str | None,
            environ: dict[str, str]) -> dict[str, str]:
        return _env(ctx, base_url, environ)

    def parse(self, text: str, trial_dir: Path | None = None) -> CliReport:
        return _parse(text, trial_dir)


register(Codex())
