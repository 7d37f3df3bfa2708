"""Checkout Session create params: Stripe's cross-field rules and normalisation.

The schema already checked types and enums; this module enforces what Stripe checks
beyond that (which params go with which mode and ui_mode, limits, mutually exclusive
params) and turns params into the session's stored fields. Line items become private
`_items` entries (`li_...` ids) that the totals engine prices.
"""

from __future__ import annotations

import re
from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ._common import currency as check_currency
from ._common import merge_metadata
from .discounts import coupon_usable, promotion_usable
from .products import build_price
from .shipping_tax import build_shipping_rate

EMBEDDED = ("embedded_page",)
REDIRECTING = ("hosted_page",)
ELEMENTS = ("elements", "form")
MAX_LINE_ITEMS = {"payment": 100, "subscription": 20, "setup": 0}
MAX_OPTIONAL_ITEMS = 10
MAX_SHIPPING_OPTIONS = 5
MAX_CUSTOM_FIELDS = 3
DEFAULT_MAX_QUANTITY = 99
MIN_EXPIRY = 30 * 60
MAX_EXPIRY = 24 * 3600
CUSTOM_FIELD_KEY = re.compile(r"^[A-Za-z0-9_]{1,200}$")
DROPDOWN_VALUE = re.compile(r"^[A-Za-z0-9_]{1,100}$")


def only_in(params: dict[str, Any], name: str, mode: str, allowed: tuple[str, ...]) -> None:
    if params.get(name) is not None and mode not in allowed:
        modes = " or ".join(f"`{m}`" for m in allowed)
        raise InvalidRequest(f"You can only specify `{name}` in {modes} mode.", param=name)


def exclusive(params: dict[str, Any], *names: str) -> None:
    present = [n for n in names if params.get(n) not in (None, False, [])]
    if len(present) > 1:
        raise InvalidRequest("You may only specify one of these parameters: "
                             f"{', '.join(names)}.", param=present[1])


# ------------------------------------------------------------------ line items

def _adjustable(spec: dict[str, Any] | None, quantity: int, param: str) -> dict[str, Any] | None:
    if not spec:
        return None
    if not spec.get("enabled"):
        return {"enabled": False, "maximum": None, "minimum": None}
    minimum = spec.get("minimum", 0)
    maximum = spec.get("maximum", DEFAULT_MAX_QUANTITY)
    if minimum < 0:
        raise InvalidRequest("The minimum adjustable quantity must be at least 0.",
                             param=f"{param}[adjustable_quantity][minimum]")
    if maximum > 999_999 or maximum < 1:
        raise InvalidRequest("The maximum adjustable quantity must be between 1 and 999999.",
                             param=f"{param}[adjustable_quantity][maximum]")
    if minimum > maximum:
        raise InvalidRequest("The minimum adjustable quantity cannot be greater than the "
                             "maximum.", param=f"{param}[adjustable_quantity][minimum]")
    if not minimum <= quantity <= maximum:
        raise InvalidRequest(f"The quantity ({quantity}) must be between the adjustable "
                             f"quantity minimum ({minimum}) and maximum ({maximum}).",
                             param=f"{param}[quantity]")
    return {"enabled": True, "maximum": maximum, "minimum": minimum}


def _price_for_item(ctx: Ctx, item: dict[str, Any], param: str,
                    owner: str | None = None) -> dict[str, Any]:
    if item.get("price") and item.get("price_data"):
        raise InvalidRequest("You may only specify one of these parameters: price, price_data.",
                             param=f"{param}[price_data]")
    if item.get("price"):
        price = ctx.get(item["price"], "price", f"{param}[price]")
        # A Payment Link's own inline prices stay usable by the sessions it opens.
        if not price["active"] and not (owner and price.get("_inline_for") == owner):
            raise InvalidRequest(f"The price specified ({price['id']}) is inactive. This "
                                 "field only accepts active prices.", param=f"{param}[price]")
        product = ctx.maybe(price["product"], "product")
        if product is not None and not product["active"]:
            raise InvalidRequest(f"The price specified ({price['id']}) belongs to an inactive "
                                 "product.", param=f"{param}[price]")
        return price
    data = item.get("price_data")
    if not data:
        raise InvalidRequest("You must specify either `price` or `price_data` for each line "
                             "item.", param=f"{param}[price]", code="parameter_missing")
    if not data.get("product") and not data.get("product_data"):
        raise InvalidRequest("You must specify either `product` or `product_data` when "
                             "creating a price.", param=f"{param}[price_data][product]",
                             code="parameter_missing")
    if data.get("unit_amount") is None and data.get("unit_amount_decimal") is None:
        raise InvalidRequest("Missing required param: unit_amount.", code="parameter_missing",
                             param=f"{param}[price_data][unit_amount]")
    price_params = dict(data)
    if data.get("product_data"):
        product_data = dict(data["product_data"])
        product_data.pop("tax_details", None)
        price_params["product_data"] = product_data
    price = build_price(ctx, price_params)
    price["active"] = False  # inline prices are archived: usable only by this session
    if owner:
        price["_inline_for"] = owner
    ctx.put(price)
    return price


def build_items(ctx: Ctx, raw: list[dict[str, Any]], mode: str,
                owner: str | None = None) -> list[dict[str, Any]]:
    items = []
    for index, item in enumerate(raw):
        param = f"line_items[{index}]"
        price = _price_for_item(ctx, item, param, owner)
        custom = price.get("custom_unit_amount")
        if custom and item.get("quantity") not in (None, 1):
            raise InvalidRequest("Line items with a customer-chosen amount (custom_unit_amount) "
                                 "must have a quantity of 1.", param=f"{param}[quantity]")
        if mode == "payment" and price["type"] == "recurring":
            raise InvalidRequest("You specified `payment` mode but passed a recurring price. "
                                 "Either switch to `subscription` mode or use only one-time "
                                 "prices.", param=f"{param}[price]")
        if price.get("recurring") and price["recurring"].get("usage_type") == "metered":
            quantity = item.get("quantity")
            if quantity is not None:
                raise InvalidRequest("Quantity should not be specified where usage_type is "
                                     "`metered`. Remove quantity from `line_items[" + str(index)
                                     + "]`.", param=f"{param}[quantity]")
        elif item.get("quantity") is None:
            raise InvalidRequest(f"Missing required param: {param}[quantity].",
                                 code="parameter_missing", param=f"{param}[quantity]")
        quantity = item.get("quantity")
        if quantity is not None and quantity < 0:
            raise InvalidRequest("Quantity must be a non-negative integer.",
                                 param=f"{param}[quantity]")
        rates = []
        for r_index, rate_id in enumerate(item.get("tax_rates") or []):
            rates.append(ctx.get(rate_id, "tax_rate", f"{param}[tax_rates][{r_index}]")["id"])
        items.append({
            "id": ctx.new_id("li", 24), "price": price["id"], "quantity": quantity,
            "adjustable_quantity": _adjustable(item.get("adjustable_quantity"), quantity or 0,
                                               param),
            "tax_rates": rates, "metadata": merge_metadata({}, item.get("metadata") or {}),
            "optional": False,
            # Customer-chosen amount: starts at the preset (the page lets the customer change it).
            "custom": bool(custom), "custom_amount": (custom.get("preset") if custom else None)})
    if mode == "subscription" and items and not any(
            (ctx.get(i["price"], "price")["type"] == "recurring") for i in items):
        raise InvalidRequest("You must provide at least one recurring price in `subscription` "
                             "mode when using prices.", param="line_items")
    return items


def build_optional_items(ctx: Ctx, raw: list[dict[str, Any]] | None,
                         mode: str) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """The public `optional_items` echo plus private entries the page can add to the cart."""
    if not raw:
        return None, []
    if len(raw) > MAX_OPTIONAL_ITEMS:
        raise InvalidRequest(f"You can specify up to {MAX_OPTIONAL_ITEMS} optional items.",
                             param="optional_items")
    public, private = [], []
    for index, item in enumerate(raw):
        param = f"optional_items[{index}]"
        price = ctx.get(item["price"], "price", f"{param}[price]")
        if mode == "payment" and price["type"] == "recurring":
            raise InvalidRequest("Optional items in `payment` mode must use one-time prices.",
                                 param=f"{param}[price]")
        adjustable = _adjustable(item.get("adjustable_quantity"), item["quantity"], param)
        public.append({"adjustable_quantity": adjustable, "price": price["id"],
                       "quantity": item["quantity"]})
        private.append({"id": ctx.new_id("li", 24), "price": price["id"],
                        "quantity": item["quantity"], "adjustable_quantity": adjustable,
                        "tax_rates": [], "metadata": {}, "optional": True, "added": False})
    return public, private


# ------------------------------------------------------------------ other families

def build_shipping_options(ctx: Ctx, raw: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    options = []
    if raw and len(raw) > MAX_SHIPPING_OPTIONS:
        raise InvalidRequest(f"You can specify up to {MAX_SHIPPING_OPTIONS} shipping options.",
                             param="shipping_options")
    for index, option in enumerate(raw or []):
        param = f"shipping_options[{index}]"
        if option.get("shipping_rate") and option.get("shipping_rate_data"):
            raise InvalidRequest("You may only specify one of these parameters: shipping_rate, "
                                 "shipping_rate_data.", param=f"{param}[shipping_rate_data]")
        if option.get("shipping_rate"):
            rate = ctx.get(option["shipping_rate"], "shipping_rate", f"{param}[shipping_rate]")
            if not rate["active"]:
                raise InvalidRequest(f"The shipping rate {rate['id']} is inactive.",
                                     param=f"{param}[shipping_rate]")
        elif option.get("shipping_rate_data"):
            rate = build_shipping_rate(ctx, option["shipping_rate_data"])
        else:
            raise InvalidRequest("You must specify either `shipping_rate` or "
                                 "`shipping_rate_data`.", param=param, code="parameter_missing")
        options.append({"shipping_amount": (rate.get("fixed_amount") or {}).get("amount", 0),
                        "shipping_rate": rate["id"]})
    return options


def build_custom_fields(raw: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if not raw:
        return []
    if len(raw) > MAX_CUSTOM_FIELDS:
        raise InvalidRequest(f"You can specify up to {MAX_CUSTOM_FIELDS} custom fields.",
                             param="custom_fields")
    fields: list[dict[str, Any]] = []
    keys: set[str] = set()
    for index, spec in enumerate(raw):
        param = f"custom_fields[{index}]"
        key = spec["key"]
        if not CUSTOM_FIELD_KEY.match(key):
            raise InvalidRequest("Custom field keys may only contain alphanumeric characters "
                                 "and underscores, up to 200 characters.", param=f"{param}[key]")
        if key in keys:
            raise InvalidRequest(f"Custom field keys must be unique; `{key}` is repeated.",
                                 param=f"{param}[key]")
        keys.add(key)
        label = spec["label"]["custom"]
        if not label or len(label) > 50:
            raise InvalidRequest("Custom field labels must be between 1 and 50 characters.",
                                 param=f"{param}[label][custom]")
        kind = spec["type"]
        field: dict[str, Any] = {"dropdown": None, "key": key,
                                 "label": {"custom": label, "type": "custom"},
                                 "numeric": None, "optional": spec.get("optional", False),
                                 "text": None, "type": kind}
        for other in ("dropdown", "numeric", "text"):
            if other != kind and spec.get(other):
                raise InvalidRequest(f"You passed `{other}` but the custom field type is "
                                     f"`{kind}`.", param=f"{param}[{other}]")
        if kind == "dropdown":
            field["dropdown"] = _dropdown(spec.get("dropdown"), param)
        else:
            field[kind] = _text_like(spec.get(kind) or {}, kind, param)
        fields.append(field)
    return fields


def _dropdown(spec: dict[str, Any] | None, param: str) -> dict[str, Any]:
    if not spec or not spec.get("options"):
        raise InvalidRequest(f"Missing required param: {param}[dropdown][options].",
                             code="parameter_missing", param=f"{param}[dropdown][options]")
    options = spec["options"]
    if len(options) > 200:
        raise InvalidRequest("Dropdown custom fields can have up to 200 options.",
                             param=f"{param}[dropdown][options]")
    values = []
    for o_index, option in enumerate(options):
        if not DROPDOWN_VALUE.match(option["value"]):
            raise InvalidRequest("Dropdown option values may only contain alphanumeric "
                                 "characters and underscores, up to 100 characters.",
                                 param=f"{param}[dropdown][options][{o_index}][value]")
        if option["value"] in values:
            raise InvalidRequest("Dropdown option values must be unique.",
                                 param=f"{param}[dropdown][options][{o_index}][value]")
        values.append(option["value"])
    default = spec.get("default_value")
    if default is not None and default not in values:
        raise InvalidRequest("The dropdown default_value must match one of its options' "
                             "values.", param=f"{param}[dropdown][default_value]")
    return {"default_value": default,
            "options": [{"label": o["label"], "value": o["value"]} for o in options],
            "value": None}


def _text_like(spec: dict[str, Any], kind: str, param: str) -> dict[str, Any]:
    minimum = spec.get("minimum_length")
    maximum = spec.get("maximum_length")
    if minimum is not None and not 1 <= minimum <= 255:
        raise InvalidRequest("minimum_length must be between 1 and 255.",
                             param=f"{param}[{kind}][minimum_length]")
    if maximum is not None and not 1 <= maximum <= 255:
        raise InvalidRequest("maximum_length must be between 1 and 255.",
                             param=f"{param}[{kind}][maximum_length]")
    if minimum is not None and maximum is not None and minimum > maximum:
        raise InvalidRequest("minimum_length cannot be greater than maximum_length.",
                             param=f"{param}[{kind}][minimum_length]")
    default = spec.get("default_value")
    if default is not None and kind == "numeric" and not default.isdigit():
        raise InvalidRequest("A numeric custom field's default_value must contain only digits.",
                             param=f"{param}[{kind}][default_value]")
    return {"default_value": default, "maximum_length": maximum,
            "minimum_length": minimum, "value": None}


def build_custom_text(raw: dict[str, Any] | None) -> dict[str, Any]:
    text: dict[str, Any] = {"after_submit": None, "shipping_address": None, "submit": None,
                            "terms_of_service_acceptance": None}
    for position, value in (raw or {}).items():
        if value is None:
            continue
        message = value["message"]
        if len(message) > 1200:
            raise InvalidRequest("Custom text messages can be up to 1200 characters.",
                                 param=f"custom_text[{position}][message]")
        text[position] = {"message": message}
    return text


def build_discounts(ctx: Ctx, raw: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    out = []
    if raw and len(raw) > 1:
        raise InvalidRequest("You can only apply one discount to a Checkout Session.",
                             param="discounts")
    for index, entry in enumerate(raw or []):
        param = f"discounts[{index}]"
        exclusive(entry, "coupon", "promotion_code")
        if entry.get("coupon"):
            coupon = ctx.get(entry["coupon"], "coupon", f"{param}[coupon]")
            if not coupon_usable(ctx, coupon):
                raise InvalidRequest(f"Coupon {coupon['id']} is no longer valid.",
                                     param=f"{param}[coupon]")
            out.append({"coupon": coupon["id"], "promotion_code": None})
        elif entry.get("promotion_code"):
            promo = ctx.get(entry["promotion_code"], "promotion_code",
                            f"{param}[promotion_code]")
            if not promotion_usable(ctx, promo):
                raise InvalidRequest(f"The promotion code {promo['code']} is not active.",
                                     param=f"{param}[promotion_code]")
            out.append({"coupon": None, "promotion_code": promo["id"]})
    return out


def check_urls(params: dict[str, Any], ui_mode: str) -> None:
    if ui_mode in EMBEDDED + ELEMENTS:
        for name in ("success_url", "cancel_url"):
            if params.get(name):
                raise InvalidRequest(f"`{name}` is not allowed when `ui_mode` is `{ui_mode}`. "
                                     "Use `return_url` instead.", param=name)
        needs_return = params.get("redirect_on_completion", "always") != "never"
        if needs_return and not params.get("return_url"):
            raise InvalidRequest(f"`return_url` is required when `ui_mode` is `{ui_mode}` "
                                 "unless `redirect_on_completion` is `never`.",
                                 param="return_url", code="parameter_missing")
        if params.get("redirect_on_completion") == "never" and params.get("return_url"):
            raise InvalidRequest("`return_url` cannot be set when `redirect_on_completion` is "
                                 "`never`.", param="return_url")
    else:
        for name in ("return_url", "redirect_on_completion"):
            if params.get(name):
                raise InvalidRequest(f"`{name}` can only be used when `ui_mode` is "
                                     "`embedded_page` or `elements`.", param=name)
    for name in ("success_url", "cancel_url", "return_url"):
        url = params.get(name)
        if url and not re.match(r"^https?://", url):
            raise InvalidRequest(f"Not a valid URL: {name} must be an absolute http(s) URL.",
                                 param=name, code="url_invalid")


def check_expiry(ctx: Ctx, params: dict[str, Any]) -> int:
    now = ctx.now()
    expires_at = params.get("expires_at")
    if expires_at is None:
        return now + MAX_EXPIRY
    if expires_at < now + MIN_EXPIRY:
        raise InvalidRequest("The `expires_at` timestamp must be at least 30 minutes from "
                             "Checkout Session creation.", param="expires_at")
    if expires_at > now + MAX_EXPIRY:
        raise InvalidRequest("The `expires_at` timestamp must be less than 24 hours from "
                             "Checkout Session creation.", param="expires_at")
    return int(expires_at)


def session_currency(ctx: Ctx, params: dict[str, Any], items: list[dict[str, Any]]) -> str | None:
    """The session currency: explicit, or the first line item's price currency."""
    explicit = check_currency(params["currency"]) if params.get("currency") else None
    currencies = set()
    for index, item in enumerate(items):
        price = ctx.get(item["price"], "price")
        options = price.get("currency_options") or {}
        if explicit and explicit != price["currency"] and explicit not in options:
            raise InvalidRequest(f"The price {price['id']} has no `{explicit}` amount; add it "
                                 "to the price's currency_options or use another currency.",
                                 param=f"line_items[{index}][price]")
        currencies.add(price["currency"])
    if explicit:
        return explicit
    if len(currencies) > 1:
        raise InvalidRequest("All line items must use prices in the same currency.",
                             param="line_items")
    return next(iter(currencies), None)


# ------------------------------------------------------------------ payment method types

# Currencies a payment method type accepts, after each method's "Determine compatibility"
# page (docs.stripe.com/payments/<method>/accept-a-payment?payment-ui=checkout). Types
# not listed are not checked for currency.
PM_CURRENCIES: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in {
    "ideal": ("eur",), "bancontact": ("eur",), "eps": ("eur",), "giropay": ("eur",),
    "sofort": ("eur",), "sepa_debit": ("eur",), "multibanco": ("eur",),
    "p24": ("eur", "pln"), "blik": ("pln",), "bacs_debit": ("gbp",),
    "us_bank_account": ("usd",), "cashapp": ("usd",), "affirm": ("usd", "cad"),
    "acss_debit": ("cad", "usd"), "au_becs_debit": ("aud",),
    "afterpay_clearpay": ("aud", "cad", "gbp", "nzd", "usd"),
    "kakao_pay": ("krw",), "naver_pay": ("krw",), "kr_card": ("krw",), "payco": ("krw",),
    "samsung_pay": ("krw",), "konbini": ("jpy",), "oxxo": ("mxn",), "boleto": ("brl",),
    "pix": ("brl",), "promptpay": ("thb",), "paynow": ("sgd",), "fpx": ("myr",),
    "grabpay": ("myr", "sgd"), "twint": ("chf",), "swish": ("sek",)}.items()}
# Single-use methods Checkout refuses where the payment method is kept for later
# (subscription and setup mode): they cannot be set up for future payments.
SINGLE_USE = frozenset({"affirm", "afterpay_clearpay", "eps", "giropay", "p24", "oxxo",
                        "konbini", "multibanco", "grabpay", "fpx", "promptpay", "paynow",
                        "wechat_pay", "blik", "customer_balance"})


def pm_incompatibility(pm_type: str, currency: str | None, mode: str) -> str | None:
    """Why `pm_type` cannot be offered on this session, or None when it can."""
    accepted = PM_CURRENCIES.get(pm_type)
    if accepted is not None and currency and currency not in accepted:
        listed = ", ".join(sorted(accepted))
        return (f"The payment method type `{pm_type}` does not support the currency "
                f"`{currency}`; it accepts {listed}.")
    if mode in ("subscription", "setup") and pm_type in SINGLE_USE:
        return (f"The payment method type `{pm_type}` cannot be used in `{mode}` mode: it "
                "cannot be saved for future payments.")
    return None


def offered_types(allowed: list[str] | None, currency: str | None, mode: str,
                  strict: bool) -> list[str]:
    """The session's `payment_method_types` from the requested list.

    Before 2026-09-30.endive the request said `payment_method_types` (`strict`): an
    incompatible type is a 400. From endive, `allowed_payment_method_types` silently
    drops incompatible types (changelog endive/2026-09-30/remove-payment-method-types-
    checkout-sessions); nothing left is still a 400. No list: card (the emulator's
    dynamic payment methods offer card only).
    """
    if not allowed:
        return ["card"]
    param = "payment_method_types" if strict else "allowed_payment_method_types"
    kept: list[str] = []
    for index, pm_type in enumerate(allowed):
        reason = pm_incompatibility(pm_type, currency, mode)
        if reason and strict:
            raise InvalidRequest(reason, param=f"{param}[{index}]")
        if not reason and pm_type not in kept:
            kept.append(pm_type)
    if not kept:
        raise InvalidRequest("None of the allowed payment method types can be used with this "
                             "Checkout Session's currency and mode.", param=param)
    return kept
