"""The Card Element's inputs in real Chromium, as a shopper (or an agent) meets Stripe's.

Stripe's Card Element names its inputs `cardnumber`, `exp-date`, `cvc` and `postal` with
the cc-* autocomplete tokens browsers fill from, formats as you type, and moves the focus
on once a part is complete (https://docs.stripe.com/js/elements_object/create_element?type=card,
https://docs.stripe.com/payments/card-element): so a whole card typed into the number field
lands in all four inputs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import stripe

from browser.merchant import Merchant

WHOLE_CARD = "4242424242424242 12/34 123 94107"


@pytest.fixture(scope="module")
def merchant(emulator: Any) -> Iterator[Merchant]:
    server = Merchant(f"{emulator.base}/js.stripe.com/v3/")
    yield server
    server.stop()


def _card_frame(page: Any, merchant: Merchant, account: dict[str, str], secret: str,
                release: str = "") -> Any:
    page.goto(f"{merchant.base}/card.html?pk={account['publishable_key']}&secret={secret}"
              + (f"&release={release}" if release else ""))
    page.wait_for_selector("body[data-ready='1']")
    return page.frame_locator("#card-element iframe")


def _values(frame: Any) -> dict[str, str]:
    return {name: frame.locator(f"input[name='{name}']").input_value()
            for name in ("cardnumber", "exp-date", "cvc", "postal")}


def test_inputs_carry_stripes_names_autocomplete_and_placeholders(
        page: Any, merchant: Merchant, account: dict[str, str],
        client: stripe.StripeClient) -> None:
    pi = client.v1.payment_intents.create(params={"amount": 900, "currency": "usd"})
    frame = _card_frame(page, merchant, account, pi.client_secret or "")
    expected = {"cardnumber": ("cc-number", "Card number"), "exp-date": ("cc-exp", "MM / YY"),
                "cvc": ("cc-csc", "CVC"), "postal": ("postal-code", "ZIP")}
    for name, (autocomplete, placeholder) in expected.items():
        box = frame.locator(f"input[name='{name}']")
        assert box.get_attribute("autocomplete") == autocomplete
        assert box.get_attribute("placeholder") == placeholder


@pytest.mark.parametrize("release", ["", "endive"])
def test_typing_a_whole_card_into_the_number_fills_all_four_and_pays(
        page: Any, merchant: Merchant, account: dict[str, str],
        client: stripe.StripeClient, release: str) -> None:
    pi = client.v1.payment_intents.create(params={"amount": 2300, "currency": "usd"})
    frame = _card_frame(page, merchant, account, pi.client_secret or "", release)
    frame.locator("input[name='cardnumber']").press_sequentially(WHOLE_CARD)
    assert _values(frame) == {"cardnumber": "4242 4242 4242 4242", "exp-date": "12 / 34",
                              "cvc": "123", "postal": "94107"}
    page.wait_for_selector("body[data-complete='1']")
    page.get_by_role("button", name="Pay").click()
    page.get_by_text("Status: succeeded").wait_for()
    charge = client.v1.charges.retrieve(str(client.v1.payment_intents.retrieve(pi.id)
                                            .latest_charge))
    assert charge.billing_details.address is not None
    assert charge.billing_details.address.postal_code == "94107"


def test_pasting_a_whole_card_and_step_by_step_focus(page: Any, merchant: Merchant,
                                                     account: dict[str, str],
                                                     client: stripe.StripeClient) -> None:
    pi = client.v1.payment_intents.create(params={"amount": 2300, "currency": "usd"})
    frame = _card_frame(page, merchant, account, pi.client_secret or "")
    frame.locator("input[name='cardnumber']").fill(WHOLE_CARD)
    assert _values(frame) == {"cardnumber": "4242 4242 4242 4242", "exp-date": "12 / 34",
                              "cvc": "123", "postal": "94107"}
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    frame = page.frame_locator("#card-element iframe")
    # Amex: 4-6-5 grouping and a 4-digit CVC before the focus moves on.
    frame.locator("input[name='cardnumber']").press_sequentially("378282246310005")
    assert frame.locator("input[name='cardnumber']").input_value() == "3782 822463 10005"
    focused = "document.activeElement && document.activeElement.name"
    assert frame.locator("body").evaluate(f"() => {focused}") == "exp-date"
    page.keyboard.type("1234")
    assert frame.locator("input[name='exp-date']").input_value() == "12 / 34"
    page.keyboard.type("123")
    assert frame.locator("body").evaluate(f"() => {focused}") == "cvc"
    page.keyboard.type("4")
    assert frame.locator("body").evaluate(f"() => {focused}") == "postal"
    # A wrong number does not jump ahead.
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    frame = page.frame_locator("#card-element iframe")
    frame.locator("input[name='cardnumber']").press_sequentially("4242424242424241")
    assert frame.locator("body").evaluate(f"() => {focused}") == "cardnumber"
