"""webhook-fulfillment, proven requirement by requirement (docs/tasks.md, "Proof"): the
requirement table covers the instruction and the grader's reward, the oracle scores 1.0
and the starter 0.0, every mutant in solution/mutants loses exactly its requirement's
checks and every alternative in solution/alternatives scores 1.0, each variant one
oracle trial under the harness (the emulator delivering real webhooks to the shop)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paths import REPO
from stripebench.harness.emulator import Emulator
from stripebench.harness.proof.prove import (
    prove_task,
    prove_variant,
    static_proof,
    variant_labels,
)
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "webhook-fulfillment"


def test_the_requirement_table_covers_the_instruction() -> None:
    assert static_proof(load_task(TASK)).problems == []


def test_oracle_one_starter_zero_and_every_subscore_mapped(server: Emulator,
                                                           tmp_path: Path) -> None:
    proof = prove_task(load_task(TASK), tmp_path, server)
    assert proof.problems == [] and (proof.oracle, proof.noop) == (1.0, 0.0)


@pytest.mark.parametrize("label", variant_labels(TASK))
def test_variant(label: str, server: Emulator, tmp_path: Path) -> None:
    verdict = prove_variant(load_task(TASK), label, tmp_path, server)
    assert verdict.ok, verdict.message
