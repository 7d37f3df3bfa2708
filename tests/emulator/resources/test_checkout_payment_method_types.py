"""Checkout Session payment method types across the endive change (python SDK).

Before 2026-09-30.endive a session named its methods with `payment_method_types` and an
incompatible one (iDEAL on a USD session) was an error; from endive the parameter is gone
and `allowed_payment_method_types` filters the list to the compatible methods instead
(https://docs.stripe.com/changelog/endive/2026-09-30/remove-payment-method-types-checkout-sessions).
A method's currencies follow its Checkout guide ("Determine compatibility": iDEAL needs
EUR, https://docs.stripe.com/payments/ideal/accept-a-payment?payment-ui=checkout).
"""

from __future__ import annotations

from typing import Any

import pytest
import stripe

from checkout_helpers import price

BEFORE_ENDIVE = "2026-08-26.dahlia"
SUCCESS = "https://shop.test/done"


def sdk(emulator: Any, account: dict[str, str], version: str | None = None) -> stripe.StripeClient:
    return stripe.StripeClient(account["secret_key"], stripe_version=version,
                               base_addresses={"api": emulator.base}, max_network_retries=0)


def session(client: stripe.StripeClient, currency: str, mode: str = "payment",
            **extra: Any) -> stripe.checkout.Session:
    if mode == "subscription":
        item = price(client, 900, "Club", currency, recurring={"interval": "month"})
    else:
        item = price(client, 1500, "Shoes", currency)
    params: dict[str, Any] = {"mode": mode, "success_url": SUCCESS,
                              "line_items": [{"price": item.id, "quantity": 1}], **extra}
    return client.v1.checkout.sessions.create(params=params)  # type: ignore[arg-type]


def test_old_versions_take_payment_method_types_and_refuse_an_incompatible_one(
        emulator: Any, account: dict[str, str]) -> None:
    old = sdk(emulator, account, BEFORE_ENDIVE)
    s = session(old, "eur", payment_method_types=["card", "ideal", "bancontact"])
    assert s.payment_method_types == ["card", "ideal", "bancontact"]
    with pytest.raises(stripe.InvalidRequestError) as info:
        session(old, "usd", payment_method_types=["card", "ideal"])
    assert info.value.param == "payment_method_types[1]"
    assert "ideal" in str(info.value.user_message) and "usd" in str(info.value.user_message)


def test_endive_filters_allowed_types_silently(emulator: Any, account: dict[str, str]) -> None:
    new = sdk(emulator, account)
    s = session(new, "eur", allowed_payment_method_types=["card", "ideal", "us_bank_account"])
    assert s.payment_method_types == ["card", "ideal"]
    assert s.allowed_payment_method_types == ["card", "ideal", "us_bank_account"]
    with pytest.raises(stripe.InvalidRequestError) as info:
        session(new, "usd", allowed_payment_method_types=["ideal", "sepa_debit"])
    assert info.value.param == "allowed_payment_method_types"
    with pytest.raises(stripe.InvalidRequestError) as info:
        session(new, "eur", payment_method_types=["card", "ideal"])
    assert info.value.param == "payment_method_types"


def test_single_use_methods_stay_out_of_subscriptions(emulator: Any,
                                                      account: dict[str, str]) -> None:
    old = sdk(emulator, account, BEFORE_ENDIVE)
    with pytest.raises(stripe.InvalidRequestError) as info:
        session(old, "usd", "subscription", payment_method_types=["card", "affirm"])
    assert info.value.param == "payment_method_types[1]"
    s = session(old, "usd", "subscription", payment_method_types=["card", "us_bank_account"])
    assert s.payment_method_types == ["card", "us_bank_account"]
    new = sdk(emulator, account)
    s = session(new, "usd", "subscription", allowed_payment_method_types=["card", "affirm"])
    assert s.payment_method_types == ["card"]
