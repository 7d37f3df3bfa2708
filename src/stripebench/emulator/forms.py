"""Stripe's form encoding: `a[b][0][c]=x`, `items[]=y`, `metadata[k]=v`.

Decoding builds nested dicts; a dict whose keys are all array indexes (or `[]`
appends) becomes a list. Values stay strings; the schema validator coerces them.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, quote

from .errors import InvalidRequest
from .intake import MAX_PARAMS, check_key_depth

_KEY = re.compile(r"^([^\[\]]+)((?:\[[^\[\]]*\])*)$")
_APPEND = object()


def decode(raw: str) -> dict[str, Any]:
    if not raw:
        return {}
    root: dict[str, Any] = {}
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=False,
                          max_num_fields=MAX_PARAMS)
    except ValueError:
        raise InvalidRequest(f"The request has more than {MAX_PARAMS} parameters.",
                             code="parameters_exceeded") from None
    for key, value in pairs:
        check_key_depth(key)
        _assign(root, key, value)
    return _listify(root)


def _assign(root: dict[str, Any], key: str, value: str) -> None:
    match = _KEY.match(key)
    if not match:
        raise InvalidRequest(f"Invalid parameter name: {key}", param=key)
    parts: list[Any] = [match.group(1)]
    parts += [p if p != "" else _APPEND for p in re.findall(r"\[([^\[\]]*)\]", match.group(2))]
    node: dict[str, Any] = root
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part is _APPEND:
            part = f"\x00{len(node)}"  # appended items keep their order
        if last:
            if isinstance(node.get(part), dict):
                raise InvalidRequest(f"Invalid value for {key}: expected a hash", param=key)
            node[part] = value
        else:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                if child == "":  # `a=` followed by `a[b]=...`: treat the blank as absent
                    child = node[part] = {}
                else:
                    raise InvalidRequest(f"Invalid hash for {key}", param=key)
            node = child


class IndexedList(list[Any]):
    """A list decoded from `a[0]=x&a[1]=y` that remembers its keys: where the schema
    wants a hash (`metadata[1]=x`), the validator turns it back into one."""

    keys: list[str]


def _listify(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    items = {k: _listify(v) for k, v in node.items()}
    if items and all(_is_index(k) for k in items):
        order = sorted(items, key=_index)
        result = IndexedList(items[k] for k in order)
        result.keys = order
        return result
    return items


def as_hash(value: Any) -> Any:
    """The hash a digit-keyed IndexedList was decoded from (None for `a[]=` appends)."""
    if isinstance(value, IndexedList) and not any(k.startswith("\x00") for k in value.keys):
        return dict(zip(value.keys, value, strict=True))
    return None


def _is_index(key: str) -> bool:
    return key.isdigit() or key.startswith("\x00")


def _index(key: str) -> int:
    return int(key.lstrip("\x00"))


def encode(params: dict[str, Any]) -> str:
    """Form-encode nested params the way the official SDKs do (used by tests and tools)."""
    pairs: list[tuple[str, str]] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}[{k}]" if prefix else str(k), v)
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                walk(f"{prefix}[{i}]", v)
        elif value is None:
            pairs.append((prefix, ""))
        elif isinstance(value, bool):
            pairs.append((prefix, "true" if value else "false"))
        else:
            pairs.append((prefix, str(value)))

    walk("", params)
    return "&".join(f"{quote(k, safe='[]')}={quote(v, safe='')}" for k, v in pairs)
