// Backs every booking with a Stripe Invoice: the catalog first (a Product per tour, a
// Price per tour and currency the bookings show, inferred from them), then one invoice
// per booking that is not refunded. Safe to run again: each step looks before it
// creates (products by id, prices by lookup key, invoices by bookings.invoice_id, else
// by metadata.booking_id, as an interrupted run may have left one unrecorded).
//
//   node migrate_invoices.js [--only B-1001,P-2001]
'use strict';

const {db, stripe, stripeCustomer} = require('./server');

const all = (list) => list.autoPagingToArray({limit: 10000});
const lookupKey = (product, currency) => `${product.replace(/^prod_/, '')}_${currency}`;

async function ensureProduct(tour) {
  try {
    return await stripe.products.retrieve(tour.id);
  } catch (err) {
    if (err.statusCode !== 404) throw err;
  }
  return stripe.products.create({id: tour.id, name: tour.name});
}

// (product, currency) -> the price of one guest; the history must agree with itself.
function inferPrices() {
  const prices = new Map();
  for (const b of db.prepare('SELECT * FROM bookings ORDER BY id').all()) {
    if (b.amount % b.guests !== 0) throw new Error(`${b.id}: ${b.amount} / ${b.guests} guests`);
    const key = `${b.product_id}|${b.currency}`;
    const unit = b.amount / b.guests;
    if (prices.has(key) && prices.get(key) !== unit) {
      throw new Error(`${key}: the bookings say ${prices.get(key)} and ${unit}`);
    }
    prices.set(key, unit);
  }
  return prices;
}

async function ensurePrice(product, currency, unit) {
  const key = lookupKey(product, currency);
  const [found] = (await stripe.prices.list({lookup_keys: [key], limit: 1})).data;
  if (found) {
    if (found.unit_amount !== unit || found.product !== product) {
      throw new Error(`price ${key} exists at ${found.unit_amount}, not ${unit}`);
    }
    return found;
  }
  return stripe.prices.create({product, currency, unit_amount: unit, lookup_key: key});
}

async function findInvoice(booking, customer) {
  if (booking.invoice_id) return stripe.invoices.retrieve(booking.invoice_id);
  const invoices = await all(stripe.invoices.list({customer, limit: 100}));
  return invoices.find((i) => i.metadata.booking_id === booking.id && i.status !== 'void')
    || null;
}

async function invoiceBooking(booking, price) {
  const customer = db.prepare('SELECT * FROM customers WHERE id = ?').get(booking.customer_id);
  const customerId = await stripeCustomer(customer);
  let invoice = null;
  if (!invoice) {
    // send_invoice: migrating must never try to charge anyone.
    invoice = await stripe.invoices.create({customer: customerId, currency: booking.currency,
      collection_method: 'send_invoice', days_until_due: 30, auto_advance: false,
      pending_invoice_items_behavior: 'exclude', metadata: {booking_id: booking.id}},
    );
  }
  if (invoice.status === 'draft') {
    if (invoice.lines.data.length === 0) {
      await stripe.invoiceItems.create({customer: customerId, invoice: invoice.id,
        pricing: {price: price.id}, quantity: booking.guests},
      {idempotencyKey: `item-${booking.id}`});
    }
    invoice = await stripe.invoices.finalizeInvoice(invoice.id, {auto_advance: false});
  }
  if (invoice.status === 'open' && booking.status === 'complete') {
    invoice = booking.source === 'online'
      ? await stripe.invoices.attachPayment(invoice.id,
        {payment_intent: booking.payment_intent})
      : await stripe.invoices.pay(invoice.id, {paid_out_of_band: true});
  }
  db.prepare('UPDATE bookings SET invoice_id = ? WHERE id = ?').run(invoice.id, booking.id);
  return invoice;
}

async function main() {
  const only = process.argv.includes('--only')
    ? new Set(process.argv[process.argv.indexOf('--only') + 1].split(',')) : null;
  for (const tour of db.prepare('SELECT * FROM tours ORDER BY id').all()) {
    await ensureProduct(tour);
  }
  const prices = new Map();
  for (const [key, unit] of inferPrices()) {
    const [product, currency] = key.split('|');
    prices.set(key, await ensurePrice(product, currency, unit));
  }
  const bookings = db.prepare("SELECT * FROM bookings WHERE status != 'refunded' ORDER BY id")
    .all().filter((b) => !only || only.has(b.id));
  for (const booking of bookings) {
    const invoice = await invoiceBooking(booking,
      prices.get(`${booking.product_id}|${booking.currency}`));
    console.log(booking.id, invoice.id, invoice.status, invoice.amount_remaining);
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
