"""checkout-gym's wider parameters: the pool draws each, the emulator takes each as Stripe
does, the grader scores each, and Chromium shows each the way Checkout does.

The parameters (issue 19): payment method types as tabs (`payment_method_types` before
the endive API version, `allowed_payment_method_types` from it,
https://docs.stripe.com/changelog/endive/2026-09-30/remove-payment-method-types-checkout-sessions),
`locale=ko` and the other Checkout locales, `tax_id_collection.required`
(https://docs.stripe.com/tax/checkout/tax-ids), `payment_intent_data.setup_future_usage`
(the saving notice, https://docs.stripe.com/payments/checkout/save-during-payment) and
`subscription_data.proration_behavior` (https://docs.stripe.com/payments/checkout/billing-cycle:
`none` makes the period before the anchor free).
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

import stripe
from playwright.sync_api import Page, expect

from conftest import load_module
from paths import REPO
from stripebench.emulator.resources.checkout_params import pm_incompatibility
from stripebench.emulator.web.checkout.locales import LOCALES
from stripebench.harness.fixtures import seed
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "checkout-gym"
generate = load_module(TASK / "tests" / "generate.py", "gym_params_generate")
sys.path.insert(0, str(TASK / "tests"))
import canonical  # noqa: E402

SEEDS = range(60)
RETURN = "https://shop.test/done"


def pool() -> list[dict[str, Any]]:
    return [c["params"] for s in SEEDS for c in generate.generate(s)]


def test_the_pool_draws_every_new_parameter_across_seeds() -> None:
    counts: Counter[str] = Counter()
    locales: set[str] = set()
    methods: set[str] = set()
    for params in pool():
        for name in ("payment_method_types", "allowed_payment_method_types"):
            if name in params:
                counts[name] += 1
                methods |= set(params[name]) - {"card"}
        if params.get("locale"):
            locales.add(params["locale"])
            counts[f"locale={params['locale']}"] += 1
        if (params.get("tax_id_collection") or {}).get("required") == "if_supported":
            counts["tax_id_collection.required"] += 1
        usage = (params.get("payment_intent_data") or {}).get("setup_future_usage")
        if usage:
            counts[f"setup_future_usage={usage}"] += 1
        behaviour = (params.get("subscription_data") or {}).get("proration_behavior")
        if behaviour:
            counts[f"proration_behavior={behaviour}"] += 1
    print(dict(counts))
    for wanted in ("payment_method_types", "allowed_payment_method_types", "locale=ko",
                   "tax_id_collection.required", "setup_future_usage=off_session",
                   "setup_future_usage=on_session", "proration_behavior=none",
                   "proration_behavior=create_prorations"):
        assert counts[wanted] >= 3, (wanted, counts[wanted])
    assert len(locales) >= 30, sorted(locales)  # most Checkout locales, not three
    assert {"ideal", "sepa_debit", "bacs_debit", "us_bank_account", "klarna"} <= methods


def test_the_generator_lists_stay_in_step_with_the_emulator() -> None:
    """The generator is stdlib-only (the oracle runs in the sandbox), so it copies the
    locale list and its payment methods; both must match what the emulator accepts."""
    assert sorted(generate.LOCALES) == sorted(set(LOCALES) - {"en"})
    assert set(generate.FULL_LOCALES) <= set(generate.LOCALES)
    for (kind, currency), types in generate.PAYMENT_METHODS.items():
        modes = ["payment"] if kind == "payment" else ["subscription", "setup"]
        for pm_type in types:
            for mode in modes:
                assert pm_incompatibility(pm_type, currency, mode) is None, (pm_type, mode)


def test_every_seeded_page_creates_as_the_setup_creates_it(emulator: Any,
                                                           account: dict[str, str]) -> None:
    """All challenges of many seeds, created the way tests/prepare.py does (a session
    naming `payment_method_types` at the newest version before endive): none refused,
    and each stores its new parameters as given."""
    seed(emulator.base, account["secret_key"], load_task(TASK).fixtures)
    prepare = load_module(TASK / "tests" / "prepare.py", "gym_params_prepare")
    client = prepare.stripe_client(emulator.base, account["secret_key"])
    prices, rates = prepare.catalog_ids(client)
    for number in range(12):
        for challenge in generate.generate(number):
            params = generate.resolve(challenge["params"], prices, rates)
            old = "payment_method_types" in params
            options = {"stripe_version": generate.PRE_ENDIVE_VERSION} if old else {}
            session = client.v1.checkout.sessions.create(
                dict(params, ui_mode="embedded_page", return_url=RETURN), options)
            given = params.get("payment_method_types") or params.get(
                "allowed_payment_method_types") or ["card"]
            assert session.payment_method_types == given
            assert session.locale == params.get("locale")
            tax_ids = params.get("tax_id_collection") or {}
            if tax_ids:
                assert session.tax_id_collection.required == tax_ids.get("required", "never")


# ------------------------------------------------------------------ grading

def score(answer: dict[str, Any], truth: dict[str, Any]) -> float:
    return canonical.f1(canonical.leaves(truth, {}), canonical.leaves(answer, {}))["f1"]


BASE = {"mode": "payment", "line_items": [{"price": "price_a", "quantity": 1}]}


def test_payment_method_types_score_as_a_set_under_either_name() -> None:
    truth = {**BASE, "payment_method_types": ["card", "ideal", "sepa_debit"]}
    assert score({**BASE, "allowed_payment_method_types": ["sepa_debit", "card", "ideal"]},
                 truth) == 1.0
    assert score({**BASE, "payment_method_types": ["card", "ideal"]}, truth) < 1.0
    assert score(BASE, truth) < 1.0
    # Card alone is the default page: writing it neither helps nor hurts.
    assert score({**BASE, "payment_method_types": ["card"]}, BASE) == 1.0
    assert score({**BASE, "payment_method_types": ["card", "klarna"]}, BASE) < 1.0


def test_setup_future_usage_counts_as_set_whichever_value() -> None:
    truth = {**BASE, "payment_intent_data": {"setup_future_usage": "on_session"}}
    assert score({**BASE, "payment_intent_data": {"setup_future_usage": "off_session"}},
                 truth) == 1.0
    assert score(BASE, truth) < 1.0
    assert score(truth, BASE) < 1.0


def test_required_tax_id_and_proration_are_leaves_defaults_are_not() -> None:
    truth = {**BASE, "tax_id_collection": {"enabled": True, "required": "if_supported"}}
    assert score({**BASE, "tax_id_collection": {"enabled": True}}, truth) < 1.0
    assert score({**BASE, "tax_id_collection": {"enabled": True, "required": "never"}},
                 {**BASE, "tax_id_collection": {"enabled": True}}) == 1.0
    sub = {"mode": "subscription", "line_items": [{"price": "price_m", "quantity": 1}],
           "subscription_data": {"billing_cycle_anchor": 1_768_694_400}}
    free = {**sub, "subscription_data": {**sub["subscription_data"],
                                         "proration_behavior": "none"}}
    prorated = {**sub, "subscription_data": {**sub["subscription_data"],
                                             "proration_behavior": "create_prorations"}}
    assert score(prorated, sub) == 1.0 and score(sub, prorated) == 1.0
    assert score(sub, free) < 1.0 and score(prorated, free) < 1.0


def test_the_locale_is_a_leaf() -> None:
    assert score({**BASE, "locale": "ko"}, {**BASE, "locale": "ko"}) == 1.0
    assert score({**BASE, "locale": "ja"}, {**BASE, "locale": "ko"}) < 1.0
    assert score(BASE, {**BASE, "locale": "ko"}) < 1.0


# ------------------------------------------------------------------ pages in Chromium

def _price(client: stripe.StripeClient, currency: str = "usd",
           recurring: bool = False) -> str:
    params: dict[str, Any] = {"currency": currency, "unit_amount": 2500,
                              "product_data": {"name": "Trail shoes"}}
    if recurring:
        params["recurring"] = {"interval": "month"}
    return str(client.v1.prices.create(params=params).id)  # type: ignore[arg-type]


def test_pages_show_each_new_parameter(page: Page, emulator: Any, account: dict[str, str],
                                       client: stripe.StripeClient) -> None:
    old = stripe.StripeClient(account["secret_key"], stripe_version=generate.PRE_ENDIVE_VERSION,
                              base_addresses={"api": emulator.base})
    # Payment method tabs, named the pre-endive way on a EUR session ...
    s = old.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": RETURN, "currency": "eur",
        "line_items": [{"price": _price(client, "eur"), "quantity": 1}],
        "payment_method_types": ["card", "ideal", "sepa_debit"]})
    page.goto(str(s.url))
    expect(page.get_by_role("tab")).to_have_text(["Card", "iDEAL", "SEPA Direct Debit"])
    expect(page.get_by_role("tab", name="Card")).to_have_attribute("aria-selected", "true")
    # ... and the endive way, where an incompatible method is left off the tabs.
    s = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": RETURN,
        "line_items": [{"price": _price(client), "quantity": 1}],
        "allowed_payment_method_types": ["card", "cashapp", "ideal", "affirm"]})
    page.goto(str(s.url))
    expect(page.get_by_role("tab")).to_have_text(["Card", "Cash App Pay", "Affirm"])

    # Korean: the page's labels, the required tax id and the saving notice in Korean.
    s = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": RETURN, "locale": "ko",
        "line_items": [{"price": _price(client), "quantity": 1}],
        "tax_id_collection": {"enabled": True, "required": "if_supported"},
        "payment_intent_data": {"setup_future_usage": "off_session"}})
    page.goto(str(s.url))
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    expect(page.locator("#payment-title")).to_have_text("결제 수단")
    expect(page.locator("#submit")).to_have_text("결제하기")
    # A required tax id: its field shows at once, with no "purchasing as a business" box.
    expect(page.get_by_text("사업자 등록 번호 (사업자 필수)")).to_be_visible()
    expect(page.get_by_label("사업자 등록 번호", exact=True)).to_be_visible()
    expect(page.locator(".tax-id input[type=checkbox]")).to_have_count(0)
    expect(page.locator("#reuse-agreement")).to_contain_text("결제 정보를 저장하면")

    # The same options in English, and their absence.
    s = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": RETURN,
        "line_items": [{"price": _price(client), "quantity": 1}],
        "tax_id_collection": {"enabled": True},
        "payment_intent_data": {"setup_future_usage": "on_session"}})
    page.goto(str(s.url))
    expect(page.locator("#reuse-agreement")).to_contain_text(
        "By saving your payment information")
    expect(page.get_by_label("I'm purchasing as a business")).not_to_be_checked()
    expect(page.get_by_label("Tax ID", exact=True)).to_be_hidden()
    s = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": RETURN,
        "line_items": [{"price": _price(client), "quantity": 1}]})
    page.goto(str(s.url))
    expect(page.locator("#reuse-agreement")).to_have_count(0)
    expect(page.locator(".pm-tab")).to_have_count(0)

    # An anchor without proration: the first period is free until the anchor date.
    now = int(client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": RETURN,
        "line_items": [{"price": _price(client), "quantity": 1}]}).created)
    anchor = (now // 86_400 + 12) * 86_400
    for behaviour, text, total in (("none", "No charge until", "$0.00"),
                                   ("create_prorations", "Prorated charge", None)):
        s = client.v1.checkout.sessions.create(params={
            "mode": "subscription", "success_url": RETURN,
            "line_items": [{"price": _price(client, recurring=True), "quantity": 1}],
            "subscription_data": {"billing_cycle_anchor": anchor,
                                  "proration_behavior": behaviour}})
        page.goto(str(s.url))
        expect(page.locator(".line-anchor")).to_contain_text(text)
        if total:
            expect(page.locator("#total")).to_have_text(total)
