"""Invoice previews: `POST /v1/invoices/create_preview` (every version) and, before
2025-03-31.basil, `GET /v1/invoices/upcoming` and `/v1/invoices/upcoming/lines`."""

from __future__ import annotations

import copy
from typing import Any

from .. import schema
from ..billing import preview
from ..billing.versions import BASIL
from ..context import Ctx
from ..errors import InvalidRequest, Unsupported
from ..router import api
from ..versions import older_than
from .invoices import page_lines

_PREVIEW = schema.endpoint("POST", "/v1/invoices/create_preview") or {"params": {}}
_DETAILS = _PREVIEW["params"]["properties"]["subscription_details"]["properties"]
# The flat `subscription_*` params the upcoming endpoints took before basil.
_FLAT = {"subscription_items": _DETAILS["items"],
         "subscription_proration_date": {"type": "integer"},
         "subscription_proration_behavior": _DETAILS["proration_behavior"],
         "subscription_billing_cycle_anchor": {"type": "any"},
         "subscription_trial_end": {"type": "any"},
         "subscription_cancel_at_period_end": {"type": "boolean"},
         "subscription_cancel_now": {"type": "boolean"},
         "subscription_start_date": {"type": "integer"},
         "coupon": {"type": "string"}, "limit": {"type": "integer"},
         "starting_after": {"type": "string"}, "ending_before": {"type": "string"}}
UPCOMING_PARAMS: dict[str, Any] = {"type": "object", "properties": {
    **copy.deepcopy(_PREVIEW["params"]["properties"]), **_FLAT}}


@api("POST", "/v1/invoices/create_preview")
def create_preview(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return preview.preview(ctx, params)


def _upcoming_params(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    if not older_than(ctx.version, BASIL):
        raise InvalidRequest("The upcoming invoice endpoints were removed in API version "
                             "2025-03-31.basil; use POST /v1/invoices/create_preview.",
                             code="api_version_unsupported", status=400)
    out = dict(params)
    details = dict(out.pop("subscription_details", None) or {})
    for flat, nested in (("subscription_items", "items"),
                         ("subscription_proration_date", "proration_date"),
                         ("subscription_proration_behavior", "proration_behavior"),
                         ("subscription_trial_end", "trial_end"),
                         ("subscription_cancel_at_period_end", "cancel_at_period_end")):
        if flat in out:
            details[nested] = out.pop(flat)
    if "subscription_billing_cycle_anchor" in out:  # `now` / `unchanged` / a timestamp
        anchor = out.pop("subscription_billing_cycle_anchor")
        details["billing_cycle_anchor"] = {"type": anchor} if anchor in (
            "now", "unchanged") else {"type": "timestamp", "timestamp": anchor}
    if out.pop("coupon", None):
        raise Unsupported("coupon on upcoming invoices (use discounts)", param="coupon")
    out["subscription_details"] = details
    return out


@api("GET", "/v1/invoices/upcoming", params=UPCOMING_PARAMS)
def upcoming(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    params = _upcoming_params(ctx, params)
    for name in ("limit", "starting_after", "ending_before"):
        params.pop(name, None)
    inv = preview.preview(ctx, params)
    inv["id"] = None  # an upcoming invoice has no id before basil
    return inv


@api("GET", "/v1/invoices/upcoming/lines", params=UPCOMING_PARAMS)
def upcoming_lines(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    params = _upcoming_params(ctx, params)
    paging: dict[str, Any] = {k: params.pop(k) for k in ("limit", "starting_after", "ending_before")
              if k in params}
    inv = preview.preview(ctx, params)
    return page_lines(ctx, inv["lines"]["data"], paging, "/v1/invoices/upcoming/lines")
