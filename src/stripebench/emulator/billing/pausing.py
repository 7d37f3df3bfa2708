"""Paused payment collection (a subscription's `pause_collection`).

While collection is paused the subscription stays `active` and keeps renewing, but its
new invoices are not collected (docs.stripe.com/billing/subscriptions/pause-payment):

- `keep_as_draft`: the invoice stays a draft with `auto_advance=false`; the merchant
  may finalize it later;
- `mark_uncollectible`: the invoice is finalized and at once marked uncollectible
  (`status_details.uncollectible.reason=subscription_paused` from endive), no payment
  attempted;
- `void`: the invoice is finalized and at once voided.

The behaviour is fixed when an invoice is created: invoices from before the pause are
collected (and retried) as usual. `resumes_at`, when set, ends the pause: at that
moment `pause_collection` goes back to null (a `customer.subscription.updated`) and
later invoices are collected again.
"""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..events import changed
from . import collect

BEHAVIORS = ("keep_as_draft", "mark_uncollectible", "void")


def from_params(value: Any, now: int) -> dict[str, Any] | None:
    """The stored `pause_collection` for an update's value ("" resumes collection)."""
    if value in (None, ""):
        return None
    if not isinstance(value, dict) or value.get("behavior") not in BEHAVIORS:
        raise InvalidRequest("Missing required param: pause_collection[behavior].",
                             code="parameter_missing", param="pause_collection[behavior]")
    resumes_at = value.get("resumes_at")
    if resumes_at is not None and int(resumes_at) <= now:
        raise InvalidRequest("`pause_collection[resumes_at]` must be in the future.",
                             param="pause_collection[resumes_at]")
    return {"behavior": value["behavior"],
            "resumes_at": int(resumes_at) if resumes_at is not None else None}


def behavior_now(sub: dict[str, Any], now: int) -> str | None:
    """How an invoice created now is handled: the pause behaviour, or None (collected)."""
    pause = sub.get("pause_collection")
    if not pause:
        return None
    if pause.get("resumes_at") is not None and pause["resumes_at"] <= now:
        return None
    behavior: str = pause["behavior"]
    return behavior


def mark_created(ctx: Ctx, sub: dict[str, Any], inv: dict[str, Any]) -> None:
    """A subscription invoice was just drafted: fix its fate if collection is paused."""
    behavior = behavior_now(sub, ctx.now())
    if behavior is None:
        return
    inv["_paused"] = behavior
    if behavior == "keep_as_draft":
        inv["auto_advance"] = False
        inv["automatically_finalizes_at"] = None


def settle(ctx: Ctx, inv: dict[str, Any]) -> bool:
    """At finalization time: finalize an invoice made while paused and mark it
    uncollectible or void it. False when the invoice was not made while paused."""
    behavior = inv.get("_paused")
    if behavior not in ("mark_uncollectible", "void"):
        return False
    collect.finalize(ctx, inv)
    if inv["status"] != "open":  # nothing was due: paid at finalization
        return True
    if behavior == "void":
        collect.void(ctx, inv)
    else:
        collect.mark_uncollectible(ctx, inv, "subscription_paused")
    return True


def resume(ctx: Ctx, sub: dict[str, Any]) -> None:
    """`resumes_at` has come: collection resumes."""
    before = dict(sub)
    sub["pause_collection"] = None
    ctx.put(sub)
    ctx.emit("customer.subscription.updated", sub, changed(before, sub))
