"""Browser-facing surfaces (Stripe.js, Checkout pages, 3DS, receipts, portals).

Pages register with `@page("checkout.stripe.com", "GET", "/c/pay/{session}")`. They are
reached either by the real host name (when `stripebench exec` routes Stripe's hosts to
the emulator over HTTPS) or by a plain path on the emulator's own port:
`http://127.0.0.1:12111/checkout.stripe.com/c/pay/cs_test_...`.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from html import escape as _escape
from importlib import import_module
from pkgutil import iter_modules
from typing import TYPE_CHECKING, Any

from ..http import Request, Response

if TYPE_CHECKING:
    from ..store import Store

# Host names Stripe serves that the emulator answers for.
STRIPE_HOSTS = (
    "api.stripe.com", "files.stripe.com", "uploads.stripe.com", "connect.stripe.com",
    "checkout.stripe.com", "js.stripe.com", "connect-js.stripe.com", "m.stripe.com",
    "m.stripe.network", "q.stripe.com", "r.stripe.com", "b.stripecdn.com",
    "hooks.stripe.com", "billing.stripe.com", "pay.stripe.com", "invoice.stripe.com",
    "merchant-ui-api.stripe.com", "dashboard.stripe.com", "meter-events.stripe.com",
    "buy.stripe.com",
)

PageHandler = Callable[..., "Response | Awaitable[Response]"]


@dataclass(frozen=True)
class Page:
    host: str
    method: str
    pattern: re.Pattern[str]
    handler: PageHandler


PAGES: list[Page] = []


def page(host: str, method: str, template: str) -> Callable[[PageHandler], PageHandler]:
    regex = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
    regex = regex.replace(r"\{path\*\}", "(?P<path>.*)")

    def register(fn: PageHandler) -> PageHandler:
        PAGES.append(Page(host, method.upper(), re.compile(f"^{regex}$"), fn))
        return fn
    return register


def find(host: str, method: str, path: str) -> tuple[Page, dict[str, str]] | None:
    for p in PAGES:
        if p.host == host and p.method == method:
            found = p.pattern.match(path)
            if found:
                return p, found.groupdict()
    return None


@dataclass
class Web:
    """What a page handler gets: the store and how to link back to the emulator."""

    store: Store
    request: Request
    routed: bool  # reached through a Stripe host name rather than a plain path
    local_origin: str

    def url(self, host: str, path: str) -> str:
        return url_for(self.routed, self.local_origin, host, path)

    @property
    def api_base(self) -> str:
        return self.url("api.stripe.com", "").rstrip("/")


def url_for(routed: bool, local_origin: str, host: str, path: str) -> str:
    if routed:
        return f"https://{host}{path}"
    return f"{local_origin}/{host}{path}"


def load_all() -> None:
    """Import every page module so its routes register."""

    for info in iter_modules(__path__):
        import_module(f"{__name__}.{info.name}")


def escape(text: Any) -> str:
    return _escape("" if text is None else str(text), quote=True)
