"""Shared set-up for the billing tests: a clock-bound customer with a saved card."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import stripe

JAN_1 = 1767225600  # 2026-01-01T00:00:00Z
DAY = 86400
FAILING_CARD = "pm_card_chargeCustomerFail"  # attaches fine, declines every charge
GOOD_CARD = "pm_card_visa"


@dataclass
class Shop:
    client: stripe.StripeClient
    clock: Any
    customer: Any
    card: Any
    product: Any

    def price(self, amount: int, interval: str = "month", **extra: Any) -> Any:
        return self.client.v1.prices.create(params={
            "product": self.product.id, "unit_amount": amount, "currency": "usd",
            "recurring": {"interval": interval, **extra.pop("recurring", {})}, **extra})

    def advance(self, when: int) -> Any:
        return self.client.v1.test_helpers.test_clocks.advance(
            self.clock.id, params={"frozen_time": when})

    def use_card(self, test_method: str) -> Any:
        """Save a test card (`pm_card_*`) as the customer's default payment method."""
        pm = self.client.v1.payment_methods.attach(test_method,
                                                   params={"customer": self.customer.id})
        self.client.v1.customers.update(self.customer.id, params={
            "invoice_settings": {"default_payment_method": pm.id}})
        return pm

    def events(self, since: int = 0) -> list[Any]:
        found = list(self.client.v1.events.list(params={"limit": 100}).auto_paging_iter())
        return [e for e in reversed(found) if e.created >= since]


def make_shop(client: stripe.StripeClient, start: int = JAN_1, card: bool = True) -> Shop:
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": start})
    customer = client.v1.customers.create(params={"email": "ada@example.com",
                                                  "test_clock": clock.id})
    product = client.v1.products.create(params={"name": "Gold"})
    shop = Shop(client, clock, customer, None, product)
    if card:
        shop.card = shop.use_card(GOOD_CARD)
    return shop
