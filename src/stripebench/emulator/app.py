"""The emulator's ASGI application: host routing, auth, versions, idempotency, errors.

Plain ASGI (no framework) keeps the hot path short: one dict lookup for the route,
schema validation, the handler, rendering, one JSON encode.
"""

from __future__ import annotations

import base64
import hashlib
import inspect
import logging
import traceback
from typing import Any

import orjson

from . import (
    control,
    forms,
    intake,
    multipart,
    render,
    request_log,
    resources,
    router,
    versions,
    web,
)
from .billing import versions as billing_versions
from .context import Ctx
from .errors import AuthenticationError, IdempotencyError, InvalidRequest, StripeError
from .http import Request, Response, canonical_json, dumps
from .store import Account, Store
from .validate import validate_params
from .web import STRIPE_HOSTS, Web, find

log = logging.getLogger("stripebench.emulator")
IDEMPOTENCY_WINDOW = 24 * 3600
IDEMPOTENCY_KEY_MAX = 255
CORS = {
    "access-control-allow-origin": "*",
    "access-control-allow-headers": "Authorization, Content-Type, Stripe-Version, "
                                    "Stripe-Account, Idempotency-Key, X-Stripe-Client-User-Agent",
    "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
    "access-control-expose-headers": "Request-Id, Idempotent-Replayed, Stripe-Version",
}


async def read_body(receive: Any, headers: dict[str, str], limit: int) -> bytes | Response:
    """The request body, or a 413 once it is known to pass `limit` (read no further)."""
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return _too_large(int(declared), limit)
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return _too_large(size, limit)
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def _too_large(size: int, limit: int) -> Response:
    response = Response.json(intake.too_large(size, limit).body(), 413)
    response.headers["connection"] = "close"  # the rest of the body is never read
    return response


class EmulatorApp:
    def __init__(self, store: Store, *, control_token: str | None = None,
                 local_origin: str = "http://127.0.0.1:12111") -> None:
        resources.load_all()
        web.load_all()
        self.store = store
        self.control_token = control_token
        self.local_origin = local_origin

    # ------------------------------------------------------------------ ASGI

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        body = await read_body(receive, headers, intake.body_limit(scope["path"]))
        if isinstance(body, Response):
            response = body
        else:
            request = Request(method=scope["method"].upper(), path=scope["path"],
                              query=scope.get("query_string", b"").decode("latin-1"),
                              headers=headers, body=body, host=headers.get("host", ""),
                              scheme=scope.get("scheme", "http"),
                              client=(scope.get("client") or ("", 0))[0])
            response = await self.handle(request)
        await send({"type": "http.response.start", "status": response.status,
                    "headers": [(k.encode(), v.encode()) for k, v in response.headers.items()]
                    + [(b"content-length", str(len(response.body)).encode())]})
        await send({"type": "http.response.body", "body": response.body})

    # ------------------------------------------------------------------ dispatch

    async def handle(self, request: Request) -> Response:
        hostname = request.host.split(":")[0].lower()
        routed = hostname in STRIPE_HOSTS
        path = request.path
        if not routed:
            # Plain paths on our own port: /v1/... is the API, /<stripe host>/... a surface.
            first, _, rest = path.lstrip("/").partition("/")
            if first in STRIPE_HOSTS:
                hostname, path = first, "/" + rest
            elif path.startswith("/_emulator"):
                return await control.handle(self.store, self.control_token, request)
            else:
                hostname = "api.stripe.com"
        if request.method == "OPTIONS":
            return Response(204, b"", dict(CORS))
        if hostname == "api.stripe.com" and path == request_log.READ_PATH \
                and request.method == "GET":
            return self.request_log(request)
        if hostname in ("api.stripe.com", "files.stripe.com", "meter-events.stripe.com") and (
                path.startswith("/v1/") or path.startswith("/v2/") or path in ("/v1", "/")):
            response = self.api(request, path, routed)
            response.headers.update(CORS)
            return response
        found = find(hostname, request.method, path)
        if found is None:
            return Response.html(f"<h1>Not found</h1><p>{hostname}{path}</p>", 404)
        page, params = found
        web = Web(self.store, request, routed, self.local_origin)
        try:
            result = page.handler(web, **params)
            if inspect.isawaitable(result):
                result = await result
        except StripeError as exc:
            result = Response.json(exc.body(), exc.status)
        except Exception:  # noqa: BLE001 - a page must never take the server down
            log.error("page error %s %s\n%s", request.method, request.path, traceback.format_exc())
            self.store.rollback()  # half a change is never kept
            return Response.html("<h1>Something went wrong</h1>", 500)
        try:
            self.store.flush()
        except StripeError as exc:
            return Response.json(exc.body(), exc.status)
        return result

    # ------------------------------------------------------------------ API

    def api(self, request: Request, path: str, routed: bool) -> Response:
        request_id = "req_unauthenticated"
        account: Account | None = None
        owner: Account | None = None
        try:
            owner, key_kind = self.authenticate(request)
            request_id = owner.ids.new("req")
            account = self.acting_account(request, owner)
            version = versions.check_version(request.header("stripe-version")
                                             or account.api_version)
            ctx = Ctx(self.store, account, version=version, key_kind=key_kind,
                      request_id=request_id, idempotency_key=request.header("idempotency-key")
                      or None, method=request.method, path=path, routed=routed,
                      local_origin=self.local_origin)
            response = self.dispatch(ctx, request, path)
        except StripeError as exc:
            response = Response.json(exc.body(request_id), exc.status)
        except Exception as exc:  # noqa: BLE001 - report as Stripe's api_error, never crash
            log.error("API error %s %s\n%s", request.method, path, traceback.format_exc())
            self.store.rollback()  # half a change is never kept
            body = {"error": {"type": "api_error",
                              "message": f"The emulator hit an internal error: {exc!r}"}}
            response = Response.json(body, 500)
        try:
            self.store.flush()
        except StripeError as exc:  # not stored, so not applied: say so
            response = Response.json(exc.body(request_id), exc.status)
        response.headers["request-id"] = request_id
        if account is not None and owner is not None:
            response.headers.setdefault("stripe-version", request.header("stripe-version")
                                        or account.api_version)
            request_log.record(owner, account, request, path, response, request_id)
        return response

    def request_log(self, request: Request) -> Response:
        """The key's account's request record (see request_log.py); secret keys only."""
        try:
            owner, key_kind = self.authenticate(request)
            if key_kind != "secret":
                raise AuthenticationError("The request log needs a secret API key.", status=401)
            return request_log.read(owner.record, request.query, request_log.READ_PATH)
        except StripeError as exc:
            return Response.json(exc.body(), exc.status)

    def authenticate(self, request: Request) -> tuple[Account, str]:
        auth = request.header("authorization")
        key = ""
        if auth.lower().startswith("bearer "):
            key = auth[7:].strip()
        elif auth.lower().startswith("basic "):
            try:
                key = base64.b64decode(auth[6:].strip()).decode().split(":", 1)[0]
            except (ValueError, UnicodeDecodeError):
                key = ""
        if not key:
            # Stripe answers a missing key with a 401 typed invalid_request_error.
            raise InvalidRequest(
                "You did not provide an API key. You need to provide your API key in the "
                "Authorization header, using Bearer auth (e.g. 'Authorization: Bearer "
                "YOUR_SECRET_KEY').", status=401)
        found = self.store.keys.get(key)
        if found is None:
            shown = key[:8] + "*" * 12 + key[-4:] if len(key) > 12 else key
            # Like a missing key: HTTP 401, body typed invalid_request_error (the SDKs raise
            # their AuthenticationError from the status).
            raise InvalidRequest(f"Invalid API Key provided: {shown}", status=401)
        return found

    def acting_account(self, request: Request, account: Account) -> Account:
        target = request.header("stripe-account")
        if not target or target == account.id:
            return account
        connected = self.store.accounts.get(target)
        if connected is None or connected.parent != account.id:
            raise StripeError(
                f"The provided key does not have access to account '{target}' (or that account "
                "does not exist). Application access may have been revoked.",
                status=403, code="account_invalid")
        return connected

    def dispatch(self, ctx: Ctx, request: Request, path: str) -> Response:
        method = request.method
        matched = router.match(method, path)
        if matched is None:
            template = router.stripe_endpoint(method, path)
            if template is not None:
                raise InvalidRequest(
                    f"The local Stripe emulator does not support {method} {template} yet.",
                    code="emulator_unsupported", status=404)
            raise InvalidRequest(
                f"Unrecognized request URL ({method}: {path}). Please see https://stripe.com/docs "
                "or we can help at https://support.stripe.com/.", status=404)
        route, path_params = matched
        if ctx.key_kind == "publishable" and not route.publishable:
            raise AuthenticationError(
                "This API call cannot be made with a publishable API key. Please use a secret "
                "API key. You can find a list of your API keys at "
                "https://dashboard.stripe.com/account/apikeys.", status=401)
        has_body = method in ("POST", "DELETE") and bool(request.body)  # curl -X DELETE -d
        content_type = request.header("content-type")
        as_json = has_body and content_type.startswith("application/json")
        as_upload = has_body and content_type.startswith("multipart/form-data")
        intake.check_param_count(request.query, request.body if has_body and not (
            as_json or as_upload) else b"")
        raw = forms.decode(request.query)
        if as_upload:
            raw.update(multipart.decode(request.body, content_type))
        elif as_json:
            decoded = intake.load_json(request.body)
            if not isinstance(decoded, dict):
                raise InvalidRequest("Invalid JSON body: expected an object of parameters.")
            raw.update(decoded)
        elif has_body:
            raw.update(forms.decode(request.body.decode("utf-8", "replace")))
        key = ctx.idempotency_key if method == "POST" else None
        if method == "POST" and "idempotency-key" in request.headers:
            length = len(request.headers["idempotency-key"])
            if not 1 <= length <= IDEMPOTENCY_KEY_MAX:
                raise InvalidRequest(
                    f"Idempotent key length is {length}, which is outside accepted lengths. "
                    f"Idempotent Keys must be 1-{IDEMPOTENCY_KEY_MAX} characters long. If "
                    "you're looking for a decent generator, try using a UUID defined by IETF "
                    "RFC 4122.")
        if key:
            fingerprint = hashlib.sha256(f"{method} {path} ".encode()
                                         + canonical_json(raw)).hexdigest()
            replay = self.replay(ctx, key, fingerprint)
            if replay is not None:
                return replay
        billing_versions.forbid_total_count(ctx, method, route.template, raw)
        raw = versions.upgrade_request(ctx, method, route.template, raw)
        params = validate_params(route.params_schema, raw)
        expand = params.pop("expand", None) or []
        try:
            result = route.handler(ctx, params, **path_params)
            status = 200
            body = self.encode(render.render(ctx, result, expand))
        except StripeError as exc:
            if exc.status >= 500 or not key:
                raise
            status, body = exc.status, dumps(exc.body(ctx.request_id))
        if route.mutates:
            ctx.account.clock.tick()
            self.store.touch(ctx.account)
        if key:
            self.store.remember(ctx.account, key, {
                "fingerprint": fingerprint, "status": status, "body": body.decode(),
                "request_id": ctx.request_id, "created": ctx.now()})
        return Response(status, body, {"content-type": "application/json"})

    def encode(self, rendered: Any) -> bytes:
        """The response body. A value JSON cannot carry (a total beyond 64 bits) was made
        from the caller's input: refuse the request and keep none of it."""
        try:
            return dumps(rendered)
        except orjson.JSONEncodeError as exc:
            self.store.rollback()
            raise InvalidRequest(f"This request's result cannot be represented ({exc}): a "
                                 "number is out of range. Nothing was changed.") from None

    def replay(self, ctx: Ctx, key: str, fingerprint: str) -> Response | None:
        entry = ctx.account.idempotency.get(key)
        if entry is None or ctx.now() - entry["created"] > IDEMPOTENCY_WINDOW:
            return None
        if entry["fingerprint"] != fingerprint:
            raise IdempotencyError(
                "Keys for idempotent requests can only be used with the same parameters they "
                f"were first used with. Try using a key other than '{key}' if you meant to "
                "execute a different request.")
        return Response(entry["status"], entry["body"].encode(),
                        {"content-type": "application/json", "idempotent-replayed": "true",
                         "original-request": entry["request_id"]})

