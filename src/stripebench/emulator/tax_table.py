"""The deterministic rate table behind `automatic_tax` (Stripe Tax stand-in).

Real Stripe Tax looks rates up by full address, product tax code and the merchant's
registrations. The emulator uses one fixed, documented table instead, so a grader can
compute the expected tax by hand:

* United States: a flat state-level sales tax rate by `state` (no county/city
  surtaxes). States without a sales tax, and US addresses with no state, pay 0.
* Every other country in the table: its standard VAT / GST rate, one rate per country.
* Countries not listed: not collected (0, taxability reason `not_collecting`).

Amounts are rounded half-up per line item. A price's `tax_behavior` decides whether
the rate is added on top (`exclusive`, and `unspecified`, which Stripe would reject
without a default) or carved out of the amount (`inclusive`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal


@dataclass(frozen=True)
class TaxRule:
    country: str
    state: str | None
    percentage: float
    tax_type: str  # Stripe's tax_type names: sales_tax, vat, gst, jct
    display_name: str  # what the page shows ("Sales tax", "VAT", ...)

    @property
    def jurisdiction(self) -> str:
        return f"{self.country}-{self.state}" if self.state else self.country


# State base sales tax rates (percent). States absent from the map have no sales tax.
US_STATE_RATES: dict[str, float] = {
    "AL": 4.0, "AZ": 5.6, "AR": 6.5, "CA": 7.25, "CO": 2.9, "CT": 6.35, "DC": 6.0,
    "FL": 6.0, "GA": 4.0, "HI": 4.0, "ID": 6.0, "IL": 6.25, "IN": 7.0, "IA": 6.0,
    "KS": 6.5, "KY": 6.0, "LA": 4.45, "ME": 5.5, "MD": 6.0, "MA": 6.25, "MI": 6.0,
    "MN": 6.875, "MS": 7.0, "MO": 4.225, "NE": 5.5, "NV": 6.85, "NJ": 6.625, "NM": 4.875,
    "NY": 4.0, "NC": 4.75, "ND": 5.0, "OH": 5.75, "OK": 4.5, "PA": 6.0, "RI": 7.0,
    "SC": 6.0, "SD": 4.2, "TN": 7.0, "TX": 6.25, "UT": 6.1, "VT": 6.0, "VA": 5.3,
    "WA": 6.5, "WV": 6.0, "WI": 5.0, "WY": 4.0,
}

# Standard national rates: (percentage, tax_type).
COUNTRY_RATES: dict[str, tuple[float, str]] = {
    "AT": (20.0, "vat"), "BE": (21.0, "vat"), "BG": (20.0, "vat"), "HR": (25.0, "vat"),
    "CY": (19.0, "vat"), "CZ": (21.0, "vat"), "DK": (25.0, "vat"), "EE": (22.0, "vat"),
    "FI": (25.5, "vat"), "FR": (20.0, "vat"), "DE": (19.0, "vat"), "GR": (24.0, "vat"),
    "HU": (27.0, "vat"), "IE": (23.0, "vat"), "IT": (22.0, "vat"), "LV": (21.0, "vat"),
    "LT": (21.0, "vat"), "LU": (17.0, "vat"), "MT": (18.0, "vat"), "NL": (21.0, "vat"),
    "PL": (23.0, "vat"), "PT": (23.0, "vat"), "RO": (19.0, "vat"), "SK": (23.0, "vat"),
    "SI": (22.0, "vat"), "ES": (21.0, "vat"), "SE": (25.0, "vat"), "GB": (20.0, "vat"),
    "NO": (25.0, "vat"), "CH": (8.1, "vat"), "IS": (24.0, "vat"),
    "AU": (10.0, "gst"), "NZ": (15.0, "gst"), "CA": (5.0, "gst"), "SG": (9.0, "gst"),
    "IN": (18.0, "gst"), "JP": (10.0, "jct"), "KR": (10.0, "vat"), "MX": (16.0, "vat"),
    "BR": (17.0, "vat"), "ZA": (15.0, "vat"),
}

DISPLAY_NAMES = {"sales_tax": "Sales tax", "vat": "VAT", "gst": "GST", "jct": "JCT"}


def rule_for(country: str | None, state: str | None = None) -> TaxRule | None:
    """The rule that applies at an address, or None when no tax is collected there."""
    if not country:
        return None
    country = country.upper()
    if country == "US":
        st = (state or "").upper()
        rate = US_STATE_RATES.get(st)
        if rate is None:
            return None
        return TaxRule("US", st, rate, "sales_tax", DISPLAY_NAMES["sales_tax"])
    found = COUNTRY_RATES.get(country)
    if found is None:
        return None
    percentage, tax_type = found
    return TaxRule(country, None, percentage, tax_type, DISPLAY_NAMES[tax_type])


def _round(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def tax_on(amount: int, percentage: float, inclusive: bool) -> int:
    """Tax in minor units on `amount` (the taxable amount after discounts)."""
    if amount <= 0 or percentage <= 0:
        return 0
    pct = Decimal(str(percentage))
    if inclusive:
        return _round(Decimal(amount) * pct / (Decimal(100) + pct))
    return _round(Decimal(amount) * pct / Decimal(100))
