"""Payment Link pages: `https://buy.stripe.com/test_<link id>` opens a fresh session."""

from __future__ import annotations

from ...context import Ctx
from ...errors import StripeError
from ...http import Response
from ...resources import payment_links
from ...versions import LATEST
from .. import Web, escape, page


def _inactive(message: str | None) -> Response:
    text = escape(message or "This link is no longer active.")
    return Response.html("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
                         "<title>Link inactive</title></head><body><main class='status-page'>"
                         f"<h1 id='status-title'>{text}</h1></main></body></html>", 410)


@page("buy.stripe.com", "GET", "/{token}")
def visit(web: Web, token: str) -> Response:
    link_id = token.removeprefix("test_")
    found = web.store.find(link_id)
    if found is None or found[1].get("object") != "payment_link":
        return Response.html("<!doctype html><h1>Page not found</h1>", 404)
    account, link = found
    ctx = Ctx(web.store, account, version=account.api_version or LATEST,
              key_kind="publishable", routed=web.routed, local_origin=web.local_origin)
    if payment_links.limit_reached(ctx, link) and link["active"]:
        link["active"] = False
        ctx.put(link)
        ctx.emit("payment_link.updated", link, {"active": True})
    if not link["active"]:
        return _inactive(link.get("inactive_message"))
    try:
        session = payment_links.open_session(ctx, link)
    except StripeError as exc:
        return Response.html(f"<!doctype html><h1>{escape(exc.message)}</h1>", 400)
    ctx.account.clock.tick()
    web.store.touch(account)
    return Response.redirect(session["url"])
