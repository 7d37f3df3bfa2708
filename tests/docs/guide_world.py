"""The small fixture guide snippets run against: ids and keys a snippet names but does not
create, made on first use in the guide's own emulator account (one per guide, or per
snippet marked `fresh`). A snippet's `given=name:fixture` says which fixture a name
stands for where the default one does not fit (an open PaymentIntent, a declining card).
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import json
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import stripe

from stripebench.docs.guide_check import Snippet


class World:
    """Fixtures of one account, made lazily and kept."""

    def __init__(self, client: stripe.StripeClient) -> None:
        self.client = client
        self.made: dict[str, Any] = {}
        self.scope: dict[str, Any] = {}  # the snippet namespace (Lazy sets it)

    def get(self, name: str) -> Any:
        if name not in self.made:
            self.made[name] = FACTORIES[name](self)
        return self.made[name]

    # ---- the objects
    def customer(self) -> Any:
        return self.client.v1.customers.create(params={
            "email": "jenny@example.com", "payment_method": "pm_card_visa",
            "invoice_settings": {"default_payment_method": "pm_card_visa"}})

    def product(self) -> Any:
        return self.client.v1.products.create(params={"name": "Guide product"})

    def price(self, amount: int = 1000, interval: str | None = "month") -> Any:
        params: dict[str, Any] = {"product": self.get("product").id, "currency": "usd",
                                  "unit_amount": amount}
        if interval:
            params["recurring"] = {"interval": interval}
        return self.client.v1.prices.create(params=params)  # type: ignore[arg-type]

    def subscription(self) -> Any:
        return self.client.v1.subscriptions.create(params={
            "customer": self.get("customer").id, "items": [{"price": self.get("price_id")}]})

    def paid_intent(self) -> Any:
        return self.client.v1.payment_intents.create(params={
            "amount": 2000, "currency": "usd", "customer": self.get("customer").id,
            "payment_method": "pm_card_visa", "confirm": True,
            "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})

    def open_intent(self) -> Any:
        return self.client.v1.payment_intents.create(params={
            "amount": 2000, "currency": "usd",
            "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})

    def open_invoice(self) -> Any:
        customer = self.get("customer").id
        inv = self.client.v1.invoices.create(params={
            "customer": customer, "collection_method": "send_invoice", "days_until_due": 30})
        self.client.v1.invoice_items.create(params={
            "customer": customer, "invoice": inv.id, "amount": 10000, "currency": "usd"})
        return self.client.v1.invoices.finalize_invoice(inv.id)

    def session(self) -> Any:
        return self.client.v1.checkout.sessions.create(params={
            "mode": "payment", "success_url": "https://example.com/ok",
            "line_items": [{"price": self.get("one_time_price_id"), "quantity": 1}],
            "metadata": {"order_id": "42"}})

    def account(self) -> Any:
        return self.client.v1.accounts.create(params={"type": "express", "country": "US"})

    def schedule_prices(self) -> tuple[str, str]:
        return self.get("price_id"), self.price(1500).id


def _order() -> Any:
    return SimpleNamespace(id=42)


FACTORIES: dict[str, Callable[[World], Any]] = {
    "customer": World.customer,
    "customer_id": lambda w: w.get("customer").id,
    "customer_obj": lambda w: w.get("customer"),
    "product": World.product,
    "product_id": lambda w: w.get("product").id,
    "price_id": lambda w: w.price().id,
    "one_time_price_id": lambda w: w.price(interval=None).id,
    "pro_price_id": lambda w: w.price(2000).id,
    "yearly_price_id": lambda w: w.price(10000, "year").id,
    "sub": World.subscription,
    "sub_id": lambda w: w.get("sub").id,
    "item_id": lambda w: w.get("sub")["items"]["data"][0]["id"],
    "pi": World.paid_intent,
    "pi_id": lambda w: w.get("pi").id,
    "open_pi_id": lambda w: w.open_intent().id,
    "pm_visa": lambda w: "pm_card_visa",
    "pm_declined": lambda w: "pm_card_visa_chargeDeclinedInsufficientFunds",
    "saved_pm_id": lambda w: w.get("customer").invoice_settings.default_payment_method,
    "invoice": World.open_invoice,
    "invoice_id": lambda w: w.get("invoice").id,
    "session": World.session,
    "cs_id": lambda w: w.get("session").id,
    "account": World.account,
    "acct_id": lambda w: w.get("account").id,
    "coupon": lambda w: w.client.v1.coupons.create(params={"percent_off": 25,
                                                            "duration": "once"}),
    "summer_coupon": lambda w: w.client.v1.coupons.create(params={
        "id": "SUMMER25", "percent_off": 25, "duration": "once"}).id,
    "shipping_rate_id": lambda w: w.client.v1.shipping_rates.create(params={
        "display_name": "Express", "type": "fixed_amount",
        "fixed_amount": {"amount": 1500, "currency": "usd"}}).id,
    "tax_rate_id": lambda w: w.client.v1.tax_rates.create(params={
        "display_name": "VAT", "percentage": 20, "inclusive": False}).id,
    "email": lambda w: "seller@example.com",
    "line_items": lambda w: [{"price": w.get("one_time_price_id"), "quantity": 1}],
    "discounted_sub_id": lambda w: w.client.v1.subscriptions.create(params={
        "customer": w.get("customer").id, "items": [{"price": w.get("price_id")}],
        "discounts": [{"coupon": w.client.v1.coupons.create(params={
            "percent_off": 10, "duration": "forever"}).id}]}).id,
    "pm_for_customer": lambda w: w.client.v1.payment_methods.attach(
        "pm_card_visa", params={"customer": w.scope["customer"].id}).id,
    "proration_ts": lambda w: int(w.get("sub").start_date) + 86400,
    "order": lambda w: _order(),
    "url": lambda w: "https://example.com/return?session_id={CHECKOUT_SESSION_ID}",
    "intro_price_id": lambda w: w.get("price_id"),
    "regular_price_id": lambda w: w.get("pro_price_id"),
}

# Python names -> fixture (when the name is not itself a fixture).
PY_NAMES = {
    "customer_id": "customer_id", "price_id": "price_id", "product_id": "product_id",
    "pi_id": "pi_id", "pm": "pm_visa", "pm_id": "saved_pm_id", "cs_id": "cs_id",
    "session_id": "cs_id", "invoice_id": "invoice_id", "inv_id": "invoice_id",
    "sub_id": "sub_id", "item_id": "item_id", "pro_price_id": "pro_price_id",
    "new_price_id": "pro_price_id", "monthly_price_id": "price_id",
    "intro_price_id": "intro_price_id", "regular_price_id": "regular_price_id",
    "proration_ts": "proration_ts", "acct_id": "acct_id", "order": "order", "url": "url",
    "session": "session", "sub": "sub", "customer": "customer_obj",
    "one_time_price_id": "one_time_price_id", "shipping_rate_id": "shipping_rate_id",
    "tax_rate_id": "tax_rate_id",
}

# JavaScript names -> fixture (values are ids unless the fixture is an object).
JS_NAMES = {
    "customerId": "customer_id", "customer": "customer_id", "priceId": "price_id",
    "price": "price_id", "piId": "pi_id", "pm": "pm_visa", "id": "cs_id",
    "invoiceId": "invoice_id", "invId": "invoice_id", "subId": "sub_id", "itemId": "item_id",
    "proPriceId": "pro_price_id", "intro": "intro_price_id", "regular": "regular_price_id",
    "acctId": "acct_id", "order": "order", "product": "product", "coupon": "coupon",
    "pi": "pi", "email": "email", "return_url": "url", "refresh_url": "url",
    "line_items": "line_items", "one_time_price_id": "one_time_price_id",
    "price_id": "price_id", "acct": "account", "__cs": "cs_id",
    "shipping_rate_id": "shipping_rate_id", "tax_rate_id": "tax_rate_id",
}


class Recorder:
    """Stand-ins for the application code around a snippet (redirects, your database)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, name: str) -> Callable[..., Any]:
        def record(*args: Any) -> bool:
            self.calls.append((name, args))
            return False
        return record


class App:
    """A web framework's decorator surface: records the handlers a snippet defines."""

    def __init__(self) -> None:
        self.routes: dict[str, Any] = {}

    def post(self, path: str) -> Callable[[Any], Any]:
        def register(fn: Any) -> Any:
            self.routes[path] = fn
            return fn
        return register


class Response:
    def __init__(self, status_code: int = 200, content: Any = None) -> None:
        self.status_code = status_code


class Request:
    def __init__(self, body: bytes, headers: dict[str, str]) -> None:
        self._body = body
        self.headers = headers

    async def body(self) -> bytes:
        return self._body


def signed(payload: dict[str, Any], secret: str) -> tuple[bytes, str]:
    body = json.dumps(payload).encode()
    t = int(time.time())
    mac = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return body, f"t={t},v1={mac}"


class Lazy(dict[str, Any]):
    """Locals for exec: a name the snippet reads but never set is a fixture."""

    def __init__(self, world: World, names: dict[str, str]) -> None:
        super().__init__()
        world.scope = self
        self.world = world
        self.names = names

    def __missing__(self, key: str) -> Any:
        if key in self.names:
            value = self.world.get(self.names[key])
            self[key] = value
            return value
        raise KeyError(key)


def compile_snippet(code: str, name: str) -> Any:
    """The snippet as written; a top-level `return` (a handler's body shown alone) becomes
    an assignment to `returned`, so the code compiles outside its function."""
    tree = ast.parse(code, name)
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.Return):
            tree.body[i] = ast.copy_location(ast.Assign(
                targets=[ast.Name("returned", ast.Store())],
                value=node.value or ast.Constant(None)), node)
    return compile(ast.fix_missing_locations(tree), name, "exec")


def wrap_python(snippet: Snippet) -> str:
    """A parameter fragment placed in the call its marker names (text unchanged)."""
    wrap = snippet.marker.get("wrap")
    if not wrap:
        return snippet.code
    method, base = WRAP_BASE[wrap]
    return f"returned = client.v1.{method}(params={{{base}\n{snippet.code}}})\n"


def wrap_js(snippet: Snippet) -> str:
    wrap = snippet.marker.get("wrap")
    if not wrap:
        return snippet.code
    method, base = WRAP_BASE[wrap]
    camel = ".".join(p.split("_")[0] + "".join(w.title() for w in p.split("_")[1:])
                     for p in method.split("."))
    return f"return await stripe.{camel}({{{base}\n{snippet.code}}});\n"


# The call a parameter fragment belongs in, and the parameters around it (valid in both
# Python and JavaScript object syntax).
WRAP_BASE = {
    "checkout.sessions.create": (
        "checkout.sessions.create", '"mode": "payment", "success_url": "https://example.com/ok",'
        ' "line_items": [{"price": one_time_price_id, "quantity": 1}],'),
    "checkout.sessions.create.subscription": (
        "checkout.sessions.create",
        '"mode": "subscription", "success_url": "https://example.com/ok",'
        ' "line_items": [{"price": price_id, "quantity": 1}],'),
}
