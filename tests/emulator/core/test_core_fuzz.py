"""Malformed input never yields a 5xx, a non-JSON API answer or a hang."""

from __future__ import annotations

import json
from urllib.parse import quote

import httpx
import pytest
import stripe
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import RunningEmulator, start_emulator

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


# ---------------------------------------------------------------------------------------
# A table of malformed inputs, each of which once answered a 5xx, was accepted and then
# broke the account, or was accepted though Stripe refuses it. Every row must be a 4xx
# with a Stripe-shaped error, and the account must keep answering afterwards.

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"
DEEP = 10_000
HUGE = "9" * 30
SURROGATES = ["\\ud800", "\\udfff", "\\ud83d", "a\\udc00b", "\\ud800\\ud800"]


def _corpus() -> list[tuple[str, str, str, str, bytes]]:
    """(name, method, path, content type, body); `{acct}` in a path is the account id."""
    rows: list[tuple[str, str, str, str, bytes]] = []

    def add(name: str, method: str, path: str, ctype: str, body: bytes | str) -> None:
        rows.append((name, method, path, ctype, body if isinstance(body, bytes)
                     else body.encode()))

    # nesting: form keys and JSON, API and control plane
    for depth in (21, 100, DEEP):
        add(f"form key {depth} deep", "POST", "/v1/customers", FORM,
            "metadata" + "[a]" * depth + "=1")
        add(f"form array {depth} deep", "POST", "/v1/customers", FORM,
            "preferred_locales" + "[]" * depth + "=en")
        add(f"query {depth} deep", "GET", "/v1/customers?" + "created" + "[a]" * depth + "=1",
            FORM, b"")
    for depth in (25, 1000, 100_000):
        add(f"json arrays {depth} deep", "POST", "/v1/customers", JSON,
            '{"metadata":' + "[" * depth + "]" * depth + "}")
        add(f"json objects {depth} deep", "POST", "/v1/customers", JSON,
            '{"address":' + '{"a":' * depth + "1" + "}" * depth + "}")
        add(f"control json {depth} deep", "POST", "/_emulator/accounts", JSON,
            '{"settings":' + "[" * depth + "]" * depth + "}")
        add(f"control restore {depth} deep", "POST", "/_emulator/restore", JSON,
            '{"accounts":' + "[" * depth + "]" * depth + "}")
    # integers beyond 64 bits, and amounts beyond any currency's
    for field, extra in (("balance", ""), ("next_invoice_sequence", "")):
        for value in (HUGE, "-" + HUGE, str(2**63), str(-(2**63) - 1), "1" + "0" * 400):
            add(f"form {field}={value[:12]}", "POST", "/v1/customers", FORM,
                f"{field}={value}{extra}")
            add(f"json {field}={value[:12]}", "POST", "/v1/customers", JSON,
                f'{{"{field}": {value}}}')
    for value in (HUGE, str(2**63), "1000000000000", "100000000000000000"):
        add(f"unit_amount={value[:12]}", "POST", "/v1/prices", FORM,
            f"currency=usd&product_data[name]=x&unit_amount={value}")
        add(f"amount_off={value[:12]}", "POST", "/v1/coupons", FORM,
            f"currency=usd&amount_off={value}")
        add(f"payment amount={value[:12]}", "POST", "/v1/payment_intents", FORM,
            f"currency=usd&amount={value}")
        add(f"json unit_amount={value[:12]}", "POST", "/v1/prices", JSON,
            f'{{"currency": "usd", "product_data": {{"name": "x"}}, "unit_amount": {value}}}')
    add("limit huge", "GET", f"/v1/customers?limit={HUGE}", FORM, b"")
    add("created[gt] huge", "GET", f"/v1/customers?created[gt]={HUGE}", FORM, b"")
    # numbers and decimals that are no numbers Stripe takes
    for value in ("1e999", "-1e999", "1e400", "1e-400", "NaN", "Infinity", "0x10", "1.5e3",
                  "1." + "5" * 13, "9" * 40):
        add(f"unit_amount_decimal={value[:12]}", "POST", "/v1/prices", FORM,
            f"currency=usd&product_data[name]=x&unit_amount_decimal={value}")
    for value in ("1e400", "-1e400", "inf", "nan"):
        add(f"percent_off={value}", "POST", "/v1/coupons", FORM, f"percent_off={value}")
    for value in ("1e400", "-1e400", "NaN", "Infinity"):
        add(f"json percent_off={value}", "POST", "/v1/coupons", JSON,
            f'{{"percent_off": {value}}}')
    # strings JSON can carry but UTF-8 cannot: lone surrogates, anywhere
    for raw in SURROGATES:
        add(f"json name {raw}", "POST", "/v1/customers", JSON, f'{{"name": "{raw}"}}')
        add(f"json metadata value {raw}", "POST", "/v1/customers", JSON,
            f'{{"metadata": {{"k": "{raw}"}}}}')
        add(f"json metadata key {raw}", "POST", "/v1/customers", JSON,
            f'{{"metadata": {{"{raw}": "v"}}}}')
        add(f"json address {raw}", "POST", "/v1/customers", JSON,
            f'{{"address": {{"line1": "{raw}"}}}}')
        add(f"json product name {raw}", "POST", "/v1/products", JSON, f'{{"name": "{raw}"}}')
        add(f"control settings {raw}", "POST", "/_emulator/accounts", JSON,
            f'{{"settings": {{"x": "{raw}"}}}}')
    for raw in (b'{"name": "\xff\xfe"}', b'{"name": "\xc3\x28"}', b"\xef\xbb\xbf{}",
                b'{"name": "a"', b"[1, 2]", b'"just a string"', b"null", b"{}}"):
        add(f"json bytes {raw[:10]!r}", "POST", "/v1/customers", JSON, raw)
    # strings longer than Stripe takes
    for field in ("description", "name", "email", "phone"):
        add(f"{field} of 5001", "POST", "/v1/customers", FORM, f"{field}={'x' * 5001}")
        add(f"json {field} of 5001", "POST", "/v1/customers", JSON,
            f'{{"{field}": "{"x" * 5001}"}}')
    add("metadata value of 501", "POST", "/v1/customers", FORM, f"metadata[k]={'v' * 501}")
    add("metadata key of 41", "POST", "/v1/customers", FORM, f"metadata[{'k' * 41}]=v")
    add("metadata of 51 keys", "POST", "/v1/customers", FORM,
        "&".join(f"metadata[k{i}]=v" for i in range(51)))
    # sizes and counts
    add("description of 20 MB", "POST", "/v1/customers", FORM, "description=" + "x" * 20_000_000)
    add("body of 2 MB", "POST", "/v1/customers", FORM, "a=" + "b" * 2_000_000)
    add("5001 params", "POST", "/v1/customers", FORM, "&".join(f"x{i}=1" for i in range(5001)))
    add("5001 metadata keys", "POST", "/v1/customers", FORM,
        "&".join(f"metadata[k{i}]=v" for i in range(5001)))
    add("5001 query params", "GET", "/v1/customers?" + "&".join(["limit=1"] * 5001), FORM,
        b"")
    add("5001 expands", "POST", "/v1/customers", FORM,
        "&".join(f"expand[]=x{i}" for i in range(5001)))
    # the control plane
    for value in ("1e400", "-1e400", "-1", "-1000000000", str(-(10**9)), HUGE, '"abc"', "true",
                  "null", "[]", "{}", "1.5", '"1e3"'):
        add(f"clock advance {value[:12]}", "POST", "/_emulator/accounts/{acct}/clock", JSON,
            f'{{"advance": {value}}}')
        add(f"clock to {value[:12]}", "POST", "/_emulator/accounts/{acct}/clock", JSON,
            f'{{"to": {value}}}')
    add("clock advance 10^12 s", "POST", "/_emulator/accounts/{acct}/clock", JSON,
        '{"advance": 1000000000000}')
    add("clock form advance 1e400", "POST", "/_emulator/accounts/{acct}/clock", FORM,
        "advance=1e400")
    for account_id in ("../../x", "acct_../../x", "acct_" + "a" * 200, "acct_\u00e9", "acct_ x",
                       "cus_123", "acct_a/b", "acct_\x00", "\u0000"):
        add(f"account id {account_id[:12]!r}", "POST", "/_emulator/accounts", JSON,
            json.dumps({"id": account_id}))
    for bad in ('{"time": 1e400}', '{"time": -5}', f'{{"time": {HUGE}}}', '{"settings": [1]}',
                '{"settings": "x"}', '{"api_version": 5}', '{"api_version": "bogus"}', "[]"):
        add(f"account body {bad[:20]}", "POST", "/_emulator/accounts", JSON, bad)
    for bad in ('{"account": 1}', '{"account": {"id": "acct_x"}}', '{"accounts": [1]}',
                '{"accounts": "x"}', '{"accounts": [{"account": {}}]}', "{}",
                '{"account": {"id": "../../x", "seed": "s", "counter": 0, "time": 0, '
                '"secret_key": "sk", "publishable_key": "pk", "api_version": ""}, '
                '"objects": [], "order": {}}'):
        add(f"restore {bad[:24]}", "POST", "/_emulator/restore", JSON, bad)
    return rows


CORPUS = _corpus()


def test_the_corpus_is_large() -> None:
    assert len(CORPUS) >= 150


@pytest.fixture(scope="module")
def corpus_account(emulator: RunningEmulator) -> dict[str, str]:
    return emulator.new_account()


@pytest.mark.parametrize(("name", "method", "path", "ctype", "body"), CORPUS,
                         ids=[row[0] for row in CORPUS])
def test_malformed_input_is_a_stripe_shaped_4xx(
        emulator: RunningEmulator, corpus_account: dict[str, str], name: str, method: str,
        path: str, ctype: str, body: bytes) -> None:
    """Stripe answers malformed input with an invalid_request_error and changes nothing
    (https://docs.stripe.com/api/errors); free-text params take at most 5000 characters
    (https://docs.stripe.com/api/customers/create, `description`); metadata takes 50 keys
    of 40 characters with values of 500 (https://docs.stripe.com/api/metadata)."""
    url = emulator.base + path.replace("{acct}", corpus_account["id"])
    headers = {"Authorization": f"Bearer {corpus_account['secret_key']}", "Content-Type": ctype}
    r = httpx.request(method, url, content=body or None, headers=headers, timeout=60)
    assert 400 <= r.status_code < 500, (name, r.status_code, r.text[:300])
    error = r.json()["error"]
    assert error["type"] == "invalid_request_error" and error["message"], (name, error)
    # and the account is still whole: reads, lists and its snapshot all answer
    auth = {"Authorization": f"Bearer {corpus_account['secret_key']}"}
    assert httpx.get(emulator.base + "/v1/customers", headers=auth).status_code == 200
    snapshot = httpx.get(f"{emulator.base}/_emulator/accounts/{corpus_account['id']}/snapshot")
    assert snapshot.status_code == 200, snapshot.text[:300]


def test_lone_surrogate_cannot_poison_an_account(emulator: RunningEmulator) -> None:
    """Through the official SDK: an unencodable name is refused, the account keeps
    answering, and a valid update of the same customer still works."""
    account = emulator.new_account()
    client = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base})
    customer = client.v1.customers.create(params={"email": "ok@example.com"})
    r = httpx.post(f"{emulator.base}/v1/customers/{customer.id}",
                   content=b'{"name": "\\ud800", "balance": 100000000000000000000000}',
                   headers={"Authorization": f"Bearer {account['secret_key']}",
                            "Content-Type": JSON})
    assert r.status_code == 400, r.text
    assert client.v1.customers.retrieve(customer.id).name is None
    assert client.v1.customers.update(customer.id, params={"name": "Ada"}).name == "Ada"
    assert [c.id for c in client.v1.customers.list().data] == [customer.id]


def test_overflowing_totals_are_refused_and_undone(emulator: RunningEmulator) -> None:
    """A sum beyond 64 bits (a big unit amount times a big quantity) can be neither shown
    nor stored: the request is refused and nothing it made is kept."""
    account = emulator.new_account()
    client = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base})
    price = client.v1.prices.create(params={"currency": "usd", "unit_amount": 999_999_999_999,
                                            "product_data": {"name": "Big"}})
    before = httpx.get(f"{emulator.base}/_emulator/accounts/{account['id']}/snapshot").json()
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.checkout.sessions.create(params={
            "mode": "payment", "success_url": "https://example.com/ok",
            "line_items": [{"price": price.id, "quantity": 2**62}]})
    after = httpx.get(f"{emulator.base}/_emulator/accounts/{account['id']}/snapshot").json()
    assert after["objects"] == before["objects"]
    assert client.v1.checkout.sessions.list().data == []


def test_non_ascii_control_token_is_refused_not_a_crash() -> None:
    emulator = start_emulator(control_token="s3cret")
    try:
        for token in ("\u00e9t\u00e9", "s3cret\u00ff", ""):
            r = httpx.get(f"{emulator.base}/_emulator/accounts",
                          headers={"X-Emulator-Token": token.encode("latin-1")})
            assert r.status_code == 403, (token, r.text)
            assert r.json()["error"]["type"] == "invalid_request_error"
        r = httpx.get(f"{emulator.base}/_emulator/accounts", headers={"X-Emulator-Token": "s3cret"})
        assert r.status_code == 200
    finally:
        emulator.stop()


def test_hosted_pages_refuse_deep_json_with_a_4xx(emulator: RunningEmulator) -> None:
    """The hosted Checkout page's own JSON endpoint bounds nesting like the API does."""
    account = emulator.new_account()
    client = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base})
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": "https://example.com/ok",
        "line_items": [{"price_data": {"currency": "usd", "unit_amount": 500,
                                       "product_data": {"name": "Tee"}}, "quantity": 1}]})
    url = f"{emulator.base}/checkout.stripe.com/c/pay/{session.id}/state"
    for depth in (25, 100_000):
        body = '{"action":' + "[" * depth + "]" * depth + "}"
        r = httpx.post(url, content=body, headers={"Content-Type": JSON}, timeout=30)
        assert 400 <= r.status_code < 500, (depth, r.status_code, r.text[:200])
    assert client.v1.checkout.sessions.retrieve(session.id).status == "open"
