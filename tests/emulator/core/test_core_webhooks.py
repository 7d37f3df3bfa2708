"""Webhook endpoints and signed event delivery, verified with the SDK's own checker."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
import stripe

from conftest import RunningEmulator
from stripebench.emulator.resources import webhooks


class Receiver:
    """A tiny HTTP server that records POSTs and answers with the statuses it is given."""

    def __init__(self, statuses: Callable[[int], int] = lambda n: 200) -> None:
        self.received: list[dict[str, Any]] = []
        self.statuses = statuses
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers["content-length"]))
                receiver.received.append({"body": body, "headers": dict(self.headers),
                                          "path": self.path})
                status = receiver.statuses(len(receiver.received))
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.received

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture()
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(webhooks, "RETRY_SCHEDULE", (0.05, 0.1, 0.15))


def test_endpoint_crud_and_secret_only_on_create(client: stripe.StripeClient) -> None:
    endpoint = client.v1.webhook_endpoints.create(params={
        "url": "https://example.com/hooks", "enabled_events": ["customer.created", "invoice.paid"],
        "description": "main", "api_version": "2025-03-31.basil", "metadata": {"k": "v"}})
    assert endpoint.id.startswith("we_") and endpoint.status == "enabled"
    assert endpoint.secret is not None and endpoint.secret.startswith("whsec_")
    assert endpoint.api_version == "2025-03-31.basil"
    assert endpoint.enabled_events == ["customer.created", "invoice.paid"]
    fetched = client.v1.webhook_endpoints.retrieve(endpoint.id)
    assert fetched.secret is None and fetched.url == "https://example.com/hooks"
    updated = client.v1.webhook_endpoints.update(endpoint.id, params={
        "disabled": True, "enabled_events": ["*"], "url": "https://example.com/v2"})
    assert updated.status == "disabled" and updated.enabled_events == ["*"]
    assert updated.url == "https://example.com/v2"
    assert [e.id for e in client.v1.webhook_endpoints.list().data] == [endpoint.id]
    assert client.v1.webhook_endpoints.delete(endpoint.id).deleted is True
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.webhook_endpoints.retrieve(endpoint.id)
    assert info.value.code == "resource_missing"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.webhook_endpoints.create(params={"url": "ftp://x", "enabled_events": ["*"]})
    assert info.value.param == "url"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.webhook_endpoints.create(params={"url": "https://example.com",
                                                   "enabled_events": ["customer.exploded"]})  # type: ignore[list-item]
    assert info.value.param == "enabled_events[0]"


def test_signed_delivery_verifies_with_sdk(client: stripe.StripeClient,
                                           receiver: Receiver) -> None:
    endpoint = client.v1.webhook_endpoints.create(params={
        "url": receiver.url, "enabled_events": ["customer.created", "customer.updated"]})
    secret = endpoint.secret
    assert secret is not None
    customer = client.v1.customers.create(params={"email": "hook@example.com"})
    client.v1.products.create(params={"name": "not subscribed"})
    client.v1.customers.update(customer.id, params={"name": "Hooked"})
    got = receiver.wait_for(2)
    assert len(got) == 2
    types = []
    for request in got:
        header = request["headers"]["Stripe-Signature"]
        assert header.startswith("t=") and ",v1=" in header
        event = stripe.Webhook.construct_event(request["body"], header, secret)
        types.append(event.type)
        assert request["headers"]["Content-Type"].startswith("application/json")
    assert sorted(types) == ["customer.created", "customer.updated"]
    created = next(json.loads(r["body"]) for r in got
                   if json.loads(r["body"])["type"] == "customer.created")
    assert created["data"]["object"]["id"] == customer.id
    assert created["object"] == "event" and created["pending_webhooks"] == 1
    stored = client.v1.events.retrieve(created["id"])
    assert stored.type == "customer.created"
    # A tampered body or the wrong secret fails verification.
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.Webhook.construct_event(got[0]["body"] + b" ", got[0]["headers"]["Stripe-Signature"],
                                       secret)
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.Webhook.construct_event(got[0]["body"], got[0]["headers"]["Stripe-Signature"],
                                       "whsec_wrong")
    time.sleep(0.2)
    assert len(receiver.received) == 2  # the product event went nowhere


def test_star_and_disabled_endpoints(client: stripe.StripeClient, receiver: Receiver) -> None:
    other = Receiver()
    try:
        star = client.v1.webhook_endpoints.create(params={"url": receiver.url,
                                                          "enabled_events": ["*"]})
        off = client.v1.webhook_endpoints.create(params={"url": other.url,
                                                         "enabled_events": ["*"]})
        client.v1.webhook_endpoints.update(off.id, params={"disabled": True})
        client.v1.products.create(params={"name": "Everything"})
        client.v1.coupons.create(params={"percent_off": 5})
        got = receiver.wait_for(2)
        types = sorted(json.loads(r["body"])["type"] for r in got)
        assert types == ["coupon.created", "product.created"]
        assert star.secret is not None
        for r in got:
            stripe.Webhook.construct_event(r["body"], r["headers"]["Stripe-Signature"],
                                           star.secret)
        time.sleep(0.2)
        assert other.received == []
    finally:
        other.close()


def test_payload_in_endpoint_api_version(client: stripe.StripeClient, receiver: Receiver) -> None:
    client.v1.webhook_endpoints.create(params={
        "url": receiver.url, "enabled_events": ["promotion_code.created"],
        "api_version": "2025-03-31.basil"})
    coupon = client.v1.coupons.create(params={"percent_off": 10})
    client.v1.promotion_codes.create(params={"promotion": {"type": "coupon",
                                                           "coupon": coupon.id}})
    got = receiver.wait_for(1)
    body = json.loads(got[0]["body"])
    promo = body["data"]["object"]
    assert promo["coupon"]["id"] == coupon.id and "promotion" not in promo
    # The event says which version rendered it (stripe-go's ConstructEvent compares it
    # with the SDK's own and refuses a mismatch).
    assert body["api_version"] == "2025-03-31.basil"


def test_retries_on_a_fixed_schedule_then_stop(emulator: RunningEmulator,
                                               client: stripe.StripeClient,
                                               account: dict[str, str],
                                               fast_retries: None) -> None:
    flaky = Receiver(statuses=lambda n: 500 if n <= 2 else 200)
    dead = Receiver(statuses=lambda n: 503)
    try:
        client.v1.webhook_endpoints.create(params={"url": flaky.url,
                                                   "enabled_events": ["customer.created"]})
        client.v1.webhook_endpoints.create(params={"url": dead.url,
                                                   "enabled_events": ["customer.created"]})
        client.v1.customers.create(params={"email": "retry@example.com"})
        got = flaky.wait_for(3)
        assert len(got) == 3
        assert len({json.loads(r["body"])["id"] for r in got}) == 1  # the same event, resent
        assert len({r["body"] for r in got}) == 1
        dead.wait_for(4)
        time.sleep(0.5)
        assert len(dead.received) == 4  # first try + the three scheduled retries, no more
        log = httpx.get(f"{emulator.base}/_emulator/accounts/{account['id']}/webhook_deliveries")
        entries = {e["url"]: e for e in log.json()["data"]}
        assert entries[flaky.url]["state"] == "delivered"
        assert [a["status"] for a in entries[flaky.url]["attempts"]] == [500, 500, 200]
        assert entries[dead.url]["state"] == "failed"
        assert len(entries[dead.url]["attempts"]) == 4
    finally:
        flaky.close()
        dead.close()


def test_delivery_does_not_block_the_api(client: stripe.StripeClient,
                                         fast_retries: None) -> None:
    """An endpoint that never answers must not slow API responses down."""
    import socket

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    try:
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/hang"
        client.v1.webhook_endpoints.create(params={"url": url, "enabled_events": ["*"]})
        started = time.monotonic()
        for i in range(5):
            client.v1.customers.create(params={"email": f"fast{i}@example.com"})
        assert time.monotonic() - started < 3.0
    finally:
        silent.close()


def test_connect_endpoints_hear_connected_accounts(emulator: RunningEmulator,
                                                    client: stripe.StripeClient,
                                                    account: dict[str, str],
                                                    receiver: Receiver) -> None:
    own = Receiver()
    try:
        connect = client.v1.webhook_endpoints.create(params={
            "url": receiver.url, "enabled_events": ["customer.created"], "connect": True})
        client.v1.webhook_endpoints.create(params={"url": own.url,
                                                   "enabled_events": ["customer.created"]})
        connected = emulator.app.store.create_account(parent=account["id"])
        client.v1.customers.create(params={"email": "connected@example.com"},
                                   options={"stripe_account": connected.id})
        got = receiver.wait_for(1)
        assert connect.secret is not None
        event = stripe.Webhook.construct_event(got[0]["body"],
                                               got[0]["headers"]["Stripe-Signature"],
                                               connect.secret)
        assert event.account == connected.id
        time.sleep(0.2)
        assert own.received == []  # the platform's own endpoint hears only its own events
        client.v1.customers.create(params={"email": "platform@example.com"})
        assert len(own.wait_for(1)) == 1
        time.sleep(0.2)
        assert len(receiver.received) == 1
    finally:
        own.close()
