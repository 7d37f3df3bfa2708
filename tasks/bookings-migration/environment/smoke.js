// Smoke test (npm test): the packages load without a network (better-sqlite3's native
// module among them), the database opens, and Stripe's SDK is the pinned one.
'use strict';

const fs = require('fs');
const path = require('path');
const Database = require('better-sqlite3');
require('stripe');

const stripeVersion = JSON.parse(fs.readFileSync(
  path.join(__dirname, 'node_modules', 'stripe', 'package.json'), 'utf8')).version;
const pinned = require('./package.json').dependencies.stripe;

const db = new Database(path.join(__dirname, 'data', 'tours.db'),
  {readonly: true, fileMustExist: true});
const count = (table) => db.prepare(`SELECT count(*) AS n FROM ${table}`).get().n;
if (stripeVersion !== pinned) {
  console.error(`stripe ${stripeVersion} is installed, package.json pins ${pinned}`);
  process.exit(1);
}
const sqlite = db.prepare('SELECT sqlite_version() AS v').get().v;
console.log(`smoke ok: stripe ${stripeVersion}, SQLite ${sqlite}, ` +
  `${count('customers')} customers, ${count('bookings')} bookings`);
