"""Checkout Session parameter families through stripe-node, completed through the page.

test_checkout_node.py covers an embedded payment session's create/retrieve/list/expire;
this covers the other families: subscription data (trial, anchor), setup mode, discounts
and promotion codes, automatic tax, collection options (phone, tax id, billing address,
consent), custom text, locale, submit type, branding, payment_intent_data,
invoice_creation, customers, optional items, expiry and recovery, list filters.
The script completes sessions by posting the page's own form (what its JavaScript sends).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import RunningEmulator
from node_helpers import run_node_script

SCRIPT = r"""
const stripe = require(process.env.STRIPE_NODE)(process.env.KEY, {
  host: '127.0.0.1', port: Number(process.env.PORT), protocol: 'http', maxNetworkRetries: 1,
});
const SUCCESS = 'https://shop.test/ok?session_id={CHECKOUT_SESSION_ID}';
const form = (extra) => Object.assign({
  email: 'node@example.com',
  card: {number: '4242 4242 4242 4242', expiry: '12 / 34', cvc: '123', name: 'Node Buyer'},
  billing: {country: 'US', state: 'CA', postal_code: '94107', line1: '1 Market St',
            city: 'San Francisco'},
  custom_fields: {}, consent: {},
}, extra || {});
const pay = async (session, extra) => {
  const res = await fetch(session.url + '/confirm', {
    method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify(form(extra))});
  return res.json();
};
const change = async (session, body) => {
  const res = await fetch(session.url + '/state', {
    method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
  return res.json();
};
const out = {};
(async () => {
  const monthly = await stripe.prices.create({currency: 'usd', unit_amount: 2000,
    recurring: {interval: 'month'}, product_data: {name: 'Node plan'}});
  const shoe = await stripe.prices.create({currency: 'usd', unit_amount: 5000,
    product_data: {name: 'Node shoe'}});
  const lace = await stripe.prices.create({currency: 'usd', unit_amount: 300,
    product_data: {name: 'Lace'}});
  const coupon = await stripe.coupons.create({percent_off: 20, duration: 'once'});
  const promo = await stripe.promotionCodes.create({
    promotion: {type: 'coupon', coupon: coupon.id}, code: 'NODE20'});
  const customer = await stripe.customers.create({email: 'known@example.com'});

  // Subscription: trial, metadata, customer_email, locale, consent, custom text.
  const trial = await stripe.checkout.sessions.create({
    mode: 'subscription', success_url: SUCCESS, customer_email: 'node@example.com',
    line_items: [{price: monthly.id, quantity: 1}], locale: 'es',
    subscription_data: {trial_period_days: 10, metadata: {plan: 'node'}},
    consent_collection: {terms_of_service: 'required'},
    custom_text: {submit: {message: 'Cancela cuando quieras.'}},
  });
  out.trialPage = await (await fetch(trial.url)).text();
  out.trialMissingTerms = await pay(trial);
  out.trialDone = await pay(trial, {consent: {terms_of_service: true}});
  out.trial = await stripe.checkout.sessions.retrieve(trial.id, {expand: ['subscription']});

  // Subscription with a billing-cycle anchor: a prorated first invoice.
  const anchored = await stripe.checkout.sessions.create({
    mode: 'subscription', success_url: SUCCESS,
    line_items: [{price: monthly.id, quantity: 1}],
    subscription_data: {billing_cycle_anchor: trial.created + 10 * 86400},
  });
  out.anchoredCreated = anchored;
  out.anchoredDone = await pay(anchored);
  out.anchored = await stripe.checkout.sessions.retrieve(anchored.id, {expand: ['invoice']});

  // Payment: promotion code, optional item, automatic tax, phone, tax id, branding,
  // submit_type, payment_intent_data, invoice_creation, customer, billing address.
  const paid = await stripe.checkout.sessions.create({
    mode: 'payment', success_url: SUCCESS, customer: customer.id,
    allow_promotion_codes: true, automatic_tax: {enabled: true},
    line_items: [{price: shoe.id, quantity: 1}],
    optional_items: [{price: lace.id, quantity: 2}],
    phone_number_collection: {enabled: true}, tax_id_collection: {enabled: true},
    billing_address_collection: 'required', submit_type: 'book',
    branding_settings: {display_name: 'Node Runners', button_color: '#123456'},
    payment_intent_data: {metadata: {order: 'n1'}, description: 'Node order'},
    invoice_creation: {enabled: true, invoice_data: {footer: 'Node footer'}},
    client_reference_id: 'node-cart-1',
  });
  out.paidPage = await (await fetch(paid.url)).text();
  out.promo = await change(paid, {action: 'promotion_code', code: 'node20'});
  const items = await stripe.checkout.sessions.listLineItems(paid.id);
  const optionalId = (out.paidPage.match(/class="add-optional" data-item="([^"]+)"/) || [])[1];
  out.added = await change(paid, {action: 'add_optional', item: optionalId});
  out.paidDone = await pay(paid, {phone: '+1 415 555 0100', tax_id_enabled: true,
                                  business_name: 'Node LLC', tax_id: '12-3456789'});
  out.paid = await stripe.checkout.sessions.retrieve(paid.id, {
    expand: ['payment_intent', 'invoice', 'discounts.promotion_code', 'customer',
             'line_items']});
  out.itemsBefore = items;
  out.byPi = await stripe.checkout.sessions.list({payment_intent: out.paid.payment_intent.id});
  out.byCustomer = await stripe.checkout.sessions.list({customer: customer.id});
  out.completedEvents = await stripe.events.list({type: 'checkout.session.completed'});

  // Setup mode.
  const saver = await stripe.checkout.sessions.create({
    mode: 'setup', currency: 'usd', customer: customer.id, success_url: SUCCESS,
    setup_intent_data: {metadata: {why: 'later'}}});
  out.saverDone = await pay(saver, {email: 'known@example.com'});
  out.saver = await stripe.checkout.sessions.retrieve(saver.id, {expand: ['setup_intent']});

  // Expiry bounds and recovery.
  try {
    await stripe.checkout.sessions.create({mode: 'payment', success_url: SUCCESS,
      line_items: [{price: shoe.id, quantity: 1}], expires_at: trial.created + 60});
  } catch (err) { out.tooSoon = {param: err.param, status: err.statusCode}; }
  const recoverable = await stripe.checkout.sessions.create({
    mode: 'payment', success_url: SUCCESS, line_items: [{price: shoe.id, quantity: 1}],
    expires_at: trial.created + 3600,
    after_expiration: {recovery: {enabled: true, allow_promotion_codes: true}}});
  out.recovered = await stripe.checkout.sessions.expire(recoverable.id);
  out.listExpired = await stripe.checkout.sessions.list({status: 'expired'});
  process.stdout.write(JSON.stringify(out));
})().catch((err) => { console.error(err); process.exit(1); });
"""


def test_node_sdk_checkout_parameter_families(emulator: RunningEmulator,
                                              account: dict[str, str],
                                              tmp_path: Path) -> None:
    out: dict[str, Any] = run_node_script(SCRIPT, account["secret_key"], emulator.base,
                                          tmp_path)
    # Subscription with a trial: Spanish page, consent required, then no payment due.
    assert '<html lang="es">' in out["trialPage"] and "10 días gratis" in out["trialPage"]
    assert "Cancela cuando quieras." in out["trialPage"]
    assert "terms_of_service" in out["trialMissingTerms"]["errors"]
    assert out["trialDone"]["complete"]
    trial = out["trial"]
    assert trial["payment_status"] == "no_payment_required"
    assert trial["subscription"]["status"] == "trialing"
    assert trial["subscription"]["metadata"] == {"plan": "node"}
    assert trial["consent"]["terms_of_service"] == "accepted"
    assert trial["customer_details"]["email"] == "node@example.com" and trial["customer"]
    # Anchored: 10 of 30 days charged now.
    assert 0 < out["anchoredCreated"]["amount_total"] < 2000
    anchored = out["anchored"]
    assert out["anchoredDone"]["complete"] and anchored["payment_status"] == "paid"
    assert anchored["invoice"]["amount_paid"] == out["anchoredCreated"]["amount_total"]
    # Payment with a code, an optional item, tax, phone, tax id and an invoice.
    assert "Node Runners" in out["paidPage"] and "Book" in out["paidPage"]
    assert out["promo"]["errors"] == {} and out["added"]["errors"] == {}
    assert [i["description"] for i in out["itemsBefore"]["data"]] == ["Node shoe"]
    assert out["paidDone"]["complete"], out["paidDone"]
    paid = out["paid"]
    assert paid["status"] == "complete" and paid["payment_status"] == "paid"
    assert paid["client_reference_id"] == "node-cart-1"
    assert [(i["description"], i["quantity"]) for i in paid["line_items"]["data"]] == [
        ("Node shoe", 1), ("Lace", 2)]
    subtotal = 5000 + 600
    assert paid["amount_subtotal"] == subtotal
    assert paid["total_details"]["amount_discount"] == subtotal // 5
    tax = paid["total_details"]["amount_tax"]
    assert tax > 0 and paid["automatic_tax"]["status"] == "complete"
    assert paid["amount_total"] == subtotal - subtotal // 5 + tax
    assert paid["payment_intent"]["amount"] == paid["amount_total"]
    assert paid["payment_intent"]["metadata"] == {"order": "n1"}
    assert paid["payment_intent"]["description"] == "Node order"
    assert paid["invoice"]["footer"] == "Node footer" and paid["invoice"]["status"] == "paid"
    assert paid["discounts"][0]["promotion_code"]["code"] == "NODE20"
    assert paid["customer"]["email"] == "known@example.com"
    details = paid["customer_details"]
    assert details["phone"] == "+14155550100" and details["business_name"] == "Node LLC"
    assert details["tax_ids"] == [{"type": "us_ein", "value": "12-3456789"}]
    assert details["address"]["line1"] == "1 Market St"
    assert [s["id"] for s in out["byPi"]["data"]] == [paid["id"]]
    assert paid["id"] in [s["id"] for s in out["byCustomer"]["data"]]
    completed = {e["data"]["object"]["id"] for e in out["completedEvents"]["data"]}
    assert {trial["id"], anchored["id"], paid["id"]} <= completed
    # Setup mode saves a card for the customer.
    saver = out["saver"]
    assert out["saverDone"]["complete"] and saver["setup_intent"]["status"] == "succeeded"
    assert saver["setup_intent"]["metadata"] == {"why": "later"}
    assert saver["setup_intent"]["customer"] == paid["customer"]["id"]
    # Expiry: bounds, and a recovery link on expiry.
    assert out["tooSoon"] == {"param": "expires_at", "status": 400}
    recovery = out["recovered"]["after_expiration"]["recovery"]
    assert recovery["enabled"] and recovery["url"].endswith("/recover")
    assert recovery["allow_promotion_codes"] is True
    assert [s["id"] for s in out["listExpired"]["data"]] == [out["recovered"]["id"]]
