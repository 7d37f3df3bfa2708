"""Hosted and embedded Checkout: pages, templates, static assets, locales."""

from __future__ import annotations

from . import pages as pages  # registers the routes
