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

const API_VERSION = '2026-10-28.endive';
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY || '', {
  apiVersion: API_VERSION,
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
  const perInterval = price.unit_amount * quantity;
  return roundHalfEven(perInterval / MONTHS[recurring.interval]);
}

app.get('/healthz', (req, res) => res.json({status: 'ok'}));

app.get('/version', (req, res) => res.json({
  service: 'subscriptions', stripe_sdk: Stripe.PACKAGE_VERSION, api_version: API_VERSION,
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
  const data = sub.items.data;
  const items = data.map((item) => ({
    price: item.price.id,
    quantity: item.quantity,
    interval: item.price.recurring.interval,
    monthly_amount: monthly(item.price, item.quantity),
  }));
  // Since 2025-03-31.basil the billing period lives on each item, not the subscription.
  const start = Math.min(...data.map((item) => item.current_period_start));
  const end = Math.max(...data.map((item) => item.current_period_end));
  res.json({
    id: sub.id,
    customer: sub.customer,
    status: sub.status,
    cancel_at_period_end: sub.cancel_at_period_end,
    current_period_start: start,
    current_period_end: end,
    period_days: roundHalfEven((end - start) / DAY),
    items,
    monthly_amount: items.reduce((sum, i) => sum + i.monthly_amount, 0),
  });
}));

// `include[]=total_count` is gone from lists: page through and count.
async function count(params) {
  let total = 0;
  await stripe.subscriptions.list({...params, limit: 100}).autoPagingEach(() => {
    total += 1;
  });
  return total;
}

app.get('/customers/:customerId/subscriptions/summary', handle(async (req, res) => {
  const customer = req.params.customerId;
  const latest = await stripe.subscriptions.list({customer, status: 'all', limit: 3});
  res.json({
    customer,
    total: await count({customer, status: 'all'}),
    active: await count({customer, status: 'active'}),
    latest: latest.data.map((s) => s.id),
  });
}));

app.listen(Number(process.env.PORT || 5103), '127.0.0.1');
