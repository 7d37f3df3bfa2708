"""`expand[]` paths as Stripe resolves them, driven through the official SDKs.

Stripe documents that expansion recurses with dots, that list expansions start with
`data`, and that a path has at most four levels
(https://docs.stripe.com/api/expanding_objects, https://docs.stripe.com/expand). A path may
go through the `data` of a list embedded in an object (`items.data.price.product` on a
subscription, `lines.data.price.product` on an older invoice), and naming an object that the
request's API version already embeds is accepted (it stays as it is).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import stripe

from conftest import RunningEmulator
from node_helpers import run_node_script

OLD_LINES = "2023-10-16"  # invoice lines carried a full `price` before 2025-03-31.basil
OLD_PROMO = "2024-06-20"  # promotion codes embedded their `coupon` before 2025-09-30.clover


def client_at(emulator: RunningEmulator, account: dict[str, str],
              version: str | None = None) -> stripe.StripeClient:
    return stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base},
                               stripe_version=version, max_network_retries=0)


def subscribed(client: stripe.StripeClient) -> tuple[Any, Any, Any]:
    customer = client.v1.customers.create(params={
        "email": "expand@example.com", "payment_method": "pm_card_visa",
        "invoice_settings": {"default_payment_method": "pm_card_visa"}})
    product = client.v1.products.create(params={"name": "Seats"})
    price = client.v1.prices.create(params={"product": product.id, "currency": "usd",
                                            "unit_amount": 700,
                                            "recurring": {"interval": "month"}})
    sub = client.v1.subscriptions.create(params={"customer": customer.id,
                                                 "items": [{"price": price.id}]})
    return sub, product, price


def refused(call: Any) -> str:
    with pytest.raises(stripe.InvalidRequestError) as caught:
        call()
    return str(caught.value.user_message)


def test_paths_through_an_embedded_list(emulator: RunningEmulator,
                                        account: dict[str, str]) -> None:
    """`items.data.price.product` on a subscription and `data.items.data.price` on the
    subscription list go through the embedded `items` list (four segments each)."""
    client = client_at(emulator, account)
    sub, product, _ = subscribed(client)
    got = client.v1.subscriptions.retrieve(sub.id,
                                           params={"expand": ["items.data.price.product"]})
    assert isinstance(got["items"].data[0].price.product, stripe.Product)
    assert got["items"].data[0].price.product.id == product.id
    listed = client.v1.subscriptions.list(params={"expand": ["data.items.data.price"]})
    assert listed.data[0]["items"].data[0].price.object == "price"
    # Checkout's includable line items expand the same way.
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": "https://example.com/ok",
        "line_items": [{"price_data": {"currency": "usd", "unit_amount": 900,
                                       "product_data": {"name": "Mug"}}, "quantity": 1}]})
    got_session = client.v1.checkout.sessions.retrieve(
        session.id, params={"expand": ["line_items.data.price.product"]})
    assert got_session.line_items.data[0].price.product.name == "Mug"


def test_old_invoice_lines_expand_their_price(emulator: RunningEmulator,
                                              account: dict[str, str]) -> None:
    """At 2023-10-16 lines name a Price: `lines.data.price.product` on the invoice and
    `data.price.product` on its lines endpoint expand its product; at the newest version the
    line has no `price`, so the same path is refused."""
    client = client_at(emulator, account)
    sub, product, price = subscribed(client)
    old = client_at(emulator, account, OLD_LINES)
    invoice = old.v1.invoices.retrieve(sub.latest_invoice,
                                       params={"expand": ["lines.data.price.product"]})
    line = invoice.lines.data[0]
    assert line.price.id == price.id and line.price.product.id == product.id
    lines = old.v1.invoices.line_items.list(sub.latest_invoice,
                                            params={"expand": ["data.price.product"]})
    assert lines.data[0].price.product.object == "product"
    # The old field expands alongside old-version ids (pre-basil `subscription`).
    both = old.v1.invoices.retrieve(sub.latest_invoice, params={
        "expand": ["subscription.items.data.price", "lines.data.price"]})
    assert both.subscription.id == sub.id and both.lines.data[0].price.object == "price"
    message = refused(lambda: client.v1.invoices.line_items.list(
        sub.latest_invoice, params={"expand": ["data.price.product"]}))
    assert message == "This property cannot be expanded (data.price)."


def test_lists_that_are_included_or_embedded_by_the_version(emulator: RunningEmulator,
                                                            account: dict[str, str]) -> None:
    """An includable list (a customer's `subscriptions`) and a list only older versions embed
    (a PaymentIntent's `charges` before 2022-11-15) expand through their `data` too."""
    client = client_at(emulator, account)
    sub, _, _ = subscribed(client)
    pm = client.v1.subscriptions.retrieve(sub.id).customer
    client.v1.subscriptions.update(sub.id, params={
        "default_payment_method": client.v1.customers.retrieve(
            str(pm)).invoice_settings.default_payment_method})
    customer = client.v1.customers.retrieve(str(pm), params={
        "expand": ["subscriptions.data.default_payment_method"]})
    assert customer.subscriptions.data[0].default_payment_method.object == "payment_method"
    intent = client.v1.payment_intents.create(params={
        "amount": 1000, "currency": "usd", "payment_method": "pm_card_visa", "confirm": True,
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})
    old = client_at(emulator, account, "2020-08-27")
    got = old.v1.payment_intents.retrieve(intent.id, params={
        "expand": ["charges.data.balance_transaction"]})
    assert got.charges.data[0].balance_transaction.object == "balance_transaction"


def test_depth_counts_every_segment(emulator: RunningEmulator,
                                    account: dict[str, str]) -> None:
    """Four segments, `data` included, is the limit: the deepest list path is allowed, a
    five-segment one is refused with Stripe's message."""
    client = client_at(emulator, account)
    sub, _, _ = subscribed(client)
    charges = client.v1.charges.list(params={
        "expand": ["data.payment_intent.customer.default_source"]})
    assert charges.data[0].payment_intent.customer.object == "customer"
    path = "lines.data.pricing.price_details.price"
    message = refused(lambda: client.v1.invoices.retrieve(sub.latest_invoice,
                                                          params={"expand": [path]}))
    assert message == f"You cannot expand more than 4 levels of a property. Property: {path}"


def test_an_embedded_object_may_be_named(emulator: RunningEmulator,
                                         account: dict[str, str]) -> None:
    """Before clover a promotion code embeds its coupon: `discounts.promotion_code.coupon`
    is accepted and leaves the coupon as it is. At the newest version the code has no
    `coupon` field, so the path is refused."""
    client = client_at(emulator, account)
    coupon = client.v1.coupons.create(params={"percent_off": 10})
    promo = client.v1.promotion_codes.create(params={
        "promotion": {"type": "coupon", "coupon": coupon.id}})
    session = client.v1.checkout.sessions.create(params={
        "mode": "payment", "success_url": "https://example.com/ok",
        "discounts": [{"promotion_code": promo.id}],
        "line_items": [{"price_data": {"currency": "usd", "unit_amount": 900,
                                       "product_data": {"name": "Mug"}}, "quantity": 1}]})
    old = client_at(emulator, account, OLD_PROMO)
    got = old.v1.checkout.sessions.retrieve(
        session.id, params={"expand": ["discounts.promotion_code.coupon"]})
    embedded = got.discounts[0].promotion_code
    assert embedded.id == promo.id and embedded.coupon.id == coupon.id
    assert embedded.coupon.percent_off == 10
    message = refused(lambda: client.v1.checkout.sessions.retrieve(
        session.id, params={"expand": ["discounts.promotion_code.coupon"]}))
    assert message == "This property cannot be expanded (discounts.promotion_code.coupon)."
    newest = client.v1.checkout.sessions.retrieve(
        session.id, params={"expand": ["discounts.promotion_code.promotion.coupon"]})
    assert newest.discounts[0].promotion_code.promotion.coupon.id == coupon.id


def test_unknown_and_scalar_fields_stay_refused(emulator: RunningEmulator,
                                                account: dict[str, str]) -> None:
    client = client_at(emulator, account)
    sub, _, _ = subscribed(client)
    for path in ("items.data.quantity", "items.data.nonsense", "status", "items.data.price.id"):
        message = refused(lambda p=path: client.v1.subscriptions.retrieve(  # type: ignore[misc]
            sub.id, params={"expand": [p]}))
        assert message == f"This property cannot be expanded ({path}).", path


NODE_SCRIPT = r"""
const Stripe = require(process.env.STRIPE_NODE);
const opts = {host: '127.0.0.1', port: Number(process.env.PORT), protocol: 'http'};
const stripe = Stripe(process.env.KEY, opts);
const old = Stripe(process.env.KEY, {...opts, apiVersion: '2023-10-16'});
(async () => {
  const customer = await stripe.customers.create({payment_method: 'pm_card_visa',
    invoice_settings: {default_payment_method: 'pm_card_visa'}});
  const price = await stripe.prices.create({currency: 'usd', unit_amount: 500,
    recurring: {interval: 'month'}, product_data: {name: 'Node seats'}});
  const sub = await stripe.subscriptions.create({customer: customer.id,
    items: [{price: price.id}]});
  const got = await stripe.subscriptions.retrieve(sub.id,
    {expand: ['items.data.price.product']});
  const inv = await old.invoices.retrieve(sub.latest_invoice,
    {expand: ['lines.data.price.product']});
  console.log(JSON.stringify({
    itemProduct: got.items.data[0].price.product.name,
    lineProduct: inv.lines.data[0].price.product.name,
  }));
})().catch((err) => { console.error(err.message); process.exit(1); });
"""


def test_node_expands_through_lists(emulator: RunningEmulator, account: dict[str, str],
                                    tmp_path: Path) -> None:
    out = run_node_script(NODE_SCRIPT, account["secret_key"], emulator.base, tmp_path)
    assert out == {"itemProduct": "Node seats", "lineProduct": "Node seats"}
