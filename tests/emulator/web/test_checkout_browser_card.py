"""The Checkout page's card inputs in real Chromium, typed as a shopper or an agent would.

Stripe's Checkout formats the card number in groups as it is typed, turns "1234" in the
expiry into "12 / 34", and moves on from a complete number to the expiry, the CVC and the
cardholder's name (https://docs.stripe.com/payments/checkout,
https://docs.stripe.com/testing#cards for the numbers).
"""

from __future__ import annotations

import re
from typing import Any

import stripe
from playwright.sync_api import Page, expect

from checkout_helpers import price, serve_merchant_pages

_SHOP_SERVER = serve_merchant_pages({})
SHOP = f"http://127.0.0.1:{_SHOP_SERVER.server_address[1]}"
FOCUSED = "() => document.activeElement && document.activeElement.id"


def _session(client: stripe.StripeClient) -> Any:
    item = price(client, 1800, "Head torch")
    return client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": SHOP + "/success?session_id={CHECKOUT_SESSION_ID}",
        "line_items": [{"price": item.id, "quantity": 1}]})


def test_typing_the_card_formats_and_advances_then_pays(page: Page,
                                                        client: stripe.StripeClient) -> None:
    session = _session(client)
    page.goto(session.url)
    number = page.locator("#card-number")
    expect(number).to_have_attribute("placeholder", "1234 1234 1234 1234")
    expect(page.locator("#card-expiry")).to_have_attribute("placeholder", "MM / YY")
    expect(page.locator("#card-cvc")).to_have_attribute("placeholder", "CVC")
    expect(page.locator("#billing-postal_code")).to_have_attribute("placeholder", "ZIP")
    for box, name in (("#card-number", "cardNumber"), ("#card-expiry", "cardExpiry"),
                      ("#card-cvc", "cardCvc"), ("#card-name", "billingName"),
                      ("#billing-postal_code", "billingPostalCode")):
        expect(page.locator(box)).to_have_attribute("name", name)
    page.get_by_label("Email").fill("torch@example.com")
    number.press_sequentially("42424242")
    expect(number).to_have_value("4242 4242")
    number.press_sequentially("42424242")
    expect(number).to_have_value("4242 4242 4242 4242")
    assert page.evaluate(FOCUSED) == "card-expiry"
    page.keyboard.type("1234")
    expect(page.locator("#card-expiry")).to_have_value("12 / 34")
    assert page.evaluate(FOCUSED) == "card-cvc"
    page.keyboard.type("123")
    assert page.evaluate(FOCUSED) == "card-name"
    page.keyboard.type("Jenny Rosen")
    page.locator("#billing-postal_code").fill("94107")
    page.get_by_role("button", name="Pay").click()
    page.wait_for_url(re.compile(re.escape(SHOP) + "/success"))
    done = client.v1.checkout.sessions.retrieve(session.id)
    assert (done.status, done.payment_status) == ("complete", "paid")


def test_an_agent_filling_1234_in_the_expiry_pays(page: Page,
                                                  client: stripe.StripeClient) -> None:
    """fill() sets each field at once, as an agent does: "1234" is still a valid expiry."""
    session = _session(client)
    page.goto(session.url)
    page.get_by_label("Email").fill("agent@example.com")
    page.get_by_label("Card number").fill("4242424242424242")
    page.get_by_label("Expiration").fill("1234")
    expect(page.locator("#card-expiry")).to_have_value("12 / 34")
    page.locator("#card-cvc").fill("123")
    page.get_by_label("Cardholder name").fill("Agent Smith")
    page.locator("#billing-postal_code").fill("94107")
    page.get_by_role("button", name="Pay").click()
    page.wait_for_url(re.compile(re.escape(SHOP) + "/success"))
    assert client.v1.checkout.sessions.retrieve(session.id).status == "complete"
