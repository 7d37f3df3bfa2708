"""External agent CLIs: one adapter module per CLI, found here by name.

Every module of this package is an adapter: it defines a class meeting `CliAdapter` and
registers one instance with `register(...)`. The package imports all of its modules when
it is first imported, so adding a CLI is one new file here (plus its test): nothing else
lists the CLIs. ExternalAgent (agents/external.py) runs whichever adapter it is given.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Protocol

from ..base import AgentContext
from ..cli_report import CliReport


class CliAdapter(Protocol):
    name: str  # `stripebench run --agent NAME`
    binary: str  # the executable looked up on PATH and in node_modules/.bin
    install: str  # how to install it: shown when the binary is missing

    def argv(self, ctx: AgentContext, exe: str, server: list[str], model: str | None,
             base_url: str | None) -> list[str]:
        """The command line: `server` is our MCP server's command, the CLI's only tools."""

    def env(self, ctx: AgentContext, model: str | None, base_url: str | None,
            environ: dict[str, str]) -> dict[str, str]:
        """Variables added to the trial's environment (`environ`) for the CLI."""

    def parse(self, text: str, trial_dir: Path | None = None) -> CliReport:
        """What the CLI's own output (agent.log) says: turns, tokens, cost, replies."""


ADAPTERS: dict[str, CliAdapter] = {}


def register(adapter: CliAdapter) -> CliAdapter:
    if adapter.name in ADAPTERS:
        raise ValueError(f"two agent CLI adapters are named {adapter.name!r}")
    ADAPTERS[adapter.name] = adapter
    return adapter


def adapter(name: str) -> CliAdapter:
    try:
        return ADAPTERS[name]
    except KeyError:
        raise ValueError(f"unknown external agent {name!r}; known: "
                         f"{', '.join(sorted(ADAPTERS))}") from None


for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
