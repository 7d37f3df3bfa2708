"""Paused payment collection with the python SDK and test clocks.

Stripe (https://docs.stripe.com/billing/subscriptions/pause-payment): while a
subscription's collection is paused it stays `active` and keeps generating invoices,
which are kept as drafts (`auto_advance` false), marked uncollectible, or voided,
according to `pause_collection.behavior`; none is charged. `resumes_at` ends the pause
(`pause_collection` back to null), and invoices from then on are collected again.
Invoices made before the pause are still collected. From 2026-09-30.endive an invoice
marked uncollectible says why in `status_details.uncollectible.reason`
(`subscription_paused`; `user_forgiven` when the merchant marks it:
https://docs.stripe.com/changelog/endive/2026-09-30/invoice-uncollectible-status-detail).
"""

from __future__ import annotations

from typing import Any

import pytest
import stripe

from billing_helpers import DAY, JAN_1, make_shop

FEB_1 = JAN_1 + 31 * DAY
MAR_1 = FEB_1 + 28 * DAY
APR_1 = MAR_1 + 31 * DAY
HOUR = 3600


def running(client: stripe.StripeClient) -> tuple[Any, Any]:
    shop = make_shop(client)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(1200).id}]})
    return shop, sub


def invoices(client: stripe.StripeClient, sub_id: str) -> list[Any]:
    found = client.v1.invoices.list(params={"subscription": sub_id, "limit": 100}).data
    return sorted(found, key=lambda i: i.created)


def charges(client: stripe.StripeClient, customer: str) -> int:
    return len(client.v1.charges.list(params={"customer": customer, "limit": 100}).data)


@pytest.mark.parametrize(("behavior", "status"), [("keep_as_draft", "draft"),
                                                  ("mark_uncollectible", "uncollectible"),
                                                  ("void", "void")])
def test_renewals_while_paused_are_not_collected(client: stripe.StripeClient, behavior: str,
                                                 status: str) -> None:
    shop, sub = running(client)
    paid_before = charges(client, shop.customer.id)
    client.v1.subscriptions.update(sub.id, params={"pause_collection": {"behavior": behavior}})
    shop.advance(FEB_1 + 2 * HOUR)
    shop.advance(MAR_1 + 2 * HOUR)
    renewals = invoices(client, sub.id)[1:]
    assert [i.billing_reason for i in renewals] == ["subscription_cycle"] * 2
    assert [i.status for i in renewals] == [status, status]
    assert all(i.amount_paid == 0 for i in renewals)
    assert charges(client, shop.customer.id) == paid_before  # nothing charged
    after = client.v1.subscriptions.retrieve(sub.id)
    assert after.status == "active" and after.pause_collection.behavior == behavior
    if behavior == "keep_as_draft":
        assert all(not i.auto_advance and i.automatically_finalizes_at is None for i in renewals)
        # The merchant may still collect a kept draft.
        client.v1.invoices.finalize_invoice(renewals[0].id)
        assert client.v1.invoices.pay(renewals[0].id).status == "paid"
    if behavior == "mark_uncollectible":
        assert all(i.status_details.uncollectible.reason == "subscription_paused"
                   for i in renewals)
        assert all(i.status_transitions.finalized_at == FEB_1 + HOUR or
                   i.status_transitions.finalized_at == MAR_1 + HOUR for i in renewals)
    if behavior == "void":
        assert all(i.status_transitions.voided_at is not None for i in renewals)


def test_resumes_at_ends_the_pause_and_later_renewals_are_charged(
        client: stripe.StripeClient) -> None:
    shop, sub = running(client)
    client.v1.subscriptions.update(sub.id, params={"pause_collection": {
        "behavior": "void", "resumes_at": FEB_1 + 10 * DAY}})
    shop.advance(FEB_1 + 2 * HOUR)
    paused = client.v1.subscriptions.retrieve(sub.id)
    assert paused.pause_collection.resumes_at == FEB_1 + 10 * DAY
    shop.advance(FEB_1 + 11 * DAY)
    resumed = client.v1.subscriptions.retrieve(sub.id)
    assert resumed.pause_collection is None
    events = [e for e in shop.events(FEB_1 + 10 * DAY)
              if e.type == "customer.subscription.updated"]
    assert events and events[0].created == FEB_1 + 10 * DAY
    assert events[0].data.previous_attributes["pause_collection"]["behavior"] == "void"
    shop.advance(MAR_1 + 2 * HOUR)
    feb, mar = invoices(client, sub.id)[1:]
    assert (feb.status, mar.status) == ("void", "paid")
    assert mar.amount_paid == 1200


def test_unsetting_the_pause_collects_the_next_renewal(client: stripe.StripeClient) -> None:
    shop, sub = running(client)
    client.v1.subscriptions.update(sub.id, params={
        "pause_collection": {"behavior": "mark_uncollectible"}})
    shop.advance(FEB_1 + 2 * HOUR)
    updated = client.v1.subscriptions.update(sub.id, params={"pause_collection": ""})
    assert updated.pause_collection is None
    shop.advance(MAR_1 + 2 * HOUR)
    feb, mar = invoices(client, sub.id)[1:]
    assert (feb.status, mar.status) == ("uncollectible", "paid")
    # An uncollectible invoice can still be paid.
    assert client.v1.invoices.pay(feb.id).status == "paid"


def test_an_invoice_from_before_the_pause_is_still_collected(
        client: stripe.StripeClient) -> None:
    """The February draft exists before the pause starts: it is finalized and charged."""
    shop, sub = running(client)
    shop.advance(FEB_1 + 10)  # the renewal draft exists, not yet finalized
    client.v1.subscriptions.update(sub.id, params={"pause_collection": {"behavior": "void"}})
    shop.advance(FEB_1 + 2 * HOUR)
    feb = invoices(client, sub.id)[1]
    assert feb.status == "paid"


def test_pause_collection_is_checked(client: stripe.StripeClient) -> None:
    shop, sub = running(client)
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.subscriptions.update(sub.id, params={"pause_collection": {
            "behavior": "void", "resumes_at": JAN_1 - DAY}})
    assert info.value.param == "pause_collection[resumes_at]"
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.subscriptions.update(sub.id, params={"pause_collection": {
            "behavior": "skip"}})  # type: ignore[typeddict-item]


def test_status_details_arrive_with_endive(emulator: Any, account: dict[str, str],
                                           client: stripe.StripeClient) -> None:
    shop, sub = running(client)
    shop.advance(FEB_1 + 10)
    draft = invoices(client, sub.id)[1]
    client.v1.invoices.update(draft.id, params={"auto_advance": False})
    client.v1.invoices.finalize_invoice(draft.id)
    marked = client.v1.invoices.mark_uncollectible(draft.id)
    assert marked.status_details.uncollectible.reason == "user_forgiven"
    old = stripe.StripeClient(account["secret_key"], stripe_version="2026-08-26.dahlia",
                              base_addresses={"api": emulator.base})
    assert "status_details" not in old.v1.invoices.retrieve(draft.id)
