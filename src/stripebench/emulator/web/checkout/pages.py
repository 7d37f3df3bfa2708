"""Hosted and embedded Checkout pages, their JSON actions, 3DS return and status pages.

Routes (host checkout.stripe.com, also reachable at a plain path on the emulator port):

* `GET /c/pay/{session}`: the hosted page (`session.url`).
* `GET /c/embedded/{client_secret or session}`: the page Stripe.js mounts in an iframe for
  `initEmbeddedCheckout`; on completion it posts `{type: 'stripebench:checkout-complete',
  session, return_url}` to its parent and sends the top window to `return_url`.
* `POST .../state` (cart changes), `POST .../confirm` (pay), `GET .../return` (back from
  3D Secure), `GET .../done` (our confirmation when there is nowhere to redirect),
  `GET /c/pay/{session}/recover` (after_expiration recovery), `GET /c/static/{name}`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from ...context import Ctx
from ...errors import InvalidRequest
from ...http import Response
from ...resources import checkout_cart as cart
from ...resources import checkout_complete as complete
from ...resources import checkout_sessions as sessions
from ...resources.checkout_pay import card_needed
from ...resources.checkout_totals import cart_items
from ...versions import LATEST
from .. import Web, escape, page
from . import view
from .countries import BILLING_DEFAULTS, country_name
from .keys import key_problem
from .locales import Translator, pick_locale

HERE = Path(__file__).parent
ENV = Environment(loader=FileSystemLoader(str(HERE / "templates")),
                  autoescape=select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True)
STATIC_TYPES = {".css": "text/css; charset=utf-8", ".js": "application/javascript"}
HOST = "checkout.stripe.com"


class PageError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _context(web: Web, key: str) -> tuple[Ctx, dict[str, Any]]:
    session_id = key.split("_secret_")[0]
    found = web.store.find(session_id)
    if found is None or found[1].get("object") != "checkout.session":
        raise PageError(404, "No such Checkout Session.")
    account, session = found
    if "_secret_" in key and session.get("client_secret") != key:
        raise PageError(404, "No such Checkout Session.")
    ctx = Ctx(web.store, account, version=account.api_version or LATEST,
              key_kind="publishable", routed=web.routed, local_origin=web.local_origin)
    sessions.expire_if_due(ctx, session)
    return ctx, session


def _translator(web: Web, session: dict[str, Any]) -> Translator:
    return Translator(pick_locale(session.get("locale"), web.request.header("accept-language")))


def _tax_address(session: dict[str, Any], address: Any) -> tuple[str | None, str | None]:
    if not isinstance(address, dict):
        address = session.get("_tax_address") or {}
    country = str(address.get("country") or "") or None
    state = str(address.get("state") or "").upper() or None
    session["_tax_address"] = {"country": country, "state": state}
    return country, state


def _models(web: Web, ctx: Ctx, session: dict[str, Any], t: Translator,
            address: Any = None) -> dict[str, Any]:
    country, state = _tax_address(session, address)
    totals = sessions.refresh_totals(ctx, session, country, state)
    merchant = view.merchant_name(ctx, session)
    summary = view.summary(t, ctx, session, totals)
    due = totals.amount_total if session["mode"] != "setup" else 0
    # An amount the customer has yet to choose counts as due: the card fields stay.
    pending = any(item.get("custom") and item.get("custom_amount") is None
                  for item in cart_items(session))
    return {"t": t, "lang": t.locale, "mode": session["mode"], "summary": summary,
            "head": view.heading(t, ctx, session, summary, merchant), "merchant": merchant,
            "submit_label": view.submit_label(t, session, summary),
            "payment_needed": pending or card_needed(session, due)}


def _page_base(web: Web, session: dict[str, Any], embedded: bool) -> str:
    kind = "embedded" if embedded else "pay"
    return web.url(HOST, f"/c/{kind}/{session['id']}")


def render_page(web: Web, ctx: Ctx, session: dict[str, Any], embedded: bool,
                initial_error: str | None = None) -> Response:
    t = _translator(web, session)
    if session["status"] != "open":
        return _status_page(web, ctx, session, t)
    models = _models(web, ctx, session, t)
    form = view.form_view(t, ctx, session, models["merchant"])
    billing = BILLING_DEFAULTS
    collection = session.get("shipping_address_collection")
    if collection:
        billing = tuple(dict.fromkeys(list(collection["allowed_countries"]) + list(billing)))
    html = ENV.get_template("page.html").render(
        **models, form=form, embedded=embedded, session_id=session["id"],
        brand=view.branding(session), back_url=session.get("cancel_url"),
        page_base=_page_base(web, session, embedded),
        static_base=web.url(HOST, "/c/static"), initial_error=initial_error,
        billing_countries=[{"code": c, "name": country_name(c)} for c in billing])
    ctx.put(session)
    return Response.html(html)


def _status_page(web: Web, ctx: Ctx, session: dict[str, Any], t: Translator,
                 embedded: bool = False) -> Response:
    if session["status"] == "complete":
        title = t("complete_setup") if session["mode"] == "setup" else t("complete_title")
        email = (session.get("customer_details") or {}).get("email") or ""
        body = t("complete_body", email=email) if email else ""
        after = ((session.get("custom_text") or {}).get("after_submit") or {}).get("message")
        body = session.get("_confirmation_message") or body  # a Payment Link's own message
    else:
        title, body, after = t("expired_title"), t("expired_body"), None
    notify = ""
    if embedded and session["status"] == "complete":
        message = json.dumps({"type": "stripebench:checkout-complete", "session": session["id"],
                              "return_url": complete.completion_url(session)})
        notify = f"<script>try{{window.parent.postMessage({message}, '*')}}catch(e){{}}</script>"
    html = (f"<!doctype html><html lang='{t.locale}'><head><meta charset='utf-8'>"
            f"<title>{_esc(title)}</title><link rel='stylesheet' "
            f"href='{web.url(HOST, '/c/static/checkout.css')}'></head><body>"
            f"<main class='status-page' role='main'><h1 id='status-title'>{_esc(title)}</h1>"
            f"<p>{_esc(body)}</p>"
            + (f"<p class='custom-text' id='custom-text-after_submit'>{_esc(after)}</p>"
               if after else "")
            + f"</main>{notify}</body></html>")
    return Response.html(html)


def _esc(text: Any) -> str:
    return escape(text)


# ------------------------------------------------------------------ pages

def _guard(fn: Any) -> Any:
    def wrapped(web: Web, **params: str) -> Response:
        try:
            return fn(web, **params)  # type: ignore[no-any-return]
        except PageError as exc:
            return Response.html(f"<!doctype html><h1>{_esc(exc)}</h1>", exc.status)
    return wrapped


@page(HOST, "GET", "/c/pay/{session}")
@_guard
def hosted_page(web: Web, session: str) -> Response:
    ctx, obj = _context(web, session)
    if obj["ui_mode"] != "hosted_page":
        raise PageError(404, "This Checkout Session is not a hosted page session.")
    return render_page(web, ctx, obj, embedded=False)


def _embedded_context(web: Web, session: str) -> tuple[Ctx, dict[str, Any]]:
    """The session an embedded page or its init call asks for, if this key may open it."""
    ctx, obj = _context(web, session)
    query = web.request.query_params()
    secret = query.get("client_secret")
    if secret and secret != obj.get("client_secret"):
        raise PageError(404, "No such Checkout Session.")
    if obj["ui_mode"] == "hosted_page":
        raise PageError(404, "This Checkout Session is not an embedded session.")
    key = query.get("key")
    if key is not None:  # Stripe.js always sends its key; a direct link has the secret
        problem = key_problem(web.store, ctx.account, obj["id"], key,
                              query.get("stripe_account"))
        if problem is not None:
            raise PageError(*problem)
    return ctx, obj


@page(HOST, "GET", "/c/embedded/{session}")
@_guard
def embedded_page(web: Web, session: str) -> Response:
    ctx, obj = _embedded_context(web, session)
    return render_page(web, ctx, obj, embedded=True)


@page(HOST, "GET", "/c/embedded/{session}/init")
def embedded_init(web: Web, session: str) -> Response:
    """What createEmbeddedCheckoutPage asks before it resolves: may this key open it?"""
    try:
        _ctx, obj = _embedded_context(web, session)
    except PageError as exc:
        kind = "authentication_error" if exc.status == 401 else "invalid_request_error"
        return Response.json({"error": {"type": kind, "message": str(exc)}}, exc.status,
                             headers={"access-control-allow-origin": "*"})
    return Response.json({"id": obj["id"], "status": obj["status"]},
                         headers={"access-control-allow-origin": "*"})


def _json_body(web: Web) -> dict[str, Any]:
    try:
        body = web.request.json()  # nesting bounded: a deep body is a 400, not a crash
    except ValueError:
        raise PageError(400, "Invalid JSON") from None
    if not isinstance(body, dict):
        raise PageError(400, "Invalid JSON")
    return body


def _state(web: Web, session: str) -> Response:
    ctx, obj = _context(web, session)
    if obj["status"] != "open":
        return Response.json({"errors": {"form": "This Checkout Session is no longer open."}})
    body = _json_body(web)
    t = _translator(web, obj)
    errors: dict[str, str] = {}
    action = body.get("action")
    try:
        if action == "quantity":
            cart.set_quantity(obj, str(body.get("item")), body.get("quantity"))
        elif action in ("add_optional", "remove_optional"):
            cart.set_optional(obj, str(body.get("item")), action == "add_optional")
        elif action == "promotion_code":
            cart.apply_promotion_code(ctx, obj, str(body.get("code") or ""))
        elif action == "remove_discount":
            cart.remove_promotion_code(obj)
        elif action == "custom_amount":
            cart.set_custom_amount(ctx, obj, str(body.get("item")), body.get("amount"))
        elif action == "shipping_rate":
            cart.choose_shipping(obj, str(body.get("rate")))
    except cart.CartError as exc:
        values = dict(exc.values)
        if "amount" in values:
            values["amount"] = t.money(*values["amount"])
        errors[exc.field] = t(exc.key, **values)
    models = _models(web, ctx, obj, t, body.get("address"))
    ctx.put(obj)
    html = ENV.get_template("summary.html").render(**models)
    return Response.json({"summary_html": html, "submit_label": models["submit_label"],
                          "payment_needed": models["payment_needed"], "errors": errors})


def _confirm(web: Web, session: str) -> Response:
    ctx, obj = _context(web, session)
    body = _json_body(web)
    t = _translator(web, obj)
    outcome = complete.submit(ctx, t, obj, body)
    ctx.account.clock.tick()
    web.store.touch(ctx.account)
    return Response.json(outcome.body())


def _return(web: Web, session: str, embedded: bool) -> Response:
    ctx, obj = _context(web, session)
    outcome = complete.resume(ctx, obj)
    web.store.touch(ctx.account)
    t = _translator(web, obj)
    if outcome.complete:
        if embedded:
            return _status_page(web, ctx, obj, t, embedded=True) if not outcome.redirect else \
                _embedded_redirect(outcome.redirect, obj)
        if outcome.redirect:
            return Response.redirect(outcome.redirect)
        return _status_page(web, ctx, obj, t)
    message = next(iter(outcome.errors.values()), None)
    return render_page(web, ctx, obj, embedded=embedded, initial_error=message)


def _embedded_redirect(url: str, session: dict[str, Any]) -> Response:
    message = json.dumps({"type": "stripebench:checkout-complete", "session": session["id"],
                          "return_url": url})
    target = json.dumps(url)
    return Response.html(
        "<!doctype html><meta charset='utf-8'><p>Redirecting…</p><script>"
        f"if(window.parent!==window){{window.parent.postMessage({message}, '*')}}"
        f"else{{window.location.href={target}}}</script>")


def _done(web: Web, session: str, embedded: bool) -> Response:
    ctx, obj = _context(web, session)
    return _status_page(web, ctx, obj, _translator(web, obj), embedded=embedded)


for _kind, _embedded in (("pay", False), ("embedded", True)):
    page(HOST, "POST", f"/c/{_kind}/{{session}}/state")(_guard(_state))
    page(HOST, "POST", f"/c/{_kind}/{{session}}/confirm")(_guard(_confirm))
    page(HOST, "GET", f"/c/{_kind}/{{session}}/return")(
        _guard(lambda web, session, _e=_embedded: _return(web, session, _e)))
    page(HOST, "GET", f"/c/{_kind}/{{session}}/done")(
        _guard(lambda web, session, _e=_embedded: _done(web, session, _e)))


@page(HOST, "GET", "/c/pay/{session}/recover")
@_guard
def recover(web: Web, session: str) -> Response:
    """An expired session's recovery link: a fresh session with the same params."""
    ctx, obj = _context(web, session)
    recovery = (obj.get("after_expiration") or {}).get("recovery") or {}
    if obj["status"] != "expired" or not recovery.get("enabled"):
        raise PageError(404, "This Checkout Session cannot be recovered.")
    if recovery.get("expires_at") and ctx.now() > recovery["expires_at"]:
        raise PageError(410, "This recovery link has expired.")
    params = dict(obj.get("_create_params") or {})
    params.pop("expires_at", None)
    params.pop("after_expiration", None)
    if recovery.get("allow_promotion_codes") and not params.get("discounts"):
        params["allow_promotion_codes"] = True
    try:
        fresh = sessions.create(ctx, params)
    except InvalidRequest as exc:
        raise PageError(400, exc.message) from None
    fresh["recovered_from"] = obj["id"]
    ctx.put(fresh)
    web.store.touch(ctx.account)
    return Response.redirect(fresh["url"])


@page(HOST, "GET", "/c/static/{name}")
def static(web: Web, name: str) -> Response:
    path = HERE / "static" / name
    if not path.is_file() or path.suffix not in STATIC_TYPES or "/" in name:
        return Response.html("not found", 404)
    return Response(200, path.read_bytes(), {"content-type": STATIC_TYPES[path.suffix],
                                             "cache-control": "no-cache"})
