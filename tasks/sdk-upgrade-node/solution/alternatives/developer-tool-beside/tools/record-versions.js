#!/usr/bin/env node
// Records every service's /version before and after the upgrade, to compare by hand.
//   node tools/record-versions.js before.json   (services on stripe-node 10.17.0, API '2022-08-01')
//   node tools/record-versions.js after.json    (services on stripe-node 23.1.0)
// It calls the services only, never Stripe.
'use strict';
const fs = require('fs');
const http = require('http');

const OLD_API_VERSION = '2022-08-01'; // what the services pinned before, for the report
const urls = ['PAYMENTS_URL', 'INVOICES_URL', 'SUBSCRIPTIONS_URL'].map((v) => process.env[v]);

function get(url) {
  return new Promise((resolve, reject) => http.get(url, (res) => {
    let body = '';
    res.on('data', (chunk) => { body += chunk; });
    res.on('end', () => resolve(JSON.parse(body)));
  }).on('error', reject));
}

Promise.all(urls.map((u) => get(`${u}/version`))).then((versions) => {
  fs.writeFileSync(process.argv[2], JSON.stringify({was: OLD_API_VERSION, versions}, null, 2));
});
