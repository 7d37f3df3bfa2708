"""Creating a subscription: its items, trial, anchor, first invoice and first payment.

`create_subscription(ctx, params)` is the engine entry point the endpoints use:
`POST /v1/subscriptions`, Checkout's mode=subscription sessions and subscription
schedules all call it with the API's params.
"""

from __future__ import annotations

from typing import Any

from .. import events
from ..context import Ctx
from ..errors import CardError, InvalidRequest
from ..events import changed
from ..resources import payment_methods, setup_intents
from ..resources._common import merge_metadata, require
from ..resources.customer_discounts import customer_discount
from ..resources.products import build_price
from . import collect, invoicing, items, subscribing, taxes, timing
from .discounts import make_discounts


def create_subscription(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    """Create a subscription and its first invoice, the way `POST /v1/subscriptions` does.

    Params (as the API takes them): customer, items[{price | price_data, quantity,
    metadata}], trial_period_days, trial_end (timestamp or "now"), billing_cycle_anchor,
    proration_behavior, default_payment_method, payment_behavior (allow_incomplete
    default, default_incomplete, error_if_incomplete), collection_method, days_until_due,
    metadata, description, add_invoice_items, discounts, cancel_at, cancel_at_period_end,
    currency; internal `_draft_first_invoice` (schedules), `_tax_location` and
    `_passed_anchor_bills_full` (Checkout).
    The first invoice is finalized at once (schedules: an hour later); when something is
    due it carries a PaymentIntent (`invoice.confirmation_secret`), which is confirmed
    with the default payment method unless payment_behavior=default_incomplete; when
    nothing is due a SetupIntent may be left on `pending_setup_intent`. Returns the
    stored subscription dict (status incomplete / active / trialing).
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
    anchor = int(params["billing_cycle_anchor"]) if params.get(
        "billing_cycle_anchor") is not None else None
    # Checkout: an anchor that passed while the session was open bills the full period
    # that starts at the anchor instead of prorating up to it.
    passed = anchor is not None and anchor <= now and bool(
        params.get("_passed_anchor_bills_full"))
    if anchor is not None and not passed:
        check_anchor(anchor, now, trial_end, prices, "billing_cycle_anchor")
    collection = params.get("collection_method", "charge_automatically")
    behavior = params.get("payment_behavior", "allow_incomplete")
    if collection == "send_invoice" and not params.get("days_until_due"):
        raise InvalidRequest("Missing required param: days_until_due.",
                             code="parameter_missing", param="days_until_due")
    method = params.get("default_payment_method")
    if method:
        method = usable_method(cctx, method, customer["id"])
    # Schedules start their subscription with a draft first invoice (finalized an hour
    # later, like a renewal), so nothing is charged and no payment method is needed now.
    draft_first = bool(params.get("_draft_first_invoice"))
    sub = cctx.new("subscription", "sub")
    sub.update(
        automatic_tax=automatic_tax(params, customer),
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
            "active" if collection == "send_invoice" or draft_first else "incomplete"),
        test_clock=customer.get("test_clock"), trial_end=trial_end,
        trial_start=now if trial_end else None,
        trial_settings={"end_behavior": {
            "billing_cycle_anchor": None, "missing_payment_method": (
                (params.get("trial_settings") or {}).get("end_behavior") or {}).get(
                "missing_payment_method", "create_invoice")}})
    start = anchor if passed and anchor is not None else now
    first_end = trial_end or (anchor if anchor and not passed else None) or \
        timing.period_after(prices[0], start, now)
    sub["_period"] = [start, first_end]
    if params.get("_tax_location"):  # Checkout's taxed address (internal, not an API param)
        sub["_tax_location"] = params["_tax_location"]
    sub["_item_ids"] = [items.new_item(cctx, sub, price, spec.get("quantity"),
                                       spec.get("metadata"))["id"]
                        for price, spec in zip(prices, specs, strict=True)]
    free_until_anchor = bool(anchor) and params.get("proration_behavior") == "none"
    if not (free_until_anchor or draft_first):
        _check_payment_method(cctx, sub, behavior, customer, params)
    sub["discounts"] = make_discounts(cctx, params.get("discounts"), customer, sub)
    apply_cancel(sub, params, now)
    subscribing.save(cctx, sub)
    cctx.emit("customer.subscription.created", sub)

    inv = subscribing.subscription_invoice(cctx, sub, "subscription_create", (now, now))
    if trial_end:
        subscribing.cycle_lines(cctx, sub, inv, (now, trial_end), None, trial=True)
    elif anchor and not passed:
        _anchor_lines(cctx, sub, inv, now, anchor, params.get("proration_behavior",
                                                             "create_prorations"))
    else:
        subscribing.cycle_lines(cctx, sub, inv, (sub["_period"][0], first_end), None)
    _add_invoice_items(cctx, params.get("add_invoice_items"), customer, sub, inv)
    subscribing.after_invoiced(cctx, sub, inv)
    sub["latest_invoice"] = inv["id"]
    subscribing.save(cctx, sub)
    if draft_first:
        inv["automatically_finalizes_at"] = now + invoicing.FINALIZE_DELAY
    invoicing.save(cctx, inv)
    cctx.emit("invoice.created", inv)
    if not draft_first:
        _finalize_first(cctx, sub, inv, behavior)
    if collection == "charge_automatically" and inv["amount_due"] == 0:
        _pending_setup_intent(cctx, sub, collect.default_payment_method(cctx, inv))
    return ctx.get(sub["id"], "subscription")


def _finalize_first(ctx: Ctx, sub: dict[str, Any], inv: dict[str, Any], behavior: str) -> None:
    """The first invoice of a subscription made through the API is finalized at once and,
    unless payment_behavior=default_incomplete, paid with the default payment method."""
    collect.finalize(ctx, inv)
    if inv["status"] == "open" and sub["collection_method"] == "charge_automatically" \
            and behavior != "default_incomplete":
        try:
            collect.attempt(ctx, inv, raise_on_decline=behavior == "error_if_incomplete")
        except CardError:
            collect.void(ctx, inv)
            sub["status"] = "incomplete_expired"
            subscribing.save(ctx, sub)
            raise


def check_anchor(anchor: int, now: int, trial_end: int | None, prices: list[dict[str, Any]],
                 param: str) -> None:
    """A billing_cycle_anchor lies in the future, not inside the trial, and no later than
    the next natural billing date of the prices counted from when billing starts (now, or
    the trial's end): Stripe's rule, in its words."""
    if anchor <= now:
        raise InvalidRequest("billing_cycle_anchor cannot be in the past.", param=param)
    if trial_end and anchor < trial_end:
        raise InvalidRequest("billing_cycle_anchor cannot be earlier than trial_end.",
                             param=param)
    natural = timing.natural_billing_date(prices, trial_end or now)
    if anchor > natural:
        raise InvalidRequest(f"billing_cycle_anchor cannot be later than next natural billing "
                             f"date ({natural}) for plan", param=param)


def automatic_tax(params: dict[str, Any], customer: dict[str, Any]) -> dict[str, Any]:
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


def usable_method(ctx: Ctx, method: str, customer_id: str,
                  param: str = "default_payment_method") -> str:
    pm = ctx.maybe(method, "payment_method")
    if pm is None:
        raise InvalidRequest(f"No such PaymentMethod: '{method}'", code="resource_missing",
                             param=param, status=404)
    if pm.get("customer") != customer_id:
        raise InvalidRequest("The customer does not have a payment method with the ID "
                             f"{method}. The payment method must be attached to the customer.",
                             param=param)
    return method


def _check_payment_method(ctx: Ctx, sub: dict[str, Any], behavior: str,
                          customer: dict[str, Any], params: dict[str, Any]) -> None:
    if sub["collection_method"] != "charge_automatically" or sub["trial_end"] or \
            behavior == "default_incomplete":
        return
    if sub["default_payment_method"] or (customer.get("invoice_settings") or {}).get(
            "default_payment_method"):
        return
    due = sum(items.full_amount(ctx, i, sub["currency"]) for i in subscribing.live_items(
        ctx, sub)) + _one_off_amount(ctx, params, sub["currency"])
    if _nothing_due(ctx, params, customer, sub["currency"], due):
        return
    for item_id in sub["_item_ids"]:
        ctx.remove(item_id)
    raise InvalidRequest("This customer has no attached payment source or default payment "
                         "method. Please consider adding a default payment method. For more "
                         "information, visit https://stripe.com/docs/billing/subscriptions/"
                         "payment-methods-setting#payment-method-priority.")


def _one_off_amount(ctx: Ctx, params: dict[str, Any], currency: str) -> int:
    total = 0
    for spec in params.get("add_invoice_items") or []:
        price = ctx.maybe(spec.get("price"), "price") or spec.get("price_data") or {}
        total += timing.price_amount(price, int(spec.get("quantity") or 1), currency)
    return total


def _nothing_due(ctx: Ctx, params: dict[str, Any], customer: dict[str, Any], currency: str,
                 due: int) -> bool:
    """Whether the first invoice will ask for nothing: a coupon that takes all of it, or a
    credit balance that covers it. Then no payment method is needed yet (the customer
    gets a pending SetupIntent instead)."""
    if due <= 0:
        return True
    for coupon in _coupons(ctx, params, customer):
        if float(coupon.get("percent_off") or 0) >= 100:
            return True
        if coupon.get("amount_off") and coupon.get("currency") == currency and \
                int(coupon["amount_off"]) >= due:
            return True
    balance = int(customer.get("balance") or 0)
    return customer.get("currency") in (None, currency) and -balance >= due


def _coupons(ctx: Ctx, params: dict[str, Any], customer: dict[str, Any]) -> list[Any]:
    """The coupons the first invoice will carry: the subscription's, else the customer's.
    Unknown ids are left for make_discounts to refuse."""
    found = []
    for spec in params.get("discounts") or []:
        if spec.get("coupon"):
            found.append(ctx.maybe(spec["coupon"], "coupon"))
        elif spec.get("promotion_code"):
            promo = ctx.maybe(spec["promotion_code"], "promotion_code") or {}
            found.append(ctx.maybe((promo.get("promotion") or {}).get("coupon"), "coupon"))
        elif spec.get("discount"):
            discount = ctx.maybe(spec["discount"], "discount") or {}
            found.append(ctx.maybe((discount.get("source") or {}).get("coupon"), "coupon"))
    if not params.get("discounts"):
        inherited = ctx.maybe(customer_discount(ctx, customer["id"], ctx.now()), "discount")
        found.append(ctx.maybe(((inherited or {}).get("source") or {}).get("coupon"),
                               "coupon"))
    return [c for c in found if c]


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
            description=items.proration_text(ctx, "Remaining", item_price, quantity, now),
            period=(now, anchor), subscription=sub["id"], subscription_item=item["id"])


def _add_invoice_items(ctx: Ctx, specs: Any, customer: dict[str, Any], sub: dict[str, Any],
                       inv: dict[str, Any]) -> None:
    for n, spec in enumerate(specs or []):
        if spec.get("price"):
            price = ctx.get(spec["price"], "price", f"add_invoice_items[{n}][price]")
        elif spec.get("price_data"):
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


def _pending_setup_intent(ctx: Ctx, sub: dict[str, Any], method: str | None) -> None:
    """Nothing to pay now (a trial, a free first period, a coupon, credit): Stripe sets up
    the payment method for the later off-session charges with a SetupIntent, and leaves it
    on `pending_setup_intent` while it needs the customer: no payment method yet
    (requires_payment_method) or a card that must authenticate (requires_action). A card
    that is ready needs nothing, so nothing is pending."""
    pm = ctx.maybe(method, "payment_method")
    card = payment_methods.test_card(pm) if pm is not None else None
    if pm is not None and card is not None and (card.three_d_secure not in (
            "required", "always") or card.set_up or pm.get("_offsession_ready")):
        return
    params: dict[str, Any] = {"customer": sub["customer"], "usage": "off_session",
                              "payment_method_types": ["card"]}
    if pm is not None:
        params.update(payment_method=pm["id"], confirm=True)
    si = setup_intents.create_setup_intent(ctx, params)
    si["_subscription"] = sub["id"]
    ctx.put(si)
    sub["pending_setup_intent"] = si["id"]
    subscribing.save(ctx, sub)


def _on_setup_succeeded(ctx: Ctx, event: dict[str, Any]) -> None:
    """The customer completed the pending SetupIntent: nothing is pending any more, and
    with `save_default_payment_method=on_subscription` its card becomes the default."""
    if event["type"] != "setup_intent.succeeded":
        return
    si = event["data"]["object"]
    stored = ctx.maybe(si["id"], "setup_intent") or {}
    sub = ctx.maybe(stored.get("_subscription"), "subscription")
    if sub is None or sub.get("pending_setup_intent") != si["id"]:
        return
    before = subscribing.snapshot(sub)
    sub["pending_setup_intent"] = None
    if (sub.get("payment_settings") or {}).get("save_default_payment_method") == \
            "on_subscription" and not sub.get("default_payment_method"):
        sub["default_payment_method"] = si.get("payment_method")
    subscribing.save(ctx, sub)
    ctx.emit("customer.subscription.updated", sub, changed(before, sub))


events.LISTENERS.append(_on_setup_succeeded)


def apply_cancel(sub: dict[str, Any], params: dict[str, Any], now: int) -> None:
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
