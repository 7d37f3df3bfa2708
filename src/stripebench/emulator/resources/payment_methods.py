"""PaymentMethods: create (card details, `card[token]`), test ids, attach, detach, list.

Card PaymentMethods remember their test card (private `_number`) so confirmation can
decide the outcome. `pm_card_*` and `tok_*` ids are materialised into a fresh `pm_`
object each time they are used, as Stripe does.
"""

from __future__ import annotations

import datetime
from typing import Any

from .. import cards
from ..context import Ctx
from ..errors import CardError, InvalidRequest, Unsupported
from ..events import changed
from ..listing import paginate
from ..router import api
from . import customers
from ._common import merge_metadata

# Every payment method type hash the object declares; only the PM's own type is sent.
TYPE_KEYS = ("acss_debit", "affirm", "afterpay_clearpay", "alipay", "alma", "amazon_pay",
             "au_becs_debit", "bacs_debit", "bancontact", "billie", "bizum", "blik", "boleto",
             "card", "card_present", "cashapp", "crypto", "custom", "customer_balance", "eps",
             "fpx", "giropay", "grabpay", "ideal", "interac_present", "kakao_pay", "klarna",
             "konbini", "kr_card", "link", "mb_way", "mobilepay", "multibanco", "naver_pay",
             "nz_bank_account", "oxxo", "p24", "pay_by_bank", "payco", "paynow", "paypal",
             "paypay", "payto", "pix", "promptpay", "revolut_pay", "samsung_pay", "satispay",
             "scalapay", "sepa_debit", "sequra", "sofort", "sunbit", "swish", "twint", "upi",
             "us_bank_account", "wechat_pay", "zip")
REUSE_MESSAGE = ("The provided PaymentMethod was previously used with a PaymentIntent without "
                 "Customer attachment, shared with a connected account without Customer "
                 "attachment, or was detached from a Customer. It may not be used again. To use "
                 "a PaymentMethod multiple times, you must attach it to a Customer first.")


def card_details(card: cards.TestCard, exp_month: int, exp_year: int) -> dict[str, Any]:
    """The `card` hash of a card PaymentMethod."""
    return {
        "brand": card.brand, "display_brand": card.display_brand or card.brand,
        "checks": {"address_line1_check": None, "address_postal_code_check": None,
                   "cvc_check": None},
        "country": card.country, "exp_month": exp_month, "exp_year": exp_year,
        "fingerprint": cards.fingerprint(card.number), "funding": card.funding,
        "generated_from": None, "last4": card.last4,
        "networks": {"available": [card.brand], "preferred": None},
        "regulated_status": "unregulated",
        "three_d_secure_usage": {"supported": True}, "wallet": None,
    }


def new_card_pm(ctx: Ctx, card: cards.TestCard, *, exp_month: int = 12, exp_year: int = 0,
                billing_details: dict[str, Any] | None = None,
                metadata: dict[str, Any] | None = None, cvc: str | None = None,
                postal_code: str | None = None) -> dict[str, Any]:
    """Store a new card PaymentMethod for `card`."""
    year = exp_year or _year(ctx) + 8
    pm = ctx.new("payment_method", "pm", type="card", allow_redisplay="unspecified")
    for key in TYPE_KEYS:
        pm.pop(key, None)
    pm["card"] = card_details(card, exp_month, year)
    pm["billing_details"] = _billing(billing_details)
    if postal_code and not pm["billing_details"]["address"]["postal_code"]:
        pm["billing_details"]["address"]["postal_code"] = postal_code
    pm["metadata"] = merge_metadata({}, metadata or {})
    pm["customer"] = None
    pm["_number"] = card.number
    pm["_cvc_given"] = bool(cvc)
    ctx.put(pm)
    return pm


def _year(ctx: Ctx) -> int:
    return datetime.datetime.fromtimestamp(ctx.now(), datetime.UTC).year


def _billing(details: dict[str, Any] | None) -> dict[str, Any]:
    details = details or {}
    address = {k: None for k in ("city", "country", "line1", "line2", "postal_code", "state")}
    address.update({k: v for k, v in (details.get("address") or {}).items() if k in address})
    return {"address": address, "email": details.get("email"), "name": details.get("name"),
            "phone": details.get("phone"), "tax_id": details.get("tax_id")}


def test_card(pm: dict[str, Any]) -> cards.TestCard:
    """The test card behind a card PaymentMethod."""
    return cards.lookup_number(pm.get("_number") or "4242424242424242")


def _check_expiry(ctx: Ctx, exp_month: Any, exp_year: Any, prefix: str) -> tuple[int, int]:
    if exp_month is None:
        raise CardError("Your card's expiration month is invalid.", code="invalid_expiry_month",
                        param=f"{prefix}[exp_month]")
    if exp_year is None:
        raise CardError("Your card's expiration year is invalid.", code="invalid_expiry_year",
                        param=f"{prefix}[exp_year]")
    month, year = int(exp_month), int(exp_year)
    if year < 100:
        year += 2000
    if not 1 <= month <= 12:
        raise CardError("Your card's expiration month is invalid.", code="invalid_expiry_month",
                        param=f"{prefix}[exp_month]")
    today = datetime.datetime.fromtimestamp(ctx.now(), datetime.UTC)
    if (year, month) < (today.year, today.month) or year > today.year + 50:
        raise CardError("Your card's expiration year is invalid.", code="invalid_expiry_year",
                        param=f"{prefix}[exp_year]")
    return month, year


def from_card_params(ctx: Ctx, card: dict[str, Any], prefix: str = "card",
                     billing_details: dict[str, Any] | None = None,
                     metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """Create a card PaymentMethod from `card[number|exp_month|exp_year|cvc]` or `card[token]`."""
    if card.get("token"):
        token = use_token(ctx, card["token"], f"{prefix}[token]")
        return new_card_pm(ctx, cards.lookup_number(token["_number"]),
                           exp_month=token["card"]["exp_month"],
                           exp_year=token["card"]["exp_year"],
                           billing_details=billing_details, metadata=metadata)
    if not card.get("number"):
        raise InvalidRequest(f"Missing required param: {prefix}[number].",
                             code="parameter_missing", param=f"{prefix}[number]")
    test = cards.lookup_number(card["number"], f"{prefix}[number]")
    month, year = _check_expiry(ctx, card.get("exp_month"), card.get("exp_year"), prefix)
    cvc = card.get("cvc")
    if cvc is not None and (not str(cvc).isdigit() or not 3 <= len(str(cvc)) <= 4):
        raise CardError("Your card's security code is invalid.", code="invalid_cvc",
                        param=f"{prefix}[cvc]")
    return new_card_pm(ctx, test, exp_month=month, exp_year=year,
                       billing_details=billing_details, metadata=metadata,
                       cvc=str(cvc) if cvc else None)


RAW_CARD_MESSAGE = (
    "Sending credit card numbers directly to the Stripe API is generally unsafe. We suggest you "
    "use test tokens that map to the test card you are using, see "
    "https://stripe.com/docs/testing. To enable raw card data APIs in test mode, see "
    "https://support.stripe.com/questions/enabling-access-to-raw-card-data-apis.")


def check_raw_card(ctx: Ctx, card: Any, param: str) -> None:
    """Raw card numbers from a secret key are refused unless the account enabled them.

    Stripe.js (publishable key) may send them; server code should use test tokens or
    `pm_card_*` ids. The emulator account setting `raw_card_data: true` lifts this, as
    Stripe's dashboard setting does.
    """
    if (ctx.key_kind == "secret" and isinstance(card, dict) and card.get("number")
            and not ctx.account.settings.get("raw_card_data")):
        raise InvalidRequest(RAW_CARD_MESSAGE, param=f"{param}[number]")


def from_payment_method_data(ctx: Ctx, data: dict[str, Any]) -> dict[str, Any]:
    """`payment_method_data` on an intent or a ConfirmationToken: a card PaymentMethod
    made on use (other types are not emulated)."""
    if data.get("type", "card") != "card":
        raise Unsupported(f"payment_method_data of type '{data.get('type')}'",
                          param="payment_method_data[type]")
    if not data.get("card"):
        raise InvalidRequest("Missing required param: payment_method_data[card].",
                             code="parameter_missing", param="payment_method_data[card]")
    check_raw_card(ctx, data["card"], "payment_method_data[card]")
    return from_card_params(ctx, data["card"], "payment_method_data[card]",
                            data.get("billing_details"), data.get("metadata"))


def use_token(ctx: Ctx, token_id: str, param: str) -> dict[str, Any]:
    """A card token (`tok_visa` test tokens are reusable; created tokens are single-use)."""
    test = cards.TOKENS.get(token_id)
    if test is not None:
        return {"_number": test.number, "card": {"exp_month": 12, "exp_year": _year(ctx) + 8}}
    token = ctx.maybe(token_id, "token")
    if token is None:
        raise InvalidRequest(f"No such token: '{token_id}'", code="resource_missing",
                             param=param, status=400)
    if token.get("used"):
        raise InvalidRequest(f"You cannot use a Stripe token more than once: {token_id}.",
                             code="token_already_used", param=param)
    token["used"] = True
    ctx.put(token)
    return token


def resolve(ctx: Ctx, pm_or_token_id: Any, param: str = "payment_method") -> dict[str, Any]:
    """The PaymentMethod a request names.

    `pm_card_*` test ids and `tok_*` tokens become a fresh `pm_` object on every use;
    a real `pm_` id must exist on the account (404 `resource_missing` otherwise).
    """
    if isinstance(pm_or_token_id, dict):  # already a PaymentMethod object
        return pm_or_token_id
    value = str(pm_or_token_id or "")
    test = cards.PM_IDS.get(value)
    if test is not None:
        return new_card_pm(ctx, test)
    if value.startswith("tok_"):
        token = use_token(ctx, value, param)
        return new_card_pm(ctx, cards.lookup_number(token["_number"]),
                           exp_month=token["card"]["exp_month"],
                           exp_year=token["card"]["exp_year"])
    if value.startswith("pm_card_"):
        raise InvalidRequest(f"No such PaymentMethod: '{value}'; it is not one of Stripe's test "
                             "PaymentMethods.", code="resource_missing", param=param)
    pm = ctx.maybe(value, "payment_method")
    if pm is None:
        raise InvalidRequest(f"No such PaymentMethod: '{value}'", code="resource_missing",
                             param=param, status=404)
    return pm


def attach(ctx: Ctx, pm: dict[str, Any], customer_id: str) -> dict[str, Any]:
    """Attach a PaymentMethod to a customer (emits `payment_method.attached`).

    Fails like Stripe when the PaymentMethod belongs to another customer or was already
    consumed by a payment without a customer.
    """
    customer = ctx.get(customer_id, "customer", "customer")
    if pm.get("customer") == customer["id"]:
        return pm
    if pm.get("customer"):
        raise InvalidRequest("The payment method you provided has already been attached to a "
                             "customer.", param="payment_method")
    if pm.get("_consumed"):
        raise InvalidRequest(REUSE_MESSAGE, code="payment_method_unexpected_state",
                             param="payment_method")
    pm["customer"] = customer["id"]
    ctx.put(pm)
    ctx.emit("payment_method.attached", pm, {"customer": None})
    return pm


def detach(ctx: Ctx, pm: dict[str, Any]) -> dict[str, Any]:
    """Detach from its customer; a detached PaymentMethod cannot be used again."""
    if not pm.get("customer"):
        raise InvalidRequest("The payment method you provided is not attached to a customer so "
                             "detachment is impossible.", code="payment_method_unexpected_state",
                             param="payment_method")
    previous = pm["customer"]
    customer = ctx.maybe(previous, "customer")
    if customer and (customer.get("invoice_settings") or {}).get(
            "default_payment_method") == pm["id"]:
        customer["invoice_settings"]["default_payment_method"] = None
        ctx.put(customer)
    pm["customer"] = None
    pm["_consumed"] = True
    ctx.put(pm)
    ctx.emit("payment_method.detached", pm, {"customer": previous})
    return pm


# ------------------------------------------------------------------ API


@api("POST", "/v1/payment_methods", publishable=True)
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    if params.get("payment_method"):  # cloning onto a connected account
        raise Unsupported("cloning PaymentMethods (payment_method)", param="payment_method")
    kind = params.get("type")
    if not kind:
        if params.get("card"):
            kind = "card"
        else:
            raise InvalidRequest("Missing required param: type.", code="parameter_missing",
                                 param="type")
    if kind != "card":
        raise Unsupported(f"PaymentMethods of type '{kind}' (only card is emulated)",
                          param="type")
    card = params.get("card")
    if not card:
        raise InvalidRequest("Missing required param: card.", code="parameter_missing",
                             param="card")
    check_raw_card(ctx, card, "card")
    pm = from_card_params(ctx, card, "card", params.get("billing_details"),
                          params.get("metadata"))
    if params.get("allow_redisplay"):
        pm["allow_redisplay"] = params["allow_redisplay"]
    if params.get("customer"):
        if ctx.key_kind == "publishable":
            raise InvalidRequest("This API call cannot be made with a publishable API key "
                                 "when passing customer.", param="customer")
        attach(ctx, pm, params["customer"])
    ctx.put(pm)
    return pm


@api("GET", "/v1/payment_methods/{payment_method}")
def retrieve(ctx: Ctx, params: dict[str, Any], payment_method: str) -> dict[str, Any]:
    if payment_method in cards.PM_IDS:
        return resolve(ctx, payment_method)
    return ctx.get(payment_method, "payment_method", kind="PaymentMethod")


@api("POST", "/v1/payment_methods/{payment_method}")
def update(ctx: Ctx, params: dict[str, Any], payment_method: str) -> dict[str, Any]:
    pm = ctx.get(payment_method, "payment_method", kind="PaymentMethod")
    before = dict(pm)
    if "billing_details" in params:
        merged = dict(pm["billing_details"])
        new = params["billing_details"] or {}
        address = dict(merged.get("address") or {})
        address.update(new.get("address") or {})
        merged.update({k: v for k, v in new.items() if k != "address"})
        merged["address"] = address
        pm["billing_details"] = merged
    if "metadata" in params:
        pm["metadata"] = merge_metadata(pm.get("metadata"), params["metadata"])
    if "allow_redisplay" in params:
        pm["allow_redisplay"] = params["allow_redisplay"]
    if params.get("card"):
        if not pm.get("customer"):
            raise InvalidRequest("You must save this PaymentMethod to a customer before you can "
                                 "update it.", code="payment_method_unexpected_state")
        card = dict(pm["card"])
        month, year = _check_expiry(ctx, params["card"].get("exp_month", card["exp_month"]),
                                    params["card"].get("exp_year", card["exp_year"]), "card")
        card.update(exp_month=month, exp_year=year)
        pm["card"] = card
    ctx.put(pm)
    ctx.emit("payment_method.updated", pm, changed(before, pm))
    return pm


@api("POST", "/v1/payment_methods/{payment_method}/attach")
def attach_(ctx: Ctx, params: dict[str, Any], payment_method: str) -> dict[str, Any]:
    pm = resolve(ctx, payment_method)
    if not params.get("customer"):
        raise InvalidRequest("Missing required param: customer.", code="parameter_missing",
                             param="customer")
    _zero_amount_check(pm)
    return attach(ctx, pm, params["customer"])


def _zero_amount_check(pm: dict[str, Any]) -> None:
    """Attaching runs a zero-amount check: declining cards fail it."""
    test = test_card(pm)
    if test.number == cards.CHARGE_CUSTOMER_FAIL:
        return  # attaches fine; its charges are declined
    if test.decline is not None:
        raise CardError(test.decline.message, code=test.decline.code,
                        decline_code=test.decline.decline_code, param="")


@api("POST", "/v1/payment_methods/{payment_method}/detach")
def detach_(ctx: Ctx, params: dict[str, Any], payment_method: str) -> dict[str, Any]:
    pm = ctx.get(payment_method, "payment_method", kind="PaymentMethod")
    return detach(ctx, pm)


@api("GET", "/v1/payment_methods")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    customer = params.get("customer")
    kind = params.get("type")
    if customer:
        ctx.get(customer, "customer", "customer")

    def where(pm: dict[str, Any]) -> bool:
        if customer and pm.get("customer") != customer:
            return False
        if not customer and not pm.get("customer"):
            return False
        return kind is None or pm.get("type") == kind
    return paginate(ctx, ctx.account.iter_type("payment_method"), params,
                    "/v1/payment_methods", where)


@api("GET", "/v1/customers/{customer}/payment_methods")
def list_for_customer(ctx: Ctx, params: dict[str, Any], customer: str) -> dict[str, Any]:
    ctx.get(customer, "customer", "customer")
    kind = params.get("type")
    redisplay = params.get("allow_redisplay")

    return paginate(ctx, ctx.account.iter_type("payment_method"), params,
                    f"/v1/customers/{customer}/payment_methods", exact={
                        "customer": customer, "type": kind, "allow_redisplay": redisplay})


@api("GET", "/v1/customers/{customer}/payment_methods/{payment_method}")
def retrieve_for_customer(ctx: Ctx, params: dict[str, Any], customer: str,
                          payment_method: str) -> dict[str, Any]:
    ctx.get(customer, "customer", "customer")
    pm = ctx.get(payment_method, "payment_method", "payment_method", kind="PaymentMethod")
    if pm.get("customer") != customer:
        raise InvalidRequest(f"No such PaymentMethod: '{payment_method}'",
                             code="resource_missing", param="payment_method", status=404)
    return pm


# ------------------------------------------------------------------ customer hooks


def _customer_created(ctx: Ctx, customer: dict[str, Any], params: dict[str, Any]) -> None:
    """`payment_method` at customer creation attaches it; a default may name it.

    The default may repeat the `payment_method` value as given (`pm_card_visa` twice):
    Stripe then makes the attached card (the fresh `pm_` the test id became) the default.
    A failed request must not leave the half-made customer behind.
    """
    given = params.get("payment_method")
    default = (params.get("invoice_settings") or {}).get("default_payment_method")
    try:
        if default and default != given:
            _check_default(ctx, customer, default)  # a new customer has no other card
        if given:
            pm = resolve(ctx, given)
            _zero_amount_check(pm)
            attach(ctx, pm, customer["id"])
            if default == given:
                default = pm["id"]
    except Exception:
        ctx.remove(customer["id"])
        raise
    if default:
        customer["invoice_settings"]["default_payment_method"] = default
        ctx.put(customer)


def _customer_updated(ctx: Ctx, customer: dict[str, Any], params: dict[str, Any]) -> None:
    default = (params.get("invoice_settings") or {}).get("default_payment_method")
    if default:
        _check_default(ctx, customer, default)


def _check_default(ctx: Ctx, customer: dict[str, Any], pm_id: str) -> None:
    pm = ctx.maybe(pm_id, "payment_method")
    if pm is None or pm.get("customer") != customer["id"]:
        raise InvalidRequest(f"The customer does not have a payment method with the ID {pm_id}. "
                             "The payment method must be attached to the customer.",
                             code="resource_missing",
                             param="invoice_settings[default_payment_method]")


customers.CREATE_HOOKS.append(_customer_created)
customers.UPDATE_HOOKS.append(_customer_updated)
