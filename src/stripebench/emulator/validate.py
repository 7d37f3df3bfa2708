"""Validate and coerce decoded form params against the SDK-derived schema.

Form values arrive as strings; this turns them into ints, bools, lists and nested
dicts, maps `""` on emptiable params to None (Stripe's "unset"), and raises Stripe's
errors for unknown, missing and malformed params, naming the param the way Stripe
does (`line_items[0][price]`).
"""

from __future__ import annotations

import math
import re
from typing import Any

from .errors import InvalidRequest
from .forms import as_hash

_INT = re.compile(r"^-?\d+$")
_NUM = re.compile(r"^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
# Stripe's decimal strings: up to 12 decimal places, no exponent (the largest any currency
# needs is IDR's 999999999999.999999999999).
_DECIMAL = re.compile(r"^-?\d{1,19}(\.\d{0,12})?$|^-?\.\d{1,12}$")
ALWAYS_ALLOWED = {"expand"}
# Stripe's free-text params (description, name, ...) take at most 5000 characters.
STRING_MAX = 5000
# Stripe's integers are 64-bit.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
# Amounts in a currency's smallest unit: 12 digits is the most any currency takes
# (IDR); the stricter 8-digit limit for most currencies is the charge endpoints' own.
AMOUNT_PARAMS = {"amount", "unit_amount", "amount_off", "flat_amount", "balance",
                 "application_fee_amount", "amount_to_capture", "amount_due"}
AMOUNT_MAX = 999_999_999_999


def validate_params(schema: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    result = _object(schema, params, "")
    return result


def _name(prefix: str, key: str | int) -> str:
    return f"{prefix}[{key}]" if prefix else str(key)


def _object(schema: dict[str, Any], value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidRequest(f"Invalid object{_at(path)}", param=path or None)
    props: dict[str, Any] = schema.get("properties", {})
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key not in props:
            if not path and key in ALWAYS_ALLOWED:
                out[key] = item if isinstance(item, list) else [item]
                continue
            raise InvalidRequest(f"Received unknown parameter: {_name(path, key)}",
                                 code="parameter_unknown", param=_name(path, key))
        out[key] = coerce(props[key], item, _name(path, key))
    for key in schema.get("required", []):
        if out.get(key) is None:
            raise InvalidRequest(f"Missing required param: {_name(path, key)}.",
                                 code="parameter_missing", param=_name(path, key))
    return out


def _at(path: str) -> str:
    return f" for {path}" if path else ""


def coerce(schema: dict[str, Any], value: Any, path: str) -> Any:
    if value == "" and (schema.get("emptiable") or schema.get("nullable")):
        return None
    if "anyOf" in schema:
        errors: list[InvalidRequest] = []
        for variant in schema["anyOf"]:
            try:
                return coerce(variant, value, path)
            except InvalidRequest as exc:
                errors.append(exc)
        # Prefer the most specific complaint (an inner unknown param over "Invalid string").
        errors.sort(key=lambda e: (e.param or "").count("["), reverse=True)
        raise errors[0]
    kind = schema.get("type", "any")
    if kind in ("map", "object") and isinstance(value, list):
        value = as_hash(value) or value  # `metadata[1]=x` decodes like a list
    if kind == "object":
        return _object(schema, value, path)
    if kind == "array":
        if isinstance(value, dict) and not value:
            value = []
        if not isinstance(value, list):
            raise InvalidRequest(f"Invalid array{_at(path)}", param=path)
        return [coerce(schema.get("items", {}), v, f"{path}[{i}]") for i, v in enumerate(value)]
    if kind == "map":
        if not isinstance(value, dict):
            raise InvalidRequest(f"Invalid hash{_at(path)}", param=path)
        inner = schema.get("values", {"type": "any"})
        result = {k: coerce(inner, v, _name(path, k)) for k, v in value.items()}
        if path == "metadata" or path.endswith("[metadata]"):
            check_metadata(result, path)
        return result
    if isinstance(value, (dict, list)):
        if kind == "any":
            return value
        raise InvalidRequest(f"Invalid {_type_word(kind)}: {path} must be a {_type_word(kind)}, "
                             "not a hash or array", param=path)
    if kind == "string":
        text = str(value)
        enum = schema.get("enum")
        if text == "" and not enum:
            return None  # Stripe reads an empty string as "unset"
        if enum and text not in enum:
            raise InvalidRequest(f"Invalid {path}: must be one of {_one_of(enum)}", param=path)
        if len(text) > STRING_MAX:
            raise InvalidRequest(f"Invalid string: {text[:40]}...; must be at most "
                                 f"{STRING_MAX} characters", param=path)
        return text
    if kind == "integer":
        return _integer(value, path)
    if kind == "number":
        text = str(value)
        if not _NUM.match(text) or len(text) > 64:
            raise InvalidRequest(f"Invalid number: {text[:64]}", param=path)
        number = float(text)
        if not math.isfinite(number):
            raise InvalidRequest(f"Invalid number: {text}", param=path)
        return int(number) if number.is_integer() and "." not in text else number
    if kind == "decimal":
        if not _DECIMAL.match(str(value)):
            raise InvalidRequest(f"Invalid decimal: {str(value)[:64]}; a decimal takes at most "
                                 "12 decimal places and no exponent", param=path)
        return str(value)
    if kind == "boolean":
        text = str(value).lower()
        if text not in ("true", "false"):
            raise InvalidRequest(f"Invalid boolean: {value}", param=path)
        return text == "true"
    return value


def _integer(value: Any, path: str) -> int:
    text = str(value)
    if isinstance(value, bool) or len(text) > 20 or not _INT.match(text):
        raise InvalidRequest(f"Invalid integer: {text[:64]}", param=path)
    number = int(text)
    if not INT_MIN <= number <= INT_MAX:
        raise InvalidRequest(f"Invalid integer: {text}; integers must be between {INT_MIN} "
                             f"and {INT_MAX}", param=path)
    if path.rsplit("[", 1)[-1].rstrip("]") in AMOUNT_PARAMS and abs(number) > AMOUNT_MAX:
        raise InvalidRequest(f"Invalid {path}: {number} is more than the largest amount "
                             f"Stripe takes ({AMOUNT_MAX:,} in the currency's smallest unit)",
                             param=path, code="amount_too_large")
    return number


METADATA_MAX_KEYS = 50
METADATA_KEY_MAX = 40
METADATA_VALUE_MAX = 500


def check_metadata(metadata: dict[str, Any], param: str = "metadata") -> None:
    """Stripe's metadata limits, in its words: 50 keys, 40-char keys, 500-char values.

    Runs on every `metadata` hash a request carries (nested ones too); blank values
    (which drop a key on update) are not counted.
    """
    kept = 0
    for key, value in metadata.items():
        if value is None or value == "":
            continue
        kept += 1
        if len(key) > METADATA_KEY_MAX:
            raise InvalidRequest(f"Invalid key: {key} must be a string under "
                                 f"{METADATA_KEY_MAX} characters", param=param)
        if "[" in key or "]" in key:
            raise InvalidRequest(f"Invalid key: {key} cannot contain square brackets "
                                 "('[' or ']')", param=param)
        if len(str(value)) > METADATA_VALUE_MAX:
            raise InvalidRequest(f"Invalid val: {value} must be a string under "
                                 f"{METADATA_VALUE_MAX} characters", param=param)
    if kept > METADATA_MAX_KEYS:
        raise too_many_metadata_keys(kept, param)


def too_many_metadata_keys(count: int, param: str = "metadata") -> InvalidRequest:
    return InvalidRequest(f"Metadata can have up to {METADATA_MAX_KEYS} keys, but you've set "
                          f"{count}. Email us at support+metadata@stripe.com for more "
                          "information.", param=param)


def _type_word(kind: str) -> str:
    return {"string": "string", "integer": "integer", "boolean": "boolean"}.get(kind, kind)


def _one_of(values: list[str]) -> str:
    if len(values) == 1:
        return values[0]
    return ", ".join(values[:-1]) + f", or {values[-1]}"
