"""The Checkout page's translations: one JSON file per locale (see ../locales.py)."""
