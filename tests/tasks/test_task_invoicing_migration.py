"""invoicing-migration: the tour company of bookings-migration (Express + SQLite, now
stripe-node 18.5.0 on 2025-08-27.basil) backs every booking with a Stripe Invoice: the
catalog inferred from the booking history, an invoice per booking (paid by its own
PaymentIntent through the InvoicePayments API, paid out of band, or open), and purchases
through invoices. Proven under the harness: oracle 1.0, noop 0.0, the catalog and the
online bookings' invoices alone 20/54, and red-team trials where each corner cut costs
exactly its checks: charging the online bookings again instead of attaching their
payments, leaving a declined purchase's invoice open, purchases whose invoices are marked
paid out of band beside a bare PaymentIntent, and a server that never answers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import load_module, proof_trial
from paths import REPO
from stripebench.grading import objects_of
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.check import check_tasks
from stripebench.harness.emulator import Emulator
from stripebench.harness.sandbox import bwrap_available, npm_cache
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "invoicing-migration"
make_partial = load_module(TASK / "solution" / "make_partial.py", "invoicing_migration_partial")
TOTAL_WEIGHT = 18

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
    assert lines == ["ok   invoicing-migration: oracle 1.0, noop 0.0"]
    oracle = json.loads(next((tmp_path / "oracle").rglob("result.json")).read_text())
    assert set(oracle["subscores"].values()) == {1.0}
    assert len(oracle["subscores"]) == 12
    noop = json.loads(next((tmp_path / "noop").rglob("result.json")).read_text())
    assert noop["subscores"].pop("gate:stack_kept") == 1.0
    assert set(noop["subscores"].values()) == {0.0}
    # the migration paid the history without charging anyone: the only succeeded
    # PaymentIntents when the oracle stopped are the four seeded ones
    final = json.loads(next((tmp_path / "oracle").rglob("stripe_final.json")).read_text())
    assert len([p for p in objects_of(final, "payment_intent")
                if p["status"] == "succeeded"]) == 4


def test_scripted_replay_is_fresh() -> None:
    replay = json.loads((TASK / "solution" / "scripted_partial.json").read_text())
    assert replay == make_partial.replay(), "scripted_partial.json is stale: run make_partial"


def test_catalog_and_online_invoices_score_their_share(server: Emulator,
                                                        tmp_path: Path) -> None:
    """The catalog and the four online bookings' invoices (of twelve), no purchases:
    20/54, in bubblewrap when it runs here (stripe 18 and better-sqlite3 from the npm
    cache, no network)."""
    sandbox = "bwrap" if bwrap_available() else "local"
    record = trial(server, tmp_path, "partial",
                   ScriptedAgent(TASK / "solution" / "scripted_partial.json"), sandbox)
    # the starter's own smoke test ran in the trial: the native module loaded offline
    transcript = (tmp_path / "partial" / "transcript.jsonl").read_text()
    assert "smoke ok: stripe " in transcript and "SQLite 3." in transcript
    assert record["reward"] == pytest.approx(20 / 54, abs=1e-6)
    scores = record["subscores"]
    assert {k: scores[k] for k in ("products_created", "prices_inferred",
                                   "no_invented_prices")} == dict.fromkeys(
        ("products_created", "prices_inferred", "no_invented_prices"), 1.0)
    for name in ("booking_invoices", "invoice_states", "invoice_ids_written",
                 "refunded_not_invoiced"):
        assert scores[name] == pytest.approx(4 / 12), name
    assert "no invoice_id" in messages(tmp_path, "partial")["purchase_invoiced"]


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
             "bash install.sh\nnode migrate_invoices.js\n"}}]


def test_red_team_charging_again_and_an_open_invoice_left(server: Emulator,
                                                          tmp_path: Path) -> None:
    """The reference, with two corners cut: the online bookings' invoices are paid by
    charging the customer's card again instead of attaching the PaymentIntent that paid
    them (their three invoice states fail), and a declined purchase's invoice stays
    open (`decline` fails): 18 - 3/4 - 1 of 18."""
    server_js, migrate_js = oracle_files()
    migrate_js = edited(migrate_js, (
        "? await stripe.invoices.attachPayment(invoice.id,\n"
        "        {payment_intent: booking.payment_intent})",
        "? await stripe.invoices.pay(invoice.id, {payment_method: 'pm_card_visa'})"))
    server_js = edited(server_js, ("    await stripe.invoices.voidInvoice(invoice.id);\n", ""))
    record = trial(server, tmp_path, "sloppy", ScriptedAgent(replay(server_js, migrate_js)))
    scores = record["subscores"]
    assert scores["invoice_states"] == pytest.approx(9 / 12)
    assert {k for k, v in scores.items() if v < 1.0} == {"invoice_states", "decline"}
    assert scores["decline"] == 0.0
    assert record["reward"] == pytest.approx((TOTAL_WEIGHT - 0.75 - 1) / TOTAL_WEIGHT,
                                             abs=1e-6)
    said = messages(tmp_path, "sloppy")
    assert "B-1001" in said["invoice_states"] and "P-20" not in said["invoice_states"]
    assert "open invoices went from" in said["decline"]


# Purchases charged with a bare PaymentIntent (the starter's), then "backed" by an
# invoice created afterwards and marked paid out of band: the invoice says paid, but no
# PaymentIntent pays it.
FAKE_BACKING = """
async function backWithInvoice(row, stripeId, priceId) {
  const draft = await stripe.invoices.create({customer: stripeId, currency: row.currency,
    collection_method: 'send_invoice', days_until_due: 30, auto_advance: false,
    pending_invoice_items_behavior: 'exclude', metadata: {booking_id: row.id}});
  await stripe.invoiceItems.create({customer: stripeId, invoice: draft.id,
    pricing: {price: priceId}, quantity: row.guests});
  let invoice = await stripe.invoices.finalizeInvoice(draft.id, {auto_advance: false});
  if (row.status === 'complete') {
    invoice = await stripe.invoices.pay(invoice.id, {paid_out_of_band: true});
  }
  db.prepare('UPDATE bookings SET invoice_id = ? WHERE id = ?').run(invoice.id, row.id);
}

app.post('/api/purchase',"""


def test_red_team_invoices_paid_out_of_band_beside_a_charge(server: Emulator,
                                                            tmp_path: Path) -> None:
    """The reference migration; purchases charge a bare PaymentIntent and then mark an
    invoice paid out of band. Every invoice check of the history passes, and amount 0
    (an open invoice, the card saved) too; the three purchases fail (no payment pays
    their invoices) and with them the decline and amount checks: 13/18."""
    starter = (TASK / "environment" / "server.js").read_text()
    server_js = edited(
        starter,
        ("app.post('/api/purchase',", FAKE_BACKING.lstrip()),
        ("  res.status(201).json({booking: view(row, row)});",
         "  await backWithInvoice(row, stripeId, price.id);\n"
         "  res.status(201).json({booking: view(row, row)});"))
    record = trial(server, tmp_path, "fake", ScriptedAgent(replay(server_js,
                                                                  oracle_files()[1])))
    scores = record["subscores"]
    assert {k for k, v in scores.items() if v < 1.0} == {"purchase_invoiced", "decline",
                                                         "amount_checked"}
    assert scores["purchase_invoiced"] == 0.0
    assert record["reward"] == pytest.approx(13 / TOTAL_WEIGHT, abs=1e-6)
    assert "0 paid payments" in messages(tmp_path, "fake")["purchase_invoiced"]


def test_red_team_a_server_that_never_answers(server: Emulator, tmp_path: Path) -> None:
    """The reference migration, and a server that answers /health but hangs on every
    API request: the grader's bounded waits score the purchases 0 and finish in time,
    keeping the catalog's and the invoices' 12/18."""
    starter = (TASK / "environment" / "server.js").read_text()
    hanging = edited(starter, ("app.get('/health'",
                               "app.use('/api', () => {});  // never answers\n"
                               "app.get('/health'"))
    record = trial(server, tmp_path, "hang",
                   ScriptedAgent(replay(hanging, oracle_files()[1])))
    assert record["reward"] == pytest.approx(12 / TOTAL_WEIGHT, abs=1e-6)
    assert "no answer" in messages(tmp_path, "hang")["purchase_invoiced"]
    assert record["grader_seconds"] < 150
