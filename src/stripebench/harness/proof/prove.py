"""One task's proof: its requirement table, its oracle and noop, and (with variants)
every mutant and alternative, each judged."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ..agents.simple import NoopAgent
from ..emulator import Emulator
from ..runner import RunPlan, execute
from ..task import Task, problems
from .requirements import ProofError, RequirementTable, load_requirements, validate_requirements
from .runs import Trials, run_solution, run_variants, weights_of
from .variants import Variant, load_variants, validate_variants
from .verdicts import Verdict, judge, same_scores


@dataclass
class TaskProof:
    task: Task
    table: RequirementTable | None = None
    variants: list[Variant] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    weights: dict[str, float] = field(default_factory=dict)
    oracle: float | None = None
    noop: float | None = None
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # variant label -> verdict
    ran_variants: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems and all(v.ok for v in self.verdicts.values())


def static_proof(task: Task) -> TaskProof:
    """What needs no trial: the task's layout, its requirement table against the
    instruction, its variants' manifests."""
    proof = TaskProof(task, problems=list(problems(task)))
    try:
        proof.table = load_requirements(task.path)
        proof.variants = load_variants(task.path)
    except ProofError as exc:
        proof.problems.append(str(exc))
        return proof
    proof.problems += validate_requirements(proof.table, task.instruction)
    proof.problems += validate_variants(proof.table, proof.variants)
    return proof


def _noop(task: Task, out: Path, emulator: Emulator, sandbox: str) -> Trials:
    if out.exists():  # an earlier check: prove anew
        shutil.rmtree(out)
    plan = RunPlan(out=out, tasks=[task], agent_name="noop", model=None, sandbox=sandbox)
    return Trials("noop", execute(plan, NoopAgent, emulator=emulator))


def prove_task(task: Task, out: Path, emulator: Emulator, sandbox: str = "local",
               variants: bool = False, repeat: int = 1, parallel: int = 1) -> TaskProof:
    """The whole proof of `task`, its trials kept under `out`. `repeat` > 1 runs the
    oracle and each mutant that many times and requires identical subscores."""
    proof = static_proof(task)
    if problems(task):  # no grader or no solution: nothing to run
        return proof
    oracle = run_solution(task, None, out / "oracle", emulator, sandbox, "oracle", repeat)
    first = oracle.first
    proof.oracle = first.get("reward")
    proof.weights = weights_of(out / "oracle", task.id)
    if first["status"] != "completed" or proof.oracle != 1.0:
        proof.problems.append(f"the oracle should score 1.0: status {first['status']}, "
                              f"reward {proof.oracle}, error "
                              f"{(first.get('error') or '').splitlines()[:1]}")
    if differs := same_scores(oracle.scores()):
        proof.problems.append(f"oracle not deterministic: {differs}")
    noop = _noop(task, out / "noop", emulator, sandbox).first
    proof.noop = noop.get("reward")
    if noop["status"] != "completed" or proof.noop != 0.0:
        proof.problems.append(f"noop should score 0.0: status {noop['status']}, reward "
                              f"{proof.noop}")
    if proof.table is not None and first["status"] == "completed":
        proof.problems += [p for p in validate_requirements(
            proof.table, task.instruction, subscores=first.get("subscores") or {})
            if "oracle's reward" in p]
    if variants and proof.table is not None:
        proof.ran_variants = True
        runnable = [v for v in proof.variants if not v.problems]
        runs = run_variants(task, runnable, out / "variants", emulator, sandbox, repeat,
                            parallel)
        for variant in runnable:
            proof.verdicts[variant.label] = verdict_of(variant, runs[variant.label],
                                                       proof.table.checks)
    return proof


def verdict_of(variant: Variant, trials: Trials, checks: list[str]) -> Verdict:
    """The first failing verdict of a variant's trials, or the first; repeated trials
    must agree."""
    verdicts = [judge(variant, r.get("reward"), r.get("subscores") or {}, r["status"],
                      checks) for r in trials.results] or \
        [judge(variant, None, {}, "no result")]
    verdict = next((v for v in verdicts if not v.ok), verdicts[0])
    if verdict.ok and (differs := same_scores(trials.scores())):
        return Verdict(False, verdict.reward, f"not deterministic: {differs}")
    return verdict


def variant_labels(task_dir: Path) -> list[str]:
    """Every variant of a task as `mutant/<name>` or `alternative/<name>` (what a task's
    test module parametrizes over, one test per variant)."""
    return [v.label for v in load_variants(task_dir)]


def prove_variant(task: Task, label: str, out: Path, emulator: Emulator,
                  sandbox: str = "local", repeat: int = 1) -> Verdict:
    """One variant's verdict: built, run as an oracle trial (`repeat` times for a mutant)
    and judged against the task's requirement table."""
    table = load_requirements(task.path)
    variant = next(v for v in load_variants(task.path) if v.label == label)
    if variant.problems:
        return Verdict(False, None, "; ".join(variant.problems))
    trials = run_variants(task, [variant], out, emulator, sandbox, repeat)[label]
    return verdict_of(variant, trials, table.checks)
