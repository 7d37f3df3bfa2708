// Aurora Trails' booking server: tours, bookings and payments for the website.
//
// GET  /health                          200 when the server is up
// GET  /api/products                    the tours on sale, with a price per currency
// GET  /api/customers/:id/bookings      a customer's bookings
// POST /api/bookings/:id/refund         refund a booking
// POST /api/purchase                    book a tour (and pay for it, or save the card)
//
// README.md describes what each endpoint answers.
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

const notYet = (req, res) => res.status(501).json({error: 'not_implemented'});

app.get('/health', (req, res) => res.json({status: 'ok'}));

// TODO: the website's endpoints (README.md).
app.get('/api/products', notYet);
app.get('/api/customers/:id/bookings', notYet);
app.post('/api/bookings/:id/refund', notYet);
app.post('/api/purchase', notYet);

module.exports = {app, db, stripe, handle};

if (require.main === module) {
  app.listen(Number(process.env.PORT || 4300), '127.0.0.1');
}
