"""Agents by name: oracle, noop, scripted, the built-in model loop (openai, anthropic),
and the external CLIs, one adapter each in clis/ (their names come from there)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .base import Agent, AgentContext, AgentOutcome
from .clis import ADAPTERS
from .external import ExternalAgent
from .loop import ModelAgent
from .simple import NoopAgent, OracleAgent, ScriptedAgent

BUILTIN = ("openai", "anthropic")


def names() -> tuple[str, ...]:
    return ("oracle", "noop", "scripted", *BUILTIN, *sorted(ADAPTERS))


class AgentError(ValueError):
    pass


DEFAULT_MODELS = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-5"}


def default_agent() -> tuple[str, str | None]:
    """What `make run` uses: a model when an API key is set, the oracle otherwise."""
    name, model, _ = default_agent_why()
    return name, model


def default_agent_why() -> tuple[str, str | None, str]:
    """`default_agent` and, in a sentence, which variable chose it and how to choose
    another."""
    model_why = ("STRIPEBENCH_MODEL" if os.environ.get("STRIPEBENCH_MODEL") else
                 "the default; STRIPEBENCH_MODEL=... or --model for another")
    for name in ("anthropic", "openai"):
        key = f"{name.upper()}_API_KEY"
        if os.environ.get(key):
            model = os.environ.get("STRIPEBENCH_MODEL") or DEFAULT_MODELS[name]
            other = ("; OPENAI_API_KEY is set too but ANTHROPIC_API_KEY comes first"
                     if name == "anthropic" and os.environ.get("OPENAI_API_KEY") else "")
            return name, model, (f"chosen because {key} is set{other}; model {model} "
                                 f"({model_why}); --agent NAME for another agent")
    return "oracle", None, ("chosen because neither ANTHROPIC_API_KEY nor OPENAI_API_KEY "
                            "is set (the reference solutions); set one, or --agent NAME, "
                            "to run a model")


def make_agent(name: str, model: str | None = None, *, script: Path | None = None,
               base_url: str | None = None, options: dict[str, Any] | None = None) -> Agent:
    options = options or {}
    if name == "oracle":
        return OracleAgent()
    if name == "noop":
        return NoopAgent()
    if name == "scripted":
        if script is None:
            raise AgentError("the scripted agent needs --script FILE.json")
        return ScriptedAgent(script)
    if name in BUILTIN:
        if not model:
            raise AgentError(f"the {name} agent needs --model")
        key = f"{name.upper()}_API_KEY"
        if not base_url and not os.environ.get(key):
            raise AgentError(f"the {name} agent needs {key} (or --base-url for a local "
                             "server that takes no key)")
        return ModelAgent(name, model, base_url=base_url, **options)
    if name in ADAPTERS:
        return ExternalAgent(name, model, base_url=base_url, **options)
    raise AgentError(f"unknown agent {name!r}; known: {', '.join(names())}")


__all__ = ["Agent", "AgentContext", "AgentError", "AgentOutcome", "default_agent",
           "default_agent_why", "make_agent", "names"]
