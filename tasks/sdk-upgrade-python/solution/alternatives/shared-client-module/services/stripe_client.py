"""The back office's Stripe client, shared by the three services: stripe-python 16 at the
API version it is pinned to (stripe.api_version), through STRIPE_API_BASE when set."""

import os

import stripe

API_VERSION = stripe.api_version
_base = os.environ.get("STRIPE_API_BASE", "").rstrip("/")
client = stripe.StripeClient(os.environ.get("STRIPE_SECRET_KEY", ""),
                             base_addresses={"api": _base} if _base else None)
