"""The control plane under /_emulator/: accounts, reset, snapshots, clocks, request logs.

When the server has a control token (the harness always sets one), every call must
carry it in `X-Emulator-Token`, so code running as the agent cannot read or rewrite
state behind the API's back.
"""

from __future__ import annotations

import hmac
import json
import re
from typing import TYPE_CHECKING, Any

from . import versions
from .errors import StripeError
from .http import Request, Response

if TYPE_CHECKING:
    from .app import EmulatorApp


def _error(message: str, status: int = 400) -> Response:
    return Response.json({"error": {"type": "invalid_request_error", "message": message}}, status)


def _body(request: Request) -> dict[str, Any]:
    if not request.body:
        return {}
    if request.header("content-type").startswith("application/json"):
        data = json.loads(request.body)
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object")
        return data
    from .forms import decode
    return decode(request.body.decode())


def account_info(account: Any) -> dict[str, Any]:
    return {"id": account.id, "object": "emulator.account", "secret_key": account.secret_key,
            "publishable_key": account.publishable_key, "api_version": account.api_version,
            "parent": account.parent, "time": account.clock.now()}


async def handle(app: EmulatorApp, request: Request) -> Response:
    store = app.store
    path = request.path.rstrip("/")
    method = request.method
    if path == "/_emulator/health":
        return Response.json({"status": "ok", "accounts": len(store.accounts),
                              "api_version": store.default_version or versions.LATEST})
    if app.control_token and not hmac.compare_digest(
            request.header("x-emulator-token"), app.control_token):
        return _error("The control plane needs a valid X-Emulator-Token header.", 403)
    if path == "/_emulator/restore" and method == "POST":
        response = await _restore(app, request)
        store.flush()
        return response
    try:
        body = _body(request) if method == "POST" else {}
    except ValueError as exc:
        return _error(f"Invalid request body: {exc}")
    query = request.query_params()
    try:
        response = _route(app, method, path, body, query)
    except KeyError as exc:
        response = _error(f"No such account: {exc.args[0]}", 404)
    except StripeError as exc:
        response = Response.json(exc.body(), exc.status)
    except (ValueError, TypeError) as exc:
        response = _error(str(exc))
    store.flush()
    return response


async def _restore(app: EmulatorApp, request: Request) -> Response:
    """Restore one snapshot, or every account from an export, in slices (restoring.py)."""
    from .restoring import read_restore_body, restore_steps, run
    store = app.store
    try:
        if request.header("content-type").startswith("application/json") or not request.body:
            body = await run(read_restore_body(request.body or b"{}"))
        else:
            body = _body(request)
        if "accounts" in body:
            await run(restore_steps(store, list(body["accounts"]), replace_all=True))
            return Response.json({"restored": len(store.accounts)})
        accounts = await run(restore_steps(store, [body], replace_all=False))
    except KeyError as exc:
        return _error(f"Invalid snapshot: missing {exc.args[0]!r}.")
    except (ValueError, TypeError) as exc:
        return _error(f"Invalid snapshot: {exc}")
    return Response.json(account_info(accounts[0]))


def _route(app: EmulatorApp, method: str, path: str, body: dict[str, Any],
           query: dict[str, str]) -> Response:
    store = app.store
    if path == "/_emulator/accounts" and method == "POST":
        version = body.get("api_version") or None
        if version:
            versions.check_version(version)
        account = store.create_account(api_version=version, account_id=body.get("id"),
                                       settings=body.get("settings") or {})
        if body.get("time"):
            account.clock.time = int(body["time"])
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
            from .resources.webhooks import delivery_log
            return Response.json({"object": "list", "data": delivery_log(store, account.id)})
        if action == "/requests" and method == "GET":
            return Response.json({"object": "list", "data": account.requests})
        if action == "/clock" and method == "POST":
            if "advance" in body:
                account.clock.tick(int(body["advance"]))
            if "to" in body:
                account.clock.advance_to(int(body["to"]))
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
