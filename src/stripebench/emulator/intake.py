"""What a request may carry, checked before anything parses it.

Every bound here is applied to raw bytes or to an already-decoded tree without
recursion, so a hostile body costs time proportional to its (bounded) size and never
reaches a recursive parser, a 64-bit overflow or an unencodable string. Breaking a
bound is a Stripe-shaped 4xx naming it.
"""

from __future__ import annotations

from typing import Any

import orjson

from .errors import InvalidRequest

# Stripe publishes no body limit; real requests are a few KB (100 line items with
# price_data stay under 100 KB). 1 MiB leaves room and keeps parsing cheap.
MAX_BODY_BYTES = 1 << 20
# The control plane restores whole-account snapshots, which can be large.
MAX_CONTROL_BODY_BYTES = 256 << 20
# Parameters per request (query string and form body together).
MAX_PARAMS = 5000
# Nesting of `a[b][c]` form keys and of JSON objects/arrays. Stripe's deepest params
# (`line_items[0][price_data][product_data][metadata][k]`) are 5 levels deep.
MAX_DEPTH = 20
MAX_CONTROL_DEPTH = 64


MAX_FILE_BODY_BYTES = 16 << 20 + 4096  # Stripe's 16 MB file limit, plus the form around it


def body_limit(path: str) -> int:
    if path.startswith("/_emulator"):
        return MAX_CONTROL_BODY_BYTES
    if path.rstrip("/").endswith("/v1/files"):  # files.stripe.com uploads (or a plain path)
        return MAX_FILE_BODY_BYTES
    return MAX_BODY_BYTES


def too_large(size: int, limit: int) -> InvalidRequest:
    return InvalidRequest(f"The request body is {size} bytes; the limit is {limit} bytes.",
                          code="request_too_large", status=413)


def count_params(raw: str | bytes) -> int:
    """Parameters in a form-encoded string, counted without decoding it."""
    if not raw:
        return 0
    separator = b"&" if isinstance(raw, bytes) else "&"
    return raw.count(separator) + 1  # type: ignore[arg-type]


def check_param_count(*parts: str | bytes) -> None:
    count = sum(count_params(p) for p in parts)
    if count > MAX_PARAMS:
        raise InvalidRequest(f"The request has {count} parameters; the limit is {MAX_PARAMS}.",
                             code="parameters_exceeded")


def check_key_depth(key: str) -> None:
    if key.count("[") > MAX_DEPTH:
        raise InvalidRequest(f"Parameter {key[:60]}... is nested more than {MAX_DEPTH} levels "
                             "deep.", param=key[:200])


def load_json(body: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """A JSON body, or InvalidRequest. orjson refuses lone surrogates and non-finite
    numbers and reads integers beyond 64 bits as floats, so whatever it returns can be
    encoded again; nesting is bounded here."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise InvalidRequest(f"Invalid JSON body: {exc}") from None
    check_depth(value, max_depth)
    return value


def check_depth(value: Any, max_depth: int) -> None:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > max_depth:
            raise InvalidRequest(f"Invalid JSON body: nested more than {max_depth} levels deep.")
        stack.extend((child, depth + 1) for child in children)
