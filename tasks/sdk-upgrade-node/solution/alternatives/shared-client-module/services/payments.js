// Payments service: what happened to a payment, for the support dashboard.
//
// GET /healthz                              200 when the service is up
// GET /version                              the Stripe SDK and API version it uses
// GET /payments/:paymentIntentId            one payment: its charge, card and refunds
// GET /customers/:customerId/payments       every payment of a customer, with totals
'use strict';

const express = require('express');
const Stripe = require('stripe');

const {stripe, API_VERSION} = require('./lib/stripe-client');

const app = express();

// Express 4 does not catch a rejected promise: answer 500 instead of hanging.
const handle = (fn) => (req, res) =>
  fn(req, res).catch((err) => res.status(500).json({error: 'internal', message: String(err)}));

function cardView(charge) {
  const details = charge.payment_method_details;
  if (!details || details.type !== 'card') return null;
  const card = details.card;
  return {brand: card.brand, last4: card.last4, exp_month: card.exp_month,
    exp_year: card.exp_year, funding: card.funding};
}

async function chargeView(charge) {
  if (!charge) return null;
  // Since 2022-11-15 a charge no longer embeds its refunds: list them (newest first).
  const refunds = await stripe.refunds.list({charge: charge.id, limit: 100})
    .autoPagingToArray({limit: 10000});
  return {
    id: charge.id,
    amount: charge.amount,
    amount_captured: charge.amount_captured,
    captured: charge.captured,
    paid: charge.paid,
    status: charge.status,
    receipt_url: charge.receipt_url,
    amount_refunded: charge.amount_refunded,
    refunded: charge.refunded,
    card: cardView(charge),
    refunds: refunds.map((r) =>
      ({id: r.id, amount: r.amount, status: r.status, reason: r.reason})),
  };
}

async function paymentView(intent) {
  // `charges` is gone from PaymentIntents since 2022-11-15: `latest_charge`, expanded.
  return {
    id: intent.id,
    amount: intent.amount,
    currency: intent.currency,
    status: intent.status,
    customer: intent.customer,
    description: intent.description,
    charge: await chargeView(intent.latest_charge),
  };
}

app.get('/healthz', (req, res) => res.json({status: 'ok'}));

app.get('/version', (req, res) => res.json({
  service: 'payments', stripe_sdk: Stripe.PACKAGE_VERSION, api_version: API_VERSION,
}));

app.get('/payments/:intentId', handle(async (req, res) => {
  let intent;
  try {
    intent = await stripe.paymentIntents.retrieve(req.params.intentId,
      {expand: ['latest_charge']});
  } catch (err) {
    if (err.statusCode === 404) {
      return res.status(404).json({error: 'not_found', id: req.params.intentId});
    }
    throw err;
  }
  res.json(await paymentView(intent));
}));

app.get('/customers/:customerId/payments', handle(async (req, res) => {
  const customer = req.params.customerId;
  const intents = await stripe.paymentIntents.list({customer, limit: 100,
    expand: ['data.latest_charge']}).autoPagingToArray({limit: 10000});
  const payments = await Promise.all(intents.map(paymentView));
  const charges = payments.map((p) => p.charge).filter(Boolean);
  res.json({
    customer,
    count: payments.length,
    captured: charges.reduce((sum, c) => sum + c.amount_captured, 0),
    refunded: charges.reduce((sum, c) => sum + c.amount_refunded, 0),
    payments,
  });
}));

app.listen(Number(process.env.PORT || 5101), '127.0.0.1');
