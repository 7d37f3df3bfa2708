"""More of our Stripe.js in real Chromium: the test cards a browser types, createToken,
handleCardAction, retrieveSetupIntent, change events, confirmPayment with 3D Secure and
declines. The pages live in tests/browser/ (more.html, payment_element.html)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import stripe
import test_stripejs_browser as base

from browser.merchant import Merchant

_fill_card = base._fill_card


@pytest.fixture(scope="module")
def merchant(emulator: Any) -> Iterator[Merchant]:
    server = Merchant(f"{emulator.base}/js.stripe.com/v3/")
    yield server
    server.stop()


def _open(page: Any, merchant: Merchant, account: dict[str, str]) -> Any:
    page.goto(f"{merchant.base}/more.html?pk={account['publishable_key']}")
    page.wait_for_selector("body[data-ready='1']")
    return page.frame_locator("#card-element iframe")


def _start(page: Any, name: str, *args: str) -> None:
    page.evaluate("([name, args]) => window.run(name, ...args)", [name, list(args)])


def _result(page: Any) -> dict[str, Any]:
    page.wait_for_function("() => window.__out !== undefined")
    out: dict[str, Any] = page.evaluate("window.__out")
    assert "thrown" not in out, out
    value: dict[str, Any] = out["value"]
    return value


def _intent(client: stripe.StripeClient, **extra: Any) -> stripe.PaymentIntent:
    params: dict[str, Any] = {"amount": 2500, "currency": "usd"}
    params.update(extra)
    return client.v1.payment_intents.create(params=params)  # type: ignore[arg-type]


def _challenge(page: Any, button: str) -> None:
    page.frame_locator("iframe[title='3D Secure authentication']").get_by_role(
        "button", name=button).click()


def _charged_country_and_postal_code(client: stripe.StripeClient, intent: str) -> tuple[
        str | None, str | None]:
    """The billing address country and postal code on the intent's charge."""
    charge = client.v1.charges.retrieve(str(client.v1.payment_intents.retrieve(intent)
                                            .latest_charge))
    address = charge.billing_details.address
    assert address is not None
    return address.country, address.postal_code


@pytest.mark.parametrize(("number", "code", "decline_code", "message"), [
    ("4000000000009995", "card_declined", "insufficient_funds",
     "Your card has insufficient funds."),
    ("4000000000009987", "card_declined", "lost_card", "Your card was declined."),
    ("4000000000000069", "expired_card", "expired_card", "Your card has expired."),
    ("4000000000000127", "incorrect_cvc", "incorrect_cvc",
     "Your card's security code is incorrect."),
])

def test_typed_decline_cards(page: Any, merchant: Merchant, account: dict[str, str],
                             client: stripe.StripeClient, number: str, code: str,
                             decline_code: str, message: str) -> None:
    pi = _intent(client)
    _fill_card(_open(page, merchant, account), number)
    _start(page, "pay", pi.client_secret or "")
    error = _result(page)["error"]
    assert (error["type"], error["code"], error["decline_code"]) == ("card_error", code,
                                                                      decline_code)
    assert error["message"] == message
    assert error["payment_intent"]["id"] == pi.id
    assert error["payment_intent"]["status"] == "requires_payment_method"
    after = client.v1.payment_intents.retrieve(pi.id)
    assert after.status == "requires_payment_method"
    charge = client.v1.charges.retrieve(str(after.latest_charge))
    assert charge.status == "failed" and charge.failure_code == code
    assert charge.outcome is not None and charge.outcome.reason == decline_code


def test_typed_dispute_card_succeeds_then_disputes(page: Any, merchant: Merchant,
                                                   account: dict[str, str],
                                                   client: stripe.StripeClient) -> None:
    pi = _intent(client)
    _fill_card(_open(page, merchant, account), "4000000000000259")
    _start(page, "pay", pi.client_secret or "")
    assert _result(page)["paymentIntent"]["status"] == "succeeded"
    disputes = client.v1.disputes.list(params={"payment_intent": pi.id}).data
    assert [(d.status, d.reason, d.amount) for d in disputes] == [
        ("needs_response", "fraudulent", 2500)]
    txns = client.v1.balance_transactions.list(params={"type": "adjustment"}).data
    assert [(t.amount, t.fee, t.source) for t in txns] == [(-2500, 1500, disputes[0].id)]


def test_typed_3ds_always_card_with_confirm_card_payment(page: Any, merchant: Merchant,
                                                         account: dict[str, str],
                                                         client: stripe.StripeClient) -> None:
    pi = _intent(client)
    _fill_card(_open(page, merchant, account), "4000002760003184")
    _start(page, "pay", pi.client_secret or "")
    _challenge(page, "Complete authentication")
    result = _result(page)
    assert result["paymentIntent"]["status"] == "succeeded"
    assert page.locator("[data-stripebench='3ds-modal']").count() == 0
    charge = client.v1.charges.retrieve(str(client.v1.payment_intents.retrieve(pi.id)
                                            .latest_charge))
    card = charge.payment_method_details.card  # type: ignore[union-attr]
    assert card is not None and card.three_d_secure is not None
    assert card.three_d_secure.result == "authenticated"


def test_change_events_carry_brand_and_completeness(page: Any, merchant: Merchant,
                                                    account: dict[str, str]) -> None:
    frame = _open(page, merchant, account)
    # The page also ran Stripe's Payment Request Button sample: no wallet, button hidden.
    page.wait_for_function("() => window.wallets !== undefined")
    assert page.evaluate("window.wallets") == "hidden"
    frame.get_by_label("Card number").fill("5555 5555 5555 4444")
    page.wait_for_function("() => window.changes.some((e) => e.brand === 'mastercard')")
    first = page.evaluate("window.changes[window.changes.length - 1]")
    assert first["elementType"] == "card" and first["empty"] is False
    assert first["complete"] is False
    _fill_card(frame, "4242 4242 4242 4242")
    page.wait_for_function("() => window.changes.some((e) => e.complete)")
    last = page.evaluate("window.changes[window.changes.length - 1]")
    assert (last["brand"], last["complete"], last.get("error")) == ("visa", True, None)


def test_create_token_then_charge_it(page: Any, merchant: Merchant, account: dict[str, str],
                                     client: stripe.StripeClient) -> None:
    frame = _open(page, merchant, account)
    _fill_card(frame, "378282246310005")  # Amex wants four CVC digits: "123" is incomplete
    _start(page, "token")
    assert _result(page)["error"]["code"] == "incomplete_cvc"
    frame.get_by_label("Security code").fill("1234")
    _start(page, "token")
    out = _result(page)
    assert "token" in out, out
    tok = out["token"]
    assert tok["id"].startswith("tok_") and tok["object"] == "token" and tok["type"] == "card"
    assert (tok["card"]["brand"], tok["card"]["last4"]) == ("American Express", "0005")
    assert tok["card"]["name"] == "Token Holder"
    assert tok["card"]["address_zip"] == "94107"
    charge = client.v1.charges.create(params={"amount": 1234, "currency": "usd",
                                              "source": tok["id"]})
    assert charge.status == "succeeded" and charge.paid
    with pytest.raises(stripe.InvalidRequestError):  # a token is good for one use
        client.v1.charges.create(params={"amount": 1234, "currency": "usd",
                                         "source": tok["id"]})


def test_legacy_create_payment_method_signature(page: Any, merchant: Merchant,
                                                account: dict[str, str],
                                                client: stripe.StripeClient) -> None:
    _fill_card(_open(page, merchant, account), "6011111111111117")
    _start(page, "legacyPM")
    pm = _result(page)["paymentMethod"]
    assert pm["card"]["brand"] == "discover"
    stored = client.v1.payment_methods.retrieve(pm["id"])
    assert stored.billing_details.email == "legacy@example.com"
    assert stored.billing_details.address is not None
    assert stored.billing_details.address.postal_code == "94107"


@pytest.mark.parametrize("button", ["Complete authentication", "Fail authentication"])
def test_handle_card_action_with_manual_confirmation(page: Any, merchant: Merchant,
                                                     account: dict[str, str],
                                                     client: stripe.StripeClient,
                                                     button: str) -> None:
    """The manual-confirmation flow: server confirms, page runs handleCardAction, server
    confirms again."""
    pi = _intent(client, payment_method="pm_card_threeDSecure2Required", confirm=True,
                 confirmation_method="manual", allowed_payment_method_types=["card"])
    assert pi.status == "requires_action"
    _open(page, merchant, account)
    _start(page, "cardAction", pi.client_secret or "")
    _challenge(page, button)
    result = _result(page)
    if button.startswith("Complete"):
        assert result["paymentIntent"]["status"] == "requires_confirmation"
        assert client.v1.payment_intents.confirm(pi.id).status == "succeeded"
    else:
        assert result["error"]["code"] == "payment_intent_authentication_failure"
        assert result["error"]["payment_intent"]["status"] == "requires_payment_method"


def test_saved_card_by_id_and_no_action_handling(page: Any, merchant: Merchant,
                                                 account: dict[str, str],
                                                 client: stripe.StripeClient) -> None:
    _open(page, merchant, account)
    customer = client.v1.customers.create(params={"payment_method": "pm_card_visa"})
    saved = client.v1.customers.payment_methods.list(customer.id).data[0].id
    pi = _intent(client, customer=customer.id)
    _start(page, "payWith", pi.client_secret or "", saved)
    assert _result(page)["paymentIntent"]["status"] == "succeeded"
    # handleActions: false hands back requires_action; handleNextAction finishes it.
    pi3 = _intent(client)
    _fill_card(page.frame_locator("#card-element iframe"), "4000002500003155")
    _start(page, "payNoActions", pi3.client_secret or "")
    pending = _result(page)["paymentIntent"]
    assert pending["status"] == "requires_action"
    assert pending["next_action"]["type"] == "use_stripe_sdk"
    assert page.locator("[data-stripebench='3ds-modal']").count() == 0
    _start(page, "nextAction", pi3.client_secret or "")
    _challenge(page, "Complete authentication")
    assert _result(page)["paymentIntent"]["status"] == "succeeded"


def test_retrieve_intents_with_the_client_secret(page: Any, merchant: Merchant,
                                                 account: dict[str, str],
                                                 client: stripe.StripeClient) -> None:
    _open(page, merchant, account)
    customer = client.v1.customers.create()
    si = client.v1.setup_intents.create(params={"customer": customer.id})
    _start(page, "retrieveSI", si.client_secret or "")
    setup = _result(page)["setupIntent"]
    assert (setup["id"], setup["status"]) == (si.id, "requires_payment_method")
    assert setup["client_secret"] == si.client_secret
    assert "customer" not in setup  # only the publishable-key fields reach the browser
    pi = _intent(client)
    _start(page, "retrievePI", (pi.client_secret or "")[:-4] + "xxxx")
    error = _result(page)["error"]
    assert error["type"] == "invalid_request_error"
    _start(page, "sepa", pi.client_secret or "")  # only cards are emulated: a clear error
    page.wait_for_function("window.__out !== undefined")
    sepa = page.evaluate("window.__out")
    assert sepa["name"] == "IntegrationError"
    assert "stripe.confirmSepaDebitPayment()" in sepa["thrown"]


def test_confirm_payment_3ds_then_return_url(page: Any, merchant: Merchant,
                                             account: dict[str, str],
                                             client: stripe.StripeClient) -> None:
    """confirmPayment (redirect: always) with a 3DS card: the modal, then the return_url."""
    pi = _intent(client)
    page.goto(f"{merchant.base}/payment_element.html?pk={account['publishable_key']}"
              f"&secret={pi.client_secret}")
    page.wait_for_selector("body[data-ready='1']")
    _fill_card(page.frame_locator("#payment-element iframe"), "4000002500003155",
               zip_label="ZIP code")
    page.get_by_role("button", name="Pay now").click()
    _challenge(page, "Complete authentication")
    page.wait_for_url("**/complete.html?**")
    page.get_by_text("Payment succeeded (succeeded)").wait_for()
    assert client.v1.payment_intents.retrieve(pi.id).status == "succeeded"


@pytest.mark.parametrize(("number", "message"), [
    ("4000000000000002", "Your card was declined."),
    ("4000002500003155", "We are unable to authenticate your payment method."),
])
def test_confirm_payment_failure_stays_on_page(page: Any, merchant: Merchant,
                                               account: dict[str, str],
                                               client: stripe.StripeClient, number: str,
                                               message: str) -> None:
    pi = _intent(client)
    page.goto(f"{merchant.base}/payment_element.html?pk={account['publishable_key']}"
              f"&secret={pi.client_secret}")
    page.wait_for_selector("body[data-ready='1']")
    _fill_card(page.frame_locator("#payment-element iframe"), number, zip_label="ZIP code")
    page.get_by_role("button", name="Pay now").click()
    if number == "4000002500003155":
        _challenge(page, "Fail authentication")
    page.locator("#error-message").get_by_text(message, exact=False).wait_for()
    assert "payment_element.html" in page.url
    assert client.v1.payment_intents.retrieve(pi.id).status == "requires_payment_method"


def test_confirm_card_setup_with_3ds_saves_for_off_session(page: Any, merchant: Merchant,
                                                           account: dict[str, str],
                                                           client: stripe.StripeClient,
                                                           emulator: Any) -> None:
    customer = client.v1.customers.create()
    si = client.v1.setup_intents.create(params={"customer": customer.id})
    _fill_card(_open(page, merchant, account), "4000002500003155")
    _start(page, "setup", si.client_secret or "")
    _challenge(page, "Complete authentication")
    setup = _result(page)["setupIntent"]
    assert setup["status"] == "succeeded"
    pm = str(client.v1.setup_intents.retrieve(si.id).payment_method)
    later = _intent(client, customer=customer.id, payment_method=pm, confirm=True,
                    off_session=True, allowed_payment_method_types=["card"])
    assert later.status == "succeeded"
    assert httpx.get(f"{emulator.base}/v1/setup_intents/{si.id}").status_code == 401


def _open_payment(page: Any, merchant: Merchant, account: dict[str, str], **query: str) -> Any:
    extra = "".join(f"&{k}={v}" for k, v in query.items())
    page.goto(f"{merchant.base}/more_payment.html?pk={account['publishable_key']}{extra}")
    page.wait_for_selector("body[data-ready='1']")
    return page.frame_locator("#payment-element iframe")


def _outcome(page: Any) -> dict[str, Any]:
    page.wait_for_function("() => window.__out !== undefined")
    out: dict[str, Any] = page.evaluate("window.__out")
    return out


def _fill_payment(frame: Any, number: str = "4242424242424242", postal: bool = True) -> None:
    frame.get_by_label("Card number").fill(number)
    frame.get_by_label("Expiration date").fill("12 / 34")
    frame.get_by_label("Security code").fill("123")
    if postal:
        frame.get_by_label("ZIP code").fill("94107")


def test_deferred_create_payment_method_from_payment_element(
        page: Any, merchant: Merchant, account: dict[str, str],
        client: stripe.StripeClient) -> None:
    """Intent-later flow finalised on the server: submit, createPaymentMethod({elements}),
    then the server creates and confirms the PaymentIntent."""
    frame = _open_payment(page, merchant, account, deferred="1")
    _fill_payment(frame, "5555555555554444")
    later = _intent(client)
    for call, args in (("createPM", ()), ("confirm", (later.client_secret or "",))):
        _start(page, call, *args)  # before elements.submit(): Stripe.js throws
        thrown = _outcome(page)["thrown"]
        assert thrown.startswith("IntegrationError: elements.submit() must be called before")
    _start(page, "submit")
    assert _result(page) == {}
    page.evaluate("window.run('createPM', {name: 'Deferred Buyer'})")
    pm = _result(page)["paymentMethod"]
    assert pm["card"]["brand"] == "mastercard"
    assert pm["billing_details"]["address"]["postal_code"] == "94107"
    pi = _intent(client, payment_method=pm["id"], confirm=True,
                 automatic_payment_methods={"enabled": True, "allow_redirects": "never"})
    assert pi.status == "succeeded"
    assert client.v1.payment_methods.retrieve(pm["id"]).billing_details.name == "Deferred Buyer"


def test_billing_details_never_hides_fields_and_needs_them_at_confirm(
        page: Any, merchant: Merchant, account: dict[str, str],
        client: stripe.StripeClient) -> None:
    pi = _intent(client)
    frame = _open_payment(page, merchant, account, secret=pi.client_secret or "",
                          fields="address")
    _fill_payment(frame, postal=False)
    assert frame.get_by_label("ZIP code").count() == 0
    assert frame.get_by_label("Country").count() == 0
    _start(page, "confirm", "")
    thrown = _outcome(page)["thrown"]
    assert thrown.startswith('IntegrationError: You specified "never" for '
                             "fields.billing_details.address.line1")
    assert "confirmParams.payment_method_data.billing_details.address.line1" in thrown
    assert client.v1.payment_intents.retrieve(pi.id).status == "requires_payment_method"
    page.evaluate("""window.run('confirm', '', {address: {line1: '9 Rue X', line2: null,
        city: 'Paris', state: null, country: 'FR', postal_code: '75001'}})""")
    assert _result(page)["paymentIntent"]["status"] == "succeeded"
    assert _charged_country_and_postal_code(client, pi.id) == ("FR", "75001")


def test_postal_code_never_keeps_country(page: Any, merchant: Merchant,
                                        account: dict[str, str],
                                        client: stripe.StripeClient) -> None:
    pi = _intent(client)
    frame = _open_payment(page, merchant, account, secret=pi.client_secret or "",
                          fields="postal")
    _fill_payment(frame, postal=False)
    assert frame.get_by_label("ZIP code").count() == 0
    frame.get_by_label("Country").select_option("GB")
    page.evaluate("window.run('confirm', '', {address: {postal_code: 'SW1A 1AA'}})")
    assert _result(page)["paymentIntent"]["status"] == "succeeded"
    assert _charged_country_and_postal_code(client, pi.id) == ("GB", "SW1A 1AA")


def test_manual_capture_through_payment_element(page: Any, merchant: Merchant,
                                                account: dict[str, str],
                                                client: stripe.StripeClient) -> None:
    pi = _intent(client, capture_method="manual")
    _fill_payment(_open_payment(page, merchant, account, secret=pi.client_secret or ""))
    _start(page, "confirm", "")
    assert _result(page)["paymentIntent"]["status"] == "requires_capture"
    captured = client.v1.payment_intents.capture(pi.id, params={"amount_to_capture": 1000})
    assert (captured.status, captured.amount_received) == ("succeeded", 1000)


def test_address_element_shipping_get_value(page: Any, merchant: Merchant,
                                           account: dict[str, str],
                                           client: stripe.StripeClient) -> None:
    pi = _intent(client)
    _open_payment(page, merchant, account, secret=pi.client_secret or "", address="shipping")
    address = page.frame_locator("#address-element iframe")
    address.get_by_label("Full name").fill("Grace Hopper")
    address.get_by_label("Address line 1").fill("2 Navy Way")
    address.get_by_label("City").fill("Arlington")
    address.get_by_label("State").fill("VA")
    address.get_by_label("ZIP code").fill("22202")
    _start(page, "addressValue")
    got = _result(page)
    assert got["complete"] is True
    assert got["value"]["name"] == "Grace Hopper"
    assert (got["value"]["address"]["line1"], got["value"]["address"]["postal_code"],
            got["value"]["address"]["country"]) == ("2 Navy Way", "22202", "US")


def test_confirm_payment_misuse_is_an_integration_error(page: Any, merchant: Merchant,
                                                       account: dict[str, str],
                                                       client: stripe.StripeClient) -> None:
    pi = _intent(client)
    _fill_payment(_open_payment(page, merchant, account, secret=pi.client_secret or ""))
    page.evaluate("""window.__out = undefined; stripe.confirmPayment({elements})
        .then((value) => { window.__out = {value}; },
              (err) => { window.__out = {thrown: err.name + ': ' + err.message}; })""")
    assert _outcome(page)["thrown"] == (
        "IntegrationError: stripe.confirmPayment(): the `confirmParams.return_url` argument is "
        "required unless passing `redirect: 'if_required'`")
    page.evaluate("""window.__out = undefined; payment.destroy(); stripe.confirmPayment({
        elements, redirect: 'if_required'}).then((value) => { window.__out = {value}; },
              (err) => { window.__out = {thrown: err.name + ': ' + err.message}; })""")
    assert "should have a mounted Payment Element" in _outcome(page)["thrown"]
    assert client.v1.payment_intents.retrieve(pi.id).status == "requires_payment_method"


def test_save_card_while_paying_and_bare_confirm(page: Any, merchant: Merchant,
                                                 account: dict[str, str],
                                                 client: stripe.StripeClient) -> None:
    """confirmCardPayment with setup_future_usage from the page saves the card to the
    intent's customer; a later intent with that card confirms with no data at all."""
    customer = client.v1.customers.create(params={"email": "keep@example.com"})
    pi = _intent(client, customer=customer.id)
    _fill_card(_open(page, merchant, account), "5555555555554444")
    _start(page, "paySave", pi.client_secret or "")
    paid = _result(page)["paymentIntent"]
    assert (paid["status"], paid["setup_future_usage"]) == ("succeeded", "off_session")
    saved = client.v1.customers.payment_methods.list(customer.id).data
    assert [m.card.last4 for m in saved if m.card] == ["4444"]
    again = _intent(client, customer=customer.id, payment_method=saved[0].id)
    assert again.status == "requires_confirmation"
    _start(page, "payBare", again.client_secret or "")
    assert _result(page)["paymentIntent"]["status"] == "succeeded"
    assert client.v1.payment_intents.retrieve(again.id).status == "succeeded"


def test_link_authentication_and_express_checkout_elements(
        page: Any, merchant: Merchant, account: dict[str, str],
        client: stripe.StripeClient) -> None:
    """The quickstart's Link Authentication Element is an email field here; the Express
    Checkout Element reports no wallets. The page pays with the email as receipt_email."""
    pi = _intent(client)
    frame = _open_payment(page, merchant, account, secret=pi.client_secret or "", link="1")
    page.wait_for_function("() => window.express !== 'not ready'")
    assert page.evaluate("window.express") == "no wallets"
    email = page.frame_locator("#link-element iframe").get_by_label("Email")
    email.fill("not-an-email")
    email.blur()
    page.frame_locator("#link-element iframe").get_by_text(
        "Your email address is invalid.").wait_for()
    email.fill("buyer@example.com")
    page.wait_for_function("() => window.email === 'buyer@example.com'")
    _fill_payment(frame)
    _start(page, "confirmEmail", "")
    assert _result(page)["paymentIntent"]["status"] == "succeeded"
    done = client.v1.payment_intents.retrieve(pi.id)
    assert done.receipt_email == "buyer@example.com"
    assert client.v1.charges.retrieve(str(done.latest_charge)).receipt_email == \
        "buyer@example.com"


def test_create_confirmation_token_then_confirm_on_the_server(
        page: Any, merchant: Merchant, account: dict[str, str],
        client: stripe.StripeClient) -> None:
    """Stripe's current "finalize payments on the server" flow: elements.submit(),
    createConfirmationToken, the server creates and confirms the intent with it, and the
    page finishes 3D Secure with handleNextAction."""
    frame = _open_payment(page, merchant, account, deferred="1")
    _fill_payment(frame, "4000002500003155")
    _start(page, "ctoken", "Token Buyer")
    assert _outcome(page)["thrown"].startswith(
        "IntegrationError: elements.submit() must be called before "
        "stripe.createConfirmationToken()")
    _start(page, "submit")
    assert _result(page) == {}
    _start(page, "ctoken", "Token Buyer")
    token = _result(page)["confirmationToken"]
    assert token["id"].startswith("ctoken_")
    assert token["payment_method_preview"]["card"]["last4"] == "3155"
    assert token["payment_method_preview"]["billing_details"]["name"] == "Token Buyer"
    pi = _intent(client, confirm=True, confirmation_token=token["id"])
    assert pi.status == "requires_action"
    _start(page, "nextAction", pi.client_secret or "")
    _challenge(page, "Complete authentication")
    assert _result(page)["paymentIntent"]["status"] == "succeeded"
    done = client.v1.payment_intents.retrieve(pi.id)
    charge = client.v1.charges.retrieve(str(done.latest_charge))
    assert charge.billing_details.name == "Token Buyer"
    assert charge.billing_details.address is not None
    assert charge.billing_details.address.postal_code == "94107"


def test_legacy_handle_card_payment_and_setup_before_dahlia(page: Any, merchant: Merchant,
                                                           account: dict[str, str],
                                                           client: stripe.StripeClient) -> None:
    """`handleCardPayment` / `handleCardSetup` still work on v3 and are gone in dahlia
    (https://docs.stripe.com/changelog/dahlia/2026-03-25/remove-legacy-stripejs-methods)."""
    frame = _open(page, merchant, account)
    _fill_card(frame, "4242424242424242")
    pi = _intent(client)
    _start(page, "legacyHandle", pi.client_secret or "")
    assert _result(page)["paymentIntent"]["status"] == "succeeded"
    charge = client.v1.charges.retrieve(str(client.v1.payment_intents.retrieve(pi.id)
                                            .latest_charge))
    assert charge.billing_details.name == "Legacy Handler"
    customer = client.v1.customers.create()
    si = client.v1.setup_intents.create(params={"customer": customer.id})
    _start(page, "legacySetup", si.client_secret or "")
    assert _result(page)["setupIntent"]["status"] == "succeeded"
    page.goto(f"{merchant.base}/more.html?pk={account['publishable_key']}&release=dahlia")
    page.wait_for_selector("body[data-ready='1']")
    _start(page, "legacyHandle", _intent(client).client_secret or "")
    page.wait_for_function("window.__out !== undefined")
    gone = page.evaluate("window.__out")
    assert gone["name"] == "IntegrationError"
    assert "stripe.handleCardPayment() was removed in Stripe.js dahlia" in gone["thrown"]
    assert "stripe.confirmCardPayment()" in gone["thrown"]


def test_redirect_to_checkout_before_clover(page: Any, merchant: Merchant,
                                            account: dict[str, str],
                                            client: stripe.StripeClient) -> None:
    """redirectToCheckout({sessionId}) opens the hosted page up to basil; clover removed it
    (https://docs.stripe.com/changelog/clover/2025-09-30/remove-redirect-to-checkout)."""
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": "https://shop.test/ok",
        "line_items": [{"quantity": 1, "price_data": {
            "currency": "usd", "unit_amount": 700, "product_data": {"name": "Sticker"}}}]})
    page.goto(f"{merchant.base}/more.html?pk={account['publishable_key']}&release=basil")
    page.wait_for_selector("body[data-ready='1']")
    _start(page, "redirect", session.id)
    page.wait_for_url(f"**/c/pay/{session.id}")
    page.get_by_text("Sticker").first.wait_for()
    page.goto(f"{merchant.base}/more.html?pk={account['publishable_key']}&release=clover")
    page.wait_for_selector("body[data-ready='1']")
    _start(page, "redirect", session.id)
    page.wait_for_function("window.__out !== undefined")
    gone = page.evaluate("window.__out")
    assert gone["name"] == "IntegrationError"
    assert "stripe.redirectToCheckout() was removed in Stripe.js clover" in gone["thrown"]
