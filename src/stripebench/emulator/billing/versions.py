"""Billing's API version changes (objects are stored in the newest shape).

Before 2025-09-30.clover a Discount embeds its `coupon` (clover moved it to `source.coupon`).
Before 2025-03-31.basil: subscriptions carry `current_period_start/end` (items do not);
invoices carry `paid`, `paid_out_of_band`, `payment_intent`, `charge`, `subscription`
(no `parent`, `payments`, `confirmation_secret`); lines and invoice items name their
`price` (a full Price) instead of `pricing.price_details`; PaymentIntents and Charges
name their `invoice`; lists accept `include[]=total_count`; `GET /v1/invoices/upcoming`
exists. Values are read from the stored objects, so every version tells the same story.
"""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..render import includable, public_copy
from ..versions import older_than, request_change, response_change
from . import invoicing, items

BASIL = "2025-03-31.basil"
PHASE_DURATION = "2025-07-30.basil"
CLOVER = "2025-09-30.clover"
ENDIVE = "2026-09-30.endive"
INCLUDE_FLAG = "include_total_count"
PENDING_ITEMS_EXCLUDED = "2022-08-01"
REQUIRE_PENDING_FLAG = "require_pending_items"


# ------------------------------------------------------------------ subscriptions

@response_change(BASIL, "subscription")
def subscription_periods(ctx: Ctx, obj: dict[str, Any]) -> None:
    stored = ctx.maybe(obj.get("id"), "subscription") or {}
    period = stored.get("_period") or [None, None]
    obj["current_period_start"], obj["current_period_end"] = period
    obj.pop("billing_mode", None)
    if "discounts" in obj:
        first = (stored.get("discounts") or [None])[0]
        discount = ctx.maybe(first, "discount")
        obj["discount"] = _discount_view(ctx, discount) if discount else None


@response_change(BASIL, "event")
def subscription_event_periods(ctx: Ctx, obj: dict[str, Any]) -> None:
    """Before basil a subscription event's `previous_attributes` name the old
    `current_period_start/end`; from basil the change shows in `items` (the stored shape,
    read back from the stored event since the rendered items lost their periods)."""
    data = obj.get("data") or {}
    previous = data.get("previous_attributes")
    if not previous or "items" not in previous or \
            (data.get("object") or {}).get("object") != "subscription":
        return
    stored = ctx.maybe(obj.get("id"), "event") or {}
    stored_data = stored.get("data") or {}
    old_items = ((stored_data.get("previous_attributes") or {}).get("items") or {}).get(
        "data") or []
    new_items = ((stored_data.get("object") or {}).get("items") or {}).get("data") or []
    if not old_items or not new_items:
        return
    periods = ("current_period_start", "current_period_end")
    if [old_items[0].get(k) for k in periods] != [new_items[0].get(k) for k in periods]:
        for key in periods:
            previous[key] = old_items[0].get(key)

    def without_periods(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k not in periods} for e in entries]
    if without_periods(old_items) == without_periods(new_items):
        previous.pop("items")


@response_change(BASIL, "subscription_item")
def item_periods(ctx: Ctx, obj: dict[str, Any]) -> None:
    obj.pop("current_period_start", None)
    obj.pop("current_period_end", None)


def _discount_view(ctx: Ctx, discount: dict[str, Any]) -> dict[str, Any]:
    view = public_copy(discount)
    coupon = ctx.maybe((discount.get("source") or {}).get("coupon"), "coupon")
    view["coupon"] = public_copy(coupon) if coupon else None
    view.pop("source", None)  # a pre-basil Discount names its coupon, not a source
    return view


# ------------------------------------------------------------------ invoices

def _default_record(ctx: Ctx, stored: dict[str, Any]) -> dict[str, Any] | None:
    records = [ctx.maybe(r, "invoice_payment") for r in stored.get("_payments", [])]
    paid: list[dict[str, Any]] = [r for r in records if r and r["status"] == "paid"]
    defaults: list[dict[str, Any]] = [r for r in records if r and r["is_default"]]
    chosen = paid or defaults
    return chosen[0] if chosen else None


@response_change(BASIL, "invoice")
def invoice_payment_fields(ctx: Ctx, obj: dict[str, Any]) -> None:
    stored = ctx.maybe(obj.get("id"), "invoice") or {}
    record = _default_record(ctx, stored) if stored else None
    intent_id = record["payment"]["payment_intent"] if record else None
    intent = ctx.maybe(intent_id, "payment_intent") or {}
    obj["paid"] = obj.get("status") == "paid"
    obj["paid_out_of_band"] = bool(stored.get("_paid_out_of_band"))
    if not isinstance(obj.get("payment_intent"), dict):
        obj["payment_intent"] = intent_id
    if not isinstance(obj.get("charge"), dict):
        obj["charge"] = intent.get("latest_charge") if intent.get("status") == "succeeded" \
            else None
    if not isinstance(obj.get("subscription"), dict):
        obj["subscription"] = invoicing.subscription_of(stored) if stored else None
    parent = (stored.get("parent") or {}).get("subscription_details") or {}
    obj["subscription_details"] = {"metadata": parent.get("metadata")} if parent else None
    obj["discount"] = None
    for name in ("parent", "payments", "confirmation_secret"):
        obj.pop(name, None)


def _old_only(ctx: Ctx, field: str) -> None:
    if not older_than(ctx.version, BASIL):
        raise InvalidRequest(f"This property cannot be expanded ({field}).", param="expand")


@includable("invoice", "payment_intent")
def invoice_intent(ctx: Ctx, inv: dict[str, Any]) -> dict[str, Any] | None:
    _old_only(ctx, "payment_intent")
    record = _default_record(ctx, inv)
    return ctx.maybe(record["payment"]["payment_intent"], "payment_intent") if record else None


@includable("invoice", "charge")
def invoice_charge(ctx: Ctx, inv: dict[str, Any]) -> dict[str, Any] | None:
    _old_only(ctx, "charge")
    intent = invoice_intent(ctx, inv) or {}
    return ctx.maybe(intent.get("latest_charge"), "charge")


@includable("invoice", "subscription")
def invoice_subscription(ctx: Ctx, inv: dict[str, Any]) -> dict[str, Any] | None:
    _old_only(ctx, "subscription")
    return ctx.maybe(invoicing.subscription_of(inv), "subscription")


def _old_price_fields(ctx: Ctx, obj: dict[str, Any], parent_key: str) -> None:
    pricing = obj.pop("pricing", None) or {}
    details = pricing.get("price_details") or {}
    price = ctx.maybe(details.get("price"), "price")
    obj["price"] = public_copy(price) if price else None
    obj["plan"] = items.plan_view(price) if price else None
    parent = obj.pop("parent", None) or {}
    info = parent.get(parent_key) or {}
    obj["proration"] = bool(info.get("proration", obj.get("proration", False)))
    obj["subscription"] = info.get("subscription", obj.get("subscription"))
    obj["subscription_item"] = info.get("subscription_item")
    decimal = pricing.get("unit_amount_decimal")
    obj["unit_amount_decimal"] = decimal
    obj["unit_amount"] = int(float(decimal)) if decimal is not None else None


@response_change(BASIL, "line_item")
def line_price(ctx: Ctx, obj: dict[str, Any]) -> None:
    parent = obj.get("parent") or {}
    kind = parent.get("type")
    invoice_item = ((parent.get("invoice_item_details") or {}).get("invoice_item"))
    key = "invoice_item_details" if kind == "invoice_item_details" \
        else "subscription_item_details"
    _old_price_fields(ctx, obj, key)
    obj["type"] = "invoiceitem" if kind == "invoice_item_details" else "subscription"
    obj["invoice_item"] = invoice_item
    obj["proration_details"] = {"credited_items": None}
    obj["unit_amount_excluding_tax"] = obj.pop("unit_amount_decimal", None)
    obj.pop("unit_amount", None)
    obj["discount_amounts"] = obj.get("discount_amounts") or []


@response_change(BASIL, "invoiceitem")
def invoice_item_price(ctx: Ctx, obj: dict[str, Any]) -> None:
    _old_price_fields(ctx, obj, "subscription_details")


@response_change(BASIL, "payment_intent")
def intent_invoice(ctx: Ctx, obj: dict[str, Any]) -> None:
    stored = ctx.maybe(obj.get("id"), "payment_intent") or {}
    if not isinstance(obj.get("invoice"), dict):
        obj["invoice"] = stored.get("_invoice")


@response_change(BASIL, "charge")
def charge_invoice(ctx: Ctx, obj: dict[str, Any]) -> None:
    intent = obj.get("payment_intent")
    intent_id = intent.get("id") if isinstance(intent, dict) else intent
    stored = ctx.maybe(intent_id, "payment_intent") or {}
    if not isinstance(obj.get("invoice"), dict):
        obj["invoice"] = stored.get("_invoice")


# Discounts gained `source` (and lost the embedded `coupon`) at clover, not basil:
# https://docs.stripe.com/changelog/clover/2025-09-30/add-discount-source-property
@response_change(CLOVER, "discount")
def discount_coupon(ctx: Ctx, obj: dict[str, Any]) -> None:
    source = obj.pop("source", None) or {}
    coupon = ctx.maybe(source.get("coupon"), "coupon")
    obj["coupon"] = public_copy(coupon) if coupon else None


# ------------------------------------------------------------------ requests

@request_change(BASIL)
def old_billing_params(ctx: Ctx, method: str, template: str,
                       params: dict[str, Any]) -> dict[str, Any]:
    """`include[]=total_count` on lists, `price`/`unit_amount` on invoice items."""
    if method == "GET" and "include" in params:
        params = dict(params)
        wanted = params.pop("include")
        wanted = wanted if isinstance(wanted, list) else [wanted]
        unknown = [w for w in wanted if w != "total_count"]
        if unknown:
            raise InvalidRequest(f"Invalid include: {unknown[0]}", param="include")
        setattr(ctx, INCLUDE_FLAG, True)
    if method == "POST" and template in ("/v1/invoiceitems", "/v1/invoiceitems/{invoiceitem}"):
        params = dict(params)
        if "price" in params:
            params["pricing"] = {"price": params.pop("price")}
        if "unit_amount" in params:
            params["unit_amount_decimal"] = str(params.pop("unit_amount"))
    return params


ANCHOR_KEYWORD_ROUTES = ("/v1/subscriptions/{subscription_exposed_id}",
                         "/v1/subscriptions/{subscription}/resume")


@request_change(ENDIVE)
def anchor_keyword(ctx: Ctx, method: str, template: str,
                   params: dict[str, Any]) -> dict[str, Any]:
    """Before 2026-09-30.endive `billing_cycle_anchor` on subscription update and resume
    is the string now | unchanged, and on create_preview's subscription_details now |
    unchanged | a timestamp; endive writes all of them as an object with a `type`
    (the object form is refused before it, the string form after)."""
    if method != "POST":
        return params
    if template in ANCHOR_KEYWORD_ROUTES and params.get("billing_cycle_anchor") is not None:
        params = dict(params)
        params["billing_cycle_anchor"] = _anchor_object(
            params["billing_cycle_anchor"], "billing_cycle_anchor", timestamps=False)
    details = params.get("subscription_details")
    if template == "/v1/invoices/create_preview" and isinstance(details, dict) and \
            details.get("billing_cycle_anchor") is not None:
        params = {**params, "subscription_details": {**details, "billing_cycle_anchor": (
            _anchor_object(details["billing_cycle_anchor"],
                           "subscription_details[billing_cycle_anchor]", timestamps=True))}}
    return params


def _anchor_object(value: Any, param: str, timestamps: bool) -> dict[str, Any]:
    if isinstance(value, str) and value in ("now", "unchanged"):
        return {"type": value}
    if timestamps and str(value).isdigit():
        return {"type": "timestamp", "timestamp": int(value)}
    allowed = "now, unchanged or a timestamp" if timestamps else "now or unchanged"
    raise InvalidRequest(f"Invalid {param}: must be {allowed} in this API version.",
                         param=param)


@request_change(PENDING_ITEMS_EXCLUDED)
def pending_items_required(ctx: Ctx, method: str, template: str,
                           params: dict[str, Any]) -> dict[str, Any]:
    """Before 2022-08-01 a new invoice takes the customer's pending invoice items unless
    told otherwise, and needs at least one (`include_and_require`, the old default)."""
    if method != "POST" or template != "/v1/invoices":
        return params
    params = dict(params)
    if params.get("pending_invoice_items_behavior", "include_and_require") == \
            "include_and_require":
        params["pending_invoice_items_behavior"] = "include"
        setattr(ctx, REQUIRE_PENDING_FLAG, True)
    return params


def forbid_total_count(ctx: Ctx, method: str, template: str, params: dict[str, Any]) -> None:
    """From basil on, asking a list for `total_count` (`include[]` / `exclude[]` /
    `expand[]`) is a 400 `property_forbidden`; search results are not lists and keep their
    expandable `total_count`.
    https://docs.stripe.com/changelog/basil/2025-03-31/deprecate-total-count-expansion"""
    if method != "GET" or older_than(ctx.version, BASIL) or template.endswith("/search"):
        return
    for name in ("include", "exclude", "expand"):
        asked = params.get(name)
        values = asked.values() if isinstance(asked, dict) else \
            asked if isinstance(asked, list) else [asked]
        if "total_count" in values:
            raise InvalidRequest(
                f"You cannot request total_count on lists in API version {ctx.version}: it "
                "was removed in 2025-03-31.basil. Page with `has_more` and `starting_after` "
                "instead.", code="property_forbidden", param=name)


def requires_pending_items(ctx: Ctx) -> bool:
    return bool(getattr(ctx, REQUIRE_PENDING_FLAG, False))


def wants_total_count(ctx: Ctx) -> bool:
    return bool(getattr(ctx, INCLUDE_FLAG, False))


def _phase_list(params: dict[str, Any]) -> list[Any]:
    phases = params["phases"]
    return list(phases.values()) if isinstance(phases, dict) else list(phases)


@request_change(PHASE_DURATION)
def phase_duration_unknown(ctx: Ctx, method: str, template: str,
                           params: dict[str, Any]) -> dict[str, Any]:
    """Phases gained `duration` in 2025-07-30.basil; earlier versions know only
    `iterations` and `end_date`, so a `duration` there is an unknown parameter."""
    if method != "POST" or not template.startswith("/v1/subscription_schedules") or \
            not isinstance(params.get("phases"), (list, dict)):
        return params
    for n, phase in enumerate(_phase_list(params)):
        if isinstance(phase, dict) and "duration" in phase:
            raise InvalidRequest(f"Received unknown parameter: phases[{n}][duration]",
                                 code="parameter_unknown", param=f"phases[{n}][duration]")
    return params


@request_change(CLOVER)
def phase_iterations(ctx: Ctx, method: str, template: str,
                     params: dict[str, Any]) -> dict[str, Any]:
    """Before 2025-09-30.clover phases may be sized with `iterations` (billing periods of
    the phase's first price); from clover on only `duration` (iterations is unknown)."""
    if method != "POST" or not template.startswith("/v1/subscription_schedules") or \
            not isinstance(params.get("phases"), (list, dict)):
        return params
    converted = []
    for phase in _phase_list(params):
        phase = dict(phase) if isinstance(phase, dict) else phase
        if isinstance(phase, dict) and "iterations" in phase:
            count = int(phase.pop("iterations"))
            first = phase.get("items") or []
            first = (list(first.values()) if isinstance(first, dict) else first)[:1]
            price = ctx.maybe((first[0] if first else {}).get("price"), "price") or {}
            recurring = price.get("recurring") or {"interval": "month", "interval_count": 1}
            phase["duration"] = {"interval": recurring["interval"], "interval_count": str(
                count * int(recurring.get("interval_count") or 1))}
        converted.append(phase)
    return {**params, "phases": converted}



@response_change(ENDIVE, "invoice")
def no_status_details(ctx: Ctx, obj: dict[str, Any]) -> None:
    """`status_details` (why an invoice is uncollectible) arrived with endive."""
    obj.pop("status_details", None)
