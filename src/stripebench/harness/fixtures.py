"""Stripe fixtures a task seeds into each trial's fresh emulator account.

A fixture is one API call, written the way the docs show it:

    {"ref": "tshirt", "request": "POST /v1/products",
     "params": {"id": "prod_tshirt", "name": "T-shirt"}}
    {"ref": "tshirt_price", "request": "POST /v1/prices",
     "params": {"product": "${tshirt.id}", "unit_amount": 2000, "currency": "usd"}}

`params` are sent form-encoded exactly as the official SDKs send them, so anything the
API accepts works here, including its own id hints (`id` on products and coupons, `code`
on promotion codes, `lookup_key` on prices). `${ref.path}` inside any string is replaced
by a field of an earlier fixture's response, which is how later calls point at objects
whose ids the emulator chose. The responses are kept by ref and handed to the grader.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import httpx

METHODS = ("GET", "POST", "DELETE")
REFERENCE = re.compile(r"\$\{([A-Za-z0-9_]+)((?:\.[A-Za-z0-9_]+)*)\}")


class FixtureError(ValueError):
    pass


def parse_call(raw: Any, index: int) -> dict[str, Any]:
    """Normalize one fixture to {"ref", "method", "path", "params", "api_version"}."""
    if not isinstance(raw, dict):
        raise FixtureError(f"fixture {index} must be an object")
    method, path = raw.get("method"), raw.get("path")
    if "request" in raw:
        parts = str(raw["request"]).split()
        if len(parts) != 2:
            raise FixtureError(f"fixture {index}: request must look like 'POST /v1/products'")
        method, path = parts
    method = str(method or "POST").upper()
    if method not in METHODS:
        raise FixtureError(f"fixture {index}: method must be one of {', '.join(METHODS)}")
    if not isinstance(path, str) or not path.startswith("/v1/"):
        raise FixtureError(f"fixture {index}: path must start with /v1/, got {path!r}")
    params = raw.get("params", {})
    if not isinstance(params, dict):
        raise FixtureError(f"fixture {index}: params must be an object")
    unknown = set(raw) - {"ref", "request", "method", "path", "params", "api_version"}
    if unknown:
        raise FixtureError(f"fixture {index}: unknown key(s) {', '.join(sorted(unknown))}")
    return {"ref": raw.get("ref"), "method": method, "path": path, "params": params,
            "api_version": raw.get("api_version")}


def encode(params: dict[str, Any]) -> str:
    """Stripe's form encoding: nested dicts as a[b]=, lists as a[0]=, booleans as true."""
    pairs: list[tuple[str, str]] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(f"{prefix}[{key}]" if prefix else str(key), item)
        elif isinstance(value, list | tuple):
            if not value:
                pairs.append((prefix, ""))
            for n, item in enumerate(value):
                walk(f"{prefix}[{n}]", item)
        elif isinstance(value, bool):
            pairs.append((prefix, "true" if value else "false"))
        elif value is None:
            pairs.append((prefix, ""))
        else:
            pairs.append((prefix, str(value)))

    walk("", params)
    return "&".join(f"{quote(k, safe='[]')}={quote(v, safe='')}" for k, v in pairs)


def _lookup(refs: dict[str, Any], name: str, path: str) -> Any:
    if name not in refs:
        raise FixtureError(f"${{{name}}} refers to no earlier fixture")
    value: Any = refs[name]
    for part in filter(None, path.split(".")):
        if isinstance(value, list) and part.isdigit():
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise FixtureError(f"${{{name}{path}}}: no field {part!r}")
    return value


def substitute(value: Any, refs: dict[str, Any]) -> Any:
    if isinstance(value, str):
        whole = REFERENCE.fullmatch(value)
        if whole:  # keep non-string values (amounts, booleans) intact
            return _lookup(refs, whole.group(1), whole.group(2))
        return REFERENCE.sub(lambda m: str(_lookup(refs, m.group(1), m.group(2))), value)
    if isinstance(value, dict):
        return {k: substitute(v, refs) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, refs) for v in value]
    return value


def seed(api_base: str, secret_key: str, calls: list[dict[str, Any]] | tuple[dict[str, Any], ...],
         api_version: str | None = None) -> dict[str, Any]:
    """Run the fixture calls in order against one account; return responses by ref."""
    refs: dict[str, Any] = {}
    with httpx.Client(base_url=api_base, timeout=30) as http:
        for n, call in enumerate(calls):
            params = substitute(call["params"], refs)
            path = substitute(call["path"], refs)  # e.g. POST /v1/invoices/${inv.id}/pay
            headers = {"Authorization": f"Bearer {secret_key}"}
            version = call.get("api_version") or api_version
            if version:
                headers["Stripe-Version"] = version
            if call["method"] == "POST":
                headers["Content-Type"] = "application/x-www-form-urlencoded"
                response = http.post(path, content=encode(params), headers=headers)
            else:
                url = path + (("?" + encode(params)) if params else "")
                response = http.request(call["method"], url, headers=headers)
            if response.status_code >= 400:
                try:
                    message = response.json()["error"]["message"]
                except Exception:  # noqa: BLE001 - show whatever came back
                    message = response.text[:300]
                raise FixtureError(f"fixture {n} ({call['method']} {path}) failed "
                                   f"with {response.status_code}: {message}")
            refs[call.get("ref") or f"_{n}"] = response.json()
    return refs
