"""How the emulator serves Stripe.js: the paths @stripe/stripe-js uses, versions, frames."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from paths import REPO

ROOT = REPO


def test_stripe_js_url_injected_by_the_loader_is_served(emulator: Any) -> None:
    loader = (ROOT / "node_modules/@stripe/stripe-js/dist/index.mjs").read_text()
    train = re.search(r"RELEASE_TRAIN = '(\w+)'", loader)
    assert train is not None
    response = httpx.get(f"{emulator.base}/js.stripe.com/{train.group(1)}/stripe.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/javascript")
    assert f'var RELEASE = "{train.group(1)}";' in response.text


@pytest.mark.parametrize("path", ["/v3/", "/v3", "/v3/stripe.js"])
def test_v3_paths(emulator: Any, path: str) -> None:
    response = httpx.get(f"{emulator.base}/js.stripe.com{path}")
    assert response.status_code == 200
    assert "var RELEASE = 3;" in response.text
    assert "window.Stripe = Stripe" in response.text


def test_routed_host_and_unknown_release(emulator: Any) -> None:
    routed = httpx.get(f"{emulator.base}/v3/", headers={"Host": "js.stripe.com"})
    assert routed.status_code == 200 and "var RELEASE = 3;" in routed.text
    assert httpx.get(f"{emulator.base}/js.stripe.com/zzz/stripe.js").status_code == 404


@pytest.mark.parametrize(("kind", "labels"), [
    ("card", ["Card number", "Expiration date", "Security code", "ZIP"]),
    ("payment", ["Card number", "Expiration date", "Security code", "Country", "ZIP code"]),
    ("address", ["Full name", "Address line 1", "City", "State", "ZIP code"]),
    ("linkAuthentication", ["Email"]),
])
def test_element_frames(emulator: Any, kind: str, labels: list[str]) -> None:
    page = httpx.get(f"{emulator.base}/js.stripe.com/v3/elements/{kind}.html")
    assert page.status_code == 200
    assert f'data-stripebench-element="{kind}"' in page.text
    for label in labels:
        assert f"'{label}'" in page.text
    assert httpx.get(f"{emulator.base}/js.stripe.com/v3/elements/nope.html").status_code == 404
