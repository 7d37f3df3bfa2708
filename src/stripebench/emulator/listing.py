"""List endpoints: newest first, limit, cursors, `created` filters."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .errors import InvalidRequest
from .indexes import TypeWalk, index_key, path_value

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


# An exact filter narrows a list to its index bucket when the bucket is at most this big;
# a bigger bucket is dense enough that walking from the cursor finds a page quickly.
NARROW_AT_MOST = 4096


def paginate(ctx: Ctx, items: Iterable[dict[str, Any]], params: dict[str, Any], url: str,
             where: Predicate | None = None,
             exact: dict[str, Any] | None = None) -> dict[str, Any]:
    """Page through `items` (newest first) the way Stripe lists do.

    `exact` maps dotted field paths to the value a list filter asks for (`{"customer":
    "cus_1"}`; None means no filter): each object must hold exactly that value, and when
    `items` is an account's `iter_type` walk, the field's index narrows the candidates.
    """
    limit = check_limit(params)
    created = params.get("created")
    starting_after = params.get("starting_after")
    ending_before = params.get("ending_before")
    if starting_after and ending_before:
        raise InvalidRequest("You may only specify one of these parameters: ending_before, "
                             "starting_after.", param="ending_before")
    wanted = [(tuple(path.split(".")), value) for path, value in (exact or {}).items()
              if value is not None]

    def keep(obj: dict[str, Any]) -> bool:
        return (range_filter(created, obj.get("created"))
                and all(path_value(obj, path) == value for path, value in wanted)
                and (where is None or where(obj)))

    walk = items if isinstance(items, TypeWalk) and items.newest_first else None
    if walk is not None and wanted:
        walk = _narrow(walk, wanted)
        items = walk
    # Pre-basil `include[]=total_count` (see billing/versions.py) counts every match.
    count_all = bool(getattr(ctx, "include_total_count", False))
    if count_all:
        items = list(items)

    seq = ctx.account.seq
    if ending_before:
        cursor = _cursor_seq(ctx, ending_before, "ending_before")
        # Walk away from the cursor towards the newest; the page is the `limit` closest.
        newer = (walk.newer_than(cursor) if walk is not None else
                 reversed([o for o in items if seq.get(o["id"], -1) > cursor]))
        page = _first(newer, keep, limit + 1)
        has_more = len(page) > limit
        data = page[:limit][::-1]
    else:
        if starting_after:
            cursor = _cursor_seq(ctx, starting_after, "starting_after")
            older: Iterable[dict[str, Any]] = (
                walk.older_than(cursor) if walk is not None else
                (o for o in items if seq.get(o["id"], -1) < cursor))
        else:
            older = items
        page = _first(older, keep, limit + 1)
        has_more = len(page) > limit
        data = page[:limit]
    result = {"object": "list", "data": data, "has_more": has_more, "url": url}
    if count_all:
        result["total_count"] = sum(1 for obj in items if keep(obj))
    return result


def _first(items: Iterable[dict[str, Any]], keep: Predicate, count: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for obj in items:
        if keep(obj):
            found.append(obj)
            if len(found) >= count:
                break
    return found


def _narrow(walk: TypeWalk, wanted: list[tuple[tuple[str, ...], Any]]) -> TypeWalk:
    """The walk restricted to the smallest index bucket among the filters, if small."""
    if walk.index is None:
        return walk
    best: set[str] | None = None
    for path, value in wanted:
        key = index_key(value)
        if key is None:
            continue
        bucket = walk.index(path).lookup([key])
        if best is None or len(bucket) < len(best):
            best = bucket
    if best is None or len(best) > NARROW_AT_MOST:
        return walk
    return walk.only(best)


def _cursor_seq(ctx: Ctx, object_id: Any, param: str) -> int:
    if object_id not in ctx.account.seq:
        raise InvalidRequest(f"No such object: '{object_id}'", param=param, code="resource_missing",
                             status=404)
    return ctx.account.seq[object_id]


def list_of(data: list[dict[str, Any]], url: str, has_more: bool = False) -> dict[str, Any]:
    """A list object for embedded lists (line items, refunds on a charge)."""
    return {"object": "list", "data": data, "has_more": has_more, "url": url}
