"""Customers: create, retrieve, update, delete, list, search."""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest, Unsupported, missing
from ..events import changed
from ..listing import list_of, paginate
from ..render import hidden_unless_expanded, includable
from ..router import api
from ..search import field, search
from ._common import apply, currency, deleted, merge_metadata

FIELDS = ("address", "balance", "description", "email", "name", "phone", "shipping",
          "preferred_locales", "tax_exempt", "invoice_prefix", "next_invoice_sequence",
          "business_name", "individual_name")
SEARCH_FIELDS = {"email": field("email"), "name": field("name"), "phone": field("phone"),
                 "created": field("created")}


def _refuse_legacy(params: dict[str, Any]) -> None:
    """Parameters of Stripe features the emulator does not model: say so, never drop them."""
    if params.get("source") is not None:
        raise Unsupported("customer `source` (the legacy Sources / Cards API); attach a "
                          "PaymentMethod with `payment_method` instead", param="source")
    if params.get("default_source") is not None:
        raise Unsupported("customer `default_source` (the legacy Sources / Cards API); use "
                          "`invoice_settings[default_payment_method]`", param="default_source")
    if params.get("cash_balance") is not None:
        raise Unsupported("customer cash balances", param="cash_balance")


def _apply_tax(ctx: Ctx, customer: dict[str, Any], params: dict[str, Any]) -> None:
    """`tax[ip_address]` is kept; `tax[validate_location]=immediately` checks the location."""
    tax = params.get("tax")
    if not tax:
        return
    if "ip_address" in tax:
        customer["_tax_ip_address"] = tax["ip_address"]
    if tax.get("validate_location") == "immediately" and _tax_location(customer) is None:
        raise InvalidRequest(
            "The customer's location could not be determined. Provide a valid address "
            "(country, and postal code where required) to use Stripe Tax.",
            code="customer_tax_location_invalid", param="tax[validate_location]")


def _tax_location(customer: dict[str, Any]) -> dict[str, Any] | None:
    """Where Stripe Tax places a customer: shipping address, then billing address."""
    shipping = (customer.get("shipping") or {}).get("address") or {}
    if shipping.get("country"):
        return {"country": shipping["country"], "source": "shipping_destination",
                "state": shipping.get("state")}
    billing = customer.get("address") or {}
    if billing.get("country"):
        return {"country": billing["country"], "source": "billing_address",
                "state": billing.get("state")}
    return None


# Since 2020-08-27 Stripe sends these only when expanded; the includers below compute
# the ones that are lists or derived.
hidden_unless_expanded("customer", "cash_balance", "invoice_credit_balance", "sources",
                       "subscriptions", "tax", "tax_ids")


@includable("customer", "tax")
def _tax(ctx: Ctx, customer: dict[str, Any]) -> dict[str, Any]:
    location = _tax_location(customer)
    return {"automatic_tax": "supported" if location else "unrecognized_location",
            "ip_address": customer.get("_tax_ip_address"), "location": location,
            "provider": "stripe"}


@includable("customer", "tax_ids")
def _tax_ids(ctx: Ctx, customer: dict[str, Any]) -> dict[str, Any]:
    ids = [t for t in ctx.account.iter_type("tax_id") if t.get("customer") == customer["id"]]
    return list_of(ids, f"/v1/customers/{customer['id']}/tax_ids")


@includable("customer", "subscriptions")
def _subscriptions(ctx: Ctx, customer: dict[str, Any]) -> dict[str, Any]:
    subs = [s for s in ctx.account.iter_type("subscription")
            if s.get("customer") == customer["id"]
            and s.get("status") not in ("canceled", "incomplete_expired")]
    return list_of(subs, f"/v1/customers/{customer['id']}/subscriptions")


@includable("customer", "sources")
def _sources(ctx: Ctx, customer: dict[str, Any]) -> dict[str, Any]:
    # Legacy sources cannot be created here (`source` fails loudly), so the list is empty.
    return list_of([], f"/v1/customers/{customer['id']}/sources")


@api("POST", "/v1/customers")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    _refuse_legacy(params)
    for index, data in enumerate(params.get("tax_id_data") or []):
        _check_tax_id(data["type"], data["value"], f"tax_id_data[{index}][value]")
    customer = ctx.new("customer", "cus")
    customer["invoice_prefix"] = ctx.account.ids.token(8).upper()
    customer["next_invoice_sequence"] = 1
    customer["preferred_locales"] = []
    customer["tax_exempt"] = "none"
    customer["balance"] = 0
    customer["delinquent"] = False
    apply(customer, params, FIELDS)
    customer["metadata"] = merge_metadata({}, params.get("metadata") or {})
    settings = params.get("invoice_settings") or {}
    customer["invoice_settings"] = {"custom_fields": settings.get("custom_fields"),
                                    "default_payment_method": None,
                                    "footer": settings.get("footer"),
                                    "rendering_options": settings.get("rendering_options")}
    if params.get("test_clock"):
        clock = ctx.get(params["test_clock"], "test_helpers.test_clock", "test_clock",
                        kind="test_clock")
        customer["test_clock"] = clock["id"]
        customer["created"] = clock["frozen_time"]
    _apply_tax(ctx, customer, params)
    ctx.put(customer)
    for hook in CREATE_HOOKS:
        hook(ctx, customer, params)
    ctx.emit("customer.created", customer)
    for hook in CREATED_HOOKS:
        hook(ctx, customer, params)
    for index, data in enumerate(params.get("tax_id_data") or []):
        _new_tax_id(ctx, customer["id"], data["type"], data["value"],
                    f"tax_id_data[{index}][value]")
    return customer


# Other families extend customer creation (payment_method attach, tax ids, ...).
CREATE_HOOKS: list[Any] = []
CREATED_HOOKS: list[Any] = []  # after customer.created (events that follow it)
UPDATE_HOOKS: list[Any] = []


@api("GET", "/v1/customers/{customer}")
def retrieve(ctx: Ctx, params: dict[str, Any], customer: str) -> dict[str, Any]:
    # A deleted customer still retrieves, as a stub (its id stays in the creation order).
    if customer not in ctx.account.objects and customer.startswith("cus_") and (
            customer in ctx.account.seq):
        return {"id": customer, "object": "customer", "deleted": True}
    return ctx.get(customer, "customer")


@api("POST", "/v1/customers/{customer}")
def update(ctx: Ctx, params: dict[str, Any], customer: str) -> dict[str, Any]:
    obj = ctx.get(customer, "customer")
    _refuse_legacy(params)
    before = dict(obj)
    apply(obj, params, FIELDS + ("metadata",))
    if "tax_exempt" in params and params["tax_exempt"] is None:
        obj["tax_exempt"] = "none"  # `tax_exempt=` resets to Stripe's default
    try:
        _apply_tax(ctx, obj, params)
    except InvalidRequest:
        obj.clear()
        obj.update(before)
        raise
    if "invoice_settings" in params:
        settings = params["invoice_settings"] or {}
        current = dict(obj.get("invoice_settings") or {})
        for key, value in settings.items():
            current[key] = value
        obj["invoice_settings"] = current
    try:
        for hook in UPDATE_HOOKS:
            hook(ctx, obj, params)
    except Exception:
        obj.clear()  # a hook rejected the update: leave the customer as it was
        obj.update(before)
        raise
    ctx.put(obj)
    ctx.emit("customer.updated", obj, changed(before, obj))
    return obj


@api("DELETE", "/v1/customers/{customer}")
def delete(ctx: Ctx, params: dict[str, Any], customer: str) -> dict[str, Any]:
    obj = ctx.get(customer, "customer")
    ctx.remove(customer)
    ctx.emit("customer.deleted", obj)
    return deleted(obj)


@api("GET", "/v1/customers")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return paginate(ctx, ctx.account.iter_type("customer"), params, "/v1/customers",
                    exact={"email": params.get("email"), "test_clock": params.get("test_clock")})


@api("GET", "/v1/customers/search")
def search_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    return search(ctx, ctx.account.iter_type("customer"), params, "/v1/customers/search",
                  SEARCH_FIELDS)


# ------------------------------------------------------------------ balance transactions

def record_balance_transaction(ctx: Ctx, customer: dict[str, Any], amount: int, currency: str,
                               type_: str = "adjustment", **fields: Any) -> dict[str, Any]:
    """Move a customer's credit balance (negative = credit) and record why.

    Billing uses this too (invoices applying or overpaying the balance).
    """
    if customer.get("currency") and customer["currency"] != currency:
        raise InvalidRequest(
            f"The currency of this balance transaction ({currency}) must match the customer's "
            f"currency ({customer['currency']}).", param="currency")
    before = dict(customer)
    customer["balance"] = int(customer.get("balance") or 0) + amount
    customer["currency"] = currency
    txn = ctx.new("customer_balance_transaction", "cbtxn", amount=amount, currency=currency,
                  customer=customer["id"], ending_balance=customer["balance"], type=type_,
                  **fields)
    ctx.put(txn)
    ctx.put(customer)
    ctx.emit("customer.updated", customer, changed(before, customer))
    return txn


@api("POST", "/v1/customers/{customer}/balance_transactions")
def create_balance_transaction(ctx: Ctx, params: dict[str, Any], customer: str) -> dict[str, Any]:
    owner = ctx.get(customer, "customer", "customer")
    return record_balance_transaction(
        ctx, owner, params["amount"], currency(params["currency"]),
        description=params.get("description"),
        metadata=merge_metadata({}, params.get("metadata") or {}))


def _balance_transaction(ctx: Ctx, customer: str, transaction: str) -> dict[str, Any]:
    ctx.get(customer, "customer", "customer")
    txn = ctx.get(transaction, "customer_balance_transaction", "transaction",
                  kind="customer balance transaction")
    if txn["customer"] != customer:
        raise missing("customer balance transaction", transaction, "transaction")
    return txn


@api("GET", "/v1/customers/{customer}/balance_transactions/{transaction}")
def retrieve_balance_transaction(ctx: Ctx, params: dict[str, Any], customer: str,
                                 transaction: str) -> dict[str, Any]:
    return _balance_transaction(ctx, customer, transaction)


@api("POST", "/v1/customers/{customer}/balance_transactions/{transaction}")
def update_balance_transaction(ctx: Ctx, params: dict[str, Any], customer: str,
                               transaction: str) -> dict[str, Any]:
    txn = _balance_transaction(ctx, customer, transaction)
    apply(txn, params, ("description", "metadata"))
    ctx.put(txn)
    return txn


@api("GET", "/v1/customers/{customer}/balance_transactions")
def list_balance_transactions(ctx: Ctx, params: dict[str, Any], customer: str) -> dict[str, Any]:
    ctx.get(customer, "customer", "customer")
    invoice = params.get("invoice")

    def where(t: dict[str, Any]) -> bool:
        return t["customer"] == customer and (invoice is None or t.get("invoice") == invoice)
    return paginate(ctx, ctx.account.iter_type("customer_balance_transaction"), params,
                    f"/v1/customers/{customer}/balance_transactions", where)


# ------------------------------------------------------------------ tax ids

@api("POST", "/v1/customers/{customer}/tax_ids")
def create_tax_id(ctx: Ctx, params: dict[str, Any], customer: str) -> dict[str, Any]:
    ctx.get(customer, "customer", "customer")
    return _new_tax_id(ctx, customer, params["type"], params["value"], "value")


def _check_tax_id(kind: str, value: str, param: str) -> None:
    if kind == "eu_vat" and not value[:2].isalpha():
        raise InvalidRequest(f"Invalid value for eu_vat: {value}.", param=param,
                             code="tax_id_invalid")


def _new_tax_id(ctx: Ctx, customer: str, kind: str, value: str, param: str) -> dict[str, Any]:
    _check_tax_id(kind, value, param)
    country = value[:2].upper() if kind == "eu_vat" else kind.split("_")[0].upper()
    tax_id = ctx.new("tax_id", "txi", type=kind, value=value, country=country,
                     customer=customer,
                     owner={"type": "customer", "customer": customer, "account": None,
                            "application": None, "customer_account": None},
                     verification={"status": "pending", "verified_address": None,
                                   "verified_name": None})
    ctx.put(tax_id)
    ctx.emit("customer.tax_id.created", tax_id)
    return tax_id


def _tax_id(ctx: Ctx, customer: str, id: str) -> dict[str, Any]:
    ctx.get(customer, "customer", "customer")
    tax_id = ctx.get(id, "tax_id", "id", kind="tax ID")
    if tax_id["customer"] != customer:
        raise missing("tax ID", id)
    return tax_id


@api("GET", "/v1/customers/{customer}/tax_ids/{id}")
def retrieve_tax_id(ctx: Ctx, params: dict[str, Any], customer: str, id: str) -> dict[str, Any]:
    return _tax_id(ctx, customer, id)


@api("DELETE", "/v1/customers/{customer}/tax_ids/{id}")
def delete_tax_id(ctx: Ctx, params: dict[str, Any], customer: str, id: str) -> dict[str, Any]:
    tax_id = _tax_id(ctx, customer, id)
    ctx.remove(id)
    ctx.emit("customer.tax_id.deleted", tax_id)
    return deleted(tax_id)


@api("GET", "/v1/customers/{customer}/tax_ids")
def list_tax_ids(ctx: Ctx, params: dict[str, Any], customer: str) -> dict[str, Any]:
    ctx.get(customer, "customer", "customer")
    return paginate(ctx, ctx.account.iter_type("tax_id"), params,
                    f"/v1/customers/{customer}/tax_ids", lambda t: t["customer"] == customer)
