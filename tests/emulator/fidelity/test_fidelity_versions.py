"""The standing fidelity suite, outside billing (test_fidelity_billing.py beside it holds
billing's): for each resource family, the calls a typical integration makes, at each API
version the tasks cross, asserting what Stripe's changelog and API reference state.

Versions: 2020-08-27 (sdk-upgrade and bookings starters), 2023-10-16 (stripe-python 7),
2025-03-31.basil, 2025-09-30.clover and the version the current SDK pins.
"""

from __future__ import annotations

from typing import Any

import pytest
import stripe

from conftest import RunningEmulator

CURRENT = stripe.api_version
VERSIONS = ["2020-08-27", "2023-10-16", "2025-03-31.basil", "2025-09-30.clover", CURRENT]


def at(emulator: RunningEmulator, account: dict[str, str], version: str) -> stripe.StripeClient:
    return stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base},
                               stripe_version=version)


def before(version: str, change: str) -> bool:
    return version[:10] < change[:10]


@pytest.mark.parametrize("version", VERSIONS)
def test_payment_intent_charges_and_latest_charge(emulator: RunningEmulator,
                                                  account: dict[str, str],
                                                  version: str) -> None:
    """2022-11-15 removed `charges` from PaymentIntents (read `latest_charge`) and stopped
    embedding a Charge's `refunds`.
    https://docs.stripe.com/changelog/2022-11-15/removes-charges-attribute-paymentintent
    https://docs.stripe.com/changelog/2022-11-15/deprecates-charges-auto-expand"""
    client = at(emulator, account, version)
    params: dict[str, Any] = {"amount": 1500, "currency": "usd", "confirm": True,
                              "payment_method": "pm_card_visa"}
    if before(version, "2026-09-30"):
        params["payment_method_types"] = ["card"]
    else:
        params["automatic_payment_methods"] = {"enabled": True, "allow_redirects": "never"}
    pi = client.v1.payment_intents.create(params=params).to_dict()
    assert pi["status"] == "succeeded" and pi["amount_received"] == 1500
    charge = client.v1.charges.list(params={"payment_intent": pi["id"]}).data[0].to_dict()
    client.v1.refunds.create(params={"payment_intent": pi["id"], "amount": 500})
    charge = client.v1.charges.retrieve(charge["id"]).to_dict()
    assert charge["amount_refunded"] == 500 and charge["paid"] is True
    if before(version, "2022-11-15"):
        assert [c["id"] for c in pi["charges"]["data"]] == [charge["id"]]
        assert charge["refunds"]["data"][0]["amount"] == 500
    else:
        assert "charges" not in pi and pi["latest_charge"] == charge["id"]
        assert "refunds" not in charge


@pytest.mark.parametrize("version", VERSIONS)
def test_payment_method_types_on_intents(emulator: RunningEmulator, account: dict[str, str],
                                         version: str) -> None:
    """Endive removed `payment_method_types` as a writable parameter of PaymentIntents and
    SetupIntents: 400 `payment_method_types_no_longer_supported`; the objects still report
    the computed list.
    https://docs.stripe.com/changelog/endive/2026-09-30/removes-the-payment-method-types-parameter-from-payment-intents-and-setup-intents"""
    client = at(emulator, account, version)
    for create in (lambda p: client.v1.payment_intents.create(params={**p, "amount": 700,
                                                                      "currency": "usd"}),
                   lambda p: client.v1.setup_intents.create(params=p)):
        if before(version, "2026-09-30"):
            intent = create({"payment_method_types": ["card"]})
            assert intent.payment_method_types == ["card"]
        else:
            with pytest.raises(stripe.InvalidRequestError) as err:
                create({"payment_method_types": ["card"]})
            assert err.value.code == "payment_method_types_no_longer_supported"
            assert err.value.http_status == 400
            intent = create({"allowed_payment_method_types": ["card"]})
            assert intent.payment_method_types == ["card"]


@pytest.mark.parametrize("version", VERSIONS)
def test_promotion_code_coupon_shape(emulator: RunningEmulator, account: dict[str, str],
                                     version: str) -> None:
    """Clover moved a promotion code's coupon into `promotion` (`type: coupon`, the coupon's
    id unexpanded); earlier versions create with and return a top-level `coupon` object.
    https://docs.stripe.com/changelog/clover/2025-09-30/polymorphic-coupon"""
    client = at(emulator, account, version)
    coupon = client.v1.coupons.create(params={"percent_off": 25, "duration": "once"})
    code = f"SAVE{version[:4]}{version[5:7]}"
    if before(version, "2025-09-30"):
        promo = client.v1.promotion_codes.create(params={"coupon": coupon.id, "code": code})
        assert promo.coupon.id == coupon.id and promo.coupon.percent_off == 25
        assert "promotion" not in promo
    else:
        promo = client.v1.promotion_codes.create(
            params={"promotion": {"type": "coupon", "coupon": coupon.id}, "code": code})
        assert promo.promotion.type == "coupon" and promo.promotion.coupon == coupon.id
        assert "coupon" not in promo
        expanded = client.v1.promotion_codes.retrieve(
            promo.id, params={"expand": ["promotion.coupon"]})
        assert expanded.promotion.coupon.percent_off == 25


@pytest.mark.parametrize("version", VERSIONS[1:])
def test_discount_coupon_until_clover(emulator: RunningEmulator, account: dict[str, str],
                                      version: str) -> None:
    """A Discount embeds its full `coupon` until clover, which replaced it with
    `source: {type: coupon, coupon: <id>}` (basil versions still embed the coupon).
    https://docs.stripe.com/changelog/clover/2025-09-30/add-discount-source-property"""
    client = at(emulator, account, version)
    coupon = client.v1.coupons.create(params={"percent_off": 10, "duration": "forever"})
    price = client.v1.prices.create(params={
        "unit_amount": 1000, "currency": "usd", "recurring": {"interval": "month"},
        "product_data": {"name": "Plan"}})
    customer = client.v1.customers.create(params={
        "payment_method": "pm_card_visa",
        "invoice_settings": {"default_payment_method": "pm_card_visa"}})
    sub = client.v1.subscriptions.create(params={
        "customer": customer.id, "items": [{"price": price.id}],
        "discounts": [{"coupon": coupon.id}], "expand": ["discounts"]})
    discount = sub.discounts[0].to_dict()
    if before(version, "2025-09-30"):
        assert discount["coupon"]["id"] == coupon.id
        assert discount["coupon"]["percent_off"] == 10
        assert "source" not in discount
    else:
        assert discount["source"] == {"type": "coupon", "coupon": coupon.id}
        assert "coupon" not in discount
        deep = client.v1.subscriptions.retrieve(
            sub.id, params={"expand": ["discounts.source.coupon"]})
        assert deep.discounts[0].source.coupon.percent_off == 10


EMBEDDED = {"2023-10-16": "embedded", "2025-03-31.basil": "embedded",
            "2025-09-30.clover": "embedded", CURRENT: "embedded_page"}


@pytest.mark.parametrize("version", list(EMBEDDED))
def test_checkout_embedded_ui_mode_names(emulator: RunningEmulator, account: dict[str, str],
                                         version: str) -> None:
    """Embedded Checkout is `ui_mode=embedded` until dahlia renamed the values
    (`embedded_page`, `hosted_page`); each version reads back its own names and a
    `return_url` replaces the success URL.
    https://docs.stripe.com/changelog/dahlia/2026-03-25/updates-available-checkout-session-ui-modes"""
    client = at(emulator, account, version)
    price = client.v1.prices.create(params={"unit_amount": 900, "currency": "usd",
                                            "product_data": {"name": "Mug"}})
    session = client.v1.checkout.sessions.create(params={
        "ui_mode": EMBEDDED[version], "mode": "payment",
        "line_items": [{"price": price.id, "quantity": 2}],
        "return_url": "https://shop.example/return?session_id={CHECKOUT_SESSION_ID}"})
    assert session.ui_mode == EMBEDDED[version]
    assert session.client_secret and session.url is None
    assert session.amount_total == 1800 and session.status == "open"
    hosted = client.v1.checkout.sessions.create(params={
        "mode": "payment", "line_items": [{"price": price.id, "quantity": 1}],
        "success_url": "https://shop.example/ok"})
    assert hosted.ui_mode == ("hosted" if before(version, "2026-03-25") else "hosted_page")
    assert hosted.url and hosted.client_secret is None
    if not before(version, "2026-03-25"):
        with pytest.raises(stripe.InvalidRequestError) as err:
            client.v1.checkout.sessions.create(params={
                "ui_mode": "embedded", "mode": "payment", "return_url": "https://x.example/r",
                "line_items": [{"price": price.id, "quantity": 1}]})
        assert err.value.param == "ui_mode"


@pytest.mark.parametrize("version", VERSIONS)
def test_customer_search_list_and_delete(emulator: RunningEmulator, account: dict[str, str],
                                         version: str) -> None:
    """Customers behave the same at every version: list filtered by email (newest first),
    search by email, delete returns `{deleted: true}` and the id then 404s.
    https://docs.stripe.com/api/customers/list https://docs.stripe.com/search#query-fields-for-customers"""
    client = at(emulator, account, version)
    email = f"fid-{version[:10]}@example.com"
    first = client.v1.customers.create(params={"email": email, "name": "One"})
    second = client.v1.customers.create(params={"email": email, "name": "Two"})
    listed = client.v1.customers.list(params={"email": email})
    assert [c.id for c in listed.data] == [second.id, first.id]
    found = client.v1.customers.search(params={"query": f"email:'{email}' AND name:'Two'"})
    assert [c.id for c in found.data] == [second.id]
    gone = client.v1.customers.delete(first.id)
    assert gone.deleted is True and gone.id == first.id
    with pytest.raises(stripe.InvalidRequestError) as err:
        client.v1.customers.update(first.id, params={"name": "x"})
    assert err.value.http_status == 404 and err.value.code == "resource_missing"
