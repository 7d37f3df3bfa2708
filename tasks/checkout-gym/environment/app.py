"""Checkout gym: serves one embedded Checkout page per challenge.

    python app.py            # http://127.0.0.1:4242/  (PORT to change)

The sessions were created before you started; this app only knows their client
secrets (challenges.json) and draws each one with Stripe.js `initEmbeddedCheckout`.
STRIPE_JS_URL overrides where Stripe.js is loaded from (default https://js.stripe.com/v3/).
"""

from __future__ import annotations

import html
import json
import os
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
STRIPE_JS_URL = os.environ.get("STRIPE_JS_URL", "https://js.stripe.com/v3/")

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{title}</title>
  <script src="{stripe_js}"></script>
  <style>
    body {{ font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 960px; }}
    nav a {{ margin-right: .75rem; }}
  </style>
</head>
<body>
{body}
</body>
</html>
"""

CHALLENGE = """<nav>{nav}</nav>
<h1>Challenge {number}</h1>
<div id="checkout" data-challenge="{number}"></div>
<script>
  const stripe = Stripe({publishable_key});
  stripe.initEmbeddedCheckout({{
    fetchClientSecret: () => fetch("/api/challenges/{number}/client_secret")
      .then((r) => r.json()).then((data) => data.client_secret),
  }}).then((checkout) => checkout.mount("#checkout"));
</script>
"""


def load_challenges() -> dict[str, object]:
    path = Path(os.environ.get("CHALLENGES_FILE", HERE / "challenges.json"))
    data: dict[str, object] = json.loads(path.read_text())
    return data


class Handler(BaseHTTPRequestHandler):
    def _send(self, status: int, body: str, content_type: str = "text/html") -> None:
        raw = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", f"{content_type}; charset=utf-8")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        data = load_challenges()
        challenges = {str(c["number"]): c for c in data["challenges"]}  # type: ignore[attr-defined]
        path = self.path.split("?")[0].rstrip("/") or "/"
        if path == "/healthz":
            return self._send(200, json.dumps({"ok": True, "challenges": len(challenges)}),
                              "application/json")
        nav = " ".join(f'<a href="/challenges/{n}">{n}</a>' for n in challenges)
        if path == "/":
            items = "".join(f'<li><a href="/challenges/{n}">Challenge {n}</a></li>'
                            for n in challenges)
            body = (f"<h1>Checkout gym</h1><p>{len(challenges)} Checkout pages to "
                    f"reconstruct.</p><ol>{items}</ol>")
            return self._send(200, PAGE.format(title="Checkout gym", stripe_js=STRIPE_JS_URL,
                                               body=body))
        found = re.fullmatch(r"/challenges/(\d+)", path)
        if found and found.group(1) in challenges:
            body = CHALLENGE.format(nav=nav, number=found.group(1),
                                    publishable_key=json.dumps(data["publishable_key"]))
            return self._send(200, PAGE.format(title=f"Challenge {found.group(1)}",
                                               stripe_js=html.escape(STRIPE_JS_URL), body=body))
        found = re.fullmatch(r"/api/challenges/(\d+)/client_secret", path)
        if found and found.group(1) in challenges:
            secret = challenges[found.group(1)]["client_secret"]
            return self._send(200, json.dumps({"client_secret": secret}), "application/json")
        return self._send(404, "<h1>Not found</h1>")

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def main() -> None:
    port = int(os.environ.get("PORT", "4242"))
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"Checkout gym on http://127.0.0.1:{port}/", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
