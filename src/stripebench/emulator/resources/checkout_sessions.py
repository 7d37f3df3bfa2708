"""Checkout Sessions: create, retrieve, update, list, line items, expire; version changes.

Params are checked and normalised in `checkout_params`, priced in `checkout_totals`,
and completed (by the hosted / embedded page) in `checkout_complete`.
"""

from __future__ import annotations

import calendar
import copy
import datetime
from typing import Any

from ..billing import timing
from ..billing.creating import check_anchor
from ..context import Ctx
from ..errors import InvalidRequest
from ..events import changed
from ..listing import check_limit, paginate
from ..render import includable, public_copy
from ..router import api
from ..versions import older_than
from . import checkout_params as cp
from ._common import merge_metadata
from .checkout_breakdown import summary
from .checkout_totals import Totals, cart_items, compute
from .checkout_versions import ENDIVE

# ------------------------------------------------------------------ create

@api("POST", "/v1/checkout/sessions")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return build_session(ctx, params)


def build_session(ctx: Ctx, params: dict[str, Any], payment_link: str | None = None,
                  ) -> dict[str, Any]:
    """A new open session; `payment_link` when a Payment Link opens it."""
    mode = params.get("mode")
    if not mode:
        raise InvalidRequest("Missing required param: mode.", code="parameter_missing",
                             param="mode")
    ui_mode = params.get("ui_mode") or "hosted_page"
    cp.check_urls(params, ui_mode)
    cp.only_in(params, "payment_intent_data", mode, ("payment",))
    cp.only_in(params, "invoice_creation", mode, ("payment",))
    cp.only_in(params, "customer_creation", mode, ("payment", "setup"))
    cp.only_in(params, "subscription_data", mode, ("subscription",))
    cp.only_in(params, "setup_intent_data", mode, ("setup",))
    cp.only_in(params, "submit_type", mode, ("payment", "subscription"))
    cp.only_in(params, "shipping_options", mode, ("payment", "subscription"))
    cp.only_in(params, "optional_items", mode, ("payment", "subscription"))
    if params.get("submit_type") == "subscribe" and mode != "subscription":
        raise InvalidRequest("`submit_type=subscribe` can only be used in `subscription` mode.",
                             param="submit_type")
    if mode == "subscription" and params.get("submit_type") not in (None, "auto", "subscribe"):
        raise InvalidRequest("In `subscription` mode, `submit_type` can only be `auto` or "
                             "`subscribe`.", param="submit_type")
    cp.exclusive(params, "customer", "customer_email")
    cp.exclusive(params, "allow_promotion_codes", "discounts")
    cp.exclusive(params, "allowed_payment_method_types", "excluded_payment_method_types")
    if params.get("customer_update") and not params.get("customer"):
        raise InvalidRequest("`customer_update` can only be used with `customer`.",
                             param="customer_update")
    if (params.get("after_expiration") or {}).get("recovery", {}).get("enabled") and (
            ui_mode != "hosted_page"):
        raise InvalidRequest("Recovery is only available for hosted Checkout Sessions.",
                             param="after_expiration[recovery][enabled]")
    raw_items = params.get("line_items") or []
    if mode in ("payment", "subscription") and not raw_items:
        raise InvalidRequest(f"`line_items` is required in `{mode}` mode.",
                             code="parameter_missing", param="line_items")
    if mode == "setup" and raw_items:
        raise InvalidRequest("You cannot pass `line_items` in `setup` mode.", param="line_items")
    if len(raw_items) > cp.MAX_LINE_ITEMS[mode]:
        raise InvalidRequest(f"You can pass up to {cp.MAX_LINE_ITEMS[mode]} line items in "
                             f"`{mode}` mode.", param="line_items")
    customer = None
    if params.get("customer"):
        customer = ctx.get(params["customer"], "customer", "customer")
    billing_now = timing.for_customer(ctx, customer).now()  # the subscription's clock
    subscription_data = _subscription_data(ctx, params.get("subscription_data"), billing_now)
    expires_at = cp.check_expiry(ctx, params)
    items = cp.build_items(ctx, raw_items, mode, payment_link)
    if mode == "subscription" and subscription_data.get("billing_cycle_anchor") is not None:
        check_anchor(int(subscription_data["billing_cycle_anchor"]), billing_now, None,
                     [ctx.get(i["price"], "price") for i in items],
                     "subscription_data[billing_cycle_anchor]")
    optional_public, optional_private = cp.build_optional_items(
        ctx, params.get("optional_items"), mode)
    currency = cp.session_currency(ctx, params, items + optional_private)
    shipping_options = cp.build_shipping_options(ctx, params.get("shipping_options"))
    if shipping_options and not params.get("shipping_address_collection"):
        pass  # Stripe allows shipping options without address collection (e.g. pickup)
    session_id = ctx.new_id("cs_test")
    embedded = ui_mode != "hosted_page"
    allowed = params.get("allowed_payment_method_types")
    session = ctx.new(
        "checkout.session", "cs_test", id=session_id,
        adaptive_pricing={"enabled": bool((params.get("adaptive_pricing") or {}).get("enabled"))},
        after_expiration=_after_expiration(params.get("after_expiration")),
        allow_promotion_codes=params.get("allow_promotion_codes"),
        allowed_payment_method_types=allowed,
        automatic_tax={"enabled": bool((params.get("automatic_tax") or {}).get("enabled")),
                       "liability": ({"account": None, "type": "self"}
                                     if (params.get("automatic_tax") or {}).get("enabled")
                                     else None),
                       "provider": "stripe" if (params.get("automatic_tax") or {}).get(
                           "enabled") else None,
                       "status": "requires_location_inputs" if (
                           params.get("automatic_tax") or {}).get("enabled") else None},
        billing_address_collection=params.get("billing_address_collection"),
        branding_settings=_branding(params.get("branding_settings")),
        cancel_url=params.get("cancel_url"),
        client_reference_id=params.get("client_reference_id"),
        client_secret=ctx.secret_for(session_id) if embedded else None,
        collected_information=None,
        consent=None,
        consent_collection=_consent_collection(params.get("consent_collection")),
        currency=currency,
        custom_fields=cp.build_custom_fields(params.get("custom_fields")),
        custom_text=cp.build_custom_text(params.get("custom_text")),
        customer=customer["id"] if customer else None,
        customer_creation=(params.get("customer_creation") or "if_required")
        if mode in ("payment", "setup") else None,
        customer_details=None,
        customer_email=params.get("customer_email"),
        discounts=cp.build_discounts(ctx, params.get("discounts")),
        excluded_payment_method_types=params.get("excluded_payment_method_types"),
        expires_at=expires_at,
        integration_identifier=params.get("integration_identifier"),
        invoice=None,
        invoice_creation=_invoice_creation(params.get("invoice_creation"), mode),
        locale=params.get("locale"),
        managed_payments=params.get("managed_payments"),
        metadata=merge_metadata({}, params.get("metadata") or {}),
        mode=mode,
        name_collection=_name_collection(params.get("name_collection")),
        optional_items=optional_public,
        origin_context=params.get("origin_context"),
        payment_intent=None, payment_link=payment_link,
        payment_method_collection=(params.get("payment_method_collection") or "always")
        if mode in ("subscription", "setup") else params.get("payment_method_collection"),
        payment_method_configuration_details=None,
        payment_method_options=params.get("payment_method_options") or {},
        payment_method_types=cp.offered_types(allowed, currency, mode,
                                              older_than(ctx.version, ENDIVE)),
        payment_status="no_payment_required" if mode == "setup" else "unpaid",
        permissions=params.get("permissions"),
        phone_number_collection={"enabled": bool(
            (params.get("phone_number_collection") or {}).get("enabled"))},
        recovered_from=None,
        redirect_on_completion=(params.get("redirect_on_completion") or "always")
        if embedded else None,
        return_url=params.get("return_url"),
        saved_payment_method_options=_saved_options(params.get("saved_payment_method_options"),
                                                    customer),
        setup_intent=None,
        shipping_address_collection=params.get("shipping_address_collection"),
        shipping_cost=None,
        shipping_options=shipping_options,
        status="open",
        submit_type=params.get("submit_type") or ("auto" if mode != "setup" else None),
        subscription=None,
        success_url=params.get("success_url"),
        tax_id_collection={"enabled": bool((params.get("tax_id_collection") or {}).get("enabled")),
                           "required": (params.get("tax_id_collection") or {}).get(
                               "required", "never")},
        total_details=None,
        ui_mode=ui_mode,
        url=ctx.url("checkout.stripe.com", f"/c/pay/{session_id}") if not embedded else None,
        wallet_options=params.get("wallet_options"),
    )
    session["_items"] = items + optional_private
    session["_create_params"] = copy.deepcopy(params)  # for after_expiration recovery
    session["_subscription_data"] = subscription_data
    session["_payment_intent_data"] = params.get("payment_intent_data") or {}
    session["_setup_intent_data"] = params.get("setup_intent_data") or {}
    session["_customer_update"] = params.get("customer_update") or {}
    session["_payment_method_data"] = params.get("payment_method_data") or {}
    if shipping_options:
        session["shipping_cost"] = {"amount_subtotal": 0, "amount_tax": 0, "amount_total": 0,
                                    "shipping_rate": shipping_options[0]["shipping_rate"],
                                    "taxes": []}
    if customer is not None and customer.get("email"):
        session["_prefill_email"] = customer["email"]
    refresh_totals(ctx, session)
    ctx.put(session)
    return session


def _subscription_data(ctx: Ctx, data: dict[str, Any] | None, now: int) -> dict[str, Any]:
    """Checked against `now` on the clock the subscription will live on (the customer's
    test clock, if any), the same clock the first invoice is prorated on."""
    data = dict(data or {})
    days = data.get("trial_period_days")
    if days is not None and not 1 <= days <= 730:
        raise InvalidRequest("trial_period_days must be between 1 and 730.",
                             param="subscription_data[trial_period_days]")
    if days is not None and data.get("trial_end") is not None:
        raise InvalidRequest("You may only specify one of these parameters: trial_end, "
                             "trial_period_days.", param="subscription_data[trial_end]")
    trial_end = data.get("trial_end")
    if trial_end is not None and trial_end < now + 48 * 3600:
        raise InvalidRequest("The `trial_end` date has to be at least 2 days in the future.",
                             param="subscription_data[trial_end]")
    config = data.pop("billing_cycle_anchor_config", None)
    if config is not None:
        if data.get("billing_cycle_anchor") is not None or days is not None or (
                trial_end is not None):
            raise InvalidRequest("`billing_cycle_anchor_config` cannot be combined with "
                                 "`billing_cycle_anchor` or a trial.",
                                 param="subscription_data[billing_cycle_anchor_config]")
        data["billing_cycle_anchor"] = anchor_from_config(now, config)
    anchor = data.get("billing_cycle_anchor")
    if anchor is not None and anchor <= now:
        raise InvalidRequest("`billing_cycle_anchor` must be in the future.",
                             param="subscription_data[billing_cycle_anchor]")
    if anchor is not None and (days is not None or trial_end is not None):
        raise InvalidRequest("You cannot combine `billing_cycle_anchor` with a trial in "
                             "Checkout.", param="subscription_data[billing_cycle_anchor]")
    if data.get("proration_behavior") and anchor is None:
        raise InvalidRequest("`proration_behavior` can only be set together with "
                             "`billing_cycle_anchor`.",
                             param="subscription_data[proration_behavior]")
    for index, rate in enumerate(data.get("default_tax_rates") or []):
        ctx.get(rate, "tax_rate", f"subscription_data[default_tax_rates][{index}]")
    return data


def anchor_from_config(now: int, config: dict[str, Any]) -> int:
    """The first moment after `now` matching day_of_month (and month / time, if given)."""
    param = "subscription_data[billing_cycle_anchor_config]"
    day = int(config["day_of_month"])
    limits = {"day_of_month": (1, 31), "month": (1, 12), "hour": (0, 23), "minute": (0, 59),
              "second": (0, 59)}
    for name, (low, high) in limits.items():
        value = config.get(name)
        if value is not None and not low <= int(value) <= high:
            raise InvalidRequest(f"{name} must be between {low} and {high}.",
                                 param=f"{param}[{name}]")
    start = datetime.datetime.fromtimestamp(now, datetime.UTC)
    for offset in range(0, 26):
        year, month = divmod(start.month - 1 + offset, 12)
        year, month = start.year + year, month + 1
        if config.get("month") is not None and month != int(config["month"]):
            continue
        last = calendar.monthrange(year, month)[1]
        moment = datetime.datetime(year, month, min(day, last), int(config.get("hour") or 0),
                                   int(config.get("minute") or 0),
                                   int(config.get("second") or 0), tzinfo=datetime.UTC)
        if moment.timestamp() > now:
            return int(moment.timestamp())
    raise InvalidRequest("Could not place the billing cycle anchor.", param=param)


def _after_expiration(spec: dict[str, Any] | None) -> dict[str, Any] | None:
    recovery = (spec or {}).get("recovery")
    if not recovery:
        return None
    return {"recovery": {"allow_promotion_codes": recovery.get("allow_promotion_codes", False),
                         "enabled": recovery["enabled"], "expires_at": None, "url": None}}


def _branding(spec: dict[str, Any] | None) -> dict[str, Any] | None:
    if not spec:
        return None
    for name in ("background_color", "button_color"):
        value = spec.get(name)
        if value and not (value.startswith("#") and len(value) in (4, 7)):
            raise InvalidRequest(f"Invalid hex color for branding_settings[{name}]: {value}",
                                 param=f"branding_settings[{name}]")

    def asset(kind: str) -> dict[str, Any] | None:
        value = spec.get(kind)
        if not value:
            return None
        return {"file": value.get("file"), "type": value["type"], "url": value.get("url")}
    return {"background_color": spec.get("background_color") or "#ffffff",
            "border_style": spec.get("border_style") or "rounded",
            "button_color": spec.get("button_color") or "#0074d4",
            "display_name": spec.get("display_name") or "",
            "font_family": spec.get("font_family") or "default",
            "icon": asset("icon"), "logo": asset("logo")}


def _consent_collection(spec: dict[str, Any] | None) -> dict[str, Any] | None:
    if not spec:
        return None
    reuse = spec.get("payment_method_reuse_agreement")
    return {"payment_method_reuse_agreement": {"position": reuse["position"]} if reuse else None,
            "promotions": spec.get("promotions"),
            "terms_of_service": spec.get("terms_of_service")}


def _invoice_creation(spec: dict[str, Any] | None, mode: str) -> dict[str, Any] | None:
    if mode != "payment":
        return None
    spec = spec or {}
    data = spec.get("invoice_data") or {}
    return {"enabled": bool(spec.get("enabled")),
            "invoice_data": {"account_tax_ids": data.get("account_tax_ids"),
                             "custom_fields": data.get("custom_fields"),
                             "description": data.get("description"),
                             "footer": data.get("footer"), "issuer": data.get("issuer"),
                             "metadata": data.get("metadata") or {},
                             "rendering_options": data.get("rendering_options")}}


def _name_collection(spec: dict[str, Any] | None) -> dict[str, Any] | None:
    if not spec:
        return None
    return {kind: ({"enabled": value["enabled"], "optional": value.get("optional", False)}
                   if value else None)
            for kind, value in (("business", spec.get("business")),
                                ("individual", spec.get("individual")))}


def _saved_options(spec: dict[str, Any] | None,
                   customer: dict[str, Any] | None) -> dict[str, Any] | None:
    if not spec:
        return None
    return {"allow_redisplay_filters": spec.get("allow_redisplay_filters") or ["always"],
            "payment_method_remove": spec.get("payment_method_remove"),
            "payment_method_save": spec.get("payment_method_save")}


# ------------------------------------------------------------------ totals on the session

def refresh_totals(ctx: Ctx, session: dict[str, Any], country: str | None = None,
                   state: str | None = None) -> Totals:
    """Recompute the stored amounts for the current cart (and tax address, if known)."""
    totals = compute(ctx, session, country, state)
    if session["mode"] == "setup":
        session["amount_subtotal"] = None
        session["amount_total"] = None
        session["total_details"] = None
        return totals
    session["amount_subtotal"] = totals.amount_subtotal
    session["amount_total"] = totals.amount_total
    session["total_details"] = {"amount_discount": totals.amount_discount,
                                "amount_shipping": totals.amount_shipping,
                                "amount_tax": totals.amount_tax, "breakdown": None,
                                "_breakdown": summary(totals, session)}
    if session.get("shipping_cost"):
        tax = totals.shipping_tax
        inclusive = (ctx.maybe(session["shipping_cost"]["shipping_rate"], "shipping_rate")
                     or {}).get("tax_behavior") == "inclusive"
        session["shipping_cost"].update({
            "amount_subtotal": totals.amount_shipping - (tax if inclusive else 0),
            "amount_tax": tax,
            "amount_total": totals.amount_shipping + (0 if inclusive else tax)})
    session["_last_totals"] = {"lines": {ln.item["id"]: {
        "amount_subtotal": ln.amount_subtotal, "amount_discount": ln.amount_discount,
        "amount_tax": ln.amount_tax, "amount_total": ln.amount_total}
        for ln in totals.lines}}
    return totals


def line_item_objects(ctx: Ctx, session: dict[str, Any]) -> list[dict[str, Any]]:
    stored = (session.get("_last_totals") or {}).get("lines", {})
    out = []
    for item in cart_items(session):
        price = ctx.account.objects.get(item["price"]) or {}
        product = ctx.maybe(price.get("product"), "product") or {}
        amounts = stored.get(item["id"], {})
        out.append({
            "id": item["id"], "object": "item",
            "adjustable_quantity": item.get("adjustable_quantity"),
            "amount_discount": amounts.get("amount_discount", 0),
            "amount_subtotal": amounts.get("amount_subtotal", 0),
            "amount_tax": amounts.get("amount_tax", 0),
            "amount_total": amounts.get("amount_total", 0),
            "currency": session.get("currency"),
            "description": product.get("name"),
            "metadata": item.get("metadata") or {},
            "price": public_copy(price), "quantity": item.get("quantity")})
    return out


@includable("checkout.session", "line_items")
def include_line_items(ctx: Ctx, session: dict[str, Any]) -> dict[str, Any]:
    data = line_item_objects(ctx, session)
    return {"object": "list", "data": data[:10], "has_more": len(data) > 10,
            "url": f"/v1/checkout/sessions/{session['id']}/line_items"}


# ------------------------------------------------------------------ read, update, expire

def expire_if_due(ctx: Ctx, session: dict[str, Any]) -> dict[str, Any]:
    if session["status"] == "open" and ctx.now() >= session["expires_at"]:
        expire_session(ctx, session)
    return session


def load(ctx: Ctx, session_id: str) -> dict[str, Any]:
    session = ctx.get(session_id, "checkout.session", "session", kind="checkout.session")
    return expire_if_due(ctx, session)


@api("GET", "/v1/checkout/sessions/{session}")
def retrieve(ctx: Ctx, params: dict[str, Any], session: str) -> dict[str, Any]:
    return load(ctx, session)


@api("POST", "/v1/checkout/sessions/{session}")
def update(ctx: Ctx, params: dict[str, Any], session: str) -> dict[str, Any]:
    obj = load(ctx, session)
    if obj["status"] != "open":
        raise InvalidRequest(f"This Checkout Session is {obj['status']} and can no longer be "
                             "updated.", param="session")
    before = dict(obj)
    if "metadata" in params:
        obj["metadata"] = merge_metadata(obj.get("metadata"), params["metadata"])
    if params.get("shipping_options") is not None:
        options = cp.build_shipping_options(ctx, params["shipping_options"])
        obj["shipping_options"] = options
        obj["shipping_cost"] = ({"amount_subtotal": 0, "amount_tax": 0, "amount_total": 0,
                                 "shipping_rate": options[0]["shipping_rate"], "taxes": []}
                                if options else None)
    details = (params.get("collected_information") or {}).get("shipping_details")
    if details:
        obj["collected_information"] = {**(obj.get("collected_information") or {
            "business_name": None, "individual_name": None}),
            "shipping_details": {"address": _address(details.get("address")),
                                 "name": details.get("name")}}
    if params.get("line_items") is not None:
        if obj["ui_mode"] not in cp.ELEMENTS:
            raise InvalidRequest("Line items can only be updated on Checkout Sessions with "
                                 "`ui_mode=elements`.", param="line_items")
        obj["_items"] = cp.build_items(ctx, params["line_items"], obj["mode"]) + [
            i for i in obj["_items"] if i.get("optional")]
    refresh_totals(ctx, obj)
    ctx.put(obj)
    if changed(before, obj):
        pass  # Stripe sends no event for session updates
    return obj


def _address(raw: dict[str, Any] | None) -> dict[str, Any]:
    raw = raw or {}
    return {k: raw.get(k) for k in ("city", "country", "line1", "line2", "postal_code", "state")}


@api("GET", "/v1/checkout/sessions")
def list_sessions(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    email = (params.get("customer_details") or {}).get("email")

    def where(s: dict[str, Any]) -> bool:
        expire_if_due(ctx, s)
        for name in ("payment_intent", "customer", "status", "subscription", "payment_link"):
            if params.get(name) and s.get(name) != params[name]:
                return False
        return not email or (s.get("customer_details") or {}).get("email") == email
    return paginate(ctx, ctx.account.iter_type("checkout.session"), params,
                    "/v1/checkout/sessions", where)


@api("GET", "/v1/checkout/sessions/{session}/line_items")
def list_line_items(ctx: Ctx, params: dict[str, Any], session: str) -> dict[str, Any]:
    obj = load(ctx, session)
    items = line_item_objects(ctx, obj)
    limit = check_limit(params)
    ids = [i["id"] for i in items]
    start = 0
    if params.get("starting_after"):
        if params["starting_after"] not in ids:
            raise InvalidRequest(f"No such line item: '{params['starting_after']}'",
                                 param="starting_after", status=404, code="resource_missing")
        start = ids.index(params["starting_after"]) + 1
    elif params.get("ending_before"):
        if params["ending_before"] not in ids:
            raise InvalidRequest(f"No such line item: '{params['ending_before']}'",
                                 param="ending_before", status=404, code="resource_missing")
        end = ids.index(params["ending_before"])
        start = max(0, end - limit)
        page = items[start:end]
        return {"object": "list", "data": page, "has_more": start > 0,
                "url": f"/v1/checkout/sessions/{session}/line_items"}
    page = items[start:start + limit]
    return {"object": "list", "data": page, "has_more": start + limit < len(items),
            "url": f"/v1/checkout/sessions/{session}/line_items"}


def expire_session(ctx: Ctx, session: dict[str, Any]) -> None:
    session["status"] = "expired"
    session["url"] = None  # only an open session has one
    recovery = (session.get("after_expiration") or {}).get("recovery")
    if recovery and recovery.get("enabled"):
        recovery["expires_at"] = ctx.now() + 30 * 86400
        recovery["url"] = ctx.url("checkout.stripe.com", f"/c/pay/{session['id']}/recover")
    ctx.put(session)
    ctx.emit("checkout.session.expired", session)


@api("POST", "/v1/checkout/sessions/{session}/expire")
def expire(ctx: Ctx, params: dict[str, Any], session: str) -> dict[str, Any]:
    obj = load(ctx, session)
    if obj["status"] != "open":
        raise InvalidRequest("Only Checkout Sessions with a status of `open` can be expired.",
                             param="session")
    expire_session(ctx, obj)
    return obj
