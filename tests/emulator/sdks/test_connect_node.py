"""Connect through stripe-node: accounts, Stripe-Account on a request, account sessions,
transfers and payouts, as a Node platform server makes them.
https://docs.stripe.com/connect/authentication"""

from __future__ import annotations

from pathlib import Path

from conftest import RunningEmulator
from node_helpers import run_node_script

SCRIPT = r"""
const stripe = require(process.env.STRIPE_NODE)(process.env.KEY,
  {host: '127.0.0.1', port: Number(process.env.PORT), protocol: 'http'});
(async () => {
  const acct = await stripe.accounts.create({
    type: 'custom', country: 'US', business_type: 'individual',
    capabilities: {card_payments: {requested: true}, transfers: {requested: true}},
    business_profile: {mcc: '5734', url: 'https://groomer.example'},
    individual: {first_name: 'Jenny', last_name: 'Rosen', email: 'j@example.com',
      phone: '+15555550123', dob: {day: 1, month: 1, year: 1901}, ssn_last_4: '0000',
      address: {line1: '1 Main', city: 'Austin', state: 'TX', postal_code: '78701'}},
    external_account: 'btok_us_verified',
    tos_acceptance: {date: 1700000000, ip: '127.0.0.1'}});
  const direct = await stripe.paymentIntents.create({amount: 2500, currency: 'usd',
    confirm: true, payment_method: 'pm_card_visa',
    automatic_payment_methods: {enabled: true, allow_redirects: 'never'}},
    {stripeAccount: acct.id});
  const platformCharges = await stripe.charges.list({limit: 100});
  const session = await stripe.accountSessions.create({account: acct.id,
    components: {payments: {enabled: true, features: {refund_management: false}}}});
  await stripe.paymentIntents.create({amount: 9000, currency: 'usd', confirm: true,
    payment_method: 'pm_card_bypassPending',
    automatic_payment_methods: {enabled: true, allow_redirects: 'never'}});
  const transfer = await stripe.transfers.create({amount: 1000, currency: 'usd',
    destination: acct.id});
  const payout = await stripe.payouts.create({amount: 700, currency: 'usd', method: 'instant'},
    {stripeAccount: acct.id});
  const listed = await stripe.accounts.list({limit: 10});
  console.log(JSON.stringify({
    enabled: acct.charges_enabled, due: acct.requirements.currently_due,
    direct: direct.status,
    onPlatform: platformCharges.data.some((c) => c.id === direct.latest_charge),
    secret: session.client_secret.startsWith('accs_'),
    features: session.components.payments.features,
    transfer: transfer.destination, payout: payout.status,
    listed: listed.data.map((a) => a.id).includes(acct.id)}));
})().catch((e) => { console.error(e); process.exit(1); });
"""


def test_connect_with_stripe_node(emulator: RunningEmulator, account: dict[str, str],
                                  tmp_path: Path) -> None:
    out = run_node_script(SCRIPT, account["secret_key"], emulator.base, tmp_path)
    assert out["enabled"] is True and out["due"] == []
    assert out["direct"] == "succeeded" and out["onPlatform"] is False
    assert out["secret"] is True
    assert out["features"]["refund_management"] is False
    assert out["features"]["dispute_management"] is True
    assert out["transfer"].startswith("acct_") and out["payout"] == "paid"
    assert out["listed"] is True
