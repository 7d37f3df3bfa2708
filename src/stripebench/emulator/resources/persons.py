"""Persons of a connected company (representative, owners, directors, executives).

Adding the representative's details is what clears a company's `representative.*`
requirements; the account is refreshed after every change.
"""

from __future__ import annotations

from typing import Any

from ..context import Ctx
from ..errors import missing
from ..listing import paginate
from ..router import api
from ._common import deleted
from .accounts import account_object, apply_person, new_person, platform_of, refresh


def _person(ctx: Ctx, account: str, person: str) -> dict[str, Any]:
    account_object(ctx, account)
    found = platform_of(ctx).objects.get(person)
    if found is None or found.get("object") != "person" or found.get("account") != account:
        raise missing("person", person, "person")
    return found


def _refresh_account(ctx: Ctx, account: str) -> None:
    obj = account_object(ctx, account)
    refresh(ctx, obj)
    ctx.store.put(platform_of(ctx), obj)


@api("POST", "/v1/accounts/{account}/persons")
def create(ctx: Ctx, params: dict[str, Any], account: str) -> dict[str, Any]:
    account_object(ctx, account)
    person = new_person(ctx, account, params)
    ctx.store.put(platform_of(ctx), person)
    _refresh_account(ctx, account)
    return person


@api("GET", "/v1/accounts/{account}/persons/{person}")
def retrieve(ctx: Ctx, params: dict[str, Any], account: str, person: str) -> dict[str, Any]:
    return _person(ctx, account, person)


@api("POST", "/v1/accounts/{account}/persons/{person}")
def update(ctx: Ctx, params: dict[str, Any], account: str, person: str) -> dict[str, Any]:
    found = _person(ctx, account, person)
    apply_person(found, params)
    ctx.store.put(platform_of(ctx), found)
    _refresh_account(ctx, account)
    return found


@api("DELETE", "/v1/accounts/{account}/persons/{person}")
def delete(ctx: Ctx, params: dict[str, Any], account: str, person: str) -> dict[str, Any]:
    found = _person(ctx, account, person)
    ctx.store.remove(platform_of(ctx), person)
    _refresh_account(ctx, account)
    return deleted(found)


@api("GET", "/v1/accounts/{account}/persons")
def list_(ctx: Ctx, params: dict[str, Any], account: str) -> dict[str, Any]:
    account_object(ctx, account)
    roles = {k: v for k, v in (params.get("relationship") or {}).items() if v is not None}

    def where(p: dict[str, Any]) -> bool:
        if p.get("account") != account:
            return False
        relationship = p.get("relationship") or {}
        return all(bool(relationship.get(role)) == bool(want) for role, want in roles.items())
    return paginate(ctx, platform_of(ctx).iter_type("person"), params,
                    f"/v1/accounts/{account}/persons", where)
