"""Helpers shared by resource handlers: updates, metadata, deletion, currency checks."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidRequest
from ..validate import METADATA_MAX_KEYS, check_metadata, too_many_metadata_keys


def merge_metadata(current: dict[str, Any] | None, update: Any) -> dict[str, str]:
    """Stripe's rules: keys merge, `metadata[k]=""` drops k, `metadata=""` clears all."""
    if update is None:
        return {}
    merged = dict(current or {})
    for key, value in update.items():
        if value is None or value == "":
            merged.pop(key, None)
            continue
        check_metadata({key: value})
        merged[key] = str(value)
    if len(merged) > METADATA_MAX_KEYS:
        raise too_many_metadata_keys(len(merged))
    return merged


def apply(obj: dict[str, Any], params: dict[str, Any], fields: tuple[str, ...]) -> None:
    """Copy the named params onto the object; metadata merges by Stripe's rules."""
    for name in fields:
        if name not in params:
            continue
        if name == "metadata":
            obj["metadata"] = merge_metadata(obj.get("metadata"), params["metadata"])
        else:
            obj[name] = params[name]


def deleted(obj: dict[str, Any]) -> dict[str, Any]:
    return {"id": obj["id"], "object": obj["object"], "deleted": True}


def currency(value: Any, param: str = "currency") -> str:
    text = str(value or "").lower()
    if len(text) != 3 or not text.isalpha():
        raise InvalidRequest(f"Invalid currency: {value}. Stripe currently supports these "
                             "currencies: usd, eur, gbp, ... (three-letter ISO codes).",
                             param=param)
    return text


def require(params: dict[str, Any], name: str) -> Any:
    if params.get(name) is None:
        raise InvalidRequest(f"Missing required param: {name}.", code="parameter_missing",
                             param=name)
    return params[name]


def bool_filter(obj: dict[str, Any], params: dict[str, Any], name: str) -> bool:
    return name not in params or obj.get(name) == params[name]
