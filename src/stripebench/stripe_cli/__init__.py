"""The Stripe CLI's habits, offline: `listen` forwards an account's events to a local URL,
signed like webhooks; `trigger` makes the API calls that cause an event. Both are clients
of the emulator's public API (with the account's secret key), as the Stripe CLI is of
Stripe's."""
