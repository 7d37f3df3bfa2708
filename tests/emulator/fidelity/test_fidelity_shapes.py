"""Objects as Stripe renders them: values the emulator must not invent, hashes it must not
pad, and fields that follow from what the caller sent. Driven through the official SDKs
(python; node for the payment method hashes)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import stripe

from checkout_helpers import confirm
from conftest import RunningEmulator
from node_helpers import run_node_script
from stripebench.emulator import shape


def sdk(emulator: RunningEmulator, account: dict[str, str]) -> stripe.StripeClient:
    return stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base},
                               max_network_retries=0)


def paid_intent(client: stripe.StripeClient, pm: str = "pm_card_visa", **extra: Any) -> Any:
    return client.v1.payment_intents.create(params={
        "amount": 2500, "currency": "usd", "payment_method": pm, "confirm": True,
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}, **extra})


# ------------------------------------------------------------------ blank enum values

def test_a_fresh_dispute_is_not_submitted(emulator: RunningEmulator,
                                          account: dict[str, str]) -> None:
    """`evidence_details.submission_method` says whether evidence went in manually, through
    Smart Disputes, or not at all (https://docs.stripe.com/api/disputes/object): a new
    dispute is `not_submitted`; evidence submitted through the API makes it `manual`."""
    client = sdk(emulator, account)
    paid_intent(client, "pm_card_createDispute")
    dispute = client.v1.disputes.list().data[0]
    assert dispute.evidence_details.submission_method == "not_submitted"
    assert set(dispute.payment_method_details.to_dict()) == {"type", "card"}
    assert dispute.payment_method_details.card.network == "visa"  # the charge's network
    submitted = client.v1.disputes.update(dispute.id, params={
        "evidence": {"uncategorized_text": "shipped on time"}})
    assert submitted.evidence_details.submission_method == "manual"
    assert submitted.evidence_details.submission_count == 1


def test_schedule_blank_settings_are_stripes(emulator: RunningEmulator,
                                             account: dict[str, str]) -> None:
    """An unset issuer is the account itself (`type: self`, as invoices and subscriptions
    show it) and the billing mode is `classic`
    (https://docs.stripe.com/api/subscription_schedules/object)."""
    client = sdk(emulator, account)
    customer = client.v1.customers.create(params={
        "email": "sched@example.com", "payment_method": "pm_card_visa",
        "invoice_settings": {"default_payment_method": "pm_card_visa"}})
    price = client.v1.prices.create(params={
        "currency": "usd", "unit_amount": 900, "recurring": {"interval": "month"},
        "product_data": {"name": "Plan"}})
    schedule = client.v1.subscription_schedules.create(params={
        "customer": customer.id, "start_date": "now", "end_behavior": "release",
        "phases": [{"items": [{"price": price.id}],
                    "duration": {"interval": "month", "interval_count": 1}}]})
    assert schedule.default_settings.invoice_settings.issuer.type == "self"
    assert schedule.billing_mode.type == "classic"


def test_no_blank_object_holds_an_invented_enum_value() -> None:
    """Every object type the emulator can make starts without an enum value it did not
    choose: blank enum fields hold Stripe's documented value or null, never the first
    declared value."""
    allowed = {value for table in shape.BLANK_ENUM_VALUES.values() for value in table.values()}
    allowed |= set(shape.BLANK_ENUM_BY_HASH.values())
    chosen: list[str] = []

    def walk(value: Any, spec: dict[str, Any], where: str) -> None:
        if isinstance(value, dict) and spec.get("type") == "object" and "fields" in spec:
            for name, child in value.items():
                walk(child, spec["fields"].get(name, {}), f"{where}.{name}")
        elif isinstance(value, str) and spec.get("enum") and value not in allowed:
            chosen.append(f"{where}={value}")

    from stripebench.emulator import schema
    for object_type, spec in schema.load()["objects"].items():
        blank = shape.blank(object_type)
        blank.pop("object", None)
        walk(blank, spec, object_type)
    assert not chosen, chosen[:20]


# ------------------------------------------------------------------ payment method hashes

def test_only_the_used_payment_method_type_is_sent(emulator: RunningEmulator,
                                                   account: dict[str, str]) -> None:
    """A card charge's `payment_method_details` holds `card` and `type`
    (https://docs.stripe.com/api/charges/object#charge_object-payment_method_details); the
    options hashes of intents and sessions hold only the types in play
    (https://docs.stripe.com/api/payment_intents/object#payment_intent_object-payment_method_options)."""
    client = sdk(emulator, account)
    intent = paid_intent(client)
    assert set(intent.payment_method_options.to_dict()) == {"card"}
    charge = client.v1.charges.retrieve(intent.latest_charge)
    assert set(charge.payment_method_details.to_dict()) == {"card", "type"}
    method = client.v1.payment_methods.retrieve(intent.payment_method)
    kinds = shape.per_type_keys("payment_method", "")
    assert set(method.to_dict()) & kinds == {"card"}
    setup = client.v1.setup_intents.create()
    assert set(setup.payment_method_options.to_dict()) == {"card"}
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": "https://example.com/ok",
        "line_items": [{"price_data": {"currency": "usd", "unit_amount": 500,
                                       "product_data": {"name": "Pen"}}, "quantity": 1}]})
    assert session.payment_method_options.to_dict() == {}
    token = client.v1.test_helpers.confirmation_tokens.create(
        params={"payment_method": "pm_card_visa"})
    preview = token.payment_method_preview.to_dict()
    assert set(preview) & shape.per_type_keys("confirmation_token", "payment_method_preview") \
        == {"card"} and preview["type"] == "card"
    refund = client.v1.refunds.create(params={"payment_intent": intent.id})
    assert set(refund.destination_details.to_dict()) == {"card", "type"}


NODE_SCRIPT = r"""
const stripe = require(process.env.STRIPE_NODE)(process.env.KEY, {
  host: '127.0.0.1', port: Number(process.env.PORT), protocol: 'http'});
(async () => {
  const pi = await stripe.paymentIntents.create({amount: 1200, currency: 'usd',
    payment_method: 'pm_card_visa', confirm: true, statement_descriptor_suffix: 'NODE 7',
    automatic_payment_methods: {enabled: true, allow_redirects: 'never'}});
  const charge = await stripe.charges.retrieve(pi.latest_charge);
  console.log(JSON.stringify({options: Object.keys(pi.payment_method_options),
    details: Object.keys(charge.payment_method_details).sort(),
    descriptor: charge.calculated_statement_descriptor}));
})().catch((err) => { console.error(err.message); process.exit(1); });
"""


def test_node_sees_only_the_card_hash(emulator: RunningEmulator, account: dict[str, str],
                                      tmp_path: Path) -> None:
    out = run_node_script(NODE_SCRIPT, account["secret_key"], emulator.base, tmp_path)
    assert out == {"options": ["card"], "details": ["card", "type"],
                   "descriptor": "STRIPEBENC* NODE 7"}


# ------------------------------------------------------------------ discounts

def test_a_promotion_code_discount_names_only_the_code(emulator: RunningEmulator,
                                                       account: dict[str, str]) -> None:
    """A Checkout Session's `discounts[]` entry carries the coupon or the promotion code that
    was applied (https://docs.stripe.com/api/checkout/sessions/object#checkout_session_object-discounts):
    for a code, `coupon` is null. The coupon still counts the redemption."""
    client = sdk(emulator, account)
    coupon = client.v1.coupons.create(params={"percent_off": 20})
    promo = client.v1.promotion_codes.create(params={
        "promotion": {"type": "coupon", "coupon": coupon.id}})
    items = [{"price_data": {"currency": "usd", "unit_amount": 1000,
                             "product_data": {"name": "Lamp"}}, "quantity": 1}]
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": "https://example.com/ok", "line_items": items,
        "discounts": [{"promotion_code": promo.id}]})
    assert session.discounts[0].to_dict() == {"coupon": None, "promotion_code": promo.id}
    assert session.amount_total == 800
    confirm(emulator.base, session)
    done = client.v1.checkout.sessions.retrieve(session.id)
    assert done.discounts[0].coupon is None and done.discounts[0].promotion_code == promo.id
    assert client.v1.coupons.retrieve(coupon.id).times_redeemed == 1
    assert client.v1.promotion_codes.retrieve(promo.id).times_redeemed == 1
    plain = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": "https://example.com/ok", "line_items": items,
        "discounts": [{"coupon": coupon.id}]})
    assert plain.discounts[0].to_dict() == {"coupon": coupon.id, "promotion_code": None}


def test_an_old_subscription_discount_names_its_coupon(emulator: RunningEmulator,
                                                       account: dict[str, str]) -> None:
    """Before 2025-09-30.clover a Discount carries the `coupon` object and no `source`
    (https://docs.stripe.com/changelog/clover/2025-09-30/add-discount-source-property);
    before basil a subscription also has the singular `discount`
    (https://docs.stripe.com/changelog/basil/2025-03-31/deprecate-singular-coupon-promotion-code)."""
    client = sdk(emulator, account)
    coupon = client.v1.coupons.create(params={"percent_off": 15, "duration": "forever"})
    promo = client.v1.promotion_codes.create(params={
        "promotion": {"type": "coupon", "coupon": coupon.id}})
    customer = client.v1.customers.create(params={
        "payment_method": "pm_card_visa",
        "invoice_settings": {"default_payment_method": "pm_card_visa"}})
    price = client.v1.prices.create(params={
        "currency": "usd", "unit_amount": 900, "recurring": {"interval": "month"},
        "product_data": {"name": "Plan"}})
    sub = client.v1.subscriptions.create(params={
        "customer": customer.id, "items": [{"price": price.id}],
        "discounts": [{"promotion_code": promo.id}]})
    old = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base},
                              stripe_version="2024-06-20")
    discount = old.v1.subscriptions.retrieve(sub.id).discount.to_dict()
    assert discount["coupon"]["id"] == coupon.id and discount["promotion_code"] == promo.id
    assert "source" not in discount
    basil = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base},
                                stripe_version="2025-08-27.basil")
    listed = basil.v1.subscriptions.retrieve(sub.id, params={"expand": ["discounts"]})
    embedded = listed.discounts[0].to_dict()
    assert embedded["coupon"]["id"] == coupon.id and "source" not in embedded
    newest = client.v1.subscriptions.retrieve(sub.id, params={"expand": ["discounts"]})
    assert newest.discounts[0].source.coupon == coupon.id
    assert "coupon" not in newest.discounts[0].to_dict()


# ------------------------------------------------------------------ values from inputs

def test_statement_descriptor_suffix_reaches_the_charge(emulator: RunningEmulator,
                                                        account: dict[str, str]) -> None:
    """The suffix joins the account's prefix with `* ` into the descriptor the network sees
    (https://docs.stripe.com/get-started/account/statement-descriptors); the charge keeps
    the suffix it was made with, failed attempts too."""
    client = sdk(emulator, account)
    intent = paid_intent(client, statement_descriptor_suffix="ORDER 42")
    charge = client.v1.charges.retrieve(intent.latest_charge)
    assert charge.statement_descriptor_suffix == "ORDER 42"
    assert charge.calculated_statement_descriptor == "STRIPEBENC* ORDER 42"
    try:
        paid_intent(client, "pm_card_chargeDeclined", statement_descriptor_suffix="RETRY")
    except stripe.CardError as err:
        failed = client.v1.charges.retrieve(err.error.charge)  # type: ignore[union-attr]
        assert failed.statement_descriptor_suffix == "RETRY"
    else:
        raise AssertionError("the declined card was charged")
    plain = client.v1.charges.retrieve(paid_intent(client).latest_charge)
    assert plain.statement_descriptor_suffix is None
    assert plain.calculated_statement_descriptor == "STRIPEBENCH"


def test_a_session_url_lives_while_it_is_open(emulator: RunningEmulator,
                                              account: dict[str, str]) -> None:
    """`url` is only present while the session is active
    (https://docs.stripe.com/api/checkout/sessions/object#checkout_session_object-url)."""
    client = sdk(emulator, account)
    items = [{"price_data": {"currency": "usd", "unit_amount": 700,
                             "product_data": {"name": "Cup"}}, "quantity": 1}]
    made = [client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": "https://example.com/ok", "line_items": items})
        for _ in range(2)]
    assert all(s.url for s in made)
    confirm(emulator.base, made[0])
    assert client.v1.checkout.sessions.retrieve(made[0].id).url is None
    assert client.v1.checkout.sessions.expire(made[1].id).url is None


def test_invoice_fields_that_follow_from_the_account(emulator: RunningEmulator,
                                                     account: dict[str, str]) -> None:
    """`webhooks_delivered_at` is stamped at creation when no webhook is to be delivered
    (and left for the deliveries otherwise); `customer_tax_ids` lists the customer's tax ids
    (https://docs.stripe.com/api/invoices/object)."""
    client = sdk(emulator, account)
    customer = client.v1.customers.create(params={"email": "tax@example.com"})
    client.v1.customers.tax_ids.create(customer.id, params={"type": "eu_vat",
                                                            "value": "FR12345678901"})
    client.v1.invoice_items.create(params={"customer": customer.id, "amount": 1500,
                                           "currency": "usd"})
    draft = client.v1.invoices.create(params={"customer": customer.id,
                                              "pending_invoice_items_behavior": "include"})
    assert draft.webhooks_delivered_at == draft.created
    final = client.v1.invoices.finalize_invoice(draft.id)
    assert [t.to_dict() for t in final.customer_tax_ids or []] == [
        {"type": "eu_vat", "value": "FR12345678901"}]
    client.v1.webhook_endpoints.create(params={"url": "https://example.com/hook",
                                               "enabled_events": ["invoice.created"]})
    heard = client.v1.invoices.create(params={"customer": customer.id})
    assert heard.webhooks_delivered_at is None


def test_card_token_and_invoice_item_fields(emulator: RunningEmulator,
                                            account: dict[str, str]) -> None:
    """A card token's card carries `address_line2`, `networks` and `regulated_status`
    (https://docs.stripe.com/api/cards/object); an invoice item its `quantity_decimal`
    (https://docs.stripe.com/api/invoiceitems/object); a new subscription
    `cancellation_details` as a hash and `default_tax_rates` as a list
    (https://docs.stripe.com/api/subscriptions/object)."""
    r = httpx.post(f"{emulator.base}/v1/tokens", auth=(account["publishable_key"], ""), data={
        "card[number]": "4242424242424242", "card[exp_month]": "12", "card[exp_year]": "2034",
        "card[cvc]": "123", "card[address_line1]": "1 Main St",
        "card[address_line2]": "Apt 4"})
    assert r.status_code == 200, r.text
    card = r.json()["card"]
    assert card["address_line2"] == "Apt 4"
    assert card["networks"] == {"preferred": None}
    assert card["regulated_status"] == "unregulated"
    client = sdk(emulator, account)
    customer = client.v1.customers.create(params={
        "payment_method": "pm_card_visa",
        "invoice_settings": {"default_payment_method": "pm_card_visa"}})
    item = client.v1.invoice_items.create(params={"customer": customer.id, "amount": 300,
                                                  "currency": "usd"})
    assert item.quantity == 1 and item.quantity_decimal == Decimal("1")
    price = client.v1.prices.create(params={
        "currency": "usd", "unit_amount": 900, "recurring": {"interval": "month"},
        "product_data": {"name": "Plan"}})
    one_time = client.v1.prices.create(params={"currency": "usd", "unit_amount": 250,
                                               "product_data": {"name": "Setup"}})
    priced = client.v1.invoice_items.create(params={
        "customer": customer.id, "pricing": {"price": one_time.id}, "quantity": 2})
    assert priced.quantity_decimal == Decimal("2")
    updated = client.v1.invoice_items.update(priced.id, params={"quantity": 3})
    assert (updated.quantity, updated.quantity_decimal, updated.amount) == (3, Decimal(3), 750)
    sub = client.v1.subscriptions.create(params={"customer": customer.id,
                                                 "items": [{"price": price.id}]})
    details = sub.cancellation_details.to_dict()
    assert {"comment", "feedback", "reason"} <= set(details)
    assert set(details.values()) == {None}
    assert sub.default_tax_rates == []
