"""The statuses a subscription reaches off the happy path: paused (a trial ending without a
payment method) and resumed, canceled at trial end, and unpaid after every retry failed
(an account setting, as Stripe's "manage failed payments")."""

from __future__ import annotations

from typing import Any

import stripe

from billing_helpers import DAY, FAILING_CARD, GOOD_CARD, JAN_1, make_shop
from conftest import RunningEmulator

HOUR = 3600


def test_trial_end_without_card_pauses_then_resumes(client: stripe.StripeClient) -> None:
    shop = make_shop(client, card=False)
    price = shop.price(3100)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}], "trial_period_days": 10,
        "trial_settings": {"end_behavior": {"missing_payment_method": "pause"}}})
    assert sub.trial_settings.end_behavior.missing_payment_method == "pause"
    shop.advance(JAN_1 + 40 * DAY)
    sub = client.v1.subscriptions.retrieve(sub.id)
    assert sub.status == "paused"
    assert sub.status_details.paused.subscription.type == "trial_end_without_payment_method"
    assert sub.status_details.paused.transitioned_at == JAN_1 + 10 * DAY
    invoices = client.v1.invoices.list(params={"subscription": sub.id}).data
    assert [i.billing_reason for i in invoices] == ["subscription_create"]  # none while paused
    kinds = [(e.type, e.created) for e in shop.events(JAN_1 + 1)]
    assert ("customer.subscription.paused", JAN_1 + 10 * DAY) in kinds

    shop.use_card(GOOD_CARD)
    resumed = client.v1.subscriptions.resume(sub.id, params={"expand": ["latest_invoice"]})
    assert (resumed.status, resumed.billing_cycle_anchor) == ("active", JAN_1 + 40 * DAY)
    assert resumed.status_details is None
    item = resumed["items"].data[0]
    assert (item.current_period_start, item.current_period_end) == (
        JAN_1 + 40 * DAY, JAN_1 + 40 * DAY + 28 * DAY)  # Feb 10 → Mar 10
    inv = resumed.latest_invoice
    assert (inv.status, inv.amount_paid, inv.billing_reason) == (
        "paid", 3100, "subscription_update")
    assert "customer.subscription.resumed" in [e.type for e in shop.events(JAN_1 + 40 * DAY)]
    shop.advance(JAN_1 + 68 * DAY + 2 * HOUR)
    renewal = client.v1.invoices.list(params={"subscription": sub.id, "limit": 1}).data[0]
    assert (renewal.billing_reason, renewal.amount_paid) == ("subscription_cycle", 3100)


def test_resume_keeping_the_cycle_prorates(client: stripe.StripeClient) -> None:
    shop = make_shop(client, card=False)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(3100).id}],
        "trial_end": JAN_1 + 31 * DAY,  # Feb 1: the cycle anchor
        "trial_settings": {"end_behavior": {"missing_payment_method": "pause"}}})
    shop.advance(JAN_1 + 45 * DAY + 7 * HOUR)  # Feb 15, 07:00
    shop.use_card(GOOD_CARD)
    resumed = client.v1.subscriptions.resume(sub.id, params={
        "billing_cycle_anchor": {"type": "unchanged"}, "expand": ["latest_invoice"]})
    item = resumed["items"].data[0]
    assert (item.current_period_start, item.current_period_end) == (
        JAN_1 + 31 * DAY, JAN_1 + 59 * DAY)  # Feb 1 → Mar 1
    # 13 days 17 hours of February's 28 days remain: 3100 × 1,184,400 / 2,419,200 = 1517.71.
    [line] = resumed.latest_invoice.lines.data
    assert line.amount == 1518 and resumed.latest_invoice.amount_paid == 1518
    assert line.description == "Remaining time on Gold after 15 Feb 2026"  # a proration line
    assert resumed.billing_cycle_anchor == JAN_1 + 31 * DAY


def test_trial_end_without_card_can_cancel(client: stripe.StripeClient) -> None:
    shop = make_shop(client, card=False)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(900).id}],
        "trial_period_days": 7,
        "trial_settings": {"end_behavior": {"missing_payment_method": "cancel"}}})
    shop.advance(JAN_1 + 8 * DAY)
    sub = client.v1.subscriptions.retrieve(sub.id)
    assert (sub.status, sub.ended_at) == ("canceled", JAN_1 + 7 * DAY)
    # With a card on file the same setting bills normally.
    carded = make_shop(client)
    other = client.v1.subscriptions.create(params={
        "customer": carded.customer.id, "items": [{"price": carded.price(900).id}],
        "trial_period_days": 7,
        "trial_settings": {"end_behavior": {"missing_payment_method": "cancel"}}})
    carded.advance(JAN_1 + 8 * DAY)
    assert client.v1.subscriptions.retrieve(other.id).status == "active"


def test_unpaid_after_the_last_retry(emulator: RunningEmulator) -> None:
    account: dict[str, Any] = emulator.new_account(
        settings={"subscription_failed_payments": "unpaid"})
    client = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base})
    shop = make_shop(client)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(2000).id}]})
    shop.use_card(FAILING_CARD)
    feb_1 = JAN_1 + 31 * DAY
    shop.advance(feb_1 + 20 * DAY)  # renewal + retries 3, 5 and 7 days later all decline
    sub = client.v1.subscriptions.retrieve(sub.id, params={"expand": ["latest_invoice"]})
    assert sub.status == "unpaid"
    failed = sub.latest_invoice
    assert (failed.status, failed.attempt_count, failed.next_payment_attempt) == (
        "open", 4, None)
    shop.advance(JAN_1 + 59 * DAY + 2 * HOUR)  # Mar 1 renewal: finalized, not attempted
    march = client.v1.invoices.list(params={"subscription": sub.id, "limit": 1}).data[0]
    assert (march.created, march.status, march.attempt_count) == (JAN_1 + 59 * DAY, "open", 0)
    assert client.v1.subscriptions.retrieve(sub.id).status == "unpaid"

    shop.use_card(GOOD_CARD)
    client.v1.invoices.pay(failed.id)
    assert client.v1.subscriptions.retrieve(sub.id).status == "unpaid"  # March still open
    client.v1.invoices.pay(march.id)
    assert client.v1.subscriptions.retrieve(sub.id).status == "active"
    statuses = [e.data.object.status for e in shop.events()
                if e.type == "customer.subscription.updated"]
    changes = [s for n, s in enumerate(statuses) if n == 0 or statuses[n - 1] != s]
    assert changes == ["active", "past_due", "unpaid", "active"]
