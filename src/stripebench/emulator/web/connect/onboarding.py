"""Stripe-hosted pages on connect.stripe.com: Account Link onboarding and the Express
Dashboard a login link opens.

An account link is single use and lives five minutes on the platform's clock; a used or
expired link sends the user to the link's `refresh_url`, as Stripe does. A login link's
token is the one the emulator issued to the platform for that account, and works once. Finishing
onboarding fills what the account lacks (the answers given, else Stripe's test data),
accepts the Terms of Service and returns to `return_url`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from ...http import Response
from ...resources import accounts
from ...store import Account
from .. import Web, escape, page
from .._pages import PAGE_STYLE, committed, money, page_ctx

HOST = "connect.stripe.com"


def _usable_link(web: Web, account: str, link: str) -> tuple[Account, dict[str, Any]] | Response:
    """The platform and the link's record, or the page to answer instead: a 404 for a
    link that does not exist, `refresh_url` for one used or expired (as Stripe does)."""
    found = web.store.find(link)
    if found is None or found[1].get("object") != "_account_link" or \
            found[1]["account"] != account:
        return Response.html("<h1>This link is not valid</h1>", 404)
    platform, record = found
    if record["_used"] or record["expires_at"] < platform.clock.now():
        return Response.redirect(str(record.get("refresh_url") or "about:blank"))
    return platform, record


@page(HOST, "GET", "/setup/e/{account}/{link}")
def onboarding_page(web: Web, account: str, link: str) -> Response:
    found = _usable_link(web, account, link)
    if isinstance(found, Response):
        return found
    platform, record = found
    ctx = page_ctx(web, platform)
    obj = accounts.account_object(ctx, account)
    due = obj["requirements"]["currently_due"]
    items = "".join(f"<li>{escape(d)}</li>" for d in due) or "<li>Nothing is due.</li>"
    url = escape((obj.get("business_profile") or {}).get("url") or "")
    return Response.html(f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Set up payments and payouts</title><style>{PAGE_STYLE}</style></head><body><main>
<h1>Set up payments and payouts</h1>
<p class="muted">Test mode: Stripe's test data is used for anything you leave blank.</p>
<h2>Information needed</h2><ul data-testid="requirements">{items}</ul>
<form method="post">
<label for="url">Business website</label>
<input id="url" name="url" type="url" value="{url}" autocomplete="url">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email">
<p><button class="primary" type="submit">Agree and submit</button></p>
<p class="muted">By submitting you agree to the Stripe Connected Account Agreement.</p>
</form></main></body></html>""")


@page(HOST, "POST", "/setup/e/{account}/{link}")
def onboarding_submit(web: Web, account: str, link: str) -> Response:
    found = _usable_link(web, account, link)
    if isinstance(found, Response):
        return found
    platform, record = found
    form = dict(parse_qsl(web.request.body.decode("utf-8", "replace")))
    ctx = page_ctx(web, platform)
    answers = {"business_profile": {"url": form.get("url")},
               "individual": {"email": form.get("email")}}
    accounts.complete_onboarding(ctx, account, answers, ip=web.request.client or "127.0.0.1")
    record["_used"] = True
    web.store.put(platform, record)
    committed(web, platform)
    return Response.redirect(str(record.get("return_url") or "about:blank"))


@page(HOST, "GET", "/express/acct_login/{account}/{token}")
def express_dashboard(web: Web, account: str, token: str) -> Response:
    """The dashboard a login link opens: only with the token the emulator issued to the
    account's platform for this account, and only once (login links are single use)."""
    found = web.store.find(token)
    connected = web.store.accounts.get(account)
    if found is None or connected is None or found[1].get("object") != "_login_link" \
            or found[1]["account"] != account or found[1]["_used"] \
            or connected.parent != found[0].id:
        return Response.html("<h1>This link is not valid</h1><p>Login links work once; "
                             "ask the platform for a new one.</p>", 404)
    platform, record = found
    record["_used"] = True
    web.store.put(platform, record)
    committed(web, platform)
    rows = "".join(
        f"<tr><td>{escape(money(c['amount'], c['currency']))}</td><td>{escape(c['status'])}</td>"
        f"</tr>" for c in list(connected.iter_type("charge"))[:20])
    return Response.html(f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Express Dashboard</title><style>{PAGE_STYLE}</style></head><body><main>
<h1>Express Dashboard</h1><p class="muted">{escape(account)}</p>
<h2>Recent payments</h2><table aria-label="Recent payments">{rows}</table>
<p class="muted">Local Stripe emulator: a read-only view.</p>
</main></body></html>""")
