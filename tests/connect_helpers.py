"""Connected accounts the Connect tests share."""

from __future__ import annotations

from typing import Any

import stripe

US_INDIVIDUAL: dict[str, Any] = {
    "first_name": "Jenny", "last_name": "Rosen", "email": "jenny@example.com",
    "phone": "+15555550123", "dob": {"day": 1, "month": 1, "year": 1901},
    "address": {"line1": "address_full_match", "city": "Austin", "state": "TX",
                "postal_code": "78701", "country": "US"},
    "ssn_last_4": "0000"}


def custom_account(client: stripe.StripeClient, **extra: Any) -> stripe.Account:
    return client.v1.accounts.create(params={
        "type": "custom", "country": "US", "business_type": "individual",
        "capabilities": {"card_payments": {"requested": True}, "transfers": {"requested": True}},
        "business_profile": {"mcc": "5734", "url": "https://grooming.example"},
        "individual": US_INDIVIDUAL, "external_account": "btok_us_verified",
        "tos_acceptance": {"date": 1700000000, "ip": "127.0.0.1"}, **extra})
