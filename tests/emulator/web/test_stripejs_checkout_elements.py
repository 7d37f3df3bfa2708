"""Elements with Checkout Sessions in real Chromium: our Stripe.js `initCheckout` /
`initCheckoutElementsSdk` paying sessions created with ui_mode `custom` (`elements` from
API version 2026-03-25.dahlia), checked with the official python SDK.

Stripe's behaviour reproduced (https://docs.stripe.com/checkout/custom/quickstart,
https://docs.stripe.com/js/custom_checkout, @stripe/stripe-js checkout.d.ts per release):
- the session has a `client_secret` and no `url`; Stripe.js reads and changes it, the
  Payment Element collects the card and `confirm()` pays it (declines resolve
  `{type: 'error', error: {code: 'paymentFailed', paymentFailed: {declineCode}}}`,
  3D Secure cards open the challenge);
- up to basil `initCheckout({fetchClientSecret})` resolves to the checkout object
  (actions on it, `session()`); from clover it returns the object at once and the actions
  come from `loadActions()` (`getSession()`); dahlia renamed initCheckout to
  initCheckoutElementsSdk (https://docs.stripe.com/changelog/dahlia).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import stripe

from browser.merchant import Merchant, build_react_app


@pytest.fixture(scope="module")
def merchant(emulator: Any) -> Iterator[Merchant]:
    server = Merchant(f"{emulator.base}/js.stripe.com/v3/")
    yield server
    server.stop()


def _session(client: stripe.StripeClient, merchant: Merchant, version: str | None = None,
             **extra: Any) -> stripe.checkout.Session:
    params: dict[str, Any] = {
        "mode": "payment", "ui_mode": "elements",
        "return_url": f"{merchant.base}/complete.html?session_id={{CHECKOUT_SESSION_ID}}",
        "line_items": [{"quantity": 2, "price_data": {
            "currency": "usd", "unit_amount": 1500, "product_data": {"name": "Kite"}}}]}
    params.update(extra)
    options: dict[str, Any] = {"stripe_version": version} if version else {}
    return client.v1.checkout.sessions.create(params=params, options=options)  # type: ignore[arg-type]


# Opens the checkout the way each release does and keeps its actions on window.
OPEN = """async ([pk, secret, method]) => {
  const stripe = Stripe(pk);
  window.__changes = [];
  if (method === 'legacy') {
    const checkout = await stripe.initCheckout({fetchClientSecret: async () => secret});
    checkout.on('change', (s) => window.__changes.push(s));
    checkout.createPaymentElement().mount('#checkout');
    window.__actions = checkout;
    return {type: 'success', session: checkout.session()};
  }
  const checkout = stripe[method]({clientSecret: secret});
  checkout.on('change', (s) => window.__changes.push(s));
  checkout.createPaymentElement().mount('#checkout');
  const loaded = await checkout.loadActions();
  if (loaded.type !== 'success') return loaded;
  window.__actions = loaded.actions;
  return {type: 'success', session: loaded.actions.getSession()};
}"""


def _open(page: Any, merchant: Merchant, account: dict[str, str], secret: str,
          release: str = "endive", method: str = "initCheckoutElementsSdk") -> dict[str, Any]:
    page.goto(f"{merchant.base}/blank.html?release={release}")
    opened: dict[str, Any] = page.evaluate(OPEN, [account["publishable_key"], secret, method])
    return opened


def _fill(page: Any, number: str = "4242424242424242") -> None:
    frame = page.frame_locator("#checkout iframe")
    frame.get_by_label("Card number").fill(number)
    frame.get_by_label("Expiration date").fill("12 / 34")
    frame.get_by_label("Security code").fill("123")
    frame.get_by_label("ZIP code").fill("94107")


def _act(page: Any, script: str) -> Any:
    """Run `script` (an async function of the actions object) and return its result."""
    return page.evaluate(f"async () => ({script})(window.__actions)")


def test_payment_mode_paid_with_4242(page: Any, merchant: Merchant, account: dict[str, str],
                                     client: stripe.StripeClient) -> None:
    session = _session(client, merchant)
    assert session.client_secret and session.url is None
    opened = _open(page, merchant, account, session.client_secret)
    assert opened["type"] == "success", opened
    view = opened["session"]
    assert view["id"] == session.id and view["status"] == {"type": "open"}
    assert view["total"]["total"] == {"minorUnitsAmount": 3000, "amount": "$30.00"}
    assert [(li["name"], li["quantity"]) for li in view["lineItems"]] == [("Kite", 2)]
    assert view["canConfirm"] is False  # no email yet
    empty = _act(page, "async (a) => a.confirm({redirect: 'if_required', "
                       "email: 'kite@example.com'})")
    assert empty["type"] == "error" and "incomplete" in empty["error"]["message"], empty
    _fill(page)
    result = _act(page, "async (a) => { await a.updateEmail('kite@example.com');"
                        " return a.confirm({redirect: 'if_required'}); }")
    assert result["type"] == "success", result
    assert result["session"]["status"] == {"type": "complete", "paymentStatus": "paid"}
    done = client.v1.checkout.sessions.retrieve(session.id, params={"expand": ["payment_intent"]})
    assert (done.status, done.payment_status) == ("complete", "paid")
    assert done.customer_details is not None
    assert done.customer_details.email == "kite@example.com"
    intent = done.payment_intent
    assert isinstance(intent, stripe.PaymentIntent)
    assert (intent.status, intent.amount) == ("succeeded", 3000)
    events = client.v1.events.list(params={"type": "checkout.session.completed"})
    assert [e.data.object["id"] for e in events.data] == [session.id]
    changes = page.evaluate("window.__changes.map((s) => s.status.type)")
    assert changes[-1] == "complete"


def test_confirm_redirects_to_the_return_url_by_default(page: Any, merchant: Merchant,
                                                        account: dict[str, str],
                                                        client: stripe.StripeClient) -> None:
    session = _session(client, merchant, customer_email="fixed@example.com")
    _open(page, merchant, account, str(session.client_secret))
    _fill(page)
    page.evaluate("() => { window.__actions.confirm(); }")
    page.wait_for_url(f"**/complete.html?session_id={session.id}")
    done = client.v1.checkout.sessions.retrieve(session.id)
    assert done.status == "complete"
    assert done.customer_details is not None
    assert done.customer_details.email == "fixed@example.com"


def test_decline_then_retry(page: Any, merchant: Merchant, account: dict[str, str],
                            client: stripe.StripeClient) -> None:
    session = _session(client, merchant)
    _open(page, merchant, account, str(session.client_secret))
    _fill(page, "4000000000000002")
    result = _act(page, "async (a) => a.confirm({redirect: 'if_required', "
                        "email: 'decline@example.com'})")
    assert result["type"] == "error", result
    error = result["error"]
    assert error["code"] == "paymentFailed"
    assert error["paymentFailed"] == {"declineCode": "generic_decline"}
    assert "declined" in error["message"]
    view = _act(page, "async (a) => a.getSession()")
    assert view["status"] == {"type": "open"}
    assert view["lastPaymentError"] == {"message": error["message"]}
    assert client.v1.checkout.sessions.retrieve(session.id).status == "open"
    _fill(page)
    again = _act(page, "async (a) => a.confirm({redirect: 'if_required', "
                       "email: 'decline@example.com'})")
    assert again["type"] == "success", again
    done = client.v1.checkout.sessions.retrieve(session.id)
    assert (done.status, done.payment_status) == ("complete", "paid")


@pytest.mark.parametrize(("button", "paid"), [("Complete authentication", True),
                                              ("Fail authentication", False)])
def test_3ds_card_opens_the_challenge(page: Any, merchant: Merchant, account: dict[str, str],
                                      client: stripe.StripeClient, button: str,
                                      paid: bool) -> None:
    session = _session(client, merchant, customer_email="tds@example.com")
    _open(page, merchant, account, str(session.client_secret))
    _fill(page, "4000002500003155")
    page.evaluate("() => { window.__actions.confirm({redirect: 'if_required'})"
                  ".then((r) => { window.__result = r; }); }")
    page.frame_locator("iframe[title='3D Secure authentication']").get_by_role(
        "button", name=button).click()
    page.wait_for_function("() => window.__result !== undefined")
    result = page.evaluate("window.__result")
    done = client.v1.checkout.sessions.retrieve(session.id)
    if paid:
        assert result["type"] == "success", result
        assert (done.status, done.payment_status) == ("complete", "paid")
    else:
        assert result["type"] == "error" and result["error"]["code"] == "paymentFailed", result
        assert done.status == "open"


def test_subscription_mode(page: Any, merchant: Merchant, account: dict[str, str],
                           client: stripe.StripeClient) -> None:
    price = client.v1.prices.create(params={
        "currency": "usd", "unit_amount": 900, "recurring": {"interval": "month"},
        "product_data": {"name": "Kite club"}})
    session = _session(client, merchant, mode="subscription",
                       line_items=[{"price": price.id, "quantity": 1}])
    opened = _open(page, merchant, account, str(session.client_secret))
    recurring = opened["session"]["recurring"]
    assert (recurring["interval"], recurring["intervalCount"]) == ("month", 1)
    _fill(page)
    result = _act(page, "async (a) => a.confirm({redirect: 'if_required', "
                        "email: 'club@example.com'})")
    assert result["type"] == "success", result
    done = client.v1.checkout.sessions.retrieve(session.id, params={"expand": ["subscription"]})
    assert (done.status, done.payment_status) == ("complete", "paid")
    sub = done.subscription
    assert isinstance(sub, stripe.Subscription) and sub.status == "active"
    assert sub.items.data[0].price.id == price.id


def test_promotion_code_apply_and_remove(page: Any, merchant: Merchant,
                                         account: dict[str, str],
                                         client: stripe.StripeClient) -> None:
    coupon = client.v1.coupons.create(params={"percent_off": 20, "duration": "once"})
    client.v1.promotion_codes.create(params={"promotion": {"type": "coupon",
                                                           "coupon": coupon.id},
                                             "code": "SPRING20"})
    session = _session(client, merchant, allow_promotion_codes=True)
    _open(page, merchant, account, str(session.client_secret))
    bad = _act(page, "async (a) => a.applyPromotionCode('NOPE')")
    assert bad["type"] == "error" and bad["error"]["code"] == "invalidCode", bad
    good = _act(page, "async (a) => a.applyPromotionCode('SPRING20')")
    assert good["type"] == "success", good
    assert good["session"]["total"]["total"]["minorUnitsAmount"] == 2400
    assert good["session"]["discountAmounts"][0]["promotionCode"] == "SPRING20"
    assert page.evaluate("window.__changes.length") == 1
    removed = _act(page, "async (a) => a.removePromotionCode()")
    assert removed["session"]["total"]["total"]["minorUnitsAmount"] == 3000
    _act(page, "async (a) => a.applyPromotionCode('SPRING20')")
    _fill(page)
    result = _act(page, "async (a) => a.confirm({redirect: 'if_required', "
                        "email: 'promo@example.com'})")
    assert result["type"] == "success", result
    done = client.v1.checkout.sessions.retrieve(session.id, params={"expand": ["payment_intent"]})
    assert done.amount_total == 2400
    assert done.total_details is not None and done.total_details.amount_discount == 600
    assert isinstance(done.payment_intent, stripe.PaymentIntent)
    assert done.payment_intent.amount == 2400


def test_email_update_and_quantity(page: Any, merchant: Merchant, account: dict[str, str],
                                   client: stripe.StripeClient) -> None:
    session = _session(client, merchant, line_items=[{
        "quantity": 1, "adjustable_quantity": {"enabled": True, "maximum": 5},
        "price_data": {"currency": "usd", "unit_amount": 1500,
                       "product_data": {"name": "Kite"}}}])
    opened = _open(page, merchant, account, str(session.client_secret))
    item = opened["session"]["lineItems"][0]["id"]
    assert _act(page, "async (a) => a.updateEmail('')")["error"]["code"] == "incompleteEmail"
    assert _act(page, "async (a) => a.updateEmail('nope')")["error"]["code"] == "invalidEmail"
    _fill(page)
    missing = _act(page, "async (a) => a.confirm({redirect: 'if_required'})")
    assert missing["type"] == "error" and "email" in missing["error"]["message"], missing
    assert client.v1.checkout.sessions.retrieve(session.id).status == "open"
    ok = _act(page, "async (a) => a.updateEmail('qty@example.com')")
    assert ok["session"]["email"] == "qty@example.com" and ok["session"]["canConfirm"]
    more = _act(page, f"async (a) => a.updateLineItemQuantity({{lineItem: '{item}', "
                      "quantity: 3})")
    assert more["session"]["total"]["total"]["minorUnitsAmount"] == 4500, more
    result = _act(page, "async (a) => a.confirm({redirect: 'if_required'})")
    assert result["type"] == "success", result
    done = client.v1.checkout.sessions.retrieve(session.id)
    assert done.amount_total == 4500
    assert done.customer_details is not None
    assert done.customer_details.email == "qty@example.com"


def test_legacy_initcheckout_on_basil_with_ui_mode_custom(page: Any, merchant: Merchant,
                                                          account: dict[str, str],
                                                          client: stripe.StripeClient) -> None:
    """Before dahlia the API calls the mode `custom`; basil's initCheckout is a Promise."""
    session = _session(client, merchant, version="2025-03-31.basil", ui_mode="custom")
    assert session.ui_mode == "custom" and session.url is None
    opened = _open(page, merchant, account, str(session.client_secret), "basil", "legacy")
    assert opened["type"] == "success", opened
    _fill(page)
    result = _act(page, "async (a) => a.confirm({redirect: 'if_required', "
                        "email: 'basil@example.com'})")
    assert result["type"] == "success", result
    assert _act(page, "async (a) => a.session().status.type") == "complete"
    assert client.v1.checkout.sessions.retrieve(session.id).status == "complete"


NAMES = """async ([pk, secret]) => {
  const stripe = Stripe(pk);
  const out = {};
  for (const name of ['initCheckout', 'initCheckoutElementsSdk']) {
    try {
      const value = stripe[name]({clientSecret: secret,
                                  fetchClientSecret: undefined});
      out[name] = {ok: true, promise: typeof value.then === 'function',
                   loadActions: typeof value.loadActions === 'function'};
    } catch (e) { out[name] = {error: e.name, message: e.message}; }
  }
  return out;
}"""


@pytest.mark.parametrize("release", ["basil", "clover", "dahlia", "endive"])
def test_each_release_names_its_entry_point(page: Any, merchant: Merchant,
                                            account: dict[str, str],
                                            client: stripe.StripeClient, release: str) -> None:
    session = _session(client, merchant)
    page.goto(f"{merchant.base}/blank.html?release={release}")
    got = page.evaluate(NAMES, [account["publishable_key"], session.client_secret])
    old, new = got["initCheckout"], got["initCheckoutElementsSdk"]
    if release == "basil":
        assert old["error"] == "IntegrationError" and "fetchClientSecret" in old["message"]
        assert new["error"] == "IntegrationError"
        assert "use stripe.initCheckout() instead" in new["message"]
    elif release == "clover":
        assert old == {"ok": True, "promise": False, "loadActions": True}
        assert new == old
    else:
        assert old["error"] == "IntegrationError"
        assert "was removed in Stripe.js dahlia" in old["message"]
        assert "use stripe.initCheckoutElementsSdk() instead" in old["message"]
        assert new == {"ok": True, "promise": False, "loadActions": True}


def test_sessions_stripe_js_may_not_open(page: Any, merchant: Merchant, emulator: Any,
                                         account: dict[str, str],
                                         client: stripe.StripeClient) -> None:
    hosted = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": "https://example.com/ok",
        "line_items": [{"quantity": 1, "price_data": {
            "currency": "usd", "unit_amount": 500, "product_data": {"name": "Pen"}}}]})
    embedded = _session(client, merchant, ui_mode="embedded_page")
    elements = _session(client, merchant)
    other = emulator.new_account()
    page.goto(f"{merchant.base}/blank.html?release=endive")
    probe = """async ([pk, secret]) => {
      const loaded = await Stripe(pk).initCheckoutElementsSdk({clientSecret: secret})
        .loadActions();
      return loaded.type === 'error' ? loaded.error.message : 'opened';
    }"""
    pk = account["publishable_key"]
    assert hosted.client_secret is None
    said = page.evaluate(probe, [pk, embedded.client_secret])
    assert "ui_mode `embedded_page`" in said and "ui_mode `custom`" in said
    said = page.evaluate(probe, [other["publishable_key"], elements.client_secret])
    assert f"No such checkout.session: '{elements.id}'" in said
    forged = str(elements.client_secret).split("_secret_")[0] + "_secret_forged"
    assert "No such checkout.session" in page.evaluate(probe, [pk, forged])
    assert page.evaluate(probe, [pk, elements.client_secret]) == "opened"
    unsupported = page.evaluate("""async ([pk, secret]) => {
      const checkout = Stripe(pk).initCheckoutElementsSdk({clientSecret: secret});
      try { checkout.createTaxIdElement(); return 'created'; }
      catch (e) { return e.name + ': ' + e.message; }
    }""", [pk, elements.client_secret])
    assert unsupported.startswith("IntegrationError: checkout.createTaxIdElement()")


@pytest.mark.parametrize("contact_element", [False, True])
def test_react_checkout_elements_provider_pays(page: Any, emulator: Any,
                                               account: dict[str, str],
                                               client: stripe.StripeClient,
                                               tmp_path: Any, contact_element: bool) -> None:
    """@stripe/react-stripe-js 7's CheckoutElementsProvider (its `checkout` entry point)
    on /endive/stripe.js: useCheckout() shows the session, its PaymentElement mounts our
    card frame, the email comes from updateEmail or the ContactDetailsElement, confirm
    pays the session, and the 'change' event re-renders."""
    bundle = build_react_app(tmp_path, "checkout_app.jsx")
    shop = Merchant(f"{emulator.base}/js.stripe.com/v3/", bundle)
    try:
        session = _session(client, shop)
        email = "" if contact_element else "&email=react-co@example.com"
        page.goto(f"{shop.base}/react/?pk={account['publishable_key']}"
                  f"&secret={session.client_secret}{email}&release=endive")
        page.get_by_test_id("total").filter(has_text="Total $30.00").wait_for()
        if contact_element:
            page.frame_locator("#contact iframe").get_by_label("Email").fill(
                "react-co@example.com")
            page.get_by_test_id("email").filter(has_text="react-co@example.com").wait_for()
        frame = page.frame_locator("iframe[data-stripebench-element=payment]")
        frame.get_by_label("Card number").fill("4242424242424242")
        frame.get_by_label("Expiration date").fill("12 / 34")
        frame.get_by_label("Security code").fill("123")
        frame.get_by_label("ZIP code").fill("94107")
        page.get_by_role("button", name="Pay").click()
        page.get_by_role("status").filter(has_text="Checkout complete").wait_for()
        page.get_by_test_id("session-status").filter(has_text="complete").wait_for()
    finally:
        shop.stop()
    done = client.v1.checkout.sessions.retrieve(session.id)
    assert (done.status, done.payment_status) == ("complete", "paid")
    assert done.customer_details is not None
    assert done.customer_details.email == "react-co@example.com"


def _pages(emulator: Any, account: dict[str, str], session: stripe.checkout.Session,
           suffix: str = "", **params: Any) -> dict[str, Any]:
    """What Stripe.js sends to the emulator, sent by hand (a page that tries its luck)."""
    url = f"{emulator.base}/v1/payment_pages/{session.id}{suffix}"
    body = {"client_secret": session.client_secret, **params}
    got = httpx.post(url, data=body,
                     headers={"authorization": f"Bearer {account['publishable_key']}"})
    out: dict[str, Any] = got.json()
    return out


def test_what_a_page_cannot_do_by_hand(emulator: Any, merchant: Merchant,
                                       account: dict[str, str],
                                       client: stripe.StripeClient) -> None:
    """Amounts are not the page's to set, fixed quantities stay fixed, codes need
    allow_promotion_codes, another customer's card cannot pay, a paid session stays paid."""
    session = _session(client, merchant)
    sent = _pages(emulator, account, session, "/confirm", amount=1,
                  payment_method="pm_card_visa", email="x@example.com")
    assert sent["error"]["param"] == "amount", sent
    item = client.v1.checkout.sessions.line_items.list(session.id).data[0].id
    fixed = _pages(emulator, account, session, action="quantity", line_item=item, quantity=9)
    assert "cannot be changed" in fixed["error"]["message"], fixed
    code = _pages(emulator, account, session, action="promotion_code", value="ANY")
    assert code["error"]["code"] == "invalidCode", code
    someone = client.v1.customers.create()
    theirs = client.v1.payment_methods.attach("pm_card_visa",
                                              params={"customer": someone.id})
    stolen = _pages(emulator, account, session, "/confirm", payment_method=theirs.id,
                    email="thief@example.com")
    assert stolen["session"]["status"] == {"type": "open"}
    assert "another customer" in stolen["error"]["message"], stolen
    paid = _pages(emulator, account, session, "/confirm", payment_method="pm_card_visa",
                  email="x@example.com")
    assert paid["session"]["status"] == {"type": "complete", "paymentStatus": "paid"}, paid
    again = _pages(emulator, account, session, "/confirm", payment_method="pm_card_visa",
                   email="x@example.com")
    assert "no longer open" in again["error"]["message"]
    intents = client.v1.payment_intents.list()
    assert [(pi.amount, pi.status) for pi in intents.data] == [(3000, "succeeded")]


SHIPPING = """async ([pk, secret]) => {
  const checkout = Stripe(pk).initCheckoutElementsSdk({clientSecret: secret});
  const box = document.createElement('div');
  box.id = 'shipping';
  document.body.appendChild(box);
  checkout.createShippingAddressElement().mount('#shipping');
  checkout.createPaymentElement().mount('#checkout');
  window.__checkout = checkout;
  window.__actions = (await checkout.loadActions()).actions;
  return window.__actions.getSession().canConfirm;
}"""


def test_shipping_address_element_and_allowed_countries(page: Any, merchant: Merchant,
                                                        account: dict[str, str],
                                                        client: stripe.StripeClient) -> None:
    session = _session(client, merchant, customer_email="ship@example.com",
                       shipping_address_collection={"allowed_countries": ["US", "CA"]})
    page.goto(f"{merchant.base}/blank.html?release=endive")
    assert page.evaluate(SHIPPING, [account["publishable_key"], session.client_secret]) is False
    far = _act(page, "async (a) => a.updateShippingAddress({name: 'Far Away', address: "
                     "{country: 'FR', line1: '1 rue', city: 'Paris', postal_code: '75001'}})")
    assert far["type"] == "error", far
    ship = page.frame_locator("#shipping iframe")
    ship.get_by_label("Full name").fill("Sam Shipper")
    ship.get_by_label("Address line 1").fill("1 Market St")
    ship.get_by_label("City").fill("San Francisco")
    ship.get_by_label("State").fill("CA")
    ship.get_by_label("ZIP code").fill("94105")
    # The completed Address Element reaches the session at once: canConfirm follows.
    page.wait_for_function("() => window.__actions.getSession().canConfirm")
    view = _act(page, "async (a) => a.getSession().shippingAddress")
    assert view["name"] == "Sam Shipper" and view["address"]["postal_code"] == "94105"
    _fill(page)
    result = _act(page, "async (a) => a.confirm({redirect: 'if_required'})")
    assert result["type"] == "success", result
    done = client.v1.checkout.sessions.retrieve(session.id)
    assert done.collected_information is not None
    shipping = done.collected_information.shipping_details
    assert shipping is not None and shipping.name == "Sam Shipper"
    assert (shipping.address.line1, shipping.address.city, shipping.address.country) == (
        "1 Market St", "San Francisco", "US")


def test_setup_mode_saves_the_card(page: Any, merchant: Merchant, account: dict[str, str],
                                   client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={"email": "saver@example.com"})
    session = _session(client, merchant, mode="setup", currency="usd", customer=customer.id,
                       line_items=None)
    opened = _open(page, merchant, account, str(session.client_secret))
    assert opened["session"]["email"] == "saver@example.com"
    assert opened["session"]["canConfirm"] is True
    _fill(page)
    result = _act(page, "async (a) => a.confirm({redirect: 'if_required'})")
    assert result["type"] == "success", result
    assert result["session"]["status"] == {"type": "complete",
                                           "paymentStatus": "no_payment_required"}
    done = client.v1.checkout.sessions.retrieve(session.id, params={"expand": ["setup_intent"]})
    intent = done.setup_intent
    assert isinstance(intent, stripe.SetupIntent) and intent.status == "succeeded"
    saved = client.v1.customers.payment_methods.list(customer.id)
    assert [pm.id for pm in saved.data] == [intent.payment_method]


def test_hosted_page_pays_with_the_typed_card_only(emulator: Any, merchant: Merchant,
                                                   client: stripe.StripeClient) -> None:
    """The hosted page's confirm ignores a PaymentMethod the browser names: the declining
    card typed on it declines even with `payment_method=pm_card_visa` added."""
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": "https://example.com/ok",
        "line_items": [{"quantity": 1, "price_data": {
            "currency": "usd", "unit_amount": 500, "product_data": {"name": "Pen"}}}]})
    form = {"email": "typed@example.com", "payment_method": "pm_card_visa",
            "card": {"number": "4000000000000002", "expiry": "12 / 34", "cvc": "123",
                     "name": "Typed Card"},
            "billing": {"country": "US", "postal_code": "94107"}}
    got = httpx.post(f"{emulator.base}/checkout.stripe.com/c/pay/{session.id}/confirm",
                     json=form).json()
    assert got["complete"] is False and "declined" in got["errors"]["card-number"], got
    assert client.v1.checkout.sessions.retrieve(session.id).status == "open"


CONTACT = """async ([pk, secret]) => {
  const checkout = Stripe(pk).initCheckoutElementsSdk({clientSecret: secret});
  const box = document.createElement('div');
  box.id = 'contact';
  document.body.prepend(box);
  checkout.createContactDetailsElement().mount('#contact');
  checkout.createPaymentElement().mount('#checkout');
  window.__changes = [];
  checkout.on('change', (s) => window.__changes.push(s.email));
  window.__actions = (await checkout.loadActions()).actions;
  return window.__actions.getSession().email;
}"""


def test_contact_details_element_collects_the_email(page: Any, merchant: Merchant,
                                                    account: dict[str, str],
                                                    client: stripe.StripeClient) -> None:
    """dahlia's Contact Details Element (https://docs.stripe.com/changelog/dahlia/2026-05-27/
    add-contact-details-element-to-checkout) collects the email without updateEmail."""
    session = _session(client, merchant)
    page.goto(f"{merchant.base}/blank.html?release=endive")
    assert page.evaluate(CONTACT, [account["publishable_key"], session.client_secret]) is None
    page.frame_locator("#contact iframe").get_by_label("Email").fill("contact@example.com")
    page.wait_for_function("() => window.__changes.includes('contact@example.com')")
    _fill(page)
    result = _act(page, "async (a) => a.confirm({redirect: 'if_required'})")
    assert result["type"] == "success", result
    done = client.v1.checkout.sessions.retrieve(session.id)
    assert done.customer_details is not None
    assert done.customer_details.email == "contact@example.com"
