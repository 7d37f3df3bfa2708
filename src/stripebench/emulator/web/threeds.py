"""The 3D Secure challenge page (hooks.stripe.com), as Stripe's test mode shows it.

`next_action` of an intent that needs authentication links here. The customer clicks
"Complete authentication" or "Fail authentication". Opened by Stripe.js in a modal
iframe (`?embedded=1`) the page tells its parent by postMessage; opened top-level
(`redirect_to_url`) it sends the browser on to the intent's return_url with
`payment_intent`, `payment_intent_client_secret` and `redirect_status`, as Stripe does.
"""

from __future__ import annotations

import hmac
import json
from urllib.parse import urlencode

from ..forms import decode
from ..http import Response
from ..resources import intent_flow, setup_intents
from . import Web, escape, page
from ._pages import PAGE_STYLE, committed, find_object, money, page_ctx

PATH = "/3d_secure/authenticate/{intent}/{token}"


def _lookup(web: Web, intent: str, token: str):  # type: ignore[no-untyped-def]
    kind = "payment_intent" if intent.startswith("pi_") else "setup_intent"
    found = find_object(web, intent, kind)
    if found is None or not hmac.compare_digest(str(found[1].get("_3ds_token") or ""), token):
        return None
    return found


@page("hooks.stripe.com", "GET", PATH)
def challenge(web: Web, intent: str, token: str) -> Response:
    found = _lookup(web, intent, token)
    if found is None:
        return Response.html("<h1>Authentication link not valid</h1>", 404)
    _, obj = found
    embedded = web.request.query_params().get("embedded") == "1"
    if obj["status"] != "requires_action":
        return _finished(web, obj, embedded)
    if obj["object"] == "payment_intent":
        what = f"a payment of <strong>{escape(money(obj['amount'], obj['currency']))}</strong>"
    else:
        what = "saving your card for future payments"
    action = escape(web.request.path + ("?embedded=1" if embedded else ""))
    body = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>3D Secure 2 Test Page</title><style>{PAGE_STYLE}</style></head>
<body><main role="dialog" aria-labelledby="title">
<h1 id="title">3D Secure 2 Test Page</h1>
<p>Your bank asks you to confirm {what}.</p>
<p class="muted">This is a test authentication page of the local Stripe emulator. Choose an
outcome for this test payment.</p>
<form method="post" action="{action}">
<button class="primary" type="submit" name="outcome" value="approve">
Complete authentication</button>
<button class="secondary" type="submit" name="outcome" value="fail">
Fail authentication</button>
</form></main></body></html>"""
    return Response.html(body)


@page("hooks.stripe.com", "POST", PATH)
def decide(web: Web, intent: str, token: str) -> Response:
    found = _lookup(web, intent, token)
    if found is None:
        return Response.html("<h1>Authentication link not valid</h1>", 404)
    account, obj = found
    form = decode(web.request.body.decode("utf-8", "replace"))
    outcome = form.get("outcome")
    if outcome not in ("approve", "fail"):
        return Response.html("<h1>Choose Complete or Fail authentication</h1>", 400)
    embedded = web.request.query_params().get("embedded") == "1"
    if obj["status"] == "requires_action":
        ctx = page_ctx(web, account)
        finish = setup_intents.finish_authentication if obj["object"] == "setup_intent" \
            else intent_flow.finish_authentication
        finish(ctx, obj, approved=outcome == "approve")
        committed(web, account)
    return _finished(web, obj, embedded)


def _finished(web: Web, obj: dict, embedded: bool) -> Response:  # type: ignore[type-arg]
    succeeded = obj["status"] in ("succeeded", "requires_capture", "processing",
                                  "requires_confirmation")
    if embedded:
        message = json.dumps({"type": "stripebench:3ds-complete", "intent": obj["id"],
                              "status": obj["status"]})
        return Response.html(f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Authentication finished</title><style>{PAGE_STYLE}</style></head><body><main>
<h1>{"Authentication complete" if succeeded else "Authentication failed"}</h1>
<p class="muted">You can return to the merchant.</p></main>
<script>window.parent.postMessage({message}, "*");</script></body></html>""")
    return_url = obj.get("_return_url") or ((obj.get("next_action") or {}).get(
        "redirect_to_url") or {}).get("return_url")
    if return_url:
        key = "payment_intent" if obj["object"] == "payment_intent" else "setup_intent"
        query = urlencode({key: obj["id"], f"{key}_client_secret": obj["client_secret"],
                           "redirect_status": "succeeded" if succeeded else "failed"})
        joiner = "&" if "?" in return_url else "?"
        return Response.redirect(f"{return_url}{joiner}{query}", 302)
    return Response.html(f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Authentication finished</title><style>{PAGE_STYLE}</style></head><body><main>
<h1>{"Authentication complete" if succeeded else "Authentication failed"}</h1>
<p class="muted">You can close this window.</p></main></body></html>""")
