"""What the embedded components read and do, checked against the account session.

The token names one claimed account session; every request names the component making
it (`component=payments`). A read needs that component enabled and able to show that
kind of data; an action needs that component's own feature (refund_management,
dispute_management, capture_payments, standard/instant payouts): as in Stripe's account
sessions, each component has its own features, so one component's `refund_management`
never lets another refund. Actions go through the same resource code as the API, acting
on the connected account, so events, balances and objects are exactly as an API call
would leave them.
"""

from __future__ import annotations

from typing import Any

from ...context import Ctx
from ...errors import StripeError
from ...resources import accounts, balance, disputes, payment_intents, payouts, refunds
from ...resources.account_sessions import find_session
from ...store import Account
from .. import Web
from .._pages import committed, money, page_ctx

Result = tuple[int, Any]
# Which components may read each kind of data (the one asking must be enabled).
READERS = {
    "payments": ("payments", "payment_details", "disputes_list", "payment_disputes"),
    "disputes": ("payments", "disputes_list", "payment_disputes"),
    "payouts": ("payouts", "payouts_list", "payout_details", "balances"),
    "balance": ("payouts", "balances", "payouts_list"),
    "account": ("account_onboarding", "account_management", "notification_banner"),
}


def _error(status: int, message: str, kind: str = "invalid_request_error") -> Result:
    return status, {"error": {"type": kind, "message": message}}


class Denied(Exception):
    """A component request the session does not allow (or a token that is not valid)."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.result = _error(status, message, kind)


def claim(web: Web, secret: str) -> Result:
    found = find_session(web.store, secret)
    if found is None:
        return _error(401, "Invalid account session client secret.", "authentication_error")
    platform, record = found
    if record["expires_at"] < platform.clock.now():
        return _error(401, "This account session has expired; create a new one.",
                      "authentication_error")
    if record["_claimed"]:
        return _error(401, "This account session client secret was already used; create a new "
                      "account session for each page load.", "authentication_error")
    record["_claimed"] = True
    record["_token"] = f"{record['id']}_{platform.ids.token(24)}"
    web.store.put(platform, record)
    committed(web, platform)
    return 200, {"token": record["_token"], "account": record["account"],
                 "components": record["components"]}


def _session(web: Web, token: str) -> tuple[Account, dict[str, Any]] | None:
    found = web.store.find(token.rsplit("_", 1)[0])
    if found is None or found[1].get("_token") != token or found[1].get("_logged_out"):
        return None
    return found


def logout(web: Web, token: str) -> Result:
    found = _session(web, token)
    if found is None:
        return _error(401, "Unknown or expired component session.", "authentication_error")
    platform, record = found
    record["_logged_out"] = True
    web.store.put(platform, record)
    return 200, {"ok": True}


def _open(web: Web, token: str) -> tuple[Ctx, Ctx, dict[str, Any]]:
    """The platform's and the connected account's contexts, and the session record."""
    found = _session(web, token)
    if found is None:
        raise Denied(401, "Unknown or expired component session.", "authentication_error")
    platform, record = found
    connected = web.store.accounts.get(record["account"])
    if connected is None:
        raise Denied(404, f"No such account: '{record['account']}'")
    return page_ctx(web, platform), page_ctx(web, connected), record


def _component(record: dict[str, Any], name: str | None) -> dict[str, Any]:
    """The asking component's entry in the session: it must be named and enabled."""
    if not name:
        raise Denied(400, "Name the component making this request (`component`).")
    entry = record["components"].get(name)
    if not isinstance(entry, dict) or not entry.get("enabled"):
        raise Denied(403, f"The {name} component is not enabled in this account session.")
    return entry


def _feature(entry: dict[str, Any], feature: str) -> bool:
    """Whether this one component grants the feature (its own features only)."""
    return bool(entry["enabled"] and (entry.get("features") or {}).get(feature) is True)


FEATURES = ("refund_management", "dispute_management", "capture_payments",
            "standard_payouts", "instant_payouts", "external_account_collection")


def features(entry: dict[str, Any]) -> dict[str, bool]:
    """One component's features as the component's page reads them."""
    return {name: _feature(entry, name) for name in FEATURES}


# ------------------------------------------------------------------ views

def _email(ctx: Ctx, charge: dict[str, Any]) -> str | None:
    email = (charge.get("billing_details") or {}).get("email") or charge.get("receipt_email")
    if email:
        return str(email)
    customer = ctx.maybe(charge.get("customer"), "customer")
    return customer.get("email") if customer else None


def _dispute_of(ctx: Ctx, charge: dict[str, Any]) -> dict[str, Any] | None:
    return next((d for d in ctx.account.iter_type("dispute") if d["charge"] == charge["id"]),
                None)


def payment_status(ctx: Ctx, charge: dict[str, Any]) -> str:
    if charge["status"] == "failed":
        return "Failed"
    if charge.get("disputed"):
        dispute = _dispute_of(ctx, charge)
        return "Dispute lost" if dispute and dispute["status"] == "lost" else "Disputed"
    if charge.get("refunded"):
        return "Refunded"
    if charge.get("amount_refunded"):
        return "Partially refunded"
    if not charge.get("captured"):
        return "Uncaptured"
    return "Succeeded"


def _payment_view(ctx: Ctx, charge: dict[str, Any]) -> dict[str, Any]:
    dispute = _dispute_of(ctx, charge)
    card = ((charge.get("payment_method_details") or {}).get("card")) or {}
    return {"id": charge["id"], "amount": charge["amount"], "currency": charge["currency"],
            "amount_display": money(charge["amount"], charge["currency"]),
            "amount_refunded": charge["amount_refunded"], "status": payment_status(ctx, charge),
            "customer_email": _email(ctx, charge), "created": charge["created"],
            "description": charge.get("description"), "captured": charge.get("captured"),
            "card": {"brand": card.get("brand"), "last4": card.get("last4")} if card else None,
            "payment_intent": charge.get("payment_intent"),
            "dispute": _dispute_view(dispute) if dispute else None}


def _dispute_view(dispute: dict[str, Any]) -> dict[str, Any]:
    return {"id": dispute["id"], "amount": dispute["amount"], "currency": dispute["currency"],
            "amount_display": money(dispute["amount"], dispute["currency"]),
            "status": dispute["status"], "reason": dispute["reason"],
            "charge": dispute["charge"],
            "due_by": (dispute.get("evidence_details") or {}).get("due_by")}


FILTERS = {"succeeded": {"Succeeded"}, "refunded": {"Refunded", "Partially refunded"},
           "disputed": {"Disputed", "Dispute lost"}, "failed": {"Failed"},
           "uncaptured": {"Uncaptured"}}


def read(web: Web, token: str, path: str, query: dict[str, str]) -> Result:
    try:
        platform_ctx, ctx, record = _open(web, token)
        return _read(platform_ctx, ctx, record, path, query, query.get("component"))
    except Denied as denied:
        return denied.result


def _read(platform_ctx: Ctx, ctx: Ctx, record: dict[str, Any], path: str,
          query: dict[str, str], component: str | None) -> Result:
    kind = path.split("/", 1)[0]
    if kind == "session":  # the asking component's own features, if one is named
        return 200, {"account": record["account"], "components": record["components"],
                     "features": features(_component(record, component)) if component
                     else {}}
    if kind not in READERS:
        raise Denied(404, f"Unknown component data: {kind}")
    _component(record, component)
    if component not in READERS[kind]:
        raise Denied(403, f"The {component} component cannot read {kind}.")
    if kind == "payments":
        charge_list = [c for c in ctx.account.iter_type("charge")]
        if "/" in path:
            wanted = path.split("/", 1)[1]
            found = next((c for c in charge_list if c["id"] == wanted
                          or c.get("payment_intent") == wanted), None)
            if found is None:
                raise Denied(404, f"No such payment: '{wanted}'")
            return 200, _payment_view(ctx, found)
        views = [_payment_view(ctx, c) for c in charge_list]
        wanted_filter = FILTERS.get(query.get("filter", "all"))
        if wanted_filter:
            views = [v for v in views if v["status"] in wanted_filter]
        return 200, {"data": views}
    if kind == "disputes":
        return 200, {"data": [_dispute_view(d) for d in ctx.account.iter_type("dispute")]}
    if kind == "payouts":
        items = [payouts.settle(ctx, p) for p in ctx.account.iter_type("payout")]
        return 200, {"data": [{"id": p["id"], "amount_display": money(p["amount"], p["currency"]),
                               "status": p["status"], "arrival_date": p["arrival_date"],
                               "method": p["method"]} for p in items]}
    if kind == "balance":
        value = balance.retrieve_balance(ctx, {})
        return 200, {side: [{"amount_display": money(b["amount"], b["currency"]),
                             "currency": b["currency"], "amount": b["amount"]}
                            for b in value[side]] for side in ("available", "pending")}
    obj = accounts.account_object(platform_ctx, record["account"])
    return 200, {"id": obj["id"], "email": obj.get("email"),
                 "business_profile": obj.get("business_profile"),
                 "requirements": obj["requirements"], "charges_enabled": obj["charges_enabled"],
                 "payouts_enabled": obj["payouts_enabled"],
                 "details_submitted": obj["details_submitted"]}


def act(web: Web, token: str, path: str, body: dict[str, Any],
        component: str | None) -> Result:
    try:
        platform_ctx, ctx, record = _open(web, token)
        result = _act(platform_ctx, ctx, record, path.split("/"), body, component)
    except Denied as denied:
        return denied.result
    except StripeError as exc:
        return exc.status, exc.body()
    committed(web, ctx.account)
    committed(web, platform_ctx.account)
    return result


ACTIONS = {"refund": "refund_management", "capture": "capture_payments",
           "accept_dispute": "dispute_management", "submit_evidence": "dispute_management",
           "payout": "standard_payouts", "instant_payout": "instant_payouts"}


def _act(platform_ctx: Ctx, ctx: Ctx, record: dict[str, Any], parts: list[str],
         body: dict[str, Any], component: str | None) -> Result:
    action = parts[-1]
    feature = ACTIONS.get(action)
    if feature is None and action != "onboard":
        raise Denied(404, f"Unknown component action: {action}")
    entry = _component(record, component)
    if feature and not _feature(entry, feature):
        raise Denied(403, f"The {component} component of this account session does not "
                      f"allow {action.replace('_', ' ')} (its `{feature}` is off).")
    if action == "onboard":
        if component not in ("account_onboarding", "account_management"):
            raise Denied(403, f"The {component} component cannot onboard the account.")
        obj = accounts.complete_onboarding(platform_ctx, record["account"], body)
        return 200, {"details_submitted": obj["details_submitted"],
                     "currently_due": obj["requirements"]["currently_due"]}
    target = parts[1] if len(parts) > 2 else ""
    if action == "refund":
        params: dict[str, Any] = {"charge": target}
        if body.get("amount"):
            params["amount"] = int(body["amount"])
        refund = refunds.create(ctx, params)
        return 200, {"refund": refund["id"], "status": refund["status"]}
    if action == "capture":
        charge = payment_intents.capture_charge(ctx, {}, target)
        return 200, {"captured": charge["captured"]}
    if action == "accept_dispute":
        dispute = disputes.close(ctx, {}, target)
        return 200, {"status": dispute["status"]}
    if action == "submit_evidence":
        evidence = {k: str(v) for k, v in (body.get("evidence") or {}).items() if v}
        dispute = disputes.update(ctx, {"evidence": evidence, "submit": True}, target)
        return 200, {"status": dispute["status"]}
    method = "instant" if action == "instant_payout" else "standard"
    payout = payouts.create(ctx, {"amount": int(body.get("amount") or 0),
                                  "currency": body.get("currency") or "usd",
                                  "method": method})
    return 200, {"payout": payout["id"], "status": payout["status"]}
