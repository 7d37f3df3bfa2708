"""card-element-to-checkout grader.

First the restarted shop, in Chromium, as a customer uses it: fill two carts with the
index page's buttons (the one beside each product's name, whatever it says), open
/checkout with a stand-in Stripe.js that records the client secret the shop hands
initEmbeddedCheckout, and read those sessions (embedded, payment mode, the cart at the
lookup keys' Prices, promotion codes, US/CA/GB, $6.00 shipping), the fields /checkout and
/cart still show, and POST /pay. Then the Checkout Session id the agent submitted: made
by the shop (its settings), paid, every product, TRAIL10, shipping, adjustable
quantities; and shop.db: one order for it however often its return page is opened, none
for the probe's unpaid sessions. No usable session id: the total is 0. The requirement
each check proves is in requirements.toml beside this file.
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
PRODUCT_IDS = ("prod_camp_mug", "prod_map_poster", "prod_wool_beanie")
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


def every_product(items: list[dict[str, Any]]) -> bool:
    """At least one of each product was bought (whatever Price sold it: which Price the
    shop uses is checked on its own sessions)."""
    bought = {str(i["price"]["product"]): i["quantity"] for i in items}
    return all(bought.get(product, 0) >= 1 for product in PRODUCT_IDS)


def promotion_codes(session: dict[str, Any]) -> list[str]:
    """The promotion codes the customer entered in Checkout that took money off."""
    if not (session["total_details"] or {}).get("amount_discount", 0) > 0:
        return []
    return [str((d.get("promotion_code") or {}).get("code"))
            for d in session.get("discounts") or [] if isinstance(d.get("promotion_code"), dict)]


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


def add_button(page: Any, name: str) -> Any:
    """The button that adds `name` to the cart, found as a customer finds it: the button
    beside the product's name (in the nearest element around the name that holds one),
    whatever the button says or is called."""
    named = page.get_by_text(name).first
    around = named.locator("xpath=ancestor-or-self::*[self::button or .//button"
                           " or .//input[@type='submit']][1]")
    if around.evaluate("e => e.tagName") == "BUTTON":
        return around
    buttons = around.locator("button, input[type=submit]")
    if buttons.count() > 1:
        buttons = buttons.filter(has_text=re.compile(r"add|cart|buy", re.I))
    return buttons.first


# What the shop's own discount and shipping forms asked for, by field name, id, label or
# placeholder: none of it may be left on /checkout or /cart (Checkout asks for it now).
OWN_FORM_FIELDS = re.compile(r"discount|promo|coupon|voucher|address|line1|postal|zip|city",
                             re.I)


def own_forms(page: Any) -> list[str]:
    """The page's own (not Stripe's iframe's) fields that ask for a discount code or a
    shipping address."""
    found: list[str] = page.evaluate("""(pattern) => {
      const re = new RegExp(pattern, "i");
      return [...document.querySelectorAll("input, select, textarea")]
        .filter((f) => f.type !== "hidden")
        .map((f) => [f.name, f.id, f.placeholder, f.getAttribute("aria-label"),
                     ...[...(f.labels || [])].map((l) => l.innerText)].join(" "))
        .filter((text) => re.test(text));
    }""", OWN_FORM_FIELDS.pattern)
    return found


def shop_session_secrets(forms: list[list[str]], mounted_card: list[bool]) -> list[str]:
    """For each probe cart, in a fresh browser context: fill the restarted shop's cart
    with the index page's add buttons, open /checkout and take the client secret the
    shop's code gives initEmbeddedCheckout (and, into `forms`, the discount and shipping
    fields /checkout and /cart still show)."""
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
                        add_button(page, name).click()
                        page.wait_for_load_state("networkidle")
                page.set_default_timeout(budget_ms())
                page.goto(SHOP + "/checkout")
                page.wait_for_function("window.__gradedClientSecret !== undefined"
                                       " || window.__gradedCardElement === true",
                                       timeout=budget_ms())
                secret = page.evaluate("window.__gradedClientSecret")
                mounted_card.append(bool(page.evaluate("window.__gradedCardElement === true")))
                forms.append(own_forms(page))
                page.set_default_timeout(budget_ms())
                page.goto(SHOP + "/cart")
                forms.append(own_forms(page))
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


def carts_ok(items: list[dict[str, Any]], prices: dict[str, dict[str, Any]],
             other_items: list[dict[str, Any]]) -> bool:
    """The shop's sessions sell their probe carts at the Prices the lookup keys name:
    one of each product, then two mugs."""
    def cart(found: list[dict[str, Any]]) -> list[tuple[str, int]]:
        return sorted((i["price"]["id"], i["quantity"]) for i in found)

    return (len(prices) == 3 and cart(items) == sorted((p["id"], 1) for p in prices.values())
            and cart(other_items) == [(prices[LOOKUP_KEYS[0]]["id"], 2)])


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


def order_rows(workdir: Path, reference: str) -> int:
    conn = sqlite3.connect(f"file:{regular_file(workdir / 'shop.db', 200_000_000)}?mode=ro",
                           uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM orders WHERE stripe_reference = ?",
                                (reference,)).fetchone()[0])
    finally:
        conn.close()


def return_path(session: dict[str, Any], session_id: str) -> str | None:
    """Where Checkout sends the customer back for `session_id`, on the restarted shop
    (the session's return URL names the port the shop had when it was made)."""
    url = session.get("return_url") or session.get("success_url") or ""
    if "{CHECKOUT_SESSION_ID}" not in url:
        return None
    parts = urllib.parse.urlsplit(url.replace("{CHECKOUT_SESSION_ID}", session_id))
    return parts.path + ("?" + parts.query if parts.query else "")


def order_recorded(workdir: Path, session: dict[str, Any], shop: dict[str, Any],
                   open_ids: list[str]) -> float:
    """The paid session is one order, however often its return page is opened again;
    coming back with a session that was never paid (the probe's) records nothing."""
    for session_id in [session["id"], session["id"], *open_ids]:
        path = return_path(shop, session_id)
        if path is not None:
            get(path)
    parts = [order_rows(workdir, session["id"]) == 1,
             all(order_rows(workdir, i) == 0 for i in open_ids)]
    return sum(parts) / len(parts)


def card_element_removed(workdir: Path, mounted_card: bool) -> bool:
    """No Card Element in the shop's code (not hidden folders, where the harness puts
    this grader, virtualenvs or node_modules), and none mounted on the probe's pages."""
    code = "\n".join(p.read_text(errors="replace") for p in workdir.rglob("*")
                     if p.suffix in (".py", ".js", ".html") and p.is_file()
                     and p.stat().st_size < 2_000_000
                     and not any(part.startswith(".") or part in ("node_modules", "venv")
                                 for part in p.relative_to(workdir).parts))
    return not mounted_card and not re.search(r"""\.create\(\s*['"]card['"]""", code)


def forms_removed(forms: list[list[str]]) -> bool:
    """/checkout and /cart (both probe carts) ask for no discount code or address."""
    found = sorted({field for page_fields in forms for field in page_fields})
    if len(forms) != 4 or found:
        raise ValueError(f"the shop's own forms still ask for: {found}")
    return True


def post(path: str) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(
                SHOP + path, data=b"{}", method="POST",
                headers={"Content-Type": "application/json"}), timeout=8) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:
        return 0


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

    forms: list[list[str]] = []
    probed: list[str] = []
    mounted_card: list[bool] = []

    def probe() -> bool:
        ids = [secret.split("_secret_")[0] for secret in shop_session_secrets(forms,
                                                                            mounted_card)]
        fresh_sessions(ids)
        probed.extend(ids)
        shop.update(client.v1.checkout.sessions.retrieve(ids[0]).to_dict())
        shop["_items"] = line_items(ids[0])
        shop["_other_items"] = line_items(ids[1])
        return True

    # The integration: what the restarted shop's /checkout creates for a full cart.
    made = grader.check("shop_creates_session", 2, probe)
    grader.check("embedded_ui_mode", 1, lambda: made and shop.get("ui_mode")
                 in ("embedded", "embedded_page"))
    grader.check("payment_mode", 1, lambda: made and shop.get("mode") == "payment")
    grader.check("line_items_from_prices", 2, lambda: made and carts_ok(
        shop["_items"], prices, shop["_other_items"]))
    # What Stripe handles now: on the shop's sessions, and in the purchase.
    grader.check("promotion_codes_allowed", 1,
                 lambda: made and bool(shop.get("allow_promotion_codes")))
    grader.check("shipping_countries", 1,
                 lambda: made and set(settings(shop)["countries"]) == SHIPPING_COUNTRIES)
    grader.check("shipping_rate", 1,
                 lambda: made and FLAT_SHIPPING in settings(shop)["shipping_options"])
    # The purchase counts only through a session the shop makes.
    same = bool(made) and settings(session) == settings(shop)
    if made and not same:
        print(json.dumps({"submitted_settings": settings(session),
                          "shop_settings": settings(shop)}))
    grader.check("submitted_from_shop", 1, same)
    grader.check("paid", 2, lambda: same and session.get("status") == "complete"
                 and session.get("payment_status") == "paid")
    grader.check("every_product", 2, lambda: same and every_product(items))
    grader.check("trail10_applied", 1, lambda: same and "TRAIL10" in promotion_codes(session))
    grader.check("promotion_code", 1, lambda: same and any(
        code in PROMOTION_CODES for code in promotion_codes(session)))
    grader.check("shipping", 1, lambda: same and shipping_ok(session))
    grader.check("adjustable_quantities", 1, lambda: same and adjustable(session["id"]))
    grader.check("order_recorded", 2,
                 lambda: order_recorded(work, session, shop, probed) if same else 0)
    # Taking the old checkout out counts once embedded Checkout took its place.
    grader.check("card_element_removed", 1,
                 lambda: made and card_element_removed(work, any(mounted_card)))
    grader.check("pay_endpoint_removed", 1, lambda: made and post("/pay") in (404, 405))
    grader.check("own_forms_removed", 1, lambda: made and forms_removed(forms))
    grader.check("app_pages", 1, app_pages)
    print(json.dumps({"session": session["id"], "line_items": len(items),
                      "shop_session": shop.get("id")}))
    grader.write()


if __name__ == "__main__":
    main()
