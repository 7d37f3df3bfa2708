"""Canonical projections of Stripe state, and collateral-change checks.

Graders compare what matters (amounts, modes, line items, which promotion code) and not
what differs run to run (generated ids, timestamps, secrets, URLs). `canonical` strips
the latter and replaces generated ids with a typed placeholder ("<prod>"), keeping ids a
task fixed on purpose (fixture ids like "prod_tshirt") so graders can still name them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

VOLATILE_KEYS = frozenset({"id", "created", "updated", "client_secret", "url", "livemode",
                           "request", "idempotency_key", "secret", "last_response",
                           "expires_at", "next_action", "receipt_url", "hosted_invoice_url",
                           "invoice_pdf", "return_url", "success_url", "cancel_url",
                           # generated per account/charge, like ids
                           "invoice_prefix", "receipt_number"})
GENERATED_ID = re.compile(r"^([a-z]+(?:_[a-z]+)*?)_(?:test_)?[A-Za-z0-9]{14,}$")


def _is_timestamp_key(key: str) -> bool:
    return key.endswith("_at") or key in ("created", "updated", "date", "period_start",
                                          "period_end")


def canonical(value: Any, *, keep_ids: Iterable[str] = (), drop: Iterable[str] = (),
              sort_lists: bool = False) -> Any:
    """`value` with volatile fields removed and generated ids replaced by "<prefix>"."""
    keep = set(keep_ids)
    dropped = VOLATILE_KEYS | set(drop)

    def walk(item: Any) -> Any:
        if isinstance(item, dict):
            out = {}
            for key in sorted(item):
                if key in dropped or key.startswith("_") or _is_timestamp_key(key):
                    continue
                out[key] = walk(item[key])
            return out
        if isinstance(item, list):
            items = [walk(v) for v in item]
            if sort_lists:
                items.sort(key=lambda v: json.dumps(v, sort_keys=True))
            return items
        if isinstance(item, str) and item not in keep:
            found = GENERATED_ID.match(item)
            if found:
                return f"<{found.group(1)}>"
        return item

    return walk(value)


def objects_of(snapshot: dict[str, Any], object_type: str,
               where: Callable[[dict[str, Any]], bool] | None = None) -> list[dict[str, Any]]:
    """Objects of one type from an account snapshot, oldest first."""
    return [o for o in snapshot.get("objects", [])
            if o.get("object") == object_type and (where is None or where(o))]


def state(snapshot: dict[str, Any], types: Iterable[str], *, keep_ids: Iterable[str] = (),
          drop: Iterable[str] = ()) -> dict[str, list[Any]]:
    """{type: sorted canonical objects}: a stable view of an account to compare or print."""
    view = {}
    for object_type in types:
        items = [canonical(o, keep_ids=keep_ids, drop=drop)
                 for o in objects_of(snapshot, object_type)]
        view[object_type] = sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    return view


def collateral_changes(before: dict[str, Any], after: dict[str, Any], *,
                       types: Iterable[str] | None = None,
                       allowed: Callable[[dict[str, Any], dict[str, Any] | None], bool]
                       | None = None,
                       ignore: Iterable[str] = ("updated",)) -> list[str]:
    """Objects that existed in `before` and were changed or deleted in `after`.

    `types` limits the check to some object types; `allowed(old, new)` may excuse a change
    the task asked for. Returns readable descriptions, empty when nothing was touched.
    """
    wanted = set(types) if types is not None else None
    ignored = set(ignore)
    now = {o["id"]: o for o in after.get("objects", [])}
    changes = []
    for old in before.get("objects", []):
        if wanted is not None and old.get("object") not in wanted:
            continue
        new = now.get(old["id"])
        if new is not None and new.get("deleted") and not old.get("deleted"):
            new_view = None
        else:
            new_view = new
        if new_view is not None:
            fields = sorted(k for k in set(old) | set(new_view)
                            if k not in ignored and not k.startswith("_")
                            and old.get(k) != new_view.get(k))
            if not fields:
                continue
            if allowed is not None and allowed(old, new_view):
                continue
            changes.append(f"{old['object']} {old['id']} changed: {', '.join(fields)}")
        else:
            if allowed is not None and allowed(old, None):
                continue
            changes.append(f"{old['object']} {old['id']} deleted")
    return changes
