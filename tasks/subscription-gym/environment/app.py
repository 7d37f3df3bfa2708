"""Subscription gym: one endpoint per billing challenge (see challenges.md).

    python app.py            # http://127.0.0.1:4242/  (PORT to change)

`POST /challenges/<n>` receives the challenge's JSON request and must answer its JSON
response. Fill in HANDLERS: challenge number -> function(request) -> response. The
Stripe client is ready in `stripe_client()` (STRIPE_SECRET_KEY, STRIPE_API_BASE).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def stripe_client() -> Any:
    import stripe

    base = os.environ.get("STRIPE_API_BASE")
    return stripe.StripeClient(os.environ["STRIPE_SECRET_KEY"],
                               base_addresses={"api": base, "meter_events": base}
                               if base else {})


# challenge number -> handler(request body) -> response body
HANDLERS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


class Handler(BaseHTTPRequestHandler):
    def _send(self, status: int, body: object) -> None:
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        if self.path.split("?")[0] == "/healthz":
            return self._send(200, {"ok": True})
        return self._send(404, {"error": "not found"})

    def do_POST(self) -> None:  # noqa: N802
        found = re.fullmatch(r"/challenges/(\d+)", self.path.split("?")[0])
        if not found:
            return self._send(404, {"error": "not found"})
        handler = HANDLERS.get(int(found.group(1)))
        if handler is None:
            return self._send(501, {"error": f"challenge {found.group(1)} not implemented"})
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
            return self._send(200, handler(body))
        except Exception as exc:  # the caller sees what went wrong
            return self._send(500, {"error": f"{type(exc).__name__}: {exc}"})

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def main() -> None:
    port = int(os.environ.get("PORT", "4242"))
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"Subscription gym on http://127.0.0.1:{port}/", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
