"""Events: every state change writes an Event (Ctx.emit, in context.py); listeners
(webhook delivery, billing's reactions) register in LISTENERS and are told."""

from __future__ import annotations

from typing import Any

from .context import LISTENERS, Listener

__all__ = ["LISTENERS", "Listener", "changed"]


def changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """previous_attributes: the old values of the top-level fields that changed."""
    return {k: before.get(k) for k in after if not k.startswith("_") and before.get(k) != after[k]}
