"""Payments with the official python SDK: intents, declines, 3DS, capture, refunds, disputes."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import stripe

CARD_ONLY = {"allowed_payment_method_types": ["card"]}


def _pay(client: stripe.StripeClient, pm: str, **extra: Any) -> stripe.PaymentIntent:
    params: dict[str, Any] = {"amount": 2000, "currency": "usd", "payment_method": pm,
                              "confirm": True, **CARD_ONLY}
    params.update(extra)
    return client.v1.payment_intents.create(params=params)  # type: ignore[arg-type]


def test_pm_card_visa_succeeds_with_charge_and_balance(client: stripe.StripeClient) -> None:
    pi = _pay(client, "pm_card_visa", receipt_email="buyer@example.com",
              metadata={"order": "42"})
    assert pi.status == "succeeded"
    assert pi.amount_received == 2000
    assert pi.payment_method and pi.payment_method.startswith("pm_")
    charge = client.v1.charges.retrieve(str(pi.latest_charge))
    assert charge.paid and charge.captured and not charge.refunded
    assert charge.status == "succeeded"
    assert charge.payment_intent == pi.id
    assert charge.outcome is not None and charge.outcome.type == "authorized"
    assert charge.receipt_email == "buyer@example.com"
    assert charge.receipt_url
    txn = client.v1.balance_transactions.retrieve(str(charge.balance_transaction))
    assert (txn.amount, txn.fee, txn.net, txn.type) == (2000, 88, 1912, "charge")
    balance = client.v1.balance.retrieve()
    assert balance.pending[0].amount == 1912
    listed = client.v1.charges.list(params={"payment_intent": pi.id})
    assert [c.id for c in listed.data] == [charge.id]
    found = client.v1.payment_intents.search(params={"query": "metadata['order']:'42'"})
    assert [p.id for p in found.data] == [pi.id]


def test_receipt_url_serves_a_receipt(client: stripe.StripeClient) -> None:
    pi = _pay(client, "pm_card_mastercard", description="Two mugs")
    charge = client.v1.charges.retrieve(str(pi.latest_charge))
    page = httpx.get(str(charge.receipt_url))
    assert page.status_code == 200
    assert "Receipt from" in page.text and "$20.00" in page.text
    assert "Mastercard" in page.text and "4444" in page.text
    assert httpx.get(str(charge.receipt_url)[:-3] + "xyz").status_code == 404


DECLINES = [
    ("pm_card_chargeDeclined", "card_declined", "generic_decline"),
    ("pm_card_visa_chargeDeclinedInsufficientFunds", "card_declined", "insufficient_funds"),
    ("pm_card_visa_chargeDeclinedLostCard", "card_declined", "lost_card"),
    ("pm_card_visa_chargeDeclinedStolenCard", "card_declined", "stolen_card"),
    ("pm_card_visa_chargeDeclinedVelocityLimitExceeded", "card_declined",
     "card_velocity_exceeded"),
    ("pm_card_chargeDeclinedExpiredCard", "expired_card", "expired_card"),
    ("pm_card_chargeDeclinedIncorrectCvc", "incorrect_cvc", "incorrect_cvc"),
    ("pm_card_chargeDeclinedProcessingError", "processing_error", "processing_error"),
    ("pm_card_radarBlock", "card_declined", "fraudulent"),
    ("tok_chargeDeclined", "card_declined", "generic_decline"),
    ("tok_visa_chargeDeclinedInsufficientFunds", "card_declined", "insufficient_funds"),
    ("tok_visa_chargeDeclinedLostCard", "card_declined", "lost_card"),
]


@pytest.mark.parametrize(("pm", "code", "decline_code"), DECLINES)
def test_declines_at_confirm(client: stripe.StripeClient, pm: str, code: str,
                             decline_code: str) -> None:
    pi = client.v1.payment_intents.create(params={"amount": 1500, "currency": "usd",
                                                  **CARD_ONLY})  # type: ignore[typeddict-item]
    params: dict[str, Any] = ({"payment_method_data": {"type": "card", "card": {"token": pm}}}
                              if pm.startswith("tok_") else {"payment_method": pm})
    with pytest.raises(stripe.CardError) as caught:
        client.v1.payment_intents.confirm(pi.id, params=params)  # type: ignore[arg-type]
    err = caught.value
    assert err.http_status == 402
    assert err.code == code
    assert err.error is not None and err.error.decline_code == decline_code
    assert err.error.payment_intent is not None
    assert err.error.payment_intent.status == "requires_payment_method"
    after = client.v1.payment_intents.retrieve(pi.id)
    assert after.status == "requires_payment_method"
    assert after.last_payment_error is not None
    assert after.last_payment_error.decline_code == decline_code
    charge = client.v1.charges.retrieve(str(after.latest_charge))
    assert charge.status == "failed" and not charge.paid
    assert charge.failure_code == code
    assert charge.failure_message == err.user_message
    events = client.v1.events.list(params={"type": "payment_intent.payment_failed"})
    assert [e.data.object["id"] for e in events.data] == [pi.id]


def test_decline_then_retry_with_good_card(client: stripe.StripeClient) -> None:
    pi = client.v1.payment_intents.create(params={"amount": 1000, "currency": "usd",
                                                  **CARD_ONLY})  # type: ignore[typeddict-item]
    with pytest.raises(stripe.CardError):
        client.v1.payment_intents.confirm(pi.id,
                                          params={"payment_method": "pm_card_chargeDeclined"})
    ok = client.v1.payment_intents.confirm(pi.id, params={"payment_method": "pm_card_visa"})
    assert ok.status == "succeeded" and ok.last_payment_error is None
    assert len(client.v1.charges.list(params={"payment_intent": pi.id}).data) == 2


def test_status_transitions_and_events(client: stripe.StripeClient) -> None:
    pi = client.v1.payment_intents.create(params={"amount": 1000, "currency": "usd",
                                                  **CARD_ONLY})  # type: ignore[typeddict-item]
    assert pi.status == "requires_payment_method"
    pi = client.v1.payment_intents.update(pi.id, params={"payment_method": "pm_card_visa"})
    assert pi.status == "requires_confirmation"
    pi = client.v1.payment_intents.confirm(pi.id)
    assert pi.status == "succeeded"
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.payment_intents.cancel(pi.id)
    assert caught.value.code == "payment_intent_unexpected_state"
    types = [e.type for e in client.v1.events.list().data]
    for expected in ("payment_intent.created", "payment_intent.succeeded", "charge.succeeded"):
        assert expected in types


def test_return_url_needed_for_automatic_payment_methods(client: stripe.StripeClient) -> None:
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.payment_intents.create(params={"amount": 1000, "currency": "usd",
                                                 "payment_method": "pm_card_visa",
                                                 "confirm": True})
    assert caught.value.param == "return_url"
    pi = client.v1.payment_intents.create(params={
        "amount": 1000, "currency": "usd", "payment_method": "pm_card_visa", "confirm": True,
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})
    assert pi.status == "succeeded"


def test_payment_method_types_removed_in_endive(client: stripe.StripeClient) -> None:
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.payment_intents.create(params={  # type: ignore[typeddict-unknown-key]
            "amount": 1000, "currency": "usd", "payment_method_types": ["card"]})
    assert caught.value.code == "payment_method_types_no_longer_supported"
    old = client.v1.payment_intents.create(
        params={"amount": 1000, "currency": "usd",  # type: ignore[typeddict-unknown-key]
                "payment_method_types": ["card"]},
        options={"stripe_version": "2024-06-20"})
    assert old.payment_method_types == ["card"]
    assert old.automatic_payment_methods is None


def test_amount_limits(client: stripe.StripeClient) -> None:
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.payment_intents.create(params={"amount": 20, "currency": "usd"})
    assert caught.value.code == "amount_too_small"
    assert "$0.50" in str(caught.value.user_message)


def test_manual_capture_partial_and_cancel(client: stripe.StripeClient) -> None:
    pi = _pay(client, "pm_card_visa", capture_method="manual", amount=5000)
    assert pi.status == "requires_capture" and pi.amount_capturable == 5000
    charge = client.v1.charges.retrieve(str(pi.latest_charge))
    assert charge.captured is False and charge.paid
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.payment_intents.capture(pi.id, params={"amount_to_capture": 6000})
    done = client.v1.payment_intents.capture(pi.id, params={"amount_to_capture": 3000})
    assert done.status == "succeeded" and done.amount_received == 3000
    charge = client.v1.charges.retrieve(str(pi.latest_charge))
    assert charge.captured and charge.amount_captured == 3000
    other = _pay(client, "pm_card_visa", capture_method="manual")
    canceled = client.v1.payment_intents.cancel(
        other.id, params={"cancellation_reason": "requested_by_customer"})
    assert canceled.status == "canceled"
    assert canceled.cancellation_reason == "requested_by_customer"
    assert client.v1.charges.retrieve(str(other.latest_charge)).refunded


def test_three_d_secure_redirect_approve_and_fail(client: stripe.StripeClient) -> None:
    for outcome, status, redirect in (("approve", "succeeded", "succeeded"),
                                      ("fail", "requires_payment_method", "failed")):
        pi = _pay(client, "pm_card_threeDSecure2Required", return_url="https://shop.test/done")
        assert pi.status == "requires_action"
        assert pi.next_action is not None and pi.next_action.type == "redirect_to_url"
        url = pi.next_action.redirect_to_url.url  # type: ignore[union-attr]
        page = httpx.get(str(url))
        assert "Complete authentication" in page.text and "Fail authentication" in page.text
        answer = httpx.post(str(url), data={"outcome": outcome})
        assert answer.status_code == 302
        location = answer.headers["location"]
        assert location.startswith("https://shop.test/done?payment_intent=" + pi.id)
        assert f"redirect_status={redirect}" in location
        after = client.v1.payment_intents.retrieve(pi.id)
        assert after.status == status
        if outcome == "fail":
            assert after.last_payment_error is not None
            assert after.last_payment_error.code == "payment_intent_authentication_failure"
        else:
            charge = client.v1.charges.retrieve(str(after.latest_charge))
            card = charge.payment_method_details.card  # type: ignore[union-attr]
            assert card is not None and card.three_d_secure is not None
            assert card.three_d_secure.result == "authenticated"


def test_authentication_required_off_session_and_setup(client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={"email": "off@example.com"})
    with pytest.raises(stripe.CardError) as caught:
        _pay(client, "pm_card_authenticationRequired", customer=customer.id, off_session=True)
    assert caught.value.code == "authentication_required"
    # Save the 3155 card with a SetupIntent (3DS once), then charge it off session.
    si = client.v1.setup_intents.create(params={
        "customer": customer.id, "payment_method": "pm_card_authenticationRequiredOnSetup",
        "confirm": True, "return_url": "https://shop.test/saved", **CARD_ONLY})
    assert si.status == "requires_action"
    url = si.next_action.redirect_to_url.url  # type: ignore[union-attr]
    assert httpx.post(str(url), data={"outcome": "approve"}).status_code == 302
    si = client.v1.setup_intents.retrieve(si.id)
    assert si.status == "succeeded"
    attempts = client.v1.setup_attempts.list(params={"setup_intent": si.id})
    assert [a.status for a in attempts.data] == ["succeeded"]
    pm = str(si.payment_method)
    assert client.v1.payment_methods.retrieve(pm).customer == customer.id
    later = _pay(client, pm, customer=customer.id, off_session=True)
    assert later.status == "succeeded"
    on_session = _pay(client, pm, customer=customer.id, return_url="https://shop.test/x")
    assert on_session.status == "requires_action"


def test_setup_future_usage_saves_card_and_reuse_rules(client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={"email": "save@example.com"})
    pi = _pay(client, "pm_card_visa", customer=customer.id, setup_future_usage="off_session")
    saved = client.v1.customers.payment_methods.list(customer.id)
    assert [p.id for p in saved.data] == [pi.payment_method]
    again = _pay(client, str(pi.payment_method), customer=customer.id, off_session=True)
    assert again.status == "succeeded"
    lonely = _pay(client, "pm_card_visa")
    with pytest.raises(stripe.InvalidRequestError) as caught:
        _pay(client, str(lonely.payment_method))
    assert "may not be used again" in str(caught.value.user_message)


def test_payment_methods_create_attach_detach_update(client: stripe.StripeClient,
                                                     emulator: Any) -> None:
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.payment_methods.create(params={"type": "card", "card": {
            "number": "4242424242424242", "exp_month": 12, "exp_year": 2034, "cvc": "123"}})
    assert "generally unsafe" in str(caught.value.user_message)
    raw = emulator.new_account(settings={"raw_card_data": True})
    raw_client = stripe.StripeClient(raw["secret_key"], base_addresses={"api": emulator.base})
    pm = raw_client.v1.payment_methods.create(params={"type": "card", "card": {
        "number": "4000056655665556", "exp_month": 12, "exp_year": 2034, "cvc": "123"}})
    assert pm.card is not None and (pm.card.brand, pm.card.funding, pm.card.last4) == (
        "visa", "debit", "5556")
    with pytest.raises(stripe.CardError) as bad:
        raw_client.v1.payment_methods.create(params={"type": "card", "card": {
            "number": "4242424242424241", "exp_month": 12, "exp_year": 2034}})
    assert bad.value.code == "incorrect_number"
    token = raw_client.v1.tokens.create(params={"card": {
        "number": "378282246310005", "exp_month": "1", "exp_year": "2031"}})
    from_raw_token = raw_client.v1.payment_methods.create(params={
        "type": "card", "card": {"token": token.id}})
    assert from_raw_token.card is not None and from_raw_token.card.last4 == "0005"
    with pytest.raises(stripe.InvalidRequestError) as reused:
        raw_client.v1.payment_methods.create(params={"type": "card",
                                                     "card": {"token": token.id}})
    assert "more than once" in str(reused.value.user_message)
    customer = client.v1.customers.create()
    from_token = client.v1.payment_methods.create(params={"type": "card",
                                                          "card": {"token": "tok_amex"}})
    assert from_token.card is not None and from_token.card.brand == "amex"
    attached = client.v1.payment_methods.attach(from_token.id,
                                                params={"customer": customer.id})
    assert attached.customer == customer.id
    listed = client.v1.payment_methods.list(params={"customer": customer.id, "type": "card"})
    assert [p.id for p in listed.data] == [from_token.id]
    updated = client.v1.payment_methods.update(from_token.id, params={
        "billing_details": {"name": "Amy"}, "metadata": {"k": "v"}})
    assert updated.billing_details.name == "Amy" and updated.metadata.to_dict() == {"k": "v"}
    detached = client.v1.payment_methods.detach(from_token.id)
    assert detached.customer is None
    with pytest.raises(stripe.CardError) as declined:
        client.v1.payment_methods.attach("pm_card_chargeDeclined",
                                         params={"customer": customer.id})
    assert declined.value.code == "card_declined"


def test_customer_payment_method_and_default(client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={"payment_method": "pm_card_visa"})
    pms = client.v1.customers.payment_methods.list(customer.id)
    assert len(pms.data) == 1
    pm = pms.data[0].id
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.customers.update(customer.id, params={
            "invoice_settings": {"default_payment_method": "pm_unknown"}})
    assert caught.value.param == "invoice_settings[default_payment_method]"
    assert client.v1.customers.retrieve(customer.id).invoice_settings.default_payment_method \
        is None
    done = client.v1.customers.update(customer.id, params={
        "invoice_settings": {"default_payment_method": pm}})
    assert done.invoice_settings.default_payment_method == pm



def test_customer_created_with_a_test_card_as_its_default(client: stripe.StripeClient) -> None:
    """`pm_card_visa` as both payment_method and default: the attached card is the default."""
    customer = client.v1.customers.create(params={
        "email": "default@example.com", "payment_method": "pm_card_visa",
        "invoice_settings": {"default_payment_method": "pm_card_visa"}})
    default = customer.invoice_settings.default_payment_method
    assert default is not None and default.startswith("pm_") and default != "pm_card_visa"
    assert [m.id for m in client.v1.customers.payment_methods.list(customer.id).data] == [default]
    paid = _pay(client, default, customer=customer.id, off_session=True)
    assert paid.status == "succeeded"
    # A default that is not the card being attached, or a card failing the zero-amount
    # check, fails the whole request and leaves no customer behind.
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.customers.create(params={
            "email": "other@example.com", "payment_method": "pm_card_visa",
            "invoice_settings": {"default_payment_method": "pm_card_mastercard"}})
    assert caught.value.param == "invoice_settings[default_payment_method]"
    with pytest.raises(stripe.CardError) as declined:
        client.v1.customers.create(params={"email": "other@example.com",
                                           "payment_method": "pm_card_chargeDeclined"})
    assert declined.value.code == "card_declined"
    assert [c.email for c in client.v1.customers.list().data] == ["default@example.com"]

def test_refunds_partial_full_and_over(client: stripe.StripeClient) -> None:
    pi = _pay(client, "pm_card_visa", amount=3000)
    first = client.v1.refunds.create(params={"payment_intent": pi.id, "amount": 1000})
    assert first.status == "succeeded" and first.amount == 1000
    charge = client.v1.charges.retrieve(str(pi.latest_charge))
    assert charge.amount_refunded == 1000 and not charge.refunded
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.refunds.create(params={"charge": charge.id, "amount": 2500})
    assert "greater than unrefunded amount" in str(caught.value.user_message)
    rest = client.v1.refunds.create(params={"charge": charge.id})
    assert rest.amount == 2000
    charge = client.v1.charges.retrieve(charge.id, params={"expand": ["refunds"]})
    assert charge.refunded and charge.amount_refunded == 3000
    assert charge.refunds is not None and len(charge.refunds.data) == 2
    with pytest.raises(stripe.InvalidRequestError) as again:
        client.v1.refunds.create(params={"charge": charge.id})
    assert again.value.code == "charge_already_refunded"
    listed = client.v1.refunds.list(params={"payment_intent": pi.id})
    assert {r.id for r in listed.data} == {first.id, rest.id}
    assert "charge.refunded" in [e.type for e in client.v1.events.list().data]


def test_refund_failure_card(client: stripe.StripeClient) -> None:
    pi = _pay(client, "pm_card_refundFail")
    refund = client.v1.refunds.create(params={"payment_intent": pi.id})
    assert refund.status == "failed" and refund.failure_reason == "expired_or_canceled_card"
    assert client.v1.charges.retrieve(str(pi.latest_charge)).amount_refunded == 0


def test_dispute_card_opens_dispute(client: stripe.StripeClient) -> None:
    pi = _pay(client, "pm_card_createDispute")
    assert pi.status == "succeeded"
    disputes = client.v1.disputes.list(params={"payment_intent": pi.id})
    assert len(disputes.data) == 1
    dispute = disputes.data[0]
    assert (dispute.status, dispute.reason, dispute.amount) == ("needs_response", "fraudulent",
                                                                2000)
    assert client.v1.charges.retrieve(str(pi.latest_charge)).disputed
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.refunds.create(params={"payment_intent": pi.id})
    won = client.v1.disputes.update(dispute.id, params={
        "evidence": {"uncategorized_text": "winning_evidence"}})
    assert won.status == "won"
    types = [e.type for e in client.v1.events.list().data]
    assert "charge.dispute.created" in types and "charge.dispute.closed" in types


def test_bypass_pending_goes_to_available(client: stripe.StripeClient) -> None:
    _pay(client, "pm_card_bypassPending", amount=10000)
    balance = client.v1.balance.retrieve()
    assert balance.available[0].amount == 10000 - 320
    txns = client.v1.balance_transactions.list(params={"type": "charge"})
    assert [t.status for t in txns.data] == ["available"]


def test_old_versions_embed_charges_and_refunds(client: stripe.StripeClient) -> None:
    pi = _pay(client, "pm_card_visa")
    client.v1.refunds.create(params={"payment_intent": pi.id, "amount": 500})
    old = client.v1.payment_intents.retrieve(pi.id, options={"stripe_version": "2022-08-01"})
    assert old.charges.object == "list"  # type: ignore[attr-defined]
    embedded = old.charges.data[0]  # type: ignore[attr-defined]
    assert embedded.id == pi.latest_charge
    assert embedded.refunds.data[0].amount == 500
    new = client.v1.payment_intents.retrieve(pi.id)
    assert "charges" not in new
    assert "refunds" not in client.v1.charges.retrieve(str(pi.latest_charge))


def test_publishable_key_confirms_with_client_secret(client: stripe.StripeClient,
                                                     account: dict[str, str],
                                                     emulator: Any) -> None:
    pi = client.v1.payment_intents.create(params={"amount": 1200, "currency": "usd"})
    headers = {"Authorization": f"Bearer {account['publishable_key']}"}
    api = emulator.base
    wrong = httpx.post(f"{api}/v1/payment_intents/{pi.id}/confirm", headers=headers,
                       data={"payment_method": "pm_card_visa", "client_secret": "nope"})
    assert wrong.status_code == 400 and wrong.json()["error"]["param"] == "client_secret"
    created = httpx.post(f"{api}/v1/payment_methods", headers=headers, data={
        "type": "card", "card[number]": "4242424242424242", "card[exp_month]": "4",
        "card[exp_year]": "2040", "card[cvc]": "314"})
    assert created.status_code == 200, created.text
    ok = httpx.post(f"{api}/v1/payment_intents/{pi.id}/confirm", headers=headers, data={
        "payment_method": created.json()["id"], "client_secret": pi.client_secret,
        "return_url": "https://shop.test/r"})
    assert ok.status_code == 200 and ok.json()["status"] == "succeeded"
    denied = httpx.post(f"{api}/v1/payment_intents", headers=headers,
                        data={"amount": "100", "currency": "usd"})
    assert denied.status_code == 401


def test_legacy_charges_api_with_token(client: stripe.StripeClient) -> None:
    charge = client.v1.charges.create(params={"amount": 999, "currency": "usd",
                                              "source": "tok_visa"})
    assert charge.status == "succeeded" and charge.paid
    with pytest.raises(stripe.CardError) as caught:
        client.v1.charges.create(params={"amount": 999, "currency": "usd",
                                         "source": "tok_chargeDeclinedInsufficientFunds"})
    assert caught.value.error is not None
    assert caught.value.error.decline_code == "insufficient_funds"


def test_manual_confirmation_with_sdk_action(client: stripe.StripeClient) -> None:
    pi = _pay(client, "pm_card_threeDSecureRequired", confirmation_method="manual")
    assert pi.status == "requires_action"
    assert pi.next_action is not None and pi.next_action.type == "use_stripe_sdk"
    url = pi.next_action.use_stripe_sdk["stripe_js"]  # type: ignore[index]
    done = httpx.post(f"{url}?embedded=1", data={"outcome": "approve"})
    assert "stripebench:3ds-complete" in done.text
    pi = client.v1.payment_intents.retrieve(pi.id)
    assert pi.status == "requires_confirmation"
    assert client.v1.payment_intents.confirm(pi.id).status == "succeeded"
    types = [e.type for e in client.v1.events.list().data]
    assert "payment_intent.requires_action" in types


def test_setup_intent_decline_and_cancel(client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create()
    si = client.v1.setup_intents.create(params={"customer": customer.id, **CARD_ONLY})
    assert si.status == "requires_payment_method" and si.usage == "off_session"
    with pytest.raises(stripe.CardError) as caught:
        client.v1.setup_intents.confirm(si.id, params={
            "payment_method": "pm_card_visa_chargeDeclinedInsufficientFunds"})
    assert caught.value.error is not None
    assert caught.value.error.decline_code == "insufficient_funds"
    after = client.v1.setup_intents.retrieve(si.id)
    assert after.status == "requires_payment_method" and after.last_setup_error is not None
    assert client.v1.customers.payment_methods.list(customer.id).data == []
    canceled = client.v1.setup_intents.cancel(si.id)
    assert canceled.status == "canceled"
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.setup_intents.confirm(si.id, params={"payment_method": "pm_card_visa"})
