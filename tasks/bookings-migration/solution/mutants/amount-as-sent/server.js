// Aurora Trails' booking server: tours, bookings and payments for the website.
//
// GET  /health                          200 when the server is up
// GET  /api/products                    the tours on sale, with a price per currency
// GET  /api/customers/:id/bookings      a customer's bookings
// POST /api/bookings/:id/refund         refund a booking
// POST /api/purchase                    book a tour (and pay for it, or save the card)
'use strict';

const path = require('path');
const express = require('express');
const Database = require('better-sqlite3');
const Stripe = require('stripe');

// STRIPE_API_BASE, when set, is where Stripe's API answers (e.g. http://127.0.0.1:12111).
function apiAddress() {
  if (!process.env.STRIPE_API_BASE) return {};
  const url = new URL(process.env.STRIPE_API_BASE);
  const protocol = url.protocol.replace(':', '');
  return {host: url.hostname, port: url.port || (protocol === 'https' ? 443 : 80), protocol};
}

const stripe = Stripe(process.env.STRIPE_SECRET_KEY || '', {
  apiVersion: '2020-08-27',
  ...apiAddress(),
});

const db = new Database(path.join(__dirname, 'data', 'tours.db'));

const app = express();
app.use(express.json());

// Express 4 does not catch a rejected promise: answer 500 instead of hanging.
const handle = (fn) => (req, res) =>
  fn(req, res).catch((err) => res.status(500).json({error: 'internal', message: String(err)}));

const all = (list) => list.autoPagingToArray({limit: 10000});

function view(row, state) {
  return {id: row.id, product: row.product_id, tour_date: row.tour_date, guests: row.guests,
    currency: row.currency, amount: row.amount, amount_paid: state.amount_paid,
    source: row.source, status: state.status};
}

// A phone booking's state is the table's; an online one's is its payment's in Stripe now.
async function stateOf(row) {
  if (row.source !== 'online') return {status: row.status, amount_paid: row.amount_paid};
  if (!row.payment_intent) return {status: 'incomplete', amount_paid: 0};
  const intent = await stripe.paymentIntents.retrieve(row.payment_intent);
  if (intent.status !== 'succeeded') return {status: 'incomplete', amount_paid: 0};
  const charge = intent.charges.data.find((c) => c.paid && c.status === 'succeeded');
  const refunded = charge && charge.amount_refunded >= charge.amount;
  return {status: refunded ? 'refunded' : 'complete', amount_paid: intent.amount_received};
}

app.get('/health', (req, res) => res.json({status: 'ok'}));

app.get('/api/products', handle(async (req, res) => {
  const [products, prices] = await Promise.all([
    all(stripe.products.list({active: true, limit: 100})),
    all(stripe.prices.list({active: true, type: 'one_time', limit: 100})),
  ]);
  const listed = products.map((p) => ({id: p.id, name: p.name, prices: Object.fromEntries(
    prices.filter((price) => price.product === p.id)
      .map((price) => [price.currency, price.unit_amount]))}));
  listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  res.json({products: listed});
}));

app.get('/api/customers/:id/bookings', handle(async (req, res) => {
  const customer = db.prepare('SELECT * FROM customers WHERE id = ?').get(req.params.id);
  if (!customer) return res.status(404).json({error: 'not_found'});
  const rows = db.prepare('SELECT * FROM bookings WHERE customer_id = ? ORDER BY tour_date, id')
    .all(customer.id);
  const views = await Promise.all(rows.map(async (row) => view(row, await stateOf(row))));
  const group = (status) => views.filter((v) => v.status === status);
  res.json({customer: customer.id, complete: group('complete'), refunded: group('refunded'),
    incomplete: group('incomplete')});
}));

app.post('/api/bookings/:id/refund', handle(async (req, res) => {
  const row = db.prepare('SELECT * FROM bookings WHERE id = ?').get(req.params.id);
  if (!row) return res.status(404).json({error: 'not_found'});
  if (row.source !== 'online') {
    return res.status(409).json({error: 'phone_booking',
      message: 'Phone bookings are refunded by the office, not online.'});
  }
  const state = await stateOf(row);
  if (state.status === 'refunded') return res.status(409).json({error: 'already_refunded'});
  if (state.status !== 'complete') return res.status(409).json({error: 'not_paid'});
  const refund = await stripe.refunds.create({payment_intent: row.payment_intent},
    {idempotencyKey: `refund-${row.id}`});
  db.prepare("UPDATE bookings SET status = 'refunded' WHERE id = ?").run(row.id);
  res.json({booking: view(row, await stateOf(row)), refund: refund.id});
}));

async function stripeCustomer(customer) {
  if (customer.stripe_customer_id) return customer.stripe_customer_id;
  const created = await stripe.customers.create({email: customer.email, name: customer.name,
    metadata: {customer_id: customer.id}}, {idempotencyKey: `customer-${customer.id}`});
  db.prepare('UPDATE customers SET stripe_customer_id = ? WHERE id = ?')
    .run(created.id, customer.id);
  return created.id;
}

function nextBookingId() {
  const ids = db.prepare("SELECT id FROM bookings WHERE id LIKE 'B-%'").all()
    .map((b) => Number(b.id.slice(2))).filter(Number.isFinite);
  return `B-${Math.max(1000, ...ids) + 1}`;
}

app.post('/api/purchase', handle(async (req, res) => {
  const {customer: customerId, product, currency, guests, tour_date: tourDate,
    payment_method: paymentMethod, amount} = req.body || {};
  const customer = db.prepare('SELECT * FROM customers WHERE id = ?').get(customerId);
  if (!customer) return res.status(404).json({error: 'not_found'});
  if (!Number.isInteger(guests) || guests < 1 || typeof currency !== 'string') {
    return res.status(400).json({error: 'invalid_request'});
  }
  const [price] = (await stripe.prices.list({product, currency: currency.toLowerCase(),
    active: true, type: 'one_time', limit: 1})).data;
  if (!price) return res.status(400).json({error: 'no_price'});
  const total = price.unit_amount * guests;

  const id = nextBookingId();
  const stripeId = await stripeCustomer(customer);
  const row = {id, customer_id: customer.id, product_id: product, tour_date: tourDate,
    guests, currency: price.currency, amount: total, amount_paid: 0, source: 'online',
    status: 'incomplete', payment_intent: null, setup_intent: null};
  try {
    if (amount > 0) {
      const intent = await stripe.paymentIntents.create({amount,
        currency: price.currency, customer: stripeId, payment_method: paymentMethod,
        payment_method_types: ['card'], confirm: true, metadata: {booking_id: id}});
      if (intent.status !== 'succeeded') {
        return res.status(402).json({error: 'payment_incomplete', status: intent.status});
      }
      Object.assign(row, {payment_intent: intent.id, amount_paid: intent.amount_received,
        status: 'complete'});
    } else {
      const setup = await stripe.setupIntents.create({customer: stripeId,
        payment_method: paymentMethod, payment_method_types: ['card'], usage: 'off_session',
        confirm: true, metadata: {booking_id: id}});
      row.setup_intent = setup.id;
    }
  } catch (err) {
    if (err.type === 'StripeCardError') {
      return res.status(402).json({error: err.code, decline_code: err.decline_code});
    }
    throw err;
  }
  db.prepare(`INSERT INTO bookings (id, customer_id, product_id, tour_date, guests, currency,
    amount, amount_paid, source, status, payment_intent, setup_intent, created_at)
    VALUES (@id, @customer_id, @product_id, @tour_date, @guests, @currency, @amount,
    @amount_paid, @source, @status, @payment_intent, @setup_intent, date('now'))`).run(row);
  res.status(201).json({booking: view(row, row)});
}));

module.exports = {app, db, stripe, handle};

if (require.main === module) {
  app.listen(Number(process.env.PORT || 4300), '127.0.0.1');
}
