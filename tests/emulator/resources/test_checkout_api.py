"""Checkout Sessions through the official python SDK: every param family, versions, totals.

Completion is driven through the page's own JSON actions (what its JavaScript posts), so
these tests stay fast; test_checkout_browser.py drives the same page in Chromium.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import stripe

from checkout_helpers import CARD_3DS, CARD_DECLINED, confirm, price, state
from stripebench.emulator import tax_table

SUCCESS = "https://shop.test/success?session_id={CHECKOUT_SESSION_ID}"


def make_client(emulator: Any, account: dict[str, str], version: str | None = None
                ) -> stripe.StripeClient:
    return stripe.StripeClient(account["secret_key"], stripe_version=version,
                               base_addresses={"api": emulator.base}, max_network_retries=0)


def payment_session(client: stripe.StripeClient, **extra: Any) -> stripe.checkout.Session:
    p = price(client, 2000, "T-shirt")
    params: dict[str, Any] = {"mode": "payment", "success_url": SUCCESS,
                              "line_items": [{"price": p.id, "quantity": 2}], **extra}
    return client.v1.checkout.sessions.create(params=params)  # type: ignore[arg-type]


def error_of(fn: Any) -> stripe.StripeError:
    with pytest.raises(stripe.StripeError) as info:
        fn()
    return info.value


# ------------------------------------------------------------------ create, retrieve, list

def test_hosted_payment_session_defaults(client: stripe.StripeClient) -> None:
    s = payment_session(client, client_reference_id="order_42", metadata={"order": "42"})
    assert s.id.startswith("cs_test_")
    assert s.object == "checkout.session"
    assert s.status == "open" and s.payment_status == "unpaid"
    assert s.mode == "payment" and s.ui_mode == "hosted_page"
    assert s.url and s.url.endswith(f"/c/pay/{s.id}") and "checkout.stripe.com" in s.url
    assert s.client_secret is None
    assert s.amount_subtotal == 4000 and s.amount_total == 4000 and s.currency == "usd"
    assert s.total_details.amount_discount == 0 and s.total_details.amount_tax == 0
    assert s.expires_at == s.created + 24 * 3600
    assert s.customer_creation == "if_required" and s.payment_intent is None
    assert s.client_reference_id == "order_42" and s.metadata["order"] == "42"
    assert s.submit_type == "auto" and s.payment_method_types == ["card"]
    again = client.v1.checkout.sessions.retrieve(s.id)
    assert again.id == s.id and again.amount_total == 4000


def test_line_items_inline_prices_expand_and_pagination(client: stripe.StripeClient) -> None:
    s = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": SUCCESS,
        "line_items": [
            {"price_data": {"currency": "eur", "unit_amount": 1500,
                            "product_data": {"name": "Mug", "description": "Stoneware",
                                             "images": ["https://img.test/mug.png"]}},
             "quantity": 3},
            {"price_data": {"currency": "eur", "unit_amount_decimal": "250",
                            "product_data": {"name": "Coaster"}}, "quantity": 4}]})
    assert s.amount_total == 1500 * 3 + 250 * 4 and s.currency == "eur"
    got = client.v1.checkout.sessions.retrieve(
        s.id, params={"expand": ["line_items.data.price.product"]})
    first = got.line_items.data[0]
    assert first.object == "item" and first.id.startswith("li_")
    assert first.description == "Mug" and first.quantity == 3 and first.amount_total == 4500
    assert first.price.product.name == "Mug" and first.price.product.description == "Stoneware"
    assert first.price.active is False  # inline prices are archived
    page1 = client.v1.checkout.sessions.line_items.list(s.id, params={"limit": 1})
    assert len(page1.data) == 1 and page1.has_more
    page2 = client.v1.checkout.sessions.line_items.list(
        s.id, params={"limit": 1, "starting_after": page1.data[0].id})
    assert page2.data[0].description == "Coaster" and not page2.has_more
    # Without expand the session does not carry line_items at all.
    assert "line_items" not in client.v1.checkout.sessions.retrieve(s.id)


def test_retrieve_missing_session(client: stripe.StripeClient) -> None:
    err = error_of(lambda: client.v1.checkout.sessions.retrieve("cs_test_nope"))
    assert err.http_status == 404 and err.code == "resource_missing"
    assert "No such checkout.session" in str(err.user_message)


def test_list_filters_and_expire(emulator: Any, client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={"email": "c@example.com"})
    a = payment_session(client, customer=customer.id)
    b = payment_session(client)
    listed = client.v1.checkout.sessions.list(params={"customer": customer.id})
    assert [s.id for s in listed.data] == [a.id]
    expired = client.v1.checkout.sessions.expire(b.id)
    assert expired.status == "expired"
    assert "This checkout session has expired" in httpx.get(b.url).text
    closed = httpx.post(b.url + "/confirm", json={"email": "x@example.com"}).json()
    assert not closed["complete"] and closed["errors"]
    assert [s.id for s in client.v1.checkout.sessions.list(
        params={"status": "expired"}).data] == [b.id]
    err = error_of(lambda: client.v1.checkout.sessions.expire(b.id))
    assert "status of `open`" in str(err.user_message)
    events = client.v1.events.list(params={"type": "checkout.session.expired"})
    assert events.data[0].data.object["id"] == b.id
    done = confirm(emulator.base, a)
    assert done["complete"], done
    paid = client.v1.checkout.sessions.retrieve(a.id)
    by_pi = client.v1.checkout.sessions.list(params={"payment_intent": paid.payment_intent})
    assert [s.id for s in by_pi.data] == [a.id]


def test_expires_at_bounds_and_lazy_expiry(emulator: Any, account: dict[str, str],
                                           client: stripe.StripeClient) -> None:
    now = payment_session(client).created
    err = error_of(lambda: payment_session(client, expires_at=now + 60))
    assert err.param == "expires_at"  # type: ignore[attr-defined]
    err = error_of(lambda: payment_session(client, expires_at=now + 25 * 3600))
    assert err.param == "expires_at"  # type: ignore[attr-defined]
    s = payment_session(client, expires_at=now + 3600,
                        after_expiration={"recovery": {"enabled": True,
                                                       "allow_promotion_codes": True}})
    httpx.post(f"{emulator.base}/_emulator/accounts/{account['id']}/clock",
               json={"advance": 7200}).raise_for_status()
    late = client.v1.checkout.sessions.retrieve(s.id)
    assert late.status == "expired"
    assert late.after_expiration.recovery.url.endswith(f"/c/pay/{s.id}/recover")
    recovered = httpx.get(late.after_expiration.recovery.url, follow_redirects=False)
    assert recovered.status_code == 303
    fresh_id = recovered.headers["location"].rsplit("/", 1)[-1]
    fresh = client.v1.checkout.sessions.retrieve(fresh_id)
    assert fresh.status == "open" and fresh.recovered_from == s.id
    assert fresh.allow_promotion_codes is True and fresh.amount_total == 4000


# ------------------------------------------------------------------ validation

@pytest.mark.parametrize("params,param,fragment", [
    ({"success_url": SUCCESS}, "mode", "Missing required param: mode"),
    ({"mode": "payment", "success_url": SUCCESS}, "line_items", "line_items"),
    ({"mode": "setup", "success_url": SUCCESS, "currency": "usd", "submit_type": "pay"},
     "submit_type", "submit_type"),
    ({"mode": "payment", "ui_mode": "embedded_page", "success_url": SUCCESS},
     "success_url", "return_url"),
    ({"mode": "payment", "ui_mode": "embedded_page"}, "return_url", "return_url"),
    ({"mode": "payment", "return_url": "https://x.test"}, "return_url", "ui_mode"),
    ({"mode": "payment", "success_url": SUCCESS, "ui_mode": "embedded"}, "ui_mode",
     "must be one of"),
    ({"mode": "payment", "success_url": SUCCESS, "payment_method_types": ["card"]},
     "payment_method_types", "unknown parameter"),
    ({"mode": "payment", "success_url": SUCCESS, "bogus": "1"}, "bogus", "unknown parameter"),
    ({"mode": "subscription", "success_url": SUCCESS, "customer_creation": "always"},
     "customer_creation", "customer_creation"),
    ({"mode": "payment", "success_url": SUCCESS, "subscription_data": {"trial_period_days": 3}},
     "subscription_data", "subscription_data"),
])
def test_param_rules(client: stripe.StripeClient, params: dict[str, Any], param: str,
                     fragment: str) -> None:
    err = error_of(lambda: client.v1.checkout.sessions.create(params=params))  # type: ignore
    assert err.http_status == 400
    assert err.param == param, err  # type: ignore[attr-defined]
    assert fragment.lower() in str(err.user_message).lower()


def test_item_rules(client: stripe.StripeClient) -> None:
    one_time = price(client, 500)
    monthly = price(client, 900, recurring={"interval": "month"})
    cases = [
        ({"mode": "payment", "line_items": [{"price": monthly.id, "quantity": 1}]},
         "line_items[0][price]"),
        ({"mode": "subscription", "line_items": [{"price": one_time.id, "quantity": 1}]},
         "line_items"),
        ({"mode": "payment", "line_items": [{"price": one_time.id, "quantity": 7,
                                             "adjustable_quantity": {"enabled": True,
                                                                     "maximum": 5}}]},
         "line_items[0][quantity]"),
        ({"mode": "payment", "line_items": [{"price": one_time.id}]}, "line_items[0][quantity]"),
        ({"mode": "payment", "line_items": [{"price": "price_missing", "quantity": 1}]},
         "line_items[0][price]"),
        ({"mode": "payment", "customer": "cus_x", "customer_email": "a@b.co",
          "line_items": [{"price": one_time.id, "quantity": 1}]}, "customer_email"),
        ({"mode": "payment", "allow_promotion_codes": True, "discounts": [{"coupon": "c"}],
          "line_items": [{"price": one_time.id, "quantity": 1}]}, "discounts"),
        ({"mode": "payment", "line_items": [{"price": one_time.id, "quantity": 1}],
          "custom_fields": [{"key": "k", "type": "dropdown",
                             "label": {"type": "custom", "custom": "K"},
                             "dropdown": {"options": [{"label": "A", "value": "a"}],
                                          "default_value": "b"}}]},
         "custom_fields[0][dropdown][default_value]"),
        ({"mode": "payment", "line_items": [{"price": one_time.id, "quantity": 1}],
          "custom_fields": [{"key": f"k{n}", "type": "text",
                             "label": {"type": "custom", "custom": "K"}} for n in range(4)]},
         "custom_fields"),
    ]
    for params, param in cases:
        params = {"success_url": SUCCESS, **params}
        err = error_of(lambda p=params: client.v1.checkout.sessions.create(params=p))
        assert err.param == param, (params, err)  # type: ignore[attr-defined]


# ------------------------------------------------------------------ versions

def test_ui_mode_names_follow_the_api_version(emulator: Any, account: dict[str, str]) -> None:
    new = make_client(emulator, account)
    old = make_client(emulator, account, "2025-01-27.acacia")
    p = price(new, 1000)
    item = [{"price": p.id, "quantity": 1}]
    embedded = new.v1.checkout.sessions.create(params={
        "mode": "payment", "ui_mode": "embedded_page", "line_items": item,
        "return_url": "https://shop.test/return?session_id={CHECKOUT_SESSION_ID}"})
    assert embedded.ui_mode == "embedded_page" and embedded.url is None
    assert embedded.client_secret.startswith(embedded.id + "_secret_")
    raw = old.raw_request("post", "/v1/checkout/sessions", mode="payment", ui_mode="embedded",
                          line_items=item, return_url="https://shop.test/r",
                          payment_method_types=["card"])
    old_session = old.deserialize(raw, api_mode="V1")
    assert old_session.ui_mode == "embedded"
    assert old_session.payment_method_types == ["card"]
    assert "allowed_payment_method_types" not in old_session
    assert new.v1.checkout.sessions.retrieve(old_session.id).ui_mode == "embedded_page"
    assert old.raw_request("get", f"/v1/checkout/sessions/{embedded.id}") is not None
    again = old.deserialize(old.raw_request("get", f"/v1/checkout/sessions/{embedded.id}"),
                            api_mode="V1")
    assert again.ui_mode == "embedded"
    err = error_of(lambda: old.raw_request("post", "/v1/checkout/sessions", mode="payment",
                                           ui_mode="embedded_page", line_items=item,
                                           return_url="https://shop.test/r"))
    assert err.param == "ui_mode"  # type: ignore[attr-defined]


def test_shipping_details_moved_for_basil(emulator: Any, account: dict[str, str]) -> None:
    new = make_client(emulator, account)
    s = payment_session(new, shipping_address_collection={"allowed_countries": ["US"]})
    shipping = {"name": "Jenny Rosen", "line1": "1 Main St", "city": "Boulder", "state": "CO",
                "postal_code": "80301", "country": "US"}
    assert confirm(emulator.base, s, shipping=shipping)["complete"]
    current = new.v1.checkout.sessions.retrieve(s.id)
    assert current.collected_information.shipping_details.address.city == "Boulder"
    assert "shipping_details" not in current
    old = make_client(emulator, account, "2025-01-27.acacia")
    legacy = old.deserialize(old.raw_request("get", f"/v1/checkout/sessions/{s.id}"),
                             api_mode="V1")
    assert legacy.shipping_details.name == "Jenny Rosen"
    assert "collected_information" not in legacy


# ------------------------------------------------------------------ totals

def test_discounts_shipping_and_tax_totals(emulator: Any, client: stripe.StripeClient) -> None:
    coupon = client.v1.coupons.create(params={"percent_off": 25, "duration": "once"})
    rate = client.v1.shipping_rates.create(params={
        "display_name": "Ground", "type": "fixed_amount",
        "fixed_amount": {"amount": 800, "currency": "usd"}})
    s = payment_session(client, discounts=[{"coupon": coupon.id}],
                        automatic_tax={"enabled": True},
                        shipping_address_collection={"allowed_countries": ["US", "DE"]},
                        shipping_options=[{"shipping_rate": rate.id}, {"shipping_rate_data": {
                            "display_name": "Express", "type": "fixed_amount",
                            "fixed_amount": {"amount": 2500, "currency": "usd"}}}])
    assert s.total_details.amount_discount == 1000
    assert s.total_details.amount_shipping == 800 and s.shipping_cost.shipping_rate == rate.id
    assert s.amount_total == 4000 - 1000 + 800
    assert s.automatic_tax.enabled and s.automatic_tax.status == "requires_location_inputs"
    express = s.shipping_options[1].shipping_rate
    state(emulator.base, s, action="shipping_rate", rate=express)
    shipping = {"name": "Max", "line1": "Hauptstr. 1", "city": "Berlin",
                "postal_code": "10115", "country": "DE"}
    assert confirm(emulator.base, s, shipping=shipping)["complete"]
    done = client.v1.checkout.sessions.retrieve(s.id, params={"expand": ["payment_intent"]})
    tax = tax_table.tax_on(3000, 19.0, False) + tax_table.tax_on(2500, 19.0, False)
    assert done.total_details.amount_tax == tax
    assert done.amount_total == 3000 + 2500 + tax == done.payment_intent.amount
    assert done.automatic_tax.status == "complete"
    assert done.discounts[0].coupon == coupon.id
    assert done.shipping_cost.shipping_rate == express
    assert done.total_details.breakdown is None  # only when expanded
    expanded = client.v1.checkout.sessions.retrieve(
        s.id, params={"expand": ["total_details.breakdown"]}).total_details.breakdown
    assert [d.amount for d in expanded.discounts] == [1000]
    assert expanded.discounts[0].discount.id.startswith("di_")
    assert expanded.discounts[0].discount.source.coupon == coupon.id
    assert sum(t.amount for t in expanded.taxes) == tax
    assert expanded.taxes[0].rate.percentage == 19.0 and expanded.taxes[0].rate.country == "DE"
    again = client.v1.checkout.sessions.retrieve(
        s.id, params={"expand": ["total_details.breakdown"]}).total_details.breakdown
    assert again.taxes[0].rate.id == expanded.taxes[0].rate.id


def test_tax_table_is_documented_and_deterministic() -> None:
    assert tax_table.rule_for("US", "CA").percentage == 7.25  # type: ignore[union-attr]
    assert tax_table.rule_for("US", "OR") is None
    assert tax_table.rule_for("FR").tax_type == "vat"  # type: ignore[union-attr]
    assert tax_table.rule_for("ZZ") is None
    assert tax_table.tax_on(1000, 20.0, False) == 200
    assert tax_table.tax_on(1200, 20.0, True) == 200
    assert tax_table.tax_on(1005, 7.25, False) == 73


def test_currency_options_and_promotion_code(emulator: Any, client: stripe.StripeClient) -> None:
    p = client.v1.prices.create(params={"currency": "usd", "unit_amount": 1000,
                                        "product_data": {"name": "Cap"},
                                        "currency_options": {"eur": {"unit_amount": 900}}})
    coupon = client.v1.coupons.create(params={"amount_off": 200, "currency": "eur",
                                              "duration": "once", "name": "Two off"})
    promo = client.v1.promotion_codes.create(params={
        "promotion": {"type": "coupon", "coupon": coupon.id}, "code": "TWO",
        "restrictions": {"minimum_amount": 5000, "minimum_amount_currency": "eur"}})
    s = client.v1.checkout.sessions.create(params={
        "mode": "payment", "currency": "eur", "success_url": SUCCESS,
        "allow_promotion_codes": True,
        "line_items": [{"price": p.id, "quantity": 2,
                        "adjustable_quantity": {"enabled": True, "maximum": 10}}]})
    assert s.amount_total == 1800 and s.currency == "eur"
    refused = state(emulator.base, s, action="promotion_code", code="two")
    assert "50,00" in refused["errors"]["promotion_code"] or "50.00" in \
        refused["errors"]["promotion_code"]
    item = client.v1.checkout.sessions.line_items.list(s.id).data[0].id
    state(emulator.base, s, action="quantity", item=item, quantity=6)
    assert state(emulator.base, s, action="promotion_code", code="two")["errors"] == {}
    bad = state(emulator.base, s, action="promotion_code", code="NOPE")
    assert bad["errors"]["promotion_code"] == "This code is invalid."
    assert confirm(emulator.base, s)["complete"]
    done = client.v1.checkout.sessions.retrieve(
        s.id, params={"expand": ["discounts.promotion_code", "line_items"]})
    assert done.line_items.data[0].quantity == 6
    assert done.discounts[0].promotion_code.id == promo.id
    assert done.amount_total == 6 * 900 - 200
    assert client.v1.promotion_codes.retrieve(promo.id).times_redeemed == 1


# ------------------------------------------------------------------ completion by mode

def test_payment_completion_creates_intent_customer_and_event(
        emulator: Any, client: stripe.StripeClient) -> None:
    s = payment_session(client, customer_creation="always",
                        payment_intent_data={"metadata": {"order": "7"},
                                             "setup_future_usage": "off_session"},
                        custom_fields=[{"key": "engraving", "type": "text",
                                        "label": {"type": "custom", "custom": "Engraving"},
                                        "text": {"maximum_length": 5}}],
                        consent_collection={"terms_of_service": "required",
                                            "promotions": "auto"},
                        phone_number_collection={"enabled": True})
    missing = confirm(emulator.base, s, custom_fields={"engraving": "too long text"})
    assert not missing["complete"]
    assert set(missing["errors"]) >= {"custom-engraving", "terms_of_service", "phone"}
    done = confirm(emulator.base, s, custom_fields={"engraving": "Hi!"}, phone="+15555550100",
                   consent={"terms_of_service": True, "promotions": True})
    assert done["complete"] and done["redirect"] == SUCCESS.replace("{CHECKOUT_SESSION_ID}",
                                                                     s.id)
    got = client.v1.checkout.sessions.retrieve(
        s.id, params={"expand": ["payment_intent", "customer"]})
    assert got.status == "complete" and got.payment_status == "paid"
    assert got.payment_intent.status == "succeeded" and got.payment_intent.amount == 4000
    assert got.payment_intent.metadata["order"] == "7"
    assert got.payment_intent.setup_future_usage == "off_session"
    assert got.customer.email == "jenny@example.com"
    assert got.customer_details.email == "jenny@example.com"
    assert got.customer_details.phone == "+15555550100"
    assert got.custom_fields[0].text.value == "Hi!"
    assert got.consent.terms_of_service == "accepted" and got.consent.promotions == "opt_in"
    event = client.v1.events.list(params={"type": "checkout.session.completed"}).data[0]
    assert event.data.object["id"] == s.id


def test_declined_card_keeps_session_open(emulator: Any, client: stripe.StripeClient) -> None:
    s = payment_session(client)
    result = confirm(emulator.base, s, card={"number": CARD_DECLINED, "expiry": "12/34",
                                             "cvc": "123", "name": "J"})
    assert not result["complete"] and "declined" in result["errors"]["card-number"]
    got = client.v1.checkout.sessions.retrieve(s.id, params={"expand": ["payment_intent"]})
    assert got.status == "open" and got.payment_status == "unpaid"
    assert got.payment_intent.status == "requires_payment_method"
    retry = confirm(emulator.base, s)
    assert retry["complete"]
    assert client.v1.checkout.sessions.retrieve(s.id).payment_intent == got.payment_intent.id


@pytest.mark.parametrize("card,field,message", [
    ({"number": "4242 4242 4242 4241"}, "card-number", "Your card number is invalid."),
    ({"number": "4242"}, "card-number", "Your card number is incomplete."),
    ({"expiry": "12 / 25"}, "card-expiry", "Your card's expiration year is in the past."),
    ({"expiry": "13 / 34"}, "card-expiry", "Your card's expiration date is invalid."),
    ({"expiry": "12"}, "card-expiry", "Your card's expiration date is incomplete."),
    ({"cvc": "1"}, "card-cvc", "Your card's security code is incomplete."),
])
def test_invalid_card_input_is_an_inline_error(emulator: Any, client: stripe.StripeClient,
                                               card: dict[str, str], field: str,
                                               message: str) -> None:
    s = payment_session(client)
    good = {"number": "4242 4242 4242 4242", "expiry": "12 / 34", "cvc": "123", "name": "J"}
    result = confirm(emulator.base, s, card={**good, **card}, email="not-an-email")
    assert result["errors"] == {field: message, "email": "Your email address is invalid."}
    assert client.v1.checkout.sessions.retrieve(s.id).status == "open"


def test_phone_number_checked_and_stored_as_e164(emulator: Any,
                                                 client: stripe.StripeClient) -> None:
    s = payment_session(client, phone_number_collection={"enabled": True}, locale="fr")
    bad = confirm(emulator.base, s, phone="call me")
    assert bad["errors"] == {"phone": "Votre numéro de téléphone n'est pas valide."}
    assert confirm(emulator.base, s, phone="+33 (1) 23-45-67-89")["complete"]
    assert client.v1.checkout.sessions.retrieve(s.id).customer_details.phone == "+33123456789"


def test_expiry_dated_by_the_simulated_clock(emulator: Any) -> None:
    """On 2026-06-15, 05/26 is in the past and 06/26 is not; messages follow the locale."""
    june = emulator.new_account(time=1781481600)  # 2026-06-15T00:00:00Z
    client = make_client(emulator, june)
    card = {"number": "4242 4242 4242 4242", "expiry": "05 / 26", "cvc": "123", "name": "J"}
    s = payment_session(client)
    assert confirm(emulator.base, s, card=card)["errors"] == {
        "card-expiry": "Your card's expiration date is in the past."}
    de = payment_session(client, locale="de")
    assert confirm(emulator.base, de, card={**card, "expiry": "13 / 26"})["errors"] == {
        "card-expiry": "Das Ablaufdatum Ihrer Karte ist ungültig."}
    assert confirm(emulator.base, s, card={**card, "expiry": "06 / 26"})["complete"]


def test_subscription_trial_and_one_time_items(emulator: Any,
                                               client: stripe.StripeClient) -> None:
    monthly = price(client, 1500, "Pro", recurring={"interval": "month"})
    setup_fee = price(client, 500, "Setup fee")
    s = client.v1.checkout.sessions.create(params={
        "mode": "subscription", "success_url": SUCCESS,
        "line_items": [{"price": monthly.id, "quantity": 1}],
        "subscription_data": {"trial_period_days": 14, "metadata": {"plan": "pro"}}})
    assert s.amount_total == 0 and s.payment_status == "unpaid"
    assert confirm(emulator.base, s)["complete"]
    got = client.v1.checkout.sessions.retrieve(s.id, params={"expand": ["subscription"]})
    assert got.payment_status == "no_payment_required"
    assert got.subscription.status == "trialing"
    assert got.subscription.metadata["plan"] == "pro"
    assert got.subscription.trial_end == got.subscription.trial_start + 14 * 86400
    assert got.customer and got.invoice
    paid = client.v1.checkout.sessions.create(params={
        "mode": "subscription", "success_url": SUCCESS,
        "line_items": [{"price": monthly.id, "quantity": 2},
                       {"price": setup_fee.id, "quantity": 1}]})
    assert paid.amount_total == 3500
    assert confirm(emulator.base, paid)["complete"]
    done = client.v1.checkout.sessions.retrieve(paid.id, params={"expand": ["subscription",
                                                                            "invoice"]})
    assert done.payment_status == "paid" and done.subscription.status == "active"
    assert done.invoice.amount_paid == 3500


def test_subscription_automatic_tax_reaches_the_invoices(emulator: Any, account: dict[str, str],
                                                         client: stripe.StripeClient) -> None:
    """The session's tax is charged on the first invoice, line by line, and on renewals."""
    jan_1 = 1767225600
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": jan_1})
    customer = client.v1.customers.create(params={"email": "tax@example.com",
                                                  "test_clock": clock.id})
    monthly = price(client, 2000, "Club", recurring={"interval": "month"})
    kit = price(client, 999, "Starter kit")
    coupon = client.v1.coupons.create(params={"percent_off": 10, "duration": "forever"})
    s = client.v1.checkout.sessions.create(params={
        "mode": "subscription", "success_url": SUCCESS, "customer": customer.id,
        "customer_update": {"address": "auto"}, "automatic_tax": {"enabled": True},
        "discounts": [{"coupon": coupon.id}],
        "line_items": [{"price": monthly.id, "quantity": 2}, {"price": kit.id, "quantity": 1}]})
    assert confirm(emulator.base, s)["complete"]  # billing address: US / CA (7.25%)
    got = client.v1.checkout.sessions.retrieve(s.id, params={
        "expand": ["invoice", "subscription", "total_details.breakdown"]})
    # 4000 and 999, less 10%: 3600 and 899; tax per line, rounded half-up.
    expected = [tax_table.tax_on(3600, 7.25, False), tax_table.tax_on(899, 7.25, False)]
    assert got.total_details.amount_tax == sum(expected) == 326
    assert got.subscription.automatic_tax.enabled is True
    first = got.invoice
    assert first.total == first.amount_paid == got.amount_total == 4499 + 326
    assert first.total_excluding_tax == 4499
    assert [ln.taxes[0].amount for ln in first.lines.data] == expected
    assert [ln.taxes[0].taxable_amount for ln in first.lines.data] == [3600, 899]
    rate = got.total_details.breakdown.taxes[0].rate
    assert [(t.amount, t.tax_rate_details.tax_rate, t.tax_behavior)
            for t in first.total_taxes] == [(326, rate.id, "exclusive")]
    assert first.automatic_tax.enabled and first.automatic_tax.status == "complete"
    old = make_client(emulator, account, "2024-06-20").v1.invoices.retrieve(first.id)
    assert old["tax"] == 326 and "total_taxes" not in old
    assert [t["amount"] for t in old["total_tax_amounts"]] == [326]
    assert old["lines"]["data"][0]["tax_amounts"][0]["tax_rate"] == rate.id
    client.v1.test_helpers.test_clocks.advance(clock.id,
                                               params={"frozen_time": jan_1 + 32 * 86400})
    renewal = client.v1.invoices.list(params={"subscription": got.subscription.id}).data[0]
    assert renewal.billing_reason == "subscription_cycle" and renewal.status == "paid"
    assert [t.amount for t in renewal.total_taxes] == [expected[0]]
    assert renewal.amount_paid == 3600 + expected[0]
    # Through the API: the customer's address decides; no address → Stripe's 400.
    plain = client.v1.customers.create(params={"email": "notax@example.com"})
    err = error_of(lambda: client.v1.subscriptions.create(params={
        "customer": plain.id, "items": [{"price": monthly.id}],
        "automatic_tax": {"enabled": True}, "payment_behavior": "default_incomplete"}))
    assert err.code == "customer_tax_location_invalid"
    client.v1.customers.update(plain.id, params={
        "shipping": {"name": "N", "address": {"country": "DE", "postal_code": "10115"}},
        "address": {"country": "US", "state": "CA"}})
    sub = client.v1.subscriptions.create(params={
        "customer": plain.id, "items": [{"price": monthly.id}],
        "automatic_tax": {"enabled": True}, "payment_behavior": "default_incomplete",
        "expand": ["latest_invoice"]})
    assert sub.latest_invoice.total_taxes[0].amount == 380  # DE 19% of 20.00 (shipping wins)


def test_subscription_anchor_prorates(emulator: Any, client: stripe.StripeClient) -> None:
    monthly = price(client, 3000, "Club", recurring={"interval": "month"})
    now = payment_session(client).created
    base = {"mode": "subscription", "success_url": SUCCESS,
            "line_items": [{"price": monthly.id, "quantity": 1}]}
    anchored = client.v1.checkout.sessions.create(params={
        **base, "subscription_data": {"billing_cycle_anchor": now + 15 * 86400}})
    assert 0 < anchored.amount_total < 3000
    # Prorated over the calendar period ending at the anchor (16 Dec → 16 Jan: 31 days),
    # as the billing engine prorates the first invoice: the session charges what it shows.
    assert anchored.amount_total == round(3000 * (15 * 86400 - 1) / (31 * 86400))
    assert confirm(emulator.base, anchored)["complete"]
    done = client.v1.checkout.sessions.retrieve(anchored.id, params={"expand": ["invoice"]})
    assert done.invoice.amount_paid == done.amount_total
    assert abs(done.amount_total - anchored.amount_total) <= 1  # the clock ticked
    deferred = client.v1.checkout.sessions.create(params={
        **base, "subscription_data": {"billing_cycle_anchor": now + 15 * 86400,
                                      "proration_behavior": "none"}})
    assert deferred.amount_total == 0


def test_setup_mode_saves_card(emulator: Any, client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={"email": "save@example.com"})
    s = client.v1.checkout.sessions.create(params={
        "mode": "setup", "currency": "eur", "customer": customer.id, "success_url": SUCCESS,
        "setup_intent_data": {"metadata": {"why": "later"}}})
    assert s.payment_status == "no_payment_required" and s.amount_total is None
    assert confirm(emulator.base, s, email="save@example.com")["complete"]
    got = client.v1.checkout.sessions.retrieve(s.id, params={"expand": ["setup_intent"]})
    assert got.status == "complete" and got.setup_intent.status == "succeeded"
    assert got.setup_intent.metadata["why"] == "later"
    methods = client.v1.customers.payment_methods.list(customer.id)
    assert [m.id for m in methods.data] == [got.setup_intent.payment_method]


def test_update_metadata_and_shipping_options(client: stripe.StripeClient) -> None:
    s = payment_session(client, shipping_options=[{"shipping_rate_data": {
        "display_name": "Slow", "type": "fixed_amount",
        "fixed_amount": {"amount": 100, "currency": "usd"}}}])
    updated = client.v1.checkout.sessions.update(s.id, params={
        "metadata": {"k": "v"}, "shipping_options": [{"shipping_rate_data": {
            "display_name": "Fast", "type": "fixed_amount",
            "fixed_amount": {"amount": 900, "currency": "usd"}}}]})
    assert updated.metadata["k"] == "v"
    assert updated.total_details.amount_shipping == 900 and updated.amount_total == 4900


def test_options_read_back(client: stripe.StripeClient) -> None:
    s = payment_session(
        client, locale="de", submit_type="donate", billing_address_collection="required",
        tax_id_collection={"enabled": True, "required": "if_supported"},
        phone_number_collection={"enabled": True},
        custom_text={"submit": {"message": "Danke"}, "after_submit": {"message": "Bis bald"}},
        consent_collection={"promotions": "auto"},
        branding_settings={"button_color": "#ff5500", "display_name": "Trail Shop",
                           "border_style": "pill"},
        allowed_payment_method_types=["card", "klarna"],
        invoice_creation={"enabled": True, "invoice_data": {"footer": "Thanks"}})
    assert s.locale == "de" and s.submit_type == "donate"
    assert s.billing_address_collection == "required"
    assert s.tax_id_collection.enabled and s.tax_id_collection.required == "if_supported"
    assert s.custom_text.submit.message == "Danke" and s.custom_text.shipping_address is None
    assert s.consent_collection.promotions == "auto"
    assert s.branding_settings.button_color == "#ff5500"
    assert s.payment_method_types == ["card", "klarna"]
    assert s.invoice_creation.enabled and s.invoice_creation.invoice_data.footer == "Thanks"


def test_invoice_creation_pays_an_invoice(emulator: Any, client: stripe.StripeClient) -> None:
    coupon = client.v1.coupons.create(params={"amount_off": 500, "currency": "usd",
                                              "duration": "once"})
    s = payment_session(client, discounts=[{"coupon": coupon.id}],
                        automatic_tax={"enabled": True},
                        invoice_creation={"enabled": True, "invoice_data": {
                            "footer": "Thanks for riding", "metadata": {"order": "9"}}},
                        payment_intent_data={"metadata": {"order": "9"}})
    assert confirm(emulator.base, s, billing={"country": "US", "state": "TX",
                                              "postal_code": "73301"})["complete"]
    done = client.v1.checkout.sessions.retrieve(
        s.id, params={"expand": ["invoice", "payment_intent"]})
    expected = 3500 + tax_table.tax_on(3500, 6.25, False)
    assert done.amount_total == expected == done.payment_intent.amount
    assert done.payment_intent.metadata["order"] == "9"
    assert done.invoice.status == "paid" and done.invoice.amount_paid == expected
    assert done.invoice.footer == "Thanks for riding" and done.invoice.customer == done.customer
    payments = client.v1.invoice_payments.list(params={"invoice": done.invoice.id}).data
    assert [p.payment.payment_intent for p in payments] == [done.payment_intent.id]


def test_every_page_string_is_translated() -> None:
    from stripebench.emulator.web.checkout.locales import EN, STRINGS
    assert set(STRINGS) >= {"en", "fr", "de", "es", "ja"}
    for locale, table in STRINGS.items():
        assert set(table) == set(EN), locale


@pytest.mark.parametrize("locale,words", [
    ("fr", ["Payer", "Sous-total", "Numéro de carte", "12,50\u00a0$US"]),
    ("de", ["Bezahlen", "Zwischensumme", "Kartennummer", "12,50\u00a0$"]),
    ("es", ["Pagar", "Subtotal", "Número de tarjeta", "12,50\u00a0US$"]),
    ("ja", ["支払う", "小計", "カード番号", "$12.50"]),
    ("auto", ["Pay", "Subtotal", "Card number", "$12.50"]),
])
def test_page_language_follows_locale(client: stripe.StripeClient, locale: str,
                                      words: list[str]) -> None:
    p = price(client, 1250)
    s = client.v1.checkout.sessions.create(params={
        "mode": "payment", "locale": locale, "success_url": SUCCESS,
        "line_items": [{"price": p.id, "quantity": 1}]})
    html = httpx.get(s.url, headers={"accept-language": "en-US,en;q=0.9"}).text
    lang = "en" if locale == "auto" else locale
    assert f'<html lang="{lang}">' in html
    for word in words:
        assert word in html, word


def test_pre_2022_08_01_shipping_shape(emulator: Any, account: dict[str, str]) -> None:
    old = make_client(emulator, account, "2020-08-27")
    new = make_client(emulator, account)
    p = price(new, 1000)
    rate = new.v1.shipping_rates.create(params={
        "display_name": "Post", "type": "fixed_amount",
        "fixed_amount": {"amount": 300, "currency": "usd"}})
    raw = old.raw_request("post", "/v1/checkout/sessions", mode="payment",
                          success_url=SUCCESS, cancel_url="https://shop.test/c",
                          payment_method_types=["card"], shipping_rates=[rate.id],
                          shipping_address_collection={"allowed_countries": ["US"]},
                          line_items=[{"price": p.id, "quantity": 1}])
    legacy = old.deserialize(raw, api_mode="V1")
    assert legacy.shipping_rate == rate.id and legacy.amount_total == 1300
    assert legacy.customer_creation == "always" and "shipping_cost" not in legacy
    shipping = {"name": "Old Timer", "line1": "1 Elm", "city": "Reno", "postal_code": "89501",
                "country": "US", "state": "NV"}
    assert confirm(emulator.base, legacy, shipping=shipping)["complete"]
    got = old.deserialize(old.raw_request("get", f"/v1/checkout/sessions/{legacy.id}"),
                          api_mode="V1")
    assert got.shipping.name == "Old Timer" and got.customer


def test_subscription_promotion_code_and_3ds(emulator: Any, client: stripe.StripeClient) -> None:
    plan = price(client, 2000, "Plan", recurring={"interval": "month"})
    fee = price(client, 1000, "Fee")
    coupon = client.v1.coupons.create(params={"percent_off": 50, "duration": "repeating",
                                              "duration_in_months": 3})
    promo = client.v1.promotion_codes.create(params={
        "promotion": {"type": "coupon", "coupon": coupon.id}, "code": "HALF"})
    s = client.v1.checkout.sessions.create(params={
        "mode": "subscription", "success_url": SUCCESS, "allow_promotion_codes": True,
        "line_items": [{"price": plan.id, "quantity": 2}, {"price": fee.id, "quantity": 1}]})
    assert state(emulator.base, s, action="promotion_code", code="half")["errors"] == {}
    assert confirm(emulator.base, s)["complete"]
    done = client.v1.checkout.sessions.retrieve(s.id, params={"expand": ["subscription",
                                                                        "invoice"]})
    assert done.amount_total == 2500 == done.invoice.amount_paid
    assert done.discounts[0].promotion_code == promo.id
    assert done.subscription.status == "active" and done.payment_status == "paid"
    assert client.v1.promotion_codes.retrieve(promo.id).times_redeemed == 1
    secure = client.v1.checkout.sessions.create(params={
        "mode": "subscription", "success_url": SUCCESS,
        "line_items": [{"price": plan.id, "quantity": 1}]})
    first = confirm(emulator.base, secure, card={"number": CARD_3DS, "expiry": "12/34",
                                                 "cvc": "123", "name": "J"})
    assert not first["complete"] and "3d_secure" in first["redirect"]
    challenge = httpx.post(first["redirect"], data={"outcome": "approve"},
                           follow_redirects=False)
    back = httpx.get(challenge.headers["location"], follow_redirects=False)
    assert back.status_code == 303 and back.headers["location"].startswith("https://shop.test/")
    paid = client.v1.checkout.sessions.retrieve(secure.id, params={"expand": ["subscription"]})
    assert paid.payment_status == "paid" and paid.subscription.status == "active"


def test_billing_cycle_anchor_config(client: stripe.StripeClient) -> None:
    monthly = price(client, 3100, "Club", recurring={"interval": "month"})
    s = client.v1.checkout.sessions.create(params={
        "mode": "subscription", "success_url": SUCCESS,
        "line_items": [{"price": monthly.id, "quantity": 1}],
        "subscription_data": {"billing_cycle_anchor_config": {"day_of_month": 15}}})
    # Accounts start on 2026-01-01: the anchor is 2026-01-15, 14 of the 31 days from
    # 2025-12-15 prorated.
    assert 0 < s.amount_total < 3100
    assert abs(s.amount_total - round(3100 * 14 / 31)) <= 1
    err = error_of(lambda: client.v1.checkout.sessions.create(params={
        "mode": "subscription", "success_url": SUCCESS,
        "line_items": [{"price": monthly.id, "quantity": 1}],
        "subscription_data": {"billing_cycle_anchor_config": {"day_of_month": 15},
                              "trial_period_days": 7}}))
    assert err.param == "subscription_data[billing_cycle_anchor_config]"  # type: ignore


def test_customer_chosen_amount(emulator: Any, client: stripe.StripeClient) -> None:
    gift = client.v1.prices.create(params={
        "currency": "usd", "product_data": {"name": "Trail fund"},
        "custom_unit_amount": {"enabled": True, "minimum": 500, "maximum": 50000,
                               "preset": 2500}})
    s = client.v1.checkout.sessions.create(params={
        "mode": "payment", "submit_type": "donate", "success_url": SUCCESS,
        "line_items": [{"price": gift.id, "quantity": 1}]})
    assert s.amount_total == 2500
    item = client.v1.checkout.sessions.line_items.list(s.id).data[0].id
    low = state(emulator.base, s, action="custom_amount", item=item, amount=100)
    assert "$5.00" in low["errors"][f"amount-{item}"]
    assert state(emulator.base, s, action="custom_amount", item=item, amount=4200)["errors"] == {}
    assert confirm(emulator.base, s)["complete"]
    done = client.v1.checkout.sessions.retrieve(s.id, params={"expand": ["payment_intent"]})
    assert done.amount_total == 4200 == done.payment_intent.amount
    err = error_of(lambda: client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": SUCCESS,
        "line_items": [{"price": gift.id, "quantity": 2}]}))
    assert err.param == "line_items[0][quantity]"  # type: ignore[attr-defined]
