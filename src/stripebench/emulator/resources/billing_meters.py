"""Billing meters and meter events (v1 and v2), usage summaries.

A meter event names its meter by `event_name`; the customer comes from the payload key
of the meter's `customer_mapping` (default `stripe_customer_id`) and the value from
`value_settings.event_payload_key` (default `value`). Events are stored privately
resolved (`_meter`, `_customer`, `_value`) so renewals can aggregate them
(`billing/metering.py`). An event without `timestamp` happens at the customer's time.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from ..billing import timing
from ..billing.metering import usage
from ..context import Ctx
from ..errors import InvalidRequest
from ..listing import list_of, paginate
from ..router import api


@api("POST", "/v1/billing/meters")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    name = params["event_name"]
    if any(m["event_name"] == name and m["status"] == "active"
           for m in ctx.account.iter_type("billing.meter")):
        raise InvalidRequest(f"An active meter with event_name `{name}` already exists.",
                             param="event_name")
    mapping = params.get("customer_mapping") or {"event_payload_key": "stripe_customer_id",
                                                 "type": "by_id"}
    meter = ctx.new("billing.meter", "mtr", customer_mapping=mapping,
                    default_aggregation={"formula": params["default_aggregation"]["formula"]},
                    display_name=params["display_name"], event_name=name,
                    event_time_window=params.get("event_time_window"), status="active",
                    status_transitions={"deactivated_at": None}, updated=ctx.now(),
                    value_settings=params.get("value_settings") or {"event_payload_key":
                                                                    "value"})
    ctx.put(meter)
    return meter


@api("GET", "/v1/billing/meters/{id}")
def retrieve(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:
    return ctx.get(id, "billing.meter", kind="billing.meter")


@api("POST", "/v1/billing/meters/{id}")
def update(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:
    meter = ctx.get(id, "billing.meter", kind="billing.meter")
    if "display_name" in params:
        meter["display_name"] = params["display_name"]
    meter["updated"] = ctx.now()
    return ctx.put(meter)


def _set_status(ctx: Ctx, id: str, status: str) -> dict[str, Any]:
    meter = ctx.get(id, "billing.meter", kind="billing.meter")
    meter["status"] = status
    meter["status_transitions"] = {"deactivated_at": ctx.now() if status == "inactive"
                                   else None}
    meter["updated"] = ctx.now()
    return ctx.put(meter)


@api("POST", "/v1/billing/meters/{id}/deactivate")
def deactivate(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:
    return _set_status(ctx, id, "inactive")


@api("POST", "/v1/billing/meters/{id}/reactivate")
def reactivate(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:
    return _set_status(ctx, id, "active")


@api("GET", "/v1/billing/meters")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return paginate(ctx, ctx.account.iter_type("billing.meter"), params, "/v1/billing/meters",
                    lambda m: not params.get("status") or m["status"] == params["status"])


def record(ctx: Ctx, event_name: str, payload: dict[str, Any], identifier: str | None,
           timestamp: int | None, prefix: str = "payload") -> dict[str, Any]:
    """Store one meter event (shared by the v1 endpoint and the v2 ones)."""
    meter = next((m for m in ctx.account.iter_type("billing.meter")
                  if m["event_name"] == event_name and m["status"] == "active"), None)
    if meter is None:
        raise InvalidRequest(f"No active meter was found matching event_name `{event_name}`.",
                             code="resource_missing", param="event_name")
    customer_key = meter["customer_mapping"]["event_payload_key"]
    value_key = meter["value_settings"]["event_payload_key"]
    customer = ctx.get(payload.get(customer_key), "customer", f"{prefix}[{customer_key}]")
    raw = payload.get(value_key, "1" if meter["default_aggregation"]["formula"] == "count"
                      else None)
    try:
        value = Decimal(str(raw))
    except (InvalidOperation, ValueError):
        raise InvalidRequest(f"The meter event payload's `{value_key}` must be a number.",
                             param=f"{prefix}[{value_key}]") from None
    if identifier and any(e.get("identifier") == identifier
                          for e in ctx.account.iter_type("billing.meter_event")):
        raise InvalidRequest(f"A meter event with identifier `{identifier}` already exists.",
                             param="identifier")
    cctx = timing.for_customer(ctx, customer)
    event = cctx.new("billing.meter_event", "mev", event_name=event_name,
                     identifier=identifier or ctx.new_id("mev"), payload=dict(payload),
                     timestamp=int(timestamp) if timestamp is not None else cctx.now())
    event["_meter"], event["_customer"], event["_value"] = meter["id"], customer["id"], \
        str(value)
    cctx.put(event)
    return event


@api("POST", "/v1/billing/meter_events")
def create_event(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return record(ctx, params["event_name"], params["payload"], params.get("identifier"),
                  params.get("timestamp"))


def _iso(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _from_iso(text: str | None) -> int | None:
    if not text:
        return None
    try:
        return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())
    except ValueError:
        raise InvalidRequest(f"Invalid timestamp: {text}", param="timestamp") from None


def _v2_view(event: dict[str, Any]) -> dict[str, Any]:
    return {"object": "v2.billing.meter_event", "created": _iso(event["created"]),
            "event_name": event["event_name"], "identifier": event["identifier"],
            "livemode": False, "payload": event["payload"],
            "timestamp": _iso(event["timestamp"])}


@api("POST", "/v2/billing/meter_events")
def create_event_v2(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    event = record(ctx, params["event_name"], params["payload"], params.get("identifier"),
                   _from_iso(params.get("timestamp")))
    return _v2_view(event)


@api("POST", "/v2/billing/meter_event_session")
def create_session(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    session_id = ctx.new_id("mes")
    return {"id": session_id, "object": "v2.billing.meter_event_session",
            "authentication_token": ctx.secret_for(session_id), "created": _iso(ctx.now()),
            "expires_at": _iso(ctx.now() + 900), "livemode": False}


@api("POST", "/v2/billing/meter_event_stream")
def stream(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    for n, spec in enumerate(params["events"]):
        record(ctx, spec["event_name"], spec["payload"], spec.get("identifier"),
               _from_iso(spec.get("timestamp")), prefix=f"events[{n}][payload]")
    return {}


@api("GET", "/v1/billing/meters/{id}/event_summaries")
def event_summaries(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:
    meter = ctx.get(id, "billing.meter", kind="billing.meter")
    customer = ctx.get(params["customer"], "customer", "customer")
    start, end = int(params["start_time"]), int(params["end_time"])
    if end <= start:
        raise InvalidRequest("end_time must be after start_time.", param="end_time")
    window = {"hour": 3600, "day": timing.DAY}.get(params.get("value_grouping_window") or "")
    spans = [(s, min(s + window, end)) for s in range(start, end, window)] if window \
        else [(start, end)]
    price_like = {"recurring": {"meter": meter["id"]}}
    data = []
    for s, e in reversed(spans):
        summary = {"id": f"mtrusg_{meter['id'][4:]}_{s}", "object":
                   "billing.meter_event_summary", "aggregated_value": float(usage(
                       ctx, price_like, customer["id"], s, e)), "end_time": e,
                   "livemode": False, "meter": meter["id"], "start_time": s}
        data.append(summary)
    limit = int(params.get("limit") or 10)
    return list_of(data[:limit], f"/v1/billing/meters/{meter['id']}/event_summaries",
                   has_more=len(data) > limit)
