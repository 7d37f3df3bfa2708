"""Minimal HTTP request/response types shared by the API, control plane and web pages."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from .errors import InvalidRequest
from .intake import load_json

try:
    import orjson

    def dumps(value: Any) -> bytes:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2)

    def canonical_json(value: Any) -> bytes:
        """Compact JSON with sorted keys: equal params give equal bytes (idempotency)."""
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # e.g. an integer beyond 64 bits from a JSON body
            return json.dumps(value, sort_keys=True).encode()
except ImportError:  # pragma: no cover - orjson is a declared dependency
    def dumps(value: Any) -> bytes:
        return json.dumps(value, indent=2).encode()

    def canonical_json(value: Any) -> bytes:
        return json.dumps(value, sort_keys=True).encode()


@dataclass
class Request:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    host: str
    scheme: str = "http"
    client: str = ""

    def header(self, name: str, default: str = "") -> str:
        return self.headers.get(name.lower(), default)

    def query_params(self) -> dict[str, str]:
        return dict(parse_qsl(self.query, keep_blank_values=True))

    def json(self) -> Any:
        """The body as JSON, nesting bounded (ValueError when it is not acceptable JSON)."""
        try:
            return load_json(self.body or b"{}")
        except InvalidRequest as exc:
            raise ValueError(exc.message) from None

    @property
    def origin(self) -> str:
        """The base URL this request reached us at (used to build links back to us)."""
        return f"{self.scheme}://{self.host}"


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
        return cls(status, dumps(value), {"content-type": "application/json", **(headers or {})})

    @classmethod
    def html(cls, text: str, status: int = 200) -> Response:
        return cls(status, text.encode(), {"content-type": "text/html; charset=utf-8"})

    @classmethod
    def redirect(cls, url: str, status: int = 303) -> Response:
        return cls(status, b"", {"location": url})
