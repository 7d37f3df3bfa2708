"""Our own Stripe.js, served as js.stripe.com serves Stripe's.

- `/v3/` (and `/v3`, `/v3/stripe.js`): `Stripe.version` is 3.
- `/<release>/stripe.js` (`/endive/stripe.js`, what `@stripe/stripe-js` injects, and the
  other release trains): `Stripe.version` is the release name.
- `/v3/elements/<type>.html`: the document inside each Element's iframe.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from ...http import Response
from .. import Web, escape, page

HERE = Path(__file__).parent
CARD_INPUT = HERE.parent / "checkout/static/cardinput.js"
RELEASES = ("acacia", "basil", "clover", "dahlia", "endive")
ELEMENT_TYPES = ("card", "cardNumber", "cardExpiry", "cardCvc", "payment", "address",
                 "linkAuthentication")
TITLES = {"card": "Secure card payment input frame", "cardNumber": "Secure card number input frame",
          "cardExpiry": "Secure expiration date input frame",
          "cardCvc": "Secure CVC input frame", "payment": "Secure payment input frame",
          "address": "Secure address input frame",
          "linkAuthentication": "Secure email input frame"}
JS_HEADERS = {"content-type": "application/javascript; charset=utf-8",
              "access-control-allow-origin": "*", "cache-control": "no-cache"}


@cache
def _source(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


@cache
def _frame_script() -> str:
    """The iframe's script: the card inputs shared with the Checkout page, then frame.js."""
    shared = CARD_INPUT.read_text(encoding="utf-8")
    return shared + "\n" + _source("frame.js")


# Inserted into stripe.js's closure, in this order: they share its helpers.
PARTS = ("elements.js", "embedded.js", "checkout_elements.js", "releases.js")


def script(version: int | str) -> bytes:
    """Stripe.js with its `Stripe.version` (3 for /v3/, the release name otherwise).

    One source serves every release; `RELEASE` inside it picks each release's surface.
    """
    parts = "\n".join(_source(name) for name in PARTS)
    source = _source("stripe.js").replace("  /*__PARTS__*/\n", parts)
    return source.replace("__STRIPE_VERSION__", json.dumps(version)).encode()


def _js(version: int | str) -> Response:
    return Response(200, script(version), dict(JS_HEADERS))


@page("js.stripe.com", "GET", "/v3/")
def v3(web: Web) -> Response:
    return _js(3)


@page("js.stripe.com", "GET", "/v3")
def v3_bare(web: Web) -> Response:
    return _js(3)


@page("js.stripe.com", "GET", "/{release}/stripe.js")
def versioned(web: Web, release: str) -> Response:
    if release == "v3":
        return _js(3)
    if release not in RELEASES:
        return Response(404, b"// unknown Stripe.js release", dict(JS_HEADERS))
    return _js(release)


@page("js.stripe.com", "GET", "/v3/elements/{kind}.html")
def element_frame(web: Web, kind: str) -> Response:
    if kind not in ELEMENT_TYPES:
        return Response.html(f"<h1>Unknown Element type {escape(kind)}</h1>", 404)
    html = (_source("frame.html").replace("__TITLE__", TITLES[kind])
            .replace("__KIND__", kind).replace("__SCRIPT__", _frame_script()))
    return Response.html(html)
