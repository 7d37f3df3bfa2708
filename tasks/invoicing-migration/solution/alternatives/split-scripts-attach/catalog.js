// The catalog: a Product per tour, a Price per (tour, currency) the bookings show.
'use strict';

const {db, stripe} = require('./server');

async function main() {
  for (const tour of db.prepare('SELECT id, name FROM tours').all()) {
    const found = await stripe.products.list({ids: [tour.id], limit: 1});
    if (found.data.length === 0) await stripe.products.create({id: tour.id, name: tour.name});
  }
  const units = db.prepare(`SELECT product_id, currency, MIN(amount / guests) AS low,
    MAX(amount / guests) AS high FROM bookings GROUP BY product_id, currency`).all();
  const keys = units.map((u) => `${u.product_id.replace(/^prod_/, '')}_${u.currency}`);
  const existing = new Set((await stripe.prices.list({lookup_keys: keys, limit: 100})).data
    .map((p) => p.lookup_key));
  for (const [i, u] of units.entries()) {
    if (u.low !== u.high) throw new Error(`${u.product_id} ${u.currency}: ${u.low} or ${u.high}?`);
    if (existing.has(keys[i])) continue;
    await stripe.prices.create({product: u.product_id, currency: u.currency,
      unit_amount: u.low, lookup_key: keys[i]});
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
