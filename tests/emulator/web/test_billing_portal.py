"""The customer portal in real Chromium: a customer switches plan, replaces the card and
cancels at period end; the API then shows each change."""

from __future__ import annotations

import stripe
from playwright.sync_api import Browser

from billing_helpers import DAY, JAN_1, make_shop


def test_portal_plan_change_card_update_and_cancel(client: stripe.StripeClient,
                                                    browser: Browser) -> None:
    shop = make_shop(client)
    basic, pro = shop.price(3100), shop.price(6200)
    sub = client.v1.subscriptions.create(params={"customer": shop.customer.id,
                                                 "items": [{"price": basic.id}]})
    shop.advance(JAN_1 + 21 * DAY)
    config = client.v1.billing_portal.configurations.create(params={
        "business_profile": {"headline": "Gold Co. billing"},
        "features": {"subscription_update": {
            "enabled": True, "default_allowed_updates": ["price"],
            "products": [{"product": shop.product.id, "prices": [basic.id, pro.id]}],
            "proration_behavior": "create_prorations"},
            "subscription_cancel": {"enabled": True, "mode": "at_period_end"},
            "invoice_history": {"enabled": True},
            "payment_method_update": {"enabled": True}}})
    session = client.v1.billing_portal.sessions.create(params={
        "customer": shop.customer.id, "configuration": config.id,
        "return_url": "https://shop.example/account"})
    assert session.url.endswith(f"/billing.stripe.com/p/session/{session.id}")

    page = browser.new_context().new_page()
    page.set_default_timeout(15_000)
    page.goto(session.url)
    assert page.get_by_role("heading", name="Gold Co. billing").is_visible()
    block = page.get_by_role("region", name="Subscription to Gold")
    assert "Renews on Feb 1, 2026" in block.inner_text()
    block.get_by_label("Plan").select_option(pro.id)
    block.get_by_role("button", name="Update plan").click()
    assert page.get_by_role("status").inner_text() == "Your plan has been updated."
    updated = client.v1.subscriptions.retrieve(sub.id)
    assert updated["items"].data[0].price.id == pro.id
    pending = client.v1.invoice_items.list(params={"customer": shop.customer.id,
                                                   "pending": True}).data
    assert sorted(i.amount for i in pending) == [-1000, 2000]  # 10 of 31 days left

    page.get_by_label("Card number").fill("5555 5555 5555 4444")
    page.get_by_label("Expiration (MM / YY)").fill("12 / 34")
    page.get_by_label("CVC").fill("123")
    page.get_by_role("button", name="Update payment method").click()
    assert "Mastercard ending in 4444" in page.get_by_test_id("payment-method").inner_text()
    customer = client.v1.customers.retrieve(shop.customer.id, params={
        "expand": ["invoice_settings.default_payment_method"]})
    assert customer.invoice_settings.default_payment_method.card.last4 == "4444"

    page.get_by_role("button", name="Cancel subscription to Gold").click()
    assert "will be canceled on Feb 1, 2026" in page.get_by_role("status").inner_text()
    canceled = client.v1.subscriptions.retrieve(sub.id)
    assert canceled.cancel_at_period_end and canceled.cancel_at == JAN_1 + 31 * DAY
    assert page.get_by_role("table", name="Invoice history").inner_text().count("paid") == 1
    page.get_by_role("button", name="Renew subscription").click()
    assert client.v1.subscriptions.retrieve(sub.id).cancel_at is None
    page.context.close()
