"""Account Sessions (for Connect embedded components) and Account Links (onboarding).

An account session names the components the browser may render for one connected
account and, per component, its features. Features left out take Stripe's defaults
(https://docs.stripe.com/api/account_sessions/create): for the payment components
refund and dispute management (and capture, where the component has it) are on,
destination-on-behalf-of charge management is off, and smart disputes management follows
dispute management; for payouts and balances, instant and standard payouts and schedule
editing are on only when the account's `controller.losses.payments` is `stripe`, bank
account collection is on, and `disable_stripe_user_authentication` is its opposite. The
client secret lives 30 minutes on the account's clock; connect.js exchanges it once.
"""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..router import api
from ..shape import blank
from .accounts import account_object

SESSION_LIFETIME = 30 * 60
LINK_LIFETIME = 300

PAYMENT_DEFAULTS = {"refund_management": True, "dispute_management": True,
                    "capture_payments": True,
                    "destination_on_behalf_of_charge_management": False}
PAYOUT_DEFAULTS = {"external_account_collection": True}
STRIPE_LIABLE = ("instant_payouts", "standard_payouts", "edit_payout_schedule")
FEATURE_DEFAULTS: dict[str, dict[str, bool]] = {
    "payments": PAYMENT_DEFAULTS, "payment_details": PAYMENT_DEFAULTS,
    "disputes_list": PAYMENT_DEFAULTS,
    "payment_disputes": {k: v for k, v in PAYMENT_DEFAULTS.items() if k != "capture_payments"},
    "payouts": PAYOUT_DEFAULTS, "balances": PAYOUT_DEFAULTS,
    "account_onboarding": {"external_account_collection": True},
    "account_management": {"external_account_collection": True},
    "notification_banner": {"external_account_collection": True},
}


def _components(requested: dict[str, Any], stripe_liable: bool) -> dict[str, Any]:
    """Every component Stripe lists, disabled unless asked for, features at defaults."""
    components: dict[str, Any] = blank("account_session")["components"]
    for name, entry in components.items():
        defaults = dict(FEATURE_DEFAULTS.get(name, {}))
        if name in ("payouts", "balances"):
            defaults.update(dict.fromkeys(STRIPE_LIABLE, stripe_liable))
        features = entry["features"]
        features.update({k: v for k, v in defaults.items() if k in features})
        asked = requested.get(name)
        given = (asked or {}).get("features") or {}
        if asked:
            entry["enabled"] = bool(asked.get("enabled"))
            features.update(given)
        # Defaults that follow another feature's final value.
        if "smart_disputes_management" in features and \
                "smart_disputes_management" not in given:
            features["smart_disputes_management"] = bool(features.get("dispute_management"))
        if "disable_stripe_user_authentication" in features and \
                "disable_stripe_user_authentication" not in given:
            features["disable_stripe_user_authentication"] = \
                not features.get("external_account_collection", True)
    return components


@api("POST", "/v1/account_sessions")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    account_id = params["account"]
    connected = account_object(ctx, account_id)
    losses = ((connected.get("controller") or {}).get("losses") or {}).get("payments")
    requested = params.get("components") or {}
    if not any((c or {}).get("enabled") for c in requested.values()):
        raise InvalidRequest("You must enable at least one component.", param="components")
    session_id = ctx.new_id("accs")
    secret = f"{session_id}_secret_{ctx.account.ids.token(24)}"
    record = {"id": session_id, "object": "_account_session", "account": account_id,
              "client_secret": secret, "expires_at": ctx.now() + SESSION_LIFETIME,
              "components": _components(requested, losses == "stripe"), "created": ctx.now(),
              "_claimed": False}
    ctx.store.put(ctx.account, record)
    return {"object": "account_session", "account": account_id, "client_secret": secret,
            "expires_at": record["expires_at"], "livemode": False,
            "components": record["components"]}


def find_session(ctx_store: Any, secret: str) -> tuple[Any, dict[str, Any]] | None:
    """The platform account and stored session for a client secret, if it exists."""
    session_id = secret.split("_secret_", 1)[0]
    found = ctx_store.find(session_id)
    if found is None:
        return None
    owner, record = found
    if record.get("client_secret") != secret:
        return None
    return owner, record


@api("POST", "/v1/account_links")
def create_link(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    account_id = params["account"]
    obj = account_object(ctx, account_id)
    kind = params["type"]
    if kind == "account_update" and obj["controller"]["requirement_collection"] == "stripe" \
            and obj["type"] in ("standard", "none") and obj["controller"]["stripe_dashboard"][
                "type"] == "full":
        raise InvalidRequest("You cannot create `account_update` type Account Links for "
                             "accounts with access to the full Stripe Dashboard.", param="type")
    if kind == "account_onboarding" and not params.get("return_url"):
        raise InvalidRequest("Missing required param: return_url.", code="parameter_missing",
                             param="return_url")
    link_id = ctx.new_id("acctlink")
    record = {"id": link_id, "object": "_account_link", "account": account_id,
              "type": kind, "refresh_url": params.get("refresh_url"),
              "return_url": params.get("return_url"), "created": ctx.now(),
              "expires_at": ctx.now() + LINK_LIFETIME, "_used": False}
    ctx.store.put(ctx.account, record)
    return {"object": "account_link", "created": record["created"],
            "expires_at": record["expires_at"],
            "url": ctx.url("connect.stripe.com", f"/setup/e/{account_id}/{link_id}")}
