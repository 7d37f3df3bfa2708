"""The grader's cases: for each service, groups of (url, expected JSON, status), the
expected JSON computed from the grader's own fresh data (scenario) at grading time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import contracts, scenario

Case = tuple[str, Callable[[], Any], int]


def sanity(value: bool, what: str) -> None:
    """The grader's own expectations about the data it made (an emulator drift shows here
    as a grader error, never as a score)."""
    if not value:
        raise RuntimeError(f"grader data is not what it should be: {what}")


def contract_cases(client: Any, urls: dict[str, str]) -> dict[str, dict[str, list[Case]]]:
    pay, inv, sub = (scenario.payments(client), scenario.invoices(client),
                     scenario.subscriptions(client))
    twice = contracts.payment(client, pay["refunded_twice"])
    sanity(twice["charge"]["amount_refunded"] == 1500 and len(twice["charge"]["refunds"]) == 2,
           "a payment refunded twice")
    sanity(contracts.payment(client, pay["unpaid"])["charge"] is None, "an unpaid payment")
    paid = contracts.invoice_status(client, inv["paid"])
    sanity(paid["paid"] and paid["payment"]["status"] == "succeeded", "a paid invoice")
    sanity(contracts.subscription_metrics(client, sub["annual"])["period_days"] in (365, 366),
           "a yearly subscription")
    sanity(contracts.subscription_summary(client, sub["customers"][0])["total"] == 4,
           "a customer with four subscriptions")

    def case(service: str, path: str, fn: Callable[..., Any], *args: Any,
             status: int = 200) -> tuple[str, Any, int]:
        return (urls[service] + path, lambda: fn(client, *args), status)

    def missing(service: str, path: str, object_id: str) -> tuple[str, Any, int]:
        return (urls[service] + path, lambda: {"error": "not_found", "id": object_id}, 404)

    return {
        "payments": {
            "details": [case("payments", f"/payments/{i}", contracts.payment, i)
                        for i in pay["intents"]]
            + [missing("payments", "/payments/pi_missing", "pi_missing")],
            "customer_list": [case("payments", f"/customers/{c}/payments",
                                   contracts.customer_payments, c) for c in pay["customers"]],
        },
        "invoices": {
            "status": [case("invoices", f"/invoices/{i}/payment-status",
                            contracts.invoice_status, i) for i in inv["invoices"]]
            + [missing("invoices", "/invoices/in_missing/payment-status", "in_missing")],
            "customer_list": [case("invoices", f"/customers/{c}/invoices",
                                   contracts.customer_invoices, c) for c in inv["customers"]],
        },
        "subscriptions": {
            "metrics": [case("subscriptions", f"/subscriptions/{s}/metrics",
                             contracts.subscription_metrics, s)
                        for s in [*sub["subscriptions"], sub["canceled"]]]
            + [missing("subscriptions", "/subscriptions/sub_missing/metrics", "sub_missing")],
            "summary": [case("subscriptions", f"/customers/{c}/subscriptions/summary",
                             contracts.subscription_summary, c) for c in sub["customers"]],
        },
    }
