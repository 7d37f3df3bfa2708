"""Checkout pages in real Chromium: hosted and embedded sessions filled like a customer would.

The merchant's own pages come from a small local web server (a loopback origin, like a
merchant app on this machine: Chromium lets such a page load the emulator's Stripe.js);
everything Stripe (the Checkout pages, Stripe.js, the 3D Secure page) comes from a real
emulator. One browser serves the whole module to keep it fast.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import stripe
from playwright.sync_api import Page, expect

from checkout_helpers import CARD_3DS, CARD_DECLINED, CARD_OK, price, serve_merchant_pages

SCREENSHOT = Path("/tmp/stripebench-checkout-complex.png")
SHOP_PAGES: dict[str, str] = {}  # path -> HTML the merchant server returns


_SHOP_SERVER = serve_merchant_pages(SHOP_PAGES)
SHOP = f"http://127.0.0.1:{_SHOP_SERVER.server_address[1]}"
SUCCESS = SHOP + "/success?session_id={CHECKOUT_SESSION_ID}"


def fill_card(scope: Any, number: str = CARD_OK, card_label: str = "Card number",
              expiry_label: str = "Expiration", name_label: str = "Cardholder name") -> None:
    scope.get_by_label(card_label).fill(number)
    scope.get_by_label(expiry_label).fill("12 / 34")
    scope.locator("#card-cvc").fill("123")
    scope.get_by_label(name_label).fill("Jenny Rosen")
    scope.locator("#billing-postal_code").fill("94107")


def test_hosted_payment_with_promotion_code_shipping_and_custom_fields(
        page: Page, client: stripe.StripeClient) -> None:
    shirt = price(client, 2500, "Trail shirt")
    coupon = client.v1.coupons.create(params={"percent_off": 10, "duration": "once",
                                              "name": "Ten off"})
    promo = client.v1.promotion_codes.create(params={
        "promotion": {"type": "coupon", "coupon": coupon.id}, "code": "TRAIL10"})
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": SUCCESS, "cancel_url": SHOP + "/cart",
        "allow_promotion_codes": True,
        "line_items": [{"price": shirt.id, "quantity": 2,
                        "adjustable_quantity": {"enabled": True, "minimum": 1, "maximum": 4}}],
        "shipping_address_collection": {"allowed_countries": ["US", "CA"]},
        "shipping_options": [
            {"shipping_rate_data": {"display_name": "Ground", "type": "fixed_amount",
                                    "fixed_amount": {"amount": 500, "currency": "usd"}}},
            {"shipping_rate_data": {"display_name": "Overnight", "type": "fixed_amount",
                                    "fixed_amount": {"amount": 2000, "currency": "usd"},
                                    "delivery_estimate": {
                                        "minimum": {"unit": "business_day", "value": 1},
                                        "maximum": {"unit": "business_day", "value": 1}}}}],
        "custom_fields": [
            {"key": "size", "type": "dropdown", "label": {"type": "custom", "custom": "Size"},
             "dropdown": {"options": [{"label": "Small", "value": "s"},
                                      {"label": "Large", "value": "l"}]}},
            {"key": "bib", "type": "text", "label": {"type": "custom", "custom": "Bib name"},
             "text": {"minimum_length": 3}},
            {"key": "club", "type": "numeric", "optional": True,
             "label": {"type": "custom", "custom": "Club number"}}]})
    page.goto(session.url)
    expect(page.locator("#total")).to_have_text("$55.00")
    page.get_by_role("button", name="Increase quantity: Trail shirt").click()
    expect(page.locator("#total")).to_have_text("$80.00")
    page.get_by_label("Promotion code").fill("NOPE")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#err-promotion_code")).to_have_text("This code is invalid.")
    page.get_by_label("Promotion code").fill("trail10")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#summary")).to_contain_text("TRAIL10")
    expect(page.locator("#total")).to_have_text("$72.50")  # 75 - 7.50 + 5
    page.get_by_role("radio", name=re.compile("Overnight")).check()
    expect(page.locator("#total")).to_have_text("$87.50")
    # Submitting with gaps shows inline errors and keeps the session open.
    page.get_by_role("button", name="Pay").click()
    expect(page.locator("#err-email")).to_have_text("This field is incomplete.")
    expect(page.locator("#err-custom-bib")).not_to_be_empty()
    page.get_by_label("Email").fill("jenny@example.com")
    page.locator("#shipping-name").fill("Jenny Rosen")
    page.locator("#shipping-country").select_option("US")
    page.locator("#shipping-line1").fill("1 Pearl St")
    page.locator("#shipping-city").fill("Boulder")
    page.locator("#shipping-state").fill("CO")
    page.locator("#shipping-postal_code").fill("80302")
    page.get_by_label("Size").select_option("l")
    page.get_by_label("Bib name").fill("JR")
    page.get_by_label("Club number").fill("12a")
    fill_card(page)
    page.get_by_role("button", name="Pay").click()
    expect(page.locator("#err-custom-bib")).to_have_text("Must be at least 3 characters.")
    expect(page.locator("#err-custom-club")).to_have_text("Only numbers allowed.")
    page.get_by_label("Bib name").fill("JRosen")
    page.get_by_label("Club number").fill("42")
    page.get_by_role("button", name="Pay").click()
    page.wait_for_url(f"{SHOP}/success?session_id={session.id}")
    done = client.v1.checkout.sessions.retrieve(
        session.id, params={"expand": ["discounts.promotion_code", "payment_intent",
                                       "line_items"]})
    assert done.status == "complete" and done.payment_status == "paid"
    assert done.discounts[0].promotion_code.id == promo.id
    assert done.shipping_cost.shipping_rate == done.shipping_options[1].shipping_rate
    assert done.total_details.amount_shipping == 2000
    assert done.amount_total == 8750 == done.payment_intent.amount
    assert done.line_items.data[0].quantity == 3
    values = {f.key: (f.dropdown or f.text or f.numeric).value for f in done.custom_fields}
    assert values == {"size": "l", "bib": "JRosen", "club": "42"}
    shipping = done.collected_information.shipping_details
    assert shipping.name == "Jenny Rosen" and shipping.address.state == "CO"


def test_embedded_subscription_trial(page: Page, emulator: Any, account: dict[str, str],
                                     client: stripe.StripeClient) -> None:
    plan = price(client, 1200, "Trail Club", recurring={"interval": "month"})
    session = client.v1.checkout.sessions.create(params={
        "mode": "subscription", "ui_mode": "embedded_page",
        "return_url": SHOP + "/return?session_id={CHECKOUT_SESSION_ID}",
        "line_items": [{"price": plan.id, "quantity": 1}],
        "subscription_data": {"trial_period_days": 14}})
    merchant = f"""<!doctype html><html><head>
<script src="{emulator.base}/js.stripe.com/v3/"></script></head><body>
<h1>Join the club</h1><div id="checkout"></div><script>
const stripe = Stripe({account['publishable_key']!r});
stripe.initEmbeddedCheckout({{fetchClientSecret: () => Promise.resolve(
  {session.client_secret!r})}}).then((c) => c.mount('#checkout'));
</script></body></html>"""
    SHOP_PAGES["/join"] = merchant
    page.goto(f"{SHOP}/join")
    frame = page.frame_locator("iframe[name=embedded-checkout]")
    expect(frame.locator("#summary-title")).to_have_text("Try Trail Club")
    expect(frame.locator("#summary")).to_contain_text("14 days free")
    expect(frame.locator("#summary")).to_contain_text("Then $12.00 per month starting")
    expect(frame.locator("#total")).to_have_text("$0.00")
    frame.get_by_label("Email").fill("member@example.com")
    fill_card(frame)
    frame.get_by_role("button", name="Start trial").click()
    page.wait_for_url(f"{SHOP}/return?session_id={session.id}")
    done = client.v1.checkout.sessions.retrieve(session.id, params={"expand": ["subscription"]})
    assert done.status == "complete"
    assert done.payment_status == "no_payment_required"
    assert done.subscription.status == "trialing"
    assert done.customer_details.email == "member@example.com"


def test_embedded_payment_calls_on_complete(page: Page, emulator: Any, account: dict[str, str],
                                            client: stripe.StripeClient) -> None:
    """redirect_on_completion=never: no navigation, Stripe.js calls onComplete."""
    item = price(client, 3900, "Race entry")
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "ui_mode": "embedded_page", "redirect_on_completion": "never",
        "submit_type": "book", "line_items": [{"price": item.id, "quantity": 1}]})
    SHOP_PAGES["/race"] = f"""<!doctype html><html><head>
<script src="{emulator.base}/js.stripe.com/v3/"></script></head><body>
<p id="status">waiting</p><div id="checkout"></div><script>
Stripe({account['publishable_key']!r}).initEmbeddedCheckout({{
  clientSecret: {session.client_secret!r},
  onComplete: () => {{ document.getElementById('status').textContent = 'completed'; }},
}}).then((c) => c.mount('#checkout'));
</script></body></html>"""
    page.goto(f"{SHOP}/race")
    frame = page.frame_locator("iframe[name=embedded-checkout]")
    frame.get_by_label("Email").fill("runner@example.com")
    fill_card(frame)
    frame.get_by_role("button", name="Book").click()
    expect(page.locator("#status")).to_have_text("completed")
    assert page.url == f"{SHOP}/race"
    done = client.v1.checkout.sessions.retrieve(session.id)
    assert done.status == "complete" and done.payment_status == "paid"


def test_setup_mode_saves_a_card(page: Page, client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={"email": "saver@example.com"})
    session = client.v1.checkout.sessions.create(params={
        "mode": "setup", "currency": "usd", "customer": customer.id, "success_url": SUCCESS})
    page.goto(session.url)
    expect(page.get_by_label("Email")).to_have_value("saver@example.com")
    fill_card(page)
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(re.escape(SHOP) + "/success"))
    done = client.v1.checkout.sessions.retrieve(session.id, params={"expand": ["setup_intent"]})
    assert done.status == "complete" and done.setup_intent.status == "succeeded"
    saved = client.v1.customers.payment_methods.list(customer.id).data
    assert [m.card.last4 for m in saved] == ["4242"]


def test_declined_card_shows_the_decline(page: Page, client: stripe.StripeClient) -> None:
    item = price(client, 900, "Gel")
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": SUCCESS, "cancel_url": SHOP + "/cart",
        "line_items": [{"price": item.id, "quantity": 1}]})
    page.goto(session.url)
    page.get_by_label("Email").fill("jenny@example.com")
    fill_card(page, CARD_DECLINED)
    page.get_by_role("button", name="Pay").click()
    expect(page.locator("#err-card-number")).to_have_text("Your card was declined.")
    expect(page.get_by_role("button", name="Pay")).to_be_enabled()
    assert SHOP not in page.url
    assert client.v1.checkout.sessions.retrieve(session.id).status == "open"
    # An expired card is refused inline, before any payment is tried.
    page.get_by_label("Card number").fill(CARD_OK)
    page.get_by_label("Expiration").fill("12 / 25")
    page.get_by_role("button", name="Pay").click()
    expect(page.locator("#err-card-expiry")).to_have_text(
        "Your card's expiration year is in the past.")
    assert client.v1.checkout.sessions.retrieve(session.id).status == "open"
    # The back link goes to cancel_url and leaves the session open.
    page.get_by_role("link", name="Back").click()
    page.wait_for_url(f"{SHOP}/cart")
    assert client.v1.checkout.sessions.retrieve(session.id).status == "open"


def test_donation_with_a_chosen_amount(page: Page, client: stripe.StripeClient) -> None:
    fund = client.v1.prices.create(params={
        "currency": "eur", "product_data": {"name": "Trail fund"},
        "custom_unit_amount": {"enabled": True, "minimum": 300}})
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "submit_type": "donate", "locale": "fr", "success_url": SUCCESS,
        "line_items": [{"price": fund.id, "quantity": 1}]})
    page.goto(session.url)
    page.get_by_label("E-mail").fill("don@example.com")
    fill_card(page.locator("body"), CARD_OK, card_label="Numéro de carte",
              expiry_label="Date d'expiration", name_label="Nom du titulaire de la carte")
    page.get_by_role("button", name="Faire un don").click()
    expect(page.locator("[id^=err-amount-]")).to_have_text("Ce champ est incomplet.")
    page.get_by_label("Choisissez un montant").fill("12,50")
    page.get_by_label("Choisissez un montant").press("Tab")
    expect(page.locator("#total")).to_have_text("12,50\u00a0€")
    page.get_by_role("button", name="Faire un don").click()
    page.wait_for_url(re.compile(re.escape(SHOP) + "/success"))
    assert client.v1.checkout.sessions.retrieve(session.id).amount_total == 1250


def test_3d_secure_card_goes_through_the_challenge(page: Page,
                                                  client: stripe.StripeClient) -> None:
    item = price(client, 4900, "Headlamp")
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": SUCCESS,
        "line_items": [{"price": item.id, "quantity": 1}]})
    page.goto(session.url)
    page.get_by_label("Email").fill("jenny@example.com")
    fill_card(page, CARD_3DS)
    page.get_by_role("button", name="Pay").click()
    page.get_by_role("button", name="Complete authentication").click()
    page.wait_for_url(re.compile(re.escape(SHOP) + "/success"))
    done = client.v1.checkout.sessions.retrieve(session.id, params={"expand": ["payment_intent"]})
    assert done.payment_status == "paid" and done.payment_intent.status == "succeeded"


def test_complex_session_shows_every_option(page: Page, client: stripe.StripeClient) -> None:
    """20+ options on one page; each must be readable as text."""
    hoodie = client.v1.products.create(params={"name": "Alpine hoodie",
                                               "description": "Recycled fleece"})
    hoodie_price = client.v1.prices.create(params={
        "product": hoodie.id, "currency": "usd", "unit_amount": 6400,
        "currency_options": {"eur": {"unit_amount": 5900}}})
    socks = price(client, 1200, "Wool socks", currency="eur")
    bottle = price(client, 1800, "Steel bottle", currency="eur")
    coupon = client.v1.coupons.create(params={"percent_off": 15, "duration": "once",
                                              "name": "Members"})
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "currency": "eur", "locale": "de", "submit_type": "donate",
        "success_url": SUCCESS, "cancel_url": SHOP + "/cart",
        "discounts": [{"coupon": coupon.id}],
        "line_items": [
            {"price": hoodie_price.id, "quantity": 2,
             "adjustable_quantity": {"enabled": True, "minimum": 1, "maximum": 8}},
            {"price": socks.id, "quantity": 3}],
        "optional_items": [{"price": bottle.id, "quantity": 1}],
        "automatic_tax": {"enabled": True},
        "shipping_address_collection": {"allowed_countries": ["DE", "FR", "NL"]},
        "shipping_options": [
            {"shipping_rate_data": {"display_name": "DHL Paket", "type": "fixed_amount",
                                    "fixed_amount": {"amount": 490, "currency": "eur"},
                                    "delivery_estimate": {
                                        "minimum": {"unit": "business_day", "value": 2},
                                        "maximum": {"unit": "business_day", "value": 4}}}},
            {"shipping_rate_data": {"display_name": "Kurier", "type": "fixed_amount",
                                    "fixed_amount": {"amount": 1500, "currency": "eur"}}}],
        "custom_fields": [
            {"key": "colour", "type": "dropdown",
             "label": {"type": "custom", "custom": "Farbe"},
             "dropdown": {"options": [{"label": "Schiefer", "value": "slate"},
                                      {"label": "Moos", "value": "moss"}],
                          "default_value": "moss"}},
            {"key": "note", "type": "text", "optional": True,
             "label": {"type": "custom", "custom": "Lieferhinweis"},
             "text": {"minimum_length": 2, "maximum_length": 30}},
            {"key": "member", "type": "numeric",
             "label": {"type": "custom", "custom": "Mitgliedsnummer"},
             "numeric": {"maximum_length": 8}}],
        "custom_text": {"shipping_address": {"message": "Keine Packstationen."},
                        "submit": {"message": "Versand innerhalb von 24 Stunden."},
                        "after_submit": {"message": "Danke für deine Spende!"},
                        "terms_of_service_acceptance": {"message": "Ich akzeptiere die AGB."}},
        "consent_collection": {"terms_of_service": "required", "promotions": "auto"},
        "phone_number_collection": {"enabled": True},
        "tax_id_collection": {"enabled": True},
        "billing_address_collection": "required",
        "branding_settings": {"display_name": "Bergladen", "button_color": "#2f6f4e",
                              "background_color": "#f4f1ea", "border_style": "pill"}})
    page.goto(session.url)
    expected = [
        "Bergladen", "Alpine hoodie", "Recycled fleece", "Menge 1–8", "Wool socks",
        "Menge 3", "je 12,00\u00a0€", "Steel bottle", "Zu Ihrer Bestellung hinzufügen",
        "Members", "15 % Rabatt", "DHL Paket", "2 Werktage bis 4 Werktage", "Kurier",
        "15,00\u00a0€", "Steuer", "Adresse eingeben, um zu berechnen", "Lieferadresse",
        "Keine Packstationen.", "Farbe", "Schiefer", "Moos", "Lieferhinweis", "Optional",
        "2–30 Zeichen", "Mitgliedsnummer", "Nur Ziffern", "Telefonnummer",
        "Ich kaufe als Unternehmen ein", "Rechnungsadresse",
        "Ich möchte Neuigkeiten und personalisierte Angebote erhalten",
        "Ich stimme den Nutzungsbedingungen zu", "Ich akzeptiere die AGB.",
        "Versand innerhalb von 24 Stunden.", "Danke für deine Spende!", "Spenden",
    ]
    text = page.locator("body").inner_text()
    missing = [item for item in expected if item not in text]
    assert not missing, missing
    countries = page.locator("#shipping-country option").all_inner_texts()
    assert countries == ["Germany", "France", "Netherlands"]
    assert page.locator("html").get_attribute("lang") == "de"
    button = page.get_by_role("button", name="Spenden")
    assert button.evaluate("b => getComputedStyle(b).backgroundColor") == "rgb(47, 111, 78)"
    expect(page.get_by_label("Farbe")).to_have_value("moss")
    # Every control has an accessible name and none is taken out of the tab order.
    unnamed = page.evaluate("""() => [...document.querySelectorAll(
        'input:not([type=hidden]), select, button')].filter((el) => {
          const label = el.labels && el.labels.length ? el.labels[0].textContent.trim() : '';
          return !(label || el.getAttribute('aria-label') || el.textContent.trim())
            || el.tabIndex < 0; }).map((el) => el.outerHTML)""")
    assert unnamed == []
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.tagName") in ("A", "INPUT", "BUTTON")
    page.locator("#shipping-country").select_option("FR")
    expect(page.locator("#summary")).to_contain_text("MwSt. (20%)")
    page.screenshot(path=str(SCREENSHOT), full_page=True)
    assert SCREENSHOT.stat().st_size > 20_000


def test_keyboard_alone_completes_a_session(page: Page, client: stripe.StripeClient) -> None:
    """Tab reaches every field in page order; typing and Enter complete the payment."""
    item = price(client, 1500, "Map")
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": SUCCESS, "locale": "es",
        "phone_number_collection": {"enabled": True},
        "line_items": [{"price": item.id, "quantity": 1}],
        "custom_fields": [{"key": "club", "type": "text",
                           "label": {"type": "custom", "custom": "Club"}}]})
    page.goto(session.url)
    typed = {"email": "keys@example.com", "phone": "+34 600 000 000",
             "card-number": CARD_OK, "card-expiry": "12 / 34", "card-cvc": "123",
             "card-name": "Key Board", "billing-postal_code": "28001",
             "custom-club": "Ridge runners"}
    reached: list[str] = []
    for _ in range(60):
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.id")
        reached.append(focused)
        # A complete card number, expiry or CVC moves the focus on by itself, as on Stripe.
        while focused in typed and typed[focused]:
            page.keyboard.type(typed[focused])
            typed[focused] = ""
            moved = page.evaluate("document.activeElement.id")
            if moved == focused:
                break
            focused = moved
            reached.append(focused)
        if focused == "submit":
            break
    assert set(typed) <= set(reached), reached
    assert reached.index("email") < reached.index("card-number") < reached.index("submit")
    assert reached[-1] == "submit"
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(re.escape(SHOP) + "/success"))
    done = client.v1.checkout.sessions.retrieve(session.id)
    assert done.status == "complete" and done.customer_details.phone == "+34600000000"
    assert done.custom_fields[0].text.value == "Ridge runners"
