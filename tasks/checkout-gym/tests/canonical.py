"""Canonical leaves of Checkout Session create parameters, and their F1 score.

A session's parameters become a set of (path, value) leaves that say only what a page
can show:

- defaults are dropped (locale auto, quantities' 0..99 bounds, `enabled: false`, submit
  type auto — and pay / subscribe, which draw the same button —, billing address auto,
  consent none, currency usd, invoice creation off, automatic capture, payment method
  collection always), so writing a default out loud neither helps nor hurts;
- lists Stripe treats as sets are keyed, not indexed: line and optional items by price,
  shipping options by what the customer sees (name, amount in the session currency,
  delivery estimate) and where they come from (the catalog's rate, by id, or inline
  `shipping_rate_data`: the instruction asks for the catalog's id wherever the catalog
  has the rate, so inline data copying a catalog rate costs one leaf), allowed countries
  by code, custom fields by their label;
- what no page shows is ignored: urls, ui_mode, custom field keys and dropdown option
  values (a default value counts through the label it selects), metadata;
- billing cycle anchors count by UTC date (the page shows a date, not a second);
- payment method types are a set, named either way (`payment_method_types` before the
  endive API version, `allowed_payment_method_types` from it): the tabs look the same;
  card alone is the default page;
- `payment_intent_data.setup_future_usage` counts as set, whichever value: on_session
  and off_session show the customer the same saving notice.

Anything else a submission sets becomes a leaf too, so guessing extra options costs
precision.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

Leaf = tuple[str, str]

IGNORED = {"ui_mode", "success_url", "cancel_url", "return_url", "redirect_on_completion",
           "metadata", "client_reference_id", "expand",
           "customer_creation", "origin_context", "integration_identifier"}


def _norm(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        text = value.strip()
        return text.lower() if text.lower() in ("true", "false") else text
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return str(value)


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _items(kind: str, items: Any) -> list[Leaf]:
    leaves: list[Leaf] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        if item.get("price"):
            key = f"{kind}[{_norm(item['price'])}]"
        elif isinstance(item.get("price_data"), dict):
            data = item["price_data"]
            name = (data.get("product_data") or {}).get("name") or data.get("product")
            key = f"{kind}[data:{name}]"
            leaves.append((f"{key}.unit_amount", _norm(data.get("unit_amount"))))
        else:
            continue
        leaves.append((key, "present"))
        if item.get("quantity") is not None:
            leaves.append((f"{key}.quantity", _norm(item["quantity"])))
        adjustable = item.get("adjustable_quantity") or {}
        if isinstance(adjustable, dict) and _truthy(adjustable.get("enabled")):
            leaves.append((f"{key}.adjustable_quantity.enabled", "true"))
            if _int(adjustable.get("minimum")) not in (None, 0):
                leaves.append((f"{key}.adjustable_quantity.minimum",
                               _norm(_int(adjustable["minimum"]))))
            if _int(adjustable.get("maximum")) not in (None, 99):
                leaves.append((f"{key}.adjustable_quantity.maximum",
                               _norm(_int(adjustable["maximum"]))))
    return leaves


def _estimate(bound: Any) -> str | None:
    if not isinstance(bound, dict):
        return None
    return f"{_norm(bound.get('value'))} {bound.get('unit')}"


def _shipping(options: Any, rates: dict[str, dict[str, Any]], currency: str) -> list[Leaf]:
    leaves: list[Leaf] = []
    for option in options if isinstance(options, list) else []:
        if not isinstance(option, dict):
            continue
        data = option.get("shipping_rate_data")
        if option.get("shipping_rate"):
            data = rates.get(_norm(option["shipping_rate"]))
            if data is None:  # an id this account does not hold
                leaves.append((f"shipping_options[id:{option['shipping_rate']}]", "present"))
                continue
        if not isinstance(data, dict):
            continue
        name = str(data.get("display_name", "")).strip()
        fixed = data.get("fixed_amount") or {}
        amount = fixed.get("amount")
        if str(fixed.get("currency", currency)).lower() != currency:
            option_amount = ((fixed.get("currency_options") or {}).get(currency) or {})
            amount = option_amount.get("amount", amount)
        key = f"shipping_options[{name}]"
        leaves.append((key, "present"))
        leaves.append((f"{key}.source", "catalog" if option.get("shipping_rate") else "inline"))
        leaves.append((f"{key}.amount", _norm(amount)))
        estimate = data.get("delivery_estimate") or {}
        for end in ("minimum", "maximum"):
            shown = _estimate(estimate.get(end))
            if shown:
                leaves.append((f"{key}.delivery_estimate.{end}", shown))
    return leaves


def _custom_fields(fields: Any) -> list[Leaf]:
    leaves: list[Leaf] = []
    for field in fields if isinstance(fields, list) else []:
        if not isinstance(field, dict):
            continue
        label = (field.get("label") or {}).get("custom") if isinstance(
            field.get("label"), dict) else field.get("label")
        key = f"custom_fields[{str(label or '').strip()}]"
        kind = field.get("type")
        leaves.append((f"{key}.type", _norm(kind)))
        if _truthy(field.get("optional")):
            leaves.append((f"{key}.optional", "true"))
        block = field.get(kind) if isinstance(kind, str) else None
        if not isinstance(block, dict):
            continue
        if kind == "dropdown":
            options = [o for o in block.get("options") or [] if isinstance(o, dict)]
            for n, option in enumerate(options):
                leaves.append((f"{key}.dropdown.options[{n}]", _norm(option.get("label"))))
            chosen = [o for o in options if o.get("value") == block.get("default_value")]
            if block.get("default_value") is not None:
                shown = chosen[0].get("label") if chosen else f"value:{block['default_value']}"
                leaves.append((f"{key}.dropdown.default", _norm(shown)))
        else:
            for limit in ("minimum_length", "maximum_length", "default_value"):
                if block.get(limit) is not None:
                    leaves.append((f"{key}.{kind}.{limit}", _norm(block[limit])))
    return leaves


def _flatten(prefix: str, value: Any) -> list[Leaf]:
    if isinstance(value, dict):
        out: list[Leaf] = []
        for k, v in value.items():
            out += _flatten(f"{prefix}.{k}", v)
        return out
    if isinstance(value, list):
        out = []
        for n, v in enumerate(value):
            out += _flatten(f"{prefix}[{n}]", v)
        return out
    return [(prefix, _norm(value))]


def leaves(params: Any, rates: dict[str, dict[str, Any]]) -> set[Leaf]:
    """The canonical leaves of one session's create parameters."""
    if not isinstance(params, dict):
        return set()
    currency = str(params.get("currency") or "usd").lower()
    mode = str(params.get("mode") or "payment")
    out: list[Leaf] = []
    for key, value in params.items():
        if key in IGNORED or value is None:
            continue
        if key == "mode":
            out.append(("mode", _norm(value)))
        elif key == "currency":
            if currency != "usd":
                out.append(("currency", currency))
        elif key == "locale":
            if value != "auto":
                out.append(("locale", _norm(value)))
        elif key in ("line_items", "optional_items"):
            out += _items(key, value)
        elif key == "shipping_options":
            out += _shipping(value, rates, currency)
        elif key == "shipping_address_collection":
            countries = (value or {}).get("allowed_countries") or []
            out += [("shipping_address_collection.allowed_countries", str(c).upper())
                    for c in countries]
        elif key == "custom_fields":
            out += _custom_fields(value)
        elif key == "custom_text":
            for position, block in (value or {}).items():
                if isinstance(block, dict) and block.get("message"):
                    out.append((f"custom_text.{position}", str(block["message"]).strip()))
        elif key == "consent_collection":
            for what, setting in (value or {}).items():
                if setting not in ("none", None) and what != "payment_method_reuse_agreement":
                    out.append((f"consent_collection.{what}", _norm(setting)))
        elif key in ("payment_method_types", "allowed_payment_method_types"):
            types = {_norm(t) for t in value} if isinstance(value, list) else {_norm(value)}
            if types != {"card"}:
                out += [("payment_method_types", t) for t in types]
        elif key in ("automatic_tax", "tax_id_collection", "phone_number_collection"):
            if isinstance(value, dict) and _truthy(value.get("enabled")):
                out.append((f"{key}.enabled", "true"))
                if key == "tax_id_collection" and value.get("required") not in (None, "never"):
                    out.append(("tax_id_collection.required", _norm(value["required"])))
        elif key == "payment_intent_data" and isinstance(value, dict):
            for sub_key, sub_value in value.items():
                if sub_key == "setup_future_usage" and sub_value in ("on_session",
                                                                     "off_session"):
                    out.append(("payment_intent_data.setup_future_usage", "set"))
                elif sub_key == "capture_method" and sub_value in ("automatic",
                                                                   "automatic_async"):
                    continue  # the default: the page shows the same Pay button
                elif sub_value is not None and sub_key != "metadata":
                    out += _flatten(f"payment_intent_data.{sub_key}", sub_value)
        elif key == "allow_promotion_codes":
            if _truthy(value):
                out.append((key, "true"))
        elif key == "invoice_creation":
            if isinstance(value, dict) and _truthy(value.get("enabled")):
                out += _flatten(key, value)
        elif key == "payment_method_collection":
            if value != "always":
                out.append((key, _norm(value)))
        elif key == "billing_address_collection":
            if value != "auto":
                out.append((key, _norm(value)))
        elif key == "submit_type":
            # The default button already reads "Pay" / "Subscribe": those equal "auto".
            same_as_auto = {"payment": "pay", "subscription": "subscribe"}.get(mode)
            if value not in ("auto", same_as_auto):
                out.append((key, _norm(value)))
        elif key == "subscription_data" and isinstance(value, dict):
            for sub_key, sub_value in value.items():
                if sub_key == "billing_cycle_anchor" and _int(sub_value) is not None:
                    day = datetime.fromtimestamp(_int(sub_value) or 0, UTC).date().isoformat()
                    out.append(("subscription_data.billing_cycle_anchor", day))
                elif sub_key == "proration_behavior" and sub_value == "create_prorations":
                    continue  # the default: the page shows a prorated first charge either way
                elif sub_value is not None and sub_key != "metadata":
                    out += _flatten(f"subscription_data.{sub_key}", sub_value)
        else:
            out += _flatten(key, value)
    return set(out)


def f1(truth: set[Leaf], answer: set[Leaf]) -> dict[str, float]:
    """Precision, recall and their harmonic mean; an empty answer scores 0.

    `mode` is a gate, not a leaf: a page in another mode is another session (0), and
    the right mode alone earns nothing — it is one of three guesses, so counting it
    would hand every blind answer (`{"mode": "payment"}` on every page) a share of
    the score. An answer that names no mode means `payment`, as the API did.
    """
    if not answer or not truth:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    truth_modes = {v for k, v in truth if k == "mode"} or {"payment"}
    answer_modes = {v for k, v in answer if k == "mode"} or {"payment"}
    truth = {leaf for leaf in truth if leaf[0] != "mode"}
    answer = {leaf for leaf in answer if leaf[0] != "mode"}
    if answer_modes != truth_modes or not answer or not truth:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    hits = len(truth & answer)
    precision = hits / len(answer)
    recall = hits / len(truth)
    score = 0.0 if hits == 0 else 2 * precision * recall / (precision + recall)
    return {"precision": precision, "recall": recall, "f1": score}
