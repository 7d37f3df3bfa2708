// Invoices service: is an invoice paid, and by which payment? For the billing team.
//
// GET /healthz                                 200 when the service is up
// GET /version                                 the Stripe SDK and API version it uses
// GET /invoices/:invoiceId/payment-status      one invoice's payment status
// GET /customers/:customerId/invoices          every invoice of a customer, with totals
'use strict';

const express = require('express');
const Stripe = require('stripe');

const {stripe, API_VERSION} = require('./lib/stripe-client');

const app = express();

// Express 4 does not catch a rejected promise: answer 500 instead of hanging.
const handle = (fn) => (req, res) =>
  fn(req, res).catch((err) => res.status(500).json({error: 'internal', message: String(err)}));

// The invoice's payment: the one that paid it, else its default one (what the invoice's
// `payment_intent` named before 2025-03-31.basil removed it).
async function payingIntent(invoiceId) {
  const records = await stripe.invoicePayments.list({invoice: invoiceId, limit: 100,
    expand: ['data.payment.payment_intent']}).autoPagingToArray({limit: 10000});
  const paid = records.filter((r) => r.status === 'paid');
  const chosen = paid.length ? paid : records.filter((r) => r.is_default);
  if (!chosen.length) return null;
  return chosen[0].payment.payment_intent || null;
}

async function statusView(invoice) {
  const intent = await payingIntent(invoice.id);
  return {
    id: invoice.id,
    number: invoice.number,
    customer: invoice.customer,
    status: invoice.status,
    paid: invoice.status === 'paid', // `paid` was removed in 2025-03-31.basil
    currency: invoice.currency,
    amount_due: invoice.amount_due,
    amount_paid: invoice.amount_paid,
    amount_remaining: invoice.amount_remaining,
    paid_at: invoice.status_transitions.paid_at,
    payment: intent ? {
      payment_intent: intent.id,
      status: intent.status,
      amount: intent.amount,
      amount_received: intent.amount_received,
    } : null,
  };
}

app.get('/healthz', (req, res) => res.json({status: 'ok'}));

app.get('/version', (req, res) => res.json({
  service: 'invoices', stripe_sdk: Stripe.PACKAGE_VERSION, api_version: API_VERSION,
}));

app.get('/invoices/:invoiceId/payment-status', handle(async (req, res) => {
  let invoice;
  try {
    invoice = await stripe.invoices.retrieve(req.params.invoiceId);
  } catch (err) {
    if (err.statusCode === 404) {
      return res.status(404).json({error: 'not_found', id: req.params.invoiceId});
    }
    throw err;
  }
  res.json(await statusView(invoice));
}));

app.get('/customers/:customerId/invoices', handle(async (req, res) => {
  const customer = req.params.customerId;
  const invoices = await stripe.invoices.list({customer, limit: 100})
    .autoPagingToArray({limit: 10000});
  const views = await Promise.all(invoices.filter((i) => i.status !== 'draft').map(statusView));
  res.json({
    customer,
    paid: views.filter((v) => v.paid).length,
    unpaid: views.filter((v) => !v.paid).length,
    outstanding: views.filter((v) => v.status === 'open')
      .reduce((sum, v) => sum + v.amount_remaining, 0),
    invoices: views,
  });
}));

app.listen(Number(process.env.PORT || 5102), '127.0.0.1');
