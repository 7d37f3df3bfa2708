"""Legacy Plans (`/v1/plans`): one object with recurring prices, through the current SDK and
stripe-python 5 (pinned 2020-08-27), which old integrations and SDK-upgrade starters use."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import httpx
import pytest
import stripe

from conftest import RunningEmulator
from paths import REPO

ROOT = REPO
STRIPE5 = ROOT / ".old-sdks" / "stripe5"

PLAN_FIELDS = {"id", "object", "active", "amount", "amount_decimal", "billing_scheme",
               "created", "currency", "interval", "interval_count", "livemode", "metadata",
               "meter", "nickname", "product", "tiers_mode", "transform_usage",
               "trial_period_days", "usage_type"}


def _events(client: stripe.StripeClient) -> list[str]:
    return [e.type for e in reversed(client.v1.events.list(params={"limit": 100}).data)]


def test_plan_round_trip_current_sdk(client: stripe.StripeClient) -> None:
    plan = client.v1.plans.create(params={
        "amount": 1500, "currency": "usd", "interval": "month", "interval_count": 3,
        "product": {"name": "Quarterly", "metadata": {"tier": "q"}}, "nickname": "q3",
        "metadata": {"legacy": "yes"}, "trial_period_days": 14})
    assert plan.object == "plan" and set(plan.to_dict()) == PLAN_FIELDS  # tiers: expand only
    assert (plan.amount, str(plan.amount_decimal), plan.currency) == (1500, "1500", "usd")
    assert (plan.interval, plan.interval_count, plan.usage_type) == ("month", 3, "licensed")
    assert plan.trial_period_days == 14 and plan.billing_scheme == "per_unit"
    assert plan.nickname == "q3" and plan.metadata.to_dict() == {"legacy": "yes"}
    product = client.v1.products.retrieve(str(plan.product))
    assert product.name == "Quarterly" and product.metadata.to_dict() == {"tier": "q"}
    assert _events(client) == ["product.created", "price.created", "plan.created"]

    got = client.v1.plans.retrieve(plan.id, params={"expand": ["product"]})
    assert got.product.name == "Quarterly"  # type: ignore[union-attr]
    updated = client.v1.plans.update(plan.id, params={
        "nickname": "renamed", "metadata": {"extra": "1"}, "trial_period_days": 7,
        "active": False})
    assert updated.nickname == "renamed" and updated.active is False
    assert updated.metadata.to_dict() == {"legacy": "yes", "extra": "1"}
    assert updated.trial_period_days == 7
    plan_event = client.v1.events.list(params={"type": "plan.updated"}).data[0]
    assert plan_event.data.previous_attributes is not None
    assert plan_event.data.previous_attributes["nickname"] == "q3"
    assert plan_event.data.previous_attributes["trial_period_days"] == 14
    assert client.v1.events.list(params={"type": "price.updated"}).data

    other = client.v1.products.create(params={"name": "Moved"})
    moved = client.v1.plans.update(plan.id, params={"product": other.id})
    assert moved.product == other.id

    assert [p.id for p in client.v1.plans.list(params={"active": False}).data] == [plan.id]
    assert client.v1.plans.list(params={"active": True}).data == []
    assert [p.id for p in client.v1.plans.list(params={"product": other.id}).data] == [plan.id]
    assert client.v1.plans.list(params={"product": product.id}).data == []
    assert [p.id for p in client.v1.plans.list(
        params={"created": {"gte": plan.created}}).data] == [plan.id]
    assert client.v1.plans.list(params={"created": {"gt": plan.created + 1000}}).data == []

    gone = client.v1.plans.delete(plan.id)
    assert gone.to_dict() == {"id": plan.id, "object": "plan", "deleted": True}
    assert _events(client)[-2:] == ["plan.deleted", "price.deleted"]
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.plans.retrieve(plan.id)
    assert info.value.code == "resource_missing" and info.value.http_status == 404
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.prices.retrieve(plan.id)
    client.v1.products.delete(other.id)  # no price left on it


def test_plan_create_options_and_errors(client: stripe.StripeClient) -> None:
    product = client.v1.products.create(params={"name": "Metered"})
    tiered = client.v1.plans.create(params={
        "id": "gold-tiered", "currency": "eur", "interval": "year", "product": product.id,
        "billing_scheme": "tiered", "tiers_mode": "graduated", "usage_type": "metered",
        "tiers": [{"up_to": 10, "unit_amount": 100}, {"up_to": "inf", "flat_amount": 5,
                                                       "unit_amount_decimal": "50.5"}]})
    assert tiered.id == "gold-tiered" and tiered.amount is None
    assert tiered.usage_type == "metered" and "tiers" not in tiered.to_dict()
    expanded = client.v1.plans.retrieve("gold-tiered", params={"expand": ["tiers"]})
    assert expanded.tiers is not None
    assert [(t.up_to, t.unit_amount, str(t.unit_amount_decimal)) for t in expanded.tiers] == [
        (10, 100, "100"), (None, None, "50.5")]
    transformed = client.v1.plans.create(params={
        "amount_decimal": "12.5", "currency": "usd", "interval": "week",
        "product": product.id, "transform_usage": {"divide_by": 100, "round": "up"}})
    assert str(transformed.amount_decimal) == "12.5" and transformed.amount is None
    assert transformed.transform_usage is not None
    assert (transformed.transform_usage.divide_by, transformed.transform_usage.round) == (
        100, "up")
    price = client.v1.prices.retrieve(transformed.id)
    assert price.transform_quantity is not None and price.transform_quantity.divide_by == 100

    cases: list[tuple[dict[str, Any], str]] = [
        ({"currency": "usd", "interval": "month", "product": product.id}, "amount"),
        ({"amount": 100, "currency": "usd", "interval": "month"}, "product"),
        ({"amount": 100, "amount_decimal": "100", "currency": "usd", "interval": "month",
          "product": product.id}, "amount_decimal"),
        ({"amount": 100, "currency": "usd", "interval": "month", "interval_count": 40,
          "product": product.id}, "interval_count"),
        ({"id": "gold-tiered", "amount": 100, "currency": "usd", "interval": "month",
          "product": product.id}, "id"),
        ({"amount": 100, "currency": "usd", "interval": "month", "product": "prod_nope"},
         "product"),
        ({"amount": 100, "currency": "usd", "interval": "month",
          "product": {"name": "x", "id": product.id}}, "product[id]"),
    ]
    before = len(client.v1.plans.list(params={"limit": 100}).data)
    for params, param in cases:
        with pytest.raises(stripe.InvalidRequestError) as info:
            client.v1.plans.create(params=params)
        assert info.value.param == param, (params, info.value.user_message)
    assert len(client.v1.plans.list(params={"limit": 100}).data) == before
    assert [p.name for p in client.v1.products.list().data] == ["Metered"]


def test_prices_and_plans_are_one_object(client: stripe.StripeClient) -> None:
    """A recurring price retrieves as a plan and a plan as a price; writes through either
    show through the other; one-time prices are no plans."""
    product = client.v1.products.create(params={"name": "Both"})
    price = client.v1.prices.create(params={
        "product": product.id, "unit_amount": 900, "currency": "usd",
        "recurring": {"interval": "month", "trial_period_days": 3}, "nickname": "p"})
    once = client.v1.prices.create(params={"product": product.id, "unit_amount": 500,
                                           "currency": "usd"})
    as_plan = client.v1.plans.retrieve(price.id)
    assert (as_plan.amount, as_plan.interval, as_plan.trial_period_days) == (900, "month", 3)
    assert as_plan.created == price.created and as_plan.nickname == "p"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.plans.retrieve(once.id)
    assert info.value.http_status == 404 and f"No such plan: '{once.id}'" in str(
        info.value.user_message)
    assert [p.id for p in client.v1.plans.list().data] == [price.id]

    client.v1.prices.update(price.id, params={"nickname": "via price", "metadata": {"a": "1"}})
    assert client.v1.plans.retrieve(price.id).nickname == "via price"
    plan = client.v1.plans.create(params={"amount": 2500, "currency": "usd",
                                          "interval": "year", "product": product.id})
    client.v1.plans.update(plan.id, params={"metadata": {"b": "2"}, "nickname": "via plan"})
    as_price = client.v1.prices.retrieve(plan.id)
    assert as_price.type == "recurring" and as_price.unit_amount == 2500
    assert as_price.recurring is not None and as_price.recurring.interval == "year"
    assert as_price.nickname == "via plan" and as_price.metadata.to_dict() == {"b": "2"}
    assert {p.id for p in client.v1.prices.list(params={"type": "recurring"}).data} == {
        price.id, plan.id}

    # Subscribing by plan or by price gives the same item; its `plan` is the plan.
    customer = client.v1.customers.create(params={"email": "both@example.com"})
    pm = client.v1.payment_methods.attach("pm_card_visa", params={"customer": customer.id})
    client.v1.customers.update(customer.id, params={
        "invoice_settings": {"default_payment_method": pm.id}})
    sub = client.v1.subscriptions.create(params={"customer": customer.id,
                                                 "items": [{"plan": plan.id}]})
    item = sub["items"].data[0]
    assert item.price.id == plan.id and item.plan.id == plan.id
    plan_now = client.v1.plans.retrieve(plan.id).to_dict()
    assert item.plan.to_dict() == plan_now
    assert sub.status == "active"
    # A plan used by a subscription keeps its product.
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.plans.update(plan.id, params={"product": client.v1.products.create(
            params={"name": "Elsewhere"}).id})
    assert info.value.param == "product"


PLAN_FLOW = r'''
import json, sys
import stripe
stripe.api_key, stripe.api_base, stripe.api_version = sys.argv[1], sys.argv[2], "2020-08-27"
plan = stripe.Plan.create(amount=2000, currency="usd", interval="month",
                          product={"name": "Legacy Pro"}, nickname="Legacy monthly")
customer = stripe.Customer.create(email="legacy@example.com")
pm = stripe.PaymentMethod.attach("pm_card_visa", customer=customer.id)
stripe.Customer.modify(customer.id, invoice_settings={"default_payment_method": pm.id})
sub = stripe.Subscription.create(customer=customer.id, items=[{"plan": plan.id}],
                                 expand=["latest_invoice"])
line = sub.latest_invoice.lines.data[0]
plans = stripe.Plan.list(limit=10)
print(json.dumps({
    "plan": plan.id, "type": type(plan).__name__, "amount": plan.amount,
    "product": plan.product, "sub": sub.id, "status": sub.status,
    "item_plan": sub["items"].data[0].plan.id, "item_plan_type":
    type(sub["items"].data[0].plan).__name__, "line_plan": line.plan.id,
    "line_amount": line.amount, "invoice_paid": sub.latest_invoice.paid,
    "listed": [p.id for p in plans.data], "listed_type": type(plans.data[0]).__name__,
    "aggregate_usage": plan.aggregate_usage,
    "retrieved_nickname": stripe.Plan.retrieve(plan.id).nickname}))
'''


def test_stripe_python_5_plan_subscribe_list(emulator: RunningEmulator,
                                            account: dict[str, str],
                                            client: stripe.StripeClient) -> None:
    assert STRIPE5.is_dir(), f"{STRIPE5} is missing: run scripts/setup.sh"
    done = subprocess.run([str(ROOT / ".venv/bin/python"), "-c", PLAN_FLOW,
                           account["secret_key"], emulator.base],
                          env={**os.environ, "PYTHONPATH": str(STRIPE5)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    old = json.loads(done.stdout.strip().splitlines()[-1])
    assert old["type"] == "Plan" and old["amount"] == 2000
    assert old["status"] == "active" and old["invoice_paid"] is True
    assert old["item_plan"] == old["line_plan"] == old["plan"]
    assert old["item_plan_type"] == "Plan" and old["line_amount"] == 2000
    assert old["listed"] == [old["plan"]] and old["listed_type"] == "Plan"
    assert old["retrieved_nickname"] == "Legacy monthly" and old["aggregate_usage"] is None
    # The current SDK reads the same objects: the plan is a price of the inline product.
    price = client.v1.prices.retrieve(old["plan"])
    assert price.unit_amount == 2000 and price.product == old["product"]
    assert client.v1.products.retrieve(old["product"]).name == "Legacy Pro"
    sub = client.v1.subscriptions.retrieve(old["sub"])
    assert sub["items"].data[0].price.id == old["plan"]


def test_plans_unknown_and_unsupported_params(emulator: RunningEmulator,
                                              account: dict[str, str]) -> None:
    headers = {"Authorization": f"Bearer {account['secret_key']}"}
    missing = httpx.get(f"{emulator.base}/v1/plans/plan_missing", headers=headers)
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == "No such plan: 'plan_missing'"
    bad = httpx.post(f"{emulator.base}/v1/plans", headers=headers, data={
        "amount": "100", "currency": "usd", "interval": "month", "product": "prod_x",
        "aggregate_usage": "sum"})
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "aggregate_usage"
    assert bad.json()["error"]["code"] == "parameter_unknown"
    # Before basil the param exists, but legacy usage records are not emulated.
    old = {**headers, "Stripe-Version": "2024-06-20"}
    refused = httpx.post(f"{emulator.base}/v1/plans", headers=old, data={
        "amount": "100", "currency": "usd", "interval": "month", "product": "prod_x",
        "usage_type": "metered", "aggregate_usage": "max"})
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "emulator_unsupported"
    assert refused.json()["error"]["param"] == "aggregate_usage"
    refused_price = httpx.post(f"{emulator.base}/v1/prices", headers=old, data={
        "unit_amount": "5", "currency": "usd", "product_data[name]": "Calls",
        "recurring[interval]": "month", "recurring[usage_type]": "metered",
        "recurring[aggregate_usage]": "last_during_period"})
    assert refused_price.status_code == 400
    assert refused_price.json()["error"]["code"] == "emulator_unsupported"
    assert refused_price.json()["error"]["param"] == "recurring[aggregate_usage]"
    metered = httpx.post(f"{emulator.base}/v1/plans", headers=old, data={
        "amount": "5", "currency": "usd", "interval": "month", "product[name]": "Calls",
        "usage_type": "metered"})
    assert metered.status_code == 200 and metered.json()["aggregate_usage"] == "sum"
    price = httpx.get(f"{emulator.base}/v1/prices/{metered.json()['id']}", headers=old).json()
    assert price["recurring"]["aggregate_usage"] == "sum"
    now = httpx.get(f"{emulator.base}/v1/plans/{metered.json()['id']}", headers=headers).json()
    assert "aggregate_usage" not in now and now["usage_type"] == "metered"
