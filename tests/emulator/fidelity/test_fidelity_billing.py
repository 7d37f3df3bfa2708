"""Billing fidelity, measured from outside: the calls a typical subscription integration
makes, at the API versions tasks cross (2020-08-27, 2023-10-16, 2025-03-31.basil and the
version stripe-python 16 pins, 2026-10-28.endive), each checked against what Stripe's
documentation states (the page is named in every test). Correct code must pass here and
wrong assumptions must fail, the same way they would on Stripe.

Every test runs one account per version (its default version, so events carry it too)
through the official python SDK with `stripe_version` set, on a test clock.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import stripe

from billing_helpers import DAY, JAN_1

BASIL = "2025-03-31.basil"
VERSIONS = ["2020-08-27", "2023-10-16", BASIL, "2026-10-28.endive"]
FEB_1 = JAN_1 + 31 * DAY


def newer(version: str, than: str) -> bool:
    """Versions order by their date prefix."""
    return version[:10] >= than[:10]


class Shop:
    """One account at one API version: a clock, a customer, a product."""

    def __init__(self, client: stripe.StripeClient, version: str, card: bool = True) -> None:
        self.client, self.version = client, version
        self.clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": JAN_1})
        self.customer = client.v1.customers.create(params={
            "email": "fidelity@example.com", "test_clock": self.clock.id})
        self.product = client.v1.products.create(params={"name": "Gold Plan"})
        self.card = self.save_card("pm_card_visa") if card else None

    def save_card(self, test_method: str) -> Any:
        pm = self.client.v1.payment_methods.attach(test_method,
                                                   params={"customer": self.customer.id})
        self.client.v1.customers.update(self.customer.id, params={
            "invoice_settings": {"default_payment_method": pm.id}})
        return pm

    def price(self, amount: int, interval: str = "month") -> Any:
        return self.client.v1.prices.create(params={
            "product": self.product.id, "unit_amount": amount, "currency": "usd",
            "recurring": {"interval": interval}})

    def subscribe(self, price: Any, **params: Any) -> Any:
        return self.client.v1.subscriptions.create(params={
            "customer": self.customer.id, "items": [{"price": price.id}], **params})

    def advance(self, when: int) -> Any:
        return self.client.v1.test_helpers.test_clocks.advance(
            self.clock.id, params={"frozen_time": when})

    def event_types(self, since: int = 0) -> list[str]:
        found = self.client.v1.events.list(params={"limit": 100}).auto_paging_iter()
        return [e.type for e in reversed(list(found)) if e.created >= since]


@pytest.fixture(params=VERSIONS)
def version(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture()
def versioned(emulator: Any, version: str) -> Iterator[stripe.StripeClient]:
    account = emulator.new_account(api_version=version)
    yield stripe.StripeClient(account["secret_key"], stripe_version=version,
                              base_addresses={"api": emulator.base}, max_network_retries=0)


def _invoice_subscription(inv: Any, version: str) -> str:
    """Where an invoice names its subscription: top level before basil, `parent` after
    (https://docs.stripe.com/changelog/basil/2025-03-31/adds-new-parent-field-to-invoicing-objects)."""
    if newer(version, BASIL):
        assert "subscription" not in inv
        return str(inv.parent.subscription_details.subscription)
    return str(inv.subscription)


# ------------------------------------------------------------------ create and pay

def test_create_charges_the_first_invoice_and_reports_periods(
        versioned: stripe.StripeClient, version: str) -> None:
    """With a saved card, creating a subscription finalizes and pays its first invoice
    at once (https://docs.stripe.com/billing/subscriptions/overview). Billing periods are
    on the subscription before basil and on its items from basil on; the invoice loses
    `paid` / `payment_intent` / `charge` in basil
    (https://docs.stripe.com/changelog/basil/2025-03-31/deprecate-subscription-current-period-start-and-end,
    https://docs.stripe.com/changelog/basil/2025-03-31/add-support-for-multiple-partial-payments-on-invoices)."""
    shop = Shop(versioned, version)
    sub = shop.subscribe(shop.price(2000), expand=["latest_invoice"])
    assert sub.status == "active" and sub.start_date == JAN_1
    item = sub["items"].data[0]
    inv = sub.latest_invoice
    assert (inv.status, inv.amount_paid, inv.billing_reason) == (
        "paid", 2000, "subscription_create")
    assert _invoice_subscription(inv, version) == sub.id
    if newer(version, BASIL):
        assert "current_period_end" not in sub
        assert (item.current_period_start, item.current_period_end) == (JAN_1, FEB_1)
        assert not {"paid", "payment_intent", "charge"} & set(inv.to_dict())
    else:
        assert (sub.current_period_start, sub.current_period_end) == (JAN_1, FEB_1)
        assert "current_period_end" not in item
        assert inv.paid is True and inv.payment_intent and inv.charge
    assert ["customer.subscription.created", "invoice.created", "invoice.finalized",
            "invoice.paid"] == [t for t in shop.event_types() if t in (
                "customer.subscription.created", "invoice.created", "invoice.finalized",
                "invoice.paid")]


def test_default_incomplete_is_paid_from_the_client(versioned: stripe.StripeClient,
                                                    version: str) -> None:
    """payment_behavior=default_incomplete leaves the subscription incomplete with an open
    first invoice whose PaymentIntent the client confirms; paying it activates the
    subscription (https://docs.stripe.com/billing/subscriptions/build-subscriptions). The
    client secret comes from `latest_invoice.payment_intent` before basil and from
    `latest_invoice.confirmation_secret` (expanded) from basil on
    (https://docs.stripe.com/changelog/basil/2025-03-31/add-support-for-multiple-partial-payments-on-invoices)."""
    shop = Shop(versioned, version, card=False)
    expand = ["latest_invoice.confirmation_secret"] if newer(version, BASIL) else [
        "latest_invoice.payment_intent"]
    sub = shop.subscribe(shop.price(1500), payment_behavior="default_incomplete",
                         payment_settings={"save_default_payment_method": "on_subscription"},
                         expand=expand)
    assert (sub.status, sub.latest_invoice.status) == ("incomplete", "open")
    if newer(version, BASIL):
        secret = sub.latest_invoice.confirmation_secret.client_secret
    else:
        secret = sub.latest_invoice.payment_intent.client_secret
    intent_id = secret.split("_secret_")[0]
    versioned.v1.payment_intents.confirm(intent_id, params={"payment_method": "pm_card_visa"})
    sub = versioned.v1.subscriptions.retrieve(sub.id, params={"expand": ["latest_invoice"]})
    assert (sub.status, sub.latest_invoice.status) == ("active", "paid")
    assert sub.default_payment_method  # saved on the subscription, as asked


def test_declined_first_payment_leaves_incomplete_then_expires(
        versioned: stripe.StripeClient, version: str) -> None:
    """A declined first payment leaves the subscription incomplete; after 23 hours unpaid
    it becomes incomplete_expired and its invoice is voided
    (https://docs.stripe.com/billing/subscriptions/overview#subscription-statuses).
    error_if_incomplete refuses instead (a 402)."""
    shop = Shop(versioned, version, card=False)
    shop.save_card("pm_card_chargeCustomerFail")
    price = shop.price(1500)
    sub = shop.subscribe(price, expand=["latest_invoice"])
    assert (sub.status, sub.latest_invoice.status) == ("incomplete", "open")
    with pytest.raises(stripe.CardError):
        shop.subscribe(price, payment_behavior="error_if_incomplete")
    shop.advance(JAN_1 + 24 * 3600)
    sub = versioned.v1.subscriptions.retrieve(sub.id, params={"expand": ["latest_invoice"]})
    assert (sub.status, sub.latest_invoice.status) == ("incomplete_expired", "void")


# ------------------------------------------------------------------ trials

def test_trial_bills_after_it_ends(versioned: stripe.StripeClient, version: str) -> None:
    """A trial starts `trialing` with a zero first invoice, warns three days before its end
    (customer.subscription.trial_will_end) and charges when it ends
    (https://docs.stripe.com/billing/subscriptions/trials)."""
    shop = Shop(versioned, version)
    sub = shop.subscribe(shop.price(900), trial_period_days=7, expand=["latest_invoice"])
    trial_end = JAN_1 + 7 * DAY
    assert (sub.status, sub.trial_end, sub.latest_invoice.amount_due) == (
        "trialing", trial_end, 0)
    assert sub.pending_setup_intent is None  # the saved card needs nothing more
    shop.advance(trial_end - 2 * DAY)
    assert "customer.subscription.trial_will_end" in shop.event_types()
    shop.advance(trial_end + 2 * 3600)
    sub = versioned.v1.subscriptions.retrieve(sub.id, params={"expand": ["latest_invoice"]})
    assert sub.status == "active"
    assert (sub.latest_invoice.billing_reason, sub.latest_invoice.amount_paid) == (
        "subscription_cycle", 900)


def test_trial_without_payment_method_gets_a_pending_setup_intent(
        versioned: stripe.StripeClient, version: str) -> None:
    """Nothing to pay now and no payment method: Stripe creates a SetupIntent for the
    customer to complete, on `pending_setup_intent`
    (https://docs.stripe.com/billing/subscriptions/deferred-payment)."""
    shop = Shop(versioned, version, card=False)
    sub = shop.subscribe(shop.price(900), trial_period_days=14,
                         expand=["pending_setup_intent"])
    intent = sub.pending_setup_intent
    assert (sub.status, intent.status, intent.usage) == (
        "trialing", "requires_payment_method", "off_session")
    versioned.v1.setup_intents.confirm(intent.id, params={"payment_method": "pm_card_visa"})
    assert versioned.v1.subscriptions.retrieve(sub.id).pending_setup_intent is None


# ------------------------------------------------------------------ changes, previews

def test_upgrade_preview_matches_the_prorations(versioned: stripe.StripeClient,
                                                version: str) -> None:
    """Previewing a price change with a fixed proration_date shows the prorations the
    update then makes (https://docs.stripe.com/billing/subscriptions/prorations): credit
    "Unused time on ..." and charge "Remaining time on ...". Before basil the preview is
    GET /v1/invoices/upcoming; from basil it is POST /v1/invoices/create_preview and the
    old endpoint is gone
    (https://docs.stripe.com/changelog/basil/2025-03-31/invoice-preview-api-deprecations)."""
    shop = Shop(versioned, version)
    cheap, dear = shop.price(3100), shop.price(6200)
    sub = shop.subscribe(cheap)
    item = sub["items"].data[0]
    when = JAN_1 + 10 * DAY
    shop.advance(when)
    if newer(version, BASIL):
        preview = versioned.v1.invoices.create_preview(params={
            "customer": shop.customer.id, "subscription": sub.id,
            "subscription_details": {"items": [{"id": item.id, "price": dear.id}],
                                     "proration_date": when}})
        with pytest.raises(stripe.InvalidRequestError):
            versioned.raw_request("get", "/v1/invoices/upcoming",
                                  customer=shop.customer.id, subscription=sub.id)
    else:
        raw = versioned.raw_request(
            "get", "/v1/invoices/upcoming", customer=shop.customer.id, subscription=sub.id,
            subscription_items=[{"id": item.id, "price": dear.id}],
            subscription_proration_date=when)
        preview = versioned.deserialize(raw, api_mode="V1")
    prorations = sorted(line.amount for line in preview.lines.data if line.amount != 6200)
    assert prorations == [-2100, 4200]  # 21 of January's 31 days: 3100 and 6200 × 21/31
    updated = versioned.v1.subscriptions.update(sub.id, params={
        "items": [{"id": item.id, "price": dear.id}], "proration_date": when,
        "proration_behavior": "always_invoice", "expand": ["latest_invoice"]})
    inv = updated.latest_invoice
    assert (inv.billing_reason, inv.amount_paid) == ("subscription_update", 2100)
    assert sorted(line.description for line in inv.lines.data) == [
        "Remaining time on Gold Plan after 11 Jan 2026",
        "Unused time on Gold Plan after 11 Jan 2026"]


def test_cancel_at_period_end_then_immediately(versioned: stripe.StripeClient,
                                               version: str) -> None:
    """cancel_at_period_end keeps the subscription active until the period ends, then
    cancels it; cancelling now ends it at once with customer.subscription.deleted
    (https://docs.stripe.com/billing/subscriptions/cancel)."""
    shop = Shop(versioned, version)
    price = shop.price(3100)
    later = shop.subscribe(price)
    later = versioned.v1.subscriptions.update(later.id, params={"cancel_at_period_end": True})
    assert (later.status, later.cancel_at_period_end, later.cancel_at) == (
        "active", True, FEB_1)
    now = shop.subscribe(price)
    canceled = versioned.v1.subscriptions.cancel(now.id)
    assert (canceled.status, canceled.ended_at) == ("canceled", JAN_1)
    shop.advance(FEB_1 + 60)
    later = versioned.v1.subscriptions.retrieve(later.id)
    assert (later.status, later.ended_at) == ("canceled", FEB_1)
    assert shop.event_types().count("customer.subscription.deleted") == 2
    with pytest.raises(stripe.InvalidRequestError):
        versioned.v1.subscriptions.update(canceled.id, params={"description": "again"})


def test_anchor_limit(versioned: stripe.StripeClient, version: str) -> None:
    """A billing_cycle_anchor may not lie past the next natural billing date
    (https://docs.stripe.com/billing/subscriptions/billing-cycle); up to it, the first
    invoice prorates the time before the anchor."""
    shop = Shop(versioned, version)
    price = shop.price(3100)
    sub = shop.subscribe(price, billing_cycle_anchor=JAN_1 + 15 * DAY,
                         expand=["latest_invoice"])
    assert sub.latest_invoice.amount_paid == 1500  # 15 of 31 days
    with pytest.raises(stripe.InvalidRequestError) as caught:
        shop.subscribe(price, billing_cycle_anchor=FEB_1 + DAY)
    assert caught.value.param == "billing_cycle_anchor"


# ------------------------------------------------------------------ invoices

def test_one_off_invoice_draft_finalize_pay(versioned: stripe.StripeClient,
                                            version: str) -> None:
    """A one-off invoice starts as a draft, gets its number when finalized and is paid
    with `pay` (https://docs.stripe.com/invoicing/integration/workflow-transitions).
    Invoice items name a `price` before basil and `pricing[price]` from basil on
    (https://docs.stripe.com/changelog/basil/2025-03-31/adds-new-parent-field-to-invoicing-objects).
    Before 2022-08-01 a new invoice takes the pending items by default and refuses to
    exist without one; later it takes none unless told
    (https://docs.stripe.com/changelog/2022-08-01/removes-include-require-value-invoices)."""
    shop = Shop(versioned, version)
    one_time = versioned.v1.prices.create(params={
        "product": shop.product.id, "unit_amount": 4500, "currency": "usd"})
    old_default = not newer(version, "2022-08-01")
    if old_default:
        with pytest.raises(stripe.InvalidRequestError) as caught:
            versioned.v1.invoices.create(params={"customer": shop.customer.id})
        assert caught.value.code == "invoice_no_customer_line_items"
    price_param: dict[str, Any] = {"pricing": {"price": one_time.id}} if newer(
        version, BASIL) else {"price": one_time.id}
    versioned.v1.invoice_items.create(params={  # type: ignore[arg-type]
        "customer": shop.customer.id, **price_param})
    params: dict[str, Any] = {"customer": shop.customer.id}
    if not old_default:
        params["pending_invoice_items_behavior"] = "include"
    draft = versioned.v1.invoices.create(params=params)  # type: ignore[arg-type]
    assert (draft.status, draft.number, draft.amount_due) == ("draft", None, 4500)
    opened = versioned.v1.invoices.finalize_invoice(draft.id)
    assert opened.status == "open" and opened.number
    paid = versioned.v1.invoices.pay(opened.id)
    assert (paid.status, paid.amount_paid, paid.amount_remaining) == ("paid", 4500, 0)
    if not newer(version, BASIL):
        assert paid.paid is True


def test_send_invoice_subscription_is_due_later(versioned: stripe.StripeClient,
                                                version: str) -> None:
    """collection_method=send_invoice: the subscription is active at once and its invoice
    is open with a due date days_until_due later
    (https://docs.stripe.com/billing/collection-method)."""
    shop = Shop(versioned, version, card=False)
    sub = shop.subscribe(shop.price(4000), collection_method="send_invoice", days_until_due=14,
                         expand=["latest_invoice"])
    assert sub.status == "active"
    assert (sub.latest_invoice.status, sub.latest_invoice.due_date) == (
        "open", JAN_1 + 14 * DAY)


# ------------------------------------------------------------------ schedules

def test_schedule_starting_now_drafts_its_first_invoice(versioned: stripe.StripeClient,
                                                        version: str) -> None:
    """A schedule starting now creates its subscription at once, with a first invoice
    that starts as a draft (https://docs.stripe.com/api/subscriptions/create points to
    schedules for that), so no payment method is needed yet. Phases are sized with
    `iterations` before 2025-07-30, with `duration` from then on; `iterations` is gone
    from 2025-09-30.clover
    (https://docs.stripe.com/changelog/basil/2025-07-30/add-schedule-phase-duration,
    https://docs.stripe.com/changelog/clover/2025-09-30/remove-iterations)."""
    shop = Shop(versioned, version, card=False)
    basic, pro = shop.price(1000), shop.price(3000)
    modern = newer(version, "2025-09-30")
    size: dict[str, Any] = {"duration": {"interval": "month"}} if modern else {
        "iterations": 1}
    schedule = versioned.v1.subscription_schedules.create(params={  # type: ignore[misc]
        "customer": shop.customer.id, "start_date": "now", "end_behavior": "release",
        "phases": [{"items": [{"price": basic.id}], **size},
                   {"items": [{"price": pro.id}], **size}]})
    assert schedule.status == "active"
    assert [(p.start_date, p.end_date) for p in schedule.phases] == [
        (JAN_1, FEB_1), (FEB_1, FEB_1 + 28 * DAY)]
    sub = versioned.v1.subscriptions.retrieve(schedule.subscription,
                                              params={"expand": ["latest_invoice"]})
    assert (sub.status, sub.latest_invoice.status, sub.schedule) == (
        "active", "draft", schedule.id)
    # A subscription's draft is not deleted but voided once finalized
    # (https://docs.stripe.com/api/invoices/delete).
    with pytest.raises(stripe.InvalidRequestError):
        versioned.v1.invoices.delete(sub.latest_invoice.id)
    wrong = {"iterations": 1} if modern else {"duration": {"interval": "month"}}
    with pytest.raises(stripe.InvalidRequestError) as caught:
        versioned.v1.subscription_schedules.create(params={  # type: ignore[misc]
            "customer": shop.customer.id, "start_date": "now",
            "phases": [{"items": [{"price": basic.id}], **wrong}]})
    assert caught.value.code == "parameter_unknown"


def test_schedule_moves_to_its_next_phase_on_the_clock(versioned: stripe.StripeClient,
                                                       version: str) -> None:
    """Phases change the subscription's prices at their start and the schedule releases
    the subscription at its end (https://docs.stripe.com/billing/subscriptions/subscription-schedules)."""
    shop = Shop(versioned, version)
    basic, pro = shop.price(1000), shop.price(3000)
    size = {"end_date": FEB_1}
    schedule = versioned.v1.subscription_schedules.create(params={  # type: ignore[misc]
        "customer": shop.customer.id, "start_date": "now",
        "phases": [{"items": [{"price": basic.id}], **size},
                   {"items": [{"price": pro.id}], "end_date": FEB_1 + 28 * DAY}]})
    shop.advance(FEB_1 + 2 * 3600)
    sub = versioned.v1.subscriptions.retrieve(schedule.subscription,
                                              params={"expand": ["latest_invoice"]})
    assert sub["items"].data[0].price.id == pro.id
    assert (sub.latest_invoice.amount_paid, sub.latest_invoice.billing_reason) == (
        3000, "subscription_cycle")
    shop.advance(FEB_1 + 28 * DAY + 60)
    done = versioned.v1.subscription_schedules.retrieve(schedule.id)
    assert (done.status, done.released_subscription) == ("released", sub.id)
    assert versioned.v1.subscriptions.retrieve(sub.id).status == "active"


# ------------------------------------------------------------------ test clocks

def test_test_clock_advance_limits(versioned: stripe.StripeClient, version: str) -> None:
    """A clock advances forward only, at most two intervals of its shortest subscription
    (two years without one) per advance
    (https://docs.stripe.com/api/test_clocks/advance)."""
    shop = Shop(versioned, version)
    shop.subscribe(shop.price(700, "week"))
    with pytest.raises(stripe.InvalidRequestError) as caught:
        shop.advance(JAN_1 + 15 * DAY)
    assert caught.value.param == "frozen_time"
    with pytest.raises(stripe.InvalidRequestError):
        shop.advance(JAN_1 - DAY)
    advanced = shop.advance(JAN_1 + 14 * DAY)
    assert advanced.frozen_time == JAN_1 + 14 * DAY
    renewals = versioned.v1.invoices.list(params={"customer": shop.customer.id}).data
    assert sorted(i.created for i in renewals) == [JAN_1, JAN_1 + 7 * DAY, JAN_1 + 14 * DAY]


def test_anchor_reset_and_trial_end_now(versioned: stripe.StripeClient, version: str) -> None:
    """`trial_end=now` ends a trial at once and bills a full period from now; resetting
    the cycle with `billing_cycle_anchor` "now" bills the new period at once, crediting the
    unused time (https://docs.stripe.com/billing/subscriptions/billing-cycle). From
    2026-09-30.endive the anchor is written as an object, `{type: now}`
    (https://docs.stripe.com/changelog/endive/2026-09-30/polymorphic-billing-cycle-anchor)."""
    shop = Shop(versioned, version)
    price = shop.price(3100)
    trial = shop.subscribe(price, trial_period_days=10)
    shop.advance(JAN_1 + 3 * DAY)
    ended = versioned.v1.subscriptions.update(trial.id, params={
        "trial_end": "now", "expand": ["latest_invoice"]})
    assert (ended.status, ended.trial_end, ended.billing_cycle_anchor) == (
        "active", JAN_1 + 3 * DAY, JAN_1 + 3 * DAY)
    assert ended.latest_invoice.amount_paid == 3100
    sub = shop.subscribe(price)
    shop.advance(JAN_1 + 10 * DAY)
    anchor: Any = {"type": "now"} if newer(version, "2026-09-30") else "now"
    if newer(version, BASIL):  # the preview takes the anchor in the same form
        preview = versioned.v1.invoices.create_preview(params={
            "customer": shop.customer.id, "subscription": sub.id,
            "subscription_details": {"billing_cycle_anchor": anchor}})
        assert preview.amount_due == 700
    reset = versioned.v1.subscriptions.update(sub.id, params={
        "billing_cycle_anchor": anchor, "expand": ["latest_invoice"]})
    assert reset.billing_cycle_anchor == JAN_1 + 10 * DAY
    # Bought on 4 January: the new period in full (3100) less the unused 24 of the
    # 31 days to 4 February (2400).
    assert reset.latest_invoice.amount_paid == 700
    stale: Any = "now" if newer(version, "2026-09-30") else {"type": "now"}
    with pytest.raises(stripe.InvalidRequestError):
        versioned.v1.subscriptions.update(sub.id, params={"billing_cycle_anchor": stale})


def test_events_carry_the_accounts_version(versioned: stripe.StripeClient,
                                           version: str) -> None:
    """Events are rendered at the account's API version: `api_version` says which, and the
    objects inside have that version's shape (https://docs.stripe.com/webhooks/versioning)."""
    shop = Shop(versioned, version)
    sub = shop.subscribe(shop.price(2000))
    paid = versioned.v1.events.list(params={"type": "invoice.paid"}).data[0]
    assert paid.api_version == version
    inv = paid.data.object
    assert _invoice_subscription(inv, version) == sub.id
    created = versioned.v1.events.list(params={
        "type": "customer.subscription.created"}).data[0].data.object
    assert ("current_period_end" in created) is not newer(version, BASIL)


def test_void_and_uncollectible_invoices(versioned: stripe.StripeClient,
                                         version: str) -> None:
    """An open invoice can be voided (nothing more is owed) or marked uncollectible, which
    only changes the bookkeeping: it can still be paid, or voided
    (https://docs.stripe.com/invoicing/overview, invoice statuses); a draft cannot be
    voided (https://docs.stripe.com/api/invoices/void)."""
    shop = Shop(versioned, version)
    one_time = versioned.v1.prices.create(params={
        "product": shop.product.id, "unit_amount": 1200, "currency": "usd"})
    invoices = []
    for _ in range(2):
        price_param: dict[str, Any] = {"pricing": {"price": one_time.id}} if newer(
            version, BASIL) else {"price": one_time.id}
        versioned.v1.invoice_items.create(params={  # type: ignore[arg-type]
            "customer": shop.customer.id, **price_param})
        params: dict[str, Any] = {"customer": shop.customer.id}
        if newer(version, "2022-08-01"):
            params["pending_invoice_items_behavior"] = "include"
        invoices.append(versioned.v1.invoices.create(params=params))  # type: ignore[arg-type]
    with pytest.raises(stripe.InvalidRequestError):
        versioned.v1.invoices.void_invoice(invoices[0].id)
    first, second = (versioned.v1.invoices.finalize_invoice(i.id) for i in invoices)
    voided = versioned.v1.invoices.void_invoice(first.id)
    assert (voided.status, voided.amount_remaining) == ("void", 1200)
    doubtful = versioned.v1.invoices.mark_uncollectible(second.id)
    assert doubtful.status == "uncollectible"
    assert versioned.v1.invoices.pay(second.id).status == "paid"


def test_trial_ending_without_card_pauses_then_resumes(versioned: stripe.StripeClient,
                                                       version: str) -> None:
    """With trial_settings.end_behavior.missing_payment_method=pause, a trial that ends
    without a payment method pauses the subscription; `resume` starts it again and bills
    the new period (https://docs.stripe.com/billing/subscriptions/trials, "Use trial
    periods without a payment method"; https://docs.stripe.com/api/subscriptions/resume).
    The anchor on resume is a string before endive and an object from endive on."""
    shop = Shop(versioned, version, card=False)
    sub = shop.subscribe(shop.price(1200), trial_period_days=7, trial_settings={
        "end_behavior": {"missing_payment_method": "pause"}})
    shop.advance(JAN_1 + 8 * DAY)
    assert versioned.v1.subscriptions.retrieve(sub.id).status == "paused"
    assert "customer.subscription.paused" in shop.event_types()
    shop.save_card("pm_card_visa")
    anchor: Any = {"type": "now"} if newer(version, "2026-09-30") else "now"
    resumed = versioned.v1.subscriptions.resume(sub.id, params={
        "billing_cycle_anchor": anchor, "expand": ["latest_invoice"]})
    assert (resumed.status, resumed.latest_invoice.amount_paid) == ("active", 1200)


def test_renewal_event_names_the_old_period(versioned: stripe.StripeClient,
                                            version: str) -> None:
    """At renewal customer.subscription.updated says what changed: before basil the old
    `current_period_start/end`; from basil the `items` whose billing periods moved
    (https://docs.stripe.com/changelog/basil/2025-03-31/deprecate-subscription-current-period-start-and-end)."""
    shop = Shop(versioned, version)
    shop.subscribe(shop.price(2000))
    shop.advance(FEB_1 + 2 * 3600)
    [renewal] = [e for e in versioned.v1.events.list(params={
        "type": "customer.subscription.updated"}).data if e.created == FEB_1]
    previous = renewal.data.to_dict()["previous_attributes"]
    if newer(version, BASIL):
        assert "current_period_start" not in previous
        [old_item] = previous["items"]["data"]
        assert (old_item["current_period_start"], old_item["current_period_end"]) == (
            JAN_1, FEB_1)
    else:
        assert (previous["current_period_start"], previous["current_period_end"]) == (
            JAN_1, FEB_1)
        assert "items" not in previous
