// Moves phone_bookings.csv into the bookings table; safe to run again (a booking already
// there, by its ref, is left alone).
//
//   node migrate.js [--only P-2001,P-2002]
'use strict';

const fs = require('fs');
const path = require('path');
const {db, stripe} = require('./server');

const ZERO_DECIMAL = new Set(['bif', 'clp', 'djf', 'gnf', 'kmf', 'krw', 'mga', 'pyg',
  'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf']);
const STATUS = {paid: 'complete', refunded: 'refunded', deposit: 'incomplete',
  unpaid: 'incomplete'};

// One CSV line into its fields ("42,000" keeps its comma).
function fields(line) {
  const out = [];
  let field = '';
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === ',' && !quoted) { out.push(field); field = ''; } else field += ch;
  }
  out.push(field);
  return out.map((f) => f.trim());
}

function minorUnits(text, currency) {
  const plain = text.replace(/[,\s]/g, '');
  if (!/^\d+(\.\d{1,2})?$/.test(plain)) throw new Error(`not an amount: ${text}`);
  return ZERO_DECIMAL.has(currency) ? Math.round(Number(plain))
    : Math.round(Number(plain) * 100);
}

async function main() {
  const only = process.argv.includes('--only')
    ? new Set(process.argv[process.argv.indexOf('--only') + 1].split(',')) : null;
  const products = await stripe.products.list({limit: 100}).autoPagingToArray({limit: 10000});
  const productByName = new Map(products.map((p) => [p.name.trim().toLowerCase(), p.id]));
  const [header, ...lines] = fs.readFileSync(path.join(__dirname, 'phone_bookings.csv'), 'utf8')
    .split(/\r?\n/).filter((l) => l.trim());
  const names = fields(header);
  const rows = lines.map((l) => Object.fromEntries(fields(l).map((v, i) => [names[i], v])));

  const customerByEmail = db.prepare('SELECT id FROM customers WHERE lower(email) = ?');
  const nextCustomerId = () => {
    const ids = db.prepare('SELECT id FROM customers').all()
      .map((c) => Number(c.id.replace(/^C-/, ''))).filter(Number.isFinite);
    return `C-${Math.max(99, ...ids) + 1}`;
  };
  const insert = db.prepare(`INSERT OR IGNORE INTO bookings (id, customer_id, product_id,
    tour_date, guests, currency, amount, amount_paid, source, status, payment_intent,
    setup_intent, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'phone', ?, NULL, NULL, ?)`);
  const migrate = db.transaction(() => {
    let added = 0;
    for (const row of rows) {
      if (only && !only.has(row.ref)) continue;
      const email = row.customer_email.toLowerCase();
      let customer = customerByEmail.get(email);
      if (!customer) {
        customer = {id: nextCustomerId()};
        db.prepare('INSERT INTO customers (id, email, name) VALUES (?, ?, ?)')
          .run(customer.id, email, row.customer_name);
      }
      const product = productByName.get(row.tour.toLowerCase());
      if (!product) throw new Error(`${row.ref}: no product named ${row.tour}`);
      const currency = row.currency.toLowerCase();
      const status = STATUS[row.status.toLowerCase()];
      if (!status) throw new Error(`${row.ref}: unknown status ${row.status}`);
      added += insert.run(row.ref, customer.id, product, row.tour_date, Number(row.guests),
        currency, minorUnits(row.total, currency), minorUnits(row.paid, currency), status,
        row.taken_on).changes;
    }
    return added;
  });
  console.log(`migrated ${migrate()} phone bookings`);
}

main().catch((err) => { console.error(err); process.exit(1); });
