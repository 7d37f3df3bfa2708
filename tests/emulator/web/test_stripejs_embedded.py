"""Embedded Checkout from Stripe.js releases and React, and which keys may open it.

- From dahlia on, `stripe.createEmbeddedCheckoutPage()` replaces `initEmbeddedCheckout()`
  (https://docs.stripe.com/changelog/dahlia/2026-03-25/rename-init-embedded-checkout-to-create-embedded-checkout-page);
  @stripe/react-stripe-js 7's EmbeddedCheckoutProvider calls the new name.
- `Stripe(publishableKey)` wants a publishable key (https://docs.stripe.com/js/initializing):
  a secret key or a placeholder throws; a key of another account cannot open a session or
  confirm an intent, as Stripe answers such a key with "No such ...".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import stripe

from browser.merchant import Merchant, build_react_app


@pytest.fixture(scope="module")
def merchant(emulator: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Merchant]:
    bundle = build_react_app(tmp_path_factory.mktemp("react"))
    server = Merchant(f"{emulator.base}/js.stripe.com/v3/", bundle)
    yield server
    server.stop()


def _session(client: stripe.StripeClient, **extra: Any) -> stripe.checkout.Session:
    params: dict[str, Any] = {
        "mode": "payment", "ui_mode": "embedded_page", "redirect_on_completion": "never",
        "line_items": [{"quantity": 1, "price_data": {
            "currency": "usd", "unit_amount": 4200, "product_data": {"name": "Lantern"}}}]}
    params.update(extra)
    return client.v1.checkout.sessions.create(params=params)  # type: ignore[arg-type]


def _fill(frame: Any) -> None:
    frame.get_by_label("Email").fill("react@example.com")
    frame.get_by_label("Card number").fill("4242424242424242")
    frame.get_by_label("Expiration").fill("12 / 34")
    frame.locator("#card-cvc").fill("123")
    frame.get_by_label("Cardholder name").fill("React Shopper")
    frame.locator("#billing-postal_code").fill("94107")


def test_react_7_embedded_checkout_mounts_and_pays(page: Any, merchant: Merchant,
                                                   account: dict[str, str],
                                                   client: stripe.StripeClient) -> None:
    """EmbeddedCheckoutProvider + EmbeddedCheckout on /endive/stripe.js (what
    @stripe/stripe-js 10 injects): the iframe mounts, the payment completes, onComplete runs."""
    session = _session(client)
    page.goto(f"{merchant.base}/react/?pk={account['publishable_key']}"
              f"&secret={session.client_secret}&mode=embedded-checkout&release=endive")
    assert page.evaluate("Stripe.version") == "endive"
    frame = page.frame_locator("#checkout iframe[name=embedded-checkout]")
    _fill(frame)
    frame.get_by_role("button", name="Pay").click()
    page.get_by_role("status").filter(has_text="Checkout complete").wait_for()
    done = client.v1.checkout.sessions.retrieve(session.id)
    assert (done.status, done.payment_status) == ("complete", "paid")
    assert done.customer_details is not None
    assert done.customer_details.email == "react@example.com"


PROBE = """async ([key, secret, method, options]) => {
  try {
    const stripe = Stripe(key, options);
    const checkout = await stripe[method]({fetchClientSecret: async () => secret});
    checkout.mount('#checkout');
    return {ok: true};
  } catch (e) { return {name: e.name, message: e.message}; }
}"""


def _blank(page: Any, merchant: Merchant, release: str = "endive") -> None:
    page.goto(f"{merchant.base}/blank.html?release={release}")


@pytest.mark.parametrize(("key", "says"), [
    ("YOUR_PUBLISHABLE_KEY", "should be a publishable key starting with pk_test_ or pk_live_"),
    ("<publishable key>", "should be a publishable key"),
    ("sk_test_4eC39HqLyjWDarjtT1zdp7dc", "should not use your secret key"),
    ("rk_test_abc", "should not use your secret key"),
    ("", "You used an empty string"),
])
def test_stripe_refuses_what_is_not_a_publishable_key(page: Any, merchant: Merchant, key: str,
                                                      says: str) -> None:
    _blank(page, merchant)
    got = page.evaluate("(key) => { try { Stripe(key); return {ok: true}; } catch (e) {"
                        " return {name: e.name, message: e.message}; } }", key)
    assert got.get("name") == "IntegrationError", got
    assert says in got["message"]


def test_another_accounts_key_cannot_open_the_session(page: Any, merchant: Merchant,
                                                      emulator: Any,
                                                      account: dict[str, str],
                                                      client: stripe.StripeClient) -> None:
    session = _session(client)
    other = emulator.new_account()
    _blank(page, merchant)
    got = page.evaluate(PROBE, [other["publishable_key"], session.client_secret,
                                "createEmbeddedCheckoutPage"])
    assert got.get("name") == "IntegrationError", got
    assert f"No such checkout.session: '{session.id}'" in got["message"]
    assert page.locator("iframe").count() == 0
    # The page itself refuses the key too (a frame URL built by hand).
    frame_url = (f"{emulator.base}/checkout.stripe.com/c/embedded/{session.id}"
                 f"?client_secret={session.client_secret}&key={other['publishable_key']}")
    assert httpx.get(frame_url).status_code == 404
    mine = frame_url.replace(other["publishable_key"], account["publishable_key"])
    assert httpx.get(mine).status_code == 200
    # The owner's key opens it, on the legacy release through initEmbeddedCheckout.
    _blank(page, merchant, "basil")
    opened = page.evaluate(PROBE, [account["publishable_key"], session.client_secret,
                                   "initEmbeddedCheckout", {}])
    assert opened == {"ok": True}
    page.frame_locator("iframe[name=embedded-checkout]").get_by_label("Email").wait_for()


def test_a_placeholder_key_fails_as_with_stripe(page: Any, merchant: Merchant,
                                                client: stripe.StripeClient) -> None:
    """'pk_test_your_key_here' has the right shape, so Stripe() accepts it; Stripe then
    refuses it as an invalid API key, and so does the emulator."""
    session = _session(client)
    _blank(page, merchant)
    got = page.evaluate(PROBE, ["pk_test_your_key_here", session.client_secret,
                                "createEmbeddedCheckoutPage"])
    assert got.get("name") == "IntegrationError", got
    assert got["message"].startswith("Invalid API Key provided: pk_test_")


def test_another_accounts_key_cannot_confirm_its_intent(page: Any, merchant: Merchant,
                                                        client: stripe.StripeClient,
                                                        emulator: Any) -> None:
    intent = client.v1.payment_intents.create(params={"amount": 1500, "currency": "usd"})
    other = emulator.new_account()
    page.goto(f"{merchant.base}/card.html?pk={other['publishable_key']}"
              f"&secret={intent.client_secret}&mode=payment")
    page.wait_for_selector("body[data-ready='1']")
    frame = page.frame_locator("#card-element iframe")
    frame.get_by_label("Card number").fill("4242 4242 4242 4242")
    frame.get_by_label("Expiration date").fill("12 / 34")
    frame.get_by_label("Security code").fill("123")
    frame.get_by_label("ZIP").fill("94107")
    page.get_by_role("button", name="Pay").click()
    page.get_by_text(re.compile(r"Error: No such payment.intent")).wait_for()
    assert client.v1.payment_intents.retrieve(intent.id).status == "requires_payment_method"


def test_platform_key_with_stripe_account_opens_a_connected_session(
        page: Any, merchant: Merchant, emulator: Any, account: dict[str, str],
        client: stripe.StripeClient) -> None:
    """Connect: Stripe(platformKey, {stripeAccount}) opens the connected account's session
    (https://docs.stripe.com/js/initializing); an account that is not connected cannot."""
    connected = emulator.app.store.create_account(parent=account["id"])
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "ui_mode": "embedded_page", "redirect_on_completion": "never",
        "line_items": [{"quantity": 1, "price_data": {
            "currency": "usd", "unit_amount": 900, "product_data": {"name": "Tent peg"}}}]},
        options={"stripe_account": connected.id})
    _blank(page, merchant)
    alone = page.evaluate(PROBE, [account["publishable_key"], session.client_secret,
                                  "createEmbeddedCheckoutPage", {}])
    assert "No such checkout.session" in alone.get("message", ""), alone
    opened = page.evaluate(PROBE, [account["publishable_key"], session.client_secret,
                                   "createEmbeddedCheckoutPage",
                                   {"stripeAccount": connected.id}])
    assert opened == {"ok": True}
    page.frame_locator("iframe[name=embedded-checkout]").get_by_text("Tent peg").first.wait_for()
    stranger = emulator.new_account()
    _blank(page, merchant)
    refused = page.evaluate(PROBE, [stranger["publishable_key"], session.client_secret,
                                    "createEmbeddedCheckoutPage",
                                    {"stripeAccount": connected.id}])
    assert "does not have access to account" in refused.get("message", ""), refused


ONE_AT_A_TIME = """async ([key, secret]) => {
  const stripe = Stripe(key);
  const options = {fetchClientSecret: async () => secret};
  const first = await stripe.createEmbeddedCheckoutPage(options);
  let second;
  try { await stripe.createEmbeddedCheckoutPage(options); second = 'created'; }
  catch (e) { second = e.name + ': ' + e.message; }
  first.destroy();
  const third = await stripe.createEmbeddedCheckoutPage(options);
  third.mount('#checkout');
  return {second, mounted: document.querySelectorAll('iframe').length};
}"""


def test_one_embedded_checkout_at_a_time(page: Any, merchant: Merchant, account: dict[str, str],
                                         client: stripe.StripeClient) -> None:
    """A second instance before destroy() is an IntegrationError, as the Embedded Checkout
    reference says (https://docs.stripe.com/js/embedded_checkout/destroy)."""
    session = _session(client)
    _blank(page, merchant)
    got = page.evaluate(ONE_AT_A_TIME, [account["publishable_key"], session.client_secret])
    assert got["second"].startswith("IntegrationError: stripe.createEmbeddedCheckoutPage(): "
                                    "only one Embedded Checkout"), got
    assert got["mounted"] == 1
