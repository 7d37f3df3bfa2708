"""Payment Links through the python SDK: each visit opens a Checkout Session."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import stripe

from checkout_helpers import confirm, price


def visit(url: str) -> httpx.Response:
    return httpx.get(url, follow_redirects=False, timeout=30)


def session_from(client: stripe.StripeClient, response: httpx.Response) -> stripe.checkout.Session:
    assert response.status_code == 303, response.text
    return client.v1.checkout.sessions.retrieve(response.headers["location"].rsplit("/", 1)[-1])


def test_payment_link_opens_sessions_and_redirects(emulator: Any,
                                                   client: stripe.StripeClient) -> None:
    shoes = price(client, 12000, "Trail shoes")
    link = client.v1.payment_links.create(params={
        "line_items": [{"price": shoes.id, "quantity": 1,
                        "adjustable_quantity": {"enabled": True, "maximum": 3}}],
        "after_completion": {"type": "redirect",
                             "redirect": {"url": "https://shop.test/thanks"}},
        "allow_promotion_codes": True, "phone_number_collection": {"enabled": True},
        "custom_fields": [{"key": "size", "type": "numeric",
                           "label": {"type": "custom", "custom": "Shoe size"}}],
        "metadata": {"campaign": "spring"}})
    assert link.id.startswith("plink_") and link.active
    assert "buy.stripe.com" in link.url and link.url.endswith(f"/test_{link.id}")
    assert link.allow_promotion_codes is True and link.custom_fields[0].key == "size"
    items = client.v1.payment_links.line_items.list(link.id)
    assert items.data[0].price.id == shoes.id and items.data[0].quantity == 1
    first = session_from(client, visit(link.url))
    second = session_from(client, visit(link.url))
    assert first.id != second.id
    assert first.payment_link == link.id and first.mode == "payment"
    assert first.allow_promotion_codes and first.phone_number_collection.enabled
    assert first.success_url == "https://shop.test/thanks" and first.amount_total == 12000
    done = confirm(emulator.base, first, phone="+15555550123", custom_fields={"size": "43"})
    assert done["complete"] and done["redirect"] == "https://shop.test/thanks"
    listed = client.v1.checkout.sessions.list(params={"payment_link": link.id})
    assert {s.id for s in listed.data} == {first.id, second.id}


def test_payment_link_subscription_limit_and_deactivation(emulator: Any,
                                                          client: stripe.StripeClient) -> None:
    monthly = price(client, 900, "Club", recurring={"interval": "month"})
    link = client.v1.payment_links.create(params={
        "line_items": [{"price": monthly.id, "quantity": 1}],
        "subscription_data": {"trial_period_days": 7},
        "after_completion": {"type": "hosted_confirmation",
                             "hosted_confirmation": {"custom_message": "Welcome aboard!"}},
        "restrictions": {"completed_sessions": {"limit": 1}}})
    session = session_from(client, visit(link.url))
    assert session.mode == "subscription" and session.amount_total == 0
    assert confirm(emulator.base, session)["complete"]
    done_page = httpx.get(session.url + "/done").text
    assert "Welcome aboard!" in done_page
    closed = visit(link.url)
    assert closed.status_code == 410
    assert client.v1.payment_links.retrieve(link.id).active is False
    client.v1.payment_links.update(link.id, params={"active": True,
                                                    "restrictions": {"completed_sessions": {
                                                        "limit": 5}}})
    assert visit(link.url).status_code == 303
    client.v1.payment_links.update(link.id, params={"active": False,
                                                    "inactive_message": "Sold out"})
    gone = visit(link.url)
    assert gone.status_code == 410 and "Sold out" in gone.text
    assert [pl.id for pl in client.v1.payment_links.list(params={"active": False}).data] == [
        link.id]


def test_payment_link_param_rules(client: stripe.StripeClient) -> None:
    one_time = price(client, 500)
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.payment_links.create(params={
            "line_items": [{"price": one_time.id, "quantity": 1}],
            "subscription_data": {"trial_period_days": 3}})
    assert info.value.param == "subscription_data"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.payment_links.create(params={"line_items": []})
    assert info.value.param == "line_items"


def test_payment_link_inline_prices_stay_usable(client: stripe.StripeClient) -> None:
    link = client.v1.payment_links.create(params={"line_items": [{
        "price_data": {"currency": "eur", "unit_amount": 2500,
                       "product_data": {"name": "Workshop seat"}}, "quantity": 2}]})
    session = session_from(client, visit(link.url))
    assert session.amount_total == 5000 and session.currency == "eur"
    inline = client.v1.payment_links.line_items.list(link.id).data[0].price
    assert inline.active is False
    with pytest.raises(stripe.InvalidRequestError) as info:  # nobody else may reuse it
        client.v1.checkout.sessions.create(params={
            "mode": "payment", "success_url": "https://shop.test/ok",
            "line_items": [{"price": inline.id, "quantity": 1}]})
    assert info.value.param == "line_items[0][price]"
