"""Connect embedded components on connect-js.stripe.com, served by the emulator.

- `/v1.0/connect.js` (and `/v0.1/connect.js`): our own Connect.js. `@stripe/connect-js`
  and `@stripe/react-connect-js` from npm load it unmodified: it defines
  `window.StripeConnect.init` and the `stripe-connect-<component>` custom elements.
- `/v1.0/api/claim`: connect.js trades an account session's client secret, once, for a
  component token; every iframe of that instance uses the token.
- `/v1.0/component/<name>`: one iframe per component, drawing the connected account's
  real objects (component.js) through `/v1.0/api/<token>/...?component=<name>`, which
  enforces that component's enablement and its own features on every read and action.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...http import Response
from .. import Web, escape, page
from . import data

HOST = "connect-js.stripe.com"
STATIC = Path(__file__).with_name("static")


def _static(name: str, kind: str) -> Response:
    body = (STATIC / name).read_bytes()
    return Response(200, body, {"content-type": kind, "cache-control": "no-cache",
                                "access-control-allow-origin": "*"})


@page(HOST, "GET", "/v1.0/connect.js")
def connect_js(web: Web) -> Response:
    return _static("connect.js", "application/javascript; charset=utf-8")


@page(HOST, "GET", "/v0.1/connect.js")
def connect_js_v0(web: Web) -> Response:
    return _static("connect.js", "application/javascript; charset=utf-8")


@page(HOST, "GET", "/v1.0/component.js")
def component_js(web: Web) -> Response:
    return _static("component.js", "application/javascript; charset=utf-8")


@page(HOST, "GET", "/v1.0/component/{name}")
def component_frame(web: Web, name: str) -> Response:
    title = escape(name.replace("-", " ").capitalize())
    return Response.html(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f'<link rel="stylesheet" href="../component.css"></head>'
        f'<body data-component="{escape(name)}"><main id="root" aria-busy="true">'
        f'<p class="muted">Loading…</p></main>'
        f'<script src="../component.js"></script></body></html>')


@page(HOST, "GET", "/v1.0/component.css")
def component_css(web: Web) -> Response:
    return _static("component.css", "text/css; charset=utf-8")


def _body(web: Web) -> dict[str, Any]:
    try:
        value = json.loads(web.request.body or b"{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _answer(result: tuple[int, Any]) -> Response:
    status, value = result
    return Response.json(value, status, {"access-control-allow-origin": "*"})


@page(HOST, "POST", "/v1.0/api/claim")
def claim(web: Web) -> Response:
    return _answer(data.claim(web, str(_body(web).get("client_secret") or "")))


@page(HOST, "POST", "/v1.0/api/{token}/logout")
def logout(web: Web, token: str) -> Response:
    return _answer(data.logout(web, token))


@page(HOST, "GET", "/v1.0/api/{token}/{path*}")
def read(web: Web, token: str, path: str) -> Response:
    return _answer(data.read(web, token, path, dict(web.request.query_params())))


@page(HOST, "POST", "/v1.0/api/{token}/{path*}")
def act(web: Web, token: str, path: str) -> Response:
    return _answer(data.act(web, token, path, _body(web),
                            web.request.query_params().get("component")))


from . import onboarding  # noqa: E402,F401 - registers connect.stripe.com's pages
