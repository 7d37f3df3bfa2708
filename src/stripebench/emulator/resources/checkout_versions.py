"""Checkout Session version changes: what older API versions send and read back.

- 2026-09-30.endive: `payment_method_types` removed (older versions: mapped to
  `allowed_payment_method_types`, which they never read back).
- 2026-03-25.dahlia: `ui_mode` hosted / embedded / custom became hosted_page /
  embedded_page / elements; the newest versions reject the old names.
- 2025-03-31.basil: top-level `shipping_details` moved to `collected_information`.
- 2025-02-24.acacia: `collected_information` added.
- 2022-08-01: `shipping` → `shipping_details`, `shipping_rate` → `shipping_cost`,
  `shipping_rates[]` param removed, payment-mode `customer_creation` default if_required.
"""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..versions import request_change, response_change

DAHLIA = "2026-03-25.dahlia"  # ui_mode enum values renamed
ENDIVE = "2026-09-30.endive"  # payment_method_types param removed
BASIL = "2025-03-31.basil"  # top-level shipping_details removed
ACACIA_COLLECTED = "2025-02-24.acacia"  # collected_information added
SHIPPING_2022 = "2022-08-01"  # shipping -> shipping_details, shipping_rates param removed
OLD_UI_MODES = {"hosted": "hosted_page", "embedded": "embedded_page", "custom": "elements"}
NEW_UI_MODES = {v: k for k, v in OLD_UI_MODES.items()}


@request_change(DAHLIA)
def old_ui_mode_names(ctx: Ctx, method: str, template: str,
                      params: dict[str, Any]) -> dict[str, Any]:
    """Before dahlia, ui_mode was hosted / embedded / custom; the new names did not exist."""
    if template != "/v1/checkout/sessions" or method != "POST" or "ui_mode" not in params:
        return params
    value = params["ui_mode"]
    if value not in OLD_UI_MODES:
        raise InvalidRequest("Invalid ui_mode: must be one of custom, embedded, or hosted",
                             param="ui_mode")
    return {**params, "ui_mode": OLD_UI_MODES[value]}


@response_change(DAHLIA, "checkout.session")
def old_ui_mode_field(ctx: Ctx, obj: dict[str, Any]) -> None:
    if obj.get("ui_mode") in NEW_UI_MODES:
        obj["ui_mode"] = NEW_UI_MODES[obj["ui_mode"]]


@request_change(ENDIVE)
def payment_method_types_param(ctx: Ctx, method: str, template: str,
                               params: dict[str, Any]) -> dict[str, Any]:
    """Before endive, sessions took `payment_method_types` (an explicit list)."""
    if template == "/v1/checkout/sessions" and method == "POST" and (
            "payment_method_types" in params):
        params = dict(params)
        params["allowed_payment_method_types"] = params.pop("payment_method_types")
    return params


@response_change(ENDIVE, "checkout.session")
def no_allowed_types_field(ctx: Ctx, obj: dict[str, Any]) -> None:
    obj.pop("allowed_payment_method_types", None)


@response_change(BASIL, "checkout.session")
def top_level_shipping_details(ctx: Ctx, obj: dict[str, Any]) -> None:
    collected = obj.get("collected_information") or {}
    obj["shipping_details"] = collected.get("shipping_details")


@response_change(ACACIA_COLLECTED, "checkout.session")
def no_collected_information(ctx: Ctx, obj: dict[str, Any]) -> None:
    obj.pop("collected_information", None)


@request_change(SHIPPING_2022)
def old_shipping_rates_param(ctx: Ctx, method: str, template: str,
                             params: dict[str, Any]) -> dict[str, Any]:
    """Before 2022-08-01: `shipping_rates[]` and a payment-mode customer_creation of always."""
    if template != "/v1/checkout/sessions" or method != "POST":
        return params
    params = dict(params)
    if "shipping_rates" in params:
        rates = params.pop("shipping_rates") or []
        params["shipping_options"] = [{"shipping_rate": r} for r in rates]
    if params.get("mode") == "payment" and "customer_creation" not in params and not params.get(
            "customer"):
        params["customer_creation"] = "always"
    return params


@response_change(SHIPPING_2022, "checkout.session")
def old_shipping_fields(ctx: Ctx, obj: dict[str, Any]) -> None:
    obj["shipping"] = obj.pop("shipping_details", None)
    cost = obj.pop("shipping_cost", None) or {}
    obj["shipping_rate"] = cost.get("shipping_rate")
