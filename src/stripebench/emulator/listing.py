"""List endpoints: newest first, limit, cursors, `created` filters."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .errors import InvalidRequest

if TYPE_CHECKING:
    from .context import Ctx

Predicate = Callable[[dict[str, Any]], bool]


def check_limit(params: dict[str, Any], default: int = 10) -> int:
    limit = params.get("limit", default)
    if limit is None:
        return default
    if not 1 <= int(limit) <= 100:
        raise InvalidRequest("Invalid limit: must be between 1 and 100", param="limit")
    return int(limit)


def range_filter(spec: Any, value: int | None) -> bool:
    """`created=123` or `created[gte]=...` style filters."""
    if spec is None:
        return True
    if value is None:
        return False
    if isinstance(spec, int):
        return value == spec
    ops = {"gt": value.__gt__, "gte": value.__ge__, "lt": value.__lt__, "lte": value.__le__}
    return all(ops[op](int(bound)) for op, bound in spec.items() if op in ops)


def paginate(ctx: Ctx, items: Iterable[dict[str, Any]], params: dict[str, Any], url: str,
             where: Predicate | None = None) -> dict[str, Any]:
    """Page through `items` (newest first) the way Stripe lists do."""
    limit = check_limit(params)
    created = params.get("created")
    starting_after = params.get("starting_after")
    ending_before = params.get("ending_before")
    if starting_after and ending_before:
        raise InvalidRequest("You may only specify one of these parameters: ending_before, "
                             "starting_after.", param="ending_before")

    def keep(obj: dict[str, Any]) -> bool:
        return range_filter(created, obj.get("created")) and (where is None or where(obj))

    # Pre-basil `include[]=total_count` (see billing/versions.py) counts every match.
    count_all = bool(getattr(ctx, "include_total_count", False))
    if count_all:
        items = list(items)

    seq = ctx.account.seq
    if starting_after:
        cursor = _cursor_seq(ctx, starting_after, "starting_after")
        page: list[dict[str, Any]] = []
        for obj in items:
            if seq.get(obj["id"], -1) < cursor and keep(obj):
                page.append(obj)
                if len(page) > limit:
                    break
        has_more = len(page) > limit
        data = page[:limit]
    elif ending_before:
        cursor = _cursor_seq(ctx, ending_before, "ending_before")
        newer = [o for o in items if seq.get(o["id"], -1) > cursor and keep(o)]
        has_more = len(newer) > limit
        data = newer[-limit:] if newer else []
    else:
        page = []
        for obj in items:
            if keep(obj):
                page.append(obj)
                if len(page) > limit:
                    break
        has_more = len(page) > limit
        data = page[:limit]
    result = {"object": "list", "data": data, "has_more": has_more, "url": url}
    if count_all:
        result["total_count"] = sum(1 for obj in items if keep(obj))
    return result


def _cursor_seq(ctx: Ctx, object_id: Any, param: str) -> int:
    if object_id not in ctx.account.seq:
        raise InvalidRequest(f"No such object: '{object_id}'", param=param, code="resource_missing",
                             status=404)
    return ctx.account.seq[object_id]


def list_of(data: list[dict[str, Any]], url: str, has_more: bool = False) -> dict[str, Any]:
    """A list object for embedded lists (line items, refunds on a charge)."""
    return {"object": "list", "data": data, "has_more": has_more, "url": url}
