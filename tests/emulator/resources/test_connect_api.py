"""Connect with the official SDK: connected accounts (by type and by controller
properties), requirements that resolve when the data arrives, `Stripe-Account`,
capabilities, external accounts, account sessions and links, login links, reject, delete.

Stripe's pages: https://docs.stripe.com/api/accounts/create,
https://docs.stripe.com/connect/migrate-to-controller-properties,
https://docs.stripe.com/api/account_sessions/create, https://docs.stripe.com/connect/authentication
"""

from __future__ import annotations

import httpx
import pytest
import stripe

from conftest import RunningEmulator
from connect_helpers import US_INDIVIDUAL, custom_account


def test_express_account_starts_with_requirements_due(client: stripe.StripeClient) -> None:
    acct = client.v1.accounts.create(params={
        "type": "express", "country": "US", "email": "groomer@example.com",
        "capabilities": {"card_payments": {"requested": True},
                         "transfers": {"requested": True}}})
    assert acct.id.startswith("acct_") and acct.type == "express"
    assert acct.controller.to_dict() == {
        "fees": {"payer": "application_express"}, "is_controller": True,
        "losses": {"payments": "application"}, "requirement_collection": "stripe",
        "stripe_dashboard": {"type": "express"}, "type": "application"}
    assert acct.charges_enabled is False and acct.payouts_enabled is False
    assert acct.details_submitted is False
    assert acct.capabilities.to_dict() == {"card_payments": "inactive", "transfers": "inactive"}
    due = acct.requirements.currently_due
    assert {"business_type", "external_account", "tos_acceptance.date"} <= set(due)
    assert acct.requirements.disabled_reason == "requirements.past_due"
    with pytest.raises(stripe.InvalidRequestError) as err:
        client.v1.accounts.update(acct.id, params={"tos_acceptance": {"date": 1, "ip": "1.1.1.1"}})
    assert err.value.param == "tos_acceptance"


def test_custom_account_prefilled_is_enabled(client: stripe.StripeClient) -> None:
    acct = custom_account(client)
    assert acct.requirements.currently_due == [] and acct.requirements.disabled_reason is None
    assert acct.charges_enabled and acct.payouts_enabled and acct.details_submitted
    assert acct.capabilities.card_payments == "active"
    assert acct.individual.first_name == "Jenny" and acct.individual.ssn_last_4_provided
    banks = client.v1.accounts.external_accounts.list(acct.id)
    assert [b.last4 for b in banks.data] == ["6789"] and banks.data[0].default_for_currency


def test_requirements_resolve_as_data_arrives(client: stripe.StripeClient) -> None:
    acct = client.v1.accounts.create(params={
        "type": "custom", "country": "US",
        "capabilities": {"transfers": {"requested": True}}})
    assert "business_type" in acct.requirements.currently_due
    acct = client.v1.accounts.update(acct.id, params={
        "business_type": "individual", "individual": US_INDIVIDUAL,
        "business_profile": {"mcc": "5734", "product_description": "Dog grooming"}})
    assert acct.requirements.currently_due == [
        "external_account", "tos_acceptance.date", "tos_acceptance.ip"]
    client.v1.accounts.external_accounts.create(acct.id, params={
        "external_account": {"object": "bank_account", "country": "US", "currency": "usd",
                             "routing_number": "110000000", "account_number": "000123456789"}})
    acct = client.v1.accounts.update(acct.id, params={
        "tos_acceptance": {"date": 1700000000, "ip": "10.0.0.1"}})
    assert acct.requirements.currently_due == [] and acct.payouts_enabled
    assert acct.capabilities.transfers == "active"
    assert acct.charges_enabled is False  # card_payments was never requested


def test_controller_properties(client: stripe.StripeClient) -> None:
    acct = client.v1.accounts.create(params={"controller": {
        "fees": {"payer": "application"}, "losses": {"payments": "application"},
        "stripe_dashboard": {"type": "express"}},
        "capabilities": {"transfers": {"requested": True}}})
    assert acct.type == "none" and acct.controller.fees.payer == "application"
    assert acct.controller.requirement_collection == "stripe"
    plain = client.v1.accounts.create(params={})
    assert plain.type == "standard" and plain.controller.stripe_dashboard.type == "full"
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.accounts.create(params={"type": "express", "controller": {
            "fees": {"payer": "application"}}})
    # Custom accounts must request capabilities (changelog 2019-11-05); nothing is left
    # behind by the refused request.
    before = len(client.v1.accounts.list(params={"limit": 100}).data)
    with pytest.raises(stripe.InvalidRequestError) as err:
        client.v1.accounts.create(params={"type": "custom", "external_account": "btok_us"})
    assert err.value.param == "capabilities"
    assert len(client.v1.accounts.list(params={"limit": 100}).data) == before
    express = client.v1.accounts.create(params={"type": "express"})
    assert express.capabilities.to_dict() == {"card_payments": "inactive",
                                              "transfers": "inactive"}


def test_stripe_account_header_scopes_objects(emulator: RunningEmulator,
                                              client: stripe.StripeClient,
                                              account: dict[str, str]) -> None:
    acct = custom_account(client)
    on_connected = client.v1.customers.create(params={"email": "c@example.com"},
                                              options={"stripe_account": acct.id})
    platform_ids = [c.id for c in client.v1.customers.list().data]
    assert on_connected.id not in platform_ids
    connected_ids = [c.id for c in client.v1.customers.list(
        options={"stripe_account": acct.id}).data]
    assert connected_ids == [on_connected.id]
    own = client.v1.accounts.retrieve_current(options={"stripe_account": acct.id})
    assert own.id == acct.id and own.charges_enabled
    platform = client.v1.accounts.retrieve_current()
    assert platform.id == account["id"] and platform.charges_enabled
    events = client.v1.events.list(params={"type": "customer.created"},
                                   options={"stripe_account": acct.id})
    assert events.data[0].account == acct.id
    other = emulator.new_account()
    stranger = stripe.StripeClient(other["secret_key"], base_addresses={"api": emulator.base})
    with pytest.raises(stripe.PermissionError) as err:
        stranger.v1.customers.list(options={"stripe_account": acct.id})
    assert err.value.error is not None and err.value.error.code == "account_invalid"


def test_capabilities_reject_delete(client: stripe.StripeClient) -> None:
    acct = custom_account(client)
    caps = client.v1.accounts.capabilities.list(acct.id)
    assert {c.id: c.status for c in caps.data} == {"card_payments": "active",
                                                     "transfers": "active"}
    rejected = client.v1.accounts.reject(acct.id, params={"reason": "fraud_other"})
    assert rejected.requirements.disabled_reason == "rejected.fraud"
    assert not rejected.charges_enabled and rejected.capabilities.card_payments == "inactive"
    gone = client.v1.accounts.delete(acct.id)
    assert gone.deleted is True
    with pytest.raises(stripe.InvalidRequestError) as err:
        client.v1.accounts.retrieve(acct.id)
    assert err.value.http_status == 404


def test_account_session_feature_defaults(client: stripe.StripeClient) -> None:
    """Payments features default to refund, dispute and capture management on.
    https://docs.stripe.com/api/account_sessions/create#create_account_session-components-payments-features"""
    acct = custom_account(client)
    session = client.v1.account_sessions.create(params={
        "account": acct.id, "components": {
            "payments": {"enabled": True, "features": {"refund_management": False}},
            "payouts": {"enabled": True}}})
    assert session.client_secret.startswith("accs_") and "_secret_" in session.client_secret
    payments = session.components.payments
    assert payments.enabled is True
    assert payments.features.to_dict() == {
        "capture_payments": True, "destination_on_behalf_of_charge_management": False,
        "dispute_management": True, "refund_management": False,
        "smart_disputes_management": True}  # follows dispute_management
    # A custom account: the platform bears losses, so payout features default off.
    assert session.components.payouts.features.to_dict() == {
        "disable_stripe_user_authentication": False, "edit_payout_schedule": False,
        "external_account_collection": True, "instant_payouts": False,
        "standard_payouts": False}
    assert session.components.balances.enabled is False
    assert session.expires_at > 0
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.account_sessions.create(params={"account": acct.id, "components": {
            "payments": {"enabled": False}}})


def test_account_session_payout_defaults_follow_who_bears_losses(
        client: stripe.StripeClient) -> None:
    """Payouts and balances: instant and standard payouts and schedule editing default to
    true only when `controller.losses.payments` is `stripe`; bank collection is true and
    `disable_stripe_user_authentication` its opposite; smart disputes follow dispute
    management (issue 28). https://docs.stripe.com/api/account_sessions/create
    https://docs.stripe.com/changelog/dahlia/2026-07-29/account-session-embedded-components-smart-disputes-management"""
    liable = client.v1.accounts.create(params={"controller": {
        "losses": {"payments": "stripe"}, "fees": {"payer": "account"},
        "stripe_dashboard": {"type": "full"}}})
    session = client.v1.account_sessions.create(params={
        "account": liable.id, "components": {
            "balances": {"enabled": True},
            "payouts": {"enabled": True, "features": {"external_account_collection": False}},
            "payments": {"enabled": True, "features": {"dispute_management": False}}}})
    comps = session.components
    for name in ("instant_payouts", "standard_payouts", "edit_payout_schedule"):
        assert comps.balances.features[name] is True and comps.payouts.features[name] is True
    assert comps.balances.features.disable_stripe_user_authentication is False
    assert comps.payouts.features.disable_stripe_user_authentication is True
    assert comps.payments.features.smart_disputes_management is False
    assert "capture_payments" not in comps.payment_disputes.features.to_dict()


def test_account_session_features_belong_to_each_component(
        client: stripe.StripeClient) -> None:
    """Each component carries its own features (wall 9 of issue 25): turning refunds off
    for Payments leaves Payment details and Disputes list at Stripe's defaults, a second
    session starts from the defaults again, and a feature a component does not have is
    refused rather than pooled. https://docs.stripe.com/api/account_sessions/create"""
    acct = custom_account(client)
    session = client.v1.account_sessions.create(params={
        "account": acct.id, "components": {
            "payments": {"enabled": True, "features": {"refund_management": False}},
            "payment_details": {"enabled": True, "features": {"dispute_management": False}},
            "disputes_list": {"enabled": True},
            "payouts": {"enabled": True, "features": {"instant_payouts": False}}}})
    comps = session.components
    assert comps.payments.features.refund_management is False
    assert comps.payments.features.dispute_management is True
    assert comps.payment_details.features.refund_management is True
    assert comps.payment_details.features.dispute_management is False
    assert comps.disputes_list.features.refund_management is True
    assert comps.disputes_list.features.dispute_management is True
    assert comps.payouts.features.instant_payouts is False
    assert comps.balances.features.instant_payouts is False  # custom: application liable
    assert "refund_management" not in comps.payouts.features.to_dict()
    again = client.v1.account_sessions.create(params={
        "account": acct.id, "components": {"payments": {"enabled": True}}})
    assert again.components.payments.features.refund_management is True
    assert again.components.payouts.features.instant_payouts is False
    with pytest.raises(stripe.InvalidRequestError) as err:
        client.v1.account_sessions.create(params={"account": acct.id, "components": {
            "payouts": {"enabled": True, "features": {"refund_management": True}}}})
    assert "refund_management" in str(err.value.param or err.value.user_message)


def test_account_links_and_login_links(client: stripe.StripeClient,
                                       emulator: RunningEmulator) -> None:
    express = client.v1.accounts.create(params={
        "type": "express", "capabilities": {"transfers": {"requested": True}}})
    link = client.v1.account_links.create(params={
        "account": express.id, "type": "account_onboarding",
        "refresh_url": "https://platform.example/reauth",
        "return_url": "https://platform.example/return"})
    assert "/setup/e/" in link.url and link.expires_at > link.created
    login = client.v1.accounts.login_links.create(express.id)
    assert login.url
    custom = custom_account(client)
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.accounts.login_links.create(custom.id)


def test_beta_version_suffix(emulator: RunningEmulator, account: dict[str, str]) -> None:
    headers = {"Authorization": f"Bearer {account['secret_key']}"}
    ok = httpx.get(f"{emulator.base}/v1/customers", headers={
        **headers, "Stripe-Version": "2023-10-16; embedded_connect_beta=v2"})
    assert ok.status_code == 200
    assert ok.headers["stripe-version"] == "2023-10-16; embedded_connect_beta=v2"
    bad = httpx.get(f"{emulator.base}/v1/customers", headers={
        **headers, "Stripe-Version": "2023-10-16; made_up_beta=v9"})
    assert bad.status_code == 400 and "made_up_beta" in bad.json()["error"]["message"]


def advance(emulator: RunningEmulator, account_id: str, seconds: int) -> None:
    httpx.post(f"{emulator.base}/_emulator/accounts/{account_id}/clock",
               json={"advance": seconds}).raise_for_status()


def funded_platform(client: stripe.StripeClient, amount: int = 50_000) -> None:
    """Available platform funds: the bypass-pending test card skips the pending period."""
    client.v1.payment_intents.create(params={
        "amount": amount, "currency": "usd", "confirm": True,
        "payment_method": "pm_card_bypassPending",
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})


def test_transfers_need_available_funds_and_reverse(client: stripe.StripeClient) -> None:
    """https://docs.stripe.com/connect/separate-charges-and-transfers"""
    acct = custom_account(client)
    with pytest.raises(stripe.InvalidRequestError) as err:
        client.v1.transfers.create(params={"amount": 1000, "currency": "usd",
                                           "destination": acct.id})
    assert err.value.code == "balance_insufficient"
    funded_platform(client)
    transfer = client.v1.transfers.create(params={
        "amount": 1000, "currency": "usd", "destination": acct.id, "transfer_group": "ORDER9"})
    assert transfer.destination_payment.startswith("py_") and transfer.amount_reversed == 0
    payment = client.v1.charges.retrieve(transfer.destination_payment,
                                         options={"stripe_account": acct.id})
    assert payment.amount == 1000 and payment.source_transfer == transfer.id
    connected_balance = client.v1.balance.retrieve(options={"stripe_account": acct.id})
    assert connected_balance.available[0].amount == 1000
    reversal = client.v1.transfers.reversals.create(transfer.id, params={"amount": 400})
    assert reversal.amount == 400
    again = client.v1.transfers.retrieve(transfer.id)
    assert again.amount_reversed == 400 and again.reversed is False
    assert [t.id for t in client.v1.transfers.list(params={"transfer_group": "ORDER9"}).data] \
        == [transfer.id]
    connected_balance = client.v1.balance.retrieve(options={"stripe_account": acct.id})
    assert connected_balance.available[0].amount == 600


def test_destination_charge_with_application_fee(client: stripe.StripeClient) -> None:
    """https://docs.stripe.com/connect/destination-charges#collect-fees"""
    acct = custom_account(client)
    pi = client.v1.payment_intents.create(params={
        "amount": 10_000, "currency": "usd", "confirm": True, "payment_method": "pm_card_visa",
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"},
        "application_fee_amount": 1_230, "transfer_data": {"destination": acct.id}})
    charge = client.v1.charges.retrieve(pi.latest_charge, params={"expand": ["transfer"]})
    assert charge.transfer.destination == acct.id and charge.transfer.amount == 10_000
    fee = client.v1.application_fees.retrieve(charge.application_fee)
    assert fee.amount == 1_230 and fee.account == acct.id and fee.charge == charge.id
    pending = client.v1.balance.retrieve(options={"stripe_account": acct.id}).pending
    assert sum(p.amount for p in pending if p.currency == "usd") == 10_000 - 1_230
    refund = client.v1.application_fees.refunds.create(fee.id, params={"amount": 230})
    assert refund.amount == 230
    assert client.v1.application_fees.retrieve(fee.id).amount_refunded == 230


def test_payouts_on_the_simulated_clock(client: stripe.StripeClient,
                                        emulator: RunningEmulator) -> None:
    """Standard payouts arrive later; Stripe's failing test account numbers fail them.
    https://docs.stripe.com/connect/testing#payouts"""
    acct = custom_account(client)
    funded_platform(client)
    client.v1.transfers.create(params={"amount": 3000, "currency": "usd",
                                       "destination": acct.id})
    on_acct = {"stripe_account": acct.id}
    payout = client.v1.payouts.create(params={"amount": 1000, "currency": "usd"},
                                      options=on_acct)
    assert payout.status == "pending" and payout.destination.startswith("ba_")
    advance(emulator, acct.id, 3 * 86400)
    assert client.v1.payouts.retrieve(payout.id, options=on_acct).status == "paid"
    instant = client.v1.payouts.create(params={"amount": 500, "currency": "usd",
                                               "method": "instant"}, options=on_acct)
    assert instant.status == "paid"
    failing = client.v1.accounts.external_accounts.create(acct.id, params={
        "external_account": {"object": "bank_account", "country": "US", "currency": "usd",
                             "routing_number": "110000000", "account_number": "000111111116"}})
    bad = client.v1.payouts.create(params={"amount": 700, "currency": "usd",
                                           "destination": failing.id}, options=on_acct)
    advance(emulator, acct.id, 3 * 86400)
    bad = client.v1.payouts.retrieve(bad.id, options=on_acct)
    assert bad.status == "failed" and bad.failure_code == "no_account"
    types = [e.type for e in client.v1.events.list(options=on_acct).data]
    assert "payout.failed" in types and "payout.paid" in types
    with pytest.raises(stripe.InvalidRequestError) as err:
        client.v1.payouts.create(params={"amount": 10**6, "currency": "usd"}, options=on_acct)
    assert err.value.code == "balance_insufficient"


def test_company_requirements_cleared_by_persons(client: stripe.StripeClient) -> None:
    """A company's representative is a Person; adding one clears `representative.*`.
    https://docs.stripe.com/api/persons/create"""
    acct = client.v1.accounts.create(params={
        "type": "custom", "country": "US", "business_type": "company",
        "capabilities": {"transfers": {"requested": True}},
        "business_profile": {"mcc": "5734", "url": "https://paws.example"},
        "company": {"name": "Paws LLC", "tax_id": "000000000", "phone": "+15555550100",
                    "address": {"line1": "1 Main", "city": "Austin", "state": "TX",
                                "postal_code": "78701"},
                    "owners_provided": True, "directors_provided": True,
                    "executives_provided": True},
        "external_account": "btok_us_verified",
        "tos_acceptance": {"date": 1700000000, "ip": "127.0.0.1"}})
    assert acct.company.tax_id_provided is True
    due = acct.requirements.currently_due
    assert due and all(d.startswith("representative.") for d in due)
    rep = client.v1.accounts.persons.create(acct.id, params={
        **US_INDIVIDUAL, "relationship": {"representative": True, "title": "CEO",
                                          "executive": True}})
    assert rep.id.startswith("person_") and rep.relationship.representative
    acct = client.v1.accounts.retrieve(acct.id)
    assert acct.requirements.currently_due == [] and acct.payouts_enabled
    reps = client.v1.accounts.persons.list(acct.id, params={"relationship": {
        "representative": True}})
    assert [p.id for p in reps.data] == [rep.id]
    client.v1.accounts.persons.delete(acct.id, rep.id)
    assert client.v1.accounts.retrieve(acct.id).requirements.currently_due
