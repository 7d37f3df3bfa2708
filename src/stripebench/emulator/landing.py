"""The standalone emulator's landing page: accounts and their keys, recent requests,
objects and events, for someone developing an integration against
`stripebench emulator serve`.

It lists every account's secret key, so it exists only in the process the user starts:
`serve` wraps the app in `Landing` unless told `--no-landing`, and the harness starts its
emulator with `--no-landing` (a trial must never read other accounts' keys). Even here it
answers only on the emulator's own address (`http://HOST:PORT/` from a browser, and
`/_landing`), never on a Stripe host name, so nothing routed as dashboard.stripe.com,
api.stripe.com & co. reaches it.
"""

from __future__ import annotations

import itertools
import json
import time
from html import escape
from typing import Any

from .app import EmulatorApp
from .web import STRIPE_HOSTS

PATH = "/_landing"
RECENT = 25


def _wants_page(scope: dict[str, Any]) -> bool:
    if scope.get("type") != "http" or scope.get("method") != "GET":
        return False
    headers = {k.decode("latin-1").lower(): v.decode("latin-1")
               for k, v in scope.get("headers", [])}
    if headers.get("host", "").split(":")[0].lower() in STRIPE_HOSTS:
        return False
    path = scope.get("path", "")
    if path in (PATH, PATH + "/"):
        return True
    # "/" is also the API's root: a browser (asking for HTML, no key) gets the page
    return path == "/" and "text/html" in headers.get("accept", "") \
        and "authorization" not in headers


class Landing:
    """ASGI: the page on GET / (browsers) and /_landing, everything else to the app."""

    def __init__(self, app: EmulatorApp) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if not _wants_page(scope):
            await self.app(scope, receive, send)
            return
        body = page(self.app).encode()
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"text/html; charset=utf-8"),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store")]})
        await send({"type": "http.response.body", "body": body})


def _when(stamp: Any) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(int(stamp)))
    except (TypeError, ValueError):
        return ""


def _table(caption: str, head: list[str], rows: list[list[str]], css: str) -> str:
    if not rows:
        return f'<p class="{css} empty">No {escape(caption.lower())} yet.</p>'
    cells = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                    for row in rows)
    header = "".join(f"<th>{escape(h)}</th>" for h in head)
    return (f'<table class="{css}"><caption>{escape(caption)}</caption>'
            f"<thead><tr>{header}</tr></thead><tbody>{cells}</tbody></table>")


def page(app: EmulatorApp) -> str:
    origin = escape(app.local_origin)
    sections = []
    for account in app.store.accounts.values():
        requests = [json.loads(line) for line in account.record.lines[-RECENT:]][::-1]
        objects = sorted(((kind, len(ids)) for kind, ids in account.order.items()
                          if kind != "event" and ids), key=lambda pair: -pair[1])
        newest = sorted((obj for obj in account.objects.values()
                         if obj.get("object") != "event"),
                        key=lambda obj: account.seq.get(str(obj.get("id")), 0),
                        reverse=True)[:RECENT]
        events = list(itertools.islice(account.iter_type("event"), RECENT))
        parent = f" (connected to {account.parent})" if account.parent else ""
        sections.append(
            f'<section class="account" id="{escape(account.id)}">'
            f"<h2>{escape(account.id)}{escape(parent)}</h2>"
            f'<dl><dt>Secret key</dt><dd class="secret-key"><code>'
            f"{escape(account.secret_key)}</code></dd>"
            f'<dt>Publishable key</dt><dd class="publishable-key"><code>'
            f"{escape(account.publishable_key)}</code></dd>"
            f"<dt>API version</dt><dd>{escape(account.api_version)}</dd></dl>"
            + _table("Recent requests", ["time", "method", "path", "status", "request"],
                     [[_when(r.get("time")), str(r.get("method")), str(r.get("path")),
                       str(r.get("status")), str(r.get("id"))] for r in requests], "requests")
            + _table("Objects", ["type", "count"], [[k, str(n)] for k, n in objects],
                     "object-counts")
            + _table("Newest objects", ["id", "type", "created"],
                     [[str(o.get("id")), str(o.get("object")), _when(o.get("created"))]
                      for o in newest], "objects")
            + _table("Events", ["id", "type", "created"],
                     [[str(e.get("id")), str(e.get("type")), _when(e.get("created"))]
                      for e in events], "events")
            + "</section>")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="5">
<title>Local Stripe — stripebench emulator</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #1a1f36; }}
code {{ background: #f6f8fa; padding: 0 .3em; }}
table {{ border-collapse: collapse; margin: .8em 0; }}
caption {{ text-align: left; font-weight: 600; }}
td, th {{ border-bottom: 1px solid #e3e8ee; padding: .2em .8em .2em 0; text-align: left; }}
dl {{ display: grid; grid-template-columns: max-content auto; gap: .2em 1em; }}
dd {{ margin: 0; }} .empty {{ color: #697386; }}
</style></head><body>
<h1>Local Stripe</h1>
<p>API base <code>{origin}</code> · Stripe.js <code>{origin}/js.stripe.com/v3/</code> ·
refreshes every 5 s</p>
{"".join(sections)}
</body></html>"""
