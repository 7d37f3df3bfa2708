"""`stripebench emulator listen` and `trigger`, end to end: real processes, events caused
by the API calls `stripe trigger` makes, forwarded signed to a receiver that verifies them
with each official SDK's `construct_event` (python's here, node's in a node process).

https://docs.stripe.com/stripe-cli/triggers https://docs.stripe.com/webhooks#verify-events
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import stripe

from conftest import RunningEmulator, free_port
from connect_helpers import custom_account
from paths import REPO

ROOT = REPO
CLI = [sys.executable, "-m", "stripebench.cli"]


class Receiver:
    """A webhook endpoint that keeps what it received, verified with stripe-python."""

    def __init__(self) -> None:
        self.secret = ""
        self.events: list[Any] = []
        self.rejected = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["content-length"]))
                try:
                    event = stripe.Webhook.construct_event(
                        body, self.headers["stripe-signature"], receiver.secret)
                    receiver.events.append(event)
                    self.send_response(200)
                except (ValueError, stripe.SignatureVerificationError):
                    receiver.rejected += 1
                    self.send_response(400)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/webhook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def types(self) -> list[str]:
        return [e.type for e in self.events]

    def wait_for(self, event_type: str, timeout: float = 20) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [e for e in self.events if e.type == event_type]
            if found:
                return found[0]
            time.sleep(0.1)
        raise AssertionError(f"{event_type} never arrived; got {self.types()}")


def start_listen(emulator: RunningEmulator, key: str, *args: str) -> tuple[Any, str]:
    proc = subprocess.Popen([*CLI, "emulator", "listen", "--emulator", emulator.base,
                             "--secret-key", key, "--interval", "0.1", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "webhook signing secret is whsec_" in line, line + proc.stderr.read()
    return proc, line.rsplit(" ", 1)[1].strip()


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.server.shutdown()


def trigger(emulator: RunningEmulator, key: str, event: str, *args: str) -> str:
    run = subprocess.run([*CLI, "emulator", "trigger", event, "--emulator", emulator.base,
                          "--secret-key", key, *args], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_listen_forwards_triggered_events_signed(emulator: RunningEmulator,
                                                 account: dict[str, str],
                                                 receiver: Receiver) -> None:
    proc, secret = start_listen(emulator, account["secret_key"], "--forward-to", receiver.url)
    receiver.secret = secret
    try:
        for event in ("payment_intent.succeeded", "checkout.session.completed",
                      "customer.subscription.created", "charge.refunded"):
            out = trigger(emulator, account["secret_key"], event)
            assert "Trigger succeeded" in out
            receiver.wait_for(event)
        paid = receiver.wait_for("payment_intent.succeeded")
        assert paid.data.object.status == "succeeded" and paid.data.object.amount == 2000
        session = receiver.wait_for("checkout.session.completed").data.object
        assert session.payment_status == "paid"
        assert "invoice.paid" in receiver.types()
        created = [e.created for e in receiver.events]
        assert created == sorted(created)  # forwarded oldest first
        assert receiver.rejected == 0
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_listen_filters_events_and_connect(emulator: RunningEmulator, account: dict[str, str],
                                           client: stripe.StripeClient,
                                           receiver: Receiver) -> None:
    connect_receiver = Receiver()
    acct = custom_account(client)
    proc, secret = start_listen(emulator, account["secret_key"], "--forward-to", receiver.url,
                                "--forward-connect-to", connect_receiver.url,
                                "--events", "customer.created")
    receiver.secret = connect_receiver.secret = secret
    try:
        client.v1.products.create(params={"name": "ignored"})
        client.v1.customers.create(params={"email": "platform@example.com"})
        client.v1.customers.create(params={"email": "connected@example.com"},
                                   options={"stripe_account": acct.id})
        on_platform = receiver.wait_for("customer.created")
        on_connected = connect_receiver.wait_for("customer.created")
        assert on_platform.data.object.email == "platform@example.com"
        assert on_connected.account == acct.id
        assert on_connected.data.object.email == "connected@example.com"
        time.sleep(0.5)
        assert receiver.types() == ["customer.created"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        connect_receiver.server.shutdown()


NODE_RECEIVER = r"""
const http = require('http');
const stripe = require(process.env.STRIPE_NODE)('sk_test_unused');
const seen = [];
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    try {
      const event = stripe.webhooks.constructEvent(Buffer.concat(chunks),
        req.headers['stripe-signature'], process.env.WHSEC);
      seen.push(event.type);
      res.writeHead(200); res.end();
      if (event.type === process.env.WANT) { console.log(JSON.stringify(seen)); process.exit(0); }
    } catch (err) { res.writeHead(400); res.end(String(err)); }
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.error('ready'));
setTimeout(() => { console.log(JSON.stringify(seen)); process.exit(3); }, 60000);
"""


def test_node_construct_event_accepts_forwarded_events(emulator: RunningEmulator,
                                                       account: dict[str, str],
                                                       tmp_path: Path) -> None:
    port = free_port()
    script = tmp_path / "receiver.js"
    script.write_text(NODE_RECEIVER)
    proc, secret = start_listen(emulator, account["secret_key"], "--forward-to",
                                f"http://127.0.0.1:{port}/webhook")
    node = subprocess.Popen(["node", str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={
                                "PATH": "/usr/local/bin:/usr/bin:/bin", "PORT": str(port),
                                "WHSEC": secret, "WANT": "invoice.payment_failed",
                                "STRIPE_NODE": str(ROOT / "node_modules" / "stripe")})
    try:
        assert node.stderr is not None and "ready" in node.stderr.readline()
        trigger(emulator, account["secret_key"], "invoice.payment_failed")
        out, _ = node.communicate(timeout=60)
        assert node.returncode == 0, out
        assert "invoice.payment_failed" in json.loads(out)
    finally:
        node.kill()
        proc.terminate()
        proc.wait(timeout=10)


def test_trigger_unknown_event_fails_with_one_line(emulator: RunningEmulator,
                                                   account: dict[str, str]) -> None:
    run = subprocess.run([*CLI, "emulator", "trigger", "made.up", "--emulator", emulator.base,
                          "--secret-key", account["secret_key"]], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 2 and "no fixture for made.up" in run.stderr
    assert "Traceback" not in run.stderr
