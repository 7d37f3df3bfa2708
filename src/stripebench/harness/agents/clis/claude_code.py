"""Claude Code (`claude -p`, @anthropic-ai/claude-code 2.1.x) with only our MCP tools.

Verified against the real CLI (tests/harness/test_agents_real_cli.py):
- `--tools ""` removes every built-in tool (Bash, Read, Write, Edit, WebFetch, Task, ...):
  the model's request lists none of them and a call to one is answered "No such tool
  available"; `ENABLE_TOOL_SEARCH=false` drops the deferred-tool placeholder too, so the
  request offers exactly the `mcp__stripebench__*` tools.
- `--allowedTools mcp__stripebench` approves our server's tools; `--permission-mode
  dontAsk` denies whatever else would ask (listed as `permission_denials` in the result).
- `--strict-mcp-config` ignores MCP servers configured anywhere else, and a private
  CLAUDE_CONFIG_DIR per trial keeps the user's settings, hooks and plugins out.
- `--setting-sources=` (none): without it the CLI, which runs on the host, reads the
  workdir's `.claude/settings*.json`, and reloads them while it runs, so an agent that
  wrote hooks there through our sandboxed bash had them run on the host.
- The stream-json `result` event: `num_turns` (one more than the model's responses when
  `--max-turns` stops it: turns are counted from the assistant messages instead),
  `subtype` (`success`, `error_max_turns` with exit code 1, ...), `total_cost_usd` and
  `modelUsage` per model (side requests included, so tokens are summed there to agree
  with the cost); the `init` event names the model used.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..base import AgentContext
from ..cli_report import SERVER, CliReport, json_lines, result_text
from . import register

PREFIX = f"mcp__{SERVER}__"


def _argv(ctx: AgentContext, exe: str, server: list[str], model: str | None) -> list[str]:
    config = ctx.trial_dir / "claude-mcp.json"
    config.write_text(json.dumps({"mcpServers": {SERVER: {
        "type": "stdio", "command": server[0], "args": server[1:]}}}))
    return [exe, "-p", ctx.prompt, "--output-format", "stream-json", "--verbose",
            "--mcp-config", str(config), "--strict-mcp-config",
            "--tools", "", "--allowedTools", f"mcp__{SERVER}",
            "--permission-mode", "dontAsk", "--disable-slash-commands",
            "--setting-sources=",
            "--no-session-persistence", "--max-turns", str(ctx.max_turns),
            *(["--model", model] if model else [])]


def _env(ctx: AgentContext, base_url: str | None, environ: dict[str, str]) -> dict[str, str]:
    home = ctx.trial_dir / "claude-home"
    home.mkdir(exist_ok=True)
    out = {"CLAUDE_CONFIG_DIR": str(home), "ENABLE_TOOL_SEARCH": "false",
           "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    if base_url:
        out["ANTHROPIC_BASE_URL"] = base_url
        if not environ.get("ANTHROPIC_API_KEY"):
            out["ANTHROPIC_API_KEY"] = "stripebench-local"  # a local server takes any key
    return out


def _parse(text: str, trial_dir: Path | None = None) -> CliReport:
    report = CliReport()
    outcome = report.outcome
    calls: dict[str, dict[str, Any]] = {}  # tool_use id -> the CLI's record of it
    replies: set[str] = set()  # the model's responses (one may span several events)
    for event in json_lines(text):
        kind = event.get("type")
        if kind == "system" and event.get("subtype") == "init":
            report.model = event.get("model") or report.model
            for server in event.get("mcp_servers") or []:
                if server.get("name") == SERVER and server.get("status") != "connected":
                    report.config_error = (f"Claude Code could not use our MCP server "
                                           f"(status {server.get('status')!r})")
            outcome.extra["cli_tools"] = event.get("tools") or []
        elif kind == "assistant":
            replies.add(str((event.get("message") or {}).get("id") or len(replies)))
            for block in (event.get("message") or {}).get("content") or []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text" and block.get("text"):
                    report.messages.append(str(block["text"]))
                elif block.get("type") == "tool_use":
                    calls[str(block.get("id"))] = {"id": block.get("id"),
                                                   "name": block.get("name"),
                                                   "args": block.get("input")}
        elif kind == "user":
            for block in (event.get("message") or {}).get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    call = calls.get(str(block.get("tool_use_id")))
                    if call is not None:
                        call["is_error"] = bool(block.get("is_error"))
                        call["result"] = result_text(block.get("content"))[:2000]
        elif kind == "result":
            _result(event, report)
            for denial in event.get("permission_denials") or []:
                call = calls.setdefault(str(denial.get("tool_use_id")), {
                    "id": denial.get("tool_use_id"), "name": denial.get("tool_name"),
                    "args": denial.get("tool_input"), "is_error": True})
                call["denied"] = True
    if replies:  # num_turns also counts the turn --max-turns stopped before it ran
        outcome.turns = len(replies)
    for call in calls.values():
        if not str(call["name"]).startswith(PREFIX):
            report.foreign.append(call)
        elif call.get("denied") or (call.get("is_error") and
                                    "<tool_use_error>" in str(call.get("result"))):
            report.refused.append(call)  # stopped by the CLI, never reached our server
    return report


def _result(event: dict[str, Any], report: CliReport) -> None:
    outcome = report.outcome
    outcome.turns = int(event.get("num_turns") or 0)
    outcome.extra["cli_num_turns"] = outcome.turns
    per_model = event.get("modelUsage") or {}
    if per_model:
        outcome.input_tokens = sum(int(u.get("inputTokens") or 0) + int(
            u.get("cacheReadInputTokens") or 0) + int(u.get("cacheCreationInputTokens") or 0)
            for u in per_model.values())
        outcome.output_tokens = sum(int(u.get("outputTokens") or 0)
                                    for u in per_model.values())
        outcome.extra["model_usage"] = per_model
    else:
        usage = event.get("usage") or {}
        outcome.input_tokens = int(usage.get("input_tokens") or 0) + int(
            usage.get("cache_read_input_tokens") or 0) + int(
            usage.get("cache_creation_input_tokens") or 0)
        outcome.output_tokens = int(usage.get("output_tokens") or 0)
    if event.get("total_cost_usd") is not None:
        outcome.cost_usd = float(event["total_cost_usd"])
    if event.get("permission_denials"):
        outcome.extra["permission_denials"] = event["permission_denials"]
    subtype = event.get("subtype")
    if subtype == "error_max_turns":
        outcome.status, outcome.error = "turn_limit", None
    elif event.get("is_error") or (subtype and subtype != "success"):
        outcome.status = "error"
        outcome.error = str(event.get("result") or subtype)[:500]


class ClaudeCode:
    name = "claude-code"
    binary = "claude"
    install = "npm install @anthropic-ai/claude-code (scripts/setup.sh does)"

    def argv(self, ctx: AgentContext, exe: str, server: list[str], model: str | None,
             base_url: str | None) -> list[str]:
        return _argv(ctx, exe, server, model)

    def env(self, ctx: AgentContext, model: str | None, base_url: str | None,
            environ: dict[str, str]) -> dict[str, str]:
        return _env(ctx, base_url, environ)

    def parse(self, text: str, trial_dir: Path | None = None) -> CliReport:
        return _parse(text, trial_dir)


register(ClaudeCode())
