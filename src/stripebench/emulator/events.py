"""Events: every state change writes an Event; listeners (webhook delivery) are told."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .shape import clone, snapshot

if TYPE_CHECKING:
    from .context import Ctx

Listener = Callable[["Ctx", dict[str, Any]], None]
LISTENERS: list[Listener] = []


def emit(ctx: Ctx, event_type: str, obj: dict[str, Any],
         previous_attributes: dict[str, Any] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"object": snapshot(obj)}
    if previous_attributes:
        data["previous_attributes"] = clone(previous_attributes)
    event = ctx.new("event", "evt", type=event_type, data=data,
                    api_version=ctx.account.api_version, pending_webhooks=0,
                    request={"id": ctx.request_id or None,
                             "idempotency_key": ctx.idempotency_key})
    event["livemode"] = False
    if ctx.account.parent:  # events of a connected account name it (Connect webhooks)
        event["account"] = ctx.account.id
    ctx.put(event)
    for listener in LISTENERS:
        listener(ctx, event)
    return event


def changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """previous_attributes: the old values of the top-level fields that changed."""
    return {k: before.get(k) for k in after if not k.startswith("_") and before.get(k) != after[k]}
