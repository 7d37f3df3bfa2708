"""Issue 3 audit with the python SDK: every test id STRIPE_SURFACE.md names, status
transitions and the errors around them, refunds by charge or intent, disputes and
balance transactions, the 2022-11-15 version boundary."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import stripe

CARD_ONLY = {"allowed_payment_method_types": ["card"]}


def _pay(client: stripe.StripeClient, pm: str, **extra: Any) -> stripe.PaymentIntent:
    params: dict[str, Any] = {"amount": 2000, "currency": "usd", "confirm": True, **CARD_ONLY}
    if pm.startswith("tok_"):
        params["payment_method_data"] = {"type": "card", "card": {"token": pm}}
    else:
        params["payment_method"] = pm
    params.update(extra)
    return client.v1.payment_intents.create(params=params)  # type: ignore[arg-type]


# (id, brand, funding, country, last4, display brand) from Stripe's testing docs
SUCCEEDING = [
    ("visa", "visa", "credit", "US", "4242", "visa"),
    ("mastercard", "mastercard", "credit", "US", "4444", "mastercard"),
    ("us", "visa", "credit", "US", "4242", "visa"),
    ("mastercard_debit", "mastercard", "debit", "US", "8210", "mastercard"),
    ("visa_cartesBancaires", "visa", "credit", "FR", "1001", "cartes_bancaires"),
    ("bypassPending", "visa", "credit", "US", "0077", "visa"),
    ("createDispute", "visa", "credit", "US", "0259", "visa"),
]


@pytest.mark.parametrize("prefix", ["pm_card_", "tok_"])
@pytest.mark.parametrize(("name", "brand", "funding", "country", "last4", "display"),
                         SUCCEEDING)
def test_succeeding_test_ids(client: stripe.StripeClient, prefix: str, name: str, brand: str,
                             funding: str, country: str, last4: str, display: str) -> None:
    pi = _pay(client, prefix + name)
    assert pi.status == "succeeded" and pi.amount_received == 2000
    pm = client.v1.payment_methods.retrieve(str(pi.payment_method))
    assert pm.id.startswith("pm_") and pm.id != prefix + name  # materialised on use
    assert pm.card is not None
    assert (pm.card.brand, pm.card.funding, pm.card.country, pm.card.last4) == (
        brand, funding, country, last4)
    assert pm.card.display_brand == display
    charge = client.v1.charges.retrieve(str(pi.latest_charge))
    assert charge.paid and charge.status == "succeeded"
    assert charge.disputed is (name == "createDispute")


DECLINING = [
    ("chargeDeclined", "card_declined", "generic_decline"),
    ("visa_chargeDeclined", "card_declined", "generic_decline"),
    ("visa_chargeDeclinedInsufficientFunds", "card_declined", "insufficient_funds"),
    ("visa_chargeDeclinedLostCard", "card_declined", "lost_card"),
    ("visa_chargeDeclinedStolenCard", "card_declined", "stolen_card"),
    ("visa_chargeDeclinedVelocityLimitExceeded", "card_declined", "card_velocity_exceeded"),
    ("chargeDeclinedExpiredCard", "expired_card", "expired_card"),
    ("chargeDeclinedIncorrectCvc", "incorrect_cvc", "incorrect_cvc"),
    ("chargeDeclinedProcessingError", "processing_error", "processing_error"),
    ("chargeDeclinedFraudulent", "card_declined", "fraudulent"),
]


@pytest.mark.parametrize("prefix", ["pm_card_", "tok_"])
@pytest.mark.parametrize(("name", "code", "decline_code"), DECLINING)
def test_declining_test_ids(client: stripe.StripeClient, prefix: str, name: str, code: str,
                            decline_code: str) -> None:
    with pytest.raises(stripe.CardError) as caught:
        _pay(client, prefix + name)
    err = caught.value.error
    assert err is not None and caught.value.http_status == 402
    assert (err.type, err.code, err.decline_code) == ("card_error", code, decline_code)
    assert err.charge is not None and err.charge.startswith("ch_")
    assert err.payment_method is not None and err.payment_method.id.startswith("pm_")
    assert err.payment_intent is not None
    pi = client.v1.payment_intents.retrieve(err.payment_intent.id)
    assert pi.status == "requires_payment_method" and pi.payment_method is None
    lpe = pi.last_payment_error
    assert lpe is not None and lpe.charge == err.charge
    assert lpe.payment_method is not None and lpe.payment_method.id == err.payment_method.id
    charge = client.v1.charges.retrieve(err.charge)
    assert (charge.status, charge.paid, charge.failure_code) == ("failed", False, code)
    assert charge.outcome is not None
    # Radar's block reports its rule's reason; issuer declines report the decline code.
    assert charge.outcome.reason == ("highest_risk_level" if decline_code == "fraudulent"
                                     else decline_code)
    assert charge.balance_transaction is None


@pytest.mark.parametrize("pm", ["pm_card_authenticationRequired", "tok_authenticationRequired"])
def test_authentication_required_on_session_needs_3ds(client: stripe.StripeClient,
                                                      pm: str) -> None:
    pi = _pay(client, pm, return_url="https://shop.test/back")
    assert pi.status == "requires_action"
    assert pi.next_action is not None and pi.next_action.type == "redirect_to_url"
    assert pi.latest_charge is None
    canceled = client.v1.payment_intents.cancel(pi.id)
    assert canceled.status == "canceled" and canceled.next_action is None


def test_intent_state_errors(client: stripe.StripeClient) -> None:
    open_pi = client.v1.payment_intents.create(params={"amount": 1000, "currency": "usd",
                                                       **CARD_ONLY})  # type: ignore[typeddict-item]
    with pytest.raises(stripe.InvalidRequestError) as capture:
        client.v1.payment_intents.capture(open_pi.id)
    assert capture.value.code == "payment_intent_unexpected_state"
    with pytest.raises(stripe.InvalidRequestError) as refund:
        client.v1.refunds.create(params={"payment_intent": open_pi.id})
    assert refund.value.code == "charge_not_refundable"
    assert client.v1.payment_intents.cancel(open_pi.id).status == "canceled"
    with pytest.raises(stripe.InvalidRequestError) as confirm:
        client.v1.payment_intents.confirm(open_pi.id, params={"payment_method": "pm_card_visa"})
    assert confirm.value.code == "payment_intent_unexpected_state"
    paid = _pay(client, "pm_card_visa")
    with pytest.raises(stripe.InvalidRequestError) as update:
        client.v1.payment_intents.update(paid.id, params={"amount": 5000})
    assert update.value.code == "payment_intent_unexpected_state"
    customer = client.v1.customers.create()
    mine = _pay(client, "pm_card_visa", customer=customer.id)
    listed = client.v1.payment_intents.list(params={"customer": customer.id})
    assert [p.id for p in listed.data] == [mine.id]
    assert mine.capture_method == "automatic_async"


def test_partial_capture_then_refund_limits(client: stripe.StripeClient) -> None:
    pi = _pay(client, "pm_card_visa", amount=2000, capture_method="manual")
    with pytest.raises(stripe.InvalidRequestError) as early:
        client.v1.refunds.create(params={"payment_intent": pi.id})
    assert early.value.code == "charge_not_refundable"
    done = client.v1.payment_intents.capture(pi.id, params={"amount_to_capture": 500})
    assert (done.status, done.amount_received, done.amount_capturable) == ("succeeded", 500, 0)
    charge = client.v1.charges.retrieve(str(done.latest_charge))
    assert (charge.amount_captured, charge.amount_refunded, charge.refunded) == (500, 1500,
                                                                                 False)
    with pytest.raises(stripe.InvalidRequestError) as over:
        client.v1.refunds.create(params={"charge": charge.id, "amount": 600})
    assert over.value.code == "amount_too_large"
    refund = client.v1.refunds.create(params={
        "charge": charge.id, "amount": 200, "reason": "requested_by_customer",
        "metadata": {"ticket": "7"}})
    assert (refund.status, refund.payment_intent, refund.reason) == (
        "succeeded", pi.id, "requested_by_customer")
    txn = client.v1.balance_transactions.retrieve(str(refund.balance_transaction))
    assert (txn.type, txn.amount, txn.fee, txn.net, txn.source) == (
        "refund", -200, 0, -200, refund.id)
    for bad in ({"charge": charge.id, "payment_intent": pi.id}, {},
                {"charge": charge.id, "amount": 0}):
        with pytest.raises(stripe.InvalidRequestError):
            client.v1.refunds.create(params=bad)  # type: ignore[arg-type]
    by_charge = client.v1.refunds.list(params={"charge": charge.id})
    assert [r.id for r in by_charge.data] == [refund.id]


def test_dispute_balance_and_events(client: stripe.StripeClient) -> None:
    pi = _pay(client, "pm_card_createDispute", amount=3000)
    dispute = client.v1.disputes.list(params={"charge": str(pi.latest_charge)}).data[0]
    assert dispute.payment_intent == pi.id and dispute.currency == "usd"
    assert [(t.type, t.amount, t.fee, t.net) for t in dispute.balance_transactions] == [
        ("adjustment", -3000, 1500, -4500)]
    types = {e.type for e in client.v1.events.list(params={"limit": 100}).data}
    assert {"charge.dispute.created", "charge.dispute.funds_withdrawn"} <= types
    lost = client.v1.disputes.close(dispute.id)
    assert lost.status == "lost"
    balance = client.v1.balance.retrieve()
    assert balance.available[0].amount == -4500
    assert balance.pending[0].amount == 3000 - 117


def test_version_boundary_embeds_only_the_latest_charge(client: stripe.StripeClient,
                                                        account: dict[str, str],
                                                        emulator: Any) -> None:
    pi = client.v1.payment_intents.create(params={"amount": 2000, "currency": "usd",
                                                  **CARD_ONLY})  # type: ignore[typeddict-item]
    with pytest.raises(stripe.CardError):
        client.v1.payment_intents.confirm(pi.id,
                                          params={"payment_method": "pm_card_chargeDeclined"})
    ok = client.v1.payment_intents.confirm(pi.id, params={"payment_method": "pm_card_visa"})
    for n in range(2):
        client.v1.refunds.create(params={"payment_intent": pi.id, "amount": 100 + n})
    headers = {"Authorization": f"Bearer {account['secret_key']}"}

    def fetch(version: str) -> dict[str, Any]:
        response = httpx.get(f"{emulator.base}/v1/payment_intents/{pi.id}",
                             headers={**headers, "Stripe-Version": version})
        assert response.status_code == 200
        body: dict[str, Any] = response.json()
        return body

    assert "charges" not in fetch("2022-11-15")
    old = fetch("2022-08-01")["charges"]
    assert (old["object"], old["total_count"], old["has_more"]) == ("list", 1, False)
    assert old["url"] == f"/v1/charges?payment_intent={pi.id}"
    assert [c["id"] for c in old["data"]] == [ok.latest_charge]
    assert old["data"][0]["status"] == "succeeded"
    refunds = old["data"][0]["refunds"]
    assert (refunds["total_count"], [r["amount"] for r in refunds["data"]]) == (2, [101, 100])
    everything = client.v1.charges.list(params={"payment_intent": pi.id})
    assert [c.status for c in everything.data] == ["succeeded", "failed"]


def test_publishable_key_sees_only_the_public_fields(client: stripe.StripeClient,
                                                     account: dict[str, str],
                                                     emulator: Any) -> None:
    """Stripe returns only the "retrievable with publishable key" fields to Stripe.js: a
    return_url page cannot read the intent's customer, metadata or charge."""
    customer = client.v1.customers.create()
    pi = client.v1.payment_intents.create(params={
        "amount": 2000, "currency": "usd", "customer": customer.id,
        "metadata": {"order": "9"}, **CARD_ONLY})  # type: ignore[typeddict-item]
    pk = {"Authorization": f"Bearer {account['publishable_key']}"}
    seen = httpx.get(f"{emulator.base}/v1/payment_intents/{pi.id}", headers=pk,
                     params={"client_secret": pi.client_secret}).json()
    assert seen["status"] == "requires_payment_method" and seen["amount"] == 2000
    assert seen["client_secret"] == pi.client_secret
    for hidden in ("customer", "metadata", "latest_charge", "amount_received"):
        assert hidden not in seen
    declined = httpx.post(f"{emulator.base}/v1/payment_intents/{pi.id}/confirm", headers=pk,
                          data={"client_secret": pi.client_secret,
                                "payment_method": "pm_card_chargeDeclined"}).json()["error"]
    assert declined["decline_code"] == "generic_decline"
    assert declined["payment_intent"]["last_payment_error"]["code"] == "card_declined"
    assert "customer" not in declined["payment_intent"]
    full = client.v1.payment_intents.retrieve(pi.id)  # the secret key still sees everything
    assert full.customer == customer.id and full.metadata.to_dict() == {"order": "9"}
    si = client.v1.setup_intents.create(params={"customer": customer.id,
                                                "metadata": {"k": "v"}})
    seen_si = httpx.get(f"{emulator.base}/v1/setup_intents/{si.id}", headers=pk,
                        params={"client_secret": si.client_secret}).json()
    assert (seen_si["status"], seen_si["usage"]) == ("requires_payment_method", "off_session")
    assert "customer" not in seen_si and "metadata" not in seen_si


def test_pending_funds_become_available_after_two_days(client: stripe.StripeClient,
                                                       account: dict[str, str],
                                                       emulator: Any) -> None:
    pi = _pay(client, "pm_card_visa", amount=10000)
    txn = client.v1.balance_transactions.retrieve(
        str(client.v1.charges.retrieve(str(pi.latest_charge)).balance_transaction))
    assert txn.status == "pending" and txn.available_on - txn.created >= 2 * 86400 - 5
    before = client.v1.balance.retrieve()
    assert (before.available[0].amount, before.pending[0].amount) == (0, 10000 - 320)
    clock = httpx.post(f"{emulator.base}/_emulator/accounts/{account['id']}/clock",
                       json={"to": txn.available_on})
    assert clock.status_code == 200
    after = client.v1.balance.retrieve()
    assert (after.available[0].amount, after.pending[0].amount) == (10000 - 320, 0)
    assert client.v1.balance_transactions.retrieve(txn.id).status == "available"


def _approve(intent: Any) -> None:
    url = intent.next_action.redirect_to_url.url
    assert httpx.post(str(url), data={"outcome": "approve"}).status_code == 302


def test_declined_after_authentication_cards(client: stripe.StripeClient,
                                             account: dict[str, str], emulator: Any) -> None:
    """pm_card_authenticationRequiredChargeDeclinedInsufficientFunds (4000008260003178):
    3DS passes, the payment is declined for insufficient funds; set up, it saves, and
    off-session payments are declined the same way. 4000008400001629: 3DS, then a generic
    decline."""
    name = "pm_card_authenticationRequiredChargeDeclinedInsufficientFunds"
    pi = _pay(client, name, return_url="https://shop.test/back")
    assert pi.status == "requires_action"
    _approve(pi)
    after = client.v1.payment_intents.retrieve(pi.id)
    assert after.status == "requires_payment_method"
    assert after.last_payment_error is not None
    assert after.last_payment_error.decline_code == "insufficient_funds"
    pm = client.v1.payment_methods.retrieve(
        str(after.last_payment_error.payment_method.id))  # type: ignore[union-attr]
    assert pm.card is not None and pm.card.last4 == "3178"
    customer = client.v1.customers.create()
    si = client.v1.setup_intents.create(params={
        "customer": customer.id, "payment_method": name, "confirm": True,
        "return_url": "https://shop.test/saved", **CARD_ONLY})
    assert si.status == "requires_action"
    _approve(si)
    saved = client.v1.setup_intents.retrieve(si.id)
    assert saved.status == "succeeded"
    with pytest.raises(stripe.CardError) as caught:
        _pay(client, str(saved.payment_method), customer=customer.id, off_session=True)
    assert caught.value.error is not None
    assert caught.value.error.decline_code == "insufficient_funds"
    created = httpx.post(f"{emulator.base}/v1/payment_methods", headers={
        "Authorization": f"Bearer {account['publishable_key']}"}, data={
        "type": "card", "card[number]": "4000008400001629", "card[exp_month]": "12",
        "card[exp_year]": "2040", "card[cvc]": "123"}).json()
    other = _pay(client, created["id"], return_url="https://shop.test/back")
    assert other.status == "requires_action"
    _approve(other)
    failed = client.v1.payment_intents.retrieve(other.id)
    assert failed.last_payment_error is not None
    assert (failed.status, failed.last_payment_error.decline_code) == (
        "requires_payment_method", "generic_decline")


def test_already_set_up_card_skips_3ds_off_session(client: stripe.StripeClient) -> None:
    """pm_card_authenticationRequiredSetupForOffSession (4000003800000446): on-session
    payments need 3DS, off-session ones succeed without any prior setup."""
    name = "pm_card_authenticationRequiredSetupForOffSession"
    on_session = _pay(client, name, return_url="https://shop.test/back")
    assert on_session.status == "requires_action"
    customer = client.v1.customers.create()
    pm = client.v1.payment_methods.attach(name, params={"customer": customer.id})
    assert pm.card is not None and pm.card.last4 == "0446"
    off = _pay(client, pm.id, customer=customer.id, off_session=True)
    assert off.status == "succeeded"
    # The "authenticate unless set up" card is refused off session until it is set up.
    plain = client.v1.payment_methods.attach("pm_card_authenticationRequiredOnSetup",
                                             params={"customer": customer.id})
    with pytest.raises(stripe.CardError) as caught:
        _pay(client, plain.id, customer=customer.id, off_session=True)
    assert caught.value.code == "authentication_required"


def test_radar_cards_are_blocked(client: stripe.StripeClient) -> None:
    for name, last4 in (("pm_card_radarBlock", "0019"), ("pm_card_riskLevelHighest", "4954")):
        with pytest.raises(stripe.CardError) as caught:
            _pay(client, name)
        err = caught.value.error
        assert err is not None and err.decline_code == "fraudulent"
        assert err.payment_method is not None and err.payment_method.card is not None
        assert err.payment_method.card.last4 == last4
        charge = client.v1.charges.retrieve(str(err.charge))
        assert charge.outcome is not None
        assert (charge.outcome.type, charge.outcome.risk_level) == ("blocked", "highest")


def test_confirmation_tokens(client: stripe.StripeClient) -> None:
    """Server-side confirmation with a ConfirmationToken (what createConfirmationToken makes
    in the browser; the test helper makes one from a test card)."""
    token = client.v1.test_helpers.confirmation_tokens.create(params={
        "payment_method": "pm_card_visa", "return_url": "https://shop.test/back"})
    assert token.id.startswith("ctoken_") and token.payment_intent is None
    assert token.expires_at is not None and token.expires_at - token.created == 12 * 3600
    preview = token.payment_method_preview
    assert preview is not None and preview.type == "card"
    assert preview.card is not None and preview.card.last4 == "4242"
    with pytest.raises(stripe.InvalidRequestError) as unconfirmed:
        client.v1.payment_intents.create(params={"amount": 1500, "currency": "usd",
                                                 "confirmation_token": token.id})
    assert unconfirmed.value.param == "confirmation_token"
    # automatic payment methods: the token's return_url satisfies the redirect rule
    pi = client.v1.payment_intents.create(params={"amount": 1500, "currency": "usd",
                                                  "confirm": True,
                                                  "confirmation_token": token.id})
    assert pi.status == "succeeded" and pi.payment_method
    assert client.v1.confirmation_tokens.retrieve(token.id).payment_intent == pi.id
    with pytest.raises(stripe.InvalidRequestError) as reused:
        client.v1.payment_intents.create(params={"amount": 1500, "currency": "usd",
                                                 "confirm": True,
                                                 "confirmation_token": token.id})
    assert reused.value.param == "confirmation_token"
    # 3DS: next_action redirects to the token's return_url afterwards
    three = client.v1.test_helpers.confirmation_tokens.create(params={
        "payment_method": "pm_card_authenticationRequired",
        "return_url": "https://shop.test/after-3ds"})
    pending = client.v1.payment_intents.create(params={"amount": 1500, "currency": "usd",
                                                       "confirm": True,
                                                       "confirmation_token": three.id})
    assert pending.status == "requires_action" and pending.next_action is not None
    assert pending.next_action.redirect_to_url is not None
    assert pending.next_action.redirect_to_url.return_url == "https://shop.test/after-3ds"
    # SetupIntent: the card is saved to the customer
    customer = client.v1.customers.create()
    save = client.v1.test_helpers.confirmation_tokens.create(params={
        "payment_method": "pm_card_mastercard"})
    si = client.v1.setup_intents.create(params={"customer": customer.id, "confirm": True,
                                                "confirmation_token": save.id,
                                                **CARD_ONLY})
    assert si.status == "succeeded"
    saved = client.v1.customers.payment_methods.list(customer.id).data
    assert [m.id for m in saved] == [si.payment_method]
    declined = client.v1.test_helpers.confirmation_tokens.create(params={
        "payment_method": "pm_card_chargeDeclined"})
    with pytest.raises(stripe.CardError) as caught:
        client.v1.payment_intents.create(params={"amount": 1500, "currency": "usd",
                                                 "confirm": True, **CARD_ONLY,
                                                 "confirmation_token": declined.id})
    assert caught.value.code == "card_declined"


@pytest.mark.parametrize(("param", "value"), [
    ("customer_account", "acct_123"),
    ("payment_method_configuration", "pmc_123"),
    ("payment_details", {"order_reference": "o-1"}),
    ("hooks", {"inputs": {"tax": {"calculation": "taxcalc_1"}}}),
])
def test_parameters_without_emulation_fail_loudly(client: stripe.StripeClient, param: str,
                                                  value: Any) -> None:
    with pytest.raises(stripe.InvalidRequestError) as caught:
        client.v1.payment_intents.create(params={"amount": 1000, "currency": "usd",
                                                 param: value})  # type: ignore[misc]
    assert (caught.value.code, caught.value.param) == ("emulator_unsupported", param)


def test_card_options_request_3ds_and_capture_method(client: stripe.StripeClient) -> None:
    forced = _pay(client, "pm_card_visa", return_url="https://shop.test/back",
                  payment_method_options={"card": {"request_three_d_secure": "any"}})
    assert forced.status == "requires_action"
    held = _pay(client, "pm_card_visa",
                payment_method_options={"card": {"capture_method": "manual"}})
    assert (held.status, held.amount_capturable) == ("requires_capture", 2000)
    assert client.v1.payment_intents.capture(held.id).status == "succeeded"
