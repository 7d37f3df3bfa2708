"""The answer key: phone_bookings.csv as it must land in the bookings table, and the
seeded online bookings (the grader's own copy: nothing the agent edits changes it)."""

from __future__ import annotations

from typing import NamedTuple


class Row(NamedTuple):
    customer_id: str
    product_id: str
    tour_date: str
    guests: int
    currency: str
    amount: int
    amount_paid: int
    status: str
    created_at: str


PHONE = {
    "P-2001": Row("C-100", "prod_whale_safari", "2026-06-20", 2, "eur", 19800, 19800,
                  "complete", "2026-01-12"),
    "P-2002": Row("C-103", "prod_fjord_kayak", "2026-07-02", 4, "usd", 39600, 10000,
                  "incomplete", "2026-01-15"),
    "P-2003": Row("C-101", "prod_glacier_hike", "2026-08-11", 2, "jpy", 42000, 42000,
                  "complete", "2026-01-20"),
    "P-2004": Row("C-104", "prod_northern_lights", "2026-11-03", 2, "eur", 13000, 0,
                  "incomplete", "2026-01-22"),
    "P-2005": Row("C-102", "prod_whale_safari", "2026-06-28", 3, "gbp", 25500, 25500,
                  "refunded", "2026-02-01"),
    "P-2006": Row("C-103", "prod_glacier_hike", "2026-07-19", 1, "usd", 14500, 14500,
                  "complete", "2026-02-03"),
    "P-2007": Row("C-104", "prod_fjord_kayak", "2026-06-05", 2, "gbp", 15800, 15800,
                  "complete", "2026-02-10"),
    "P-2008": Row("C-101", "prod_whale_safari", "2026-09-01", 1, "jpy", 16000, 5000,
                  "incomplete", "2026-02-14"),
    "P-2009": Row("C-100", "prod_northern_lights", "2026-10-02", 3, "usd", 21600, 21600,
                  "complete", "2026-02-20"),
}
NEW_CUSTOMER = ("C-104", "lena.fischer@example.de", "Lena Fischer")
CUSTOMERS = ["C-100", "C-101", "C-102", "C-103", "C-104"]

# The seeded online bookings (tests/prepare.py writes them): id -> (customer, product,
# tour date, guests, currency, amount, fixture ref of their PaymentIntent or None)
ONLINE = {
    "B-1001": ("C-100", "prod_fjord_kayak", "2026-06-14", 2, "eur", 17800, "b1001"),
    "B-1002": ("C-100", "prod_glacier_hike", "2026-05-30", 1, "eur", 12900, "b1002"),
    "B-1003": ("C-101", "prod_northern_lights", "2026-10-20", 3, "jpy", 31500, "b1003"),
    "B-1004": ("C-101", "prod_whale_safari", "2026-08-15", 2, "jpy", 32000, None),
    "B-1005": ("C-102", "prod_glacier_hike", "2026-07-08", 2, "gbp", 22000, "b1005"),
}
