"""Our Stripe.js in real Chromium: Card Element, Payment Element, 3D Secure, React.

Merchant pages (tests/browser/) are served by a small local web server and load
Stripe.js from the emulator with a plain script tag. The server side of each flow
(creating intents, checking their final state) uses the official python SDK.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import stripe

from browser.merchant import Merchant, build_react_app


@pytest.fixture(scope="module")
def merchant(emulator: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Merchant]:
    bundle = build_react_app(tmp_path_factory.mktemp("react"))
    server = Merchant(f"{emulator.base}/js.stripe.com/v3/", bundle)
    yield server
    server.stop()


def _intent(client: stripe.StripeClient, **extra: Any) -> stripe.PaymentIntent:
    params: dict[str, Any] = {"amount": 2500, "currency": "usd"}
    params.update(extra)
    return client.v1.payment_intents.create(params=params)  # type: ignore[arg-type]


def _fill_card(frame: Any, number: str, zip_label: str = "ZIP") -> None:
    frame.get_by_label("Card number").fill(number)
    frame.get_by_label("Expiration date").fill("12 / 34")
    frame.get_by_label("Security code").fill("123")
    frame.get_by_label(zip_label).fill("94107")


def _open_card_page(page: Any, merchant: Merchant, account: dict[str, str], secret: str,
                    mode: str = "payment") -> Any:
    page.goto(f"{merchant.base}/card.html?pk={account['publishable_key']}&secret={secret}"
              f"&mode={mode}")
    page.wait_for_selector("body[data-ready='1']")
    return page.frame_locator("#card-element iframe")


def test_card_element_pays_with_4242(page: Any, merchant: Merchant, account: dict[str, str],
                                     client: stripe.StripeClient) -> None:
    pi = _intent(client)
    frame = _open_card_page(page, merchant, account, pi.client_secret or "")
    _fill_card(frame, "4242 4242 4242 4242")
    page.wait_for_selector("body[data-complete='1']")
    page.get_by_role("button", name="Pay").click()
    page.get_by_text("Status: succeeded").wait_for()
    done = client.v1.payment_intents.retrieve(pi.id)
    assert done.status == "succeeded"
    assert done.amount_received == 2500
    charge = client.v1.charges.retrieve(str(done.latest_charge))
    assert charge.payment_method_details is not None
    card = charge.payment_method_details.card
    assert card is not None and card.last4 == "4242" and card.brand == "visa"
    assert charge.billing_details.name == "Jenny Rosen"
    assert charge.billing_details.address is not None
    assert charge.billing_details.address.postal_code == "94107"


def test_card_element_shows_decline(page: Any, merchant: Merchant, account: dict[str, str],
                                    client: stripe.StripeClient) -> None:
    pi = _intent(client)
    frame = _open_card_page(page, merchant, account, pi.client_secret or "")
    _fill_card(frame, "4000000000000002")
    page.get_by_role("button", name="Pay").click()
    page.get_by_text("Error: Your card was declined. [generic_decline]").wait_for()
    after = client.v1.payment_intents.retrieve(pi.id)
    assert after.status == "requires_payment_method"
    assert after.last_payment_error is not None
    assert after.last_payment_error.decline_code == "generic_decline"


def test_card_element_live_validation(page: Any, merchant: Merchant,
                                      account: dict[str, str],
                                      client: stripe.StripeClient) -> None:
    pi = _intent(client)
    frame = _open_card_page(page, merchant, account, pi.client_secret or "")
    frame.get_by_label("Card number").fill("4242 4242 4242 4241")
    page.get_by_text("Your card number is invalid.").wait_for()
    page.get_by_role("button", name="Pay").click()
    page.get_by_text("Error: Your card number is invalid. [invalid_number]").wait_for()
    assert client.v1.payment_intents.retrieve(pi.id).status == "requires_payment_method"


@pytest.mark.parametrize("outcome", ["Complete authentication", "Fail authentication"])
def test_card_element_3d_secure(page: Any, merchant: Merchant, account: dict[str, str],
                                client: stripe.StripeClient, outcome: str) -> None:
    pi = _intent(client)
    frame = _open_card_page(page, merchant, account, pi.client_secret or "")
    _fill_card(frame, "4000002500003155")
    page.get_by_role("button", name="Pay").click()
    challenge = page.frame_locator("iframe[title='3D Secure authentication']")
    challenge.get_by_role("button", name=outcome).click()
    if outcome.startswith("Complete"):
        page.get_by_text("Status: succeeded").wait_for()
        assert client.v1.payment_intents.retrieve(pi.id).status == "succeeded"
    else:
        page.get_by_text("Error: We are unable to authenticate your payment method.",
                         exact=False).wait_for()
        after = client.v1.payment_intents.retrieve(pi.id)
        assert after.status == "requires_payment_method"
        assert after.last_payment_error is not None
        assert after.last_payment_error.code == "payment_intent_authentication_failure"
    assert page.locator("[data-stripebench='3ds-modal']").count() == 0


def test_card_element_saves_card_with_setup_intent(page: Any, merchant: Merchant,
                                                  account: dict[str, str],
                                                  client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={"email": "save@example.com"})
    si = client.v1.setup_intents.create(params={"customer": customer.id})
    frame = _open_card_page(page, merchant, account, si.client_secret or "", mode="setup")
    _fill_card(frame, "5555 5555 5555 4444")
    page.get_by_role("button", name="Pay").click()
    page.get_by_text("Status: succeeded").wait_for()
    saved = client.v1.customers.payment_methods.list(customer.id)
    assert [pm.card.brand for pm in saved.data if pm.card] == ["mastercard"]


def test_payment_element_lands_on_return_url(page: Any, merchant: Merchant,
                                             account: dict[str, str],
                                             client: stripe.StripeClient) -> None:
    pi = _intent(client, automatic_payment_methods={"enabled": True})
    page.goto(f"{merchant.base}/payment_element.html?pk={account['publishable_key']}"
              f"&secret={pi.client_secret}&address=1")
    page.wait_for_selector("body[data-ready='1']")
    frame = page.frame_locator("#payment-element iframe")
    _fill_card(frame, "4242424242424242", zip_label="ZIP code")
    address = page.frame_locator("#address-element iframe")
    address.get_by_label("Full name").fill("Ada Lovelace")
    address.get_by_label("Address line 1").fill("1 Main St")
    address.get_by_label("City").fill("San Francisco")
    address.get_by_label("State").fill("CA")
    address.get_by_label("ZIP code").fill("94107")
    page.get_by_role("button", name="Pay now").click()
    page.wait_for_url("**/complete.html?**")
    page.get_by_text("Payment succeeded (succeeded)").wait_for()
    assert f"payment_intent={pi.id}" in page.url
    done = client.v1.payment_intents.retrieve(pi.id)
    assert done.status == "succeeded"
    charge = client.v1.charges.retrieve(str(done.latest_charge))
    assert charge.billing_details.name == "Ada Lovelace"
    assert charge.billing_details.address is not None
    assert charge.billing_details.address.line1 == "1 Main St"


def test_payment_element_shows_incomplete_error(page: Any, merchant: Merchant,
                                                account: dict[str, str],
                                                client: stripe.StripeClient) -> None:
    pi = _intent(client)
    page.goto(f"{merchant.base}/payment_element.html?pk={account['publishable_key']}"
              f"&secret={pi.client_secret}")
    page.wait_for_selector("body[data-ready='1']")
    page.frame_locator("#payment-element iframe").get_by_label("Card number").fill("4242")
    page.get_by_role("button", name="Pay now").click()
    page.locator("#error-message").get_by_text("Your card number is incomplete.").wait_for()
    assert client.v1.payment_intents.retrieve(pi.id).status == "requires_payment_method"


def test_react_card_element_pays(page: Any, merchant: Merchant, account: dict[str, str],
                                 client: stripe.StripeClient) -> None:
    pi = _intent(client)
    page.goto(f"{merchant.base}/react/?pk={account['publishable_key']}"
              f"&secret={pi.client_secret}&mode=card")
    page.wait_for_selector("form[data-ready='1']")
    _fill_card(page.frame_locator("form iframe"), "4242424242424242")
    page.get_by_role("button", name="Pay").click()
    page.get_by_text("Status: succeeded").wait_for()
    assert client.v1.payment_intents.retrieve(pi.id).status == "succeeded"


def test_react_payment_element_lands_on_return_url(page: Any, merchant: Merchant,
                                                   account: dict[str, str],
                                                   client: stripe.StripeClient) -> None:
    pi = _intent(client)
    page.goto(f"{merchant.base}/react/?pk={account['publishable_key']}"
              f"&secret={pi.client_secret}&mode=payment-element")
    page.wait_for_selector("form[data-ready='1']")
    _fill_card(page.frame_locator("form iframe"), "4242424242424242", zip_label="ZIP code")
    page.get_by_role("button", name="Pay now").click()
    page.wait_for_url("**/complete.html?**")
    page.get_by_text("Payment succeeded (succeeded)").wait_for()
    assert client.v1.payment_intents.retrieve(pi.id).status == "succeeded"


def test_payment_element_if_required_with_3ds_modal(page: Any, merchant: Merchant,
                                                    account: dict[str, str],
                                                    client: stripe.StripeClient) -> None:
    pi = _intent(client)
    page.goto(f"{merchant.base}/payment_element.html?pk={account['publishable_key']}"
              f"&secret={pi.client_secret}&redirect=if_required&deferred=1")
    page.wait_for_selector("body[data-ready='1']")
    _fill_card(page.frame_locator("#payment-element iframe"), "4000002760003184",
               zip_label="ZIP code")
    page.get_by_role("button", name="Pay now").click()
    challenge = page.frame_locator("iframe[title='3D Secure authentication']")
    challenge.get_by_role("button", name="Complete authentication").click()
    page.get_by_text("Status: succeeded").wait_for()
    assert "payment_element.html" in page.url  # no redirect with if_required
    assert client.v1.payment_intents.retrieve(pi.id).status == "succeeded"


def test_split_fields_create_payment_method_and_handle_next_action(
        page: Any, merchant: Merchant, account: dict[str, str],
        client: stripe.StripeClient) -> None:
    """cardNumber/cardExpiry/cardCvc → createPaymentMethod; the server confirms a 3DS card
    and the page finishes the challenge with handleNextAction."""
    page.goto(f"{merchant.base}/split.html?pk={account['publishable_key']}")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#version").inner_text() == "Stripe.version 3"
    page.frame_locator("#number iframe").get_by_label("Card number").fill("4000002500003155")
    page.frame_locator("#expiry iframe").get_by_label("Expiration date").fill("12 / 34")
    page.frame_locator("#cvc iframe").get_by_label("Security code").fill("123")
    page.get_by_role("button", name="Save card").click()
    page.get_by_text("PaymentMethod pm_").wait_for()
    pm_id, last4 = page.locator("#result").inner_text().split()[1:3]
    assert last4 == "3155"
    assert client.v1.payment_methods.retrieve(pm_id).billing_details.name == "Split Fields"
    pi = _intent(client, payment_method=pm_id, confirm=True,
                 allowed_payment_method_types=["card"])
    assert pi.status == "requires_action" and pi.next_action is not None
    assert pi.next_action.type == "use_stripe_sdk"
    # Not awaited: handleNextAction resolves only after the challenge below is completed.
    page.evaluate("(secret) => { window.finishOnPage(secret); }", pi.client_secret)
    challenge = page.frame_locator("iframe[title='3D Secure authentication']")
    challenge.get_by_role("button", name="Complete authentication").click()
    page.get_by_text("Next action done: succeeded").wait_for()
    assert client.v1.payment_intents.retrieve(pi.id).status == "succeeded"


def test_payment_element_confirm_setup_saves_the_card(page: Any, merchant: Merchant,
                                                      account: dict[str, str],
                                                      client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={"email": "setup@example.com"})
    si = client.v1.setup_intents.create(params={"customer": customer.id})
    page.goto(f"{merchant.base}/split.html?pk={account['publishable_key']}"
              f"&setup_secret={si.client_secret}")
    _fill_card(page.frame_locator("#payment-element iframe"), "4242424242424242",
               zip_label="ZIP code")
    page.get_by_role("button", name="Set up").click()
    page.get_by_text("Setup succeeded").wait_for()
    saved = client.v1.customers.payment_methods.list(customer.id).data
    assert [m.card.last4 for m in saved] == ["4242"]
    assert client.v1.setup_intents.retrieve(si.id).payment_method == saved[0].id
