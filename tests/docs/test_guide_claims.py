"""The defaults and HTTP statuses the guides and docs/fidelity.md state, asked of the
emulator (issue 28). This checks agreement, not truth: the truth is in the Stripe pages
each guide cites in its front matter (docs/guide-audit.md)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import stripe

from conftest import RunningEmulator
from paths import REPO
from stripebench.docs import guide_pages

GUIDES = guide_pages.GUIDES_DIR


def _text(name: str) -> str:
    path = REPO / "docs" / name if name == "fidelity.md" else GUIDES / name
    return " ".join(path.read_text().split())


def _error(r: httpx.Response) -> dict[str, Any]:
    body: dict[str, Any] = r.json()["error"]
    return body


def test_status_table_of_api_errors(emulator: RunningEmulator, account: dict[str, str],
                                    client: stripe.StripeClient) -> None:
    text = _text("api.errors.md")
    base = f"{emulator.base}/v1/customers"
    secret = {"Authorization": f"Bearer {account['secret_key']}"}
    # 401 invalid_request_error: missing and unknown keys
    assert "| 401 | `invalid_request_error` | invalid or missing API key" in text
    for headers in ({}, {"Authorization": "Bearer sk_test_nosuchkey000000000000"}):
        r = httpx.get(base, headers=headers)
        assert (r.status_code, _error(r)["type"]) == (401, "invalid_request_error")
    # a publishable key on a secret endpoint: 401
    assert "refused with HTTP 401" in text
    r = httpx.get(base, headers={"Authorization": f"Bearer {account['publishable_key']}"})
    assert r.status_code == 401
    # 404 resource_missing
    assert "| 404 | `invalid_request_error` | `resource_missing`" in text
    r = httpx.get(f"{base}/cus_missing", headers=secret)
    assert (r.status_code, _error(r)["code"]) == (404, "resource_missing")
    # 400 parameter_unknown / parameter_missing
    r = httpx.post(base, headers=secret, data={"nosuch": "1"})
    assert (r.status_code, _error(r)["code"]) == (400, "parameter_unknown")
    assert _error(r)["param"] == "nosuch"
    r = httpx.post(f"{emulator.base}/v1/prices", headers=secret, data={"currency": "usd"})
    assert r.status_code == 400
    # 400 idempotency_error
    assert "| 400 | `idempotency_error` |" in text
    first = httpx.post(base, headers={**secret, "Idempotency-Key": "k1"}, data={"name": "a"})
    again = httpx.post(base, headers={**secret, "Idempotency-Key": "k1"}, data={"name": "b"})
    assert first.status_code == 200
    assert (again.status_code, _error(again)["type"]) == (400, "idempotency_error")
    # 403 for a Stripe-Account the key cannot reach
    r = httpx.get(base, headers={**secret, "Stripe-Account": "acct_nosuch"})
    assert (r.status_code, _error(r)["code"]) == (403, "account_invalid")


@pytest.mark.parametrize("pm,decline", [
    ("pm_card_visa_chargeDeclinedInsufficientFunds", "insufficient_funds"),
    ("pm_card_visa_chargeDeclinedLostCard", "lost_card"),
    ("pm_card_visa_chargeDeclinedStolenCard", "stolen_card"),
    ("pm_card_visa_chargeDeclinedVelocityLimitExceeded", "card_velocity_exceeded"),
    ("pm_card_chargeDeclined", "generic_decline"),
])
def test_decline_codes_of_the_test_cards_table(client: stripe.StripeClient, pm: str,
                                               decline: str) -> None:
    table = _text("testing.cards.md")
    assert f"| {pm}" in table and f"`{decline}` |" in table
    assert f"`{decline}`" in _text("payments.declines.md") or decline == "stolen_card"
    with pytest.raises(stripe.CardError) as info:
        client.v1.payment_intents.create(params={
            "amount": 1000, "currency": "usd", "payment_method": pm, "confirm": True,
            "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})
    assert info.value.http_status == 402
    assert info.value.code == "card_declined" and info.value.error is not None
    assert info.value.error.decline_code == decline
    intent = info.value.error.payment_intent
    assert intent is not None and intent.status == "requires_payment_method"


def test_list_default_limit(client: stripe.StripeClient) -> None:
    assert "`limit` (1–100, default 10)" in _text("api.pagination-expand.md")
    for i in range(11):
        client.v1.customers.create(params={"name": f"c{i}"})
    page = client.v1.customers.list()
    assert len(page.data) == 10 and page.has_more


def test_total_count_on_basil_lists(emulator: RunningEmulator, account: dict[str, str]) -> None:
    assert "400 `property_forbidden`" in _text("fidelity.md")
    r = httpx.get(f"{emulator.base}/v1/customers?include[]=total_count",
                  headers={"Authorization": f"Bearer {account['secret_key']}"})
    assert (r.status_code, _error(r)["code"]) == (400, "property_forbidden")


def test_checkout_submit_type_modes(client: stripe.StripeClient) -> None:
    text = _text("checkout.session-options.md")
    assert "`auto` or `subscribe` (subscription mode); not in setup mode" in text
    product = client.v1.products.create(params={"name": "p"})
    monthly = client.v1.prices.create(params={"product": product.id, "currency": "usd",
                                              "unit_amount": 500,
                                              "recurring": {"interval": "month"}})
    base: dict[str, Any] = {"mode": "subscription", "success_url": "https://example.com",
                            "line_items": [{"price": monthly.id, "quantity": 1}]}
    ok = client.v1.checkout.sessions.create(params={**base, "submit_type": "subscribe"})
    assert ok.submit_type == "subscribe"
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.checkout.sessions.create(params={**base, "submit_type": "pay"})
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.checkout.sessions.create(params={
            "mode": "setup", "currency": "usd", "success_url": "https://example.com",
            "submit_type": "pay"})


def test_checkout_expires_at_window(client: stripe.StripeClient) -> None:
    assert "`expires_at` — 30 minutes to 24 hours from creation" in \
        _text("checkout.session-options.md")
    product = client.v1.products.create(params={"name": "p"})
    price = client.v1.prices.create(params={"product": product.id, "currency": "usd",
                                            "unit_amount": 500})
    base: dict[str, Any] = {"mode": "payment", "success_url": "https://example.com",
                            "line_items": [{"price": price.id, "quantity": 1}]}
    now = int(client.v1.customers.create().created)
    client.v1.checkout.sessions.create(params={**base, "expires_at": now + 24 * 3600 - 60})
    for bad in (now + 20 * 60, now + 25 * 3600):
        with pytest.raises(stripe.InvalidRequestError):
            client.v1.checkout.sessions.create(params={**base, "expires_at": bad})


def test_account_session_defaults_in_the_connect_guide(client: stripe.StripeClient) -> None:
    text = _text("connect.embedded-components.md")
    assert "`payment_disputes`: the same without `capture_payments`" in text
    express = client.v1.accounts.create(params={"type": "express", "country": "US"})
    session = client.v1.account_sessions.create(params={"account": express.id, "components": {
        name: {"enabled": True} for name in ("payments", "payment_details", "disputes_list",
                                             "payment_disputes", "payouts", "balances")}})
    comps = session.components
    for name in ("payments", "payment_details", "disputes_list"):
        assert comps[name].features.to_dict() == {
            "refund_management": True, "dispute_management": True, "capture_payments": True,
            "destination_on_behalf_of_charge_management": False,
            "smart_disputes_management": True}
    assert "capture_payments" not in comps.payment_disputes.features.to_dict()
    for name in ("payouts", "balances"):  # Express: the platform bears losses
        features = comps[name].features
        assert not (features.instant_payouts or features.standard_payouts
                    or features.edit_payout_schedule)
        assert features.external_account_collection is True


def test_checkout_custom_fields_limits(client: stripe.StripeClient) -> None:
    """checkout.custom-fields.md: labels up to 50 characters, up to three fields
    (https://docs.stripe.com/payments/checkout/custom-fields)."""
    text = _text("checkout.custom-fields.md")
    assert "up to 50 characters" in text and "not in `setup` mode" in text
    assert "up to three extra inputs" in text

    def field(key: str, label: str) -> dict[str, Any]:
        return {"key": key, "type": "text", "label": {"type": "custom", "custom": label}}

    base: dict[str, Any] = {"mode": "payment", "success_url": "https://example.com/ok",
                            "line_items": [{"quantity": 1, "price_data": {
                                "currency": "usd", "unit_amount": 500,
                                "product_data": {"name": "Tee"}}}]}
    ok = client.v1.checkout.sessions.create(params={**base, "custom_fields": [
        field("a", "x" * 50), field("b", "B"), field("c", "C")]})
    assert [f.label.custom for f in ok.custom_fields][0] == "x" * 50
    refused = [[field("a", "x" * 51)], [field(k, k) for k in "abcd"]]
    for fields in refused:
        with pytest.raises(stripe.InvalidRequestError):
            client.v1.checkout.sessions.create(params={**base, "custom_fields": fields})
    # setup mode: Stripe refuses custom fields, the emulator does not yet (fidelity.md)
