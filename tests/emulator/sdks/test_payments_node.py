"""Payments with the official node SDK (stripe-node), run by `node` in a subprocess."""

from __future__ import annotations

from pathlib import Path

from conftest import RunningEmulator
from node_helpers import run_node_script

SCRIPT = r"""
const stripe = require(process.env.STRIPE_NODE)(process.env.KEY, {
  host: '127.0.0.1', port: Number(process.env.PORT), protocol: 'http', maxNetworkRetries: 1,
});
const out = {};
(async () => {
  const customer = await stripe.customers.create({email: 'node-pay@example.com'});
  const paid = await stripe.paymentIntents.create({
    amount: 4200, currency: 'eur', customer: customer.id, payment_method: 'pm_card_visa',
    confirm: true, setup_future_usage: 'off_session',
    automatic_payment_methods: {enabled: true, allow_redirects: 'never'},
  });
  out.paid = paid;
  out.charges = await stripe.charges.list({payment_intent: paid.id});
  out.saved = await stripe.customers.listPaymentMethods(customer.id);
  try {
    await stripe.paymentIntents.create({
      amount: 4200, currency: 'eur', payment_method: 'pm_card_visa_chargeDeclinedLostCard',
      confirm: true, allowed_payment_method_types: ['card']});
  } catch (err) {
    out.declined = {type: err.type, code: err.code, decline_code: err.decline_code,
                    status: err.statusCode, pi: err.payment_intent && err.payment_intent.status,
                    charge: err.charge};
  }
  const manual = await stripe.paymentIntents.create({
    amount: 3000, currency: 'usd', payment_method: 'pm_card_mastercard', confirm: true,
    capture_method: 'manual', allowed_payment_method_types: ['card']});
  out.captured = await stripe.paymentIntents.capture(manual.id, {amount_to_capture: 2000});
  out.refund = await stripe.refunds.create({payment_intent: manual.id, amount: 500});
  out.balance = await stripe.balance.retrieve();
  const si = await stripe.setupIntents.create({customer: customer.id,
    payment_method: 'pm_card_mastercard', confirm: true, allowed_payment_method_types: ['card']});
  out.setup = si;
  process.stdout.write(JSON.stringify(out));
})().catch((err) => { console.error(err); process.exit(1); });
"""


def test_node_sdk_payments(emulator: RunningEmulator, account: dict[str, str],
                           tmp_path: Path) -> None:
    out = run_node_script(SCRIPT, account["secret_key"], emulator.base, tmp_path)
    paid = out["paid"]
    assert paid["status"] == "succeeded" and paid["amount_received"] == 4200
    assert paid["currency"] == "eur"
    assert [c["id"] for c in out["charges"]["data"]] == [paid["latest_charge"]]
    assert [pm["id"] for pm in out["saved"]["data"]] == [paid["payment_method"]]
    declined = out["declined"]
    assert declined["type"] == "StripeCardError" and declined["status"] == 402
    assert (declined["code"], declined["decline_code"]) == ("card_declined", "lost_card")
    assert declined["pi"] == "requires_payment_method"
    assert declined["charge"].startswith("ch_")
    assert out["captured"]["status"] == "succeeded"
    assert out["captured"]["amount_received"] == 2000
    assert out["refund"]["amount"] == 500 and out["refund"]["status"] == "succeeded"
    assert {b["currency"] for b in out["balance"]["pending"]} == {"eur", "usd"}
    assert out["setup"]["status"] == "succeeded"


SCRIPT_MORE = r"""
const Stripe = require(process.env.STRIPE_NODE);
const opts = {host: '127.0.0.1', port: Number(process.env.PORT), protocol: 'http'};
const stripe = Stripe(process.env.KEY, opts);
const old = Stripe(process.env.KEY, {...opts, apiVersion: '2022-08-01'});
const out = {};
const card = {allowed_payment_method_types: ['card']};
(async () => {
  const threeDS = await stripe.paymentIntents.create({
    amount: 1800, currency: 'usd', payment_method: 'pm_card_threeDSecure2Required',
    confirm: true, return_url: 'https://shop.test/back', ...card});
  out.threeDS = {status: threeDS.status, type: threeDS.next_action.type};
  const answer = await fetch(threeDS.next_action.redirect_to_url.url, {
    method: 'POST', body: new URLSearchParams({outcome: 'approve'}), redirect: 'manual'});
  out.redirect = {status: answer.status, location: answer.headers.get('location')};
  const approved = await stripe.paymentIntents.retrieve(threeDS.id);
  out.approved = approved.status;
  const refund = await stripe.refunds.create({charge: approved.latest_charge, amount: 800});
  out.refund = {amount: refund.amount, pi: refund.payment_intent};
  try {
    await stripe.refunds.create({payment_intent: threeDS.id, amount: 1001});
  } catch (err) {
    out.over = {type: err.type, code: err.code, status: err.statusCode};
  }
  const viaOld = await old.paymentIntents.retrieve(threeDS.id);
  out.old = {count: viaOld.charges.total_count, refunded: viaOld.charges.data[0].amount_refunded,
             refunds: viaOld.charges.data[0].refunds.data.map((r) => r.amount)};
  const viaNew = await stripe.paymentIntents.retrieve(threeDS.id);
  out.newHasCharges = 'charges' in viaNew;
  const disputed = await stripe.paymentIntents.create({
    amount: 2600, currency: 'usd', confirm: true, ...card,
    payment_method_data: {type: 'card', card: {token: 'tok_createDispute'}}});
  const disputes = await stripe.disputes.list({payment_intent: disputed.id});
  out.dispute = disputes.data.map((d) => [d.status, d.reason, d.amount]);
  try {
    await stripe.paymentIntents.create({amount: 900, currency: 'usd', confirm: true, ...card,
      payment_method_data: {type: 'card',
                            card: {token: 'tok_visa_chargeDeclinedInsufficientFunds'}}});
  } catch (err) {
    out.declined = {type: err.type, decline_code: err.decline_code,
                    pi: err.payment_intent.status, charge: err.charge};
  }
  process.stdout.write(JSON.stringify(out));
})().catch((err) => { console.error(err); process.exit(1); });
"""


def test_node_sdk_3ds_refunds_disputes_and_old_version(emulator: RunningEmulator,
                                                       account: dict[str, str],
                                                       tmp_path: Path) -> None:
    out = run_node_script(SCRIPT_MORE, account["secret_key"], emulator.base, tmp_path)
    assert out["threeDS"] == {"status": "requires_action", "type": "redirect_to_url"}
    assert out["redirect"]["status"] == 302
    assert out["redirect"]["location"].startswith("https://shop.test/back?payment_intent=")
    assert "redirect_status=succeeded" in out["redirect"]["location"]
    assert out["approved"] == "succeeded"
    assert out["refund"]["amount"] == 800 and out["refund"]["pi"].startswith("pi_")
    assert out["over"] == {"type": "StripeInvalidRequestError", "code": "amount_too_large",
                           "status": 400}
    assert out["old"] == {"count": 1, "refunded": 800, "refunds": [800]}
    assert out["newHasCharges"] is False
    assert out["dispute"] == [["needs_response", "fraudulent", 2600]]
    declined = out["declined"]
    assert declined["type"] == "StripeCardError"
    assert declined["decline_code"] == "insufficient_funds"
    assert declined["pi"] == "requires_payment_method" and declined["charge"].startswith("ch_")
