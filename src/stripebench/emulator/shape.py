"""Object shapes from the schema: blank objects with every declared field."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import orjson

from . import schema


@cache
def _blank_template(object_type: str) -> dict[str, Any]:
    spec = schema.object_schema(object_type)
    if spec is None:
        return {"object": object_type}
    obj = _default(spec)
    assert isinstance(obj, dict)
    obj["object"] = object_type
    obj.update(clone(BLANK_FIELDS.get(object_type, {})))
    for name in BLANK_HASHES.get(object_type, ()):
        obj[name] = _default(spec["fields"][name])
    return obj


def blank(object_type: str) -> dict[str, Any]:
    return clone(_blank_template(object_type))


def clone(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars); much faster than deepcopy."""
    if type(value) is dict:
        try:  # stored objects are JSON data: a C round trip is the fastest copy
            copied = orjson.loads(orjson.dumps(value))
        except TypeError:
            return _clone(value)
        if type(copied) is dict:
            return copied
    return _clone(value)


def snapshot(value: Any) -> Any:
    """A deep copy that shares its strings and numbers with the original.

    Slower than `clone`, but the copy costs only its containers: for copies kept for
    the life of the account (an event's `data.object`), about 40% less memory.
    """
    return _clone(value)


def _clone(value: Any) -> Any:
    if type(value) is dict:
        return {k: _clone(v) if type(v) in (dict, list) else v for k, v in value.items()}
    if type(value) is list:
        return [_clone(v) if type(v) in (dict, list) else v for v in value]
    if isinstance(value, (dict, list)):
        return copy.deepcopy(value)
    return value


def _default(spec: dict[str, Any]) -> Any:
    kind = spec.get("type")
    if kind == "object" and "fields" in spec:
        out: dict[str, Any] = {}
        per_type = _per_type_fields().get(id(spec["fields"]), frozenset())
        for name, field in spec["fields"].items():
            if field.get("type") == "list" or name == "deleted" or name in per_type:
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
        if field.get("enum"):
            # Never the enum's first value: that invents a state (a fresh dispute
            # "manual"ly submitted). Stripe's value where it is known, else null for the
            # resource to set (the shape test reports any left unset).
            return _blank_enums().get(id(field))
        return ""
    if kind == "array":
        return []
    if kind == "map":
        return {}
    if kind == "object":
        return _default(field)
    return None


# Nullable fields Stripe fills on every new object: a subscription's
# `cancellation_details` is a hash of nulls until it is canceled, its `default_tax_rates` an
# empty list (https://docs.stripe.com/api/subscriptions/object).
BLANK_FIELDS: dict[str, dict[str, Any]] = {"subscription": {"default_tax_rates": []}}
BLANK_HASHES: dict[str, tuple[str, ...]] = {"subscription": ("cancellation_details",)}
# What Stripe shows in enum fields the emulator leaves to the blank, by object and path
# (checked against the API reference of each object).
BLANK_ENUM_VALUES: dict[str, dict[str, str]] = {
    "dispute": {"evidence_details.submission_method": "not_submitted"},
    # The only billing mode the emulator runs (subscriptions carry it too).
    "subscription_schedule": {"billing_mode.type": "classic"},
    # No preset durations are offered, so a pause lasts until resumed.
    "billing_portal.configuration": {"features.subscription_pause.duration.type": "indefinite"},
}
# Nested hashes that take the same value wherever they appear: an unset `issuer` is the
# account itself.
BLANK_ENUM_BY_HASH: dict[tuple[str, str], str] = {("issuer", "type"): "self"}


@cache
def _blank_enums() -> dict[int, str]:
    """Schema enum specs (by identity: loaded once, never changed) -> their blank value."""
    found: dict[int, str] = {}

    def walk(fields: dict[str, Any], object_type: str, path: str, parent: str) -> None:
        for name, spec in fields.items():
            if spec.get("type") == "array":
                spec = spec.get("items") or {}
            where = f"{path}{name}"
            if spec.get("type") == "object" and "fields" in spec:
                walk(spec["fields"], object_type, f"{where}.", name)
            elif spec.get("enum"):
                value = BLANK_ENUM_VALUES.get(object_type, {}).get(where) or \
                    BLANK_ENUM_BY_HASH.get((parent, name))
                if value is not None:
                    found[id(spec)] = value

    for object_type, spec in schema.load()["objects"].items():
        walk(spec.get("fields", {}), object_type, "", "")
    return found


# Hashes keyed by payment method type, by object and path ("" is the object itself).
# Stripe sends only the types in play (a card charge's `payment_method_details` holds
# `card` and `type`), never the fifty others as null.
PER_TYPE_HASHES: dict[str, tuple[str, ...]] = {
    "payment_method": ("",),
    "charge": ("payment_method_details",),
    "payment_intent": ("payment_method_options",),
    "setup_intent": ("payment_method_options",),
    "checkout.session": ("payment_method_options",),
    "confirmation_token": ("payment_method_preview",),
    "dispute": ("payment_method_details",),
    "refund": ("destination_details",),
    "setup_attempt": ("payment_method_details",),
    "mandate": ("payment_method_details",),
    "payment_record": ("payment_method_details",),
}


@cache
def _per_type_fields() -> dict[int, frozenset[str]]:
    """Schema field dicts (by identity) of the hashes above -> their per-type keys: every
    key but `type` when all the others are optional hashes (a refund's
    `destination_details` also names bank transfers), else the payment method types and
    the legacy Sources types a charge may name."""
    objects = schema.load()["objects"]
    method_types = set(objects["payment_method"]["fields"]["type"]["enum"]) | {
        "ach_credit_transfer", "ach_debit", "sepa_credit_transfer", "stripe_account", "wechat"}
    found: dict[int, frozenset[str]] = {}
    for object_type, paths in PER_TYPE_HASHES.items():
        for path in paths:
            spec = objects.get(object_type) or {}
            for part in filter(None, path.split(".")):
                spec = spec.get("fields", {}).get(part, {})
            fields = spec.get("fields")
            if not fields:
                continue
            others = {n: f for n, f in fields.items() if n != "type"}
            if all(f.get("type") == "object" and f.get("nullable") for f in others.values()):
                found[id(fields)] = frozenset(others)
            else:
                found[id(fields)] = frozenset(n for n in fields if n in method_types)
    return found


def per_type_keys(object_type: str, path: str) -> frozenset[str]:
    """The per-type keys of one of the hashes in PER_TYPE_HASHES (for tests and checks)."""
    spec = schema.object_schema(object_type) or {}
    for part in filter(None, path.split(".")):
        spec = spec.get("fields", {}).get(part, {})
    return _per_type_fields().get(id(spec.get("fields")), frozenset())


@cache
def _fields(object_type: str) -> dict[str, Any] | None:
    spec = schema.object_schema(object_type)
    return spec.get("fields") if spec else None


def conform(obj: dict[str, Any]) -> dict[str, Any]:
    """Give every nested hash of `obj` the fields the SDK declares for it.

    Handlers set nested hashes from request params (`address`, `recurring`), which
    carry only what the caller sent; Stripe always answers with every declared key
    (unset ones as null). Called on every store write, so it only adds what is missing.
    """
    fields = _fields(str(obj.get("object")))
    if fields:
        _fill(obj, fields, top=True)
    return obj


_PLANS: dict[int, tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, dict[str, Any]]]]] = {}


def _plan(fields: dict[str, Any]) -> tuple[list[tuple[str, dict[str, Any]]],
                                           list[tuple[str, dict[str, Any]]]]:
    """Per schema hash: the fields to add when missing, and the ones to descend into.

    Keyed by identity: schema dicts are loaded once and never change.
    """
    plan = _PLANS.get(id(fields))
    if plan is None:
        fill, nested = [], []
        per_type = _per_type_fields().get(id(fields), frozenset())
        for name, spec in fields.items():
            kind = spec.get("type")
            # Lists appear only when Stripe sends them; `deleted` only on deletions; an unset
            # nested map (`fixed_amount.currency_options`) is left out rather than null.
            skip = kind == "list" or name == "deleted" or (
                kind == "map" and spec.get("nullable")) or name in per_type
            if not skip:
                fill.append((name, spec))
            items = spec.get("items") or {}
            if (kind == "object" and "fields" in spec) or (
                    kind == "array" and items.get("type") == "object" and "fields" in items):
                nested.append((name, spec))
        plan = _PLANS[id(fields)] = (fill, nested)
    return plan


def _fill(value: dict[str, Any], fields: dict[str, Any], top: bool = False) -> None:
    fill, nested = _plan(fields)
    if not top:  # top-level fields come from `blank`
        for name, spec in fill:
            if name not in value:
                value[name] = _field_default(name, spec)
    for name, spec in nested:
        child = value.get(name)
        if child is not None:
            _fill_child(child, spec)


def _fill_child(child: Any, spec: dict[str, Any]) -> None:
    kind = spec.get("type")
    if kind == "object" and isinstance(child, dict) and "fields" in spec:
        _fill(child, spec["fields"])
    elif kind == "array" and isinstance(child, list):
        items = spec.get("items") or {}
        if items.get("type") == "object" and "fields" in items:
            for item in child:
                if isinstance(item, dict):
                    _fill(item, items["fields"])


def field_spec(object_type: str) -> dict[str, Any] | None:
    """The declared fields of an object type (None when the SDK does not describe it)."""
    return _fields(object_type)


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
