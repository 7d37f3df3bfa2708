"""External CLI agents (goose, Claude Code, Codex) as subprocesses with our MCP server.

Each CLI is started in the trial's workdir with the trial's environment and one MCP
server configured: `stripebench mcp --config <trial>/mcp.json`, which works in the
trial's sandbox and writes every tool call into the trial's transcript. The CLI's own
output (JSON lines where it has them) goes to agent.log and is read for turns, tokens
and cost; where a CLI does not report turns, the tool calls our server saw are counted.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from typing import Any

from ..transcript import read
from .base import AgentContext, AgentOutcome

BINARIES = {"claude-code": "claude", "codex": "codex", "goose": "goose"}


class ExternalAgent:
    def __init__(self, name: str, model: str | None = None, binary: str | None = None) -> None:
        if name not in BINARIES:
            raise ValueError(f"unknown external agent {name!r}")
        self.name = name
        self.model = model
        env_name = f"STRIPEBENCH_{BINARIES[name].upper()}_BIN"
        self.binary = binary or os.environ.get(env_name) or BINARIES[name]

    # ----------------------------------------------------------------- command lines

    def mcp_command(self, ctx: AgentContext) -> list[str]:
        return [sys.executable, "-m", "stripebench.cli", "mcp", "--config", str(ctx.mcp_config)]

    def argv(self, ctx: AgentContext, exe: str) -> list[str]:
        server = self.mcp_command(ctx)
        model = ["--model", self.model] if self.model else []
        if self.name == "claude-code":
            config = ctx.trial_dir / "claude-mcp.json"
            config.write_text(json.dumps({"mcpServers": {"stripebench": {
                "type": "stdio", "command": server[0], "args": server[1:]}}}))
            return [exe, "-p", ctx.prompt, "--output-format", "stream-json", "--verbose",
                    "--mcp-config", str(config), "--strict-mcp-config",
                    "--allowedTools", "mcp__stripebench", "--max-turns", str(ctx.max_turns),
                    *model]
        if self.name == "codex":
            return [exe, "exec", "--json", "--skip-git-repo-check",
                    "-c", f"mcp_servers.stripebench.command={json.dumps(server[0])}",
                    "-c", f"mcp_servers.stripebench.args={json.dumps(server[1:])}",
                    *(["-m", self.model] if self.model else []), ctx.prompt]
        return [exe, "run", "--no-session", "--with-extension", " ".join(server),
                "--max-turns", str(ctx.max_turns), "-t", ctx.prompt]

    # ----------------------------------------------------------------- running

    def run(self, ctx: AgentContext) -> AgentOutcome:
        exe = shutil.which(self.binary)
        if exe is None:
            return AgentOutcome(status="error", error=f"{self.binary!r} is not installed (set "
                                f"STRIPEBENCH_{BINARIES[self.name].upper()}_BIN)")
        env = {**os.environ, **ctx.env}
        if self.name == "goose" and self.model:
            env["GOOSE_MODEL"] = self.model
        log_path = ctx.trial_dir / "agent.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(self.argv(ctx, exe), cwd=ctx.sandbox.workdir, env=env,
                                    stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            try:
                code = proc.wait(timeout=max(1.0, ctx.time_left()))
                timed_out = False
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                code, timed_out = -9, True
        output = log_path.read_text(errors="replace")
        outcome = parse_output(self.name, output)
        # the CLI's own words (its tool calls are already there, from our server)
        for text in assistant_messages(self.name, output):
            ctx.transcript.add("message", role="assistant", text=text, source="agent.log")
        calls = sum(1 for e in read(ctx.trial_dir / "transcript.jsonl")
                    if e.get("type") == "tool_call")
        outcome.extra["mcp_tool_calls"] = calls
        if not outcome.turns:
            outcome.turns = calls
        if timed_out:
            outcome.status = "timeout"
        elif code != 0:
            outcome.status = "error"
            outcome.error = f"{self.binary} exited with code {code}; see agent.log"
        elif outcome.turns >= ctx.max_turns and outcome.status == "completed":
            outcome.status = "turn_limit"
        return outcome


def _lines(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                out.append(value)
    return out


def parse_output(name: str, text: str) -> AgentOutcome:
    """Turns, tokens and cost from a CLI's recorded output."""
    outcome = AgentOutcome()
    events = _lines(text)
    if name == "claude-code":
        for event in events:
            if event.get("type") == "result":
                usage = event.get("usage") or {}
                outcome.turns = int(event.get("num_turns") or 0)
                outcome.input_tokens = int(usage.get("input_tokens") or 0) + int(
                    usage.get("cache_read_input_tokens") or 0) + int(
                    usage.get("cache_creation_input_tokens") or 0)
                outcome.output_tokens = int(usage.get("output_tokens") or 0)
                if event.get("total_cost_usd") is not None:
                    outcome.cost_usd = float(event["total_cost_usd"])
                if event.get("is_error"):
                    outcome.status = "error"
                    outcome.error = str(event.get("result") or event.get("subtype"))
                if event.get("subtype") == "error_max_turns":
                    outcome.status, outcome.error = "turn_limit", None
    elif name == "codex":
        for event in events:
            kind = event.get("type")
            if kind == "turn.completed":
                usage = event.get("usage") or {}
                outcome.input_tokens += int(usage.get("input_tokens") or 0)
                outcome.output_tokens += int(usage.get("output_tokens") or 0)
            elif kind == "item.completed" and (event.get("item") or {}).get("type") in (
                    "mcp_tool_call", "command_execution", "agent_message"):
                outcome.turns += 1
            elif kind in ("turn.failed", "error"):
                outcome.status = "error"
                outcome.error = json.dumps(event)[:500]
    return outcome


def assistant_messages(name: str, text: str) -> list[str]:
    """The model's text replies in a CLI's JSON output (goose prints plain text: none)."""
    found = []
    for event in _lines(text):
        if name == "claude-code" and event.get("type") == "assistant":
            content = (event.get("message") or {}).get("content") or []
            found += [str(block.get("text")) for block in content
                      if isinstance(block, dict) and block.get("type") == "text"
                      and block.get("text")]
        elif name == "codex" and event.get("type") == "item.completed":
            item = event.get("item") or {}
            if item.get("type") == "agent_message" and item.get("text"):
                found.append(str(item["text"]))
    return found
