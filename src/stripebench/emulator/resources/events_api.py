"""Events: retrieve and list (filters `type`, `types`, `created`)."""

from __future__ import annotations

import fnmatch
from typing import Any

from ..context import Ctx
from ..listing import paginate
from ..router import api


@api("GET", "/v1/events/{id}")
def retrieve(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:
    return ctx.get(id, "event")


@api("GET", "/v1/events")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    patterns = [params["type"]] if params.get("type") else list(params.get("types") or [])

    def where(e: dict[str, Any]) -> bool:
        return not patterns or any(fnmatch.fnmatchcase(e["type"], p) for p in patterns)
    return paginate(ctx, ctx.account.iter_type("event"), params, "/v1/events", where)
