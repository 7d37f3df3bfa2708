"""The control plane under /_emulator/: health, accounts, reset, snapshot export and restore."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import stripe

from conftest import RunningEmulator, start_emulator

TOKEN = "control-secret"


@pytest.fixture()
def pair() -> Iterator[tuple[RunningEmulator, RunningEmulator]]:
    """Two fresh servers: state is exported from the first and restored into the second."""
    first, second = start_emulator(seed=11), start_emulator(seed=12)
    yield first, second
    first.stop()
    second.stop()


def sdk(emulator: RunningEmulator, account: dict[str, str]) -> stripe.StripeClient:
    return stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base})


def test_health_and_account_keys(emulator: RunningEmulator) -> None:
    health = httpx.get(f"{emulator.base}/_emulator/health").json()
    assert health["status"] == "ok" and health["accounts"] >= 1
    created = httpx.post(f"{emulator.base}/_emulator/accounts", json={}).json()
    assert created["id"].startswith("acct_")
    assert created["secret_key"].startswith("sk_test_")
    assert created["publishable_key"].startswith("pk_test_")
    # The keys it hands out work at once, and only for that account.
    customer = sdk(emulator, created).v1.customers.create(params={"name": "Fresh"})
    fetched = httpx.get(f"{emulator.base}/_emulator/accounts/{created['id']}").json()
    assert fetched["secret_key"] == created["secret_key"]
    other = emulator.new_account()
    with pytest.raises(stripe.InvalidRequestError):
        sdk(emulator, other).v1.customers.retrieve(customer.id)


def test_one_account_snapshot_restores_elsewhere(
        pair: tuple[RunningEmulator, RunningEmulator]) -> None:
    first, second = pair
    account = first.new_account()
    client = sdk(first, account)
    customers = [client.v1.customers.create(params={"email": f"s{i}@x.co"}).id for i in range(3)]
    client.v1.customers.delete(customers[1])
    product = client.v1.products.create(params={
        "name": "Snap", "default_price_data": {"currency": "usd", "unit_amount": 450}})
    keyed = client.v1.customers.create(params={"email": "key@x.co"},
                                       options={"idempotency_key": "snap-key"})
    snapshot = httpx.get(f"{first.base}/_emulator/accounts/{account['id']}/snapshot").json()
    assert httpx.get(f"{first.base}/_emulator/snapshot",
                     params={"account": account["id"]}).json() == snapshot

    restored = httpx.post(f"{second.base}/_emulator/restore", json=snapshot).json()
    assert restored["id"] == account["id"] and restored["secret_key"] == account["secret_key"]
    moved = sdk(second, account)
    listed = moved.v1.customers.list()
    assert [c.id for c in listed.data] == [keyed.id, customers[2], customers[0]]
    assert moved.v1.customers.retrieve(customers[1]).to_dict().get("deleted") is True
    price = moved.v1.products.retrieve(product.id, params={"expand": ["default_price"]})
    assert price.default_price.unit_amount == 450  # type: ignore[union-attr]
    replay = moved.v1.customers.create(params={"email": "key@x.co"},
                                       options={"idempotency_key": "snap-key"})
    assert replay.id == keyed.id
    assert replay.last_response.headers.get("idempotent-replayed") == "true"
    # The id sequence and clock carry over: new objects are newer and never collide.
    fresh = moved.v1.customers.create(params={"email": "after@x.co"})
    assert fresh.id not in customers + [keyed.id] and fresh.created > keyed.created
    assert moved.v1.customers.list(params={"limit": 1}).data[0].id == fresh.id


def test_export_all_import_all_and_reset(pair: tuple[RunningEmulator, RunningEmulator]) -> None:
    first, second = pair
    a, b = first.new_account(), first.new_account(api_version="2025-03-31.basil")
    ca = sdk(first, a).v1.customers.create(params={"name": "A"})
    cb = sdk(first, b).v1.customers.create(params={"name": "B"})
    leftover = second.new_account()
    everything = httpx.get(f"{first.base}/_emulator/snapshot").json()
    assert {s["account"]["id"] for s in everything["accounts"]} >= {a["id"], b["id"]}

    result = httpx.post(f"{second.base}/_emulator/restore", json=everything).json()
    assert result["restored"] == len(everything["accounts"])
    assert sdk(second, a).v1.customers.retrieve(ca.id).name == "A"
    assert sdk(second, b).v1.customers.retrieve(cb.id).name == "B"
    r = httpx.get(f"{second.base}/v1/customers",
                  headers={"Authorization": f"Bearer {b['secret_key']}"})
    assert r.headers["stripe-version"] == "2025-03-31.basil"
    # Restoring everything replaces what was there.
    r = httpx.get(f"{second.base}/v1/customers",
                  headers={"Authorization": f"Bearer {leftover['secret_key']}"})
    assert r.status_code == 401

    assert httpx.post(f"{second.base}/_emulator/reset").json() == {"reset": True}
    assert httpx.get(f"{second.base}/_emulator/health").json()["accounts"] == 0
    with pytest.raises(stripe.AuthenticationError):
        sdk(second, a).v1.customers.list()
    again = second.new_account()
    assert sdk(second, again).v1.customers.list().data == []


def test_control_token_guards_everything_but_health() -> None:
    guarded = start_emulator(control_token=TOKEN)
    try:
        assert httpx.get(f"{guarded.base}/_emulator/health").status_code == 200
        for method, path in (("POST", "/_emulator/accounts"), ("GET", "/_emulator/snapshot"),
                             ("POST", "/_emulator/reset"), ("POST", "/_emulator/restore")):
            r = httpx.request(method, f"{guarded.base}{path}", json={})
            assert r.status_code == 403, path
            r = httpx.request(method, f"{guarded.base}{path}", json={},
                              headers={"X-Emulator-Token": "wrong"})
            assert r.status_code == 403, path
        ok = httpx.post(f"{guarded.base}/_emulator/accounts", json={},
                        headers={"X-Emulator-Token": TOKEN})
        assert ok.status_code == 200 and ok.json()["id"].startswith("acct_")
    finally:
        guarded.stop()


def test_bad_control_calls_are_clear_errors(emulator: RunningEmulator) -> None:
    r = httpx.get(f"{emulator.base}/_emulator/accounts/acct_nope")
    assert r.status_code == 404 and "acct_nope" in r.json()["error"]["message"]
    r = httpx.post(f"{emulator.base}/_emulator/accounts", content=b"[1]",
                   headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    r = httpx.post(f"{emulator.base}/_emulator/nothing_here")
    assert r.status_code == 404
