"""Webhook endpoints and the delivery of events to them as signed POSTs.

Delivery stays off the request's hot path: the event listener only renders the
payload (in the endpoint's API version, at the moment the event happened) and queues
it; an asyncio task on the server's loop sends it, retrying failures on a fixed,
bounded backoff schedule. Payload bytes and the order of attempts are deterministic.
The one wall-clock read is the signature timestamp: receivers check it against their
own clock (the SDKs reject anything older than five minutes), so it must be real time.

Where deliveries may go: the emulator runs on the host, so a POST to any URL would be a
way out of a trial's sandbox. Deliveries go to loopback addresses only (localhost,
127.0.0.0/8, ::1; no other name is resolved). An account the harness gave delivery
routes (`POST /_emulator/accounts/{id}/webhook_routes`, one per declared service port)
reaches exactly those ports, inside its trial's network namespace; any other URL is
refused and the delivery record says why.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import logging
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx

from ...sandbox.sockets import pinned_socket_path
from .. import events, render
from ..context import Ctx
from ..errors import InvalidRequest
from ..http import dumps
from ..listing import paginate
from ..router import api
from ..store import Store
from ._common import apply, deleted, merge_metadata

log = logging.getLogger("stripebench.emulator.webhooks")

# Seconds to wait before each retry of a failed delivery (then give up). Deterministic
# and short: trials last minutes, not the three days Stripe keeps trying.
RETRY_SCHEDULE: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0, 16.0)
DELIVERY_TIMEOUT = 10.0
MAX_PARALLEL = 8
USER_AGENT = "Stripe/1.0 (+https://stripe.com/docs/webhooks)"


# ------------------------------------------------------------------ endpoints CRUD

def _check_url(url: str) -> str:
    if not url.startswith(("http://", "https://")) or len(url) < 10:
        raise InvalidRequest(f"Invalid URL: {url}. URLs must begin with http:// or https://.",
                             param="url", code="url_invalid")
    return url


@api("POST", "/v1/webhook_endpoints")
def create_endpoint(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    enabled = list(params["enabled_events"])
    if not enabled:
        raise InvalidRequest("You must specify at least one event type in enabled_events.",
                             param="enabled_events")
    endpoint = ctx.new("webhook_endpoint", "we", url=_check_url(params["url"]),
                       enabled_events=enabled, api_version=params.get("api_version"),
                       description=params.get("description"), status="enabled",
                       metadata=merge_metadata({}, params.get("metadata") or {}))
    endpoint["_secret"] = ctx.new_id("whsec")
    endpoint["_connect"] = bool(params.get("connect"))
    ctx.put(endpoint)
    # The secret is shown once, in the create response; retrieves leave it out.
    return {**endpoint, "secret": endpoint["_secret"]}


@api("GET", "/v1/webhook_endpoints/{webhook_endpoint}")
def retrieve_endpoint(ctx: Ctx, params: dict[str, Any], webhook_endpoint: str) -> dict[str, Any]:
    return ctx.get(webhook_endpoint, "webhook_endpoint", kind="webhook endpoint")


@api("POST", "/v1/webhook_endpoints/{webhook_endpoint}")
def update_endpoint(ctx: Ctx, params: dict[str, Any], webhook_endpoint: str) -> dict[str, Any]:
    endpoint = ctx.get(webhook_endpoint, "webhook_endpoint", kind="webhook endpoint")
    if "url" in params:
        _check_url(params["url"])
    if "enabled_events" in params and not params["enabled_events"]:
        raise InvalidRequest("You must specify at least one event type in enabled_events.",
                             param="enabled_events")
    apply(endpoint, params, ("url", "enabled_events", "description", "metadata"))
    if "disabled" in params:
        endpoint["status"] = "disabled" if params["disabled"] else "enabled"
    ctx.put(endpoint)
    return endpoint


@api("DELETE", "/v1/webhook_endpoints/{webhook_endpoint}")
def delete_endpoint(ctx: Ctx, params: dict[str, Any], webhook_endpoint: str) -> dict[str, Any]:
    endpoint = ctx.get(webhook_endpoint, "webhook_endpoint", kind="webhook endpoint")
    ctx.remove(webhook_endpoint)
    return deleted(endpoint)


@api("GET", "/v1/webhook_endpoints")
def list_endpoints(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return paginate(ctx, ctx.account.iter_type("webhook_endpoint"), params,
                    "/v1/webhook_endpoints")


# ------------------------------------------------------------------ delivery

def sign(secret: str, timestamp: int, payload: bytes) -> str:
    """The `Stripe-Signature` header: `t=<unix time>,v1=<hex HMAC-SHA256 of "t.payload">`."""
    signed = f"{timestamp}.".encode() + payload
    digest = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


# ------------------------------------------------------------------ where deliveries go

DIRECT = "direct"  # a route to the port on the host's own loopback (a local sandbox)


def is_loopback(host: str) -> bool:
    host = host.lower().strip("[]")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def set_routes(store: Store, account_id: str, routes: dict[str, str]) -> dict[int, str]:
    """Deliveries for `account_id` (and its connected accounts) to loopback port P go to
    routes[P]: `unix:/path` (a socket into the trial's sandbox) or `direct`."""
    checked: dict[int, str] = {}
    for port, target in routes.items():
        if not str(port).isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"webhook route port {port!r} is not a TCP port")
        if target != DIRECT and not (isinstance(target, str) and target.startswith("unix:/")):
            raise ValueError(f"webhook route target {target!r} must be 'direct' or unix:/PATH")
        checked[int(port)] = target
    store.extensions.setdefault("webhook_routes", {})[account_id] = checked
    return checked


def route_for(store: Store, account_id: str, url: str,
              own_origin: str = "") -> tuple[str | None, str | None]:
    """(unix socket path or None for a direct connection, None) where this delivery may
    go, or (None, why it may not). `own_origin`: the emulator's own address, never a
    target (a POST to its /_emulator/reset would wipe every account)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None, f"Webhook delivery refused: {url} has no valid port."
    own = urlsplit(own_origin)
    if unquote(parts.path).lstrip("/").lower().startswith("_emulator") or (
            own.port is not None and port == own.port and is_loopback(own.hostname or "")):
        return None, ("Webhook delivery refused: that address is the Stripe emulator "
                      "itself, not one of your services.")
    if not is_loopback(host):
        return None, (f"Webhook delivery refused: the local Stripe emulator delivers only to "
                      f"loopback addresses (your own services, e.g. http://localhost:PORT), "
                      f"not to {host!r}.")
    all_routes: dict[str, dict[int, str]] = store.extensions.get("webhook_routes", {})
    account = store.accounts.get(account_id)
    routes = all_routes.get(account_id)
    if routes is None and account is not None and account.parent:
        routes = all_routes.get(account.parent)
    if routes is None:
        return None, None  # no trial behind this account: the host's loopback
    target = routes.get(port)
    if target is None:
        open_ports = ", ".join(str(p) for p in sorted(routes)) or "none"
        return None, (f"Webhook delivery refused: port {port} is not one of this trial's "
                      f"services (reachable ports: {open_ports}).")
    return (None if target == DIRECT else target.removeprefix("unix:")), None


@dataclass
class Delivery:
    account: str
    endpoint: str
    event: str
    event_type: str
    url: str
    secret: str
    payload: bytes
    route_account: str = ""  # whose delivery routes apply: the endpoint's owner
    emulator_origin: str = ""  # the emulator's own address: never a target
    attempts: list[dict[str, Any]] = field(default_factory=list)
    state: str = "pending"  # pending | delivered | failed


class Dispatcher:
    """Per-store delivery queue, drained by tasks on the running event loop."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.log: list[Delivery] = []
        self.waiting: list[Delivery] = []  # queued while no event loop was running
        self.tasks: set[asyncio.Task[None]] = set()
        self.gate: asyncio.Semaphore | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    def submit(self, delivery: Delivery) -> None:
        self.log.append(delivery)
        if len(self.log) > 10_000:
            del self.log[:1000]
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.waiting.append(delivery)
            return
        if self.loop is not loop:
            self.loop, self.gate = loop, asyncio.Semaphore(MAX_PARALLEL)
        for item in [*self.waiting, delivery]:
            task = loop.create_task(self._run(item))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        self.waiting.clear()

    async def _run(self, delivery: Delivery) -> None:

        assert self.gate is not None
        for attempt in range(len(RETRY_SCHEDULE) + 1):
            if attempt:
                await asyncio.sleep(RETRY_SCHEDULE[attempt - 1])
            # decided per attempt: a trial's routes change when grading starts its services
            socket_path, refused = route_for(self.store, delivery.route_account, delivery.url,
                                             delivery.emulator_origin)
            if refused:
                delivery.attempts.append({"attempt": attempt + 1, "status": None,
                                          "error": refused})
                break
            async with self.gate:
                status, error = await self._attempt_via(socket_path, delivery)
            delivery.attempts.append({"attempt": attempt + 1, "status": status,
                                      "error": error})
            if status is not None and 200 <= status < 300:
                delivery.state = "delivered"
                return
        delivery.state = "failed"

    async def _attempt_via(self, socket_path: str | None,
                           delivery: Delivery) -> tuple[int | None, str | None]:

        if socket_path is None:
            async with httpx.AsyncClient(timeout=DELIVERY_TIMEOUT) as client:
                return await self._attempt(client, delivery)
        try:
            with pinned_socket_path(socket_path) as pinned:
                transport = httpx.AsyncHTTPTransport(uds=pinned)
                async with httpx.AsyncClient(timeout=DELIVERY_TIMEOUT,
                                             transport=transport) as client:
                    return await self._attempt(client, delivery)
        except OSError as exc:  # the trial's socket is gone, or was replaced
            return None, f"{type(exc).__name__}: {exc}"

    @staticmethod
    async def _attempt(client: Any, delivery: Delivery) -> tuple[int | None, str | None]:
        headers = {"Content-Type": "application/json; charset=utf-8",
                   "User-Agent": USER_AGENT,
                   "Stripe-Signature": sign(delivery.secret, int(time.time()), delivery.payload)}
        try:
            response = await client.post(delivery.url, content=delivery.payload, headers=headers)
        except Exception as exc:  # noqa: BLE001 - any network failure is a failed attempt
            return None, f"{type(exc).__name__}: {exc}"
        return response.status_code, None


def dispatcher(store: Store) -> Dispatcher:
    found = store.extensions.get("webhooks")
    if found is None:
        found = store.extensions["webhooks"] = Dispatcher(store)
    assert isinstance(found, Dispatcher)
    return found


def _wants(endpoint: dict[str, Any], event_type: str) -> bool:
    enabled = endpoint.get("enabled_events") or []
    return "*" in enabled or event_type in enabled


def _endpoints_for(ctx: Ctx) -> list[dict[str, Any]]:
    """Endpoints that hear this account's events: its own, or its platform's Connect ones."""
    own = [e for e in ctx.account.iter_type("webhook_endpoint") if not e.get("_connect")]
    if ctx.account.parent:
        platform = ctx.store.accounts.get(ctx.account.parent)
        if platform is not None:
            own += [e for e in platform.iter_type("webhook_endpoint") if e.get("_connect")]
    return own


def _targets(ctx: Ctx, event_type: str) -> list[dict[str, Any]]:
    return [e for e in _endpoints_for(ctx)
            if e.get("status") == "enabled" and _wants(e, event_type)]


def listening(ctx: Ctx, event_type: str) -> bool:
    """Whether any enabled endpoint would receive an event of this type."""
    return bool(_targets(ctx, event_type))


def on_event(ctx: Ctx, event: dict[str, Any]) -> None:
    targets = _targets(ctx, event["type"])
    if not targets:
        return
    event["pending_webhooks"] = len(targets)
    queue = dispatcher(ctx.store)
    for endpoint in targets:
        version = endpoint.get("api_version") or ctx.account.api_version or ctx.version
        view = Ctx(ctx.store, ctx.account, version=version, request_id=ctx.request_id,
                   local_origin=ctx.local_origin, routed=ctx.routed)
        # Rendered in the endpoint's version, and saying so: stripe-go's ConstructEvent
        # refuses an event whose api_version differs from the SDK's.
        payload = dumps({**render.render(view, event), "api_version": version})
        queue.submit(Delivery(account=ctx.account.id, endpoint=endpoint["id"], event=event["id"],
                              event_type=event["type"], url=endpoint["url"],
                              secret=endpoint["_secret"], payload=payload,
                              emulator_origin=ctx.local_origin,
                              route_account=ctx.account.parent if endpoint.get("_connect")
                              and ctx.account.parent else ctx.account.id))


def delivery_log(store: Store, account_id: str) -> list[dict[str, Any]]:
    """What the control plane shows: every queued delivery of an account, oldest first."""
    return [{"event": d.event, "type": d.event_type, "endpoint": d.endpoint, "url": d.url,
             "state": d.state, "attempts": list(d.attempts)}
            for d in dispatcher(store).log if d.account == account_id]


if on_event not in events.LISTENERS:
    events.LISTENERS.append(on_event)
