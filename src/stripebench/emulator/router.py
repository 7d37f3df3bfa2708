"""API routes: `@api("POST", "/v1/customers")` registers a handler.

A handler is `fn(ctx, params, **path_params) -> dict` returning a canonical object (or
a list/search result built from canonical objects); the app validates params against
the schema entry with the same template, then renders the result.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import schema

Handler = Callable[..., dict[str, Any]]


@dataclass(frozen=True)
class Route:
    method: str
    template: str
    handler: Handler
    publishable: bool
    params_schema: dict[str, Any]
    pattern: re.Pattern[str]
    mutates: bool


ROUTES: dict[str, list[Route]] = {}
_EXACT: dict[tuple[str, str], Route] = {}


def _compile(template: str) -> re.Pattern[str]:
    regex = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
    return re.compile(f"^{regex}$")


def api(method: str, template: str, *, publishable: bool = False,
        params: dict[str, Any] | None = None,
        mutates: bool | None = None) -> Callable[[Handler], Handler]:
    """Register a handler. `params` overrides the schema (for endpoints the SDK lacks)."""
    method = method.upper()

    def register(fn: Handler) -> Handler:
        entry = schema.endpoint(method, template)
        spec = params if params is not None else (entry["params"] if entry else None)
        if spec is None:
            raise ValueError(f"no schema for {method} {template}; pass params=")
        route = Route(method, template, fn, publishable, spec, _compile(template),
                      mutates if mutates is not None else method != "GET")
        ROUTES.setdefault(method, []).append(route)
        if "{" not in template:
            _EXACT[(method, template)] = route
        return fn
    return register


def match(method: str, path: str) -> tuple[Route, dict[str, str]] | None:
    exact = _EXACT.get((method, path))
    if exact is not None:
        return exact, {}
    for route in ROUTES.get(method, []):
        found = route.pattern.match(path)
        if found:
            return route, found.groupdict()
    return None


_SCHEMA_PATTERNS: list[tuple[str, re.Pattern[str], str]] = []


def stripe_endpoint(method: str, path: str) -> str | None:
    """The template of a real Stripe endpoint the emulator does not implement, if any."""
    if not _SCHEMA_PATTERNS:
        for (m, template) in schema.endpoints():
            _SCHEMA_PATTERNS.append((m, _compile(template), template))
    for m, pattern, template in _SCHEMA_PATTERNS:
        if m == method and pattern.match(path):
            return template
    return None
