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
