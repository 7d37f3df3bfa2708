"""Receipt pages (pay.stripe.com): what a charge's `receipt_url` opens."""

from __future__ import annotations

import datetime
import hmac
from typing import Any

from ..cards import brand_label
from ..http import Response
from . import Web, escape, page
from ._pages import PAGE_STYLE, find_object, money


def _date(ts: int) -> str:
    return datetime.datetime.fromtimestamp(ts, datetime.UTC).strftime("%b %d, %Y")


@page("pay.stripe.com", "GET", "/receipts/payment/{charge}/{token}")
def receipt(web: Web, charge: str, token: str) -> Response:
    found = find_object(web, charge, "charge")
    if found is None or not hmac.compare_digest(str(found[1].get("_receipt_token") or ""), token):
        return Response.html("<h1>Receipt not found</h1>", 404)
    account, ch = found
    if ch["status"] != "succeeded":
        return Response.html("<h1>Receipt not available</h1><p>This payment did not succeed."
                             "</p>", 404)
    merchant = escape(ch.get("calculated_statement_descriptor") or "STRIPEBENCH")
    card = (ch.get("payment_method_details") or {}).get("card") or {}
    refunds = [r for r in account.iter_type("refund") if r.get("charge") == ch["id"]
               and r.get("status") == "succeeded"]
    rows = [_row(escape(ch.get("description") or "Payment"), money(ch["amount"], ch["currency"]))]
    for refund in refunds:
        rows.append(_row(f"Refund on {_date(refund['created'])}",
                         "−" + money(refund["amount"], refund["currency"])))
    if ch["amount_captured"] < ch["amount"] and ch["captured"]:
        rows.append(_row("Released (not captured)",
                         "−" + money(ch["amount"] - ch["amount_captured"], ch["currency"])))
    number = escape(ch.get("receipt_number") or ch["id"][-8:].upper())
    status = ("Refunded" if ch.get("refunded") else "Partially refunded"
              if refunds else "Paid")
    body = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Receipt from {merchant}</title><style>{PAGE_STYLE}</style></head><body><main>
<h1>Receipt from {merchant}</h1>
<p class="muted">Receipt #{number}</p>
<dl>
<dt>Amount paid</dt>
<dd data-testid="amount-paid">{money(ch["amount_captured"], ch["currency"])}</dd>
<dt>Date paid</dt><dd>{_date(ch["created"])}</dd>
<dt>Payment method</dt>
<dd>{escape(brand_label(str(card.get("brand"))))} – {escape(card.get("last4"))}</dd>
<dt>Status</dt><dd data-testid="status">{status}</dd>
</dl>
<h2>Summary</h2>
<table>{"".join(rows)}
<tr><td><strong>Amount charged</strong></td>
<td class="amount"><strong>{money(ch["amount_captured"], ch["currency"])}</strong></td></tr>
</table>
<p class="muted">If you have any questions, contact {merchant}.</p>
</main></body></html>"""
    return Response.html(body)


def _row(label: Any, amount: str) -> str:
    return f'<tr><td>{label}</td><td class="amount">{escape(amount)}</td></tr>'
