"""Connect accounts: create (by `type` or `controller` properties), retrieve, update, list,
delete, reject; `GET /v1/account`; capabilities; external accounts; login links.

A connected account is two things here: an emulator `Account` (its own objects, ids,
clock and events, reached with `Stripe-Account`) and the API's `account` object, kept
among the platform's objects so the platform can list and update it. Requirements and
every flag derived from them are recomputed from the stored data on each change
(account_requirements.py).
"""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest, PermissionError_, Unsupported, missing
from ..events import changed
from ..listing import list_of, paginate
from ..render import includable
from ..router import api
from ..shape import clone
from ..store import Account
from . import account_requirements as reqs
from ._common import apply, deleted, merge_metadata

LEGACY_TYPES: dict[str, dict[str, Any]] = {
    "standard": {"fees": {"payer": "account"}, "losses": {"payments": "stripe"},
                 "requirement_collection": "stripe", "stripe_dashboard": {"type": "full"}},
    "express": {"fees": {"payer": "application_express"},
                "losses": {"payments": "application"}, "requirement_collection": "stripe",
                "stripe_dashboard": {"type": "express"}},
    "custom": {"fees": {"payer": "application_custom"},
               "losses": {"payments": "application"}, "requirement_collection": "application",
               "stripe_dashboard": {"type": "none"}},
}
CURRENCY_BY_COUNTRY = {"US": "usd", "CA": "cad", "GB": "gbp", "AU": "aud", "JP": "jpy",
                       "FR": "eur", "DE": "eur", "IE": "eur", "ES": "eur", "IT": "eur",
                       "NL": "eur", "SG": "sgd", "NZ": "nzd", "CH": "chf"}
FIELDS = ("business_profile", "business_type", "email", "default_currency", "settings")
# Capabilities whose status follows the requirements; others we leave as requested.
MONEY_CAPABILITIES = ("card_payments", "transfers")
TEST_BANK_TOKENS = {"btok_us_verified": ("000123456789", "110000000"),
                    "btok_us": ("000123456789", "110000000")}


# ------------------------------------------------------------------ lookups

def platform_of(ctx: Ctx) -> Account:
    """The account whose key made the request (the platform), refusing connected accounts."""
    if ctx.account.parent:
        raise PermissionError_(
            "This application does not have the required permissions for this endpoint on "
            f"account '{ctx.account.id}'.")
    return ctx.account


def account_object(ctx: Ctx, account_id: str, param: str = "account") -> dict[str, Any]:
    platform = platform_of(ctx)
    obj = platform.objects.get(account_id)
    if obj is None or obj.get("object") != "account":
        raise missing("account", account_id, param)
    return obj


def _save(ctx: Ctx, obj: dict[str, Any]) -> None:
    ctx.store.put(platform_of(ctx), obj)


def _persons(ctx: Ctx, account_id: str) -> list[dict[str, Any]]:
    return [p for p in ctx.account.iter_type("person", newest_first=False)
            if p.get("account") == account_id]


def _bank_accounts(ctx: Ctx, account_id: str) -> list[dict[str, Any]]:
    return [b for b in ctx.account.iter_type("bank_account", newest_first=False)
            if b.get("account") == account_id]


def refresh(ctx: Ctx, obj: dict[str, Any]) -> None:
    """Recompute requirements, capability statuses and the three flags from the data."""
    banks = _bank_accounts(ctx, obj["id"])
    due = reqs.due(obj, _persons(ctx, obj["id"]), bool(banks))
    obj["requirements"] = reqs.requirements(obj, due)
    obj["future_requirements"] = {**reqs.requirements(obj, []), "disabled_reason": None}
    ready = not due and not obj.get("_rejected")
    for name in obj.get("_requested") or []:
        obj["capabilities"][name] = "active" if ready else "inactive"
    obj["charges_enabled"] = ready and obj["capabilities"].get("card_payments") == "active"
    obj["payouts_enabled"] = ready and bool(banks)
    obj["details_submitted"] = obj.get("_onboarded", False) or (
        obj["controller"]["requirement_collection"] == "application" and not due)


# ------------------------------------------------------------------ create

def _controller(params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    kind, wanted = params.get("type"), params.get("controller")
    if kind and wanted:
        raise InvalidRequest("You cannot specify both `type` and `controller`. Use the "
                             "controller properties to configure the account.", param="type")
    if kind:
        base = LEGACY_TYPES[kind]
    else:
        wanted = wanted or {}
        fees = (wanted.get("fees") or {}).get("payer", "account")
        losses = (wanted.get("losses") or {}).get("payments", "stripe")
        collection = wanted.get("requirement_collection", "stripe")
        dashboard = (wanted.get("stripe_dashboard") or {}).get("type", "full")
        if collection == "application" and dashboard != "none":
            raise InvalidRequest(
                "`controller[requirement_collection]=application` requires "
                "`controller[stripe_dashboard][type]=none`.",
                param="controller[requirement_collection]")
        if fees == "account" and dashboard != "full":
            raise InvalidRequest("An account that pays its own fees needs full Stripe "
                                 "Dashboard access.", param="controller[fees][payer]")
        base = {"fees": {"payer": fees}, "losses": {"payments": losses},
                "requirement_collection": collection, "stripe_dashboard": {"type": dashboard}}
        kind = next((name for name, spec in LEGACY_TYPES.items() if spec == base), "none")
    controller = {**base, "is_controller": True, "type": "application"}
    return kind, controller


def new_person(ctx: Ctx, account_id: str, data: dict[str, Any] | None) -> dict[str, Any]:
    person = ctx.new("person", "person", account=account_id)
    apply_person(person, data or {})
    return person


def apply_person(person: dict[str, Any], data: dict[str, Any]) -> None:
    for name in ("first_name", "last_name", "email", "phone", "address", "dob",
                 "maiden_name", "nationality", "gender", "political_exposure"):
        if name in data:
            person[name] = data[name]
    if data.get("ssn_last_4"):
        person["ssn_last_4_provided"] = True
    if data.get("id_number"):
        person["id_number_provided"] = True
        person["ssn_last_4_provided"] = True
    if "relationship" in data:
        person["relationship"] = {**(person.get("relationship") or {}),
                                  **(data["relationship"] or {})}
    if "metadata" in data:
        person["metadata"] = merge_metadata(person.get("metadata"), data["metadata"])
    person["verification"] = {"status": "verified", "details": None, "details_code": None,
                              "document": None, "additional_document": None}


def _apply(ctx: Ctx, obj: dict[str, Any], params: dict[str, Any]) -> None:
    apply(obj, params, FIELDS + ("metadata",))
    if "company" in params:
        company = {**(obj.get("company") or {}), **(params["company"] or {})}
        if company.pop("tax_id", None):
            company["tax_id_provided"] = True
        obj["company"] = company
    if "individual" in params:
        if obj.get("business_type") not in (None, "individual"):
            raise InvalidRequest("You cannot provide `individual` for an account whose "
                                 "business_type is not `individual`.", param="individual")
        individual = obj.get("individual") or new_person(ctx, obj["id"], None)
        apply_person(individual, params["individual"] or {})
        obj["individual"] = individual
    if "tos_acceptance" in params:
        tos = {**(obj.get("tos_acceptance") or {}), **(params["tos_acceptance"] or {})}
        if obj["controller"]["requirement_collection"] == "stripe" and (
                tos.get("date") or tos.get("ip")):
            raise InvalidRequest(
                "You cannot accept the Terms of Service on behalf of accounts where "
                "`controller[requirement_collection]=stripe` (which includes Standard and "
                "Express accounts).", param="tos_acceptance")
        obj["tos_acceptance"] = tos
    for name, spec in (params.get("capabilities") or {}).items():
        requested = list(obj.get("_requested") or [])
        if (spec or {}).get("requested") and name not in requested:
            requested.append(name)
        elif not (spec or {}).get("requested") and name in requested:
            requested.remove(name)
            obj["capabilities"].pop(name, None)
        obj["_requested"] = requested
    if params.get("external_account"):
        _add_bank_account(ctx, obj, params["external_account"], "external_account")


@api("POST", "/v1/accounts")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    platform = platform_of(ctx)
    if params.get("account_token"):
        raise Unsupported("account tokens (`account_token`)", param="account_token")
    kind, controller = _controller(params)
    country = str(params.get("country") or "US").upper()
    connected = ctx.store.create_account(parent=platform.id, api_version=platform.api_version)
    connected.clock.time = ctx.now()
    obj = ctx.new("account", "acct", id=connected.id, type=kind, controller=controller,
                  country=country, capabilities={}, created=ctx.now(),
                  default_currency=CURRENCY_BY_COUNTRY.get(country, "usd"),
                  business_profile={"mcc": None, "url": None, "name": None,
                                    "product_description": None, "support_email": None,
                                    "support_phone": None, "support_url": None},
                  tos_acceptance={"date": None, "ip": None, "user_agent": None},
                  settings={"payouts": {"schedule": {"interval": "daily", "delay_days": 2},
                                        "statement_descriptor": None,
                                        "debit_negative_balances": True},
                            "dashboard": {"display_name": None, "timezone": "Etc/UTC"},
                            "card_payments": {"statement_descriptor_prefix": None,
                                              "decline_on": {"avs_failure": False,
                                                             "cvc_failure": False}},
                            "payments": {"statement_descriptor": None}})
    obj["_requested"] = []
    try:
        _apply(ctx, obj, params)
        if not obj["_requested"] and kind == "custom":
            # Required since 2019-11-05 for accounts the platform onboards itself.
            raise InvalidRequest("You must request at least one capability for accounts of "
                                 "type `custom` (e.g. `capabilities[transfers][requested]=true`).",
                                 param="capabilities")
    except Exception:
        for bank in _bank_accounts(ctx, connected.id):
            ctx.store.remove(platform, bank["id"])
        ctx.store.delete_account(connected.id)
        raise
    if not obj["_requested"]:  # Stripe requests the platform's defaults for the rest
        obj["_requested"] = list(MONEY_CAPABILITIES)
    refresh(ctx, obj)
    _save(ctx, obj)
    return obj


# ------------------------------------------------------------------ read / update

@includable("account", "external_accounts")
def _external_accounts(ctx: Ctx, obj: dict[str, Any]) -> dict[str, Any]:
    banks = [b for b in _store_account_objects(ctx, "bank_account")
             if b.get("account") == obj["id"]]
    return list_of(banks, f"/v1/accounts/{obj['id']}/external_accounts")


def _store_account_objects(ctx: Ctx, object_type: str) -> list[dict[str, Any]]:
    owner = ctx.store.accounts.get(ctx.account.parent or "") or ctx.account
    return list(owner.iter_type(object_type, newest_first=False))


@api("GET", "/v1/accounts/{account}")
def retrieve(ctx: Ctx, params: dict[str, Any], account: str) -> dict[str, Any]:
    return account_object(ctx, account)


@api("GET", "/v1/account")
def retrieve_own(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    """The caller's own account: a connected account (via Stripe-Account) or the platform."""
    if ctx.account.parent:
        parent = ctx.store.accounts[ctx.account.parent]
        return parent.objects[ctx.account.id]
    own = ctx.account.objects.get(ctx.account.id)
    if own is None:
        own = ctx.new("account", "acct", id=ctx.account.id, type="standard",
                      country="US", default_currency="usd", charges_enabled=True,
                      payouts_enabled=True, details_submitted=True, created=ctx.now(),
                      capabilities={"card_payments": "active", "transfers": "active"},
                      controller={"type": "account"},
                      business_profile={"name": "Local Stripe platform", "mcc": "5734",
                                        "url": None, "product_description": None,
                                        "support_email": None, "support_phone": None,
                                        "support_url": None},
                      requirements=reqs.requirements({}, []),
                      future_requirements=reqs.requirements({}, []))
        ctx.put(own)
    return own


@api("POST", "/v1/accounts/{account}")
def update(ctx: Ctx, params: dict[str, Any], account: str) -> dict[str, Any]:
    obj = account_object(ctx, account)
    before = {k: v for k, v in obj.items()}
    snapshot = clone(obj)
    try:
        if "business_type" in params and obj.get("details_submitted") and \
                obj["controller"]["requirement_collection"] == "stripe":
            raise InvalidRequest("This account's business_type cannot be changed after "
                                 "onboarding.", param="business_type")
        _apply(ctx, obj, params)
    except Exception:
        obj.clear()
        obj.update(snapshot)
        raise
    refresh(ctx, obj)
    _save(ctx, obj)
    emit_connect(ctx, obj, "account.updated", changed(before, obj))
    return obj


def emit_connect(ctx: Ctx, obj: dict[str, Any], event_type: str,
                 previous: dict[str, Any] | None = None) -> None:
    """Connect events about an account happen on the connected account (`event.account`)."""
    connected = ctx.store.accounts.get(obj["id"])
    if connected is None:
        return
    ctx.acting_as(connected).emit(event_type, obj, previous)


@api("GET", "/v1/accounts")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    platform = platform_of(ctx)
    items = (o for o in platform.iter_type("account") if o["id"] != platform.id)
    return paginate(ctx, items, params, "/v1/accounts")


@api("DELETE", "/v1/accounts/{account}")
def delete(ctx: Ctx, params: dict[str, Any], account: str) -> dict[str, Any]:
    obj = account_object(ctx, account)
    platform = platform_of(ctx)
    for kind in ("bank_account", "person"):
        for item in [o for o in platform.iter_type(kind) if o.get("account") == account]:
            ctx.store.remove(platform, item["id"])
    ctx.store.remove(platform, account)
    if account in ctx.store.accounts:
        ctx.store.delete_account(account)
    return deleted(obj)


@api("POST", "/v1/accounts/{account}/reject")
def reject(ctx: Ctx, params: dict[str, Any], account: str) -> dict[str, Any]:
    obj = account_object(ctx, account)
    if obj["controller"]["losses"]["payments"] != "application":
        raise InvalidRequest("You can only reject accounts where your platform is liable "
                             "for negative balances (Express and Custom accounts).",
                             param="account")
    before = dict(obj)
    reason = str(params["reason"])
    obj["_rejected"] = "fraud" if reason.startswith("fraud") else (
        reason if reason == "terms_of_service" else "other")
    for name in list(obj["capabilities"]):
        obj["capabilities"][name] = "inactive"
    refresh(ctx, obj)
    _save(ctx, obj)
    emit_connect(ctx, obj, "account.updated", changed(before, obj))
    return obj


# ------------------------------------------------------------------ capabilities

def _capability(obj: dict[str, Any], name: str) -> dict[str, Any]:
    status = obj["capabilities"].get(name)
    requested = name in (obj.get("_requested") or [])
    due = obj["requirements"]["currently_due"] if status != "active" else []
    return {"id": name, "object": "capability", "account": obj["id"],
            "requested": requested, "requested_at": obj["created"] if requested else None,
            "status": status or "unrequested",
            "requirements": {**reqs.requirements(obj, due)},
            "future_requirements": reqs.requirements(obj, [])}


@api("GET", "/v1/accounts/{account}/capabilities")
def list_capabilities(ctx: Ctx, params: dict[str, Any], account: str) -> dict[str, Any]:
    obj = account_object(ctx, account)
    caps = [_capability(obj, name) for name in sorted(obj["capabilities"])]
    return list_of(caps, f"/v1/accounts/{account}/capabilities")


@api("GET", "/v1/accounts/{account}/capabilities/{capability}")
def retrieve_capability(ctx: Ctx, params: dict[str, Any], account: str,
                        capability: str) -> dict[str, Any]:
    obj = account_object(ctx, account)
    if capability not in obj["capabilities"]:
        raise missing("capability", capability, "capability")
    return _capability(obj, capability)


@api("POST", "/v1/accounts/{account}/capabilities/{capability}")
def update_capability(ctx: Ctx, params: dict[str, Any], account: str,
                      capability: str) -> dict[str, Any]:
    obj = account_object(ctx, account)
    if "requested" in params:
        _apply(ctx, obj, {"capabilities": {capability: {"requested": params["requested"]}}})
        refresh(ctx, obj)
        _save(ctx, obj)
    if capability not in obj["capabilities"]:
        return {**_capability(obj, capability), "status": "unrequested"}
    return _capability(obj, capability)


# ------------------------------------------------------------------ external accounts

def _add_bank_account(ctx: Ctx, obj: dict[str, Any], source: Any, param: str) -> dict[str, Any]:
    if isinstance(source, str):
        if source not in TEST_BANK_TOKENS:
            raise InvalidRequest(f"No such token: '{source}'", code="resource_missing",
                                 param=param, status=404)
        number, routing = TEST_BANK_TOKENS[source]
        data: dict[str, Any] = {"country": "US", "currency": "usd", "account_number": number,
                                "routing_number": routing}
    else:
        data = dict(source)
        if data.get("object") not in (None, "bank_account"):
            raise Unsupported("external accounts other than bank accounts",
                              param=f"{param}[object]")
        for required in ("country", "currency", "account_number"):
            if not data.get(required):
                raise InvalidRequest(f"Missing required param: {param}[{required}].",
                                     code="parameter_missing", param=f"{param}[{required}]")
    number = str(data["account_number"])
    existing = _bank_accounts(ctx, obj["id"])
    bank = ctx.new("bank_account", "ba", account=obj["id"],
                   country=str(data["country"]).upper(),
                   currency=str(data["currency"]).lower(), last4=number[-4:],
                   routing_number=data.get("routing_number"),
                   account_holder_name=data.get("account_holder_name"),
                   account_holder_type=data.get("account_holder_type"),
                   bank_name="STRIPE TEST BANK", status="new",
                   fingerprint=ctx.account.ids.token(16),
                   default_for_currency=not any(b["currency"] == str(data["currency"]).lower()
                                                for b in existing))
    bank["_account_number"] = number
    ctx.store.put(platform_of(ctx), bank)
    return bank


@api("POST", "/v1/accounts/{account}/external_accounts")
def create_external_account(ctx: Ctx, params: dict[str, Any], account: str) -> dict[str, Any]:
    obj = account_object(ctx, account)
    bank = _add_bank_account(ctx, obj, params["external_account"], "external_account")
    refresh(ctx, obj)
    _save(ctx, obj)
    return bank


@api("GET", "/v1/accounts/{account}/external_accounts")
def list_external_accounts(ctx: Ctx, params: dict[str, Any], account: str) -> dict[str, Any]:
    account_object(ctx, account)
    items = (b for b in platform_of(ctx).iter_type("bank_account") if b["account"] == account)
    return paginate(ctx, items, params, f"/v1/accounts/{account}/external_accounts")


def _bank(ctx: Ctx, account: str, bank_id: str) -> dict[str, Any]:
    account_object(ctx, account)
    bank = platform_of(ctx).objects.get(bank_id)
    if bank is None or bank.get("account") != account:
        raise missing("external account", bank_id)
    return bank


@api("GET", "/v1/accounts/{account}/external_accounts/{id}")
def retrieve_external_account(ctx: Ctx, params: dict[str, Any], account: str,
                              id: str) -> dict[str, Any]:  # noqa: A002 - Stripe's name
    return _bank(ctx, account, id)


@api("POST", "/v1/accounts/{account}/external_accounts/{id}")
def update_external_account(ctx: Ctx, params: dict[str, Any], account: str,
                            id: str) -> dict[str, Any]:  # noqa: A002
    bank = _bank(ctx, account, id)
    apply(bank, params, ("account_holder_name", "account_holder_type", "metadata"))
    if params.get("default_for_currency"):
        for other in _bank_accounts(ctx, account):
            if other["currency"] == bank["currency"]:
                other["default_for_currency"] = other["id"] == bank["id"]
    ctx.store.put(platform_of(ctx), bank)
    return bank


@api("DELETE", "/v1/accounts/{account}/external_accounts/{id}")
def delete_external_account(ctx: Ctx, params: dict[str, Any], account: str,
                            id: str) -> dict[str, Any]:  # noqa: A002
    bank = _bank(ctx, account, id)
    if bank.get("default_for_currency") and len(
            [b for b in _bank_accounts(ctx, account) if b["currency"] == bank["currency"]]) > 1:
        raise InvalidRequest("You cannot delete the default external account for your "
                             "default currency. Please make another external account the "
                             "default using the `default_for_currency` param, and then delete "
                             "this one.", param="id")
    ctx.store.remove(platform_of(ctx), bank["id"])
    obj = account_object(ctx, account)
    refresh(ctx, obj)
    _save(ctx, obj)
    return deleted(bank)


# ------------------------------------------------------------------ login links

@api("POST", "/v1/accounts/{account}/login_links")
def create_login_link(ctx: Ctx, params: dict[str, Any], account: str) -> dict[str, Any]:
    obj = account_object(ctx, account)
    if obj["controller"]["stripe_dashboard"]["type"] != "express":
        raise InvalidRequest("Cannot create a login link for an account that does not have "
                             "access to the Express Dashboard.", param="account")
    # Single use, as Stripe's login links are: the Express Dashboard page spends it.
    token = ctx.new_id("lltok")
    ctx.store.put(ctx.account, {"id": token, "object": "_login_link", "account": account,
                                "created": ctx.now(), "_used": False})
    return {"object": "login_link", "created": ctx.now(),
            "url": ctx.url("connect.stripe.com", f"/express/acct_login/{account}/{token}")}


# ------------------------------------------------------------------ onboarding

TEST_ONBOARDING: dict[str, Any] = {
    "business_type": "individual",
    "business_profile": {"mcc": "5734", "url": "https://accessible.stripe.com"},
    "individual": {"first_name": "Jenny", "last_name": "Rosen", "email": "jenny@example.com",
                   "phone": "+15555550123", "dob": {"day": 1, "month": 1, "year": 1901},
                   "address": {"line1": "address_full_match", "city": "South San Francisco",
                               "state": "CA", "postal_code": "94080", "country": "US"},
                   "id_number": "000000000"},
}


def complete_onboarding(ctx: Ctx, account_id: str, answers: dict[str, Any],
                        ip: str = "127.0.0.1") -> dict[str, Any]:
    """What Stripe's hosted or embedded onboarding does when the user finishes: whatever
    the account still lacks is filled (with the answers given, else Stripe's test data),
    a test bank account is added if none, and the Terms of Service are accepted."""
    obj = account_object(ctx, account_id)
    before = dict(obj)
    fill: dict[str, Any] = {}
    if not obj.get("business_type"):
        fill["business_type"] = answers.get("business_type") or "individual"
    profile = {k: v for k, v in TEST_ONBOARDING["business_profile"].items()
               if not (obj.get("business_profile") or {}).get(k)}
    profile.update({k: v for k, v in (answers.get("business_profile") or {}).items() if v})
    if profile:
        fill["business_profile"] = {**(obj.get("business_profile") or {}), **profile}
    if (fill.get("business_type") or obj.get("business_type")) == "individual":
        fill["individual"] = {**TEST_ONBOARDING["individual"],
                              **{k: v for k, v in (answers.get("individual") or {}).items() if v}}
    elif not obj.get("company", {}).get("name"):
        fill["company"] = {"name": answers.get("company_name") or "Test Company",
                           "tax_id": "000000000", "phone": "+15555550100",
                           "address": TEST_ONBOARDING["individual"]["address"],
                           "owners_provided": True, "directors_provided": True,
                           "executives_provided": True}
    _apply(ctx, obj, fill)
    if obj.get("business_type") not in (None, "individual") and not any(
            (p.get("relationship") or {}).get("representative")
            for p in _persons(ctx, account_id)):
        rep = new_person(ctx, account_id, {**TEST_ONBOARDING["individual"], "relationship": {
            "representative": True, "executive": True, "title": "Owner"}})
        ctx.store.put(platform_of(ctx), rep)
    if not _bank_accounts(ctx, account_id):
        _add_bank_account(ctx, obj, "btok_us_verified", "external_account")
    obj["tos_acceptance"] = {**(obj.get("tos_acceptance") or {}),
                             "date": obj["tos_acceptance"].get("date") or ctx.now(),
                             "ip": obj["tos_acceptance"].get("ip") or ip,
                             "user_agent": "stripebench onboarding"}
    obj["_onboarded"] = True
    refresh(ctx, obj)
    _save(ctx, obj)
    emit_connect(ctx, obj, "account.updated", changed(before, obj))
    return obj
