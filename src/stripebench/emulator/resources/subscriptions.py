"""Subscriptions: create, retrieve, update (prorations), cancel, resume, list, search.

`create_subscription(ctx, params)` is the engine entry point other families use
(Checkout's mode=subscription sessions call it with the same params as
`POST /v1/subscriptions`).
"""

from __future__ import annotations

from typing import Any

from ..billing import collect, invoicing, items, subscribing, taxes, timing
from ..billing import versions as _billing_versions  # noqa: F401 - registers version changes
from ..billing.discounts import make_discounts
from ..context import Ctx
from ..errors import CardError, InvalidRequest, Unsupported
from ..events import changed
from ..listing import paginate
from ..router import api
from ..search import field, search
from ._common import merge_metadata, require

SEARCH_FIELDS = {"status": field("status"), "created": field("created"),
                 "customer": field("customer")}


def create_subscription(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    """Create a subscription and its first invoice, the way `POST /v1/subscriptions` does.

    Params (as the API takes them): customer, items[{price | price_data, quantity,
    metadata}], trial_period_days, trial_end (timestamp or "now"), billing_cycle_anchor,
    proration_behavior, default_payment_method, payment_behavior (allow_incomplete
    default, default_incomplete, error_if_incomplete), collection_method, days_until_due,
    metadata, description, add_invoice_items, discounts, cancel_at, cancel_at_period_end,
    currency. The first invoice is finalized at once; when something is due it carries a
    PaymentIntent (`invoice.confirmation_secret`), which is confirmed with the default
    payment method unless payment_behavior=default_incomplete. Returns the stored
    subscription dict (status incomplete / active / trialing).
    """
    customer = ctx.get(require(params, "customer"), "customer", "customer")
    cctx = timing.for_customer(ctx, customer)
    now = cctx.now()
    specs = params.get("items") or []
    if not specs:
        raise InvalidRequest("Missing required param: items.", code="parameter_missing",
                             param="items")
    prices = [items.resolve_price(cctx, spec, f"items[{n}]") for n, spec in enumerate(specs)]
    currency = (params.get("currency") or prices[0]["currency"]).lower()
    for n, price in enumerate(prices):
        if price["currency"] != currency and currency not in (price.get("currency_options")
                                                              or {}):
            raise InvalidRequest("All prices on a subscription must have the same currency.",
                                 param=f"items[{n}][price]")
    trial_end = _trial_end(params, prices, now)
    anchor = params.get("billing_cycle_anchor")
    if anchor is not None and anchor <= now:
        raise InvalidRequest("billing_cycle_anchor cannot be in the past.",
                             param="billing_cycle_anchor")
    collection = params.get("collection_method", "charge_automatically")
    behavior = params.get("payment_behavior", "allow_incomplete")
    if collection == "send_invoice" and not params.get("days_until_due"):
        raise InvalidRequest("Missing required param: days_until_due.",
                             code="parameter_missing", param="days_until_due")
    method = params.get("default_payment_method")
    if method:
        method = _usable_method(cctx, method, customer["id"])
    sub = cctx.new("subscription", "sub")
    sub.update(
        automatic_tax=_automatic_tax(params, customer),
        billing_cycle_anchor=anchor or trial_end or now,
        billing_mode={"flexible": None, "type": "classic", "updated_at": None},
        cancel_at=None, cancel_at_period_end=False, collection_method=collection,
        currency=currency, customer=customer["id"], days_until_due=params.get(
            "days_until_due") if collection == "send_invoice" else None,
        default_payment_method=method, description=params.get("description"),
        discounts=[], invoice_settings={"account_tax_ids": None,
                                        "issuer": {"account": None, "type": "self"}},
        metadata=merge_metadata({}, params.get("metadata") or {}),
        payment_settings={"payment_method_options": None, "payment_method_types": None,
                          "save_default_payment_method": (params.get("payment_settings") or {})
                          .get("save_default_payment_method", "off")},
        start_date=now, status="trialing" if trial_end else (
            "active" if collection == "send_invoice" else "incomplete"),
        test_clock=customer.get("test_clock"), trial_end=trial_end,
        trial_start=now if trial_end else None,
        trial_settings={"end_behavior": {
            "billing_cycle_anchor": None, "missing_payment_method": (
                (params.get("trial_settings") or {}).get("end_behavior") or {}).get(
                "missing_payment_method", "create_invoice")}})
    first_end = trial_end or anchor or timing.period_after(prices[0], now, now)
    sub["_period"] = [now, first_end]
    if params.get("_tax_location"):  # Checkout's taxed address (internal, not an API param)
        sub["_tax_location"] = params["_tax_location"]
    sub["_item_ids"] = [items.new_item(cctx, sub, price, spec.get("quantity"),
                                       spec.get("metadata"))["id"]
                        for price, spec in zip(prices, specs, strict=True)]
    _check_payment_method(cctx, sub, behavior, customer)
    sub["discounts"] = make_discounts(cctx, params.get("discounts"), customer, sub)
    _apply_cancel(sub, params, now)
    subscribing.save(cctx, sub)
    cctx.emit("customer.subscription.created", sub)

    inv = subscribing.subscription_invoice(cctx, sub, "subscription_create", (now, now))
    if trial_end:
        subscribing.cycle_lines(cctx, sub, inv, (now, trial_end), None, trial=True)
    elif anchor:
        _anchor_lines(cctx, sub, inv, now, anchor, params.get("proration_behavior",
                                                             "create_prorations"))
    else:
        subscribing.cycle_lines(cctx, sub, inv, (now, first_end), None)
    _add_invoice_items(cctx, params.get("add_invoice_items"), customer, sub, inv)
    subscribing.after_invoiced(cctx, sub, inv)
    sub["latest_invoice"] = inv["id"]
    subscribing.save(cctx, sub)
    invoicing.save(cctx, inv)
    cctx.emit("invoice.created", inv)
    collect.finalize(cctx, inv)
    if inv["status"] == "open" and collection == "charge_automatically" \
            and behavior != "default_incomplete":
        try:
            collect.attempt(cctx, inv, raise_on_decline=behavior == "error_if_incomplete")
        except CardError:
            collect.void(cctx, inv)
            sub["status"] = "incomplete_expired"
            subscribing.save(cctx, sub)
            raise
    if trial_end and behavior == "default_incomplete" and not \
            collect.default_payment_method(cctx, inv):
        _pending_setup_intent(cctx, sub)
    return ctx.get(sub["id"], "subscription")


def _automatic_tax(params: dict[str, Any], customer: dict[str, Any]) -> dict[str, Any]:
    """Automatic tax needs a customer location (Checkout passes the one it taxed)."""
    enabled = bool((params.get("automatic_tax") or {}).get("enabled"))
    if enabled and not params.get("_tax_location") and taxes.location(customer) is None:
        raise InvalidRequest("The customer's location isn't recognized. Set a valid customer "
                             "address (or shipping address) to calculate tax automatically.",
                             code="customer_tax_location_invalid",
                             param="automatic_tax[enabled]")
    return {"disabled_reason": None, "enabled": enabled,
            "liability": {"account": None, "type": "self"} if enabled else None}


def _trial_end(params: dict[str, Any], prices: list[dict[str, Any]], now: int) -> int | None:
    value = params.get("trial_end")
    if value == "now":
        return None
    if value is not None:
        if int(value) <= now:
            raise InvalidRequest("Invalid timestamp: must be an integer Unix timestamp in the "
                                 "future.", param="trial_end")
        return int(value)
    days = params.get("trial_period_days")
    if days is None and params.get("trial_from_plan"):
        days = (prices[0].get("recurring") or {}).get("trial_period_days")
    if days:
        if not 0 < int(days) <= 730:
            raise InvalidRequest("trial_period_days must be between 1 and 730.",
                                 param="trial_period_days")
        return now + int(days) * timing.DAY
    return None


def _usable_method(ctx: Ctx, method: str, customer_id: str) -> str:
    pm = ctx.maybe(method, "payment_method")
    if pm is None:
        raise InvalidRequest(f"No such PaymentMethod: '{method}'", code="resource_missing",
                             param="default_payment_method", status=404)
    if pm.get("customer") != customer_id:
        raise InvalidRequest("The customer does not have a payment method with the ID "
                             f"{method}. The payment method must be attached to the customer.",
                             param="default_payment_method")
    return method


def _check_payment_method(ctx: Ctx, sub: dict[str, Any], behavior: str,
                          customer: dict[str, Any]) -> None:
    if sub["collection_method"] != "charge_automatically" or sub["trial_end"] or \
            behavior == "default_incomplete":
        return
    if sub["default_payment_method"] or (customer.get("invoice_settings") or {}).get(
            "default_payment_method"):
        return
    if all(items.full_amount(ctx, i, sub["currency"]) == 0
           for i in subscribing.live_items(ctx, sub)):
        return
    for item_id in sub["_item_ids"]:
        ctx.remove(item_id)
    raise InvalidRequest("This customer has no attached payment source or default payment "
                         "method. Please consider adding a default payment method. For more "
                         "information, visit https://stripe.com/docs/billing/subscriptions/"
                         "payment-methods-setting#payment-method-priority.")


def _anchor_lines(ctx: Ctx, sub: dict[str, Any], inv: dict[str, Any], now: int, anchor: int,
                  behavior: str) -> None:
    """A future anchor: the first invoice covers [now, anchor], prorated to the second."""
    if behavior == "none":
        return
    price = subscribing.cycle_price(ctx, sub)
    recurring = price["recurring"]
    full_start = timing.previous_boundary(anchor, recurring["interval"],
                                          int(recurring.get("interval_count") or 1), anchor)
    for item in subscribing.live_items(ctx, sub):
        item_price = items.price_of(ctx, item)
        if items.is_metered(item_price):
            continue
        quantity = int(item.get("quantity") or 0)
        amount = timing.prorate(timing.price_amount(item_price, quantity, sub["currency"]),
                                anchor - now, anchor - full_start)
        invoicing.add_line(
            ctx, inv, amount=amount, proration=True, price=item_price, quantity=quantity,
            description=f"Remaining time on {quantity} × "
                        f"{items.product_name(ctx, item_price)} after {timing.fmt_date(now)}",
            period=(now, anchor), subscription=sub["id"], subscription_item=item["id"])


def _add_invoice_items(ctx: Ctx, specs: Any, customer: dict[str, Any], sub: dict[str, Any],
                       inv: dict[str, Any]) -> None:
    for n, spec in enumerate(specs or []):
        if spec.get("price"):
            price = ctx.get(spec["price"], "price", f"add_invoice_items[{n}][price]")
        elif spec.get("price_data"):
            from .products import build_price
            price = build_price(ctx, dict(spec["price_data"]))
        else:
            raise InvalidRequest(f"Missing required param: add_invoice_items[{n}][price].",
                                 code="parameter_missing", param=f"add_invoice_items[{n}][price]")
        quantity = int(spec.get("quantity") or 1)
        invoicing.new_invoice_item(
            ctx, customer, currency=sub["currency"], price=price, quantity=quantity,
            amount=timing.price_amount(price, quantity, sub["currency"]),
            description=items.product_name(ctx, price), period=(ctx.now(), ctx.now()),
            subscription=sub["id"], metadata=spec.get("metadata"), invoice=inv)


def _pending_setup_intent(ctx: Ctx, sub: dict[str, Any]) -> None:
    try:
        from . import setup_intents
    except ImportError:
        return
    creator = getattr(setup_intents, "create_setup_intent", None) or getattr(
        setup_intents, "create_intent", None)
    if creator is None:
        return
    si = creator(ctx, {"customer": sub["customer"], "usage": "off_session",
                       "payment_method_types": ["card"]})
    sub["pending_setup_intent"] = si["id"]
    subscribing.save(ctx, sub)


def _apply_cancel(sub: dict[str, Any], params: dict[str, Any], now: int) -> None:
    if "cancel_at_period_end" in params:
        sub["cancel_at_period_end"] = bool(params["cancel_at_period_end"])
        sub["cancel_at"] = sub["_period"][1] if params["cancel_at_period_end"] else None
        sub["canceled_at"] = now if params["cancel_at_period_end"] else None
    if "cancel_at" in params:
        value = params["cancel_at"]
        if value in ("max_period_end", "min_period_end", "max_billed_until"):
            value = sub["_period"][1]
        sub["cancel_at"] = value
        sub["canceled_at"] = now if value else None
        sub["cancel_at_period_end"] = bool(value) and value == sub["_period"][1]


# ------------------------------------------------------------------ API

# Parameters the engine would not apply: refused rather than silently ignored.
UNSUPPORTED = ("application_fee_percent", "backdate_start_date", "billing_cycle_anchor_config",
               "billing_schedules", "billing_thresholds", "customer_account", "default_source",
               "default_tax_rates", "on_behalf_of", "pending_invoice_item_interval",
               "transfer_data")
UNSUPPORTED_ON_UPDATE = ("add_invoice_items", "trial_from_plan")


def refuse_unsupported(params: dict[str, Any], names: tuple[str, ...] = UNSUPPORTED) -> None:
    for name in names:
        if params.get(name) not in (None, "", [], {}, False):
            raise Unsupported(f"`{name}` on subscriptions", param=name)
    if (params.get("billing_mode") or {}).get("type") not in (None, "classic"):
        raise Unsupported("flexible billing mode", param="billing_mode[type]")


@api("POST", "/v1/subscriptions")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    refuse_unsupported(params)
    return create_subscription(ctx, params)


@api("GET", "/v1/subscriptions/{subscription_exposed_id}")
def retrieve(ctx: Ctx, params: dict[str, Any], subscription_exposed_id: str) -> dict[str, Any]:
    return ctx.get(subscription_exposed_id, "subscription")


@api("POST", "/v1/subscriptions/{subscription_exposed_id}")
def update(ctx: Ctx, params: dict[str, Any], subscription_exposed_id: str) -> dict[str, Any]:
    from ..billing.changes import update_subscription
    sub = ctx.get(subscription_exposed_id, "subscription")
    refuse_unsupported(params, UNSUPPORTED + UNSUPPORTED_ON_UPDATE)
    return update_subscription(ctx, sub, params)


@api("DELETE", "/v1/subscriptions/{subscription_exposed_id}")
def cancel(ctx: Ctx, params: dict[str, Any], subscription_exposed_id: str) -> dict[str, Any]:
    sub = ctx.get(subscription_exposed_id, "subscription")
    if sub["status"] in ("canceled", "incomplete_expired"):
        raise InvalidRequest(f"A canceled subscription can only update its cancellation_details"
                             f" and metadata. Subscription: {sub['id']}", param="subscription")
    cctx = timing.for_customer(ctx, sub["customer"])
    return subscribing.cancel_now(cctx, sub, prorate=bool(params.get("prorate")),
                                  invoice_now_=bool(params.get("invoice_now")),
                                  details=params.get("cancellation_details"))


@api("POST", "/v1/subscriptions/{subscription}/resume")
def resume(ctx: Ctx, params: dict[str, Any], subscription: str) -> dict[str, Any]:
    sub = ctx.get(subscription, "subscription")
    if sub["status"] != "paused":
        raise InvalidRequest("This subscription cannot be resumed because it is not paused.",
                             param="subscription")
    cctx = timing.for_customer(ctx, sub["customer"])
    anchor = (params.get("billing_cycle_anchor") or {}).get("type", "now")
    subscribing.resume(cctx, sub, anchor, params.get("proration_behavior",
                                                     "create_prorations"))
    return ctx.get(sub["id"], "subscription")


@api("DELETE", "/v1/subscriptions/{subscription_exposed_id}/discount")
def delete_discount(ctx: Ctx, params: dict[str, Any],
                    subscription_exposed_id: str) -> dict[str, Any]:
    sub = ctx.get(subscription_exposed_id, "subscription")
    if not sub.get("discounts"):
        raise InvalidRequest("This subscription has no discount.", param="subscription")
    discount = ctx.get(sub["discounts"][0], "discount")
    before = dict(sub)
    sub["discounts"] = sub["discounts"][1:]
    subscribing.save(ctx, sub)
    ctx.emit("customer.subscription.updated", sub, changed(before, sub))
    return {"id": discount["id"], "object": "discount", "deleted": True,
            "source": discount.get("source"), "customer": discount.get("customer"),
            "subscription": sub["id"], "start": discount.get("start"), "end": None,
            "checkout_session": None, "invoice": None, "invoice_item": None,
            "promotion_code": discount.get("promotion_code"), "subscription_item": None}


ENDED = ("canceled", "incomplete_expired")


@api("GET", "/v1/subscriptions")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    status = params.get("status")
    price = params.get("price") or params.get("plan")

    def where(s: dict[str, Any]) -> bool:
        if status is None and s["status"] in ENDED:
            return False
        if status == "ended" and s["status"] not in ENDED:
            return False
        if status not in (None, "all", "ended") and s["status"] != status:
            return False
        for name in ("customer", "collection_method", "test_clock"):
            if params.get(name) and s.get(name) != params[name]:
                return False
        if price and not any(i["price"]["id"] == price for i in s["items"]["data"]):
            return False
        from ..listing import range_filter
        return range_filter(params.get("current_period_start"), s["_period"][0]) and \
            range_filter(params.get("current_period_end"), s["_period"][1])
    return paginate(ctx, ctx.account.iter_type("subscription"), params, "/v1/subscriptions",
                    where, exact={"customer": params.get("customer") or None})


@api("GET", "/v1/subscriptions/search")
def search_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return search(ctx, ctx.account.iter_type("subscription"), params,
                  "/v1/subscriptions/search", SEARCH_FIELDS)
