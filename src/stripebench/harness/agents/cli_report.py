"""What an external CLI's own output says about its run, in one shape for every CLI."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .base import AgentOutcome

SERVER = "stripebench"  # the name our MCP server is configured under in every CLI


@dataclass
class CliReport:
    outcome: AgentOutcome = field(default_factory=AgentOutcome)
    model: str | None = None  # the model the CLI says it used
    messages: list[str] = field(default_factory=list)  # the model's text replies
    # what the CLI did (or was refused) outside our MCP server: its own tools, denials
    foreign: list[dict[str, Any]] = field(default_factory=list)
    # our tools' calls the CLI itself refused or failed before they reached our server
    refused: list[dict[str, Any]] = field(default_factory=list)
    config_error: str | None = None  # the CLI could not be set up as asked (server, provider)
    warnings: list[str] = field(default_factory=list)


def json_lines(text: str) -> list[dict[str, Any]]:
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


def result_text(content: Any) -> str:
    """A tool result's text, from a plain string or a list of content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return "" if content is None else json.dumps(content)
