"""bookings-migration: a tour company's Express + SQLite booking server (stripe-node 8,
API 2020-08-27) whose phone bookings move from a CSV into the bookings table, with the
products, bookings, refund and purchase endpoints built over Stripe. Proven under the
harness: oracle 1.0 (better-sqlite3 installed offline from the npm cache's prebuilt
module), noop 0.0, the migration alone its 5/20, and red-team trials where each way of
cutting a corner costs exactly its checks: a case-sensitive migration that splits
customers, a purchase that trusts the client's amount and books declined cards, an API
that answers from the table instead of Stripe (and a hard-coded catalog), and a server
that never answers."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from conftest import load_module, proof_trial
from paths import REPO
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.check import check_tasks
from stripebench.harness.emulator import Emulator
from stripebench.harness.sandbox import bwrap_available, npm_cache
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "bookings-migration"
make_partial = load_module(TASK / "solution" / "make_partial.py", "bookings_migration_partial")
TOTAL_WEIGHT = 20

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


def test_tasks_check_proves_oracle_and_noop(tmp_path: Path) -> None:
    lines: list[str] = []
    assert check_tasks([load_task(TASK)], tmp_path, echo=lines.append) == [], lines
    assert lines == ["ok   bookings-migration: oracle 1.0, noop 0.0"]
    oracle = json.loads(next((tmp_path / "oracle").rglob("result.json")).read_text())
    assert set(oracle["subscores"].values()) == {1.0}
    assert len(oracle["subscores"]) == 13
    assert oracle["submission"]["added"] == ["data/tours.db", "migrate.js"]
    assert oracle["submission"]["modified"] == ["server.js"]
    noop = json.loads(next((tmp_path / "noop").rglob("result.json")).read_text())
    assert noop["subscores"].pop("gate:stack_kept") == 1.0
    assert set(noop["subscores"].values()) == {0.0}


def test_scripted_replay_is_fresh() -> None:
    replay = json.loads((TASK / "solution" / "scripted_partial.json").read_text())
    assert replay == make_partial.replay(), "scripted_partial.json is stale: run make_partial"


def test_the_migration_alone_scores_its_share(server: Emulator, tmp_path: Path) -> None:
    """The reference migration, run twice, and no API: the migration's 5/20. In
    bubblewrap (when it runs here) the trial has no network: better-sqlite3 installs from
    the read-only npm cache with its native module prebuilt at setup time."""
    sandbox = "bwrap" if bwrap_available() else "local"
    record = trial(server, tmp_path, "partial",
                   ScriptedAgent(TASK / "solution" / "scripted_partial.json"), sandbox)
    # the starter's own smoke test ran in the trial: the native module loaded offline
    transcript = (tmp_path / "partial" / "transcript.jsonl").read_text()
    assert "smoke ok: stripe " in transcript and "SQLite 3." in transcript
    # ... unpacked from the cache's prebuilt archive: nothing was compiled in the trial
    release = tmp_path / "partial" / "workdir" / "node_modules" / "better-sqlite3" / \
        "build" / "Release"
    assert (release / "better_sqlite3.node").is_file()
    assert not (release / "obj.target").exists()
    assert record["reward"] == pytest.approx(5 / TOTAL_WEIGHT, abs=1e-6)
    scores = record["subscores"]
    assert {k: scores[k] for k in ("phone_rows", "new_customer", "clean_migration")} == {
        "phone_rows": 1.0, "new_customer": 1.0, "clean_migration": 1.0}
    db = sqlite3.connect(tmp_path / "partial" / "workdir" / "data" / "tours.db")
    assert db.execute("SELECT count(*) FROM bookings WHERE source = 'phone'").fetchone() \
        == (9 + 1,)  # the CSV's nine (one row twice) and the grader's own phone booking
    assert db.execute("SELECT amount, amount_paid FROM bookings WHERE id = 'P-2003'"
                      ).fetchone() == (42000, 42000)  # "42,000" yen
    assert "501" in messages(tmp_path, "partial")["products_listing"]


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


def test_red_team_sloppy_migration_and_purchase(server: Emulator, tmp_path: Path) -> None:
    """The reference, with three corners cut: emails matched case-sensitively (Sam and
    Lena become new customers: three phone rows on the wrong customer, C-104 is not
    Lena, duplicate emails), the client's amount charged as sent, and a declined card
    still booked. Each costs exactly its checks: 15/20."""
    server_js, migrate_js = oracle_files()
    migrate_js = edited(migrate_js,
                        ("WHERE lower(email) = ?", "WHERE email = ?"),
                        ("const email = row.customer_email.toLowerCase();",
                         "const email = row.customer_email;"))
    server_js = edited(
        server_js,
        ("  if (amount !== 0 && amount !== total) return res.status(400).json"
         "({error: 'invalid_amount'});\n", ""),
        ("if (amount === total) {", "if (amount > 0) {"),
        ("const intent = await stripe.paymentIntents.create({amount: total,",
         "const intent = await stripe.paymentIntents.create({amount,"),
        ("    if (err.type === 'StripeCardError') {\n",
         "    if (err.type === 'StripeCardError') {\n"
         "      db.prepare(\"INSERT INTO bookings (id, customer_id, product_id, tour_date, "
         "guests, currency, amount, amount_paid, source, status, created_at) VALUES "
         "(?, ?, ?, ?, ?, ?, ?, 0, 'online', 'incomplete', '2026-03-01')\")"
         ".run(id, customer.id, product, tourDate, guests, price.currency, total);\n"))
    record = trial(server, tmp_path, "sloppy", ScriptedAgent(replay(server_js, migrate_js)))
    scores = record["subscores"]
    assert scores["phone_rows"] == pytest.approx(6 / 9)
    lost = {k for k, v in scores.items() if v == 0.0}
    assert lost == {"new_customer", "clean_migration", "amount_checked", "declines"}
    assert record["reward"] == pytest.approx(15 / TOTAL_WEIGHT, abs=1e-6)
    said = messages(tmp_path, "sloppy")
    assert "2 customers with email sam.rivera@example.com" in said["clean_migration"]
    assert "got 201" in said["amount_checked"]


SEEDED_CATALOG = {"products": [
    {"id": "prod_fjord_kayak", "name": "Fjord Kayak Day",
     "prices": {"eur": 8900, "gbp": 7900, "jpy": 14000, "usd": 9900}},
    {"id": "prod_glacier_hike", "name": "Glacier Hike",
     "prices": {"eur": 12900, "gbp": 11000, "jpy": 21000, "usd": 14500}},
    {"id": "prod_northern_lights", "name": "Northern Lights Night Drive",
     "prices": {"eur": 6500, "gbp": 5600, "jpy": 10500, "usd": 7200}},
    {"id": "prod_whale_safari", "name": "Whale Safari",
     "prices": {"eur": 9900, "gbp": 8500, "jpy": 16000, "usd": 10900}}]}


def test_red_team_answers_without_stripe(server: Emulator, tmp_path: Path) -> None:
    """The reference migration and refunds, but the catalog is the seeded one written
    down, bookings' states come from the table, and purchases book without charging.
    The catalog, the two customers with a Dashboard refund, the refund (it answers the
    booking as the table had it, still complete), every purchase and what depends on
    them score 0: 8/20 (the migration and the card saving still count)."""
    server_js, migrate_js = oracle_files()
    server_js = edited(
        server_js,
        ("app.get('/api/products', handle(",
         f"app.get('/api/products', (req, res) => res.json({json.dumps(SEEDED_CATALOG)}));\n"
         "app.get('/api/products-live', handle("),
        ("  if (row.source !== 'online') return {status: row.status, "
         "amount_paid: row.amount_paid};",
         "  return {status: row.status, amount_paid: row.amount_paid};  // the table's"),
        ("const intent = await stripe.paymentIntents.create(",
         "const intent = {id: `pi_booked_${id}`, status: 'succeeded', "
         "amount_received: total} || ("))
    record = trial(server, tmp_path, "nostripe", ScriptedAgent(replay(server_js, migrate_js)))
    scores = record["subscores"]
    assert scores["customer_bookings"] == pytest.approx(4 / 6)  # C-100 and C-101 wrong
    lost = {k for k, v in scores.items() if v == 0.0}
    assert lost == {"products_listing", "dashboard_refunds", "refund_online",
                    "refund_refusals", "purchase_currencies", "declines", "amount_checked"}
    assert record["reward"] == pytest.approx(8 / TOTAL_WEIGHT, abs=1e-6)
    said = messages(tmp_path, "nostripe")
    # the refund went through Stripe, but the booking it answers is the table's, stale
    assert "'status': 'complete'" in said["refund_online"]
    assert "Puffin Island Boat Trip" in said["products_listing"]
    assert "pi_booked_" in said["purchase_currencies"] or "No such" in \
        said["purchase_currencies"]


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
    set up score 0 with the reason, keeping the migration's 5/20 (a grader error would
    drop the trial from every mean instead)."""
    starter = (TASK / "environment" / "server.js").read_text()
    hanging = edited(starter, ("app.get('/health'",
                               "app.use('/api', () => {});  // never answers\n"
                               "app.get('/health'"))
    record = trial(server, tmp_path, "hang",
                   ScriptedAgent(replay(hanging, oracle_files()[1], REFUSE_INSERTS)))
    assert record["reward"] == pytest.approx(5 / TOTAL_WEIGHT, abs=1e-6)
    said = messages(tmp_path, "hang")
    assert "no answer" in said["products_listing"]
    assert "could not add its bookings to the table: not here" in said["customer_bookings"]
    assert len(record["subscores"]) == 13  # every check scored
    assert record["grader_seconds"] < 150
