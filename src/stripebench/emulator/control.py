"""The control plane under /_emulator/: accounts, reset, snapshots, clocks, request records.

When the server has a control token (the harness always sets one), every call must
carry it in `X-Emulator-Token`, so code running as the agent cannot read or rewrite
state behind the API's back.
"""

from __future__ import annotations

import hmac
import re
from typing import Any

from . import intake, request_log, versions
from .errors import InvalidRequest, StripeError
from .forms import decode
from .http import Request, Response
from .resources.webhooks import delivery_log, set_routes
from .restoring import read_restore_body, restore_steps, run
from .store import Store

ACCOUNT_ID = re.compile(r"acct_\w{1,100}", re.ASCII)
# Timestamps up to the end of year 9999; one clock move at most 100 years.
MAX_TIME = 253_402_300_799
MAX_ADVANCE = 100 * 366 * 24 * 3600


def _error(message: str, status: int = 400) -> Response:
    return Response.json({"error": {"type": "invalid_request_error", "message": message}}, status)


def _body(request: Request) -> dict[str, Any]:
    if not request.body:
        return {}
    if request.header("content-type").startswith("application/json"):
        data = intake.load_json(request.body, max_depth=intake.MAX_CONTROL_DEPTH)
        if not isinstance(data, dict):
            raise InvalidRequest("Invalid request body: expected a JSON object")
        return data
    intake.check_param_count(request.body)
    return decode(request.body.decode("utf-8", "replace"))


def _int(body: dict[str, Any], name: str, low: int, high: int) -> int:
    """An integer field of a control-plane body (JSON number or form string), in range."""
    value = body[name]
    text = str(value)
    if isinstance(value, bool) or len(text) > 20 or not re.fullmatch(r"-?\d+", text):
        raise InvalidRequest(f"Invalid {name}: {text[:40]} is not an integer", param=name)
    number = int(text)
    if not low <= number <= high:
        raise InvalidRequest(f"Invalid {name}: {number} is outside {low}..{high}", param=name)
    return number


def _account_id(value: Any) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str) or not ACCOUNT_ID.fullmatch(value):
        raise InvalidRequest("Invalid id: an account id is acct_ followed by up to 100 "
                             "letters, digits or underscores", param="id")
    return value


_META = {"id": str, "secret_key": str, "publishable_key": str, "api_version": str,
         "seed": str, "counter": int, "time": int}


def check_snapshot(snapshot: Any) -> None:
    """The shape `GET .../snapshot` gives, checked before a restore touches any state."""
    def bad(what: str) -> InvalidRequest:
        return InvalidRequest(f"Invalid snapshot: {what}")

    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("account"), dict):
        raise bad("expected an object with an account")
    meta = snapshot["account"]
    for name, kind in _META.items():
        if not isinstance(meta.get(name), kind) or isinstance(meta.get(name), bool):
            raise bad(f"account.{name} must be a {kind.__name__}")
    _account_id(meta["id"])
    if not 0 <= meta["time"] <= MAX_TIME or meta["counter"] < 0:
        raise bad("account.time or account.counter is out of range")
    if not isinstance(meta.get("settings", {}), dict):
        raise bad("account.settings must be an object")
    if not isinstance(meta.get("salt", ""), str):
        raise bad("account.salt must be a str")
    objects = snapshot.get("objects")
    if not isinstance(objects, list) or not all(
            isinstance(o, dict) and isinstance(o.get("id"), str)
            and isinstance(o.get("object"), str) for o in objects):
        raise bad("objects must be a list of objects with an id and an object type")
    order = snapshot.get("order")
    if not isinstance(order, dict) or not all(
            isinstance(ids, list) and all(isinstance(i, str) for i in ids)
            for ids in order.values()):
        raise bad("order must map object types to lists of ids")
    for name in ("sequence", "idempotency"):
        value = snapshot.get(name)
        if value is not None and not isinstance(value, list if name == "sequence" else dict):
            raise bad(f"{name} has the wrong type")


def account_info(account: Any) -> dict[str, Any]:
    return {"id": account.id, "object": "emulator.account", "secret_key": account.secret_key,
            "publishable_key": account.publishable_key, "api_version": account.api_version,
            "parent": account.parent, "time": account.clock.now()}


async def handle(store: Store, control_token: str | None, request: Request) -> Response:
    path = request.path.rstrip("/")
    method = request.method
    if path == "/_emulator/health":
        return Response.json({"status": "ok", "accounts": len(store.accounts),
                              "api_version": store.default_version or versions.LATEST})
    # compared as bytes: a header may carry any latin-1 character
    if control_token and not hmac.compare_digest(
            request.header("x-emulator-token").encode("latin-1"), control_token.encode()):
        return _error("The control plane needs a valid X-Emulator-Token header.", 403)
    if path == "/_emulator/restore" and method == "POST":
        response = await _restore(store, request)
        try:
            store.flush()
        except StripeError as exc:
            response = Response.json(exc.body(), exc.status)
        return response
    try:
        body = _body(request) if method == "POST" else {}
        response = _route(store, method, path, body, request.query_params(), request.query)
    except KeyError as exc:
        store.rollback()
        response = _error(f"No such account: {exc.args[0]}", 404)
    except StripeError as exc:
        store.rollback()
        response = Response.json(exc.body(), exc.status)
    except (ValueError, TypeError, AttributeError) as exc:  # a malformed snapshot
        store.rollback()
        response = _error(f"Invalid request: {exc}")
    try:
        store.flush()
    except StripeError as exc:
        response = Response.json(exc.body(), exc.status)
    return response


async def _restore(store: Store, request: Request) -> Response:
    """Restore one snapshot, or every account from an export, in slices (restoring.py)."""
    try:
        if request.header("content-type").startswith("application/json") or not request.body:
            body = await run(read_restore_body(request.body or b"{}"))
        else:
            body = _body(request)
        snapshots = body.get("accounts") if isinstance(body, dict) else None
        if isinstance(body, dict) and "accounts" in body:
            if not isinstance(snapshots, list):
                raise InvalidRequest("Invalid accounts: expected a list of snapshots")
            for snapshot in snapshots:
                check_snapshot(snapshot)  # all of them before anything is reset
            await run(restore_steps(store, list(snapshots), replace_all=True))
            return Response.json({"restored": len(store.accounts)})
        check_snapshot(body)
        accounts = await run(restore_steps(store, [body], replace_all=False))
    except StripeError as exc:
        return Response.json(exc.body(), exc.status)
    except KeyError as exc:
        return _error(f"Invalid snapshot: missing {exc.args[0]!r}.")
    except (ValueError, TypeError) as exc:
        return _error(f"Invalid snapshot: {exc}")
    return Response.json(account_info(accounts[0]))


def _route(store: Store, method: str, path: str, body: dict[str, Any],
           query: dict[str, str], raw_query: str = "") -> Response:
    if path == "/_emulator/accounts" and method == "POST":
        version = body.get("api_version") or None
        if version:
            versions.check_version(str(version))
        settings = body.get("settings") or {}
        if not isinstance(settings, dict):
            raise InvalidRequest("Invalid settings: expected an object", param="settings")
        account_id = _account_id(body.get("id"))
        if account_id in store.accounts:
            raise InvalidRequest(f"Account {account_id} already exists", param="id")
        time = _int(body, "time", 0, MAX_TIME) if body.get("time") else None
        salt = body.get("salt")  # the harness's per-trial secret; else the server's
        if salt is not None and (not isinstance(salt, str) or len(salt) > 200):
            raise InvalidRequest("Invalid salt: expected a string of up to 200 characters",
                                 param="salt")
        account = store.create_account(api_version=version, account_id=account_id,
                                       settings=settings, salt=salt or None)
        if time is not None:
            account.clock.time = time
        return Response.json(account_info(account))
    if path == "/_emulator/accounts" and method == "GET":
        return Response.json({"object": "list",
                              "data": [account_info(a) for a in store.accounts.values()]})
    found = re.fullmatch(r"/_emulator/accounts/(acct_\w+)(/\w+)?", path)
    if found:
        account = store.accounts[found.group(1)]
        action = found.group(2) or ""
        if action == "" and method == "GET":
            return Response.json(account_info(account))
        if action == "" and method == "DELETE":
            store.delete_account(account.id)
            return Response.json({"id": account.id, "deleted": True})
        if action == "/webhook_deliveries" and method == "GET":
            return Response.json({"object": "list", "data": delivery_log(store, account.id)})
        if action == "/webhook_routes" and method == "POST":
            routes = set_routes(store, account.id, dict(body.get("routes") or {}))
            return Response.json({"id": account.id,
                                  "webhook_routes": {str(p): t for p, t in routes.items()}})
        if action == "/requests" and method == "GET":  # the same read-out as graders'
            return request_log.read(account.record, raw_query, path)
        if action == "/clock" and method == "POST":
            # The clock only moves forward: Stripe's objects never see time run back.
            if "advance" in body:
                account.clock.tick(_int(body, "advance", 0, MAX_ADVANCE))
            if "to" in body:
                account.clock.advance_to(_int(body, "to", 0, MAX_TIME))
            store.touch(account)
            return Response.json(account_info(account))
        if action == "/snapshot" and method == "GET":
            return Response.json(store.snapshot(account))
    if path == "/_emulator/reset" and method == "POST":
        store.reset()
        return Response.json({"reset": True})
    if path == "/_emulator/snapshot" and method == "GET":
        if query.get("account"):
            return Response.json(store.snapshot(store.accounts[query["account"]]))
        return Response.json(store.export_all())
    return _error(f"Unknown control-plane call: {method} {path}", 404)
