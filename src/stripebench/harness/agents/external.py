"""External CLI agents (Claude Code, Codex, goose, ...) as subprocesses with our MCP server.

What differs between CLIs (command line, environment, reading their output, the binary and
how to install it) is the CLI's adapter in clis/; this module runs any of them. Each CLI
is started in the trial's workdir with the trial's environment and one MCP server
configured: `stripebench mcp --config <trial>/mcp.json`, which works in the trial's
sandbox and writes every tool call into the trial's transcript. The CLI is configured so
that our server's tools are the only ones it offers the model (see each adapter for how).
Its own output goes to agent.log and is read for turns, tokens, cost and the model used;
what it did outside our server (a built-in tool it was refused, a permission denial) is
recorded in the transcript too.

A run in which the CLI refused every call to our tools, or could not start our server
or reach its model, is an agent error (not a scored 0): the agent never got to work.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from ...rundir.transcript import read
from .base import AgentContext, AgentOutcome
from .cli_report import CliReport
from .clis import ADAPTERS, adapter


class ExternalAgent:
    def __init__(self, name: str, model: str | None = None, binary: str | None = None,
                 base_url: str | None = None) -> None:
        self.adapter = adapter(name)
        self.name = name
        self.model = model
        self.base_url = base_url  # the model server (`stripebench run --base-url`)
        self.env_name = f"STRIPEBENCH_{self.adapter.binary.upper()}_BIN"
        self.binary = binary or os.environ.get(self.env_name) or self.adapter.binary

    # ----------------------------------------------------------------- command lines

    def mcp_command(self, ctx: AgentContext) -> list[str]:
        return [sys.executable, "-m", "stripebench.cli", "mcp", "--config", str(ctx.mcp_config)]

    def argv(self, ctx: AgentContext, exe: str) -> list[str]:
        return self.adapter.argv(ctx, exe, self.mcp_command(ctx), self.model, self.base_url)

    def env(self, ctx: AgentContext) -> dict[str, str]:
        env = {**os.environ, **ctx.env}
        env.update(self.adapter.env(ctx, self.model, self.base_url, env))
        return env

    def find(self) -> str | None:
        """The binary: as given, on PATH, or installed by scripts/setup.sh (node_modules)."""
        found = shutil.which(self.binary)
        if found is None and os.sep not in self.binary:
            local = Path(__file__).resolve().parents[4] / "node_modules" / ".bin" / self.binary
            found = str(local) if local.exists() else None
        return found

    # ----------------------------------------------------------------- running

    def run(self, ctx: AgentContext) -> AgentOutcome:
        exe = self.find()
        if exe is None:
            return AgentOutcome(status="error", error=(
                f"{self.name}: {self.binary!r} is not installed ({self.adapter.install}; or "
                f"set {self.env_name} to the binary)"))
        log_path = ctx.trial_dir / "agent.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(self.argv(ctx, exe), cwd=ctx.sandbox.workdir,
                                    env=self.env(ctx), stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            try:
                code = proc.wait(timeout=max(1.0, ctx.time_left()))
                timed_out = False
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                code, timed_out = -9, True
        report = parse_report(self.name, log_path.read_text(errors="replace"), ctx.trial_dir)
        record(ctx, report)
        calls = [e for e in read(ctx.trial_dir / "transcript.jsonl")
                 if e.get("type") == "tool_call"]
        return judge(report, len(calls), code, timed_out, ctx.max_turns, self.binary)


def parse_report(name: str, text: str, trial_dir: Path | None = None) -> CliReport:
    return adapter(name).parse(text, trial_dir)


def parse_output(name: str, text: str, trial_dir: Path | None = None) -> AgentOutcome:
    """Turns, tokens and cost from a CLI's recorded output."""
    return parse_report(name, text, trial_dir).outcome


def assistant_messages(name: str, text: str) -> list[str]:
    """The model's text replies in a CLI's JSON output (goose prints plain text: none)."""
    return parse_report(name, text).messages


def record(ctx: AgentContext, report: CliReport) -> None:
    """The CLI's own words and doings, into the trial's transcript (our tools' calls are
    there already, written by our server)."""
    for text in report.messages:
        ctx.transcript.add("message", role="assistant", text=text, source="agent.log")
    for call in report.foreign:
        ctx.transcript.add("cli_tool_call", source="agent.log", **call)
    for call in report.refused:
        ctx.transcript.add("cli_refused_call", source="agent.log", **call)


def judge(report: CliReport, calls: int, code: int, timed_out: bool, max_turns: int,
          binary: str) -> AgentOutcome:
    outcome = report.outcome
    outcome.model = report.model
    outcome.extra["mcp_tool_calls"] = calls
    if report.foreign:
        outcome.extra["cli_tool_calls"] = len(report.foreign)
    if report.refused:
        outcome.extra["cli_refused_calls"] = len(report.refused)
    if report.warnings:
        outcome.extra["cli_warnings"] = report.warnings[:20]
    if not outcome.turns:
        outcome.turns = calls
    if timed_out:
        outcome.status = "timeout"
    elif report.config_error:
        outcome.status, outcome.error = "error", report.config_error
    elif report.refused and calls == 0:
        first = report.refused[0]
        outcome.status = "error"
        outcome.error = (f"{binary} refused every call to our tools ({len(report.refused)}), "
                         f"e.g. {first.get('name')}: {first.get('error') or first.get('result')}"
                         )[:500]
    elif outcome.status == "turn_limit":
        pass  # Claude Code exits 1 at --max-turns: a finished, scored trial
    elif code != 0:
        outcome.status = "error"
        outcome.error = outcome.error or f"{binary} exited with code {code}; see agent.log"
    elif outcome.turns >= max_turns and outcome.status == "completed":
        outcome.status = "turn_limit"
    return outcome


__all__ = ["ADAPTERS", "ExternalAgent", "assistant_messages", "judge", "parse_output",
           "parse_report"]
