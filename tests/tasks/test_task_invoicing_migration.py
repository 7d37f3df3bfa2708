"""invoicing-migration: the tour company of bookings-migration (Express + SQLite, now
stripe-node 18.5.0 on 2025-08-27.basil) backs every booking with a Stripe Invoice: the
catalog inferred from the booking history, an invoice per booking (paid by its own
PaymentIntent through the InvoicePayments API, paid out of band, or open), the
migration as `npm run migrate` (which the grader runs twice more), and purchases through
invoices. Proven requirement by requirement (tests/requirements.toml): the oracle 1.0,
noop 0.0, each mutant loses its requirement's checks only (charging the online bookings
again, a declined purchase's invoice left open, purchases beside a bare PaymentIntent,
invoices created again on a second run, ...), each alternative 1.0; a server that never
answers costs the purchases only, in bounded time."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import proof_trial
from paths import REPO
from stripebench.grading import objects_of
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.emulator import Emulator
from stripebench.harness.proof.prove import prove_task, prove_variant, static_proof, variant_labels
from stripebench.harness.sandbox import npm_cache
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "invoicing-migration"
TOTAL_WEIGHT = 21

pytestmark = [
    pytest.mark.skipif(npm_cache() is None or not any((npm_cache() or Path()).glob(
        "_prebuilds/*better-sqlite3-v12*")), reason="no offline npm cache with "
        "better-sqlite3's prebuilt module: run scripts/setup.sh"),
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]


def trial(server: Emulator, tmp_path: Path, name: str, agent: Any,
          sandbox: str = "local") -> dict[str, Any]:
    return proof_trial(TASK, server, tmp_path, name, agent, sandbox)


def messages(tmp_path: Path, name: str) -> dict[str, str]:
    reward: dict[str, Any] = json.loads((tmp_path / name / "reward.json").read_text())
    return reward["messages"]


def test_the_requirement_table_and_variants_are_valid() -> None:
    assert static_proof(load_task(TASK)).problems == []


def test_proven_under_the_harness(server: Emulator, tmp_path: Path) -> None:
    """Oracle 1.0 (every check a requirement's), noop 0.0; the migration paid the
    history without charging anyone: the only succeeded PaymentIntents when the oracle
    stopped are the four seeded ones."""
    proof = prove_task(load_task(TASK), tmp_path, server)
    assert proof.problems == [] and (proof.oracle, proof.noop) == (1.0, 0.0)
    final = json.loads(next((tmp_path / "oracle").rglob("stripe_final.json")).read_text())
    assert len([p for p in objects_of(final, "payment_intent")
                if p["status"] == "succeeded"]) == 4


@pytest.mark.parametrize("label", variant_labels(TASK))
def test_variant(label: str, server: Emulator, tmp_path: Path) -> None:
    """Each mutant loses exactly its requirement's checks; each alternative scores 1.0."""
    verdict = prove_variant(load_task(TASK), label, tmp_path, server)
    assert verdict.ok, verdict.message


def oracle_files() -> tuple[str, str]:
    return ((TASK / "solution" / "server.js").read_text(),
            (TASK / "solution" / "migrate_invoices.js").read_text())


def edited(text: str, *changes: tuple[str, str]) -> str:
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new)
    return text


def replay(server_js: str, migrate_js: str) -> list[dict[str, Any]]:
    return [{"tool": "bash", "args": {"command":
             f"cat > server.js <<'JSEOF'\n{server_js}JSEOF\n"
             f"cat > migrate_invoices.js <<'JSEOF'\n{migrate_js}JSEOF\n"
             "npm pkg set scripts.migrate='node migrate_invoices.js'\n"
             "bash install.sh\nnpm run migrate\n"}}]


def test_red_team_a_server_that_never_answers(server: Emulator, tmp_path: Path) -> None:
    """The reference migration, and a server that answers /health but hangs on every
    API request: the grader's bounded waits score the purchases 0 and finish in time,
    keeping the catalog's, the invoices' and the re-run's 15/21."""
    starter = (TASK / "environment" / "server.js").read_text()
    hanging = edited(starter, ("app.get('/health'",
                               "app.use('/api', () => {});  // never answers\n"
                               "app.get('/health'"))
    record = trial(server, tmp_path, "hang",
                   ScriptedAgent(replay(hanging, oracle_files()[1])))
    assert record["reward"] == pytest.approx(15 / TOTAL_WEIGHT, abs=1e-6)
    assert "no answer" in messages(tmp_path, "hang")["purchase_invoiced"]
    assert record["grader_seconds"] < 150
