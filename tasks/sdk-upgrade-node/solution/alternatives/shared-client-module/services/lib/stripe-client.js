// The back office's Stripe client, shared by the three services: stripe-node 23 at the
// API version it is pinned to (no apiVersion given: the SDK sends its own), through
// STRIPE_API_BASE when set.
'use strict';

const Stripe = require('stripe');

function apiAddress() {
  if (!process.env.STRIPE_API_BASE) return {};
  const url = new URL(process.env.STRIPE_API_BASE);
  const protocol = url.protocol.replace(':', '');
  return {host: url.hostname, port: url.port || (protocol === 'https' ? 443 : 80), protocol};
}

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY || '', apiAddress());

module.exports = {stripe, API_VERSION: Stripe.API_VERSION};
