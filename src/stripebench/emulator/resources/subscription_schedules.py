"""Subscription schedules: phases (items, iterations or end_date, trials) applied at their
start times, end_behavior release / cancel, from_subscription, update, release, cancel.

Phase changes happen at the simulated time of the customer's clock: on a test clock
`advance` (registered in `billing.advance.SCHEDULE_HOOKS`) or, for schedules starting
`now`, at creation. The subscription a schedule starts gets its first invoice as a draft
(no payment method needed yet); `default_settings` fill in what a phase leaves unset.
"""

from __future__ import annotations

from typing import Any

from ..billing import advance, items, subscribing, timing
from ..billing.changes import update_subscription
from ..billing.creating import automatic_tax, create_subscription, usable_method
from ..context import Ctx
from ..errors import InvalidRequest, Unsupported
from ..events import changed
from ..listing import paginate
from ..router import api
from ._common import merge_metadata

LIVE = ("not_started", "active")
# Settings the engine would not apply: refused rather than silently ignored.
UNSUPPORTED_SETTINGS = ("application_fee_percent", "billing_thresholds", "on_behalf_of",
                        "transfer_data")
UNSUPPORTED_PHASE = ("add_invoice_items", "application_fee_percent", "automatic_tax",
                     "billing_thresholds", "default_tax_rates", "on_behalf_of", "transfer_data")


def _phases(ctx: Ctx, specs: list[dict[str, Any]], start: int) -> list[dict[str, Any]]:
    """Resolve phase specs into stored phases with absolute start/end dates."""
    phases = []
    for n, spec in enumerate(specs):
        param = f"phases[{n}]"
        if not spec.get("items"):
            raise InvalidRequest(f"Missing required param: {param}[items].",
                                 code="parameter_missing", param=f"{param}[items]")
        _refuse_unsupported_phase(spec, param)
        prices = [items.resolve_price(ctx, i, f"{param}[items][{k}]")
                  for k, i in enumerate(spec["items"])]
        recurring = prices[0]["recurring"]
        if spec.get("currency") and str(spec["currency"]).lower() != prices[0]["currency"]:
            raise Unsupported("a phase currency other than its prices' currency",
                              param=f"{param}[currency]")
        if spec.get("end_date"):
            end = int(spec["end_date"])
        elif spec.get("duration"):
            d = spec["duration"]
            end = timing.boundary(start, d["interval"], int(d.get("interval_count") or 1), 1)
        else:
            iterations = int(spec.get("iterations") or 1)
            end = timing.boundary(start, recurring["interval"],
                                  int(recurring.get("interval_count") or 1), iterations)
        if end <= start:
            raise InvalidRequest("A phase must end after it starts.", param=f"{param}[end_date]")
        trial_end = spec.get("trial_end") or (end if spec.get("trial") else None)
        phases.append({
            "add_invoice_items": [], "application_fee_percent": None, "automatic_tax": None,
            "billing_cycle_anchor": spec.get("billing_cycle_anchor"), "billing_thresholds": None,
            "collection_method": spec.get("collection_method"), "currency": prices[0]["currency"],
            "default_payment_method": spec.get("default_payment_method"),
            "default_tax_rates": [], "description": spec.get("description"),
            "discounts": _phase_discounts(ctx, spec.get("discounts"), param),
            "end_date": end, "invoice_settings": _invoice_settings(spec, None),
            "items": [{"billing_thresholds": None, "discounts": [], "metadata":
                       i.get("metadata") or {}, "plan": p["id"], "price": p["id"],
                       "quantity": None if items.is_metered(p) else int(i.get("quantity") or 1),
                       "tax_rates": []} for i, p in zip(spec["items"], prices, strict=True)],
            "metadata": spec.get("metadata") or {}, "on_behalf_of": None,
            "proration_behavior": spec.get("proration_behavior", "create_prorations"),
            "start_date": start, "transfer_data": None, "trial_end": trial_end})
        start = end
    return phases


def _refuse_unsupported_schedule(params: dict[str, Any]) -> None:
    for name in ("pause_schedules", "customer_account"):
        if params.get(name) not in (None, "", {}, []):
            raise Unsupported(f"`{name}` on subscription schedules", param=name)
    if (params.get("billing_mode") or {}).get("type") not in (None, "classic"):
        raise Unsupported("flexible billing mode", param="billing_mode[type]")


def _refuse_unsupported_phase(spec: dict[str, Any], param: str) -> None:
    for name in UNSUPPORTED_PHASE:
        if spec.get(name) not in (None, "", {}, []):
            raise Unsupported(f"`{name}` on subscription schedule phases",
                              param=f"{param}[{name}]")
    if spec.get("billing_cycle_anchor") not in (None, "automatic"):
        raise Unsupported("`billing_cycle_anchor=phase_start` on subscription schedule phases",
                          param=f"{param}[billing_cycle_anchor]")


def _phase_discounts(ctx: Ctx, specs: Any, param: str) -> list[dict[str, Any]]:
    """A phase's coupons / promotion codes / discounts, checked now and applied to the
    subscription while the phase runs (the next phase replaces them)."""
    found = []
    for n, spec in enumerate(specs or []):
        for name, kind in (("coupon", "coupon"), ("promotion_code", "promotion_code"),
                           ("discount", "discount")):
            if spec.get(name):
                ctx.get(spec[name], kind, f"{param}[discounts][{n}][{name}]")
        found.append({"coupon": spec.get("coupon"), "discount": spec.get("discount"),
                      "promotion_code": spec.get("promotion_code")})
    return found


def _discount_params(phase: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in d.items() if v} for d in phase.get("discounts") or []]


def _invoice_settings(spec: dict[str, Any], issuer: Any) -> dict[str, Any] | None:
    settings = spec.get("invoice_settings")
    if settings is None:
        return None if issuer is None else {"account_tax_ids": None, "days_until_due": None,
                                            "issuer": issuer}
    return {"account_tax_ids": None, "days_until_due": settings.get("days_until_due"),
            "issuer": issuer}


def _default_settings(ctx: Ctx, spec: dict[str, Any] | None,
                      customer: dict[str, Any]) -> dict[str, Any]:
    """`default_settings`: what every phase uses unless the phase sets its own."""
    spec = dict(spec or {})
    for name in UNSUPPORTED_SETTINGS:
        if spec.get(name) not in (None, "", {}, []):
            raise Unsupported(f"`default_settings[{name}]` on subscription schedules",
                              param=f"default_settings[{name}]")
    method = spec.get("default_payment_method")
    if method:
        usable_method(ctx, method, customer["id"], "default_settings[default_payment_method]")
    tax = automatic_tax(spec, customer) if spec.get("automatic_tax") else None
    return {"application_fee_percent": None, "automatic_tax": tax,
            "billing_cycle_anchor": spec.get("billing_cycle_anchor") or "automatic",
            "billing_thresholds": None, "collection_method": spec.get("collection_method"),
            "default_payment_method": method or None, "description": spec.get("description"),
            "invoice_settings": _invoice_settings(spec, {"account": None, "type": "self"}),
            "on_behalf_of": None, "transfer_data": None}


def _settings(schedule: dict[str, Any], phase: dict[str, Any]) -> dict[str, Any]:
    """The subscription settings in force during `phase`: its own, else the defaults."""
    defaults = schedule.get("default_settings") or {}
    days = ((phase.get("invoice_settings") or {}).get("days_until_due")
            or (defaults.get("invoice_settings") or {}).get("days_until_due"))
    collection = phase.get("collection_method") or defaults.get("collection_method") or \
        "charge_automatically"
    found: dict[str, Any] = {"collection_method": collection}
    for name in ("default_payment_method", "description"):
        if phase.get(name) or defaults.get(name):
            found[name] = phase.get(name) or defaults.get(name)
    if collection == "send_invoice":
        found["days_until_due"] = days
    return found


def _check_settings(ctx: Ctx, schedule: dict[str, Any]) -> None:
    """Refuse, before anything changes, phases the subscription could not take."""
    for n, phase in enumerate(schedule["phases"]):
        if phase.get("default_payment_method"):
            usable_method(ctx, phase["default_payment_method"], schedule["customer"],
                          f"phases[{n}][default_payment_method]")
        settings = _settings(schedule, phase)
        if settings["collection_method"] == "send_invoice" and not settings["days_until_due"]:
            raise InvalidRequest(
                "`invoice_settings[days_until_due]` is required when collection_method is "
                "send_invoice.", code="parameter_missing",
                param=f"phases[{n}][invoice_settings][days_until_due]"
                if phase.get("collection_method") else
                "default_settings[invoice_settings][days_until_due]")


def _item_params(phase: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"price": i["price"], **({"quantity": i["quantity"]} if i["quantity"] else {})}
            for i in phase["items"]]


def _current(schedule: dict[str, Any], now: int) -> dict[str, Any] | None:
    for phase in schedule["phases"]:
        if phase["start_date"] <= now < phase["end_date"]:
            return phase
    return None


def _set_current(schedule: dict[str, Any], phase: dict[str, Any] | None) -> None:
    schedule["current_phase"] = {"start_date": phase["start_date"],
                                 "end_date": phase["end_date"]} if phase else None


def _start(ctx: Ctx, schedule: dict[str, Any]) -> None:
    """The first phase begins: the schedule creates its subscription."""
    phase = schedule["phases"][0]
    params: dict[str, Any] = {"customer": schedule["customer"], "items": _item_params(phase),
                              "metadata": phase["metadata"], "_draft_first_invoice": True,
                              **_settings(schedule, phase)}
    if phase["trial_end"]:
        params["trial_end"] = phase["trial_end"]
    if phase.get("discounts"):
        params["discounts"] = _discount_params(phase)
    if (schedule["default_settings"].get("automatic_tax") or {}).get("enabled"):
        params["automatic_tax"] = {"enabled": True}
    sub = create_subscription(ctx, params)
    sub["schedule"] = schedule["id"]
    subscribing.save(ctx, sub)
    schedule["subscription"] = sub["id"]
    schedule["status"] = "active"
    _set_current(schedule, phase)
    ctx.put(schedule)


def _enter(ctx: Ctx, schedule: dict[str, Any], phase: dict[str, Any]) -> None:
    """A later phase begins: the subscription takes its items."""
    sub = ctx.get(schedule["subscription"], "subscription")
    current = subscribing.live_items(ctx, sub)
    changes: list[dict[str, Any]] = [{"id": i["id"], "deleted": True} for i in current]
    changes += _item_params(phase)
    params: dict[str, Any] = {"items": changes, "proration_behavior": "none"
                              if ctx.now() >= sub["_period"][1] else phase["proration_behavior"],
                              "discounts": _discount_params(phase), **_settings(schedule, phase)}
    if phase["trial_end"]:
        params["trial_end"] = phase["trial_end"]
    update_subscription(ctx, sub, params)
    _set_current(schedule, phase)
    ctx.put(schedule)
    ctx.emit("subscription_schedule.updated", schedule)


def _finish(ctx: Ctx, schedule: dict[str, Any]) -> None:
    sub = ctx.maybe(schedule.get("subscription"), "subscription")
    if schedule["end_behavior"] == "cancel":
        if sub is not None and sub["status"] not in ("canceled", "incomplete_expired"):
            subscribing.cancel_now(ctx, sub)
        schedule["status"] = "completed"
        schedule["completed_at"] = ctx.now()
        ctx.put(schedule)
        ctx.emit("subscription_schedule.completed", schedule)
        return
    _release(ctx, schedule)


def _release(ctx: Ctx, schedule: dict[str, Any]) -> None:
    sub = ctx.maybe(schedule.get("subscription"), "subscription")
    if sub is not None:
        sub["schedule"] = None
        subscribing.save(ctx, sub)
    schedule.update(status="released", released_at=ctx.now(),
                    released_subscription=schedule.get("subscription"), subscription=None,
                    current_phase=None)
    ctx.put(schedule)
    ctx.emit("subscription_schedule.released", schedule)


def _by_id(step: Any, schedule_id: str, *args: Any) -> Any:
    """Bind a schedule step for the clock: (ctx) -> None, loading the schedule fresh."""
    def run(ctx: Ctx) -> None:
        step(ctx, ctx.get(schedule_id, "subscription_schedule"), *args)
    return run


def clock_actions(ctx: Ctx, clock: dict[str, Any]) -> list[advance.Action]:
    actions: list[advance.Action] = []
    for schedule in ctx.account.iter_type("subscription_schedule"):
        if schedule.get("test_clock") != clock["id"] or schedule["status"] not in LIVE:
            continue
        sid = schedule["id"]
        if schedule["status"] == "not_started":
            actions.append((schedule["phases"][0]["start_date"], 0, sid,
                            _by_id(_start, sid)))
            continue
        current = schedule.get("current_phase") or {}
        end = current.get("end_date")
        if not end:
            continue
        following = [p for p in schedule["phases"] if p["start_date"] == end]
        if following:
            actions.append((end, 0, sid, _by_id(_enter, sid, following[0])))
        else:
            actions.append((end, 0, sid, _by_id(_finish, sid)))
    return actions


advance.SCHEDULE_HOOKS.append(clock_actions)


@api("POST", "/v1/subscription_schedules")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    _refuse_unsupported_schedule(params)
    schedule = ctx.new("subscription_schedule", "sub_sched")
    if params.get("from_subscription"):
        extra = sorted(set(params) - {"from_subscription", "expand", "metadata"})
        if extra:
            raise InvalidRequest(f"You cannot set `{extra[0]}` when using from_subscription.",
                                 param=extra[0])
        sub = ctx.get(params["from_subscription"], "subscription", "from_subscription")
        if sub.get("schedule"):
            raise InvalidRequest("This subscription is already attached to a schedule.",
                                 param="from_subscription")
        cctx = timing.for_customer(ctx, sub["customer"])
        start, end = sub["_period"]
        phase = _phases(cctx, [{"items": [
            {"price": i["_price"], "quantity": i.get("quantity")}
            for i in subscribing.live_items(cctx, sub)], "end_date": end}], start)[0]
        schedule.update(customer=sub["customer"], subscription=sub["id"], status="active",
                        phases=[phase], end_behavior="release",
                        test_clock=sub.get("test_clock"), created=cctx.now(),
                        default_settings=_default_settings(cctx, {
                            "collection_method": sub["collection_method"],
                            "default_payment_method": sub.get("default_payment_method"),
                            "description": sub.get("description"),
                            "invoice_settings": {"days_until_due": sub.get("days_until_due")}},
                            cctx.get(sub["customer"], "customer")))
        _set_current(schedule, phase)
        sub["schedule"] = schedule["id"]
        subscribing.save(cctx, sub)
    else:
        customer = ctx.get(params.get("customer"), "customer", "customer")
        cctx = timing.for_customer(ctx, customer)
        now = cctx.now()
        start = params.get("start_date", "now")
        start = now if start == "now" else int(start)
        if not params.get("phases"):
            raise InvalidRequest("Missing required param: phases.", code="parameter_missing",
                                 param="phases")
        schedule.update(customer=customer["id"], status="not_started",
                        phases=_phases(cctx, params["phases"], start),
                        end_behavior=params.get("end_behavior", "release"),
                        test_clock=customer.get("test_clock"), created=now,
                        default_settings=_default_settings(cctx, params.get(
                            "default_settings"), customer))
        _check_settings(cctx, schedule)
    schedule["metadata"] = merge_metadata({}, params.get("metadata") or {})
    cctx.put(schedule)
    cctx.emit("subscription_schedule.created", schedule)
    if schedule["status"] == "not_started" and schedule["phases"][0]["start_date"] <= cctx.now():
        _start(cctx, schedule)
    return schedule


@api("GET", "/v1/subscription_schedules/{schedule}")
def retrieve(ctx: Ctx, params: dict[str, Any], schedule: str) -> dict[str, Any]:
    return ctx.get(schedule, "subscription_schedule")


@api("POST", "/v1/subscription_schedules/{schedule}")
def update(ctx: Ctx, params: dict[str, Any], schedule: str) -> dict[str, Any]:
    _refuse_unsupported_schedule(params)
    obj = ctx.get(schedule, "subscription_schedule")
    if obj["status"] not in LIVE:
        raise InvalidRequest(f"You cannot update a subscription schedule that is "
                             f"{obj['status']}.", param="schedule")
    cctx = timing.for_customer(ctx, obj["customer"])
    before = dict(obj)
    if "end_behavior" in params:
        obj["end_behavior"] = params["end_behavior"]
    if "metadata" in params:
        obj["metadata"] = merge_metadata(obj.get("metadata"), params["metadata"])
    customer = cctx.get(obj["customer"], "customer")
    if "default_settings" in params:
        obj["default_settings"] = _default_settings(cctx, params["default_settings"], customer)
    if params.get("phases"):
        first = params["phases"][0].get("start_date")
        start = obj["phases"][0]["start_date"] if first in (None, "now") else int(first)
        obj["phases"] = _phases(cctx, params["phases"], start)
    _check_settings(cctx, obj)
    if obj["status"] == "active" and (params.get("phases") or "default_settings" in params):
        phase = _current(obj, cctx.now())
        if phase is not None:
            sub = cctx.get(obj["subscription"], "subscription")
            change: dict[str, Any] = {"proration_behavior": params.get(
                "proration_behavior", "create_prorations"), **_settings(obj, phase)}
            wanted = sorted((i["price"], i["quantity"]) for i in phase["items"])
            have = sorted((i["_price"], i.get("quantity"))
                          for i in subscribing.live_items(cctx, sub))
            if wanted != have:
                change["items"] = [{"id": i["id"], "deleted": True}
                                   for i in subscribing.live_items(cctx, sub)] + \
                    _item_params(phase)
            update_subscription(cctx, sub, change)
        _set_current(obj, phase)
    cctx.put(obj)
    cctx.emit("subscription_schedule.updated", obj, changed(before, obj))
    return obj


@api("POST", "/v1/subscription_schedules/{schedule}/release")
def release(ctx: Ctx, params: dict[str, Any], schedule: str) -> dict[str, Any]:
    obj = ctx.get(schedule, "subscription_schedule")
    if obj["status"] not in LIVE:
        raise InvalidRequest(f"You cannot release a subscription schedule that is "
                             f"{obj['status']}.", param="schedule")
    _release(timing.for_customer(ctx, obj["customer"]), obj)
    return obj


@api("POST", "/v1/subscription_schedules/{schedule}/cancel")
def cancel(ctx: Ctx, params: dict[str, Any], schedule: str) -> dict[str, Any]:
    obj = ctx.get(schedule, "subscription_schedule")
    if obj["status"] not in LIVE:
        raise InvalidRequest(f"You cannot cancel a subscription schedule that is "
                             f"{obj['status']}.", param="schedule")
    cctx = timing.for_customer(ctx, obj["customer"])
    sub = cctx.maybe(obj.get("subscription"), "subscription")
    if sub is not None and sub["status"] not in ("canceled", "incomplete_expired"):
        subscribing.cancel_now(cctx, sub, prorate=params.get("prorate", True),
                               invoice_now_=params.get("invoice_now", False))
    obj.update(status="canceled", canceled_at=cctx.now(), current_phase=None)
    cctx.put(obj)
    cctx.emit("subscription_schedule.canceled", obj)
    return obj


@api("GET", "/v1/subscription_schedules")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    def where(s: dict[str, Any]) -> bool:
        if params.get("customer") and s["customer"] != params["customer"]:
            return False
        return not params.get("scheduled") or s["status"] == "not_started"
    return paginate(ctx, ctx.account.iter_type("subscription_schedule"), params,
                    "/v1/subscription_schedules", where)
