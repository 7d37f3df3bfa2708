"""Every browser snippet of the guides (HTML, JSX, and JavaScript marked `runtime=browser`)
runs as written in real Chromium against the emulator (issue 28).

One tab per guide. Each snippet gets a fresh load of the guide's shop page
(https://shop.test/, answered by the test): an HTML snippet is the page's body after a
small scaffold (a form, mount points); a JavaScript or JSX snippet is bundled by the
project's esbuild (imports resolved from node_modules, JSX through react-dom) and run as
a module on the scaffold page. Requests to Stripe's hosts (js.stripe.com, api.stripe.com,
checkout.stripe.com, connect-js.stripe.com...) are routed to the emulator, so the
snippets load Stripe.js and Connect.js from the URLs they name; the emulator's scripts,
loaded from https://js.stripe.com, call https://api.stripe.com, routed the same way.

What the test supplies: the placeholder key `pk_test_...` is the account's publishable
key; names a snippet uses without declaring (`stripe`, `clientSecret`, `form`,
`showMessage`, `return_url`, `fetchClientSecret`, `stripePromise`) are declared before
it (GIVEN below); a JSX element written as a statement is rendered into `#root`. The shop
answers `POST /create-session` (an embedded Checkout Session) and `POST /account_session`
(a Connect account session) as the guides' servers do. Then each snippet's effect is
checked: the iframe it mounts, the payment it confirms, the session it claims.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import stripe

from conftest import RunningEmulator
from connect_helpers import custom_account
from paths import REPO
from stripebench.docs import guide_check, guide_pages

SHOP = "https://shop.test"
RETURN = "https://example.com/complete"
STRIPE_HOST = re.compile(r"^https://([a-z0-9-]+\.)*stripe\.com/")
ESBUILD = REPO / "node_modules/.bin/esbuild"
PLACEHOLDER_KEY = "pk_test_..."


def browser_snippets() -> list[guide_check.Snippet]:
    """The snippets this module runs: HTML, JSX and browser JavaScript, unless skipped."""
    out = []
    for path in guide_pages.guide_files():
        for s in guide_check.snippets(guide_check.load(path)):
            browser = s.lang in ("html", "jsx") or (
                s.lang == "js" and s.marker.get("runtime") == "browser")
            if browser and "skip" not in s.marker:
                out.append(s)
    return out


SNIPPETS = browser_snippets()
GUIDES = sorted({s.guide for s in SNIPPETS})

SCAFFOLD = """<!doctype html><html><head><meta charset="utf-8"><title>{title}</title>
<script>window.__ran = {{}}; window.__errors = {{}};</script></head><body>
<h1>Shop</h1>
<form id="payment-form"><div id="payment-element"></div><div id="card"></div>
<button type="submit">Pay</button></form>
<p id="message"></p><div id="payments"></div><div id="root"></div>
{body}
</body></html>"""

# Names a snippet may use without declaring them: their JavaScript definition. `pk` and
# `clientSecret` come from window.__shop, set by the test before the snippet runs.
GIVEN = {
    "stripe": "await __loadStripe(window.__shop.pk)",
    "stripePromise": "__loadStripe(window.__shop.pk)",
    "clientSecret": "window.__shop.clientSecret",
    "return_url": json.dumps(RETURN),
    "form": "document.getElementById('payment-form')",
    "showMessage": "(m) => { document.getElementById('message').textContent = m; }",
    "fetchClientSecret": ("async () => (await fetch('/create-session', {method: 'POST'})"
                          ".then((r) => r.json())).clientSecret"),
}


def _jsx_statements(lines: list[str]) -> list[str]:
    """A JSX element written as a statement (a line starting with `<Tag`) is rendered."""
    out, i = [], 0
    while i < len(lines):
        start = re.match(r"<([A-Z]\w*)", lines[i])
        if not start:
            out.append(lines[i])
            i += 1
            continue
        tag, j = start.group(1), i
        if f"</{tag}>" not in lines[i] and not lines[i].rstrip().endswith("/>"):
            while not lines[j].startswith(f"</{tag}>"):
                j += 1
        block = "\n".join(lines[i:j + 1]).rstrip().rstrip(";")
        out.append(f"__render({block});")
        i = j + 1
    return out


def module_source(snippet: guide_check.Snippet) -> str:
    """The module that runs one snippet: its imports first, the given names, then the
    snippet in a block of its own (so it may redeclare a given name), errors recorded."""
    code = snippet.code.replace(f"'{PLACEHOLDER_KEY}'", "window.__shop.pk")
    lines = code.splitlines()
    imports = [line for line in lines if line.startswith("import ")]
    body = [line for line in lines if not line.startswith("import ")]
    if snippet.lang == "jsx":
        body = _jsx_statements(body)
    text = "\n".join(body)
    used = [n for n in GIVEN if re.search(rf"(?<![\w.']){n}\b", text)]
    head = ["import {loadStripe as __loadStripe} from '@stripe/stripe-js';"]
    if snippet.lang == "jsx":
        head.append("import {createRoot as __createRoot} from 'react-dom/client';")
        head.append("const __render = (el) => "
                    "__createRoot(document.getElementById('root')).render(el);")
    declared = [f"let {n} = {GIVEN[n]};" for n in used]
    sid = json.dumps(snippet.id)
    return "\n".join([*imports, *head, "try {", *declared, "{", text, "}",
                      f"window.__ran[{sid}] = true;",
                      f"}} catch (err) {{ window.__errors[{sid}] = String(err && err.stack"
                      " || err); }", ""])


def bundle(snippet: guide_check.Snippet) -> str:
    """esbuild from node_modules, the source on stdin (resolved from the repository)."""
    run = subprocess.run(
        [str(ESBUILD), "--bundle", "--format=esm", "--loader=jsx", "--jsx=automatic",
         "--target=es2022", "--define:process.env.NODE_ENV=\"production\"",
         "--log-level=warning", f"--sourcefile={snippet.id}"],
        input=module_source(snippet), capture_output=True, text=True, cwd=REPO, timeout=90)
    assert run.returncode == 0, f"{snippet.id} does not build:\n{run.stderr[-3000:]}"
    return run.stdout


def html_source(snippet: guide_check.Snippet) -> str:
    return snippet.code.replace(PLACEHOLDER_KEY, "__PK__")


class Shop:
    """The guide's merchant server and Stripe's hosts, for one tab."""

    def __init__(self, emulator: RunningEmulator, account: dict[str, str],
                 client: stripe.StripeClient) -> None:
        self.emulator, self.account, self.client = emulator, account, client
        self.body = ""
        self.sessions: list[str] = []
        self.account_secrets: list[str] = []
        self.stripe_calls: list[tuple[str, int]] = []  # (host + path, status)
        self.connected = custom_account(client).id

    def route(self, route: Any) -> None:
        url = urlsplit(route.request.url)
        if route.request.url.startswith(self.emulator.base + "/"):
            route.continue_()  # the emulator's own pages link assets by its address
        elif STRIPE_HOST.match(route.request.url):
            path = url.path + (f"?{url.query}" if url.query else "")
            host = "" if url.hostname == "api.stripe.com" else f"/{url.hostname}"
            response = route.fetch(url=f"{self.emulator.base}{host}{path}")
            self.stripe_calls.append((f"{url.hostname}{url.path}", response.status))
            route.fulfill(response=response)
        elif route.request.url.startswith(SHOP) and url.path == "/create-session":
            session = self.client.v1.checkout.sessions.create(params={
                "mode": "payment", "ui_mode": "embedded_page",
                "return_url": RETURN + "?session_id={CHECKOUT_SESSION_ID}",
                "line_items": [{"quantity": 1, "price_data": {
                    "currency": "usd", "unit_amount": 1500,
                    "product_data": {"name": "Guide tee"}}}]})
            self.sessions.append(session.id)
            route.fulfill(json={"clientSecret": session.client_secret})
        elif route.request.url.startswith(SHOP) and url.path == "/account_session":
            session = self.client.v1.account_sessions.create(params={
                "account": self.connected, "components": {"payments": {"enabled": True}}})
            self.account_secrets.append(session.client_secret)
            route.fulfill(json={"client_secret": session.client_secret})
        elif route.request.url.startswith(SHOP):
            route.fulfill(content_type="text/html; charset=utf-8", body=self.body)
        else:  # the return page and any other site: a stub
            route.fulfill(content_type="text/html", body="<h1 id='away'>Elsewhere</h1>")


@pytest.fixture(scope="module")
def tabs(browser: Any, emulator: RunningEmulator) -> Iterator[dict[str, tuple[Any, Shop]]]:
    """One tab (and one account) per guide, opened when the guide's first snippet runs."""
    contexts = []

    class Tabs(dict[str, tuple[Any, Shop]]):
        def __missing__(self, guide: str) -> tuple[Any, Shop]:
            account = emulator.new_account()
            client = stripe.StripeClient(account["secret_key"], base_addresses={
                "api": emulator.base, "files": emulator.base, "meter_events": emulator.base})
            shop = Shop(emulator, account, client)
            context = browser.new_context(viewport={"width": 1200, "height": 1000})
            context.set_default_timeout(15_000)
            context.route("**/*", shop.route)
            contexts.append(context)
            page = context.new_page()
            page.errors = []
            page.on("pageerror", lambda exc: page.errors.append(str(exc)))
            self[guide] = (page, shop)
            return page, shop

    yield Tabs()
    for context in contexts:
        context.close()


def _open(page: Any, shop: Shop, snippet: guide_check.Snippet, secret: str = "") -> None:
    """A fresh load of the shop page: the HTML snippet as its body, or the scaffold alone
    and then the bundled JavaScript/JSX snippet as a module."""
    pk = shop.account["publishable_key"]
    html = html_source(snippet).replace("__PK__", pk) if snippet.lang == "html" else ""
    shop.body = SCAFFOLD.format(title=snippet.id, body=html)
    page.errors.clear()
    page.goto(f"{SHOP}/{snippet.guide}")
    page.evaluate("([pk, secret]) => { window.__shop = {pk, clientSecret: secret}; }",
                  [pk, secret])
    if snippet.lang != "html":
        page.add_script_tag(content=bundle(snippet), type="module")
        page.wait_for_function(f"window.__ran[{json.dumps(snippet.id)}] || "
                               f"window.__errors[{json.dumps(snippet.id)}]")
        error = page.evaluate(f"window.__errors[{json.dumps(snippet.id)}]")
        assert not error, f"{snippet.id} threw: {error}"


def _fill_card(frame: Any, zip_label: str) -> None:
    frame.get_by_label("Card number").fill("4242424242424242")
    frame.get_by_label("Expiration date").fill("12 / 34")
    frame.get_by_label("Security code").fill("123")
    frame.get_by_label(zip_label).fill("94107")


def _check_effect(page: Any, shop: Shop, snippet: guide_check.Snippet, intent: str) -> str:
    """What the snippet did, checked; returns the name of the check."""
    code = snippet.code
    if "createEmbeddedCheckoutPage" in code or "EmbeddedCheckout" in code:
        frame = page.frame_locator("iframe[name=embedded-checkout]")
        frame.get_by_label("Email").wait_for()
        assert shop.sessions, "the page did not fetch a client secret"
        return "embedded checkout mounted"
    if "connect.create(" in code:
        page.locator("#payments iframe").first.wait_for(state="attached")
        claimed = ("connect-js.stripe.com/v1.0/api/claim", 200)
        for _ in range(100):
            if claimed in shop.stripe_calls:
                break
            page.wait_for_timeout(100)
        assert shop.account_secrets, "Connect.js did not fetch a client secret"
        assert claimed in shop.stripe_calls, shop.stripe_calls
        again = httpx.post(f"{shop.emulator.base}/connect-js.stripe.com/v1.0/api/claim",
                           json={"client_secret": shop.account_secrets[-1]})
        assert again.status_code == 401, "the session was not claimed by the component"
        return "payments component claimed its session"
    if "confirmPayment" in code or "confirmCardPayment" in code:
        selector = "#root iframe" if snippet.lang == "jsx" else (
            "#payment-element iframe" if "'payment'" in code else "#card iframe")
        zip_label = "ZIP" if "'card'" in code else "ZIP code"
        _fill_card(page.frame_locator(selector).first, zip_label)
        scope = page.locator("#root" if snippet.lang == "jsx" else "#payment-form")
        scope.get_by_role("button", name="Pay").click()
        if "return_url" in code:
            page.wait_for_url(f"{RETURN}?**")
            assert "redirect_status=succeeded" in page.url
        else:
            page.locator("#message").get_by_text("succeeded").wait_for()
        done = shop.client.v1.payment_intents.retrieve(intent)
        assert done.status == "succeeded", done.status
        return "payment confirmed"
    if "Stripe(" in code or "loadStripe(" in code:
        version = page.evaluate("window.Stripe && window.Stripe.version")
        assert version == "endive", version
        if snippet.lang == "html":
            assert page.evaluate("typeof stripe.elements") == "function"
        return "Stripe.js endive loaded"
    raise AssertionError(f"{snippet.id}: no effect check for this snippet; add one")


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.id)
def test_browser_snippet_runs(snippet: guide_check.Snippet,
                              tabs: dict[str, tuple[Any, Shop]]) -> None:
    page, shop = tabs[snippet.guide]
    intent = shop.client.v1.payment_intents.create(params={
        "amount": 1500, "currency": "usd", "automatic_payment_methods": {"enabled": True}})
    _open(page, shop, snippet, intent.client_secret or "")
    try:
        _check_effect(page, shop, snippet, intent.id)
    except Exception as exc:
        raise AssertionError(f"{snippet.id}: {exc}; errors in the page: {page.errors}") from exc
    assert not page.errors, f"{snippet.id}: errors in the page: {page.errors}"
