"""Malformed and hostile input to the billing endpoints never yields a 5xx.

Parameter names come from the SDK-derived schema of each billing endpoint (nested ones
too), values from a mix of plausible ids, enums, numbers and junk, against a live
subscription, invoice and test clock, so requests reach deep into the engine."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import stripe
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from billing_helpers import make_shop
from conftest import RunningEmulator
from stripebench.emulator import schema

PREFIXES = ("/v1/subscriptions", "/v1/subscription_items", "/v1/subscription_schedules",
            "/v1/invoices", "/v1/invoiceitems", "/v1/invoice_payments",
            "/v1/test_helpers/test_clocks", "/v1/billing/", "/v1/billing_portal")
ENDPOINTS = sorted((e for e in schema.load()["endpoints"] if e["path"].startswith(PREFIXES)),
                   key=lambda e: (e["path"], e["method"]))


def param_names(spec: dict[str, Any], prefix: str = "") -> list[str]:
    names: list[str] = []
    for key, sub in (spec.get("properties") or {}).items():
        name = f"{prefix}[{key}]" if prefix else key
        names.append(name)
        for alt in [sub, *(sub.get("anyOf") or [])]:
            if alt.get("type") == "object":
                names += param_names(alt, name)
            elif alt.get("type") == "array" and (alt.get("items") or {}).get("type") == "object":
                names += param_names(alt["items"], name + "[0]")
    return names


@pytest.fixture(scope="module")
def world(emulator: RunningEmulator) -> dict[str, Any]:
    account = emulator.new_account()
    client = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base})
    shop = make_shop(client)
    price = shop.price(1000)
    sub = client.v1.subscriptions.create(params={"customer": shop.customer.id,
                                                 "items": [{"price": price.id}]})
    invoice = client.v1.invoices.create(params={"customer": shop.customer.id})
    ids = {"customer": shop.customer.id, "subscription_exposed_id": sub.id,
           "subscription": sub.id, "invoice": invoice.id, "test_clock": shop.clock.id,
           "item": sub["items"].data[0].id}
    return {"key": account["secret_key"], "ids": ids,
            "values": [price.id, shop.customer.id, sub.id, invoice.id, shop.clock.id]}


VALUES = ["", "0", "1", "-1", "true", "false", "now", "usd", "inf", "1e30", "999999999999",
          "month", "none", "always_invoice", "sum", "x", "unchanged"]


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(index=st.integers(0, len(ENDPOINTS) - 1), data=st.data())
def test_billing_fuzz_never_5xx(emulator: RunningEmulator, world: dict[str, Any], index: int,
                                data: st.DataObject) -> None:
    endpoint = ENDPOINTS[index]
    path = re.sub(r"\{(\w+)\}", lambda m: world["ids"].get(m.group(1), "x_missing"),
                  endpoint["path"])
    names = param_names(endpoint["params"]) or ["unknown"]
    value = st.one_of(st.sampled_from(VALUES + world["values"]), st.text(max_size=6))
    body = data.draw(st.lists(st.tuples(st.sampled_from(names), value), max_size=6))
    encoded = "&".join(f"{quote(k, safe='[]')}={quote(v, safe='')}" for k, v in body)
    headers = {"Authorization": f"Bearer {world['key']}",
               "Content-Type": "application/x-www-form-urlencoded"}
    if endpoint["method"] == "GET":
        r = httpx.get(f"{emulator.base}{path}?{encoded}", headers=headers, timeout=20)
    else:
        r = httpx.request(endpoint["method"], emulator.base + path, content=encoded.encode(),
                          headers=headers, timeout=20)
    assert r.status_code < 500, (endpoint["method"], path, encoded, r.text[:300])
    if r.status_code >= 400:
        assert r.json()["error"]["message"]


def test_removing_every_item_is_refused_and_changes_nothing(client: stripe.StripeClient) -> None:
    """Found by fuzzing: deleting a subscription's last item left it with none (then every
    update was a 500)."""
    shop = make_shop(client)
    sub = client.v1.subscriptions.create(params={"customer": shop.customer.id,
                                                 "items": [{"price": shop.price(800).id}]})
    item = sub["items"].data[0]
    with pytest.raises(stripe.InvalidRequestError, match="at least one active plan") as err:
        client.v1.subscription_items.delete(item.id)
    assert err.value.param == "items"
    with pytest.raises(stripe.InvalidRequestError, match="at least one active plan"):
        client.v1.subscriptions.update(sub.id, params={
            "items": [{"id": item.id, "deleted": True}]})
    with pytest.raises(stripe.InvalidRequestError) as bad_price:
        client.v1.subscriptions.update(sub.id, params={
            "items": [{"id": item.id, "quantity": 5}, {"price": "price_missing"}]})
    assert bad_price.value.param == "items[1][price]"
    after = client.v1.subscriptions.update(sub.id, params={"metadata": {"ok": "yes"}})
    assert [(i.id, i.quantity) for i in after["items"].data] == [(item.id, 1)]
    assert client.v1.invoice_items.list(params={"customer": shop.customer.id}).data == []
