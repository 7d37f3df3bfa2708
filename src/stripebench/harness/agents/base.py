"""What every agent gets and returns."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ...rundir.transcript import Transcript
from ..sandbox import Sandbox
from ..task import Task
from ..tools import Toolbox


@dataclass
class AgentContext:
    task: Task
    sandbox: Sandbox
    toolbox: Toolbox
    transcript: Transcript
    prompt: str  # the instruction plus what the agent needs to know about its environment
    deadline: float  # time.monotonic() value
    max_turns: int
    env: dict[str, str]  # what the agent's processes see (keys, base URLs)
    trial_dir: Path
    mcp_config: Path  # JSON for `stripebench mcp --config` (external agents)

    def time_left(self) -> float:
        return self.deadline - time.monotonic()


@dataclass
class AgentOutcome:
    # completed | turn_limit | timeout | error | endpoint_unreachable | provider_refused
    status: str = "completed"
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    error: str | None = None
    model: str | None = None  # the model the agent says it used (external CLIs)
    extra: dict[str, Any] = field(default_factory=dict)


class Agent(Protocol):
    name: str
    model: str | None

    def run(self, ctx: AgentContext) -> AgentOutcome: ...
