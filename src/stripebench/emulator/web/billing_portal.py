"""The customer portal page (billing.stripe.com/p/session/...): the customer sees their
subscriptions and invoices, cancels (or renews) a subscription, switches its plan and
replaces their card. Forms post back here and redirect to the page (post/redirect/get);
each control has a visible, stable label so people and browser agents can use it."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from .. import forms
from ..billing import subscribing, timing
from ..billing.changes import update_subscription
from ..billing.items import describe, price_of, product_name
from ..cards import lookup_number
from ..context import Ctx
from ..errors import StripeError
from ..events import changed
from ..http import Response
from ..resources.payment_methods import attach, new_card_pm
from . import Web, escape, page
from ._pages import PAGE_STYLE, committed, find_object, money, page_ctx

HOST = "billing.stripe.com"
SHOWN = ("active", "trialing", "past_due", "unpaid", "incomplete", "paused")


def _load(web: Web, session: str) -> tuple[Ctx, dict[str, Any], dict[str, Any]] | None:
    found = find_object(web, session, "billing_portal.session")
    if found is None:
        return None
    account, obj = found
    ctx = page_ctx(web, account)
    config = ctx.get(obj["configuration"], "billing_portal.configuration")
    return timing.for_customer(ctx, obj["customer"]), obj, config


def _date(ts: int | None) -> str:
    return timing.fmt_date(ts) if ts else "—"


def _plan_choices(ctx: Ctx, config: dict[str, Any], sub: dict[str, Any]) -> list[dict[str, Any]]:
    update = config["features"]["subscription_update"]
    if not update.get("enabled"):
        return []
    allowed: list[str] = []
    for entry in update.get("products") or []:
        allowed += list(entry.get("prices") or [])
    current = price_of(ctx, subscribing.live_items(ctx, sub)[0])
    if not allowed:
        allowed = [p["id"] for p in ctx.account.iter_type("price")
                   if p.get("product") == current["product"] and p.get("recurring")
                   and p.get("active") and p["currency"] == sub["currency"]]
    return [p for p in (ctx.maybe(i, "price") for i in allowed) if p]


def _option(ctx: Ctx, price: dict[str, Any], selected: bool) -> str:
    amount = money(int(price.get("unit_amount") or 0), price["currency"])
    label = f"{product_name(ctx, price)} – {amount} / {price['recurring']['interval']}"
    mark = " selected" if selected else ""
    return f'<option value="{price["id"]}"{mark}>{escape(label)}</option>'


def _subscription_block(ctx: Ctx, config: dict[str, Any], base: str,
                        sub: dict[str, Any]) -> str:
    features = config["features"]
    items = subscribing.live_items(ctx, sub)
    labels = [describe(ctx, price_of(ctx, i), int(i.get("quantity") or 0), sub["currency"])
              for i in items]
    lines = "".join(f"<li>{escape(label)}</li>" for label in labels)
    end = sub["_period"][1]
    if sub.get("cancel_at"):
        when = f"Cancels on {_date(sub['cancel_at'])}"
    elif sub["status"] == "trialing":
        when = f"Trial ends on {_date(sub.get('trial_end'))}"
    else:
        when = f"Renews on {_date(end)}"
    name = escape(product_name(ctx, price_of(ctx, items[0])))
    actions = ""
    if sub.get("cancel_at"):
        actions += (f'<form method="post" action="{base}/renew"><input type="hidden" '
                    f'name="subscription" value="{sub["id"]}"><button class="primary" '
                    f'type="submit">Renew subscription</button></form>')
    elif features["subscription_cancel"].get("enabled"):
        actions += (f'<form method="post" action="{base}/cancel"><input type="hidden" '
                    f'name="subscription" value="{sub["id"]}"><button class="secondary" '
                    f'type="submit" aria-label="Cancel subscription to {name}">Cancel '
                    f'subscription</button></form>')
    choices = _plan_choices(ctx, config, sub) if len(items) == 1 else []
    if len(choices) > 1:
        current = items[0]["_price"]
        options = "".join(_option(ctx, p, p["id"] == current) for p in choices)
        actions += (f'<form method="post" action="{base}/update"><input type="hidden" '
                    f'name="subscription" value="{sub["id"]}"><label for="plan-{sub["id"]}">'
                    f'Plan</label> <select id="plan-{sub["id"]}" name="price">{options}'
                    f'</select> <button class="primary" type="submit">Update plan</button>'
                    f'</form>')
    return (f'<section aria-label="Subscription to {name}" data-subscription="{sub["id"]}">'
            f'<h2>{name}</h2><ul>{lines}</ul><p data-testid="status">Status: '
            f'{escape(sub["status"])}</p><p class="muted">{escape(when)}</p>{actions}'
            f'</section>')


@page(HOST, "GET", "/p/session/{session}")
def portal(web: Web, session: str) -> Response:
    loaded = _load(web, session)
    if loaded is None:
        return Response.html("<h1>This portal link is not valid</h1>", 404)
    ctx, obj, config = loaded
    customer = ctx.get(obj["customer"], "customer")
    features = config["features"]
    flash = web.request.query_params().get("message")
    subs = [s for s in ctx.account.iter_type("subscription")
            if s["customer"] == customer["id"] and s["status"] in SHOWN]
    base = web.url(HOST, f"/p/session/{session}")  # works by host name and by plain path
    blocks = "".join(_subscription_block(ctx, config, base, s) for s in subs) or \
        "<p>You have no active subscriptions.</p>"
    method = ctx.maybe((customer.get("invoice_settings") or {}).get("default_payment_method"),
                       "payment_method")
    card = (method or {}).get("card") or {}
    card_text = f"{escape(card.get('brand', '')).title()} ending in {escape(card.get('last4'))}" \
        if method else "No payment method on file"
    card_form = ""
    if features["payment_method_update"].get("enabled"):
        card_form = f"""<form method="post" action="{base}/payment_method">
<label for="cardnumber">Card number</label><br>
<input id="cardnumber" name="number" inputmode="numeric" autocomplete="cc-number"><br>
<label for="cardexpiry">Expiration (MM / YY)</label><br>
<input id="cardexpiry" name="expiry" placeholder="MM / YY"><br>
<label for="cardcvc">CVC</label><br><input id="cardcvc" name="cvc"><br>
<button class="primary" type="submit">Update payment method</button></form>"""
    invoices = ""
    if features["invoice_history"].get("enabled"):
        rows = "".join(
            f'<tr><td>{_date(i["created"])}</td><td>{escape(i.get("number") or "")}</td>'
            f'<td>{escape(i["status"])}</td><td class="amount">'
            f'{money(i["total"], i["currency"])}</td></tr>'
            for i in ctx.account.iter_type("invoice")
            if i["customer"] == customer["id"] and i["status"] != "draft")
        invoices = f'<h2>Invoice history</h2><table aria-label="Invoice history">{rows}</table>'
    back = f'<p><a href="{escape(obj["return_url"])}">Return to merchant</a></p>' \
        if obj.get("return_url") else ""
    notice = f'<p role="status">{escape(flash)}</p>' if flash else ""
    headline = escape(config["business_profile"].get("headline") or "Manage your billing")
    body = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Billing portal</title><style>{PAGE_STYLE}</style></head><body><main>
<h1>{headline}</h1><p class="muted">{escape(customer.get("email") or customer["id"])}</p>
{notice}{back}<h2>Current subscriptions</h2>{blocks}
<h2>Payment method</h2><p data-testid="payment-method">{card_text}</p>{card_form}
{invoices}</main></body></html>"""
    return Response.html(body)


def _act(web: Web, session: str, action: Any) -> Response:
    loaded = _load(web, session)
    if loaded is None:
        return Response.html("<h1>This portal link is not valid</h1>", 404)
    ctx, obj, config = loaded
    data = forms.decode(web.request.body.decode("utf-8", "replace"))
    try:
        message = action(ctx, obj, config, data)
    except StripeError as exc:
        message = exc.message
    committed(web, ctx.account)
    return Response.redirect(web.url(HOST, f"/p/session/{session}?message={quote(message)}"))


def _own_subscription(ctx: Ctx, obj: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    sub = ctx.get(data.get("subscription"), "subscription", "subscription")
    if sub["customer"] != obj["customer"]:
        raise StripeError("That subscription is not yours.")
    return sub


@page(HOST, "POST", "/p/session/{session}/cancel")
def cancel(web: Web, session: str) -> Response:
    def run(ctx: Ctx, obj: dict[str, Any], config: dict[str, Any], data: dict[str, Any]) -> str:
        sub = _own_subscription(ctx, obj, data)
        rules = config["features"]["subscription_cancel"]
        if not rules.get("enabled"):
            raise StripeError("Cancelling is not enabled in this portal.")
        if rules.get("mode") == "immediately":
            subscribing.cancel_now(ctx, sub, prorate=rules.get("proration_behavior")
                                   == "create_prorations")
            return "Your subscription has been canceled."
        update_subscription(ctx, sub, {"cancel_at_period_end": True})
        return f"Your subscription will be canceled on {_date(sub['_period'][1])}."
    return _act(web, session, run)


@page(HOST, "POST", "/p/session/{session}/renew")
def renew(web: Web, session: str) -> Response:
    def run(ctx: Ctx, obj: dict[str, Any], config: dict[str, Any], data: dict[str, Any]) -> str:
        update_subscription(ctx, _own_subscription(ctx, obj, data),
                            {"cancel_at_period_end": False})
        return "Your subscription has been renewed."
    return _act(web, session, run)


@page(HOST, "POST", "/p/session/{session}/update")
def update_plan(web: Web, session: str) -> Response:
    def run(ctx: Ctx, obj: dict[str, Any], config: dict[str, Any], data: dict[str, Any]) -> str:
        sub = _own_subscription(ctx, obj, data)
        allowed = {p["id"] for p in _plan_choices(ctx, config, sub)}
        if data.get("price") not in allowed:
            raise StripeError("That plan is not available.")
        item = subscribing.live_items(ctx, sub)[0]
        update_subscription(ctx, sub, {"items": [{"id": item["id"], "price": data["price"]}],
                                       "proration_behavior": config["features"][
                                           "subscription_update"]["proration_behavior"]})
        return "Your plan has been updated."
    return _act(web, session, run)


@page(HOST, "POST", "/p/session/{session}/payment_method")
def payment_method(web: Web, session: str) -> Response:
    def run(ctx: Ctx, obj: dict[str, Any], config: dict[str, Any], data: dict[str, Any]) -> str:
        card = lookup_number(str(data.get("number") or "").replace(" ", ""), "number")
        month, _, year = str(data.get("expiry") or "").replace(" ", "").partition("/")
        if not (month.isdigit() and year.isdigit()):
            raise StripeError("Your card's expiration date is incomplete.")
        pm = new_card_pm(ctx, card, exp_month=int(month), exp_year=2000 + int(year) % 100,
                         cvc=data.get("cvc"))
        attach(ctx, pm, obj["customer"])
        customer = ctx.get(obj["customer"], "customer")
        before = dict(customer)
        customer["invoice_settings"] = {**(customer.get("invoice_settings") or {}),
                                        "default_payment_method": pm["id"]}
        ctx.put(customer)
        ctx.emit("customer.updated", customer, changed(before, customer))
        return "Your payment method has been updated."
    return _act(web, session, run)
