"""bookings-migration: a tour company's Express + SQLite booking server (stripe-node 8,
API 2020-08-27) whose phone bookings move from a CSV into the bookings table, with the
products, bookings, refund and purchase endpoints built over Stripe. Proven requirement
by requirement (docs/tasks.md, "Proof"): the requirement table covers the instruction and
the grader's reward; oracle 1.0 (better-sqlite3 installed offline from the npm cache's
prebuilt module), noop 0.0; every mutant in solution/mutants (the old red-team edits and
issue 26's two findings among them) loses exactly its requirement's checks and every
alternative scores 1.0, one oracle trial each; and a server that never answers is scored,
not a grader error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import proof_trial
from paths import REPO
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.emulator import Emulator
from stripebench.harness.proof.prove import (
    prove_task,
    prove_variant,
    static_proof,
    variant_labels,
)
from stripebench.harness.sandbox import bwrap_available, npm_cache
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "bookings-migration"
TOTAL_WEIGHT = 22

pytestmark = [
    pytest.mark.skipif(npm_cache() is None or not any((npm_cache() or Path()).glob(
        "_prebuilds/*better-sqlite3-v12*")), reason="no offline npm cache with "
        "better-sqlite3's prebuilt module: run scripts/setup.sh"),
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]


def messages(tmp_path: Path, name: str) -> dict[str, str]:
    reward: dict[str, Any] = json.loads((tmp_path / name / "reward.json").read_text())
    return reward["messages"]


def test_the_requirement_table_covers_the_instruction() -> None:
    assert static_proof(load_task(TASK)).problems == []


def test_oracle_one_noop_zero_offline_install(server: Emulator, tmp_path: Path) -> None:
    """In bubblewrap (when it runs here) the trial has no network: better-sqlite3
    installs from the read-only npm cache with its native module prebuilt at setup."""
    sandbox = "bwrap" if bwrap_available() else "local"
    proof = prove_task(load_task(TASK), tmp_path, server, sandbox)
    assert proof.problems == [] and (proof.oracle, proof.noop) == (1.0, 0.0)
    release = tmp_path / "oracle" / "trials" / "bookings-migration" / "1" / "workdir" / \
        "node_modules" / "better-sqlite3" / "build" / "Release"
    assert (release / "better_sqlite3.node").is_file()
    assert not (release / "obj.target").exists()  # unpacked, nothing compiled


@pytest.mark.parametrize("label", variant_labels(TASK))
def test_variant(label: str, server: Emulator, tmp_path: Path) -> None:
    verdict = prove_variant(load_task(TASK), label, tmp_path, server)
    assert verdict.ok, verdict.message


def oracle_files() -> tuple[str, str]:
    return ((TASK / "solution" / "server.js").read_text(),
            (TASK / "solution" / "migrate.js").read_text())


def edited(text: str, *changes: tuple[str, str]) -> str:
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new)
    return text


def replay(server_js: str, migrate_js: str | None = None,
           extra: str = "") -> list[dict[str, Any]]:
    command = f"cat > server.js <<'JSEOF'\n{server_js}JSEOF\n"
    if migrate_js is not None:
        command += f"cat > migrate.js <<'JSEOF'\n{migrate_js}JSEOF\nbash install.sh\n" \
                   "node migrate.js\n"
    return [{"tool": "bash", "args": {"command": command + extra}}]


# A trigger that refuses the grader's own bookings (it adds some to the table to test
# the API on rows the agent never saw).
REFUSE_INSERTS = """python - <<'PYEOF'
import sqlite3
db = sqlite3.connect("data/tours.db")
db.execute("CREATE TRIGGER refuse BEFORE INSERT ON bookings WHEN NEW.id LIKE 'B-5%' "
           "BEGIN SELECT RAISE(ABORT, 'not here'); END")
db.commit()
PYEOF
"""


def test_red_team_a_server_that_never_answers(server: Emulator, tmp_path: Path) -> None:
    """The migration done, a server that answers /health but hangs on every API request,
    and a trigger that refuses the grader's own bookings: the grader's bounded waits
    score the API 0 and finish inside the verifier's time, and the sections it cannot
    set up score 0 with the reason, keeping the migration's 6/22 (a grader error would
    drop the trial from every mean instead)."""
    starter = (TASK / "environment" / "server.js").read_text()
    hanging = edited(starter, ("app.get('/health'",
                               "app.use('/api', () => {});  // never answers\n"
                               "app.get('/health'"))
    record = proof_trial(TASK, server, tmp_path, "hang",
                         ScriptedAgent(replay(hanging, oracle_files()[1], REFUSE_INSERTS)))
    # the migration's 5 and its re-run's 1
    assert record["reward"] == pytest.approx(6 / TOTAL_WEIGHT, abs=1e-6), record["subscores"]
    said = messages(tmp_path, "hang")
    assert "no answer" in said["products_listing"]
    assert "could not add its bookings to the table: not here" in said["customer_bookings"]
    assert len(record["subscores"]) == 15  # every check scored
    assert record["grader_seconds"] < 150
