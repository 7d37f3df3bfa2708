"""A tiny merchant web server for browser tests: serves tests/browser/ pages.

Pages are templates: `{{STRIPE_JS}}` becomes the emulator's Stripe.js URL, so each page
loads Stripe.js with a plain script tag, as a merchant's page does. `?release=endive`
(any release train) swaps `/v3/` for that release's `/endive/stripe.js`.
"""

from __future__ import annotations

import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
TYPES = {".html": "text/html; charset=utf-8", ".js": "application/javascript; charset=utf-8"}


def build_react_app(out_dir: Path, entry: str = "app.jsx") -> Path:
    """Bundle tests/browser/react/<entry> with esbuild from node_modules (no downloads)."""
    out = out_dir / "app.js"
    subprocess.run([str(ROOT / "node_modules/.bin/esbuild"), str(HERE / "react" / entry),
                    "--bundle", "--minify", "--define:process.env.NODE_ENV=\"production\"",
                    f"--outfile={out}", "--log-level=warning"], check=True, cwd=ROOT, timeout=60)
    return out


class Merchant:
    def __init__(self, stripe_js: str, react_bundle: Path | None = None) -> None:
        self.stripe_js = stripe_js
        self.react_bundle = react_bundle
        merchant = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                url = urlsplit(self.path)
                path = url.path
                release = parse_qs(url.query).get("release", [""])[0]
                stripe_js = merchant.stripe_js
                if release.isalpha():
                    stripe_js = stripe_js.replace("/v3/", f"/{release}/stripe.js")
                if path == "/react/app.js" and merchant.react_bundle is not None:
                    body = merchant.react_bundle.read_bytes()
                else:
                    name = "react/index.html" if path in ("/react/", "/react") else path.lstrip("/")
                    file = (HERE / name).resolve()
                    if HERE not in file.parents or not file.is_file():
                        self.send_error(404)
                        return
                    body = file.read_bytes().replace(b"{{STRIPE_JS}}", stripe_js.encode())
                    path = str(file)
                self.send_response(200)
                self.send_header("content-type", TYPES.get(Path(path).suffix, "text/plain"))
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
