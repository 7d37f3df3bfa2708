"""Checkout page options driven by clicks in real Chromium, read back through the API.

Optional items added and removed, a quantity stepped down, a promotion code applied and
removed, the business/tax-ID fields, a required billing address, phone and the terms
checkbox: each is done on the page the way a customer would, and the retrieved session
must carry exactly what was chosen.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import stripe
from playwright.sync_api import Page, expect

from checkout_helpers import CARD_3DS, CARD_OK, price, serve_merchant_pages

SUCCESS = "https://shop.test/success?session_id={CHECKOUT_SESSION_ID}"
SHOP_PAGES: dict[str, str] = {}  # path -> HTML the merchant's loopback server returns


@pytest.fixture(scope="module")
def shop() -> Iterator[str]:
    server = serve_merchant_pages(SHOP_PAGES)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_page_choices_reach_the_session(page: Page, client: stripe.StripeClient) -> None:
    lamp = client.v1.products.create(params={"name": "Desk lamp", "description": "Brass",
                                             "images": ["https://img.test/lamp.png"]})
    lamp_price = client.v1.prices.create(params={"product": lamp.id, "currency": "usd",
                                                  "unit_amount": 3000})
    bulb = price(client, 400, "Spare bulb")
    shade = price(client, 1500, "Linen shade")
    coupon = client.v1.coupons.create(params={"amount_off": 500, "currency": "usd",
                                              "duration": "once", "name": "Five off"})
    client.v1.promotion_codes.create(params={
        "promotion": {"type": "coupon", "coupon": coupon.id}, "code": "LAMP5"})
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": SUCCESS, "allow_promotion_codes": True,
        "line_items": [{"price": lamp_price.id, "quantity": 3,
                        "adjustable_quantity": {"enabled": True, "minimum": 1,
                                                "maximum": 3}}],
        "optional_items": [{"price": bulb.id, "quantity": 2},
                           {"price": shade.id, "quantity": 1}],
        "billing_address_collection": "required",
        "phone_number_collection": {"enabled": True},
        "tax_id_collection": {"enabled": True},
        "consent_collection": {"terms_of_service": "required"}})
    # The merchant's success page (not under test) answers from the browser itself.
    page.route("https://shop.test/**", lambda route: route.fulfill(
        body="<h1>Thanks</h1>", content_type="text/html"))
    page.goto(session.url)
    expect(page.locator("img[alt='Desk lamp']")).to_have_attribute(
        "src", "https://img.test/lamp.png")
    expect(page.locator("#total")).to_have_text("$90.00")
    expect(page.get_by_role("button", name="Increase quantity: Desk lamp")).to_be_disabled()
    page.get_by_role("button", name="Decrease quantity: Desk lamp").click()
    expect(page.locator("#total")).to_have_text("$60.00")
    page.get_by_role("button", name="Add: Spare bulb").click()
    expect(page.locator("#total")).to_have_text("$68.00")
    page.get_by_role("button", name="Add: Linen shade").click()
    expect(page.locator("#total")).to_have_text("$83.00")
    shade_line = page.locator("li.line", has_text="Linen shade")
    shade_line.get_by_role("button", name="Remove").click()
    expect(page.locator("#total")).to_have_text("$68.00")
    expect(page.get_by_role("button", name="Add: Linen shade")).to_be_visible()
    page.get_by_label("Promotion code").fill("LAMP5")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#total")).to_have_text("$63.00")
    page.get_by_role("button", name="Remove LAMP5").click()
    expect(page.locator("#total")).to_have_text("$68.00")
    # Gaps: phone, billing address lines, the terms box, the business fields.
    page.get_by_label("Email").fill("buyer@example.com")
    page.get_by_label("Card number").fill(CARD_OK)
    page.get_by_label("Expiration").fill("12 / 34")
    page.locator("#card-cvc").fill("123")
    page.get_by_label("Cardholder name").fill("Max Mustermann")
    page.locator("#billing-country").select_option("DE")
    expect(page.locator("#tax-id-fields")).to_be_hidden()
    page.get_by_label("I'm purchasing as a business").check()
    expect(page.locator("#tax-id-fields")).to_be_visible()
    page.get_by_role("button", name="Pay").click()
    expect(page.locator("#err-phone")).to_have_text("This field is incomplete.")
    expect(page.locator("#err-billing-line1")).to_have_text("This field is incomplete.")
    expect(page.locator("#err-terms_of_service")).to_have_text(
        "You must agree to the Terms of Service to continue.")
    expect(page.locator("#err-business_name")).to_have_text("This field is incomplete.")
    assert client.v1.checkout.sessions.retrieve(session.id).status == "open"
    page.locator("#phone").fill("+49 30 1234567")
    page.locator("#billing-line1").fill("Unter den Linden 1")
    page.locator("#billing-city").fill("Berlin")
    page.locator("#billing-postal_code").fill("10117")
    page.get_by_label("Business name").fill("Leuchten GmbH")
    page.get_by_label("Tax ID").fill("DE123456789")
    page.get_by_label("I agree to the Terms of Service").check()
    page.get_by_role("button", name="Pay").click()
    page.wait_for_url(f"https://shop.test/success?session_id={session.id}")
    done = client.v1.checkout.sessions.retrieve(session.id,
                                                params={"expand": ["line_items"]})
    assert done.status == "complete" and done.payment_status == "paid"
    assert [(li.description, li.quantity) for li in done.line_items.data] == [
        ("Desk lamp", 2), ("Spare bulb", 2)]
    assert done.amount_total == 6800 and done.discounts == []
    details = done.customer_details
    assert details.phone == "+49301234567" and details.business_name == "Leuchten GmbH"
    assert details.address.line1 == "Unter den Linden 1" and details.address.country == "DE"
    assert [(t.type, t.value) for t in details.tax_ids] == [("eu_vat", "DE123456789")]
    assert done.consent.terms_of_service == "accepted"


def _fill_card(scope: Any, number: str) -> None:
    scope.get_by_label("Email").fill("member@example.com")
    scope.get_by_label("Card number").fill(number)
    scope.get_by_label("Expiration").fill("12 / 34")
    scope.locator("#card-cvc").fill("123")
    scope.get_by_label("Cardholder name").fill("Jenny Rosen")
    scope.locator("#billing-postal_code").fill("94107")


def test_embedded_3d_secure_then_one_navigation_to_return_url(
        page: Page, emulator: Any, account: dict[str, str], shop: str,
        client: stripe.StripeClient) -> None:
    """The challenge runs inside the iframe; back from it, the parent goes to return_url."""
    plan = price(client, 2200, "Ridge Club", recurring={"interval": "month"})
    session = client.v1.checkout.sessions.create(params={
        "mode": "subscription", "ui_mode": "embedded_page",
        "return_url": shop + "/welcome?session_id={CHECKOUT_SESSION_ID}",
        "line_items": [{"price": plan.id, "quantity": 1}]})
    SHOP_PAGES["/ridge"] = f"""<!doctype html><html><head>
<script src="{emulator.base}/js.stripe.com/v3/"></script></head><body>
<h1>Ridge Club</h1><div id="checkout"></div><script>
Stripe({account['publishable_key']!r}).initEmbeddedCheckout({{
  fetchClientSecret: () => Promise.resolve({session.client_secret!r}),
}}).then((c) => c.mount('#checkout'));
</script></body></html>"""
    navigations: list[str] = []
    page.on("framenavigated", lambda f: navigations.append(f.url)
            if f == page.main_frame else None)
    page.goto(f"{shop}/ridge")
    frame = page.frame_locator("iframe[name=embedded-checkout]")
    _fill_card(frame, CARD_3DS)
    frame.get_by_role("button", name="Subscribe").click()
    frame.get_by_role("button", name="Complete authentication").click()
    welcome = f"{shop}/welcome?session_id={session.id}"
    page.wait_for_url(welcome)
    expect(page.locator("#shop")).to_have_text("Shop page")
    assert navigations.count(welcome) == 1, navigations
    done = client.v1.checkout.sessions.retrieve(session.id, params={"expand": ["subscription"]})
    assert done.status == "complete" and done.payment_status == "paid"
    assert done.subscription.status == "active"


def test_embedded_decline_stays_in_the_frame(page: Page, emulator: Any,
                                             account: dict[str, str], shop: str,
                                             client: stripe.StripeClient) -> None:
    item = price(client, 1800, "Trail map")
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "ui_mode": "embedded_page",
        "return_url": shop + "/thanks?session_id={CHECKOUT_SESSION_ID}",
        "line_items": [{"price": item.id, "quantity": 1}]})
    SHOP_PAGES["/map"] = f"""<!doctype html><html><head>
<script src="{emulator.base}/js.stripe.com/v3/"></script></head><body>
<div id="checkout"></div><script>
Stripe({account['publishable_key']!r}).initEmbeddedCheckout({{
  clientSecret: {session.client_secret!r}}}).then((c) => c.mount('#checkout'));
</script></body></html>"""
    page.goto(f"{shop}/map")
    frame = page.frame_locator("iframe[name=embedded-checkout]")
    _fill_card(frame, "4000 0000 0000 9995")
    frame.get_by_role("button", name="Pay").click()
    expect(frame.locator("#err-card-number")).to_have_text(
        "Your card has insufficient funds.")
    assert page.url == f"{shop}/map"
    assert client.v1.checkout.sessions.retrieve(session.id).status == "open"
    frame.get_by_label("Card number").fill(CARD_OK)
    frame.get_by_role("button", name="Pay").click()
    page.wait_for_url(f"{shop}/thanks?session_id={session.id}")
    assert client.v1.checkout.sessions.retrieve(session.id).payment_status == "paid"


def test_full_discount_code_hides_the_payment_method(page: Page,
                                                     client: stripe.StripeClient) -> None:
    item = price(client, 2500, "Workshop seat")
    coupon = client.v1.coupons.create(params={"percent_off": 100, "duration": "once"})
    client.v1.promotion_codes.create(params={
        "promotion": {"type": "coupon", "coupon": coupon.id}, "code": "FREESEAT"})
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": SUCCESS, "allow_promotion_codes": True,
        "line_items": [{"price": item.id, "quantity": 1}]})
    page.route("https://shop.test/**", lambda route: route.fulfill(
        body="<h1>Thanks</h1>", content_type="text/html"))
    page.goto(session.url)
    expect(page.get_by_label("Card number")).to_be_visible()
    page.get_by_label("Promotion code").fill("FREESEAT")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#total")).to_have_text("$0.00")
    expect(page.get_by_label("Card number")).to_be_hidden()
    page.get_by_role("button", name="Remove FREESEAT").click()
    expect(page.get_by_label("Card number")).to_be_visible()
    page.get_by_label("Promotion code").fill("FREESEAT")
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_label("Card number")).to_be_hidden()
    page.get_by_label("Email").fill("guest@example.com")
    page.get_by_role("button", name="Pay").click()
    page.wait_for_url(f"https://shop.test/success?session_id={session.id}")
    done = client.v1.checkout.sessions.retrieve(session.id)
    assert done.payment_status == "no_payment_required" and done.payment_intent is None
    assert done.customer is not None and done.discounts[0].promotion_code is not None
