"""The local Stripe: a stateful emulator of Stripe's API, hosted pages and Stripe.js."""
