"""card-element-to-checkout grader.

Reads the Checkout Session id the agent submitted and checks, through the API with the
trial account's key, that it is an embedded, paid, payment-mode session selling every
product at the catalog's prices with a promotion code applied through
`discounts[].promotion_code` and shipping collected and charged; then that the shop
(restarted from the agent's code) still serves its pages, recorded the order in SQLite
and no longer carries the Card Element. No usable session id: the total is 0.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

SHOP = os.environ.get("SHOP_URL", "http://127.0.0.1:4242")
LOOKUP_KEYS = ("camp_mug", "map_poster", "wool_beanie")
PRODUCT_NAMES = ("Enamel Camp Mug", "Trail Map Poster", "Wool Beanie")
PROMOTION_CODES = ("TRAIL10", "WELCOME5")
SHIPPING_COUNTRIES = {"US", "CA", "GB"}
FLAT_SHIPPING = 600


def regular_file(path: Path, limit: int = 1_000_000) -> Path:
    """The agent's file, if it is a plain file of sane size (a FIFO or a device would
    hang the grader: a grader timeout is a grader_error, left out of every mean)."""
    import stat

    info = path.stat()
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        raise ValueError(f"{path.name} is not a regular file under {limit} bytes")
    return path


def submitted_id(workdir: Path) -> str:
    text = regular_file(workdir / "submission" / "checkout_session_id.txt").read_text().strip()
    found = re.search(r"cs_(test|live)_[A-Za-z0-9]+", text)
    if not found:
        raise ValueError(f"no Checkout Session id in the submission: {text[:80]!r}")
    return found.group(0)


def shipping_details(session: dict[str, Any]) -> dict[str, Any]:
    collected = session.get("collected_information") or {}
    return collected.get("shipping_details") or session.get("shipping_details") or {}


def line_items_ok(items: list[dict[str, Any]], prices: dict[str, dict[str, Any]]) -> bool:
    by_price = {i["price"]["id"]: i for i in items}
    return all(p["id"] in by_price and by_price[p["id"]]["quantity"] >= 1
               for p in prices.values())


def amounts_ok(session: dict[str, Any], items: list[dict[str, Any]]) -> bool:
    for item in items:
        if item["amount_subtotal"] != item["price"]["unit_amount"] * item["quantity"]:
            return False
    details = session["total_details"] or {}
    subtotal = sum(i["amount_subtotal"] for i in items)
    return bool(session["amount_subtotal"] == subtotal and session["amount_total"] == (
        subtotal - details.get("amount_discount", 0) + details.get("amount_shipping", 0)
        + details.get("amount_tax", 0)))


def promotion_ok(session: dict[str, Any]) -> bool:
    codes = [(d.get("promotion_code") or {}).get("code") for d in session.get("discounts") or []
             if isinstance(d.get("promotion_code"), dict)]
    return any(c in PROMOTION_CODES for c in codes) and (
        (session["total_details"] or {}).get("amount_discount", 0) > 0)


def shipping_ok(session: dict[str, Any]) -> bool:
    address = (shipping_details(session).get("address") or {})
    return bool(address.get("country") in SHIPPING_COUNTRIES and address.get("line1")
                and (session["total_details"] or {}).get("amount_shipping") == FLAT_SHIPPING)


def adjustable(session_id: str) -> bool:
    """Every line item's quantity is adjustable (only the account snapshot shows it)."""
    from stripebench.grading import final_snapshot, objects_of

    found = objects_of(final_snapshot(), "checkout.session", lambda o: o["id"] == session_id)
    if not found:
        raise ValueError("the session is not in the final snapshot")
    items = [i for i in found[0].get("_items", []) if not i.get("optional")]
    return bool(items) and all((i.get("adjustable_quantity") or {}).get("enabled")
                               for i in items)


# Stands in for Stripe.js on the shop's /checkout page: records the client secret the
# shop's own code passes to initEmbeddedCheckout (fetchClientSecret or clientSecret).
STRIPE_JS_STUB = """
(function () {
  function record(secret) { window.__gradedClientSecret = secret || null; return secret; }
  async function init(options) {
    options = options || {};
    let secret = options.clientSecret;
    if (!secret && typeof options.fetchClientSecret === "function") {
      secret = await options.fetchClientSecret();
    }
    record(await secret);
    return {mount: function () {}, unmount: function () {}, destroy: function () {}};
  }
  window.Stripe = function () {
    return {initEmbeddedCheckout: init, createEmbeddedCheckoutPage: init,
            elements: function () { window.__gradedCardElement = true;
              return {create: function () { return {mount: function () {},
                on: function () {}}; }}; }};
  };
})();
"""


# The shop is the agent's code: however slow it is, the grader must finish inside its
# own time limit (a grader timeout is a grader_error, which leaves the task out of every
# mean). The probe gets PROBE_BUDGET seconds in all, each page request 8 s.
PROBE_BUDGET = 45.0

# The carts the grader checks out through the shop: one of each product, then two mugs
# only (a shop that hands out a fixed session, or fixed line items, fails the second).
PROBE_CARTS = ([(name, 1) for name in PRODUCT_NAMES], [(PRODUCT_NAMES[0], 2)])


def shop_session_secrets() -> list[str]:
    """For each probe cart, in a fresh browser context: fill the restarted shop's cart
    with the index page's add buttons, open /checkout and take the client secret the
    shop's code gives initEmbeddedCheckout."""
    from playwright.sync_api import sync_playwright

    secrets = []
    deadline = time.monotonic() + PROBE_BUDGET

    def budget_ms() -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"the shop used up the probe's {PROBE_BUDGET:g} s")
        return min(15_000.0, left * 1000)

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            for cart in PROBE_CARTS:
                context = browser.new_context()
                page = context.new_page()
                page.set_default_timeout(15_000)
                page.route(re.compile(r".*js\.stripe\.com.*"), lambda route: route.fulfill(
                    status=200, content_type="application/javascript", body=STRIPE_JS_STUB))
                for name, quantity in cart:
                    for _ in range(quantity):
                        page.set_default_timeout(budget_ms())
                        page.goto(SHOP + "/")
                        page.set_default_timeout(budget_ms())
                        page.get_by_role("button", name=re.compile(
                            rf"add {re.escape(name)}|{re.escape(name)}.*add", re.I)).first.click()
                        page.wait_for_load_state("networkidle")
                page.set_default_timeout(budget_ms())
                page.goto(SHOP + "/checkout")
                page.wait_for_function("window.__gradedClientSecret !== undefined"
                                       " || window.__gradedCardElement === true",
                                       timeout=budget_ms())
                secret = page.evaluate("window.__gradedClientSecret")
                context.close()
                if not isinstance(secret, str) or "_secret_" not in secret:
                    raise ValueError("/checkout gave initEmbeddedCheckout no client secret: "
                                     f"{secret!r}")
                secrets.append(secret)
        finally:
            browser.close()
    return secrets


def fresh_sessions(ids: list[str]) -> bool:
    """The shop made a new session for each probe: none existed when the agent stopped."""
    from stripebench.grading import final_snapshot, objects_of

    earlier = {o["id"] for o in objects_of(final_snapshot(), "checkout.session")}
    if len(set(ids)) != len(ids) or earlier & set(ids):
        raise ValueError("the shop's /checkout handed out a session that existed before "
                         "grading (or the same one twice), not one made for the cart")
    return True


def settings(session: dict[str, Any]) -> dict[str, Any]:
    """What the shop's code decides about a session (not what the customer changes)."""
    url = session.get("return_url") or session.get("success_url") or ""
    return {"ui_mode": session.get("ui_mode"), "mode": session.get("mode"),
            "allow_promotion_codes": bool(session.get("allow_promotion_codes")),
            "countries": sorted((session.get("shipping_address_collection") or {})
                                .get("allowed_countries") or []),
            "shipping_options": sorted(o.get("shipping_amount", 0)
                                       for o in session.get("shipping_options") or []),
            "return_path": urllib.parse.urlsplit(url.split("?")[0]).path}


def shop_setup_ok(session: dict[str, Any], items: list[dict[str, Any]],
                  prices: dict[str, dict[str, Any]], other_items: list[dict[str, Any]]
                  ) -> float:
    """The shop's sessions for the probe carts: each cart's prices and quantities,
    customers may enter promotion codes, shipping address in US/CA/GB, the $6.00
    shipping option."""
    def cart(found: list[dict[str, Any]]) -> list[tuple[str, int]]:
        return sorted((i["price"]["id"], i["quantity"]) for i in found)

    parts = [cart(items) == sorted((p["id"], 1) for p in prices.values())
             and cart(other_items) == [(prices[LOOKUP_KEYS[0]]["id"], 2)],
             bool(session.get("allow_promotion_codes")),
             set(settings(session)["countries"]) == SHIPPING_COUNTRIES,
             FLAT_SHIPPING in settings(session)["shipping_options"]]
    return sum(parts) / len(parts)


def get(path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(SHOP + path, timeout=8) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, ""


def app_pages() -> bool:
    status, body = get("/")
    if status != 200 or not all(name in body for name in PRODUCT_NAMES):
        return False
    return get("/cart")[0] == 200 and get("/checkout")[0] < 500


def order_recorded(workdir: Path, session: dict[str, Any]) -> bool:
    conn = sqlite3.connect(f"file:{regular_file(workdir / 'shop.db', 200_000_000)}?mode=ro",
                           uri=True)
    try:
        refs = {r[0] for r in conn.execute("SELECT stripe_reference FROM orders")}
    finally:
        conn.close()
    return session["id"] in refs


def card_element_removed(workdir: Path) -> bool:
    # The shop's own code only: not hidden folders (the harness puts this grader in
    # .stripebench/), virtualenvs or node_modules.
    code = "\n".join(p.read_text(errors="replace") for p in workdir.rglob("*")
                     if p.suffix in (".py", ".js", ".html") and p.is_file()
                     and p.stat().st_size < 2_000_000
                     and not any(part.startswith(".") or part in ("node_modules", "venv")
                                 for part in p.relative_to(workdir).parts))
    legacy = [r"""elements\.create\(\s*['"]card['"]""", r"PaymentIntent\.create",
              r"confirmation_method", r"""['"]/pay['"]"""]
    return "initEmbeddedCheckout" in code and not any(re.search(p, code) for p in legacy)


def main() -> None:
    from stripebench.grading import Grader, stripe_client, workdir

    work = workdir()
    client = stripe_client()
    grader = Grader()
    session: dict[str, Any] = {}
    shop: dict[str, Any] = {}

    def load() -> bool:
        found = client.v1.checkout.sessions.retrieve(
            submitted_id(work), {"expand": ["discounts.promotion_code"]})
        session.update(found.to_dict())
        return True

    if not grader.gate("submitted_session", load):
        grader.write()
        return

    def line_items(session_id: str) -> list[dict[str, Any]]:
        return [i.to_dict() for i in client.v1.checkout.sessions.line_items.list(
            session_id, {"limit": 100}).auto_paging_iter()]

    items = line_items(session["id"])
    prices = {p.lookup_key: p.to_dict() for p in client.v1.prices.list(
        {"lookup_keys": list(LOOKUP_KEYS), "limit": 10}).data}

    def probe() -> bool:
        ids = [secret.split("_secret_")[0] for secret in shop_session_secrets()]
        fresh_sessions(ids)
        shop.update(client.v1.checkout.sessions.retrieve(ids[0]).to_dict())
        shop["_items"] = line_items(ids[0])
        shop["_other_items"] = line_items(ids[1])
        return True

    # The integration: what the restarted shop's /checkout creates for a full cart.
    made = grader.check("shop_creates_session", 2, probe)
    grader.check("embedded_ui_mode", 1, lambda: made and shop.get("ui_mode")
                 in ("embedded", "embedded_page"))
    grader.check("payment_mode", 1, lambda: made and shop.get("mode") == "payment")
    grader.check("shop_session_setup", 2,
                 lambda: shop_setup_ok(shop, shop["_items"], prices, shop["_other_items"])
                 if made else 0)
    # The purchase counts only through a session the shop makes.
    same = bool(made) and settings(session) == settings(shop)
    if made and not same:
        print(json.dumps({"submitted_settings": settings(session),
                          "shop_settings": settings(shop)}))
    grader.check("submitted_from_shop", 1, same)
    grader.check("paid", 2, lambda: same and session.get("status") == "complete"
                 and session.get("payment_status") == "paid")
    grader.check("every_product", 2, lambda: same and len(prices) == 3
                 and line_items_ok(items, prices))
    grader.check("amounts_consistent", 1, lambda: same and amounts_ok(session, items))
    grader.check("promotion_code", 2, lambda: same and promotion_ok(session))
    grader.check("shipping", 1, lambda: same and shipping_ok(session))
    grader.check("adjustable_quantities", 1, lambda: same and adjustable(session["id"]))
    grader.check("order_recorded", 1, lambda: same and order_recorded(work, session))
    # Taking the Card Element out counts once embedded Checkout took its place.
    grader.check("card_element_removed", 1, lambda: made and card_element_removed(work))
    grader.check("app_pages", 1, app_pages)
    print(json.dumps({"session": session["id"], "line_items": len(items),
                      "shop_session": shop.get("id")}))
    grader.write()


if __name__ == "__main__":
    main()
