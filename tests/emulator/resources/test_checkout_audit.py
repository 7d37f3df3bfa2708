"""Checkout items from the issue's checklist that other Checkout tests leave unproven.

Pages are read as HTML (the text a person or agent reads); completion goes through the
page's own JSON actions, as in test_checkout_api.py.
"""

from __future__ import annotations

import html as htmllib
import re
from typing import Any

import httpx
import stripe

from checkout_helpers import CARD_3DS, confirm, page_base, price, state

SUCCESS = "https://shop.test/success?session_id={CHECKOUT_SESSION_ID}"


def page_text(url: str, **headers: str) -> str:
    """The page's visible text, tags dropped and entities decoded, spaces collapsed."""
    raw = httpx.get(url, headers=headers).text
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S)
    text = htmllib.unescape(re.sub(r"<[^>]+>", " ", raw))
    return re.sub(r"\s+", " ", text)


def create(client: stripe.StripeClient, **params: Any) -> stripe.checkout.Session:
    return client.v1.checkout.sessions.create(params={"success_url": SUCCESS, **params})


def test_page_shows_product_images_and_descriptions(client: stripe.StripeClient) -> None:
    s = create(client, mode="payment", line_items=[{"price_data": {
        "currency": "usd", "unit_amount": 1500,
        "product_data": {"name": "Mug", "description": "Stoneware, 350 ml",
                         "images": ["https://img.test/mug.png"]}}, "quantity": 1}])
    raw = httpx.get(s.url).text
    assert re.search(r'<img[^>]+src="https://img.test/mug.png"[^>]*alt="Mug"', raw) or \
        re.search(r'<img[^>]+alt="Mug"[^>]*src="https://img.test/mug.png"', raw), raw
    assert "Stoneware, 350 ml" in page_text(s.url)


def test_optional_item_added_on_the_page_is_bought(emulator: Any,
                                                   client: stripe.StripeClient) -> None:
    lamp = price(client, 3000, "Lamp")
    bulb = price(client, 400, "Spare bulb")
    s = create(client, mode="payment", line_items=[{"price": lamp.id, "quantity": 1}],
               optional_items=[{"price": bulb.id, "quantity": 2,
                                "adjustable_quantity": {"enabled": True, "maximum": 5}}])
    assert s.amount_total == 3000
    text = page_text(s.url)
    assert "Spare bulb" in text and "$4.00" in text
    # The page's add button names the optional item the cart action takes.
    ids = re.findall(r'class="add-optional" data-item="([^"]+)"', httpx.get(s.url).text)
    assert len(ids) == 1, "no add button for the optional item"
    added = state(emulator.base, s, action="add_optional", item=ids[0])
    assert added["errors"] == {}
    assert "$38.00" in htmllib.unescape(added["summary_html"])
    assert confirm(emulator.base, s)["complete"]
    done = client.v1.checkout.sessions.retrieve(s.id, params={"expand": ["line_items"]})
    assert done.amount_total == 3800
    assert [(li.description, li.quantity) for li in done.line_items.data] == [
        ("Lamp", 1), ("Spare bulb", 2)]


def test_page_words_intervals_trials_and_anchors(client: stripe.StripeClient) -> None:
    yearly = price(client, 12000, "Annual pass", recurring={"interval": "year"})
    quarterly = price(client, 2700, "Quarterly box",
                      recurring={"interval": "month", "interval_count": 3})
    now = client.v1.checkout.sessions.create(params={
        "mode": "subscription", "success_url": SUCCESS,
        "line_items": [{"price": yearly.id, "quantity": 1}]}).created
    plain = create(client, mode="subscription",
                   line_items=[{"price": yearly.id, "quantity": 1},
                               {"price": quarterly.id, "quantity": 1}])
    text = page_text(plain.url)
    assert "per year" in text and "every 3 months" in text, text
    assert "Subscribe" in text
    until = create(client, mode="subscription", line_items=[{"price": quarterly.id,
                                                              "quantity": 1}],
                   subscription_data={"trial_end": now + 10 * 86400})
    text = page_text(until.url)
    assert "Free until" in text or "free until" in text, text
    assert "Start trial" in text
    anchor = now + 15 * 86400
    prorated = create(client, mode="subscription",
                      line_items=[{"price": quarterly.id, "quantity": 1}],
                      subscription_data={"billing_cycle_anchor": anchor})
    assert "Prorated charge for the period until" in page_text(prorated.url)
    deferred = create(client, mode="subscription",
                      line_items=[{"price": quarterly.id, "quantity": 1}],
                      subscription_data={"billing_cycle_anchor": anchor,
                                         "proration_behavior": "none"})
    text = page_text(deferred.url)
    assert "(no proration)" in text and "Subscribe" in text and "Start trial" not in text
    configured = create(client, mode="subscription",
                        line_items=[{"price": quarterly.id, "quantity": 1}],
                        subscription_data={"billing_cycle_anchor_config": {"day_of_month": 20}})
    assert "Prorated charge for the period until" in page_text(configured.url)


def test_guest_payment_creates_no_customer(emulator: Any, client: stripe.StripeClient) -> None:
    s = create(client, mode="payment", line_items=[{"price": price(client, 700).id,
                                                    "quantity": 1}],
               billing_address_collection="required")
    form_billing = {"country": "US", "line1": "1 Main St", "city": "Austin", "state": "TX",
                    "postal_code": "73301"}
    assert confirm(emulator.base, s, billing=form_billing)["complete"]
    done = client.v1.checkout.sessions.retrieve(s.id, params={"expand": ["payment_intent"]})
    assert done.customer is None and done.payment_intent.customer is None
    assert done.customer_details.email == "jenny@example.com"
    assert done.customer_details.address.line1 == "1 Main St"
    assert done.customer_details.address.state == "TX"
    assert client.v1.customers.list().data == []


def test_tax_id_collected_on_completion(emulator: Any, client: stripe.StripeClient) -> None:
    s = create(client, mode="payment", tax_id_collection={"enabled": True},
               line_items=[{"price": price(client, 700).id, "quantity": 1}])
    done = confirm(emulator.base, s, tax_id_enabled=True, business_name="Bergladen GmbH",
                   tax_id="DE123456789",
                   billing={"country": "DE", "postal_code": "10115"})
    assert done["complete"], done
    got = client.v1.checkout.sessions.retrieve(s.id)
    assert got.customer_details.business_name == "Bergladen GmbH"
    assert [(t.type, t.value) for t in got.customer_details.tax_ids] == [
        ("eu_vat", "DE123456789")]
    assert got.customer_details.tax_exempt == "none"


def test_completed_event_in_every_mode(emulator: Any, client: stripe.StripeClient) -> None:
    plan = price(client, 900, "Plan", recurring={"interval": "month"})
    sub = create(client, mode="subscription", line_items=[{"price": plan.id, "quantity": 1}])
    save = create(client, mode="setup", currency="usd")
    for s in (sub, save):
        assert confirm(emulator.base, s)["complete"]
    events = client.v1.events.list(params={"type": "checkout.session.completed"}).data
    by_id = {e.data.object["id"]: e.data.object for e in events}
    assert set(by_id) == {sub.id, save.id}
    assert by_id[sub.id]["status"] == "complete" and by_id[sub.id]["subscription"]
    assert by_id[save.id]["setup_intent"] and by_id[save.id]["payment_status"] == \
        "no_payment_required"
    done = client.v1.checkout.sessions.retrieve(sub.id, params={"expand": ["customer"]})
    assert done.customer.email == "jenny@example.com"
    listed = client.v1.checkout.sessions.list(params={"status": "complete"}).data
    assert {x.id for x in listed} == {sub.id, save.id}
    assert client.v1.checkout.sessions.list(params={"status": "open"}).data == []


def test_locale_auto_follows_the_browser(client: stripe.StripeClient) -> None:
    s = create(client, mode="payment", locale="auto",
               line_items=[{"price": price(client, 1250).id, "quantity": 1}])
    raw = httpx.get(s.url, headers={"accept-language": "fr-FR,fr;q=0.9,en;q=0.5"}).text
    assert '<html lang="fr">' in raw and "Payer" in raw


def test_page_names_payment_method_choices(client: stripe.StripeClient) -> None:
    s = create(client, mode="payment", allowed_payment_method_types=["card", "klarna",
                                                                      "us_bank_account"],
               line_items=[{"price": price(client, 1250).id, "quantity": 1}])
    text = page_text(s.url)
    assert "Card" in text and "Klarna" in text and "US bank account" in text


def test_shipping_estimates_in_each_unit_and_free_rate(client: stripe.StripeClient) -> None:
    def rate(name: str, amount: int, low: tuple[str, int] | None,
             high: tuple[str, int] | None) -> dict[str, Any]:
        data: dict[str, Any] = {"display_name": name, "type": "fixed_amount",
                                "fixed_amount": {"amount": amount, "currency": "usd"}}
        estimate = {}
        if low:
            estimate["minimum"] = {"unit": low[0], "value": low[1]}
        if high:
            estimate["maximum"] = {"unit": high[0], "value": high[1]}
        if estimate:
            data["delivery_estimate"] = estimate
        return {"shipping_rate_data": data}
    s = create(client, mode="payment",
               shipping_address_collection={"allowed_countries": ["US"]},
               line_items=[{"price": price(client, 1250).id, "quantity": 1}],
               shipping_options=[rate("Pickup", 0, ("hour", 2), ("hour", 4)),
                                 rate("Mail", 300, ("day", 3), None),
                                 rate("Freight", 900, None, ("week", 2))])
    text = page_text(s.url)
    assert "Pickup" in text and "Free" in text
    assert "2 hours" in text and "4 hours" in text, text
    assert "3 days" in text and "2 weeks" in text, text


def test_embedded_page_for_an_old_version_session(emulator: Any,
                                                  account: dict[str, str]) -> None:
    old = stripe.StripeClient(account["secret_key"], stripe_version="2025-01-27.acacia",
                              base_addresses={"api": emulator.base}, max_network_retries=0)
    p = price(old, 1100, "Poster")
    raw = old.raw_request("post", "/v1/checkout/sessions", mode="payment", ui_mode="embedded",
                          line_items=[{"price": p.id, "quantity": 1}],
                          return_url="https://shop.test/r?s={CHECKOUT_SESSION_ID}")
    s = old.deserialize(raw, api_mode="V1")
    assert s.ui_mode == "embedded" and s.url is None
    url = page_base(emulator.base, s)
    assert "Poster" in page_text(url)
    done = confirm(emulator.base, s)
    assert done["complete"] and done["redirect"] == f"https://shop.test/r?s={s.id}"


def test_failed_authentication_keeps_the_session_open(emulator: Any,
                                                      client: stripe.StripeClient) -> None:
    s = create(client, mode="payment", line_items=[{"price": price(client, 4900).id,
                                                    "quantity": 1}])
    first = confirm(emulator.base, s, card={"number": CARD_3DS, "expiry": "12 / 34",
                                            "cvc": "123", "name": "J"})
    assert not first["complete"] and first["redirect"]
    challenge = httpx.post(first["redirect"], data={"outcome": "fail"}, follow_redirects=False)
    back = httpx.get(challenge.headers["location"], follow_redirects=False)
    assert back.status_code == 200  # the page again, not the success_url
    text = page_text(challenge.headers["location"])
    assert "We are unable to authenticate your payment method." in text, text
    assert client.v1.checkout.sessions.retrieve(s.id).status == "open"
    assert confirm(emulator.base, s)["complete"]


def test_no_cost_order_collects_no_payment_method(emulator: Any,
                                                  client: stripe.StripeClient) -> None:
    """Stripe's no-cost orders: nothing due, no payment method, and a Customer is created."""
    free = price(client, 0, "Sample")
    s = create(client, mode="payment", line_items=[{"price": free.id, "quantity": 1}])
    assert s.amount_total == 0
    assert re.search(r'<div id="payment-method"\s+hidden', httpx.get(s.url).text)
    done = confirm(emulator.base, s, card={}, billing={})
    assert done["complete"], done
    got = client.v1.checkout.sessions.retrieve(s.id, params={"expand": ["customer"]})
    assert got.payment_status == "no_payment_required" and got.payment_intent is None
    assert got.customer.email == "jenny@example.com"
    paid = create(client, mode="payment", line_items=[{"price": price(client, 500).id,
                                                       "quantity": 1}])
    assert re.search(r'<div id="payment-method"\s*>', httpx.get(paid.url).text)


def test_trial_without_payment_method_collection(emulator: Any,
                                                 client: stripe.StripeClient) -> None:
    plan = price(client, 1500, "Plan", recurring={"interval": "month"})
    s = create(client, mode="subscription", payment_method_collection="if_required",
               line_items=[{"price": plan.id, "quantity": 1}],
               subscription_data={"trial_period_days": 7})
    assert re.search(r'<div id="payment-method"\s+hidden', httpx.get(s.url).text)
    assert confirm(emulator.base, s, card={}, billing={})["complete"]
    got = client.v1.checkout.sessions.retrieve(s.id, params={"expand": ["subscription"]})
    assert got.payment_status == "no_payment_required"
    assert got.subscription.status == "trialing"
    assert got.subscription.default_payment_method is None
    # Without if_required a trial still collects a card (Stripe's default `always`).
    always = create(client, mode="subscription", line_items=[{"price": plan.id, "quantity": 1}],
                    subscription_data={"trial_period_days": 7})
    assert re.search(r'<div id="payment-method"\s*>', httpx.get(always.url).text)
    assert "card-number" in confirm(emulator.base, always, card={})["errors"]


def test_test_clock_customer_dates_and_prorations(emulator: Any,
                                                  client: stripe.StripeClient) -> None:
    """A customer on a test clock: the page's dates and amounts are the clock's."""
    mar_1 = 1772323200  # 2026-03-01T00:00:00Z, two months after the account's own time
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": mar_1})
    customer = client.v1.customers.create(params={"email": "clock@example.com",
                                                  "test_clock": clock.id})
    plan = price(client, 3100, "Clocked", recurring={"interval": "month"})
    trial = create(client, mode="subscription", customer=customer.id,
                   line_items=[{"price": plan.id, "quantity": 1}],
                   subscription_data={"trial_period_days": 14})
    assert "Then $31.00 per month starting March 15, 2026" in page_text(trial.url)
    assert confirm(emulator.base, trial, email="clock@example.com")["complete"]
    sub = client.v1.checkout.sessions.retrieve(trial.id, params={"expand": ["subscription"]})
    assert sub.subscription.trial_end == mar_1 + 14 * 86400
    anchored = create(client, mode="subscription", customer=customer.id,
                      line_items=[{"price": plan.id, "quantity": 1}],
                      subscription_data={"billing_cycle_anchor": mar_1 + 10 * 86400})
    assert anchored.amount_total == round(3100 * 10 / 28)  # 11 Feb → 11 Mar: 28 days
    assert confirm(emulator.base, anchored, email="clock@example.com")["complete"]
    done = client.v1.checkout.sessions.retrieve(anchored.id, params={"expand": ["invoice"]})
    assert done.invoice.amount_paid == anchored.amount_total == done.amount_total
