"""webhook-fulfillment grader.

Drives real purchases through the restarted shop (`/buy/<sku>`, then the hosted Checkout
page paid with 4242 4242 4242 4242) and reads `shop.db`:

- a purchase whose success page is never loaded is fulfilled from the emulator's own
  webhook delivery to the endpoint the agent registered; one whose success page is
  loaded three times is fulfilled once;
- then, with that endpoint disabled so nothing else arrives, the grader delivers events
  itself, signed with the endpoint's secret: replays and concurrent duplicates of a
  fulfilled session's event, `async_payment_succeeded` before `completed`,
  `async_payment_succeeded` alone, a `completed` event of an unpaid session, and events
  with a wrong secret, a stale timestamp or no signature (each must be refused with a
  4xx and change nothing, and the same event correctly signed must then work).

Every table the shop keeps must agree: each order with its session's amount, the stock
down by exactly the orders, one email each. No enabled endpoint on the shop receiving
both events: total 0; one at another path than `<SHOP_URL>/webhook` loses
`endpoint_registered` (the rest is graded through it). The signing secret must be in
`webhook_secret.txt`. The requirement table is tests/requirements.toml.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sqlite3
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

SHOP = os.environ.get("SHOP_URL", "http://127.0.0.1:4242").rstrip("/")
SKUS = ("sencha", "assam", "rooibos")
WAIT = 20.0  # seconds for a webhook delivery to land in the shop's database


Answer = tuple[int, dict[str, str], bytes]


def request(url: str, *, method: str = "GET", data: bytes | None = None,
            headers: dict[str, str] | None = None, follow: bool = True) -> Answer:
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener() if follow else urllib.request.build_opener(
        NoRedirect())
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with opener.open(req, timeout=15) as response:
            return response.status, dict(response.headers), response.read(2_000_000)
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers or {}), exc.read(2_000_000) if exc.fp else b""


class Shop:
    def __init__(self, workdir: Path) -> None:
        self.db_path = workdir / "shop.db"

    def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        import stat

        if not stat.S_ISREG(self.db_path.stat().st_mode):
            raise ValueError("shop.db is not a regular file")
        conn = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=10)
        try:
            return list(conn.execute(sql, args))
        finally:
            conn.close()

    def orders(self, session_id: str) -> list[tuple[Any, ...]]:
        return self.rows("SELECT sku, quantity, amount_total FROM orders "
                         "WHERE checkout_session_id = ?", session_id)

    def wait_for_order(self, session_id: str, timeout: float = WAIT) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.orders(session_id):
                time.sleep(0.5)  # let a duplicate, if any, land too
                return True
            time.sleep(0.2)
        return False

    def buy(self, sku: str, pay: bool = True) -> str:
        """A purchase as a shopper makes it: the shop's /buy, then Checkout's page."""
        status, headers, _ = request(f"{SHOP}/buy/{sku}", method="POST", data=b"",
                                     follow=False)
        location = headers.get("Location") or headers.get("location") or ""
        if status not in (302, 303) or "/c/pay/" not in location:
            raise ValueError(f"/buy/{sku} did not redirect to Checkout (HTTP {status})")
        session_id = location.rsplit("/", 1)[1].split("#")[0].split("?")[0]
        if pay:
            body = json.dumps({
                "email": f"{sku}.{session_id[-6:]}@example.com",
                "card": {"number": "4242424242424242", "expiry": "12 / 34", "cvc": "123",
                         "name": "Tea Lover"},
                "billing": {"country": "US", "postal_code": "94107"},
                "custom_fields": {}, "consent": {}}).encode()
            paid, _, answer = request(location.split("#")[0] + "/confirm", method="POST",
                                      data=body, headers={"Content-Type": "application/json"})
            if paid != 200:
                raise ValueError(f"paying on Checkout failed: HTTP {paid} {answer[:200]!r}")
        return session_id


class Signer:
    def __init__(self, secret: str) -> None:
        self.secret = secret

    def header(self, payload: bytes, timestamp: int | None = None,
               secret: str | None = None) -> str:
        t = int(time.time()) if timestamp is None else timestamp
        mac = hmac.new((secret or self.secret).encode(), f"{t}.".encode() + payload,
                       hashlib.sha256).hexdigest()
        return f"t={t},v1={mac}"


def post_event(url: str, payload: bytes, signature: str | None) -> int:
    headers = {"Content-Type": "application/json; charset=utf-8",
               "User-Agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)"}
    if signature is not None:
        headers["Stripe-Signature"] = signature
    return request(url, method="POST", data=payload, headers=headers)[0]


def main() -> None:
    from stripebench.grading import Grader, final_snapshot, objects_of, stripe_client, workdir

    grader = Grader()
    client = stripe_client()
    shop = Shop(workdir())
    endpoint: dict[str, Any] = {}

    def found() -> bool:
        """An enabled endpoint on the shop that receives both events: without one
        nothing below can be tested. The one at <SHOP_URL>/webhook wins."""
        port = urllib.parse.urlsplit(SHOP).port
        candidates = []
        for candidate in reversed(objects_of(final_snapshot(), "webhook_endpoint")):
            url = urllib.parse.urlsplit(candidate.get("url", ""))
            events = candidate.get("enabled_events") or []
            if url.port == port and candidate.get("status") == "enabled" and (
                    "*" in events or {"checkout.session.completed",
                                      "checkout.session.async_payment_succeeded"} <= set(events)):
                candidates.append(candidate)
        if not candidates:
            raise ValueError("no enabled webhook endpoint for the shop receives "
                             "checkout.session.completed and async_payment_succeeded")
        endpoint.update(next((c for c in candidates if at_webhook(c)), candidates[0]))
        return True

    def at_webhook(candidate: dict[str, Any]) -> bool:
        return urllib.parse.urlsplit(candidate.get("url", "")).path == "/webhook"

    if not grader.gate("endpoint_registered", found):
        grader.write()
        return
    # The instruction names the address: <SHOP_URL>/webhook, not any path on the port.
    grader.check("endpoint_registered", 1, lambda: at_webhook(endpoint),
                 "" if at_webhook(endpoint) else f"the endpoint is {endpoint.get('url')}, "
                 f"not {SHOP}/webhook")

    def secret_kept() -> bool:
        path = workdir() / "webhook_secret.txt"
        if not path.is_file() or path.is_symlink() or path.stat().st_size > 4096:
            raise ValueError("no webhook_secret.txt (a plain file) next to app.py")
        return path.read_text(errors="replace").strip() == endpoint["_secret"]

    grader.check("secret_kept", 1, secret_kept)
    signer = Signer(endpoint["_secret"])
    url = endpoint["url"]
    api_base = os.environ["STRIPE_API_BASE"].rstrip("/")
    key = os.environ["STRIPE_SECRET_KEY"]
    version = endpoint.get("api_version")
    made: dict[str, str] = {}

    def event_payload(session_id: str) -> bytes:
        """The `checkout.session.completed` event of a session, as Stripe sends it."""
        found = [e for e in client.v1.events.list({"type": "checkout.session.completed",
                                                   "limit": 100}).data
                 if e.data.object["id"] == session_id]
        if not found:
            raise ValueError(f"no checkout.session.completed event for {session_id}")
        headers = {"Authorization": f"Bearer {key}"}
        if version:
            headers["Stripe-Version"] = version
        status, _, body = request(f"{api_base}/v1/events/{found[0].id}", headers=headers)
        if status != 200:
            raise ValueError(f"could not read event {found[0].id} (HTTP {status})")
        return body

    def variant(payload: bytes, event_type: str, suffix: str, **session: Any) -> bytes:
        event = json.loads(payload)
        event["id"] = f"{event['id']}{suffix}"
        event["type"] = event_type
        event["data"]["object"].update(session)
        return json.dumps(event).encode()

    # ---- the emulator delivers to the agent's endpoint
    def tab_closed() -> bool:
        made["a"] = shop.buy("sencha")
        return shop.wait_for_order(made["a"]) and len(shop.orders(made["a"])) == 1

    grader.check("fulfilled_without_success_page", 3, tab_closed)

    def reloads() -> bool:
        made["b"] = shop.buy("assam")
        success = f"{SHOP}/success?session_id={made['b']}"
        for _ in range(3):
            request(success)
        shop.wait_for_order(made["b"])
        time.sleep(1.0)
        return len(shop.orders(made["b"])) == 1

    grader.check("exactly_once_with_reloads", 2, reloads)

    # ---- from here on the grader alone delivers, in the order it chooses
    client.v1.webhook_endpoints.update(endpoint["id"], {"disabled": True})

    def replays() -> bool:
        payload = event_payload(made["a"])
        statuses = [post_event(url, payload, signer.header(payload)) for _ in range(3)]
        with ThreadPoolExecutor(4) as pool:
            statuses += list(pool.map(lambda _: post_event(url, payload,
                                                           signer.header(payload)), range(4)))
        time.sleep(0.5)
        return all(200 <= s < 300 for s in statuses) and len(shop.orders(made["a"])) == 1

    grader.check("replays_ignored", 2, replays)

    def out_of_order() -> bool:
        session_id = made["d"] = shop.buy("rooibos")
        completed = event_payload(session_id)
        early = variant(completed, "checkout.session.async_payment_succeeded", "_async")
        first = post_event(url, early, signer.header(early))
        second = post_event(url, completed, signer.header(completed))
        time.sleep(0.5)
        return 200 <= first < 300 and 200 <= second < 300 and \
            len(shop.orders(session_id)) == 1

    grader.check("out_of_order_once", 2, out_of_order)

    def async_alone() -> bool:
        session_id = made["e"] = shop.buy("sencha")
        payload = variant(event_payload(session_id),
                          "checkout.session.async_payment_succeeded", "_async")
        status = post_event(url, payload, signer.header(payload))
        time.sleep(0.5)
        return 200 <= status < 300 and len(shop.orders(session_id)) == 1

    grader.check("async_payment_succeeded_fulfils", 2, async_alone)

    unpaid_answer: list[int] = []

    def unpaid() -> bool:
        paid_id = made["e"] if "e" in made else shop.buy("sencha")
        open_id = made["u"] = shop.buy("assam", pay=False)  # a session nobody paid
        payload = variant(event_payload(paid_id), "checkout.session.completed", "_unpaid",
                          id=open_id, payment_status="unpaid", status="complete")
        unpaid_answer.append(post_event(url, payload, signer.header(payload)))
        time.sleep(0.5)
        return not shop.orders(open_id)

    grader.check("unpaid_not_fulfilled", 2, unpaid)
    # An event handled by ignoring it (the unpaid session's) is answered with a 2xx too,
    # or Stripe retries it for days.
    grader.check("ignored_answered_2xx", 1,
                 lambda: bool(unpaid_answer) and 200 <= unpaid_answer[0] < 300)

    def forged() -> bool:
        session_id = made["f"] = shop.buy("assam")
        payload = event_payload(session_id)
        refused = [post_event(url, payload, signer.header(payload, secret="whsec_forged")),
                   post_event(url, payload, None),
                   post_event(url, payload, "t=1,v1=00")]
        tampered = payload.replace(b'"amount_total": ', b'"amount_total": 1')
        refused.append(post_event(url, tampered, signer.header(payload)))
        time.sleep(0.3)
        nothing = not shop.orders(session_id)
        accepted = post_event(url, payload, signer.header(payload))
        time.sleep(0.3)
        return all(400 <= s < 500 for s in refused) and nothing and 200 <= accepted < 300 \
            and len(shop.orders(session_id)) == 1

    grader.check("forged_refused", 2, forged)

    def stale() -> bool:
        session_id = made["g"] = shop.buy("rooibos")
        payload = event_payload(session_id)
        status = post_event(url, payload, signer.header(payload, int(time.time()) - 3600))
        time.sleep(0.3)
        return 400 <= status < 500 and not shop.orders(session_id)

    grader.check("stale_refused", 1, stale)

    def consistent() -> bool:
        """What fulfilling means, whatever the count (exactly once is checked above):
        every order carries its paid session's sku and amount, the stock is down by
        exactly the orders taken since the shop started from its seed, one email per
        order."""
        paid = {k: v for k, v in made.items() if k not in ("u", "g")}
        for session_id in paid.values():
            session = client.v1.checkout.sessions.retrieve(session_id)
            for sku, quantity, amount in shop.orders(session_id):
                if (sku, quantity, amount) != (session.metadata["sku"], 1,
                                               session.amount_total):
                    return False
        orders = shop.rows("SELECT sku, COUNT(*) FROM orders GROUP BY sku")
        stock = dict(shop.rows("SELECT sku, stock FROM products"))
        emails = shop.rows("SELECT COUNT(*) FROM outbox")[0][0]
        total = sum(n for _, n in orders)
        return total > 0 and all(stock[sku] == 40 - n for sku, n in orders) and \
            emails == total

    grader.check("stock_and_email_consistent", 2, consistent)
    grader.check("pages_still_work", 1, lambda: request(SHOP + "/")[0] == 200 and request(
        f"{SHOP}/success?session_id={made['b']}")[0] == 200)
    client.v1.webhook_endpoints.update(endpoint["id"], {"disabled": False})
    print(json.dumps({"endpoint": endpoint.get("id"), "sessions": made}))
    grader.write()


if __name__ == "__main__":
    main()
