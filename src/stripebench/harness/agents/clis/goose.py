"""goose (`goose run`) with our MCP server as an extension.

goose prints plain text: it reports no turns, tokens or cost, so its calls are counted at
our server (the transcript). It is not on the package registries stripebench installs
from; tests use a stand-in that reads its command line where goose would
(tests/fixtures/bin/goose).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ..base import AgentContext
from ..cli_report import CliReport
from . import register


class Goose:
    name = "goose"
    binary = "goose"
    install = ("goose is not on the package registries stripebench installs from; install "
               "it from its own releases")

    def argv(self, ctx: AgentContext, exe: str, server: list[str], model: str | None,
             base_url: str | None) -> list[str]:
        return [exe, "run", "--no-session", "--with-extension", shlex.join(server),
                "--max-turns", str(ctx.max_turns), "-t", ctx.prompt]

    def env(self, ctx: AgentContext, model: str | None, base_url: str | None,
            environ: dict[str, str]) -> dict[str, str]:
        return {"GOOSE_MODEL": model} if model else {}

    def parse(self, text: str, trial_dir: Path | None = None) -> CliReport:
        return CliReport()


register(Goose())
