"""Inspect AI's entry point (`[project.entry-points.inspect_ai]`): makes
`inspect eval stripebench/stripebench` find the task and registers the `stripebench`
sandbox environment its samples run in."""

from .inspect_eval import stripebench  # noqa: F401
from .inspect_sandbox import TrialSandbox  # noqa: F401
