"""Invoices, invoice items, invoice payments (partial payments), previews and metered
usage with the official python SDK; amounts checked against hand-computed figures."""

from __future__ import annotations

import pytest
import stripe

from billing_helpers import DAY, JAN_1, make_shop


def test_send_invoice_lifecycle(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    one_time = client.v1.prices.create(params={"product": shop.product.id,
                                               "unit_amount": 1250, "currency": "usd"})
    inv = client.v1.invoices.create(params={
        "customer": shop.customer.id, "collection_method": "send_invoice",
        "days_until_due": 30})
    assert (inv.status, inv.created, inv.auto_advance) == ("draft", JAN_1, False)
    client.v1.invoice_items.create(params={"customer": shop.customer.id, "invoice": inv.id,
                                           "pricing": {"price": one_time.id}, "quantity": 3})
    client.v1.invoice_items.create(params={"customer": shop.customer.id, "invoice": inv.id,
                                           "amount": 500, "currency": "usd",
                                           "description": "Setup"})
    client.v1.invoice_items.create(params={
        "customer": shop.customer.id, "invoice": inv.id, "quantity": 2,
        "price_data": {"currency": "usd", "product": shop.product.id, "unit_amount": 199}})
    inv = client.v1.invoices.retrieve(inv.id)
    assert (inv.subtotal, inv.total, inv.amount_due) == (4648, 4648, 4648)
    page = client.v1.invoices.line_items.list(inv.id, params={"limit": 2})
    assert len(page.data) == 2 and page.has_more
    inv = client.v1.invoices.finalize_invoice(inv.id)
    assert inv.status == "open" and inv.number.endswith("-0001")
    assert inv.due_date == JAN_1 + 30 * DAY
    paid = client.v1.invoices.pay(inv.id, params={"paid_out_of_band": True})
    assert (paid.status, paid.amount_remaining) == ("paid", 0)
    with pytest.raises(stripe.InvalidRequestError, match="already paid"):
        client.v1.invoices.pay(inv.id)

    second = client.v1.invoices.create(params={
        "customer": shop.customer.id, "collection_method": "send_invoice",
        "days_until_due": 7})
    client.v1.invoice_items.create(params={"customer": shop.customer.id,
                                           "invoice": second.id, "amount": 700,
                                           "currency": "usd"})
    client.v1.invoices.finalize_invoice(second.id)
    assert client.v1.invoices.mark_uncollectible(second.id).status == "uncollectible"
    voided = client.v1.invoices.void_invoice(second.id)
    assert voided.status == "void" and voided.status_transitions.voided_at == JAN_1
    kinds = [e.type for e in shop.events() if e.type.startswith("invoice.")]
    assert kinds.count("invoice.finalized") == 2
    assert {"invoice.voided", "invoice.marked_uncollectible", "invoice.paid"} <= set(kinds)


def test_charge_automatically_with_pending_items(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    client.v1.invoice_items.create(params={"customer": shop.customer.id, "amount": 2500,
                                           "currency": "usd"})
    inv = client.v1.invoices.create(params={"customer": shop.customer.id,
                                            "pending_invoice_items_behavior": "include"})
    assert inv.amount_due == 2500
    paid = client.v1.invoices.pay(inv.id)  # finalizes, then charges the default card
    assert (paid.status, paid.amount_paid, paid.attempt_count) == ("paid", 2500, 1)
    empty = client.v1.invoices.create(params={"customer": shop.customer.id})
    assert empty.amount_due == 0 and empty.lines.data == []


def test_partial_payments_with_attach_payment(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    inv = client.v1.invoices.create(params={"customer": shop.customer.id,
                                            "collection_method": "send_invoice",
                                            "days_until_due": 10})
    client.v1.invoice_items.create(params={"customer": shop.customer.id, "invoice": inv.id,
                                           "amount": 5000, "currency": "usd"})
    client.v1.invoices.finalize_invoice(inv.id)
    first = client.v1.payment_intents.create(params={
        "amount": 2000, "currency": "usd", "customer": shop.customer.id,
        "payment_method": shop.card.id, "confirm": True, "off_session": True,
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})
    inv = client.v1.invoices.attach_payment(inv.id, params={"payment_intent": first.id})
    assert (inv.status, inv.amount_paid, inv.amount_remaining) == ("open", 2000, 3000)
    pending = client.v1.payment_intents.create(params={
        "amount": 3000, "currency": "usd", "customer": shop.customer.id,
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})
    client.v1.invoices.attach_payment(inv.id, params={"payment_intent": pending.id})
    assert client.v1.invoices.retrieve(inv.id).status == "open"
    client.v1.payment_intents.confirm(pending.id, params={"payment_method": "pm_card_visa"})
    inv = client.v1.invoices.retrieve(inv.id, params={"expand": ["payments"]})
    assert (inv.status, inv.amount_paid, inv.amount_remaining) == ("paid", 5000, 0)
    paid = client.v1.invoice_payments.list(params={"invoice": inv.id, "status": "paid"}).data
    assert sorted(p.amount_paid for p in paid) == [2000, 3000]
    by_intent = client.v1.invoice_payments.list(params={
        "payment": {"type": "payment_intent", "payment_intent": first.id},
        "expand": ["data.payment.payment_intent"]}).data
    assert [p.payment.payment_intent.amount for p in by_intent] == [2000]
    assert len(inv.payments.data) == 3  # the invoice's own (canceled) intent + two attached
    [own] = [p for p in inv.payments.data if p.is_default]
    assert (own.status, own.amount_paid) == ("canceled", None)
    own_intent = client.v1.payment_intents.retrieve(str(own.payment.payment_intent))
    assert (own_intent.status, own_intent.cancellation_reason) == ("canceled", "automatic")


def test_pay_after_a_partial_payment_collects_the_rest(client: stripe.StripeClient) -> None:
    """The invoice's own intent follows `amount_remaining`: after 2000 of 5000 arrives
    through an attached intent, paying the invoice charges 3000, not 5000."""
    shop = make_shop(client)
    inv = client.v1.invoices.create(params={"customer": shop.customer.id})
    client.v1.invoice_items.create(params={"customer": shop.customer.id, "invoice": inv.id,
                                           "amount": 5000, "currency": "usd"})
    inv = client.v1.invoices.finalize_invoice(inv.id, params={"auto_advance": False})
    part = client.v1.payment_intents.create(params={
        "amount": 2000, "currency": "usd", "customer": shop.customer.id,
        "payment_method": shop.card.id, "confirm": True, "off_session": True,
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})
    client.v1.invoices.attach_payment(inv.id, params={"payment_intent": part.id})
    [own] = client.v1.invoice_payments.list(params={"invoice": inv.id, "status": "open"}).data
    intent = client.v1.payment_intents.retrieve(str(own.payment.payment_intent))
    assert (own.is_default, own.amount_requested, intent.amount) == (True, 3000, 3000)
    paid = client.v1.invoices.pay(inv.id)
    assert (paid.status, paid.amount_paid, paid.amount_overpaid) == ("paid", 5000, 0)
    charged = sorted(c.amount for c in client.v1.charges.list(
        params={"customer": shop.customer.id}).data)
    assert charged == [2000, 3000]
    assert client.v1.customers.retrieve(shop.customer.id).balance == 0


def test_overpayment_goes_to_the_credit_balance(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    inv = client.v1.invoices.create(params={"customer": shop.customer.id,
                                            "collection_method": "send_invoice",
                                            "days_until_due": 10})
    client.v1.invoice_items.create(params={"customer": shop.customer.id, "invoice": inv.id,
                                           "amount": 1000, "currency": "usd"})
    client.v1.invoices.finalize_invoice(inv.id)
    big = client.v1.payment_intents.create(params={
        "amount": 1500, "currency": "usd", "customer": shop.customer.id,
        "payment_method": shop.card.id, "confirm": True, "off_session": True,
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})
    seen = len(shop.events())
    inv = client.v1.invoices.attach_payment(inv.id, params={"payment_intent": big.id})
    assert (inv.status, inv.amount_paid, inv.amount_remaining, inv.amount_overpaid) == (
        "paid", 1500, 0, 500)
    [txn] = client.v1.customers.balance_transactions.list(shop.customer.id).data
    assert (txn.type, txn.amount, txn.invoice, txn.ending_balance) == (
        "invoice_overpaid", -500, inv.id, -500)
    assert client.v1.customers.retrieve(shop.customer.id).balance == -500
    kinds = [e.type for e in shop.events()[seen:]]
    assert kinds.index("invoice.overpaid") < kinds.index("invoice.paid")
    paid_event = next(e for e in shop.events()[seen:] if e.type == "invoice_payment.paid")
    record = paid_event.data.object
    assert (record.object, record.invoice, record.amount_paid, record.status) == (
        "invoice_payment", inv.id, 1500, "paid")


def test_credit_balance_is_applied_at_finalization(client: stripe.StripeClient) -> None:
    """A negative invoice (canceling with prorations, invoiced now) becomes credit; the next
    invoice uses it at finalization; voiding that invoice gives the credit back."""
    shop = make_shop(client)
    price = shop.price(3100)
    sub = client.v1.subscriptions.create(params={"customer": shop.customer.id,
                                                 "items": [{"price": price.id}]})
    shop.advance(JAN_1 + 10 * DAY)
    canceled = client.v1.subscriptions.cancel(sub.id, params={
        "prorate": True, "invoice_now": True, "expand": ["latest_invoice"]})
    negative = canceled.latest_invoice  # 21 of 31 days unused: 3100 × 21/31 = 2100
    assert (negative.total, negative.amount_due, negative.status) == (-2100, 0, "paid")
    assert (negative.starting_balance, negative.ending_balance) == (0, -2100)
    assert client.v1.customers.retrieve(shop.customer.id).balance == -2100

    def invoice_of(amount: int) -> stripe.Invoice:
        inv = client.v1.invoices.create(params={"customer": shop.customer.id,
                                                "collection_method": "send_invoice",
                                                "days_until_due": 7})
        client.v1.invoice_items.create(params={"customer": shop.customer.id, "invoice": inv.id,
                                               "amount": amount, "currency": "usd"})
        assert client.v1.invoices.create_preview(params={
            "customer": shop.customer.id,
            "subscription_details": {"items": [{"price": price.id}]}}).starting_balance == \
            client.v1.customers.retrieve(shop.customer.id).balance
        return client.v1.invoices.finalize_invoice(inv.id)

    first = invoice_of(1500)  # fully covered by the credit: paid as it is finalized
    assert (first.amount_due, first.status, first.starting_balance, first.ending_balance) == (
        0, "paid", -2100, -600)
    second = invoice_of(1000)  # the last 600 of credit: 400 left to pay
    assert (second.amount_due, second.status, second.ending_balance) == (400, "open", 0)
    assert client.v1.customers.retrieve(shop.customer.id).balance == 0
    client.v1.invoices.void_invoice(second.id)
    assert client.v1.customers.retrieve(shop.customer.id).balance == -600
    kinds = [(t.type, t.amount) for t in reversed(
        client.v1.customers.balance_transactions.list(shop.customer.id).data)]
    assert kinds == [("applied_to_invoice", -2100), ("applied_to_invoice", 1500),
                     ("applied_to_invoice", 600), ("unapplied_from_invoice", -600)]


def test_paid_out_of_band_cancels_the_invoice_intent(client: stripe.StripeClient) -> None:
    """A charge_automatically invoice marked paid outside Stripe: no charge, its
    PaymentIntent and default InvoicePayment are canceled, only invoice.paid is sent."""
    shop = make_shop(client)
    client.v1.invoice_items.create(params={"customer": shop.customer.id, "amount": 4200,
                                           "currency": "usd"})
    inv = client.v1.invoices.create(params={"customer": shop.customer.id,
                                            "pending_invoice_items_behavior": "include"})
    inv = client.v1.invoices.finalize_invoice(inv.id, params={"auto_advance": False})
    [own] = client.v1.invoice_payments.list(params={"invoice": inv.id}).data
    assert (own.status, own.is_default, own.amount_requested) == ("open", True, 4200)
    seen = len(shop.events())
    paid = client.v1.invoices.pay(inv.id, params={"paid_out_of_band": True})
    assert (paid.status, paid.amount_paid, paid.amount_remaining,
            paid.amount_paid_off_stripe) == ("paid", 4200, 0, 4200)
    intent = client.v1.payment_intents.retrieve(str(own.payment.payment_intent))
    assert (intent.status, intent.cancellation_reason, intent.latest_charge) == (
        "canceled", "automatic", None)
    listed = client.v1.invoice_payments.list(params={"invoice": inv.id}).data
    assert [(p.id, p.status, p.amount_paid) for p in listed] == [(own.id, "canceled", None)]
    assert listed[0].status_transitions.canceled_at == paid.status_transitions.paid_at
    assert client.v1.invoice_payments.list(params={"invoice": inv.id,
                                                   "status": "paid"}).data == []
    kinds = [e.type for e in shop.events()[seen:]]
    assert kinds == ["payment_intent.canceled", "invoice.paid"]
    assert client.v1.charges.list(params={"customer": shop.customer.id}).data == []
    old = client.v1.invoices.retrieve(inv.id,
                                      options={"stripe_version": "2025-01-27.acacia"})
    assert (old["paid"], old["paid_out_of_band"], old["payment_intent"]) == (
        True, True, intent.id)


def test_preview_of_a_new_subscription(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    price = shop.price(1999)
    preview = client.v1.invoices.create_preview(params={
        "customer": shop.customer.id,
        "subscription_details": {"items": [{"price": price.id, "quantity": 3}]}})
    assert preview.amount_due == 5997 and preview.id.startswith("upcoming_in_")
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.invoices.retrieve(preview.id)


def test_preview_of_a_cycle_reset_matches_the_update(client: stripe.StripeClient) -> None:
    """Monthly → yearly (or `billing_cycle_anchor=now`) restarts the cycle: the preview is
    the invoice the update then makes, not a renewal with prorations."""
    shop = make_shop(client)
    monthly, yearly = shop.price(1000), shop.price(10000, interval="year")
    sub = client.v1.subscriptions.create(params={"customer": shop.customer.id,
                                                 "items": [{"price": monthly.id}]})
    shop.advance(JAN_1 + 10 * DAY)
    change = {"items": [{"id": sub["items"].data[0].id, "price": yearly.id}]}
    preview = client.v1.invoices.create_preview(params={
        "subscription": sub.id, "subscription_details": change})
    # 21 of January's 31 days unused: 1000 × 21/31 = 677.4 → a 677 credit; the year in full.
    shape = [(ln.amount, ln.period.start, ln.period.end) for ln in preview.lines.data]
    assert shape == [(10000, JAN_1 + 10 * DAY, JAN_1 + 375 * DAY),
                     (-677, JAN_1 + 10 * DAY, JAN_1 + 31 * DAY)]
    assert (preview.amount_due, preview.billing_reason) == (9323, "subscription_update")
    updated = client.v1.subscriptions.update(sub.id, params={**change,
                                                             "expand": ["latest_invoice"]})
    billed = updated.latest_invoice
    assert [(ln.amount, ln.period.start, ln.period.end) for ln in billed.lines.data] == shape
    assert billed.amount_due == preview.amount_due
    # Resetting the anchor 40 days into that year: a new year in full, and a credit for
    # the 325 unused days of the old one: 10000 × 325/365 = 8904.1 → 8904.
    shop.advance(JAN_1 + 50 * DAY)
    reset = {"billing_cycle_anchor": {"type": "now"}}
    preview = client.v1.invoices.create_preview(params={
        "subscription": sub.id, "subscription_details": reset})
    shape = [(ln.amount, ln.period.start, ln.period.end) for ln in preview.lines.data]
    assert shape == [(10000, JAN_1 + 50 * DAY, JAN_1 + 415 * DAY),
                     (-8904, JAN_1 + 50 * DAY, JAN_1 + 375 * DAY)]
    assert (preview.billing_reason, preview.amount_due) == ("subscription_update", 1096)
    updated = client.v1.subscriptions.update(sub.id, params={**reset,
                                                             "expand": ["latest_invoice"]})
    billed = updated.latest_invoice
    assert [(ln.amount, ln.period.start, ln.period.end) for ln in billed.lines.data] == shape
    assert (billed.amount_paid, billed.status) == (1096, "paid")
    with pytest.raises(stripe.InvalidRequestError) as both:
        client.v1.invoices.create_preview(params={"subscription": sub.id, "subscription_details": {
            **reset, "proration_date": JAN_1 + 50 * DAY}})
    assert both.value.param == "subscription_details[proration_date]"
    assert "You cannot specify `proration_date` when `billing_cycle_anchor=now`" in str(both.value)
    with pytest.raises(stripe.InvalidRequestError) as on_update:
        client.v1.subscriptions.update(sub.id, params={**reset, "proration_date": JAN_1})
    assert on_update.value.param == "proration_date"


@pytest.mark.parametrize(("params", "param"), [
    ({"subscription_details": {"cancel_at_period_end": True}},
     "subscription_details[cancel_at_period_end]"),
    ({"subscription_details": {"trial_end": JAN_1 + 20 * DAY}}, "subscription_details[trial_end]"),
    ({"discounts": [{"coupon": "SAVE"}]}, "discounts"),
    ({"automatic_tax": {"enabled": True}}, "automatic_tax[enabled]"),
])
def test_preview_refuses_what_it_would_ignore(client: stripe.StripeClient,
                                              params: dict[str, object], param: str) -> None:
    shop = make_shop(client)
    sub = client.v1.subscriptions.create(params={"customer": shop.customer.id,
                                                 "items": [{"price": shop.price(1000).id}]})
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.invoices.create_preview(params={"subscription": sub.id, **params})  # type: ignore[arg-type]
    assert (caught.value.code, caught.value.param) == ("emulator_unsupported", param)


def test_metered_usage_is_billed_in_arrears(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    meter = client.v1.billing.meters.create(params={
        "display_name": "API calls", "event_name": "api_call",
        "default_aggregation": {"formula": "sum"}})
    price = shop.price(5, recurring={"meter": meter.id, "usage_type": "metered"},
                       transform_quantity={"divide_by": 10, "round": "up"})
    sub = client.v1.subscriptions.create(params={
        "customer": shop.customer.id, "items": [{"price": price.id}],
        "expand": ["latest_invoice"]})
    assert sub.latest_invoice.amount_due == 0 and sub["items"].data[0].quantity is None
    for value, at in ((100, JAN_1 + DAY), (23, JAN_1 + 5 * DAY), (999, JAN_1 + 40 * DAY)):
        client.v1.billing.meter_events.create(params={
            "event_name": "api_call", "timestamp": at,
            "payload": {"stripe_customer_id": shop.customer.id, "value": str(value)}})
    shop.advance(JAN_1 + 31 * DAY + 2 * 3600)
    sub = client.v1.subscriptions.retrieve(sub.id, params={"expand": ["latest_invoice"]})
    [line] = sub.latest_invoice.lines.data
    # January's usage 100 + 23 = 123 calls → 13 blocks of ten (rounded up) × 5¢ = 65.
    assert (line.quantity, line.amount) == (123, 65)
    assert (line.period.start, line.period.end) == (JAN_1, JAN_1 + 31 * DAY)
    summaries = client.v1.billing.meters.event_summaries.list(meter.id, params={
        "customer": shop.customer.id, "start_time": JAN_1, "end_time": JAN_1 + 31 * DAY})
    assert summaries.data[0].aggregated_value == 123


def test_count_and_last_meters(client: stripe.StripeClient) -> None:
    shop = make_shop(client)
    for name, formula in (("logins", "count"), ("seats", "last")):
        client.v1.billing.meters.create(params={
            "display_name": name, "event_name": name,
            "default_aggregation": {"formula": formula}})
    for n, value in enumerate((4, 9, 6)):
        for name in ("logins", "seats"):
            client.v1.billing.meter_events.create(params={
                "event_name": name, "timestamp": JAN_1 + n * 60,
                "payload": {"stripe_customer_id": shop.customer.id, "value": str(value)}})
    meters = {m.event_name: m for m in client.v1.billing.meters.list().data}
    window = {"customer": shop.customer.id, "start_time": JAN_1, "end_time": JAN_1 + DAY}
    assert client.v1.billing.meters.event_summaries.list(
        meters["logins"].id, params=window).data[0].aggregated_value == 3
    assert client.v1.billing.meters.event_summaries.list(
        meters["seats"].id, params=window).data[0].aggregated_value == 6
    with pytest.raises(stripe.InvalidRequestError, match="No active meter"):
        client.v1.billing.meter_events.create(params={
            "event_name": "nope", "payload": {"stripe_customer_id": shop.customer.id}})
