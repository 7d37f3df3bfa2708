"""Advancing a test clock: everything due before the target happens, in time order.

Each step finds the earliest pending action among the clock's objects (trial ending
soon, a period ending, a cancel_at, a draft invoice due for finalization, a payment
retry, an incomplete subscription expiring, a schedule phase starting), moves the
clock to that instant and performs it there, so objects and events carry the
simulated time. Actions are recomputed after every step because each one can create
the next (a renewal drafts an invoice that finalizes an hour later).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..context import Ctx
from . import collect, invoicing, pausing, subscribing, timing

Action = tuple[int, int, str, Callable[[Ctx], None]]
MAX_STEPS = 20000
TRIAL_WILL_END = 3 * timing.DAY
SCHEDULE_HOOKS: list[Callable[[Ctx, dict[str, Any]], list[Action]]] = []


def advance(ctx: Ctx, clock: dict[str, Any], target: int) -> None:
    for _ in range(MAX_STEPS):
        actions = [a for a in pending(ctx, clock) if a[0] <= target]
        if not actions:
            break
        when, _order, _key, act = min(actions, key=lambda a: (a[0], a[1], a[2]))
        clock["frozen_time"] = max(clock["frozen_time"], when)
        ctx.put(clock)
        act(timing.at(ctx, clock["frozen_time"]))
    clock["frozen_time"] = target
    ctx.put(clock)


def pending(ctx: Ctx, clock: dict[str, Any]) -> list[Action]:
    actions: list[Action] = []
    for sub in ctx.account.iter_type("subscription"):
        if sub.get("test_clock") == clock["id"]:
            actions += _subscription_actions(sub)
    for inv in ctx.account.iter_type("invoice"):
        if inv.get("test_clock") == clock["id"]:
            actions += _invoice_actions(inv)
    for hook in SCHEDULE_HOOKS:
        actions += [a for a in hook(ctx, clock)]
    return actions


def _subscription_actions(sub: dict[str, Any]) -> list[Action]:
    status = sub["status"]
    sid = sub["id"]
    if status in ("canceled", "incomplete_expired", "paused"):
        return []
    if status == "incomplete":
        return [(sub["created"] + subscribing.INCOMPLETE_EXPIRES, 5, sid,
                 lambda c: _expire(c, sid))]
    actions: list[Action] = []
    end = sub["_period"][1]
    resumes_at = (sub.get("pause_collection") or {}).get("resumes_at")
    if resumes_at is not None:  # before a renewal at the same instant: that one is collected
        actions.append((resumes_at, 0, sid, lambda c: _resume_collection(c, sid)))
    if status == "trialing" and sub.get("trial_end") and not sub.get("_trial_will_end_sent"):
        at = sub["trial_end"] - TRIAL_WILL_END
        if at > sub["created"]:
            actions.append((at, 1, sid, lambda c: _trial_will_end(c, sid)))
    cancel_at = sub.get("cancel_at")
    if cancel_at and cancel_at < end:
        actions.append((cancel_at, 2, sid, lambda c: _cancel(c, sid)))
    elif sub.get("cancel_at_period_end") or (cancel_at and cancel_at == end):
        actions.append((end, 2, sid, lambda c: _cancel(c, sid)))
    else:
        actions.append((end, 3, sid, lambda c: _renew(c, sid)))
    return actions


def _invoice_actions(inv: dict[str, Any]) -> list[Action]:
    iid = inv["id"]
    if inv["status"] == "draft" and inv.get("auto_advance") and \
            inv.get("automatically_finalizes_at"):
        return [(inv["automatically_finalizes_at"], 4, iid, lambda c: _finalize(c, iid))]
    if inv["status"] == "open" and inv.get("next_payment_attempt") and inv.get("auto_advance") \
            and inv["collection_method"] == "charge_automatically":
        return [(inv["next_payment_attempt"], 4, iid, lambda c: _retry(c, iid))]
    if inv["status"] == "open" and inv["collection_method"] == "send_invoice" and \
            inv.get("due_date") and not inv.get("_overdue"):
        return [(inv["due_date"], 4, iid, lambda c: _overdue(c, iid))]
    return []


def _overdue(ctx: Ctx, invoice_id: str) -> None:
    """A sent invoice passed its due date unpaid: its subscription goes past_due."""
    inv = ctx.get(invoice_id, "invoice")
    inv["_overdue"] = True
    ctx.put(inv)
    ctx.emit("invoice.overdue", inv)
    sub = ctx.maybe(invoicing.subscription_of(inv), "subscription")
    if sub is not None and sub["status"] in ("active", "trialing"):
        subscribing.transition(ctx, sub, "past_due")


def _trial_will_end(ctx: Ctx, sub_id: str) -> None:
    sub = ctx.get(sub_id, "subscription")
    sub["_trial_will_end_sent"] = True
    ctx.put(sub)
    ctx.emit("customer.subscription.trial_will_end", sub)


def _resume_collection(ctx: Ctx, sub_id: str) -> None:
    pausing.resume(ctx, ctx.get(sub_id, "subscription"))


def _cancel(ctx: Ctx, sub_id: str) -> None:
    subscribing.cancel_now(ctx, ctx.get(sub_id, "subscription"))


def _renew(ctx: Ctx, sub_id: str) -> None:
    subscribing.renew(ctx, ctx.get(sub_id, "subscription"))


def _expire(ctx: Ctx, sub_id: str) -> None:
    sub = ctx.get(sub_id, "subscription")
    inv = ctx.maybe(sub.get("latest_invoice"), "invoice")
    if inv is not None and inv["status"] == "open":
        collect.void(ctx, inv)
    sub["ended_at"] = ctx.now()
    subscribing.transition(ctx, sub, "incomplete_expired")


def _finalize(ctx: Ctx, invoice_id: str) -> None:
    subscribing.finalize_due(ctx, ctx.get(invoice_id, "invoice"))


def _retry(ctx: Ctx, invoice_id: str) -> None:
    inv = ctx.get(invoice_id, "invoice")
    inv["next_payment_attempt"] = None
    collect.attempt(ctx, inv)
