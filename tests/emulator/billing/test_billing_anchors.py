"""Billing cycle anchors: how far ahead they may be (subscriptions and Checkout), and which
clock they are measured on."""

from __future__ import annotations

from typing import Any

import pytest
import stripe

from billing_helpers import DAY, JAN_1, make_shop
from checkout_helpers import confirm, price

SUCCESS = "https://shop.test/ok"
FEB_1 = JAN_1 + 31 * DAY


def test_anchor_no_later_than_the_next_natural_billing_date(
        client: stripe.StripeClient) -> None:
    """A monthly subscription created on 1 January may anchor up to 1 February, no later:
    Stripe refuses "billing_cycle_anchor cannot be later than next natural billing date"
    (https://docs.stripe.com/billing/subscriptions/billing-cycle: the anchor sets the first
    full invoice, which cannot come after the first natural one). With a trial the natural
    date counts from the trial's end, and the anchor cannot fall inside the trial."""
    shop = make_shop(client)
    monthly, yearly = shop.price(3100), shop.price(36500, "year")
    at_limit = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": monthly.id}],
        "billing_cycle_anchor": FEB_1})
    assert at_limit.billing_cycle_anchor == FEB_1 and at_limit.status == "active"
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.subscriptions.create(params={
            "customer": shop.customer.id, "items": [{"price": monthly.id}],
            "billing_cycle_anchor": FEB_1 + 1})
    assert caught.value.param == "billing_cycle_anchor"
    assert caught.value.user_message == ("billing_cycle_anchor cannot be later than next "
                                         f"natural billing date ({FEB_1}) for plan")
    assert len(client.v1.subscriptions.list(params={"customer": shop.customer.id}).data) == 1
    half_year = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": yearly.id}],
        "billing_cycle_anchor": JAN_1 + 181 * DAY, "expand": ["latest_invoice"]})
    assert half_year.latest_invoice.amount_paid == 18100  # 181 of 365 days: 36500 × 181/365
    trial_end = JAN_1 + 14 * DAY
    client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": monthly.id}],
        "trial_end": trial_end, "billing_cycle_anchor": trial_end + 31 * DAY})
    for wrong in (trial_end + 31 * DAY + 1, trial_end - DAY):
        with pytest.raises(stripe.InvalidRequestError) as caught:
            client.v1.subscriptions.create(params={
                "customer": shop.customer.id, "items": [{"price": monthly.id}],
                "trial_end": trial_end, "billing_cycle_anchor": wrong})
        assert caught.value.param == "billing_cycle_anchor"


def _session(client: stripe.StripeClient, customer: Any, plan: Any, anchor: int,
             ) -> stripe.checkout.Session:
    return client.v1.checkout.sessions.create(params={
        "mode": "subscription", "success_url": SUCCESS, "customer": customer.id,
        "line_items": [{"price": plan.id, "quantity": 1}],
        "subscription_data": {"billing_cycle_anchor": anchor}})


def test_checkout_anchor_limit_on_the_subscriptions_clock(emulator: Any,
                                                          client: stripe.StripeClient) -> None:
    """Checkout refuses an anchor past the next natural billing date as subscriptions do
    (https://docs.stripe.com/payments/checkout/billing-cycle: the anchor must come before
    the next natural billing date). Every check and the proration use the clock the
    subscription will live on: a customer on a test clock set to 1 December 2025 (before
    the account's own 1 January 2026) may anchor on 20 December."""
    dec_1 = JAN_1 - 31 * DAY
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": dec_1})
    customer = client.v1.customers.create(params={"email": "dec@example.com",
                                                  "test_clock": clock.id})
    plan = price(client, 3000, "Monthly box", recurring={"interval": "month"})
    with pytest.raises(stripe.InvalidRequestError) as caught:
        _session(client, customer, plan, JAN_1 + 1)
    assert caught.value.param == "subscription_data[billing_cycle_anchor]"
    assert "next natural billing date" in (caught.value.user_message or "")
    session = _session(client, customer, plan, dec_1 + 19 * DAY)
    assert session.amount_total == 1900  # 19 of the 30 days from 20 Nov to 20 Dec
    assert confirm(emulator.base, session, email="dec@example.com")["complete"]
    done = client.v1.checkout.sessions.retrieve(session.id, params={"expand": ["invoice"]})
    assert done.invoice.amount_paid == 1900
    assert done.invoice.lines.data[0].period.start == dec_1


def test_checkout_anchor_that_passes_bills_the_full_period(
        emulator: Any, client: stripe.StripeClient) -> None:
    """When the anchor passes while the session is open, Checkout charges the full period
    that starts at the anchor instead of the proration up to it
    (https://docs.stripe.com/payments/checkout/billing-cycle)."""
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": JAN_1})
    customer = client.v1.customers.create(params={"email": "late@example.com",
                                                  "test_clock": clock.id})
    plan = price(client, 3100, "Monthly box", recurring={"interval": "month"})
    anchor = JAN_1 + 3600
    session = _session(client, customer, plan, anchor)
    assert session.amount_total == 4  # one hour of January: 3100 × 3600/2678400 = 4.2
    client.v1.test_helpers.test_clocks.advance(clock.id, params={"frozen_time": anchor + 60})
    assert confirm(emulator.base, session, email="late@example.com")["complete"]
    done = client.v1.checkout.sessions.retrieve(session.id, params={
        "expand": ["invoice", "subscription"]})
    assert done.invoice.amount_paid == 3100
    assert done.amount_total == 3100
    item = done.subscription["items"].data[0]
    assert (item.current_period_start, item.current_period_end) == (anchor, anchor + 31 * DAY)
    assert done.subscription.billing_cycle_anchor == anchor
