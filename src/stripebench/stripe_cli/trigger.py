"""`stripebench emulator trigger EVENT`: cause an event with real API calls, as `stripe
trigger` does (a fixture of calls per event), through the official stripe-python SDK.

Each fixture returns the ids it made, so a test (or a user) can follow up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import stripe

Fixture = Callable[[stripe.StripeClient, str], dict[str, str]]
AUTO: Any = {"enabled": True, "allow_redirects": "never"}


def _intent(client: stripe.StripeClient, pm: str, amount: int = 2000) -> stripe.PaymentIntent:
    return client.v1.payment_intents.create(params={
        "amount": amount, "currency": "usd", "confirm": True, "payment_method": pm,
        "automatic_payment_methods": AUTO, "description": "(created by stripebench trigger)"})


def payment_succeeded(client: stripe.StripeClient, base: str) -> dict[str, str]:
    pi = _intent(client, "pm_card_visa")
    return {"payment_intent": pi.id, "charge": str(pi.latest_charge)}


def payment_failed(client: stripe.StripeClient, base: str) -> dict[str, str]:
    pi = client.v1.payment_intents.create(params={
        "amount": 2000, "currency": "usd", "automatic_payment_methods": AUTO})
    try:
        client.v1.payment_intents.confirm(pi.id, params={"payment_method":
                                                         "pm_card_chargeDeclined"})
    except stripe.CardError:
        pass
    return {"payment_intent": pi.id}


def payment_canceled(client: stripe.StripeClient, base: str) -> dict[str, str]:
    pi = client.v1.payment_intents.create(params={"amount": 2000, "currency": "usd",
                                                  "automatic_payment_methods": AUTO})
    client.v1.payment_intents.cancel(pi.id)
    return {"payment_intent": pi.id}


def refunded(client: stripe.StripeClient, base: str) -> dict[str, str]:
    made = payment_succeeded(client, base)
    refund = client.v1.refunds.create(params={"payment_intent": made["payment_intent"]})
    return {**made, "refund": refund.id}


def disputed(client: stripe.StripeClient, base: str) -> dict[str, str]:
    pi = _intent(client, "pm_card_createDispute")
    return {"payment_intent": pi.id, "charge": str(pi.latest_charge)}


def customer_lifecycle(client: stripe.StripeClient, base: str) -> dict[str, str]:
    customer = client.v1.customers.create(params={"email": "trigger@example.com"})
    client.v1.customers.update(customer.id, params={"name": "Triggered Customer"})
    return {"customer": customer.id}


def customer_deleted(client: stripe.StripeClient, base: str) -> dict[str, str]:
    made = customer_lifecycle(client, base)
    client.v1.customers.delete(made["customer"])
    return made


def _subscription(client: stripe.StripeClient, pm: str = "pm_card_visa") -> dict[str, str]:
    price = client.v1.prices.create(params={
        "unit_amount": 1500, "currency": "usd", "recurring": {"interval": "month"},
        "product_data": {"name": "myproduct"}})
    customer = client.v1.customers.create(params={
        "payment_method": pm, "invoice_settings": {"default_payment_method": pm}})
    sub = client.v1.subscriptions.create(params={"customer": customer.id,
                                                 "items": [{"price": price.id}]})
    return {"price": price.id, "customer": customer.id, "subscription": sub.id,
            "invoice": str(sub.latest_invoice)}


def subscription_created(client: stripe.StripeClient, base: str) -> dict[str, str]:
    return _subscription(client)


def subscription_updated(client: stripe.StripeClient, base: str) -> dict[str, str]:
    made = _subscription(client)
    client.v1.subscriptions.update(made["subscription"], params={"metadata": {"foo": "bar"}})
    return made


def subscription_deleted(client: stripe.StripeClient, base: str) -> dict[str, str]:
    made = _subscription(client)
    client.v1.subscriptions.cancel(made["subscription"])
    return made


def invoice_failed(client: stripe.StripeClient, base: str) -> dict[str, str]:
    return _subscription(client, "pm_card_chargeCustomerFail")


def checkout_completed(client: stripe.StripeClient, base: str) -> dict[str, str]:
    """A hosted Checkout Session paid through its page, with a test card."""
    price = client.v1.prices.create(params={"unit_amount": 3000, "currency": "usd",
                                            "product_data": {"name": "T-shirt"}})
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "line_items": [{"price": price.id, "quantity": 1}],
        "success_url": "https://example.com/success"})
    response = httpx.post(str(session.url).split("#")[0] + "/confirm", timeout=30, json={
        "email": "stripe@example.com",
        "card": {"number": "4242424242424242", "expiry": "12 / 34", "cvc": "123",
                 "name": "Jenny Rosen"},
        "billing": {"country": "US", "postal_code": "94107"}, "custom_fields": {},
        "consent": {}})
    response.raise_for_status()
    return {"checkout_session": session.id}


def account_updated(client: stripe.StripeClient, base: str) -> dict[str, str]:
    acct = client.v1.accounts.create(params={
        "type": "custom", "country": "US", "capabilities": {"transfers": {"requested": True}}})
    client.v1.accounts.update(acct.id, params={"metadata": {"triggered": "yes"}})
    return {"account": acct.id}


def payout_paid(client: stripe.StripeClient, base: str) -> dict[str, str]:
    _intent(client, "pm_card_bypassPending", amount=5000)
    payout = client.v1.payouts.create(params={"amount": 1100, "currency": "usd",
                                              "method": "instant"})
    return {"payout": payout.id}


def product_created(client: stripe.StripeClient, base: str) -> dict[str, str]:
    product = client.v1.products.create(params={"name": "myproduct"})
    price = client.v1.prices.create(params={"product": product.id, "unit_amount": 1500,
                                            "currency": "usd"})
    return {"product": product.id, "price": price.id}


def setup_succeeded(client: stripe.StripeClient, base: str) -> dict[str, str]:
    seti = client.v1.setup_intents.create(params={
        "confirm": True, "payment_method": "pm_card_visa", "automatic_payment_methods": AUTO})
    return {"setup_intent": seti.id}


FIXTURES: dict[str, Fixture] = {
    "payment_intent.created": payment_canceled,
    "payment_intent.succeeded": payment_succeeded,
    "payment_intent.payment_failed": payment_failed,
    "payment_intent.canceled": payment_canceled,
    "charge.succeeded": payment_succeeded,
    "charge.failed": payment_failed,
    "charge.refunded": refunded,
    "charge.dispute.created": disputed,
    "checkout.session.completed": checkout_completed,
    "customer.created": customer_lifecycle,
    "customer.updated": customer_lifecycle,
    "customer.deleted": customer_deleted,
    "customer.subscription.created": subscription_created,
    "customer.subscription.updated": subscription_updated,
    "customer.subscription.deleted": subscription_deleted,
    "invoice.created": subscription_created,
    "invoice.finalized": subscription_created,
    "invoice.paid": subscription_created,
    "invoice.payment_succeeded": subscription_created,
    "invoice.payment_failed": invoice_failed,
    "account.updated": account_updated,
    "payout.created": payout_paid,
    "payout.paid": payout_paid,
    "product.created": product_created,
    "price.created": product_created,
    "setup_intent.succeeded": setup_succeeded,
}


def trigger(event_type: str, *, api_base: str, secret_key: str,
            stripe_account: str | None = None) -> dict[str, str]:
    fixture = FIXTURES.get(event_type)
    if fixture is None:
        raise ValueError(f"no fixture for {event_type}; supported: {', '.join(sorted(FIXTURES))}")
    client = stripe.StripeClient(secret_key, base_addresses={"api": api_base},
                                 stripe_account=stripe_account)
    return fixture(client, api_base.rstrip("/"))
