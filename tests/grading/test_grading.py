"""`stripebench.grading`, the helpers every grader imports: weighted checks, canonical
projections of real emulator snapshots (no raw ids or timestamps), collateral changes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import stripe

from conftest import RunningEmulator
from stripebench.grading import Grader, canonical, collateral_changes, objects_of, state


def snapshot(emulator: RunningEmulator, account: dict[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = httpx.get(
        f"{emulator.base}/_emulator/accounts/{account['id']}/snapshot").json()
    return data


def shop(emulator: RunningEmulator, account: dict[str, str], clock_offset: int) -> None:
    """The same purchase story, at a different simulated time."""
    httpx.post(f"{emulator.base}/_emulator/accounts/{account['id']}/clock",
               json={"advance": clock_offset}).raise_for_status()
    client = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base})
    product = client.v1.products.create({"name": "Tee"})
    client.v1.prices.create({"product": product.id, "unit_amount": 2500, "currency": "usd"})
    customer = client.v1.customers.create({"email": "ada@example.com"})
    client.v1.payment_intents.create({"amount": 2500, "currency": "usd",
                                      "customer": customer.id})


def test_canonical_state_is_equal_across_accounts_ids_and_times(
        emulator: RunningEmulator) -> None:
    first, second = emulator.new_account(), emulator.new_account()
    shop(emulator, first, 0)
    shop(emulator, second, 86_400 * 40)
    types = ["product", "price", "customer", "payment_intent"]
    a, b = state(snapshot(emulator, first), types), state(snapshot(emulator, second), types)
    assert a == b
    assert all(a[t] for t in types)
    text = json.dumps(a)
    ids = [o["id"] for o in snapshot(emulator, first)["objects"]]
    assert not any(i in text for i in ids)  # no raw ids left
    assert '"created"' not in text and "client_secret" not in text
    price = a["price"][0]
    assert price["product"] == "<prod>" and price["unit_amount"] == 2500
    # a real difference still shows
    client = stripe.StripeClient(second["secret_key"], base_addresses={"api": emulator.base})
    client.v1.customers.update(objects_of(snapshot(emulator, second), "customer")[0]["id"],
                               {"email": "grace@example.com"})
    assert state(snapshot(emulator, second), types) != a


def test_canonical_keeps_fixed_ids_and_can_sort_lists() -> None:
    value = {"id": "prod_Q2w3E4r5T6y7U8", "product": "prod_tee",
             "price": "price_Q2w3E4r5T6y7U8ab", "tags": [{"n": 2}, {"n": 1}],
             "paid_at": 1700000000, "_private": 1}
    assert canonical(value, keep_ids=["prod_tee"], sort_lists=True) == {
        "price": "<price>", "product": "prod_tee", "tags": [{"n": 1}, {"n": 2}]}


def test_collateral_changes_name_changed_and_deleted_objects(
        emulator: RunningEmulator) -> None:
    account = emulator.new_account()
    client = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base})
    kept = client.v1.customers.create({"email": "kept@example.com"})
    edited = client.v1.customers.create({"email": "edited@example.com"})
    gone = client.v1.products.create({"name": "Old"})
    before = snapshot(emulator, account)
    assert collateral_changes(before, snapshot(emulator, account)) == []
    client.v1.customers.create({"email": "new@example.com"})  # new objects are not collateral
    client.v1.customers.update(edited.id, {"name": "Edited"})
    client.v1.products.delete(gone.id)
    after = snapshot(emulator, account)
    changes = collateral_changes(before, after)
    assert sorted(changes) == sorted([f"customer {edited.id} changed: name",
                                      f"product {gone.id} deleted"])
    assert kept.id not in " ".join(changes)
    assert collateral_changes(before, after, types=["customer"]) == [
        f"customer {edited.id} changed: name"]
    assert collateral_changes(before, after, allowed=lambda old, new: old["id"] == gone.id) \
        == [f"customer {edited.id} changed: name"]


def test_grader_weights_errors_and_gates(tmp_path: Path) -> None:
    g = Grader(verbose=False)
    g.check("full", 3, lambda: True)
    g.check("half", 1, 0.5)
    g.check("raises", 1, lambda: {}["missing"])
    g.check("bad_value", 1, lambda: 7)
    reward = g.write(tmp_path / "reward.json")
    assert reward["total"] == pytest.approx(3.5 / 6)
    assert reward["subscores"] == {"full": 1.0, "half": 0.5, "raises": 0.0, "bad_value": 0.0}
    assert "KeyError" in reward["messages"]["raises"]
    assert "outside [0, 1]" in reward["messages"]["bad_value"]
    assert json.loads((tmp_path / "reward.json").read_text()) == reward
    with pytest.raises(ValueError, match="twice"):
        g.check("full", 1, True)
    g.gate("app_runs", lambda: False)
    assert g.total == 0.0  # a failed gate zeroes everything
