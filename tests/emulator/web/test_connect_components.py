"""Connect embedded components in real Chromium, through @stripe/connect-js and
@stripe/react-connect-js from npm: a platform page renders the connected account's
payments, its disputes and a payment's drawer, whose refund control exists exactly when
the account session allows it (refund management defaults to on).

https://docs.stripe.com/connect/supported-embedded-components/payments
https://docs.stripe.com/api/account_sessions/create
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import stripe

from browser.merchant import Merchant
from connect_helpers import custom_account
from paths import REPO

ROOT = REPO


@pytest.fixture(scope="module")
def platform_page(emulator: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Merchant]:
    out = tmp_path_factory.mktemp("connect") / "app.js"
    subprocess.run([str(ROOT / "node_modules/.bin/esbuild"),
                    str(ROOT / "tests/browser/connect/app.jsx"), "--bundle", "--minify",
                    "--define:process.env.NODE_ENV=\"production\"", f"--outfile={out}",
                    "--log-level=warning"], check=True, cwd=ROOT, timeout=90)
    server = Merchant(f"{emulator.base}/connect-js.stripe.com/v1.0/connect.js", out)
    yield server
    server.stop()


def seeded_account(client: stripe.StripeClient) -> tuple[str, dict[str, str]]:
    """A connected account with direct charges: one paid, one disputed, one refunded."""
    acct = custom_account(client)
    on = {"stripe_account": acct.id}
    made = {}
    for name, pm, email in (("paid", "pm_card_visa", "ann@example.com"),
                            ("disputed", "pm_card_createDispute", "bob@example.com"),
                            ("refunded", "pm_card_visa", "cy@example.com")):
        customer = client.v1.customers.create(params={"email": email}, options=on)
        pi = client.v1.payment_intents.create(params={
            "amount": {"paid": 4200, "disputed": 1500, "refunded": 900}[name],
            "currency": "usd", "customer": customer.id, "confirm": True, "payment_method": pm,
            "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}},
            options=on)
        made[name] = pi.latest_charge
    client.v1.refunds.create(params={"charge": made["refunded"]}, options=on)
    return acct.id, made


def session_secret(client: stripe.StripeClient, account: str, **components: Any) -> str:
    session = client.v1.account_sessions.create(params={"account": account,
                                                        "components": components})
    return session.client_secret


def open_page(page: Any, server: Merchant, pk: str, secret: str, **extra: str) -> Any:
    query = "&".join(f"{k}={v}" for k, v in {"pk": pk, "secret": secret, **extra}.items())
    page.goto(f"{server.base}/connect/index.html?{query}")
    return page.frame_locator("iframe[data-testid^='stripe-connect-ui-layer-stripe-connect-']")


def test_payments_component_lists_filters_and_refunds(page: Any, platform_page: Merchant,
                                                      client: stripe.StripeClient,
                                                      account: dict[str, str]) -> None:
    acct, made = seeded_account(client)
    secret = session_secret(client, acct, payments={"enabled": True})
    frame = open_page(page, platform_page, account["publishable_key"], secret)
    rows = frame.get_by_test_id("payment-row")
    rows.first.wait_for()
    assert rows.count() == 3
    emails = frame.get_by_test_id("customer-email").all_inner_texts()
    assert sorted(emails) == ["ann@example.com", "bob@example.com", "cy@example.com"]
    statuses = frame.get_by_test_id("payment-status").all_inner_texts()
    assert sorted(statuses) == ["Disputed", "Refunded", "Succeeded"]
    frame.get_by_role("tab", name="Disputes").click()
    frame.get_by_test_id("disputed-amount").wait_for()
    assert frame.get_by_test_id("disputed-amount").inner_text() == "$15.00"
    frame.get_by_role("tab", name="Succeeded").click()
    frame.get_by_role("button", name="View details of $42.00 payment").click()
    drawer = frame.get_by_role("dialog", name="Payment details")
    drawer.wait_for()
    drawer.get_by_role("button", name="Refund payment").click()
    frame.get_by_role("status").get_by_text("Refund created").wait_for()
    charge = client.v1.charges.retrieve(made["paid"], options={"stripe_account": acct})
    assert charge.refunded is True


def test_refund_control_absent_when_the_session_disables_it(page: Any, platform_page: Merchant,
                                                             client: stripe.StripeClient,
                                                             account: dict[str, str],
                                                             emulator: Any) -> None:
    acct, made = seeded_account(client)
    secret = session_secret(client, acct, payments={
        "enabled": True, "features": {"refund_management": False, "dispute_management": True}})
    frame = open_page(page, platform_page, account["publishable_key"], secret)
    frame.get_by_role("button", name="View details of $42.00 payment").click()
    drawer = frame.get_by_role("dialog", name="Payment details")
    drawer.wait_for()
    assert drawer.get_by_role("button", name="Refund payment").count() == 0
    frame.get_by_role("button", name="Close").click()
    frame.get_by_role("button", name="View details of $15.00 payment").click()
    accept = frame.get_by_role("dialog").get_by_role("button", name="Accept dispute")
    accept.wait_for()  # the drawer renders after the click: count() alone raced it
    assert accept.count() == 1
    # The wall is on the server too: the component API refuses the refund.
    token = page.frame_locator("iframe").locator("body").evaluate(
        "() => JSON.parse(decodeURIComponent(location.hash.slice(1))).token")
    refused = httpx.post(f"{emulator.base}/connect-js.stripe.com/v1.0/api/{token}/payments/"
                         f"{made['paid']}/refund?component=payments", json={})
    assert refused.status_code == 403 and "refund_management" in refused.text


def test_client_secret_is_single_use(client: stripe.StripeClient, emulator: Any) -> None:
    acct = custom_account(client)
    secret = session_secret(client, acct.id, payments={"enabled": True})
    url = f"{emulator.base}/connect-js.stripe.com/v1.0/api/claim"
    first = httpx.post(url, json={"client_secret": secret})
    assert first.status_code == 200 and first.json()["account"] == acct.id
    second = httpx.post(url, json={"client_secret": secret})
    assert second.status_code == 401
    token = first.json()["token"]
    assert httpx.get(f"{emulator.base}/connect-js.stripe.com/v1.0/api/{token}/payouts"
                     "?component=payments").status_code == 403  # payments cannot read payouts
    assert httpx.get(f"{emulator.base}/connect-js.stripe.com/v1.0/api/{token}/payouts"
                     "?component=payouts").status_code == 403  # payouts were not enabled


def test_onboarding_component_completes_requirements(page: Any, platform_page: Merchant,
                                                     client: stripe.StripeClient,
                                                     account: dict[str, str]) -> None:
    express = client.v1.accounts.create(params={
        "type": "express", "capabilities": {"card_payments": {"requested": True},
                                            "transfers": {"requested": True}}})
    secret = session_secret(client, express.id, account_onboarding={"enabled": True})
    frame = open_page(page, platform_page, account["publishable_key"], secret,
                      component="onboarding")
    frame.get_by_role("button", name="Use test data and submit").click()
    frame.get_by_text("Onboarding complete").wait_for()
    frame.get_by_role("button", name="Done").click()
    page.get_by_role("status").get_by_text("onboarding exited").wait_for()
    done = client.v1.accounts.retrieve(express.id)
    assert done.details_submitted and done.charges_enabled and done.payouts_enabled


def test_account_link_onboarding_page(page: Any, client: stripe.StripeClient,
                                     platform_page: Merchant) -> None:
    express = client.v1.accounts.create(params={
        "type": "express", "capabilities": {"transfers": {"requested": True}}})
    link = client.v1.account_links.create(params={
        "account": express.id, "type": "account_onboarding",
        "refresh_url": f"{platform_page.base}/reauth",
        "return_url": f"{platform_page.base}/return"})
    page.goto(link.url)
    page.get_by_label("Business website").fill("https://groomer.example")
    with page.expect_request(f"{platform_page.base}/return") as went:
        page.get_by_role("button", name="Agree and submit").click()
    assert went.value.url == f"{platform_page.base}/return"
    done = client.v1.accounts.retrieve(express.id)
    assert done.details_submitted and done.business_profile.url == "https://groomer.example"
    with page.expect_request(f"{platform_page.base}/reauth"):
        page.goto(link.url)  # a used link sends the user to refresh_url


def test_features_do_not_bleed_between_components(page: Any, platform_page: Merchant,
                                                  client: stripe.StripeClient,
                                                  account: dict[str, str],
                                                  emulator: Any) -> None:
    """Wall 9 of issue 25: each component has its own features. With refund management
    off for Payments and on (Stripe's default) for Payment details, the Payments drawer
    offers no refund and its API refuses one; Payment details may refund.
    https://docs.stripe.com/api/account_sessions/create
    (components.payments.features.refund_management and
    components.payment_details.features.refund_management are separate parameters)."""
    acct, made = seeded_account(client)
    components = {"payments": {"enabled": True, "features": {"refund_management": False}},
                  "payment_details": {"enabled": True}}
    frame = open_page(page, platform_page, account["publishable_key"],
                      session_secret(client, acct, **components))
    frame.get_by_role("button", name="View details of $42.00 payment").click()
    drawer = frame.get_by_role("dialog", name="Payment details")
    drawer.wait_for()
    drawer.get_by_text("Payment method").wait_for()
    assert drawer.get_by_role("button", name="Refund payment").count() == 0
    token = page.frame_locator("iframe").locator("body").evaluate(
        "() => JSON.parse(decodeURIComponent(location.hash.slice(1))).token")
    api = f"{emulator.base}/connect-js.stripe.com/v1.0/api/{token}"
    refund = f"{api}/payments/{made['paid']}/refund"
    refused = httpx.post(f"{refund}?component=payments", json={})
    assert refused.status_code == 403 and "refund_management" in refused.text
    assert httpx.post(refund, json={}).status_code == 400  # a request names its component
    session = httpx.get(f"{api}/session?component=payments").json()
    assert session["features"]["refund_management"] is False
    assert session["components"]["payment_details"]["features"]["refund_management"] is True
    assert client.v1.charges.retrieve(made["paid"], options={"stripe_account": acct}
                                      ).refunded is False
    # The same session's Payment details component has refund management: it refunds.
    details = page.context.new_page()
    try:
        frame = open_page(details, platform_page, account["publishable_key"],
                          session_secret(client, acct, **components),
                          component="details", payment=made["paid"])
        frame.get_by_role("button", name="Refund payment").click()
        frame.get_by_role("status").get_by_text("Refund created").wait_for()
    finally:
        details.close()
    assert client.v1.charges.retrieve(made["paid"], options={"stripe_account": acct}
                                      ).refunded is True


def test_a_component_acts_only_within_its_own_kind(client: stripe.StripeClient,
                                                   emulator: Any) -> None:
    """A component cannot borrow another component's features or data: Payouts (with
    its payout features) cannot refund, Payments cannot pay out, Notification banner
    cannot read payments. https://docs.stripe.com/api/account_sessions/create"""
    acct, made = seeded_account(client)
    secret = session_secret(client, acct, payments={"enabled": True,
                                                    "features": {"refund_management": False}},
                            payouts={"enabled": True}, notification_banner={"enabled": True})
    base = f"{emulator.base}/connect-js.stripe.com/v1.0/api"
    token = httpx.post(f"{base}/claim", json={"client_secret": secret}).json()["token"]
    refund = f"{base}/{token}/payments/{made['paid']}/refund"
    for component in ("payments", "payouts", "notification_banner", "payment_details"):
        assert httpx.post(f"{refund}?component={component}", json={}).status_code == 403
    payout = httpx.post(f"{base}/{token}/balance/payout?component=payments",
                        json={"amount": 100, "currency": "usd"})
    assert payout.status_code == 403 and "standard_payouts" in payout.text
    assert httpx.get(f"{base}/{token}/payments?component=notification_banner"
                     ).status_code == 403
    assert httpx.get(f"{base}/{token}/payments?component=payments").status_code == 200
    assert client.v1.charges.retrieve(made["paid"], options={"stripe_account": acct}
                                      ).refunded is False
