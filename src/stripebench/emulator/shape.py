"""Object shapes from the schema: blank objects with every declared field."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from . import schema


@cache
def _blank_template(object_type: str) -> dict[str, Any]:
    spec = schema.object_schema(object_type)
    if spec is None:
        return {"object": object_type}
    obj = _default(spec)
    assert isinstance(obj, dict)
    obj["object"] = object_type
    return obj


def blank(object_type: str) -> dict[str, Any]:
    return copy.deepcopy(_blank_template(object_type))


def _default(spec: dict[str, Any]) -> Any:
    kind = spec.get("type")
    if kind == "object" and "fields" in spec:
        out: dict[str, Any] = {}
        for name, field in spec["fields"].items():
            if field.get("type") == "list" or name == "deleted":
                continue  # included lists and `deleted` appear only when Stripe sends them
            out[name] = _field_default(name, field)
        return out
    return None


def _field_default(name: str, field: dict[str, Any]) -> Any:
    if name == "livemode":
        return False
    if name == "metadata":
        return {}
    if field.get("nullable"):
        return None
    kind = field.get("type")
    if kind == "boolean":
        return False
    if kind == "integer":
        return 0
    if kind == "string":
        enum = field.get("enum")
        return enum[0] if enum else ""
    if kind == "array":
        return []
    if kind == "map":
        return {}
    if kind == "object":
        return _default(field)
    return None


def declared_fields(object_type: str) -> set[str]:
    spec = schema.object_schema(object_type) or {}
    return set(spec.get("fields", {}))


def nested_blank(object_type: str, *path: str) -> dict[str, Any]:
    """A blank nested hash, e.g. nested_blank("payment_intent", "next_action")."""
    spec: dict[str, Any] = schema.object_schema(object_type) or {}
    for part in path:
        spec = spec.get("fields", {}).get(part, {})
        if spec.get("type") == "array":
            spec = spec.get("items", {})
    value = _default(spec)
    return value if isinstance(value, dict) else {}
