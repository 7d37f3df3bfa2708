"""Hosted and embedded Checkout: pages, templates, static assets, locales."""

from __future__ import annotations

from . import links as links  # registers buy.stripe.com
from . import pages as pages  # registers the routes
