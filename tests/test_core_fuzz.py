"""Malformed input never yields a 5xx, a non-JSON API answer or a hang."""

from __future__ import annotations

import json
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import RunningEmulator

PATHS = ["/v1/customers", "/v1/customers/{id}", "/v1/customers/search", "/v1/products",
         "/v1/products/{id}", "/v1/prices", "/v1/prices/{id}", "/v1/coupons", "/v1/coupons/{id}",
         "/v1/promotion_codes", "/v1/shipping_rates", "/v1/tax_rates", "/v1/events",
         "/v1/webhook_endpoints", "/v1/customers/{id}/balance_transactions",
         "/v1/customers/{id}/tax_ids", "/v1/prices/search", "/v1/nope/{id}", "/_emulator/{id}"]
FIELDS = ["email", "name", "metadata", "address", "currency", "unit_amount", "product",
          "recurring", "interval", "limit", "starting_after", "ending_before", "created",
          "expand", "query", "percent_off", "amount_off", "duration", "tiers", "up_to",
          "promotion", "coupon", "code", "active", "type", "url", "enabled_events",
          "fixed_amount", "percentage", "inclusive", "lookup_keys", "default_price_data",
          "display_name", "page", "gte", "0", "", "[", "]", "\u00e9", "%"]

weird_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
                     max_size=12)
key_part = st.one_of(st.sampled_from(FIELDS), weird_text)
form_key = st.builds(lambda head, parts: head + "".join(f"[{p}]" for p in parts),
                     key_part, st.lists(st.one_of(key_part, st.just("")), max_size=4))
form_value = st.one_of(st.sampled_from(["", "true", "false", "0", "-1", "101", "1e9", "null",
                                        "usd", "inf", "cus_x", "email:'a'", "name~'ab'",
                                        "data.customer", "a.b.c.d.e"]), weird_text)
form_body = st.lists(st.tuples(form_key, form_value), max_size=8)
header_text = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), max_size=30)
path_id = st.one_of(st.sampled_from(["cus_missing", "", "%00", "..", "a/b", "search"]),
                    weird_text.map(lambda s: quote(s, safe="")))


@pytest.fixture(scope="module")
def fuzz_account(emulator: RunningEmulator) -> dict[str, str]:
    return emulator.new_account()


def encode(pairs: list[tuple[str, str]]) -> str:
    return "&".join(f"{quote(k, safe='[]')}={quote(v, safe='')}" for k, v in pairs)


@settings(max_examples=250, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(method=st.sampled_from(["GET", "POST", "DELETE", "PUT"]), template=st.sampled_from(PATHS),
       object_id=path_id, body=form_body, query=form_body,
       version=st.one_of(st.none(), st.sampled_from(["2025-03-31.basil", "bogus", ""]),
                         header_text),
       idempotency=st.one_of(st.none(), header_text), as_json=st.booleans(),
       auth=st.sampled_from(["secret", "publishable", "bad", "none", "basic-garbage"]),
       raw_bytes=st.one_of(st.none(), st.binary(max_size=40)))
def test_fuzz_never_5xx(emulator: RunningEmulator, fuzz_account: dict[str, str], method: str,
                        template: str, object_id: str, body: list[tuple[str, str]],
                        query: list[tuple[str, str]], version: str | None,
                        idempotency: str | None, as_json: bool, auth: str,
                        raw_bytes: bytes | None) -> None:
    path = template.replace("{id}", object_id)
    headers: dict[str, str] = {}
    if auth == "secret":
        headers["Authorization"] = f"Bearer {fuzz_account['secret_key']}"
    elif auth == "publishable":
        headers["Authorization"] = f"Bearer {fuzz_account['publishable_key']}"
    elif auth == "bad":
        headers["Authorization"] = "Bearer sk_test_nope"
    elif auth == "basic-garbage":
        headers["Authorization"] = "Basic !!!not-base64"
    if version is not None:
        headers["Stripe-Version"] = version
    if idempotency is not None:
        headers["Idempotency-Key"] = idempotency
    content: bytes
    if raw_bytes is not None:
        content = raw_bytes
        headers["Content-Type"] = "application/json" if as_json else \
            "application/x-www-form-urlencoded"
    elif as_json:
        content = json.dumps(dict(body)).encode()
        headers["Content-Type"] = "application/json"
    else:
        content = encode(body).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    url = emulator.base + path
    response = httpx.request(method, url, params=encode(query) if query else None,
                             content=content if method != "GET" else None, headers=headers,
                             timeout=10)
    assert response.status_code < 500, (method, path, response.text[:500])
    if path.startswith("/v1/"):
        data = response.json()
        if response.status_code >= 400:
            assert isinstance(data["error"]["message"], str) and data["error"]["type"]


def test_fuzz_seed_cases(emulator: RunningEmulator, fuzz_account: dict[str, str]) -> None:
    """Hand-picked nasties, run every time."""
    auth = {"Authorization": f"Bearer {fuzz_account['secret_key']}"}
    cases = [
        ("POST", "/v1/customers", "metadata[a][b]=1"),
        ("POST", "/v1/customers", "address=x&address[line1]=y"),
        ("POST", "/v1/customers", "preferred_locales[0][x]=1"),
        ("POST", "/v1/prices", "currency=usd&product=&unit_amount=1"),
        ("POST", "/v1/prices", "currency=usd&product_data[name]=x&tiers[5][up_to]=inf"),
        ("POST", "/v1/coupons", "percent_off=nan"),
        ("POST", "/v1/coupons", "percent_off=1e400"),
        ("POST", "/v1/tax_rates", "display_name=x&inclusive=true&percentage=inf"),
        ("GET", "/v1/customers?limit=99999999999999999999999", ""),
        ("GET", "/v1/customers?created[gt]=abc", ""),
        ("GET", "/v1/customers/search?query=" + "name:'a' AND " * 50 + "name:'b'", ""),
        ("POST", "/v1/customers", "expand[0]=" + ".".join(["default_source"] * 30)),
        ("POST", "/v1/customers", "a" * 5000 + "=1"),
        ("POST", "/v1/customers", "[]=1&[a]=2"),
        ("POST", "/v1/customers", "%ff%fe=%ff"),
        ("GET", "/v1/customers/search?query=name:'a'&page=page_-5", ""),
    ]
    for method, path, body in cases:
        r = httpx.request(method, emulator.base + path, content=body.encode(),
                          headers={**auth, "Content-Type": "application/x-www-form-urlencoded"},
                          timeout=10)
        assert r.status_code < 500, (method, path, body, r.text[:300])
        assert "error" in r.json() or r.status_code == 200


search_field = st.sampled_from(["email", "name", "phone", "created", "active", "currency",
                                "unit_amount", "metadata['k']", 'metadata["k"]', "nosuch",
                                "-name", "-created", ""])
search_op = st.sampled_from([":", "~", ">", ">=", "<", "<=", "=", "!", ""])
search_value = st.one_of(
    st.sampled_from(["null", "NULL", "5", "-1.5", "1e3", "'5'", "'abc'", "''", '"x"', "'a\\'b'",
                     "'unterminated", "true"]),
    weird_text.map(lambda s: "'" + s.replace("'", "") + "'"), weird_text)
search_join = st.sampled_from([" AND ", " OR ", " and ", " or ", " ", " AND", "AND ", " XOR ",
                               ""])
search_query = st.builds(
    lambda first, rest: first + "".join(j + c for j, c in rest),
    st.builds(lambda f, o, v: f + o + v, search_field, search_op, search_value),
    st.lists(st.tuples(search_join, st.builds(lambda f, o, v: f + o + v, search_field,
                                              search_op, search_value)), max_size=11))


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(query=search_query,
       path=st.sampled_from(["/v1/customers/search", "/v1/prices/search",
                             "/v1/products/search"]))
def test_fuzz_search_queries(emulator: RunningEmulator, fuzz_account: dict[str, str],
                             query: str, path: str) -> None:
    """Stripe's search query language, malformed in every way: a result or a 400 on `query`."""
    r = httpx.get(emulator.base + path, params={"query": query},
                  headers={"Authorization": f"Bearer {fuzz_account['secret_key']}"}, timeout=10)
    assert r.status_code in (200, 400), (query, r.text[:300])
    if r.status_code == 400:
        assert r.json()["error"]["param"] == "query", (query, r.text[:300])
    else:
        assert r.json()["object"] == "search_result"
