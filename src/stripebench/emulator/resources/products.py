"""Products and prices."""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest, Unsupported
from ..events import changed
from ..listing import paginate
from ..render import hidden_unless_expanded
from ..router import api
from ..search import field, search
from ._common import apply, currency, deleted, merge_metadata, require

PRODUCT_FIELDS = ("active", "description", "images", "marketing_features", "name",
                  "package_dimensions", "shippable", "statement_descriptor", "tax_code",
                  "tax_details", "unit_label", "url")
PRODUCT_SEARCH = {"active": field("active"), "description": field("description"),
                  "name": field("name"), "shippable": field("shippable"), "url": field("url"),
                  "created": field("created")}
PRICE_SEARCH = {"active": field("active"), "currency": field("currency"),
                "lookup_key": field("lookup_key"), "product": field("product"),
                "type": field("type"), "created": field("created")}


# ------------------------------------------------------------------ products

@api("POST", "/v1/products")
def create_product(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    product = ctx.new("product", "prod", id=params.get("id"), active=True,
                      type=params.get("type") or "service", images=[], marketing_features=[],
                      updated=ctx.now())
    if params.get("id") and ctx.account.objects.get(params["id"]):
        raise InvalidRequest("Product already exists.", param="id", code="resource_already_exists")
    if params.get("default_price_data"):
        # Check the price before the product exists: a bad price creates neither.
        try:
            price_fields(ctx, params["default_price_data"])
        except InvalidRequest as exc:
            if exc.param:  # name it where the client sent it: default_price_data[unit_amount]
                head, bracket, rest = exc.param.partition("[")
                exc.param = f"default_price_data[{head}]{bracket}{rest}"
            raise
    apply(product, params, PRODUCT_FIELDS)
    product["metadata"] = merge_metadata({}, params.get("metadata") or {})
    if "active" not in params:
        product["active"] = True
    ctx.put(product)
    ctx.emit("product.created", product)
    if params.get("default_price_data"):
        data = dict(params["default_price_data"])
        data["product"] = product["id"]
        price = build_price(ctx, data)
        product["default_price"] = price["id"]
        ctx.put(product)
    return product


@api("GET", "/v1/products/{id}")
def retrieve_product(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:
    return ctx.get(id, "product")


@api("POST", "/v1/products/{id}")
def update_product(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:
    product = ctx.get(id, "product")
    before = dict(product)
    apply(product, params, PRODUCT_FIELDS + ("metadata",))
    if "default_price" in params:
        if params["default_price"] is not None:
            price = ctx.get(params["default_price"], "price", "default_price")
            if price["product"] != product["id"]:
                raise InvalidRequest("The default price must belong to this product.",
                                     param="default_price")
        product["default_price"] = params["default_price"]
    product["updated"] = ctx.now()
    ctx.put(product)
    ctx.emit("product.updated", product, changed(before, product))
    return product


@api("DELETE", "/v1/products/{id}")
def delete_product(ctx: Ctx, params: dict[str, Any], id: str) -> dict[str, Any]:
    product = ctx.get(id, "product")
    if any(p["product"] == id for p in ctx.account.iter_type("price")):
        raise InvalidRequest("This product cannot be deleted because it has one or more "
                             "user-created prices.", param="id")
    ctx.remove(id)
    ctx.emit("product.deleted", product)
    return deleted(product)


@api("GET", "/v1/products")
def list_products(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    ids = set(params["ids"]) if params.get("ids") else None

    def where(p: dict[str, Any]) -> bool:
        return all(k not in params or p.get(k) == params[k]
                   for k in ("active", "shippable", "url", "type")) and (
            ids is None or p["id"] in ids)
    return paginate(ctx, ctx.account.iter_type("product"), params, "/v1/products", where)


@api("GET", "/v1/products/search")
def search_products(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return search(ctx, ctx.account.iter_type("product"), params, "/v1/products/search",
                  PRODUCT_SEARCH)


# ------------------------------------------------------------------ prices

# Stripe leaves these out of a price unless asked (`expand[]=currency_options`).
hidden_unless_expanded("price", "currency_options", "tiers")


def _tiers(tiers: list[dict[str, Any]] | None, param: str = "tiers") -> list[dict[str, Any]] | None:
    """Tiers as Stripe returns them: `up_to: inf` becomes null, decimals mirror integers."""
    if not tiers:
        return None
    out = []
    for index, tier in enumerate(tiers):
        up_to = tier.get("up_to")
        if up_to == "inf" and index != len(tiers) - 1:
            raise InvalidRequest("Only the last tier can have `up_to` set to `inf`.",
                                 param=f"{param}[{index}][up_to]")
        unit, flat = tier.get("unit_amount"), tier.get("flat_amount")
        out.append({
            "flat_amount": flat,
            "flat_amount_decimal": (str(flat) if flat is not None
                                    else tier.get("flat_amount_decimal")),
            "unit_amount": unit,
            "unit_amount_decimal": (str(unit) if unit is not None
                                    else tier.get("unit_amount_decimal")),
            "up_to": None if up_to == "inf" else up_to})
    if out[-1]["up_to"] is not None:
        raise InvalidRequest("The last tier must have `up_to` set to `inf`.",
                             param=f"{param}[{len(tiers) - 1}][up_to]")
    return out


def _currency_option(opt: dict[str, Any], tax_behavior: str, param: str) -> dict[str, Any]:
    """One `currency_options` entry as Stripe stores it (create and update alike)."""
    return {
        "custom_unit_amount": _custom_amount(opt.get("custom_unit_amount")),
        "tax_behavior": opt.get("tax_behavior") or tax_behavior,
        "tiers": _tiers(opt.get("tiers"), f"{param}[tiers]"),
        "unit_amount": opt.get("unit_amount"),
        "unit_amount_decimal": str(opt["unit_amount"]) if opt.get("unit_amount") is not None
        else opt.get("unit_amount_decimal"),
    }


def _custom_amount(spec: dict[str, Any] | None) -> dict[str, Any] | None:
    if not spec or not spec.get("enabled"):
        return None
    return {"maximum": spec.get("maximum"), "minimum": spec.get("minimum"),
            "preset": spec.get("preset")}

def build_price(ctx: Ctx, params: dict[str, Any],
                object_id: str | None = None) -> dict[str, Any]:
    """Create a price; every check runs before anything is written (or an inline product made).
    `object_id` is a caller-chosen id (legacy plans take one)."""
    if params.get("product_data") and params.get("product"):
        raise InvalidRequest("You may only specify one of these parameters: product, "
                             "product_data.", param="product")
    if not params.get("product_data"):
        ctx.get(require(params, "product"), "product", "product")
    fields = price_fields(ctx, params)
    lookup_key = fields["lookup_key"]
    if lookup_key:
        holder = next((p for p in ctx.account.iter_type("price")
                       if p.get("lookup_key") == lookup_key), None)
        if holder is not None:
            holder["lookup_key"] = None
            ctx.put(holder)
    if params.get("product_data"):
        fields["product"] = create_product(ctx, params["product_data"])["id"]
    else:
        fields["product"] = params["product"]
    price = ctx.new("price", "price", id=object_id, **fields)
    ctx.put(price)
    ctx.emit("price.created", price)
    return price


def price_fields(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    """Validate price params (all but `product`) and return the new price's fields."""
    cur = currency(require(params, "currency"))
    scheme = params.get("billing_scheme", "per_unit")
    amount = params.get("unit_amount")
    decimal = params.get("unit_amount_decimal")
    custom = _custom_amount(params.get("custom_unit_amount"))
    if scheme == "per_unit" and amount is None and decimal is None and not custom:
        raise InvalidRequest("Missing required param: unit_amount.", code="parameter_missing",
                             param="unit_amount")
    if amount is not None and decimal is not None:
        raise InvalidRequest("You may only specify one of these parameters: unit_amount, "
                             "unit_amount_decimal.", param="unit_amount_decimal")
    if amount is not None and amount < 0:
        raise InvalidRequest("Invalid unit_amount: must be at least 0", param="unit_amount")
    if decimal is not None and amount is None and float(decimal).is_integer():
        amount = int(float(decimal))
    recurring = params.get("recurring")
    if recurring:
        recurring = {"interval": recurring["interval"],
                     "interval_count": recurring.get("interval_count", 1),
                     "meter": recurring.get("meter"),
                     "usage_type": recurring.get("usage_type", "licensed"),
                     "trial_period_days": recurring.get("trial_period_days")}
        per_year = {"day": 365, "week": 52, "month": 12, "year": 1}[recurring["interval"]]
        if not 1 <= recurring["interval_count"] <= 3 * per_year:
            raise InvalidRequest("The maximum billing period is 3 years.",
                                 param="recurring[interval_count]")
    if scheme == "tiered" and not params.get("tiers"):
        raise InvalidRequest("Missing required param: tiers.", code="parameter_missing",
                             param="tiers")
    if scheme == "tiered" and not params.get("tiers_mode"):
        raise InvalidRequest("Missing required param: tiers_mode.", code="parameter_missing",
                             param="tiers_mode")
    if scheme == "tiered" and (amount is not None or decimal is not None):
        raise InvalidRequest("You may not pass unit_amount when billing_scheme is tiered; the "
                             "amounts come from the tiers.", param="unit_amount")
    if scheme != "tiered" and params.get("tiers"):
        raise InvalidRequest("You may only specify tiers when billing_scheme is tiered.",
                             param="tiers")
    lookup_key = params.get("lookup_key")
    if lookup_key:
        holder = next((p for p in ctx.account.iter_type("price")
                       if p.get("lookup_key") == lookup_key), None)
        if holder is not None:
            if not params.get("transfer_lookup_key"):
                raise InvalidRequest(f"A price (`{holder['id']}`) already uses that lookup key.",
                                     param="lookup_key")
    options = None
    if params.get("currency_options"):
        options = {}
        for code, opt in params["currency_options"].items():
            options[currency(code, f"currency_options[{code}]")] = _currency_option(
                opt, params.get("tax_behavior", "unspecified"), f"currency_options[{code}]")
        options.setdefault(cur, {"custom_unit_amount": None,
                                 "tax_behavior": params.get("tax_behavior", "unspecified"),
                                 "tiers": None, "unit_amount": amount,
                                 "unit_amount_decimal": str(amount) if amount is not None
                                 else decimal})
    return dict(
        active=params.get("active", True), billing_scheme=scheme,
        currency=cur, currency_options=options, custom_unit_amount=custom,
        lookup_key=lookup_key, metadata=merge_metadata({}, params.get("metadata") or {}),
        nickname=params.get("nickname"), recurring=recurring,
        tax_behavior=params.get("tax_behavior", "unspecified"),
        tiers=_tiers(params.get("tiers")),
        tiers_mode=params.get("tiers_mode"), transform_quantity=params.get("transform_quantity"),
        type="recurring" if recurring else "one_time", unit_amount=amount,
        unit_amount_decimal=decimal if decimal is not None else (
            str(amount) if amount is not None else None))


@api("POST", "/v1/prices")
def create_price(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return build_price(ctx, params)


@api("GET", "/v1/prices/{price}")
def retrieve_price(ctx: Ctx, params: dict[str, Any], price: str) -> dict[str, Any]:
    return ctx.get(price, "price")


@api("POST", "/v1/prices/{price}")
def update_price(ctx: Ctx, params: dict[str, Any], price: str) -> dict[str, Any]:
    obj = ctx.get(price, "price")
    before = dict(obj)
    if params.get("lookup_key") and params["lookup_key"] != obj.get("lookup_key"):
        holder = next((p for p in ctx.account.iter_type("price")
                       if p.get("lookup_key") == params["lookup_key"]), None)
        if holder is not None:
            if not params.get("transfer_lookup_key"):
                raise InvalidRequest(f"A price (`{holder['id']}`) already uses that lookup key.",
                                     param="lookup_key")
            holder["lookup_key"] = None
            ctx.put(holder)
    fixed = obj.get("tax_behavior") in ("inclusive", "exclusive")
    if fixed and params.get("tax_behavior") not in (None, obj["tax_behavior"]):
        raise InvalidRequest("The tax_behavior of a price cannot be changed once it is set to "
                             "inclusive or exclusive.", param="tax_behavior")
    apply(obj, params, ("active", "lookup_key", "nickname", "tax_behavior", "metadata"))
    if "currency_options" in params and params["currency_options"] is None:
        obj["currency_options"] = None  # `currency_options=` drops the extra currencies
    elif params.get("currency_options"):
        options = dict(obj.get("currency_options") or {})
        options.setdefault(obj["currency"], {
            "custom_unit_amount": obj.get("custom_unit_amount"),
            "tax_behavior": obj.get("tax_behavior", "unspecified"), "tiers": obj.get("tiers"),
            "unit_amount": obj.get("unit_amount"),
            "unit_amount_decimal": obj.get("unit_amount_decimal")})
        for code, opt in params["currency_options"].items():
            code = currency(code, f"currency_options[{code}]")
            if code == obj["currency"]:
                raise Unsupported("changing a price's own currency through currency_options "
                                  "(Stripe's amounts cannot change after creation)",
                                  param=f"currency_options[{code}]")
            fresh = _currency_option(opt, str(obj.get("tax_behavior") or "unspecified"),
                                     f"currency_options[{code}]")
            if code not in options:
                options[code] = fresh
                continue
            entry = dict(options[code])  # only the fields sent change
            for name in ("custom_unit_amount", "tax_behavior", "tiers"):
                if name in opt:
                    entry[name] = fresh[name]
            if "unit_amount" in opt or "unit_amount_decimal" in opt:
                entry["unit_amount"] = fresh["unit_amount"]
                entry["unit_amount_decimal"] = fresh["unit_amount_decimal"]
            options[code] = entry
        obj["currency_options"] = options
    ctx.put(obj)
    ctx.emit("price.updated", obj, changed(before, obj))
    return obj


@api("GET", "/v1/prices")
def list_prices(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    keys = set(params["lookup_keys"]) if params.get("lookup_keys") else None
    recurring = params.get("recurring") or {}

    def where(p: dict[str, Any]) -> bool:
        if any(k in params and p.get(k) != params[k]
               for k in ("active", "currency", "product", "type")):
            return False
        if keys is not None and p.get("lookup_key") not in keys:
            return False
        rec = p.get("recurring") or {}
        return all(rec.get(k) == v for k, v in recurring.items()) and (
            not recurring or bool(p.get("recurring")))
    return paginate(ctx, ctx.account.iter_type("price"), params, "/v1/prices", where)


@api("GET", "/v1/prices/search")
def search_prices(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return search(ctx, ctx.account.iter_type("price"), params, "/v1/prices/search", PRICE_SEARCH)
