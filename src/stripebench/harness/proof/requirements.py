"""`tests/requirements.toml`: every sentence of instruction.md is a requirement with the
checks that test it, or context with the reason it needs none.

    [[requirement]]
    id = "fulfil-from-verified-webhook"
    text = "the exact sentence(s) from instruction.md"
    checks = ["endpoint_registered", "forged_refused"]
    weights = "why these checks weigh what they do"

    [[context]]
    text = "a sentence that states no requirement"
    why = "why it needs no check"

A requirement no grader can check says so with `unchecked = "why"` and `checks = []`.
A requirement stated in pieces (say a parenthesis inside another requirement's sentence)
gives `text` as a list of passages.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from .markdown import strip_markdown

FILE = "tests/requirements.toml"
KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_REQUIREMENT_KEYS = {"id", "text", "checks", "weights", "unchecked"}
_CONTEXT_KEYS = {"text", "why"}


class ProofError(ValueError):
    """A requirements.toml or variant manifest that cannot be read at all."""


@dataclass(frozen=True)
class Requirement:
    id: str
    text: str | tuple[str, ...]  # one passage, or several where a requirement is split
    checks: tuple[str, ...]
    weights: str
    unchecked: str = ""


@dataclass(frozen=True)
class Context:
    text: str
    why: str


@dataclass(frozen=True)
class RequirementTable:
    requirements: tuple[Requirement, ...]
    contexts: tuple[Context, ...]
    problems: tuple[str, ...]  # what was malformed while loading

    def by_id(self) -> dict[str, Requirement]:
        return {r.id: r for r in self.requirements}

    def owner(self) -> dict[str, str]:
        """check name -> the requirement id it belongs to (the first, if several)."""
        found: dict[str, str] = {}
        for requirement in self.requirements:
            for check in requirement.checks:
                found.setdefault(check, requirement.id)
        return found

    @property
    def checks(self) -> list[str]:
        return [c for r in self.requirements for c in r.checks]


def _text(raw: object) -> str:
    return raw if isinstance(raw, str) else ""


def _texts(raw: object) -> str | tuple[str, ...]:
    """A requirement's text: a string, or a list of passages (a requirement stated in
    pieces, e.g. a parenthesis inside another requirement's sentence)."""
    if isinstance(raw, list) and raw and all(isinstance(x, str) for x in raw):
        return tuple(raw)
    return _text(raw)


def passages(text: str | tuple[str, ...]) -> tuple[str, ...]:
    return (text,) if isinstance(text, str) else text


def load_requirements(task_dir: Path) -> RequirementTable:
    path = Path(task_dir) / FILE
    if not path.is_file():
        raise ProofError(f"no {FILE}")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ProofError(f"{FILE}: {exc}") from None
    problems = [f"{FILE}: unknown table [{k}] (only [[requirement]] and [[context]])"
                for k in data if k not in ("requirement", "context")]
    requirements, contexts = [], []
    for n, raw in enumerate(data.get("requirement", [])):
        where = f"requirement {n + 1} ({raw.get('id', 'no id')})"
        problems += [f"{where}: unknown key {k!r}" for k in raw if k not in _REQUIREMENT_KEYS]
        checks = raw.get("checks", [])
        if not isinstance(checks, list) or not all(isinstance(c, str) for c in checks):
            problems.append(f"{where}: checks must be a list of subscore names")
            checks = []
        requirement = Requirement(id=_text(raw.get("id")), text=_texts(raw.get("text")),
                                  checks=tuple(checks), weights=_text(raw.get("weights")),
                                  unchecked=_text(raw.get("unchecked")))
        if not KEBAB.match(requirement.id):
            problems.append(f"{where}: id must be kebab-case")
        if not all(p.strip() for p in passages(requirement.text)) or not requirement.text:
            problems.append(f"{where}: no text")
        if not requirement.checks and not requirement.unchecked:
            problems.append(f"{where}: no checks (a requirement no grader can check says "
                            "why in `unchecked`)")
        if requirement.checks and not requirement.weights.strip():
            problems.append(f"{where}: `weights` does not explain its checks' weights")
        requirements.append(requirement)
    for n, raw in enumerate(data.get("context", [])):
        problems += [f"context {n + 1}: unknown key {k!r}" for k in raw
                     if k not in _CONTEXT_KEYS]
        context = Context(text=_text(raw.get("text")), why=_text(raw.get("why")))
        if not context.text.strip() or not context.why.strip():
            problems.append(f"context {n + 1}: needs a text and a why")
        contexts.append(context)
    ids = [r.id for r in requirements]
    problems += [f"requirement id {i!r} is used twice" for i in sorted(set(ids))
                 if ids.count(i) > 1]
    checks = [c for r in requirements for c in r.checks]
    problems += [f"check {c!r} belongs to more than one requirement"
                 for c in sorted(set(checks)) if checks.count(c) > 1]
    return RequirementTable(tuple(requirements), tuple(contexts), tuple(problems))


def _uncovered(instruction: str, texts: list[str]) -> list[str]:
    """Runs of the instruction's words that no text covers."""
    covered = [False] * len(instruction)
    for text in texts:
        start = instruction.find(text)
        while text and start >= 0:
            covered[start:start + len(text)] = [True] * len(text)
            start = instruction.find(text, start + 1)
    runs: list[str] = []
    current: list[str] = []
    for word in re.finditer(r"\S+", instruction):
        if all(covered[word.start():word.end()]):
            if current:
                runs.append(" ".join(current))
                current = []
        else:
            current.append(word.group())
    if current:
        runs.append(" ".join(current))
    return runs


def _short(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def validate_requirements(table: RequirementTable, instruction_md: str,
                          subscores: Collection[str] | None = None) -> list[str]:
    """Everything wrong with the table: malformed entries, texts not in the instruction,
    words no text covers and, given the oracle's reward subscores, checks the grader does
    not have and subscores no requirement claims."""
    problems = list(table.problems)
    instruction = strip_markdown(instruction_md)
    texts = []
    entries = [(f"requirement {r.id}", p) for r in table.requirements
               for p in passages(r.text)] + [("context", c.text) for c in table.contexts]
    for where, raw in entries:
        text = strip_markdown(raw)
        texts.append(text)
        if text and text not in instruction:
            problems.append(f"{where}: text is not in instruction.md (after stripping "
                            f"Markdown): {_short(text)!r}")
    problems += [f"instruction.md words no requirement or context covers: {_short(run)!r}"
                 for run in _uncovered(instruction, texts)]
    if subscores is not None:
        known = set(subscores)
        owner = table.owner()
        problems += [f"requirement {owner[c]}: check {c!r} is not a subscore of the "
                     "oracle's reward" for c in table.checks if c not in known]
        problems += [f"subscore {s!r} of the oracle's reward belongs to no requirement"
                     for s in sorted(known) if s not in owner]
    return problems
