"""connect-payments-dashboard: the grader, in real Chromium against the platform run as
the task's service, proven requirement by requirement (tests/requirements.toml): the
oracle 1.0, noop 0.0, each mutant loses its requirement's checks only (Stripe's default
features leave refunds on; a session for the wrong groomer; an endpoint that trusts the
account the page sends; ...), each alternative 1.0. One test per variant, all on the
module's one harness emulator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paths import REPO
from stripebench.harness.proof.prove import prove_task, prove_variant, static_proof, variant_labels
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "connect-payments-dashboard"


def test_the_requirement_table_and_variants_are_valid() -> None:
    assert static_proof(load_task(TASK)).problems == []


def test_proven_under_the_harness(server: Any, tmp_path: Path) -> None:
    """The oracle scores 1.0 with every check a requirement's; the starter (noop) 0.0."""
    proof = prove_task(load_task(TASK), tmp_path, server)
    assert proof.problems == [] and (proof.oracle, proof.noop) == (1.0, 0.0)


@pytest.mark.parametrize("label", variant_labels(TASK))
def test_variant(label: str, server: Any, tmp_path: Path) -> None:
    """Each mutant loses exactly its requirement's checks; each alternative scores 1.0."""
    verdict = prove_variant(load_task(TASK), label, tmp_path, server)
    assert verdict.ok, verdict.message
