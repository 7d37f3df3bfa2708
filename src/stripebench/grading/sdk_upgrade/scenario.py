"""The grader's own test data, made through the API at grading time (fresh ids the agent
never saw): payments in every state, invoices paid, open, paid out of band, void and
draft, subscriptions with several items, intervals and states."""

from __future__ import annotations

from typing import Any


def _customer(client: Any, name: str, with_card: bool = False) -> str:
    customer = client.v1.customers.create({"name": name,
                                           "email": f"{name.lower()}@example.com"})
    if with_card:
        pm = client.v1.payment_methods.attach("pm_card_visa", {"customer": customer.id})
        client.v1.customers.update(customer.id, {
            "invoice_settings": {"default_payment_method": pm.id}})
    return str(customer.id)


def _intent(client: Any, customer: str, amount: int, card: str | None = "pm_card_visa",
            **extra: Any) -> str:
    params = {"amount": amount, "currency": "usd", "customer": customer,
              "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"},
              "description": f"Order of {amount}", **extra}
    if card:
        params.update(payment_method=card, confirm=True)
    return str(client.v1.payment_intents.create(params).id)


def payments(client: Any) -> dict[str, Any]:
    buyer = _customer(client, "Grace")
    other = _customer(client, "Edsger")
    refunded_twice = _intent(client, buyer, 4200)
    client.v1.refunds.create({"payment_intent": refunded_twice, "amount": 1000})
    client.v1.refunds.create({"payment_intent": refunded_twice, "amount": 500,
                              "reason": "requested_by_customer"})
    fully_refunded = _intent(client, buyer, 1500, "pm_card_mastercard")
    client.v1.refunds.create({"payment_intent": fully_refunded})
    uncaptured = _intent(client, buyer, 2500, capture_method="manual")
    unpaid = _intent(client, buyer, 990, card=None)
    amex = _intent(client, buyer, 3100, "pm_card_amex")
    elsewhere = _intent(client, other, 700)
    return {"intents": [refunded_twice, fully_refunded, uncaptured, unpaid, amex, elsewhere],
            "customers": [buyer, other], "refunded_twice": refunded_twice,
            "unpaid": unpaid, "uncaptured": uncaptured}


def _invoice(client: Any, customer: str, amount: int, **params: Any) -> str:
    invoice = client.v1.invoices.create({"customer": customer, "currency": "usd",
                                         "auto_advance": False, **params})
    client.v1.invoice_items.create({"customer": customer, "invoice": invoice.id,
                                    "amount": amount, "currency": "usd",
                                    "description": f"Service worth {amount}"})
    return str(invoice.id)


def invoices(client: Any) -> dict[str, Any]:
    payer = _customer(client, "Barbara", with_card=True)
    other = _customer(client, "Donald", with_card=True)
    paid = _invoice(client, payer, 5000)
    client.v1.invoices.finalize_invoice(paid)
    client.v1.invoices.pay(paid)
    open_ = _invoice(client, payer, 2300, collection_method="send_invoice", days_until_due=30)
    client.v1.invoices.finalize_invoice(open_)
    out_of_band = _invoice(client, payer, 1200)
    client.v1.invoices.finalize_invoice(out_of_band)
    client.v1.invoices.pay(out_of_band, {"paid_out_of_band": True})
    void = _invoice(client, payer, 800)
    client.v1.invoices.finalize_invoice(void)
    client.v1.invoices.void_invoice(void)
    draft = _invoice(client, payer, 400)
    elsewhere = _invoice(client, other, 6100)
    client.v1.invoices.finalize_invoice(elsewhere)
    client.v1.invoices.pay(elsewhere)
    return {"invoices": [paid, open_, out_of_band, void, draft, elsewhere],
            "customers": [payer, other], "paid": paid, "open": open_}


def subscriptions(client: Any) -> dict[str, Any]:
    product = client.v1.products.create({"name": "Seats"})

    def price(amount: int, interval: str, count: int = 1) -> str:
        return str(client.v1.prices.create({
            "product": product.id, "unit_amount": amount, "currency": "usd",
            "recurring": {"interval": interval, "interval_count": count}}).id)

    monthly, seat, yearly, quarterly = (price(1500, "month"), price(700, "month"),
                                        price(12000, "year"), price(4500, "month", 3))
    owner = _customer(client, "Alan", with_card=True)
    solo = _customer(client, "Ada", with_card=True)

    def subscribe(customer: str, *items: tuple[str, int], **extra: Any) -> str:
        return str(client.v1.subscriptions.create({
            "customer": customer, "items": [{"price": p, "quantity": q} for p, q in items],
            **extra}).id)

    team = subscribe(owner, (monthly, 1), (seat, 3))
    annual = subscribe(owner, (yearly, 2))
    canceled = subscribe(owner, (monthly, 1))
    client.v1.subscriptions.cancel(canceled)
    leaving = subscribe(owner, (quarterly, 1), cancel_at_period_end=True)
    single = subscribe(solo, (seat, 5))
    return {"subscriptions": [team, annual, leaving, single], "canceled": canceled,
            "customers": [owner, solo], "annual": annual}
