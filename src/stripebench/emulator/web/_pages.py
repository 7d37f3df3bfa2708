"""Helpers shared by the payment pages (3D Secure, receipts): find objects, act on them."""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..store import Account
from . import Web


def find_object(web: Web, object_id: str, object_type: str
                ) -> tuple[Account, dict[str, Any]] | None:
    found = web.store.find(object_id)
    if found is None or found[1].get("object") != object_type:
        return None
    return found


def page_ctx(web: Web, account: Account) -> Ctx:
    """A context for changes a page makes on the customer's behalf (like Stripe's own UI)."""
    return Ctx(web.store, account, version=account.api_version, key_kind="secret",
               request_id="", method=web.request.method, path=web.request.path,
               routed=web.routed, local_origin=web.local_origin)


def committed(web: Web, account: Account) -> None:
    """A page mutated state: advance the account clock like an API write does."""
    account.clock.tick()
    web.store.touch(account)


def money(amount: int, currency: str) -> str:
    zero_decimal = {"jpy", "krw", "vnd", "clp", "pyg", "xof", "xaf", "ugx", "rwf", "kmf",
                    "gnf", "djf", "bif", "mga", "vuv", "xpf"}
    symbols = {"usd": "$", "eur": "€", "gbp": "£", "jpy": "¥", "cad": "CA$", "aud": "A$"}
    value = f"{amount:,}" if currency in zero_decimal else f"{amount / 100:,.2f}"
    symbol = symbols.get(currency)
    return f"{symbol}{value}" if symbol else f"{value} {currency.upper()}"


PAGE_STYLE = """
body { font-family: system-ui, -apple-system, Segoe UI, Roboto, sans-serif; background: #f6f9fc;
       color: #1a1f36; margin: 0; }
main { max-width: 480px; margin: 40px auto; background: #fff; border-radius: 8px;
       box-shadow: 0 2px 8px rgba(50,50,93,.15); padding: 28px; }
h1 { font-size: 20px; margin: 0 0 12px; }
p, dd, dt { font-size: 14px; line-height: 1.5; }
button { font-size: 15px; padding: 10px 16px; border-radius: 6px; border: 1px solid #635bff;
         cursor: pointer; margin-right: 8px; }
button.primary { background: #635bff; color: #fff; }
button.secondary { background: #fff; color: #635bff; }
table { width: 100%; border-collapse: collapse; font-size: 14px; }
td { padding: 6px 0; border-bottom: 1px solid #e3e8ee; }
td.amount { text-align: right; }
.muted { color: #697386; }
"""
