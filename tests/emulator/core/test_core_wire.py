"""The wire protocol, driven by the official python SDK (and raw HTTP where the SDK hides it)."""

from __future__ import annotations

import base64
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import stripe

from conftest import RunningEmulator
from node_helpers import run_node_script

LATEST = "2026-10-28.endive"


def raw(emulator: RunningEmulator, account: dict[str, str], method: str, path: str,
        data: dict[str, Any] | str | None = None, headers: dict[str, str] | None = None,
        key: str | None = None) -> httpx.Response:
    all_headers = {"Authorization": f"Bearer {key or account['secret_key']}"}
    all_headers.update(headers or {})
    if isinstance(data, str):
        all_headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        return httpx.request(method, emulator.base + path, content=data, headers=all_headers)
    return httpx.request(method, emulator.base + path, data=data, headers=all_headers)


@pytest.fixture()
def global_style(emulator: RunningEmulator, account: dict[str, str]) -> Iterator[None]:
    """The module-level `stripe.api_key` / `stripe.api_base` style many integrations use."""
    saved = (stripe.api_key, stripe.api_base, stripe.max_network_retries)
    stripe.api_key, stripe.api_base = account["secret_key"], emulator.base
    yield
    stripe.api_key, stripe.api_base, stripe.max_network_retries = saved


# ------------------------------------------------------------------ form decoding

def test_nested_brackets_arrays_and_metadata(client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={
        "email": "nest@example.com",
        "address": {"line1": "1 Main St", "city": "Springfield", "country": "US"},
        "shipping": {"name": "Jane", "address": {"line1": "2 Side St", "postal_code": "12345"}},
        "preferred_locales": ["fr", "en"],
        "metadata": {"order": "42", "tier": "gold"},
        "invoice_settings": {"custom_fields": [{"name": "PO", "value": "7"},
                                               {"name": "VAT", "value": "GB1"}]},
    })
    assert customer.address is not None and customer.address.city == "Springfield"
    assert customer.address.line2 is None
    assert customer.shipping is not None and customer.shipping.address.postal_code == "12345"
    assert customer.preferred_locales == ["fr", "en"]
    assert customer.metadata.to_dict() == {"order": "42", "tier": "gold"}
    fields = customer.invoice_settings.custom_fields
    assert fields is not None and [f.name for f in fields] == ["PO", "VAT"]


def test_raw_form_append_syntax_and_empty_string_unsets(emulator: RunningEmulator,
                                                        account: dict[str, str]) -> None:
    body = ("email=a%40b.co&preferred_locales[]=de&preferred_locales[]=it"
            "&metadata[a]=1&metadata[b]=2&description=hello")
    created = raw(emulator, account, "POST", "/v1/customers", body).json()
    assert created["preferred_locales"] == ["de", "it"]
    assert created["email"] == "a@b.co"
    cid = created["id"]
    # metadata[a]="" drops one key; description="" unsets a field.
    updated = raw(emulator, account, "POST", f"/v1/customers/{cid}",
                  "metadata[a]=&description=").json()
    assert updated["metadata"] == {"b": "2"}
    assert updated["description"] is None
    # metadata="" clears every key.
    cleared = raw(emulator, account, "POST", f"/v1/customers/{cid}", "metadata=").json()
    assert cleared["metadata"] == {}


def test_malformed_param_names_are_400(emulator: RunningEmulator,
                                       account: dict[str, str]) -> None:
    r = raw(emulator, account, "POST", "/v1/customers", "a]b[=1")
    assert r.status_code == 400
    assert r.json()["error"]["type"] == "invalid_request_error"
    r = raw(emulator, account, "POST", "/v1/customers", "email=x&email[a]=y")
    assert r.status_code == 400


def test_unknown_missing_and_invalid_params(client: stripe.StripeClient) -> None:
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.create(params={"emial": "x@y.z"})  # type: ignore[typeddict-unknown-key]
    assert info.value.code == "parameter_unknown"
    assert info.value.param == "emial"
    assert info.value.http_status == 400
    assert "emial" in str(info.value.user_message)
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.create(params={"address": {"lin1": "x"}})  # type: ignore[typeddict-unknown-key]
    assert info.value.param == "address[lin1]"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.create(params={"unit_amount": 100})  # type: ignore[typeddict-item]
    assert info.value.code == "parameter_missing"
    assert info.value.param == "currency"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.create(params={"tax_exempt": "sometimes"})  # type: ignore[typeddict-item]
    assert info.value.param == "tax_exempt"
    assert "exempt" in str(info.value.user_message)
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.create(params={"balance": "lots"})  # type: ignore[typeddict-item]
    assert info.value.param == "balance"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.list(params={"limit": 101})
    assert info.value.param == "limit"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.list(params={"limit": 0})
    assert info.value.param == "limit"


# ------------------------------------------------------------------ auth

def test_bearer_and_basic_auth(emulator: RunningEmulator, account: dict[str, str]) -> None:
    created = raw(emulator, account, "POST", "/v1/customers", {"name": "B"}).json()
    basic = base64.b64encode(f"{account['secret_key']}:".encode()).decode()
    r = httpx.get(f"{emulator.base}/v1/customers/{created['id']}",
                  headers={"Authorization": f"Basic {basic}"})
    assert r.status_code == 200 and r.json()["name"] == "B"
    r = httpx.get(f"{emulator.base}/v1/customers/{created['id']}",
                  auth=(account["secret_key"], ""))
    assert r.status_code == 200


def test_unknown_and_missing_keys_are_401(emulator: RunningEmulator,
                                          account: dict[str, str]) -> None:
    bad = stripe.StripeClient("sk_test_doesnotexist0000000000",
                              base_addresses={"api": emulator.base})
    with pytest.raises(stripe.AuthenticationError) as info:
        bad.v1.customers.list()
    assert info.value.http_status == 401
    assert "Invalid API Key provided" in str(info.value.user_message)
    r = httpx.get(f"{emulator.base}/v1/customers")
    assert r.status_code == 401
    assert r.json()["error"]["message"].startswith("You did not provide an API key")
    assert r.json()["error"]["type"] == "invalid_request_error"
    r = httpx.get(f"{emulator.base}/v1/customers", headers={"Authorization": "Bearer sk_test_x"})
    assert r.status_code == 401
    # Stripe types an unknown key's error invalid_request_error too; the status makes it an
    # authentication failure for the SDKs (issue 28).
    assert r.json()["error"]["type"] == "invalid_request_error"
    assert r.json()["error"]["message"].startswith("Invalid API Key provided")
    assert r.headers["request-id"].startswith("req_")


def test_publishable_key_only_on_browser_safe_endpoints(emulator: RunningEmulator,
                                                        account: dict[str, str]) -> None:
    pk = stripe.StripeClient(account["publishable_key"], base_addresses={"api": emulator.base})
    with pytest.raises(stripe.AuthenticationError) as info:
        pk.v1.customers.create(params={"email": "x@y.z"})
    assert "publishable API key" in str(info.value.user_message)
    with pytest.raises(stripe.AuthenticationError):
        pk.v1.customers.list()
    # Browser-safe endpoints (what Stripe.js calls) accept the publishable key.
    method = pk.v1.payment_methods.create(params={"type": "card", "card": {"token": "tok_visa"}})
    assert method.id.startswith("pm_") and method.card is not None


def test_accounts_are_isolated(emulator: RunningEmulator, client: stripe.StripeClient) -> None:
    mine = client.v1.customers.create(params={"email": "iso@example.com"})
    other = emulator.new_account()
    theirs = stripe.StripeClient(other["secret_key"], base_addresses={"api": emulator.base})
    with pytest.raises(stripe.InvalidRequestError) as info:
        theirs.v1.customers.retrieve(mine.id)
    assert info.value.http_status == 404
    assert info.value.code == "resource_missing"
    assert info.value.param == "id"
    assert theirs.v1.customers.list().data == []



def test_chosen_ids_repeat_across_accounts(emulator: RunningEmulator) -> None:
    """Parallel trials of one task seed the same fixture ids; ending one trial (deleting
    its account) must leave the other's objects findable by id."""
    first, second = emulator.new_account(), emulator.new_account()
    for keys in (first, second):
        stripe.StripeClient(keys["secret_key"], base_addresses={"api": emulator.base}
                            ).v1.products.create(params={"id": "prod_fixture_mug", "name": "Mug"})
    owner = emulator.app.store.find("prod_fixture_mug")
    assert owner is not None and owner[0].id == second["id"]
    httpx.delete(f"{emulator.base}/_emulator/accounts/{first['id']}").raise_for_status()
    owner = emulator.app.store.find("prod_fixture_mug")
    assert owner is not None and owner[0].id == second["id"]
    httpx.delete(f"{emulator.base}/_emulator/accounts/{second['id']}").raise_for_status()
    assert emulator.app.store.find("prod_fixture_mug") is None


# ------------------------------------------------------------------ versions

def test_version_per_request_and_account_default(emulator: RunningEmulator) -> None:
    basil = emulator.new_account(api_version="2025-03-31.basil")
    r = raw(emulator, basil, "GET", "/v1/customers")
    assert r.headers["stripe-version"] == "2025-03-31.basil"
    r = raw(emulator, basil, "GET", "/v1/customers", headers={"Stripe-Version": LATEST})
    assert r.headers["stripe-version"] == LATEST
    plain = emulator.new_account()
    assert raw(emulator, plain, "GET", "/v1/customers").headers["stripe-version"] == LATEST
    r = httpx.post(f"{emulator.base}/_emulator/accounts", json={"api_version": "1999-01-01"})
    assert r.status_code == 400


def test_unknown_version_is_400(emulator: RunningEmulator, account: dict[str, str]) -> None:
    client = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base},
                                 stripe_version="2031-02-30.zinnia")
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.list()
    assert info.value.http_status == 400
    assert info.value.user_message == "Invalid Stripe API version: 2031-02-30.zinnia"
    assert info.value.code is None and info.value.param is None


def test_sdk_per_request_version_changes_shape(client: stripe.StripeClient) -> None:
    coupon = client.v1.coupons.create(params={"percent_off": 10, "duration": "once"})
    old = client.v1.promotion_codes.create(
        params={"coupon": coupon.id, "code": "OLDSTYLE"},  # type: ignore[typeddict-unknown-key]
        options={"stripe_version": "2025-03-31.basil"})
    assert old["coupon"]["id"] == coupon.id
    assert "promotion" not in old
    new = client.v1.promotion_codes.retrieve(old.id)
    assert new.promotion.coupon == coupon.id
    assert "coupon" not in new


# ------------------------------------------------------------------ idempotency

def test_idempotent_replay(emulator: RunningEmulator, account: dict[str, str]) -> None:
    headers = {"Idempotency-Key": "replay-1"}
    first = raw(emulator, account, "POST", "/v1/customers", {"email": "i@x.co"}, headers)
    second = raw(emulator, account, "POST", "/v1/customers", {"email": "i@x.co"}, headers)
    assert first.status_code == second.status_code == 200
    assert second.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert first.content == second.content
    listed = raw(emulator, account, "GET", "/v1/customers").json()
    assert len(listed["data"]) == 1


def test_idempotency_key_with_other_params_is_rejected(client: stripe.StripeClient) -> None:
    client.v1.customers.create(params={"email": "a@x.co"}, options={"idempotency_key": "k-2"})
    with pytest.raises(stripe.IdempotencyError) as info:
        client.v1.customers.create(params={"email": "b@x.co"},
                                   options={"idempotency_key": "k-2"})
    assert info.value.http_status == 400
    assert "k-2" in str(info.value.user_message)


def test_idempotency_key_length_is_checked(emulator: RunningEmulator,
                                          account: dict[str, str]) -> None:
    longest = raw(emulator, account, "POST", "/v1/customers", {"name": "L"},
                  {"Idempotency-Key": "k" * 255})
    assert longest.status_code == 200
    for bad in ("k" * 256, ""):
        r = raw(emulator, account, "POST", "/v1/customers", {"name": "L"},
                {"Idempotency-Key": bad})
        assert r.status_code == 400, len(bad)
        assert r.json()["error"]["message"].startswith(
            f"Idempotent key length is {len(bad)}, which is outside accepted lengths. "
            "Idempotent Keys must be 1-255 characters long.")
    listed = raw(emulator, account, "GET", "/v1/customers").json()
    assert len(listed["data"]) == 1


def test_idempotency_replays_errors_too(emulator: RunningEmulator,
                                        account: dict[str, str]) -> None:
    headers = {"Idempotency-Key": "err-1"}
    first = raw(emulator, account, "POST", "/v1/prices", {"unit_amount": "5", "currency": "usd",
                                                          "product": "prod_nope"}, headers)
    again = raw(emulator, account, "POST", "/v1/prices", {"unit_amount": "5", "currency": "usd",
                                                          "product": "prod_nope"}, headers)
    assert first.status_code == again.status_code == 404
    assert again.headers.get("idempotent-replayed") == "true"


def test_concurrent_requests_with_one_key_create_one_object(
        emulator: RunningEmulator, account: dict[str, str]) -> None:
    results: list[httpx.Response] = []
    barrier = threading.Barrier(8)

    def send() -> None:
        with httpx.Client() as http:
            barrier.wait()
            results.append(http.post(
                f"{emulator.base}/v1/customers", data={"email": "race@x.co"},
                headers={"Authorization": f"Bearer {account['secret_key']}",
                         "Idempotency-Key": "race-key"}))

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(results) == 8
    assert {r.json()["id"] for r in results} == {results[0].json()["id"]}
    assert sum(r.headers.get("idempotent-replayed") == "true" for r in results) == 7
    listed = raw(emulator, account, "GET", "/v1/customers").json()
    assert len(listed["data"]) == 1


class DroppingProxy:
    """Forwards requests to the emulator but answers the first one with a 503 after the
    write happened upstream: the client never hears back, as when a response is lost."""

    def __init__(self, emulator: RunningEmulator) -> None:
        import socketserver

        self.attempts: list[bytes] = []
        upstream_port = int(emulator.base.rsplit(":", 1)[1])
        attempts = self.attempts

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                data = b""
                self.request.settimeout(5)
                while b"\r\n\r\n" not in data:
                    data += self.request.recv(65536)
                head, _, body = data.partition(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length"))
                while len(body) < length:
                    body += self.request.recv(65536)
                attempts.append(head)
                upstream = socket.create_connection(("127.0.0.1", upstream_port))
                upstream.sendall(head.replace(b"keep-alive", b"close") + b"\r\n\r\n" + body)
                reply = b""
                while chunk := upstream.recv(65536):
                    reply += chunk
                upstream.close()
                if len(attempts) == 1:
                    self.request.sendall(b"HTTP/1.1 503 Service Unavailable\r\n"
                                         b"Content-Length: 0\r\nConnection: close\r\n\r\n")
                else:
                    self.request.sendall(reply)

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def idempotency_keys(self) -> list[bytes]:
        return [line.split(b":", 1)[1].strip() for head in self.attempts
                for line in head.split(b"\r\n") if line.lower().startswith(b"idempotency-key")]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def dropping_proxy(emulator: RunningEmulator) -> Iterator[DroppingProxy]:
    proxy = DroppingProxy(emulator)
    yield proxy
    proxy.close()


def test_sdk_retries_are_idempotent(emulator: RunningEmulator, account: dict[str, str],
                                    dropping_proxy: DroppingProxy) -> None:
    """A lost response makes the SDK retry with the same key; one customer exists."""
    client = stripe.StripeClient(account["secret_key"],
                                 base_addresses={"api": dropping_proxy.base},
                                 max_network_retries=2)
    customer = client.v1.customers.create(params={"email": "retry@x.co"})
    keys = dropping_proxy.idempotency_keys()
    assert len(keys) == 2 and keys[0] == keys[1]
    assert customer.last_response.headers.get("idempotent-replayed") == "true"
    listed = raw(emulator, account, "GET", "/v1/customers").json()
    assert [c["id"] for c in listed["data"]] == [customer.id]


def test_node_sdk_retries_are_idempotent(emulator: RunningEmulator, account: dict[str, str],
                                         dropping_proxy: DroppingProxy,
                                         tmp_path: Path) -> None:
    script = """
const Stripe = require(process.env.STRIPE_NODE);
const stripe = new Stripe(process.env.KEY, {host: '127.0.0.1', port: process.env.PORT,
                                            protocol: 'http', maxNetworkRetries: 2});
stripe.customers.create({email: 'node-retry@x.co'}).then((c) => {
  console.log(JSON.stringify({id: c.id,
                              replayed: c.lastResponse.headers['idempotent-replayed']}));
});
"""
    out = run_node_script(script, account["secret_key"], dropping_proxy.base, tmp_path)
    keys = dropping_proxy.idempotency_keys()
    assert len(keys) == 2 and keys[0] == keys[1]
    assert out["replayed"] == "true"
    listed = raw(emulator, account, "GET", "/v1/customers").json()
    assert [c["id"] for c in listed["data"]] == [out["id"]]


# ------------------------------------------------------------------ request ids, routes

def test_request_id_on_every_response(client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={})
    request_id = customer.last_response.request_id
    assert request_id is not None and request_id.startswith("req_")
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.retrieve("cus_missing")
    assert info.value.request_id is not None and info.value.request_id.startswith("req_")
    assert info.value.request_id != request_id


def test_unknown_route_is_404(emulator: RunningEmulator, account: dict[str, str]) -> None:
    r = raw(emulator, account, "GET", "/v1/definitely_not_a_thing")
    assert r.status_code == 404
    error = r.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"].startswith("Unrecognized request URL (GET: /v1/definitely_not_a_thing)")
    client = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base})
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.raw_request("get", "/v1/nope/nope")
    assert info.value.http_status == 404


def test_sdk_endpoint_not_implemented_says_so(client: stripe.StripeClient) -> None:
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.climate.products.list()
    assert info.value.code == "emulator_unsupported"
    assert "/v1/climate/products" in str(info.value.user_message)


# ------------------------------------------------------------------ lists

def _make_customers(client: stripe.StripeClient, n: int) -> list[str]:
    return [client.v1.customers.create(params={"email": f"c{i}@x.co"}).id for i in range(n)]


def test_list_pagination(client: stripe.StripeClient) -> None:
    ids = _make_customers(client, 7)
    newest_first = list(reversed(ids))
    page = client.v1.customers.list()
    assert [c.id for c in page.data] == newest_first
    assert page.has_more is False and page.url == "/v1/customers"
    first = client.v1.customers.list(params={"limit": 3})
    assert [c.id for c in first.data] == newest_first[:3] and first.has_more
    second = client.v1.customers.list(params={"limit": 3, "starting_after": first.data[-1].id})
    assert [c.id for c in second.data] == newest_first[3:6] and second.has_more
    third = client.v1.customers.list(params={"limit": 3, "starting_after": second.data[-1].id})
    assert [c.id for c in third.data] == newest_first[6:] and not third.has_more
    back = client.v1.customers.list(params={"limit": 2, "ending_before": newest_first[4]})
    assert [c.id for c in back.data] == newest_first[2:4] and back.has_more
    assert [c.id for c in first.auto_paging_iter()] == newest_first
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.list(params={"starting_after": "cus_unknown"})
    assert info.value.param == "starting_after"


def test_auto_paging_backwards_and_global_style(global_style: None) -> None:
    ids = [stripe.Customer.create(email=f"g{i}@x.co").id for i in range(5)]
    seen = [c.id for c in stripe.Customer.list(limit=2).auto_paging_iter()]
    assert seen == list(reversed(ids))
    back = stripe.Customer.list(limit=2, ending_before=ids[0])
    # Paging backwards, the SDK walks towards newer objects, oldest first.
    assert [c.id for c in back.auto_paging_iter()] == ids[1:]


def test_created_filters(emulator: RunningEmulator, client: stripe.StripeClient) -> None:
    ids = _make_customers(client, 4)
    created = [client.v1.customers.retrieve(i).created for i in ids]
    assert created == sorted(created) and len(set(created)) == 4
    gte = client.v1.customers.list(params={"created": {"gte": created[1]}})
    assert [c.id for c in gte.data] == list(reversed(ids[1:]))
    window = client.v1.customers.list(params={"created": {"gt": created[0], "lt": created[3]}})
    assert [c.id for c in window.data] == [ids[2], ids[1]]
    exact = client.v1.customers.list(params={"created": created[2]})
    assert [c.id for c in exact.data] == [ids[2]]
    lte = client.v1.customers.list(params={"created": {"lte": created[0]}})
    assert [c.id for c in lte.data] == [ids[0]]


def test_list_filter_by_email(client: stripe.StripeClient) -> None:
    client.v1.customers.create(params={"email": "same@x.co", "name": "one"})
    client.v1.customers.create(params={"email": "other@x.co"})
    client.v1.customers.create(params={"email": "same@x.co", "name": "two"})
    found = client.v1.customers.list(params={"email": "same@x.co"})
    assert [c.name for c in found.data] == ["two", "one"]


# ------------------------------------------------------------------ search

def test_search_query_language(client: stripe.StripeClient) -> None:
    a = client.v1.customers.create(params={"email": "ann@example.com", "name": "Ann Lee",
                                           "metadata": {"plan": "pro"}})
    b = client.v1.customers.create(params={"email": "bob@example.com", "name": "Bob Ray",
                                           "metadata": {"plan": "free"}})
    c = client.v1.customers.create(params={"email": "cat@other.org", "name": "Cat Lee",
                                           "metadata": {"plan": "pro"}})

    def ids(query: str, **extra: Any) -> list[str]:
        result = client.v1.customers.search(params={"query": query, **extra})
        assert result.object == "search_result"
        assert result.url == "/v1/customers/search"
        return [x.id for x in result.data]

    assert ids("email:'ann@example.com'") == [a.id]
    assert ids("email:'ANN@example.com'") == [a.id]
    assert ids("metadata['plan']:'pro'") == [c.id, a.id]
    assert ids("metadata['plan']:'pro' AND name~'Cat'") == [c.id]
    assert ids("email:'bob@example.com' OR email:'cat@other.org'") == [c.id, b.id]
    assert ids("-metadata['plan']:'pro'") == [b.id]
    assert ids("name~'Lee'") == [c.id, a.id]
    assert ids(f"created>={b.created}") == [c.id, b.id]
    # Numbers may be quoted, `=` compares numbers, AND / OR in either case, and a space
    # between clauses means AND (Stripe's query language).
    assert ids(f"created>='{b.created}'") == [c.id, b.id]
    assert ids(f"created={b.created}") == [b.id]
    assert ids("metadata['plan']:'pro' and name~'Cat'") == [c.id]
    assert ids("email:'bob@example.com' or email:'cat@other.org'") == [c.id, b.id]
    assert ids("metadata['plan']:'pro' name~'Ann'") == [a.id]
    assert ids('metadata["plan"]:"free"') == [b.id]
    assert ids(" ".join(["name~'Lee'"] * 10)) == [c.id, a.id]
    page = client.v1.customers.search(params={"query": "name~'Lee'", "limit": 1})
    assert page.has_more and page.next_page
    rest = client.v1.customers.search(params={"query": "name~'Lee'", "limit": 1,
                                              "page": page.next_page})
    assert [x.id for x in rest.data] == [a.id] and not rest.has_more
    assert "total_count" not in page
    counted = client.v1.customers.search(params={"query": "name~'Lee'",
                                                 "expand": ["total_count"]})
    assert counted.total_count == 2
    everything = [x.id for x in page.auto_paging_iter()]
    assert everything == [c.id, a.id]
    for bad in ("email:ann@example.com", "email:'a' AND name:'b' OR name:'c'", "nosuch:'x'",
                "name~'ab'", "", "created>'soon'", "created<null", "email:'a' AND",
                "email:'a' name:'b' OR name:'c'", " ".join(["name~'Lee'"] * 11)):
        with pytest.raises(stripe.InvalidRequestError) as info:
            client.v1.customers.search(params={"query": bad})
        assert info.value.param == "query", bad


# ------------------------------------------------------------------ expand

def test_expand_nested_and_inside_lists(client: stripe.StripeClient) -> None:
    product = client.v1.products.create(params={
        "name": "Widget", "default_price_data": {"currency": "usd", "unit_amount": 500}})
    assert isinstance(product.default_price, str)
    expanded = client.v1.products.retrieve(product.id, params={"expand": ["default_price"]})
    assert not isinstance(expanded.default_price, str)
    assert expanded.default_price is not None and expanded.default_price.unit_amount == 500
    price_id = expanded.default_price.id
    nested = client.v1.prices.retrieve(price_id, params={"expand": ["product.default_price"]})
    assert nested.product.default_price.id == price_id  # type: ignore[union-attr]
    listed = client.v1.prices.list(params={"expand": ["data.product"]})
    assert listed.data[0].product.name == "Widget"  # type: ignore[union-attr]
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.retrieve(price_id, params={"expand": ["nickname"]})
    assert "cannot be expanded" in str(info.value.user_message)
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.retrieve(price_id, params={"expand": ["unknown_field"]})
    assert info.value.param == "expand"
    deep = "product.default_price.product.default_price.product"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.retrieve(price_id, params={"expand": [deep]})
    assert "4 levels" in str(info.value.user_message)
    four_levels = "product.default_price.product.default_price"
    four = client.v1.prices.retrieve(price_id, params={"expand": [four_levels]})
    assert four.product.default_price.product.default_price.id == price_id  # type: ignore[union-attr]
    # In a list `data` is one of the four levels (Stripe's deepest list expansion is
    # `data.payment_intent.customer.default_source`).
    listed4 = client.v1.prices.list(params={"expand": ["data.product.default_price.product"]})
    assert listed4.data[0].product.default_price.product.name == "Widget"  # type: ignore[union-attr]
    with pytest.raises(stripe.InvalidRequestError) as info:
        five = "data.product.default_price.product.default_price"
        client.v1.prices.list(params={"expand": [five]})
    assert info.value.param == "expand[0]" and "4 levels" in str(info.value.user_message)


# ------------------------------------------------------------------ metadata

def test_metadata_rules(client: stripe.StripeClient) -> None:
    long_key = "k" * 41
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.create(params={"metadata": {long_key: "v"}})
    assert info.value.param == "metadata"
    assert info.value.user_message == (
        f"Invalid key: {long_key} must be a string under 40 characters")
    assert client.v1.customers.create(params={"metadata": {"k" * 40: "v" * 500}}).metadata
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.create(params={"metadata": {"k": "v" * 501}})
    assert info.value.param == "metadata"
    assert info.value.user_message == (
        f"Invalid val: {'v' * 501} must be a string under 500 characters")
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.create(params={"metadata": {f"k{i}": "v" for i in range(51)}})
    assert info.value.param == "metadata"
    assert info.value.user_message == (
        "Metadata can have up to 50 keys, but you've set 51. Email us at "
        "support+metadata@stripe.com for more information.")
    ok = client.v1.customers.create(params={"metadata": {f"k{i}": "v" for i in range(50)}})
    assert len(ok.metadata.to_dict()) == 50
    merged = client.v1.customers.update(ok.id, params={"metadata": {"k0": "", "new": "x"}})
    assert "k0" not in merged.metadata and merged.metadata["new"] == "x"
    assert len(merged.metadata.to_dict()) == 50
    with pytest.raises(stripe.InvalidRequestError) as info:  # the 51st key by merging
        client.v1.customers.update(ok.id, params={"metadata": {"one_more": "x"}})
    assert "you've set 51" in str(info.value.user_message)
    cleared = client.v1.customers.update(ok.id, params={"metadata": ""})  # type: ignore[typeddict-item]
    assert cleared.metadata.to_dict() == {}
    # Digit keys are keys, not list indexes (`metadata[1]=x` is a hash with key "1").
    digits = client.v1.customers.create(params={"metadata": {"1": "x", "7": "y"}})
    assert digits.metadata.to_dict() == {"1": "x", "7": "y"}
    zero = client.v1.customers.update(digits.id, params={"metadata": {"0": "z", "1": ""}})
    assert zero.metadata.to_dict() == {"0": "z", "7": "y"}
    inline = client.v1.prices.create(params={"currency": "usd", "unit_amount": 5, "product_data": {
        "name": "Digits", "metadata": {"2024": "year"}}})
    assert client.v1.products.retrieve(str(inline.product)).metadata.to_dict() == {"2024": "year"}
    # Nested metadata hashes (here a price's inline product) follow the same rules.
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.create(params={"currency": "usd", "unit_amount": 5, "product_data": {
            "name": "Nested", "metadata": {long_key: "v"}}})
    assert info.value.param == "product_data[metadata]"
    assert str(info.value.user_message).startswith(f"Invalid key: {long_key}")


# ------------------------------------------------------------------ error shapes

def test_error_shape(emulator: RunningEmulator, account: dict[str, str]) -> None:
    r = raw(emulator, account, "GET", "/v1/customers/cus_nope")
    assert r.status_code == 404
    error = r.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["code"] == "resource_missing"
    assert error["param"] == "id"
    assert error["message"] == "No such customer: 'cus_nope'"
    assert error["doc_url"].endswith("/resource-missing")
    assert error["request_log_url"].endswith(r.headers["request-id"])


def test_delete_reads_form_params_from_the_body_too(emulator: RunningEmulator,
                                                     account: dict[str, str]) -> None:
    """`curl -X DELETE -d ...` sends params in the body; the SDKs use the query string."""
    created = raw(emulator, account, "POST", "/v1/customers", {"name": "D"}).json()
    path = f"/v1/customers/{created['id']}"
    r = raw(emulator, account, "DELETE", path, "bogus=1")
    assert r.status_code == 400 and r.json()["error"]["param"] == "bogus"
    r = raw(emulator, account, "DELETE", path + "?bogus=1")
    assert r.status_code == 400 and r.json()["error"]["param"] == "bogus"
    assert raw(emulator, account, "DELETE", path).json()["deleted"] is True


def test_json_body_and_options(emulator: RunningEmulator, account: dict[str, str]) -> None:
    r = httpx.options(f"{emulator.base}/v1/customers")
    assert r.status_code == 204 and "access-control-allow-origin" in r.headers
    r = raw(emulator, account, "POST", "/v1/customers", "{not json",
            headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    for body in ("[1, 2]", '"text"', "3"):
        r = raw(emulator, account, "POST", "/v1/customers", body,
                headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"


def _port(emulator: RunningEmulator) -> int:
    return int(emulator.base.rsplit(":", 1)[1])


def _read_responses(sock: socket.socket, seconds: float = 3.0) -> bytes:
    sock.settimeout(seconds)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except TimeoutError:
        pass
    return data


def _post(account: dict[str, str], body: bytes, path: str = "/v1/customers") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            f"{account['secret_key']}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def test_a_pipelined_bad_request_does_not_swallow_the_good_one(
        emulator: RunningEmulator, account: dict[str, str]) -> None:
    """HTTP/1.1 answers pipelined requests in order (RFC 9112 §9.3.2): a malformed request
    behind a valid one may end the connection, but only after the valid one's answer, so
    a client never loses the response to a write that was executed."""
    with socket.create_connection(("127.0.0.1", _port(emulator))) as sock:
        sock.sendall(_post(account, b"email=piped@example.com") + b"NOT HTTP AT ALL\r\n\r\n")
        data = _read_responses(sock)
    assert data.startswith(b"HTTP/1.1 200 "), data[:300]
    assert b'"email": "piped@example.com"' in data.split(b"\r\n\r\n", 1)[1]
    created = raw(emulator, account, "GET", "/v1/customers").json()["data"]
    assert [c["email"] for c in created] == ["piped@example.com"]


def test_pipelined_valid_requests_are_answered_in_order(
        emulator: RunningEmulator, account: dict[str, str]) -> None:
    with socket.create_connection(("127.0.0.1", _port(emulator))) as sock:
        sock.sendall(b"".join(_post(account, f"email=p{i}@example.com".encode())
                              for i in range(3)))
        data = _read_responses(sock, 2.0)
    assert data.count(b"HTTP/1.1 200 ") == 3, data[:500]
    order = [data.index(f"p{i}@example.com".encode()) for i in range(3)]
    assert order == sorted(order)


def test_an_oversized_body_is_refused_before_it_is_read(
        emulator: RunningEmulator, account: dict[str, str]) -> None:
    """A 20 MB body is answered 413 from its Content-Length, without waiting for (or
    buffering) the bytes; the connection is closed rather than reused."""
    head = _post(account, b"")
    head = head.replace(b"Content-Length: 0", b"Content-Length: 20000000")
    with socket.create_connection(("127.0.0.1", _port(emulator))) as sock:
        sock.sendall(head + b"description=" + b"x" * 1000)
        data = _read_responses(sock, 3.0)
    assert data.startswith(b"HTTP/1.1 413 "), data[:300]
    body = data.split(b"\r\n\r\n", 1)[1]
    assert b'"type": "invalid_request_error"' in body and b"limit" in body
    r = raw(emulator, account, "POST", "/v1/customers", "description=" + "x" * 2_000_000)
    assert r.status_code == 413 and r.json()["error"]["code"] == "request_too_large"
    assert raw(emulator, account, "GET", "/v1/customers").json()["data"] == []


def test_too_many_parameters_are_refused(emulator: RunningEmulator,
                                         account: dict[str, str]) -> None:
    body = "&".join(f"metadata[k{i}]=v" for i in range(6000))
    r = raw(emulator, account, "POST", "/v1/customers", body)
    assert r.status_code == 400 and r.json()["error"]["code"] == "parameters_exceeded"
