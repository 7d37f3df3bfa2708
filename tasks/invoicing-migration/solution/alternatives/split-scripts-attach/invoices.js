// An invoice for every booking that is not refunded; safe to run again.
'use strict';

const {db, stripe, stripeCustomer} = require('./server');

async function main() {
  const keyOf = (b) => `${b.product_id.replace(/^prod_/, '')}_${b.currency}`;
  const prices = new Map((await stripe.prices.list({active: true, limit: 100})).data
    .map((p) => [p.lookup_key, p.id]));
  const earlier = new Map();
  for await (const inv of stripe.invoices.list({limit: 100})) {
    if (inv.metadata.booking_id && inv.status !== 'void') earlier.set(inv.metadata.booking_id, inv);
  }
  const bookings = db.prepare("SELECT * FROM bookings WHERE status <> 'refunded'").all();
  for (const b of bookings) {
    const customer = await stripeCustomer(
      db.prepare('SELECT * FROM customers WHERE id = ?').get(b.customer_id));
    let inv = earlier.get(b.id);
    if (!inv) {
      inv = await stripe.invoices.create({customer, currency: b.currency,
        collection_method: 'send_invoice', days_until_due: 14, auto_advance: false,
        pending_invoice_items_behavior: 'exclude', metadata: {booking_id: b.id}},
      {idempotencyKey: `booking-invoice-${b.id}`});
    }
    if (inv.status === 'draft') {
      const lines = await stripe.invoices.listLineItems(inv.id, {limit: 1});
      if (lines.data.length === 0) {
        await stripe.invoiceItems.create({customer, invoice: inv.id,
          pricing: {price: prices.get(keyOf(b))}, quantity: b.guests},
        {idempotencyKey: `booking-line-${b.id}`});
      }
      inv = await stripe.invoices.finalizeInvoice(inv.id, {auto_advance: false});
    }
    if (inv.status === 'open' && b.status === 'complete' && b.source === 'online') {
      inv = await stripe.invoices.attachPayment(inv.id, {payment_intent: b.payment_intent});
    } else if (inv.status === 'open' && b.status === 'complete') {
      inv = await stripe.invoices.pay(inv.id, {paid_out_of_band: true});
    }
    if (b.invoice_id !== inv.id) {
      db.prepare('UPDATE bookings SET invoice_id = ? WHERE id = ?').run(inv.id, b.id);
    }
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
