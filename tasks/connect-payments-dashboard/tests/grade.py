"""connect-payments-dashboard grader.

In real Chromium, against the restarted platform: two fresh quickstart sign-ups (two
groomers, two connected accounts seeded by the app's own code), then each groomer's
Payments page. The page must get an Account Session's client secret from the app's own
server, for that groomer's account only, with the payments component on, dispute
management on and refund management off; the component must show every seeded payment
with its customer's email and status, the Disputes view with the disputed amount, and a
payment's details drawer with no refund control and a dispute control for the disputed
payment. The session's components and features are read from the Connect component API
the iframe itself uses (what Stripe's servers would enforce), the expected payments from
the Stripe API on the connected account.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
import urllib.error
import urllib.request
from typing import Any

PLATFORM = os.environ.get("PLATFORM_URL", "http://127.0.0.1:4242")
FRAME = "iframe[data-testid='stripe-connect-ui-layer-stripe-connect-payments']"
BUDGET = 100.0  # seconds for the whole browser part: the platform is the agent's code


API_BASE = os.environ.get("STRIPE_API_BASE", "https://api.stripe.com").rstrip("/")
# Outside the trial sandbox (the task's own tests) Stripe's hosts are plain paths on the
# emulator; inside it they resolve to the emulator and nothing needs rewriting.
ROUTED = API_BASE == "https://api.stripe.com"
CONNECT_JS = re.compile(r"^https://connect-js\.stripe\.com")


def reach(url: str) -> str:
    return url if ROUTED else CONNECT_JS.sub(f"{API_BASE}/connect-js.stripe.com", url)


def http(url: str, cookie: str | None = None, method: str = "GET",
         body: bytes | None = None, content_type: str | None = None) -> tuple[int, str]:
    headers = {"Cookie": cookie} if cookie else {}
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(reach(url), data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=8) as response:
            return response.status, response.read(200_000).decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(200_000).decode("utf-8", "replace")
    except OSError:
        return 0, ""


def http_get(url: str, cookie: str | None = None) -> tuple[int, str]:
    return http(url, cookie)


def db_account(email: str) -> str:
    """The groomer's connected account as the platform recorded it (platform.db's
    groomers.stripe_account_id, which the instruction names)."""
    from stripebench.grading import workdir

    path = workdir() / "platform.db"
    if not path.is_file() or path.stat().st_size > 50_000_000:
        raise ValueError("no usable platform.db")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        row = conn.execute("SELECT stripe_account_id FROM groomers WHERE lower(email) = ?",
                           (email.lower(),)).fetchone()
    finally:
        conn.close()
    if row is None or not str(row[0]).startswith("acct_"):
        raise ValueError(f"platform.db has no connected account for {email}")
    return str(row[0])


def expected_payments(client: Any, account: str) -> list[dict[str, Any]]:
    charges = client.v1.charges.list({"limit": 100}, {"stripe_account": account})
    return [c.to_dict() for c in charges.data]


class Visit:
    """One groomer's sign-up and Payments page, and everything seen on the way."""

    def __init__(self, browser: Any, email: str, deadline: float) -> None:
        self.email = email
        self.deadline = deadline
        self.context = browser.new_context(viewport={"width": 1280, "height": 1000})
        if not ROUTED:
            self.context.route(CONNECT_JS, lambda route: route.fulfill(
                response=route.fetch(url=reach(route.request.url))))
        self.page = self.context.new_page()
        self.secret_responses: list[dict[str, Any]] = []
        self.page.on("response", self._watch)
        self.account = ""
        self.session: dict[str, Any] = {}

    def ms(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"the platform used up the grader's {BUDGET:g} s")
        return min(20_000.0, left * 1000)

    def _watch(self, response: Any) -> None:
        if not response.url.startswith(PLATFORM):
            return
        try:
            body = response.text()
        except Exception:  # noqa: BLE001 - redirects and aborted requests have no body
            return
        found = re.search(r"accs_[A-Za-z0-9]+_secret_[A-Za-z0-9]+", body or "")
        if found:
            request = response.request
            self.secret_responses.append({
                "url": response.url, "method": request.method, "secret": found.group(0),
                "body": request.post_data_buffer,
                "content_type": request.headers.get("content-type")})

    def sign_up(self) -> None:
        page = self.page
        page.set_default_timeout(self.ms())
        page.goto(PLATFORM + "/")
        page.get_by_label("Business name").fill(f"Groomer {self.email.split('@')[0]}")
        page.get_by_label("Email").fill(self.email)
        page.get_by_role("button", name="Create my account").click()
        page.wait_for_url(re.compile(r".*/dashboard"), timeout=self.ms())
        self.account = db_account(self.email)

    def cookie(self) -> str:
        return "; ".join(f"{c['name']}={c['value']}" for c in self.context.cookies(PLATFORM))

    def open_payments(self) -> Any:
        self.page.goto(PLATFORM + "/payments", timeout=self.ms())
        self.navigation = navigation(self.page)
        self.page.wait_for_selector(FRAME, timeout=self.ms())
        frame = self.page.frame_locator(FRAME)
        frame.get_by_test_id("payment-row").first.wait_for(timeout=self.ms())
        token = self.page.locator(FRAME).evaluate(
            "f => JSON.parse(decodeURIComponent(new URL(f.src).hash.slice(1))).token")
        api = self.page.locator(FRAME).evaluate(
            "f => new URL('../api/', new URL(f.src)).href")
        status, body = http_get(f"{api}{token}/session")
        if status != 200:
            raise ValueError(f"the component's session could not be read (HTTP {status})")
        self.session = json.loads(body)
        self.api = api
        return frame


def navigation(page: Any) -> bool:
    """The Payments page keeps the platform's header and its navigation: the brand, Home,
    Payments and Log out."""
    header = page.locator("header")
    return bool(header.count() and header.first.get_by_role(
        "link", name="Pawsome Pros").count() and all(
        header.first.get_by_role("link", name=name).count() for name in ("Home", "Payments"))
        and header.first.get_by_role("button", name="Log out").count())


def replayed_accounts(visits: list[Visit]) -> list[str]:
    """What the second groomer's secret request gives when sent again, exactly as it
    was, by nobody (no cookie) and by the first groomer (their cookie): the accounts of
    any Account Session it hands out, other than the asker's own."""
    leaks = []
    first, second = visits
    request = second.secret_responses[-1]
    for asker, cookie in ((None, None), (first.account, first.cookie())):
        status, body = http(request["url"], cookie, request["method"], request["body"],
                            request["content_type"])
        found = re.search(r"accs_[A-Za-z0-9]+_secret_[A-Za-z0-9]+", body)
        if not found:
            continue
        status, claimed = http(second.api + "claim", method="POST",
                               content_type="application/json", body=json.dumps(
                                   {"client_secret": found.group(0)}).encode())
        account = json.loads(claimed).get("account") if status == 200 else "unknown"
        if account != asker:
            leaks.append(f"{'nobody' if asker is None else 'the first groomer'} got an "
                         f"Account Session for {account}")
    return leaks


def no_leaks(leaks: list[str]) -> bool:
    if leaks:
        raise ValueError("; ".join(leaks))
    return True


def payments_checks(frame: Any, visit: Visit, expected: list[dict[str, Any]]) -> dict[str, Any]:
    """What the Payments component shows the groomer, compared with the account's charges."""
    seen: dict[str, Any] = {}
    rows = frame.get_by_test_id("payment-row")
    seen["rows"] = rows.count()
    seen["emails"] = sorted(frame.get_by_test_id("customer-email").all_inner_texts())
    seen["statuses"] = sorted(frame.get_by_test_id("payment-status").all_inner_texts())
    frame.get_by_role("tab", name="Disputes").click(timeout=visit.ms())
    frame.get_by_test_id("disputed-amount").first.wait_for(timeout=visit.ms())
    seen["disputed"] = frame.get_by_test_id("disputed-amount").all_inner_texts()
    frame.get_by_role("tab", name="All").click(timeout=visit.ms())
    succeeded = next(c for c in expected if not c["refunded"] and not c["disputed"])
    amount = f"${succeeded['amount'] / 100:,.2f}"
    frame.get_by_role("button", name=f"View details of {amount} payment").first.click(
        timeout=visit.ms())
    drawer = frame.get_by_role("dialog", name="Payment details")
    drawer.wait_for(timeout=visit.ms())
    seen["drawer"] = True
    seen["refund_buttons"] = drawer.get_by_role("button", name=re.compile("refund", re.I)).count()
    drawer.get_by_role("button", name="Close").click(timeout=visit.ms())
    disputed = next(c for c in expected if c["disputed"])
    amount = f"${disputed['amount'] / 100:,.2f}"
    frame.get_by_role("button", name=f"View details of {amount} payment").first.click(
        timeout=visit.ms())
    drawer = frame.get_by_role("dialog", name="Payment details")
    drawer.wait_for(timeout=visit.ms())
    seen["dispute_buttons"] = drawer.get_by_role(
        "button", name=re.compile("accept dispute|counter dispute", re.I)).count()
    return seen


def pages_work(visits: list[Visit], dashboards: list[tuple[int, str]]) -> bool:
    """Each groomer's dashboard answers 200 and shows their connected account."""
    if len(dashboards) != len(visits) or not all(
            status == 200 and v.account in body
            for v, (status, body) in zip(visits, dashboards, strict=True)):
        raise ValueError(f"dashboards answered {[status for status, _ in dashboards]}")
    return True


def main() -> None:
    from playwright.sync_api import sync_playwright

    from stripebench.grading import Grader, stripe_client

    grader = Grader()
    client = stripe_client()
    deadline = time.monotonic() + BUDGET
    visits: list[Visit] = []
    seen: dict[str, Any] = {}
    expected: list[dict[str, Any]] = []
    leaks: list[str] = []
    dashboards: list[tuple[int, str]] = []

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            def run() -> bool:
                stamp = str(int(time.time() * 1000))[-8:]
                for n in (1, 2):
                    visit = Visit(browser, f"groomer{n}.{stamp}@example.com", deadline)
                    visits.append(visit)
                    visit.sign_up()
                    frame = visit.open_payments()
                    if n == 2:
                        expected.extend(expected_payments(client, visit.account))
                        seen.update(payments_checks(frame, visit, expected))
                # The first groomer comes back after the second signed up.
                visits[0].open_payments()
                return True

            grader.gate("signed_up_and_rendered", run)
            if len(visits) == 2 and visits[1].secret_responses and visits[1].session:
                try:
                    leaks.extend(replayed_accounts(visits))
                except Exception as exc:  # noqa: BLE001 - the agent's answers, whatever they are
                    leaks.append(f"the replay failed: {exc}")
                dashboards.extend(http(PLATFORM + "/dashboard", v.cookie()) for v in visits)
        finally:
            browser.close()

    rendered = len(visits) == 2 and bool(visits[1].session)
    session = visits[1].session if rendered else {}
    components = session.get("components") or {}
    payments = components.get("payments") or {}
    features = payments.get("features") or {}
    grader.check("session_from_server", 2, lambda: rendered and all(
        v.secret_responses and v.secret_responses[-1]["url"].startswith(PLATFORM)
        for v in visits))
    grader.check("payments_enabled", 1, lambda: rendered and payments.get("enabled") is True)
    grader.check("dispute_management_on", 2,
                 lambda: rendered and features.get("dispute_management") is True)
    grader.check("refund_management_off", 2,
                 lambda: rendered and features.get("refund_management") is False)
    grader.check("session_account", 2, lambda: rendered and all(
        v.session.get("account") == v.account for v in visits)
        and visits[0].account != visits[1].account)
    grader.check("own_account_only", 2, lambda: rendered and no_leaks(leaks))
    grader.check("payments_page_navigation", 1,
                 lambda: rendered and all(v.navigation for v in visits))
    grader.check("component_renders", 2, rendered)
    grader.check("every_payment", 1, lambda: rendered and seen["rows"] == len(expected) > 0)
    emails = sorted((c.get("receipt_email") or "") for c in expected)
    grader.check("customer_emails", 1, lambda: rendered and seen["emails"] == emails)
    grader.check("statuses", 1, lambda: rendered and {"Succeeded", "Refunded", "Disputed"}
                 <= set(seen["statuses"]))
    disputed_amounts = [f"${c['amount'] / 100:,.2f}" for c in expected if c["disputed"]]
    grader.check("disputes_view", 1, lambda: rendered and seen["disputed"] == disputed_amounts)
    grader.check("details_drawer", 1, lambda: rendered and seen.get("drawer") is True)
    grader.check("no_refund_control", 2,
                 lambda: rendered and seen.get("drawer") and seen["refund_buttons"] == 0)
    grader.check("dispute_control", 1,
                 lambda: rendered and seen.get("dispute_buttons", 0) > 0)
    grader.check("pages_still_work", 1, lambda: rendered and pages_work(visits, dashboards)
                 and http_get(PLATFORM + "/")[0] == 200
                 and "Quickstart" in http_get(PLATFORM + "/")[1])
    print(json.dumps({"accounts": [v.account for v in visits], "seen": seen,
                      "session": session, "leaks": leaks}, default=str))
    grader.write()


if __name__ == "__main__":
    main()
