"""Agent CLIs are found through one registry: every module in harness/agents/clis/
registers one adapter, and `make_agent`, the error for an unknown agent and the
missing-binary message all come from the adapters (no list of CLIs anywhere else)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from paths import REPO
from stripebench.harness.agents import AgentError, make_agent, names
from stripebench.harness.agents.base import AgentContext
from stripebench.harness.agents.cli_report import CliReport
from stripebench.harness.agents.clis import ADAPTERS, register
from stripebench.harness.agents.external import ExternalAgent

CLIS = REPO / "src" / "stripebench" / "harness" / "agents" / "clis"
SRC = REPO / "src" / "stripebench"


def test_every_adapter_module_registers_one_adapter() -> None:
    modules = sorted(p.stem for p in CLIS.glob("*.py") if p.stem != "__init__")
    assert modules == ["claude_code", "codex", "goose"]
    assert sorted(ADAPTERS) == ["claude-code", "codex", "goose"]
    for name, adapter in ADAPTERS.items():
        assert adapter.name == name and adapter.binary and adapter.install
        assert isinstance(make_agent(name), ExternalAgent)
        assert name in names()


def test_no_cli_is_named_outside_its_adapter() -> None:
    """The switches and tables that used to list the CLIs (EXTERNAL, BINARIES, install
    hints, `if self.name == "claude-code"`) are gone: no module outside clis/ compares
    with or lists a CLI's name."""
    offenders = []
    for path in SRC.rglob("*.py"):
        if CLIS in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in ADAPTERS:
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno} {node.value!r}")
    assert offenders == []


class Echo:
    """A CLI added at run time, as a new adapter module would add it."""

    name = "echo-cli"
    binary = "stripebench-no-such-echo-cli"
    install = "echo-cli comes from nowhere; this is a test"

    def argv(self, ctx: AgentContext, exe: str, server: list[str], model: str | None,
             base_url: str | None) -> list[str]:
        return [exe, "--server", *server]

    def env(self, ctx: AgentContext, model: str | None, base_url: str | None,
            environ: dict[str, str]) -> dict[str, str]:
        return {"ECHO_MODEL": model or ""}

    def parse(self, text: str, trial_dir: Path | None = None) -> CliReport:
        return CliReport()


def test_a_registered_adapter_is_an_agent_with_its_own_install_hint(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match="unknown agent 'echo-cli'"):
        make_agent("echo-cli")
    register(Echo())
    try:
        agent = make_agent("echo-cli", "m")
        assert isinstance(agent, ExternalAgent) and agent.adapter.name == "echo-cli"
        assert agent.env_name == "STRIPEBENCH_STRIPEBENCH-NO-SUCH-ECHO-CLI_BIN"
        assert agent.find() is None
        with pytest.raises(ValueError, match="two agent CLI adapters are named 'echo-cli'"):
            register(Echo())
    finally:
        del ADAPTERS["echo-cli"]
    with pytest.raises(AgentError, match="known: oracle, noop, scripted, openai, anthropic, "
                                         "claude-code, codex, goose"):
        make_agent("echo-cli")
