"""Subscriptions with the official python SDK: creation modes, trials, anchors, prorations,
cancellation, listing. Amounts are checked against figures computed by hand."""

from __future__ import annotations

from typing import Any

import pytest
import stripe

from billing_helpers import DAY, FAILING_CARD, JAN_1, make_shop


def test_create_charges_the_first_invoice(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    price = shop.price(1000)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id, "quantity": 2}],
        "expand": ["latest_invoice"]})
    assert sub.status == "active"
    assert sub.created == JAN_1 and sub.start_date == JAN_1
    item = sub["items"].data[0]
    assert (item.current_period_start, item.current_period_end) == (JAN_1, JAN_1 + 31 * DAY)
    inv = sub.latest_invoice
    assert (inv.status, inv.amount_due, inv.amount_paid, inv.billing_reason) == (
        "paid", 2000, 2000, "subscription_create")
    assert inv.parent.subscription_details.subscription == sub.id
    [line] = inv.lines.data
    assert (line.amount, line.quantity, line.description) == (
        2000, 2, "2 × Gold (at $10.00 / month)")
    assert line.pricing.price_details.price == price.id
    assert (line.period.start, line.period.end) == (JAN_1, JAN_1 + 31 * DAY)
    types = [e.type for e in shop.events(JAN_1) if e.type.startswith(("customer.sub", "invoice"))]
    assert types == ["customer.subscription.created", "invoice.created", "invoice.finalized",
                     "invoice_payment.paid", "invoice.paid", "invoice.payment_succeeded",
                     "customer.subscription.updated"]
    [payment] = client.v1.invoice_payments.list(params={
        "invoice": inv.id, "expand": ["data.payment.payment_intent"]}).data
    assert payment.status == "paid" and payment.amount_paid == 2000 and payment.is_default
    assert payment.payment.payment_intent.status == "succeeded"


def test_default_incomplete_then_confirm(client: stripe.StripeClient) -> None:
    shop = make_shop(client, card=False)
    price = shop.price(1500)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}],
        "payment_behavior": "default_incomplete",
        "payment_settings": {"save_default_payment_method": "on_subscription"},
        "expand": ["latest_invoice.confirmation_secret", "latest_invoice.payments"]})
    assert sub.status == "incomplete"
    inv = sub.latest_invoice
    assert inv.status == "open" and inv.amount_due == 1500
    secret = inv.confirmation_secret.client_secret
    intent_id = inv.payments.data[0].payment.payment_intent
    assert secret.startswith(intent_id + "_secret_")
    client.v1.payment_intents.confirm(intent_id, params={"payment_method": "pm_card_visa"})
    assert client.v1.invoices.retrieve(inv.id).status == "paid"
    active = client.v1.subscriptions.retrieve(sub.id)
    assert active.status == "active"
    assert active.default_payment_method == client.v1.payment_intents.retrieve(
        intent_id).payment_method  # saved on_subscription: renewals charge this card
    # Unpaid for 23 hours an incomplete subscription expires; this one was paid, so no.
    shop.advance(JAN_1 + 2 * DAY)
    assert client.v1.subscriptions.retrieve(sub.id).status == "active"


def test_incomplete_subscription_expires(client: stripe.StripeClient) -> None:
    shop = make_shop(client, card=False)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(1500).id}],
        "payment_behavior": "default_incomplete"})
    shop.advance(JAN_1 + DAY)
    sub = client.v1.subscriptions.retrieve(sub.id, params={"expand": ["latest_invoice"]})
    assert sub.status == "incomplete_expired" and sub.latest_invoice.status == "void"


def test_declines_by_payment_behavior(client: stripe.StripeClient) -> None:
    shop = make_shop(client, card=False)
    shop.use_card(FAILING_CARD)
    price = shop.price(1000)
    with pytest.raises(stripe.CardError) as err:
        client.v1.subscriptions.create(params={
            "customer": shop.customer.id, "items": [{"price": price.id}],
            "payment_behavior": "error_if_incomplete"})
    assert err.value.code == "card_declined"
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}],
        "expand": ["latest_invoice"]})
    assert sub.status == "incomplete"
    assert (sub.latest_invoice.status, sub.latest_invoice.attempt_count) == ("open", 1)
    no_card = make_shop(client, card=False)
    with pytest.raises(stripe.InvalidRequestError, match="no attached payment source"):
        client.v1.subscriptions.create(params={
            "customer": no_card.customer.id, "items": [{"price": price.id}]})


def test_trial_then_first_charge(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(2500).id}],
        "trial_period_days": 14, "expand": ["latest_invoice"]})
    assert sub.status == "trialing"
    assert (sub.trial_start, sub.trial_end) == (JAN_1, JAN_1 + 14 * DAY)
    inv = sub.latest_invoice
    assert (inv.status, inv.amount_due) == ("paid", 0)
    assert inv.lines.data[0].description == "Trial period for Gold"
    shop.advance(JAN_1 + 14 * DAY + 2 * 3600)
    sub = client.v1.subscriptions.retrieve(sub.id, params={"expand": ["latest_invoice"]})
    assert sub.status == "active" and sub.billing_cycle_anchor == JAN_1 + 14 * DAY
    assert sub["items"].data[0].current_period_end == JAN_1 + 14 * DAY + 31 * DAY
    assert (sub.latest_invoice.amount_paid, sub.latest_invoice.status) == (2500, "paid")
    kinds = [e.type for e in shop.events(JAN_1 + 1)]
    assert "customer.subscription.trial_will_end" in kinds


def test_billing_cycle_anchor_prorates_first_period(client: stripe.StripeClient) -> None:
    shop = make_shop(client, start=JAN_1 + 14 * DAY)  # Jan 15
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(3100).id}],
        "billing_cycle_anchor": JAN_1 + 31 * DAY, "expand": ["latest_invoice"]})
    # Jan 15 → Feb 1 is 17 of January's 31 days: 3100 × 17/31 = 1700.
    assert sub.latest_invoice.amount_paid == 1700
    assert sub.latest_invoice.lines.data[0].parent.subscription_item_details.proration
    assert sub.latest_invoice.lines.data[0].description == (
        "Remaining time on Gold after 15 Jan 2026")
    assert sub["items"].data[0].current_period_end == JAN_1 + 31 * DAY
    none = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(3100).id}],
        "billing_cycle_anchor": JAN_1 + 31 * DAY, "proration_behavior": "none",
        "expand": ["latest_invoice"]})
    assert none.latest_invoice.amount_due == 0 and none.status == "active"


def test_upgrade_prorates_to_the_second(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    cheap, dear = shop.price(3000), shop.price(6200)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": cheap.id}]})
    shop.advance(JAN_1 + 10 * DAY)
    item = sub["items"].data[0]
    when = JAN_1 + 10 * DAY + 12345
    preview = client.v1.invoices.create_preview(params={
        "customer": shop.customer.id, "subscription": sub.id,
        "subscription_details": {"items": [{"id": item.id, "price": dear.id}],
                                 "proration_date": when}})
    # 1,802,055 of January's 2,678,400 seconds remain:
    # credit 3000 × that = 2018.43 → 2018; charge 6200 × that = 4171.42 → 4171.
    amounts = sorted(line.amount for line in preview.lines.data)
    assert amounts == [-2018, 4171, 6200]
    assert preview.amount_due == 6200 + 4171 - 2018
    updated = client.v1.subscriptions.update(sub.id, params={
        "items": [{"id": item.id, "price": dear.id}], "proration_date": when,
        "proration_behavior": "always_invoice", "expand": ["latest_invoice"]})
    inv = updated.latest_invoice
    assert (inv.billing_reason, inv.amount_paid, inv.status) == (
        "subscription_update", 4171 - 2018, "paid")
    assert sorted(line.description for line in inv.lines.data) == [
        "Remaining time on Gold after 11 Jan 2026",
        "Unused time on Gold after 11 Jan 2026"]
    assert updated["items"].data[0].price.id == dear.id


def test_quantity_change_prorations_land_on_renewal(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(3100).id}]})
    shop.advance(JAN_1 + 21 * DAY)
    client.v1.subscriptions.update(sub.id, params={
        "items": [{"id": sub["items"].data[0].id, "quantity": 3}]})
    pending = client.v1.invoice_items.list(params={"customer": shop.customer.id,
                                                   "pending": True}).data
    # 10 of 31 days left: -3100 × 10/31 = -1000 and 9300 × 10/31 = 3000.
    assert sorted(i.amount for i in pending) == [-1000, 3000]
    assert all(i.proration for i in pending)
    # The unit count shows only above one, as on Stripe's proration lines
    # (https://docs.stripe.com/billing/subscriptions/prorations: "Unused time on ..." /
    # "Remaining time on ..."; the date reads day, short month, year).
    assert sorted(i.description for i in pending) == [
        "Remaining time on 3 × Gold after 22 Jan 2026", "Unused time on Gold after 22 Jan 2026"]
    shop.advance(JAN_1 + 31 * DAY + 2 * 3600)
    [renewal] = client.v1.invoices.list(params={
        "subscription": sub.id, "status": "paid", "created": {"gt": JAN_1}}).data
    assert renewal.billing_reason == "subscription_cycle"
    assert renewal.amount_paid == 9300 + 3000 - 1000
    assert renewal.created == JAN_1 + 31 * DAY
    assert renewal.status_transitions.finalized_at == JAN_1 + 31 * DAY + 3600


def test_cancel_at_period_end_and_now(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    price = shop.price(3100)
    later = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}]})
    later = client.v1.subscriptions.update(later.id, params={"cancel_at_period_end": True})
    assert later.cancel_at == JAN_1 + 31 * DAY and later.status == "active"
    now = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}]})
    shop.advance(JAN_1 + 10 * DAY)
    canceled = client.v1.subscriptions.cancel(now.id, params={"prorate": True})
    assert (canceled.status, canceled.ended_at) == ("canceled", JAN_1 + 10 * DAY)
    credit = client.v1.invoice_items.list(params={"customer": shop.customer.id}).data[0]
    assert credit.amount == -2100  # 21 of 31 days unused
    shop.advance(JAN_1 + 31 * DAY + 1)
    later = client.v1.subscriptions.retrieve(later.id)
    assert later.status == "canceled" and later.ended_at == JAN_1 + 31 * DAY
    deleted = [e for e in shop.events() if e.type == "customer.subscription.deleted"]
    assert [e.data.object.id for e in deleted] == [now.id, later.id]


def test_list_filters_and_search(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    price = shop.price(500)
    active = client.v1.subscriptions.create(params={"customer": shop.customer.id,
                                                    "items": [{"price": price.id}]})
    gone = client.v1.subscriptions.create(params={"customer": shop.customer.id,
                                                  "items": [{"price": price.id}]})
    client.v1.subscriptions.cancel(gone.id)
    ids = lambda **p: [s.id for s in client.v1.subscriptions.list(params=p).data]  # noqa: E731
    assert ids() == [active.id]
    assert ids(status="all") == [gone.id, active.id]
    assert ids(status="canceled") == [gone.id]
    assert ids(status="ended") == [gone.id]
    assert ids(price=price.id, status="all") == [gone.id, active.id]
    found = client.v1.subscriptions.search(params={"query": "status:'canceled'"})
    assert [s.id for s in found.data] == [gone.id]


def test_discounts_forever_and_once(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    price = shop.price(2000)
    forever = client.v1.coupons.create(params={"percent_off": 25, "duration": "forever"})
    once = client.v1.coupons.create(params={"amount_off": 500, "currency": "usd",
                                            "duration": "once"})
    a = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}],
        "discounts": [{"coupon": forever.id}], "expand": ["latest_invoice"]})
    b = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}],
        "discounts": [{"coupon": once.id}], "expand": ["latest_invoice"]})
    assert a.latest_invoice.amount_paid == 1500
    assert a.latest_invoice.total_discount_amounts[0].amount == 500
    assert b.latest_invoice.amount_paid == 1500
    shop.advance(JAN_1 + 31 * DAY + 2 * 3600)
    a2 = client.v1.subscriptions.retrieve(a.id, params={"expand": ["latest_invoice"]})
    b2 = client.v1.subscriptions.retrieve(b.id, params={"expand": ["latest_invoice"]})
    assert a2.latest_invoice.amount_paid == 1500
    assert b2.latest_invoice.amount_paid == 2000


def test_add_invoice_items_and_subscription_items(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    setup = client.v1.prices.create(params={"product": shop.product.id, "unit_amount": 4900,
                                            "currency": "usd"})
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(3100).id}],
        "add_invoice_items": [{"price": setup.id}], "expand": ["latest_invoice"]})
    assert sub.latest_invoice.amount_paid == 3100 + 4900
    shop.advance(JAN_1 + 21 * DAY)
    extra = client.v1.subscription_items.create(params={
        "subscription": sub.id, "price": shop.price(6200).id, "quantity": 1,
        "proration_behavior": "always_invoice"})
    assert extra.current_period_end == JAN_1 + 31 * DAY
    sub = client.v1.subscriptions.retrieve(sub.id, params={"expand": ["latest_invoice"]})
    assert sub.latest_invoice.amount_paid == 2000  # 6200 × 10/31
    listed = client.v1.subscription_items.list(params={"subscription": sub.id}).data
    assert {i.id for i in listed} == {extra.id, sub["items"].data[0].id}
    client.v1.subscription_items.delete(extra.id, params={"proration_behavior": "none"})
    assert len(client.v1.subscriptions.retrieve(sub.id)["items"].data) == 1


@pytest.mark.parametrize("behavior", ["allow_incomplete", "default_incomplete",
                                      "error_if_incomplete"])
def test_trial_without_card_gets_a_pending_setup_intent(client: stripe.StripeClient,
                                                        behavior: str) -> None:
    """A subscription with nothing to pay now (here a trial) and no payment method gets a
    SetupIntent waiting for the customer, whatever the payment_behavior
    (https://docs.stripe.com/billing/subscriptions/deferred-payment). Completing it clears
    `pending_setup_intent`; with save_default_payment_method=on_subscription its card
    becomes the subscription's default and pays the first invoice after the trial."""
    shop = make_shop(client, card=False)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(900).id}],
        "trial_period_days": 30, "payment_behavior": behavior,
        "payment_settings": {"save_default_payment_method": "on_subscription"},
        "expand": ["pending_setup_intent"]})
    assert sub.status == "trialing"
    intent = sub.pending_setup_intent
    assert intent.customer == shop.customer.id and intent.usage == "off_session"
    assert intent.status == "requires_payment_method"
    assert intent.client_secret.startswith(intent.id + "_secret_")
    client.v1.setup_intents.confirm(intent.id, params={"payment_method": "pm_card_visa"})
    sub = client.v1.subscriptions.retrieve(sub.id)
    assert sub.pending_setup_intent is None
    assert sub.default_payment_method == client.v1.setup_intents.retrieve(
        intent.id).payment_method
    shop.advance(JAN_1 + 30 * DAY + 2 * 3600)
    sub = client.v1.subscriptions.retrieve(sub.id, params={"expand": ["latest_invoice"]})
    assert (sub.status, sub.latest_invoice.amount_paid) == ("active", 900)


def test_nothing_pending_when_the_card_is_ready(client: stripe.StripeClient) -> None:
    """A saved card that needs no authentication leaves nothing pending; one that must
    authenticate off session leaves a SetupIntent in requires_action; with something to
    pay now there is no SetupIntent at all (the invoice's PaymentIntent does the work)."""
    shop = make_shop(client)
    price = shop.price(900)
    trial = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}], "trial_period_days": 7})
    cardless = client.v1.customers.create(params={"test_clock": shop.clock.id})
    anchored = client.v1.subscriptions.create(params={  # free until the anchor: no card needed
        "customer": cardless.id, "items": [{"price": price.id}],
        "billing_cycle_anchor": JAN_1 + 10 * DAY, "proration_behavior": "none"})
    assert anchored.status == "active" and anchored.pending_setup_intent
    paying = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}]})
    assert trial.pending_setup_intent is None and paying.pending_setup_intent is None
    guarded_card = shop.use_card("pm_card_authenticationRequiredOnSetup")
    guarded = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}], "trial_period_days": 7,
        "expand": ["pending_setup_intent"]})
    assert guarded.pending_setup_intent.status == "requires_action"
    assert guarded.pending_setup_intent.payment_method == guarded_card.id


def test_send_invoice_subscription_goes_past_due(client: stripe.StripeClient) -> None:
    shop = make_shop(client, card=False)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(4000).id}],
        "collection_method": "send_invoice", "days_until_due": 14,
        "expand": ["latest_invoice"]})
    inv = sub.latest_invoice
    assert sub.status == "active"
    assert (inv.status, inv.amount_remaining, inv.due_date) == ("open", 4000, JAN_1 + 14 * DAY)
    shop.advance(JAN_1 + 15 * DAY)
    assert client.v1.subscriptions.retrieve(sub.id).status == "past_due"
    assert [e.created for e in shop.events() if e.type == "invoice.overdue"] == [
        JAN_1 + 14 * DAY]
    client.v1.invoices.pay(inv.id, params={"paid_out_of_band": True})
    assert client.v1.subscriptions.retrieve(sub.id).status == "active"


def test_renewal_needing_authentication(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(1200).id}]})
    shop.use_card("pm_card_authenticationRequired")
    shop.advance(JAN_1 + 31 * DAY + 2 * 3600)
    assert client.v1.subscriptions.retrieve(sub.id).status == "past_due"
    kinds = [e.type for e in shop.events(JAN_1 + 31 * DAY)]
    assert kinds.index("invoice.payment_failed") < kinds.index(
        "invoice.payment_action_required")


def test_automatic_tax_turned_on_by_update(client: stripe.StripeClient) -> None:
    """`automatic_tax[enabled]` on update taxes the next invoices (CA 7.25% of 20.00 = 145);
    without a customer location the update is refused and changes nothing."""
    shop = make_shop(client)
    price = shop.price(2000)
    sub = client.v1.subscriptions.create(params={"customer": shop.customer.id,
                                                 "items": [{"price": price.id}]})
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.subscriptions.update(sub.id, params={
            "automatic_tax": {"enabled": True}, "items": [{"id": sub["items"].data[0].id,
                                                           "quantity": 2}]})
    assert caught.value.code == "customer_tax_location_invalid"
    unchanged = client.v1.subscriptions.retrieve(sub.id)
    assert unchanged["items"].data[0].quantity == 1 and not unchanged.automatic_tax.enabled
    client.v1.customers.update(shop.customer.id, params={
        "address": {"country": "US", "state": "CA", "postal_code": "94103"}})
    updated = client.v1.subscriptions.update(sub.id, params={"automatic_tax": {"enabled": True}})
    assert updated.automatic_tax.enabled is True
    preview = client.v1.invoices.create_preview(params={"subscription": sub.id})
    assert (preview.total, [t.amount for t in preview.total_taxes]) == (2145, [145])
    shop.advance(JAN_1 + 31 * DAY + 2 * 3600)
    renewal = client.v1.subscriptions.retrieve(sub.id, params={"expand": ["latest_invoice"]})
    invoice = renewal.latest_invoice
    assert (invoice.billing_reason, invoice.status, invoice.amount_paid) == (
        "subscription_cycle", "paid", 2145)
    assert invoice.automatic_tax.enabled and invoice.lines.data[0].taxes[0].amount == 145


@pytest.mark.parametrize(("params", "param"), [
    ({"default_tax_rates": ["txr_x"]}, "default_tax_rates"),
    ({"application_fee_percent": 10}, "application_fee_percent"),
    ({"billing_mode": {"type": "flexible"}}, "billing_mode[type]"),
    ({"pending_invoice_item_interval": {"interval": "week"}}, "pending_invoice_item_interval"),
])
def test_unapplied_subscription_params_fail_loudly(client: stripe.StripeClient,
                                                   params: dict[str, object],
                                                   param: str) -> None:
    shop = make_shop(client)
    price = shop.price(1000)
    with pytest.raises(stripe.InvalidRequestError) as on_create:
        client.v1.subscriptions.create(params={  # type: ignore[arg-type]
            "customer": shop.customer.id, "items": [{"price": price.id}], **params})
    assert (on_create.value.code, on_create.value.param) == ("emulator_unsupported", param)
    assert client.v1.subscriptions.list(params={"status": "all"}).data == []
    sub = client.v1.subscriptions.create(params={"customer": shop.customer.id,
                                                 "items": [{"price": price.id}]})
    with pytest.raises(stripe.InvalidRequestError) as on_update:
        client.v1.subscriptions.update(sub.id, params=params)  # type: ignore[arg-type]
    # billing_mode is not an update parameter at all (Stripe's unknown-parameter 400).
    expected = "parameter_unknown" if "billing_mode" in params else "emulator_unsupported"
    assert on_update.value.code == expected


def test_clock_advances_at_most_two_intervals(client: stripe.StripeClient) -> None:
    """Stripe's limit per advance: two intervals of the shortest live subscription on the
    clock, or two years without one."""
    shop = make_shop(client)
    two_years = JAN_1 + (365 + 365) * DAY  # 2026 and 2027 have 365 days each

    def refused(when: int) -> bool:
        try:
            shop.advance(when)
        except stripe.InvalidRequestError as exc:
            assert exc.param == "frozen_time" and "two intervals" in str(exc)
            return True
        return False
    assert refused(two_years + 1)
    monthly = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(1000).id}]})
    assert refused(JAN_1 + 59 * DAY + 1)  # Jan 1 + two months = Mar 1 (day 59)
    weekly = client.v1.subscriptions.create(params={
        "customer": shop.customer.id,
        "items": [{"price": shop.price(300, interval="week").id}]})
    assert refused(JAN_1 + 14 * DAY + 1)
    assert not refused(JAN_1 + 14 * DAY)  # exactly two weeks is allowed
    client.v1.subscriptions.cancel(weekly.id)
    assert not refused(JAN_1 + 73 * DAY)  # the monthly one alone: Jan 15 + 2 months = Mar 15
    assert client.v1.subscriptions.retrieve(monthly.id).status == "active"


def test_free_first_invoice_needs_no_card_but_leaves_a_setup_intent(
        client: stripe.StripeClient) -> None:
    """A 100% coupon or a credit balance covering the first invoice means nothing is
    charged now: the subscription starts without a payment method and a SetupIntent waits
    for the customer (https://docs.stripe.com/billing/subscriptions/deferred-payment lists
    coupons and customer credit among the no-payment cases). A 50% coupon still needs one."""
    shop = make_shop(client, card=False)
    price = shop.price(2000)
    free = client.v1.coupons.create(params={"percent_off": 100, "duration": "once"})
    half = client.v1.coupons.create(params={"percent_off": 50, "duration": "once"})
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}],
        "discounts": [{"coupon": free.id}], "expand": ["latest_invoice", "pending_setup_intent"]})
    assert (sub.status, sub.latest_invoice.amount_due) == ("active", 0)
    assert sub.pending_setup_intent.status == "requires_payment_method"
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.subscriptions.create(params={
            "customer": shop.customer.id, "items": [{"price": price.id}],
            "discounts": [{"coupon": half.id}]})
    client.v1.customers.balance_transactions.create(shop.customer.id, params={
        "amount": -5000, "currency": "usd"})
    credited = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}],
        "expand": ["latest_invoice", "pending_setup_intent"]})
    assert (credited.status, credited.latest_invoice.amount_due) == ("active", 0)
    assert credited.pending_setup_intent.status == "requires_payment_method"


def test_update_refuses_pending_updates_and_saves_payment_settings(
        client: stripe.StripeClient) -> None:
    """`payment_behavior=pending_if_incomplete` (pending updates) is not emulated and says
    so rather than applying the change at once; `payment_settings` on update is kept."""
    shop = make_shop(client)
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": shop.price(1000).id}]})
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.subscriptions.update(sub.id, params={
            "items": [{"id": sub["items"].data[0].id, "quantity": 2}],
            "payment_behavior": "pending_if_incomplete"})
    assert (caught.value.code, caught.value.param) == ("emulator_unsupported",
                                                        "payment_behavior")
    assert client.v1.subscriptions.retrieve(sub.id)["items"].data[0].quantity == 1
    saved = client.v1.subscriptions.update(sub.id, params={
        "payment_settings": {"save_default_payment_method": "on_subscription"}})
    assert saved.payment_settings.save_default_payment_method == "on_subscription"


@pytest.mark.parametrize(("extra", "param"), [
    ({"payment_settings": {"payment_method_types": ["card", "us_bank_account"]}},
     "payment_settings[payment_method_types]"),
    ({"invoice_settings": {"account_tax_ids": ["txi_123"]}},
     "invoice_settings[account_tax_ids]")])
def test_settings_not_applied_are_refused(client: stripe.StripeClient, extra: dict[str, Any],
                                          param: str) -> None:
    """Settings the emulator would not apply fail loudly, on create and on update."""
    shop = make_shop(client)
    price = shop.price(1000)
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.subscriptions.create(params={  # type: ignore[misc]
            "customer": shop.customer.id, "items": [{"price": price.id}], **extra})
    assert (caught.value.code, caught.value.param) == ("emulator_unsupported", param)
    sub = client.v1.subscriptions.create(params={"customer": shop.customer.id,
                                                 "items": [{"price": price.id}]})
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.subscriptions.update(sub.id, params=extra)  # type: ignore[arg-type]
