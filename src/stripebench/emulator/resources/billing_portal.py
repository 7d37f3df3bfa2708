"""Customer portal: configurations and sessions (the page is `web/billing_portal.py`)."""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..events import changed
from ..listing import paginate
from ..router import api
from ._common import merge_metadata

SESSION_TTL = 5 * 60


def _features(given: dict[str, Any] | None, base: dict[str, Any] | None = None
              ) -> dict[str, Any]:
    given = given or {}
    base = base or {}

    def part(name: str, default: dict[str, Any]) -> dict[str, Any]:
        return {**default, **(base.get(name) or {}), **(given.get(name) or {})}
    return {
        "customer_update": part("customer_update", {"allowed_updates": ["email", "address"],
                                                    "enabled": False}),
        "invoice_history": part("invoice_history", {"enabled": True}),
        "payment_method_update": part("payment_method_update", {"enabled": True,
                                                                "payment_method_configuration":
                                                                None}),
        "subscription_cancel": part("subscription_cancel", {
            "cancellation_reason": {"enabled": False, "options": []}, "enabled": True,
            "mode": "at_period_end", "proration_behavior": "none"}),
        "subscription_update": part("subscription_update", {
            "billing_cycle_anchor": None, "default_allowed_updates": ["price"],
            "enabled": False, "products": [], "proration_behavior": "create_prorations",
            "schedule_at_period_end": {"conditions": []}, "trial_update_behavior":
            "end_trial"}),
    }


def _configuration(ctx: Ctx, params: dict[str, Any], is_default: bool) -> dict[str, Any]:
    profile = params.get("business_profile") or {}
    config = ctx.new("billing_portal.configuration", "bpc", active=True,
                     business_profile={"headline": profile.get("headline"),
                                       "privacy_policy_url": profile.get("privacy_policy_url"),
                                       "terms_of_service_url": profile.get(
                                           "terms_of_service_url")},
                     default_return_url=params.get("default_return_url"),
                     features=_features(params.get("features")), is_default=is_default,
                     login_page={"enabled": False, "url": None},
                     metadata=merge_metadata({}, params.get("metadata") or {}),
                     name=params.get("name"), updated=ctx.now())
    ctx.put(config)
    ctx.emit("billing_portal.configuration.created", config)
    return config


def default_configuration(ctx: Ctx) -> dict[str, Any]:
    for config in ctx.account.iter_type("billing_portal.configuration"):
        if config["is_default"]:
            return config
    return _configuration(ctx, {}, True)


@api("POST", "/v1/billing_portal/configurations")
def create_configuration(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    is_default = not any(c["is_default"] for c in
                         ctx.account.iter_type("billing_portal.configuration"))
    return _configuration(ctx, params, is_default)


@api("GET", "/v1/billing_portal/configurations/{configuration}")
def retrieve_configuration(ctx: Ctx, params: dict[str, Any],
                           configuration: str) -> dict[str, Any]:
    return ctx.get(configuration, "billing_portal.configuration", kind="configuration")


@api("POST", "/v1/billing_portal/configurations/{configuration}")
def update_configuration(ctx: Ctx, params: dict[str, Any],
                         configuration: str) -> dict[str, Any]:
    config = ctx.get(configuration, "billing_portal.configuration", kind="configuration")
    before = dict(config)
    for name in ("active", "default_return_url", "name"):
        if name in params:
            config[name] = params[name]
    if "business_profile" in params:
        config["business_profile"] = {**config["business_profile"],
                                      **(params["business_profile"] or {})}
    if "features" in params:
        config["features"] = _features(params["features"], config["features"])
    if "metadata" in params:
        config["metadata"] = merge_metadata(config.get("metadata"), params["metadata"])
    config["updated"] = ctx.now()
    ctx.put(config)
    ctx.emit("billing_portal.configuration.updated", config, changed(before, config))
    return config


@api("GET", "/v1/billing_portal/configurations")
def list_configurations(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    def where(c: dict[str, Any]) -> bool:
        return all(name not in params or c[name] == params[name]
                   for name in ("active", "is_default"))
    return paginate(ctx, ctx.account.iter_type("billing_portal.configuration"), params,
                    "/v1/billing_portal/configurations", where)


@api("POST", "/v1/billing_portal/sessions")
def create_session(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    customer = ctx.get(params.get("customer"), "customer", "customer")
    if params.get("configuration"):
        config = ctx.get(params["configuration"], "billing_portal.configuration",
                         "configuration", kind="configuration")
        if not config["active"]:
            raise InvalidRequest("This configuration is inactive.", param="configuration")
    else:
        config = default_configuration(ctx)
    return_url = params.get("return_url") or config.get("default_return_url")
    flow = params.get("flow_data")
    if flow and flow.get("type") in ("subscription_cancel", "subscription_update",
                                     "subscription_update_confirm"):
        sub_id = (flow.get(flow["type"]) or {}).get("subscription")
        sub = ctx.get(sub_id, "subscription", f"flow_data[{flow['type']}][subscription]")
        if sub["customer"] != customer["id"]:
            raise InvalidRequest("The subscription does not belong to this customer.",
                                 param=f"flow_data[{flow['type']}][subscription]")
    session = ctx.new("billing_portal.session", "bps", configuration=config["id"],
                      customer=customer["id"], flow=flow, locale=params.get("locale"),
                      on_behalf_of=params.get("on_behalf_of"), return_url=return_url)
    session["url"] = ctx.url("billing.stripe.com", f"/p/session/{session['id']}")
    session["_expires_at"] = ctx.now() + SESSION_TTL
    ctx.put(session)
    return session
