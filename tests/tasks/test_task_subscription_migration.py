"""subscription-migration: an in-house SQLite billing system's live subscriptions moved
to Stripe Billing. Proven under the harness: oracle 1.0, noop 0.0, the first four
customers migrated 56/135, the reference migration run twice still 1.0 with nothing
duplicated, and each way of getting it wrong that the grader names costs what it should
(charging at migration, ignoring the aborted run's customer, migrating canceled rows)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from conftest import load_module, proof_trial
from paths import REPO
from stripebench.grading import objects_of
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.check import check_tasks
from stripebench.harness.emulator import Emulator
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "subscription-migration"
make_partial = load_module(TASK / "solution" / "make_partial.py",
                           "subscription_migration_make_partial")
MIGRATED = {"C1001", "C1002", "C1003", "C1004", "C1005", "C1006", "C1007", "C1008", "C1010"}


def trial(server: Emulator, tmp_path: Path, name: str, agent: Any,
          sandbox: str = "local") -> dict[str, Any]:
    return proof_trial(TASK, server, tmp_path, name, agent, sandbox)


# Forgets what was written back, as if a run had died before writing it: the next run
# must find the customers and subscriptions by their metadata.
FORGET = ("python -c \"import sqlite3; db = sqlite3.connect('billing.db'); "
          "db.execute('UPDATE customers SET stripe_customer_id = NULL'); "
          "db.execute('UPDATE subscriptions SET stripe_subscription_id = NULL'); "
          "db.commit()\"")


def migration(*changes: tuple[str, str], runs: int = 1) -> list[dict[str, Any]]:
    """A replay that writes the reference migrate.py, edited by `changes`, and runs it
    `runs` times (forgetting the written-back ids between runs)."""
    script = (TASK / "solution" / "migrate.py").read_text()
    for old, new in changes:
        assert old in script, old
        script = script.replace(old, new)
    run = f"\n{FORGET}\n".join(["python migrate.py"] * runs)
    return [{"tool": "bash", "args": {"command":
                                      f"cat > migrate.py <<'PYEOF'\n{script}PYEOF\n{run}\n"}}]


def final(tmp_path: Path, name: str, kind: str) -> list[dict[str, Any]]:
    snapshot = json.loads((tmp_path / name / "stripe_final.json").read_text())
    return objects_of(snapshot, kind)


def written_back(tmp_path: Path, name: str) -> dict[str, str | None]:
    db = sqlite3.connect(tmp_path / name / "workdir" / "billing.db")
    return dict(db.execute("SELECT id, stripe_customer_id FROM customers").fetchall())


def test_tasks_check_proves_oracle_and_noop(tmp_path: Path) -> None:
    lines: list[str] = []
    assert check_tasks([load_task(TASK)], tmp_path, echo=lines.append) == [], lines
    assert lines == ["ok   subscription-migration: oracle 1.0, noop 0.0"]
    oracle = json.loads(next((tmp_path / "oracle").rglob("result.json")).read_text())
    assert set(oracle["subscores"].values()) == {1.0}
    assert len(oracle["subscores"]) == 13
    noop = json.loads(next((tmp_path / "noop").rglob("result.json")).read_text())
    assert noop["subscores"].pop("gate:catalog_untouched") == 1.0
    assert set(noop["subscores"].values()) == {0.0}


def test_scripted_replay_is_fresh() -> None:
    replay = json.loads((TASK / "solution" / "scripted_partial.json").read_text())
    assert replay == make_partial.replay(), "scripted_partial.json is stale: run make_partial"


def test_first_four_customers_score_their_share(server: Emulator, tmp_path: Path) -> None:
    record = trial(server, tmp_path, "partial",
                   ScriptedAgent(TASK / "solution" / "scripted_partial.json"))
    assert record["reward"] == pytest.approx(56 / 135, abs=1e-6)
    scores = dict(record["subscores"])
    assert scores.pop("gate:catalog_untouched") == 1.0
    assert scores.pop("discount_applied") == 0.0  # C1006 is not among the four
    assert all(v == pytest.approx(4 / 9) for v in scores.values()), scores
    ids = written_back(tmp_path, "partial")
    assert {k for k, v in ids.items() if v} == {"C1001", "C1002", "C1003", "C1004"}
    # C1002's customer is the one the aborted run left, reused rather than duplicated
    customers = final(tmp_path, "partial", "customer")
    assert len(customers) == 4
    assert ids["C1002"] == customers[0]["id"]


def test_running_the_migration_twice_changes_nothing(server: Emulator,
                                                     tmp_path: Path) -> None:
    """Run three times, the written-back ids wiped between runs: the second and third
    runs find everything by metadata and create nothing."""
    record = trial(server, tmp_path, "twice", ScriptedAgent(migration(runs=3)))
    assert record["reward"] == 1.0
    customers = final(tmp_path, "twice", "customer")
    assert sorted(c["metadata"]["legacy_id"] for c in customers) == sorted(MIGRATED)
    assert len(final(tmp_path, "twice", "subscription")) == 9
    assert len(final(tmp_path, "twice", "payment_method")) == 9
    assert len(final(tmp_path, "twice", "coupon")) == 1
    ids = written_back(tmp_path, "twice")
    assert {k for k, v in ids.items() if v} == MIGRATED
    assert {c["id"] for c in customers} == {v for v in ids.values() if v}


def test_charging_at_migration_is_caught(server: Emulator, tmp_path: Path) -> None:
    """Without proration_behavior=none the anchored subscriptions invoice and charge the
    prorated time up to the anchor now: every other check passes, no_charges is 0."""
    record = trial(server, tmp_path, "charged", ScriptedAgent(migration(
        ('        "proration_behavior": "none",\n', ""))))
    assert final(tmp_path, "charged", "charge")  # the emulator did charge
    assert record["subscores"]["no_charges"] == 0.0
    assert record["reward"] == pytest.approx(14 / 15, abs=1e-6)
    reward = json.loads((tmp_path / "charged" / "reward.json").read_text())
    assert "charge ch_" in reward["messages"]["no_charges"]


def test_ignoring_the_aborted_run_duplicates_a_customer(server: Emulator,
                                                        tmp_path: Path) -> None:
    """Creating every customer afresh leaves two with legacy_id C1002: that customer no
    longer counts as migrated (which one is it?) and no_duplicates is 0."""
    record = trial(server, tmp_path, "dup", ScriptedAgent(migration(
        ("    matches = sc.v1.customers.search(",
         "    return None\n    matches = sc.v1.customers.search("))))
    scores = record["subscores"]
    assert scores["customer_records"] == pytest.approx(8 / 9)
    assert scores["subscription_items"] == pytest.approx(8 / 9)
    assert scores["no_duplicates"] == 0.0
    assert scores["canceled_not_migrated"] == pytest.approx(8 / 9)
    assert 0.0 < record["reward"] < 8 / 9


def test_migrating_canceled_rows_is_caught(server: Emulator, tmp_path: Path) -> None:
    """Taking every subscription, canceled ones too: John Backus is migrated, Katherine
    Johnson gets her canceled Starter plan back beside her Business one."""
    record = trial(server, tmp_path, "canceled", ScriptedAgent(migration(
        ("WHERE status != 'canceled') ORDER BY id", ") ORDER BY id"),
        ('customer_id = ? AND "\n                              "status != \'canceled\' ORDER',
         'customer_id = ? "\n                              "ORDER'),
        ('    if sub["status"] == "trialing":',
         '    if sub["status"] == "canceled":\n'
         '        params["billing_cycle_anchor"] = stamp("2026-01-30")\n'
         '    elif sub["status"] == "trialing":'))))
    scores = record["subscores"]
    assert scores["canceled_not_migrated"] == 0.0
    assert scores["subscription_ids_written"] == 0.0  # canceled rows got ids
    assert scores["subscription_items"] == pytest.approx(8 / 9)  # C1004 has two
    emails = {c["email"] for c in final(tmp_path, "canceled", "customer")}
    assert "john@fortran.example" in emails
