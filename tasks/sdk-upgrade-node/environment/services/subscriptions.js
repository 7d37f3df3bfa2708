// Subscriptions service: billing periods and counts, for the finance dashboard.
//
// GET /healthz                                          200 when the service is up
// GET /version                                          the Stripe SDK and API version it uses
// GET /subscriptions/:subscriptionId/metrics            one subscription's period and amounts
// GET /customers/:customerId/subscriptions/summary      how many subscriptions a customer has
'use strict';

const express = require('express');
const Stripe = require('stripe');

// STRIPE_API_BASE, when set, is where Stripe's API answers (e.g. http://127.0.0.1:12111).
function apiAddress() {
  if (!process.env.STRIPE_API_BASE) return {};
  const url = new URL(process.env.STRIPE_API_BASE);
  const protocol = url.protocol.replace(':', '');
  return {host: url.hostname, port: url.port || (protocol === 'https' ? 443 : 80), protocol};
}

const stripe = Stripe(process.env.STRIPE_SECRET_KEY || '', {
  apiVersion: '2022-08-01',
  ...apiAddress(),
});

const app = express();
const DAY = 86400;
const MONTHS = {day: 12 / 365, week: 12 / 52, month: 1, year: 12};

// Express 4 does not catch a rejected promise: answer 500 instead of hanging.
const handle = (fn) => (req, res) =>
  fn(req, res).catch((err) => res.status(500).json({error: 'internal', message: String(err)}));

// Python-style rounding (half to even), as the finance reports have always used.
function roundHalfEven(value) {
  const floor = Math.floor(value);
  const diff = value - floor;
  if (Math.abs(diff - 0.5) > 1e-9) return Math.round(value);
  return floor % 2 === 0 ? floor : floor + 1;
}

// The price's amount per month, in the smallest currency unit.
function monthly(price, quantity) {
  const recurring = price.recurring;
  if (!recurring) return 0;
  const perInterval = price.unit_amount * quantity / recurring.interval_count;
  return roundHalfEven(perInterval / MONTHS[recurring.interval]);
}

app.get('/healthz', (req, res) => res.json({status: 'ok'}));

app.get('/version', (req, res) => res.json({
  service: 'subscriptions', stripe_sdk: stripe.VERSION,
  api_version: stripe.getApiField('version'),
}));

app.get('/subscriptions/:subscriptionId/metrics', handle(async (req, res) => {
  let sub;
  try {
    sub = await stripe.subscriptions.retrieve(req.params.subscriptionId);
  } catch (err) {
    if (err.statusCode === 404) {
      return res.status(404).json({error: 'not_found', id: req.params.subscriptionId});
    }
    throw err;
  }
  const items = sub.items.data.map((item) => ({
    price: item.price.id,
    quantity: item.quantity,
    interval: item.price.recurring.interval,
    monthly_amount: monthly(item.price, item.quantity),
  }));
  res.json({
    id: sub.id,
    customer: sub.customer,
    status: sub.status,
    cancel_at_period_end: sub.cancel_at_period_end,
    current_period_start: sub.current_period_start,
    current_period_end: sub.current_period_end,
    period_days: roundHalfEven((sub.current_period_end - sub.current_period_start) / DAY),
    items,
    monthly_amount: items.reduce((sum, i) => sum + i.monthly_amount, 0),
  });
}));

app.get('/customers/:customerId/subscriptions/summary', handle(async (req, res) => {
  const customer = req.params.customerId;
  const every = await stripe.subscriptions.list({customer, status: 'all', limit: 3,
    include: ['total_count']});
  const active = await stripe.subscriptions.list({customer, status: 'active', limit: 1,
    include: ['total_count']});
  res.json({
    customer,
    total: every.total_count,
    active: active.total_count,
    latest: every.data.map((s) => s.id),
  });
}));

app.listen(Number(process.env.PORT || 5103), '127.0.0.1');
