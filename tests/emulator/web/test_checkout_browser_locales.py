"""Every locale Checkout accepts renders the page's own labels in that language.

`checkout.sessions.create(locale=...)` accepts the locales the SDK's enum lists
(https://docs.stripe.com/api/checkout/sessions/create#create_checkout_session-locale);
`auto` follows the browser. The emulator's translations are its own; this checks that no
accepted locale falls back to an English page, in real Chromium.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import stripe
from playwright.sync_api import Page, expect

from checkout_helpers import price
from stripebench.emulator.web.checkout.locales import (
    LABELS,
    LOCALES,
    MESSAGES,
    Translator,
    pick_locale,
)

SUCCESS = "https://shop.test/success"
ENGLISH = Translator("en")
# Labels that are the same word in some languages ("CVC", "Email", "Subtotal" ...).
SHARED_WORDS = {"cvc", "email", "subtotal", "card", "expiration_placeholder", "privacy",
                "name", "postal_code", "qty", "promotion_code", "optional", "powered_by"}


def _sdk_locales() -> list[str]:
    from stripe.params.checkout._session_create_params import SessionCreateParams
    annotation = str(SessionCreateParams.__annotations__["locale"])
    return [tag for tag in re.findall(r"'([\w-]+)'", annotation) if tag != "auto"]


def test_every_locale_the_sdk_accepts_has_a_translation() -> None:
    assert sorted(_sdk_locales()) == sorted(LOCALES)


@pytest.mark.parametrize("locale", [tag for tag in LOCALES if not tag.startswith("en")])
def test_each_locale_translates_the_page_labels(locale: str) -> None:
    t = Translator(locale)
    assert t.locale == locale
    same = [key for key in LABELS + MESSAGES
            if t(key) == ENGLISH(key) and key not in SHARED_WORDS]
    assert same == [], f"{locale} shows English for {same}"


@pytest.mark.parametrize(("header", "expected"), [
    ("pt-BR,pt;q=0.9,en;q=0.5", "pt-BR"), ("ko-KR,ko;q=0.9", "ko"), ("zh-TW", "zh-TW"),
    ("zh-CN,zh;q=0.9", "zh"), ("es-MX", "es"), ("nb-NO", "nb"), ("xx-YY", "en"),
])
def test_auto_follows_the_browser(header: str, expected: str) -> None:
    assert pick_locale("auto", header) == expected


def test_pages_render_in_every_locale(page: Page, client: stripe.StripeClient) -> None:
    item = price(client, 1250, "Compass")
    for locale in LOCALES:
        session = client.v1.checkout.sessions.create(params={
            "mode": "payment", "locale": locale, "success_url": SUCCESS,
            "line_items": [{"price": item.id, "quantity": 1}]})
        assert session.locale == locale
        page.goto(str(session.url))
        t = Translator(locale)
        assert page.get_attribute("html", "lang") == locale
        expect(page.locator("#submit")).to_have_text(t("submit_pay"))
        expect(page.locator("label[for=card-number]")).to_have_text(t("card_number"))
        expect(page.locator("label[for=card-name]")).to_have_text(t("cardholder_name"))
        expect(page.locator("#card-expiry")).to_have_attribute(
            "placeholder", t("expiration_placeholder"))
        if not locale.startswith("en"):
            assert t("card_number") != ENGLISH("card_number"), locale


def test_korean_session_is_korean_end_to_end(page: Page, client: stripe.StripeClient) -> Any:
    """Labels, money and an inline error in Korean (before: the page was English)."""
    item = price(client, 5000, "Tea set", currency="krw")
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "locale": "ko", "success_url": SUCCESS,
        "line_items": [{"price": item.id, "quantity": 2}]})
    page.goto(str(session.url))
    expect(page.locator("#submit")).to_have_text("결제하기")
    expect(page.get_by_text("카드 번호").first).to_be_visible()
    expect(page.locator("body")).to_contain_text("₩10,000")
    expect(page.locator("body")).to_contain_text("소계")
    page.get_by_label("이메일").fill("not-an-email")
    page.locator("#submit").click()
    expect(page.locator("#err-email")).to_have_text("이메일 주소가 올바르지 않습니다.")
