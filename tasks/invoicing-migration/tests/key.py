"""The answer key: the starter's data (tests/prepare.py writes it into data/tours.db)
and what the history says the prices are. The grader's own copy: nothing the agent
edits changes it."""

from __future__ import annotations

from typing import NamedTuple

TOURS = {"prod_fjord_kayak": "Fjord Kayak Day", "prod_glacier_hike": "Glacier Hike",
         "prod_northern_lights": "Northern Lights Night Drive",
         "prod_whale_safari": "Whale Safari", "prod_midnight_sun": "Midnight Sun Cruise"}

# id, email, name, has a Stripe customer in the fixtures (fixture ref)
CUSTOMERS = [("C-100", "ingrid.berg@example.com", "Ingrid Berg", "c100"),
             ("C-101", "hiro.tanaka@example.jp", "Hiro Tanaka", "c101"),
             ("C-102", "maggie.oneill@example.co.uk", "Maggie O'Neill", "c102"),
             ("C-103", "sam.rivera@example.com", "Sam Rivera", None),
             ("C-104", "lena.fischer@example.de", "Lena Fischer", None)]


class Booking(NamedTuple):
    id: str
    customer: str
    product: str
    tour_date: str
    guests: int
    currency: str
    amount: int
    source: str
    status: str
    intent_ref: str | None   # fixture ref of the PaymentIntent that paid it
    setup_ref: str | None    # fixture ref of the SetupIntent that saved the card
    created_at: str

    @property
    def amount_paid(self) -> int:
        return self.amount if self.status in ("complete", "refunded") else 0


BOOKINGS = [
    Booking("B-1001", "C-100", "prod_fjord_kayak", "2026-06-14", 2, "eur", 17800, "online",
            "complete", "b1001", None, "2026-01-05"),
    Booking("B-1002", "C-100", "prod_glacier_hike", "2026-05-30", 1, "eur", 12900, "online",
            "refunded", "b1002", None, "2026-01-08"),
    Booking("B-1003", "C-101", "prod_northern_lights", "2026-10-20", 3, "jpy", 31500,
            "online", "complete", "b1003", None, "2026-01-11"),
    Booking("B-1004", "C-101", "prod_whale_safari", "2026-08-15", 2, "jpy", 32000, "online",
            "incomplete", None, "b1004", "2026-01-19"),
    Booking("B-1005", "C-102", "prod_glacier_hike", "2026-07-08", 2, "gbp", 22000, "online",
            "complete", "b1005", None, "2026-02-02"),
    Booking("P-2001", "C-100", "prod_whale_safari", "2026-06-20", 2, "eur", 19800, "phone",
            "complete", None, None, "2026-01-12"),
    Booking("P-2002", "C-103", "prod_fjord_kayak", "2026-07-02", 4, "usd", 39600, "phone",
            "incomplete", None, None, "2026-01-15"),
    Booking("P-2003", "C-101", "prod_glacier_hike", "2026-08-11", 2, "jpy", 42000, "phone",
            "complete", None, None, "2026-01-20"),
    Booking("P-2004", "C-104", "prod_northern_lights", "2026-11-03", 2, "eur", 13000,
            "phone", "incomplete", None, None, "2026-01-22"),
    Booking("P-2005", "C-102", "prod_whale_safari", "2026-06-28", 3, "gbp", 25500, "phone",
            "refunded", None, None, "2026-02-01"),
    Booking("P-2006", "C-103", "prod_glacier_hike", "2026-07-19", 1, "usd", 14500, "phone",
            "complete", None, None, "2026-02-03"),
    Booking("P-2007", "C-104", "prod_fjord_kayak", "2026-06-05", 2, "gbp", 15800, "phone",
            "complete", None, None, "2026-02-10"),
    Booking("P-2008", "C-101", "prod_whale_safari", "2026-09-01", 1, "jpy", 16000, "phone",
            "incomplete", None, None, "2026-02-14"),
    Booking("P-2009", "C-100", "prod_northern_lights", "2026-10-02", 3, "usd", 21600,
            "phone", "complete", None, None, "2026-02-20"),
]

# (product, currency) -> the price of one guest, as the bookings show it
PRICES = {(b.product, b.currency): b.amount // b.guests for b in BOOKINGS}
INVOICED = [b for b in BOOKINGS if b.status != "refunded"]


def lookup_key(product: str, currency: str) -> str:
    return f"{product.removeprefix('prod_')}_{currency}"
