"""Adjustable quantities cannot empty a Checkout cart (wall 8 of issue 25).

Stripe: "If there is only one item in the cart then that item's quantity cannot go down
to 0" (line_items.adjustable_quantity.minimum, whose default is 0), and "Checkout prevents
the customer from removing an item if it is the only item remaining".
https://docs.stripe.com/api/checkout/sessions/create#create_checkout_session-line_items-adjustable_quantity-minimum
https://docs.stripe.com/payments/checkout/adjustable-quantity

Tried in real Chromium on the hosted page and with direct HTTP to the page's endpoints
(the server never trusts the page): before the fix, a one-item session stepped or typed
down to 0 completed with nothing charged.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import stripe
from playwright.sync_api import Page, expect

from checkout_helpers import CARD_OK, confirm, page_base, price, serve_merchant_pages, state

_SHOP_SERVER = serve_merchant_pages({})
SHOP = f"http://127.0.0.1:{_SHOP_SERVER.server_address[1]}"


def one_item_session(client: stripe.StripeClient, quantity: int = 1,
                     **adjustable: Any) -> stripe.checkout.Session:
    item = price(client, 1800, "Gift card")
    return client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": SHOP + "/ok", "cancel_url": SHOP + "/cart",
        "line_items": [{"price": item.id, "quantity": quantity,
                        "adjustable_quantity": {"enabled": True, **adjustable}}]})


def item_ids(base: str, session: Any) -> list[str]:
    html = httpx.get(page_base(base, session), timeout=30).text
    return list(dict.fromkeys(re.findall(r'class="qty-input"[^>]*data-item="([^"]+)"', html)))


def test_the_only_item_cannot_be_stepped_or_typed_to_zero(
        page: Page, client: stripe.StripeClient) -> None:
    session = one_item_session(client)
    page.goto(session.url)
    expect(page.locator("#total")).to_have_text("$18.00")
    decrease = page.get_by_role("button", name="Decrease quantity: Gift card")
    expect(decrease).to_be_disabled()
    quantity = page.get_by_role("spinbutton", name="Quantity: Gift card")
    expect(quantity).to_have_attribute("min", "1")
    quantity.fill("0")
    quantity.dispatch_event("change")
    expect(page.get_by_role("spinbutton", name="Quantity: Gift card")).to_have_value("1")
    expect(page.locator("#total")).to_have_text("$18.00")
    page.get_by_label("Email").fill("jenny@example.com")
    page.get_by_label("Card number").fill(CARD_OK)
    page.get_by_label("Expiration").fill("12 / 34")
    page.locator("#card-cvc").fill("123")
    page.get_by_label("Cardholder name").fill("Jenny Rosen")
    page.locator("#billing-postal_code").fill("94107")
    page.get_by_role("button", name="Pay").click()
    page.wait_for_url(SHOP + "/ok")
    done = client.v1.checkout.sessions.retrieve(session.id, params={"expand": ["line_items"]})
    assert done.status == "complete" and done.amount_total == 1800
    assert done.line_items.data[0].quantity == 1


def test_direct_requests_cannot_empty_the_cart(client: stripe.StripeClient,
                                               emulator: Any) -> None:
    session = one_item_session(client, quantity=2)
    (item,) = item_ids(emulator.base, session)
    for wanted in (0, -3, "0"):
        state(emulator.base, session, action="quantity", item=item, quantity=wanted)
        lines = client.v1.checkout.sessions.line_items.list(session.id)
        assert [li.quantity for li in lines.data] == [1]
    paid = confirm(emulator.base, session)
    assert paid.get("complete") is True
    done = client.v1.checkout.sessions.retrieve(session.id)
    assert done.amount_total == 1800 and done.payment_status == "paid"


def test_a_session_at_quantity_zero_is_not_completed(client: stripe.StripeClient,
                                                     emulator: Any) -> None:
    """Created with its only item at 0: a confirm posted straight to the server before
    any change is refused, and nothing is charged."""
    session = one_item_session(client, quantity=0)
    refused = confirm(emulator.base, session)
    assert not refused.get("complete") and "form" in refused["errors"]
    still = client.v1.checkout.sessions.retrieve(session.id)
    assert still.status == "open" and still.payment_intent is None
    assert not list(client.v1.charges.list().auto_paging_iter())


def test_with_two_items_one_may_go_but_not_the_last(client: stripe.StripeClient,
                                                    emulator: Any) -> None:
    shirt, cap = price(client, 2500, "Shirt"), price(client, 900, "Cap")
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": SHOP + "/ok",
        "line_items": [{"price": p.id, "quantity": 1,
                        "adjustable_quantity": {"enabled": True}} for p in (shirt, cap)]})
    first, second = item_ids(emulator.base, session)
    state(emulator.base, session, action="quantity", item=first, quantity=0)
    state(emulator.base, session, action="quantity", item=second, quantity=0)
    lines = client.v1.checkout.sessions.line_items.list(session.id)
    assert [(li.description, li.quantity) for li in lines.data if li.quantity] == [("Cap", 1)]
    assert confirm(emulator.base, session).get("complete") is True
    assert client.v1.checkout.sessions.retrieve(session.id).amount_total == 900
