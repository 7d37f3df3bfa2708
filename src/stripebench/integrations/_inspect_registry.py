"""Inspect AI's entry point (`[project.entry-points.inspect_ai]`): makes
`inspect eval stripebench/stripebench` find the task."""

from .inspect_eval import stripebench  # noqa: F401
