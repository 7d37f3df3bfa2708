"""The table `stripebench tasks check` prints per task: each requirement with its checks
and their weights, the reason for the weights, and its mutants' verdicts; then the
alternatives' scores and what is wrong."""

from __future__ import annotations

import textwrap
from functools import partial

from .prove import TaskProof

_wrap = partial(textwrap.wrap, break_on_hyphens=False, break_long_words=False)


def _mark(ok: bool) -> str:
    return "ok  " if ok else "FAIL"


def render(proof: TaskProof) -> str:
    task, table = proof.task, proof.table
    lines = []
    if table is not None:
        mutants = [v for v in proof.variants if v.kind == "mutant"]
        alternatives = [v for v in proof.variants if v.kind == "alternative"]
        lines.append(f"{task.id}: {len(table.requirements)} requirements, "
                     f"{len(table.checks)} checks, {len(mutants)} mutants, "
                     f"{len(alternatives)} alternatives, {len(table.contexts)} context "
                     f"entries; oracle {proof.oracle}, noop {proof.noop}")
        for requirement in table.requirements:
            checks = ", ".join(f"{c} ({proof.weights[c]:g})" if c in proof.weights else c
                               for c in requirement.checks) or \
                f"unchecked: {requirement.unchecked}"
            lines.append(f"  {requirement.id}")
            lines += _wrap(f"checks: {checks}", 96, initial_indent="    ",
                                   subsequent_indent="      ")
            lines += _wrap(f"weights: {requirement.weights}", 96,
                                   initial_indent="    ", subsequent_indent="      ")
            for mutant in (m for m in mutants if m.requirement == requirement.id):
                verdict = proof.verdicts.get(mutant.label)
                result = f"{_mark(verdict.ok)} {verdict.message}" if verdict else \
                    "not run (--variants)" if not proof.ran_variants else "not run"
                lines += _wrap(f"mutant {mutant.name}: {result}", 96,
                                       initial_indent="    ", subsequent_indent="      ")
        for alternative in alternatives:
            verdict = proof.verdicts.get(alternative.label)
            result = f"{_mark(verdict.ok)} {verdict.message}" if verdict else "not run"
            lines += _wrap(f"alternative {alternative.name}: {result}", 96,
                                   initial_indent="  ", subsequent_indent="      ")
    else:
        lines.append(f"{task.id}: no requirement table")
    for problem in proof.problems:
        lines += _wrap(problem, 96, initial_indent="  problem: ",
                               subsequent_indent="    ")
    return "\n".join(lines)


def summary(proof: TaskProof) -> str:
    """One line: `ok   <id>: oracle 1.0, noop 0.0[, N variants proven]` or FAIL."""
    proven = f", {len(proof.verdicts)} variants proven" if proof.ran_variants else ""
    return f"{_mark(proof.ok)} {proof.task.id}: oracle {proof.oracle}, noop {proof.noop}" \
        f"{proven}"
