"""Customers and the catalog (products, prices, coupons, promotion codes, shipping and tax
rates) through the official python SDK."""

from __future__ import annotations

import httpx
import pytest
import stripe

from conftest import RunningEmulator

BASIL = "2025-03-31.basil"


# ------------------------------------------------------------------ customers

def test_customer_crud(client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={
        "email": "crud@example.com", "name": "Crud", "phone": "+15555550100",
        "description": "first", "balance": -500, "tax_exempt": "exempt",
        "invoice_settings": {"footer": "Thanks"}, "preferred_locales": ["en"]})
    assert customer.object == "customer" and customer.id.startswith("cus_")
    assert len(customer.id) == len("cus_") + 14
    assert customer.balance == -500 and customer.tax_exempt == "exempt"
    assert customer.invoice_settings.footer == "Thanks"
    assert customer.invoice_settings.default_payment_method is None
    assert customer.livemode is False and customer.delinquent is False
    assert customer.invoice_prefix and customer.next_invoice_sequence == 1
    updated = client.v1.customers.update(customer.id, params={
        "name": "Renamed", "invoice_settings": {"footer": "Bye"}})
    assert updated.name == "Renamed" and updated.email == "crud@example.com"
    assert updated.invoice_settings.footer == "Bye"
    deleted = client.v1.customers.delete(customer.id)
    assert deleted.deleted is True and deleted.id == customer.id
    gone = client.v1.customers.retrieve(customer.id)
    assert gone.to_dict().get("deleted") is True
    assert client.v1.customers.list().data == []
    other = client.v1.products.create(params={"name": "not a customer"})
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.retrieve(other.id)
    assert info.value.code == "resource_missing"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.update(customer.id, params={"name": "x"})
    assert info.value.code == "resource_missing"
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.customers.delete(customer.id)


def test_customer_events_written(client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={"email": "ev@example.com"})
    client.v1.customers.update(customer.id, params={"name": "Evented"})
    events = client.v1.events.list()
    assert [e.type for e in events.data] == ["customer.updated", "customer.created"]
    updated = events.data[0]
    assert updated.data.object["name"] == "Evented"
    assert updated.data.previous_attributes is not None
    assert updated.data.previous_attributes["name"] is None
    only = client.v1.events.list(params={"type": "customer.created"})
    assert [e.type for e in only.data] == ["customer.created"]
    star = client.v1.events.list(params={"types": ["customer.*"]})
    assert len(star.data) == 2
    assert client.v1.events.retrieve(updated.id).id == updated.id


def test_customer_balance_transactions(client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={"email": "bal@example.com"})
    txn = client.v1.customers.balance_transactions.create(
        customer.id, params={"amount": -1500, "currency": "usd", "description": "credit"})
    assert txn.object == "customer_balance_transaction" and txn.id.startswith("cbtxn_")
    assert txn.amount == -1500 and txn.ending_balance == -1500 and txn.type == "adjustment"
    second = client.v1.customers.balance_transactions.create(
        customer.id, params={"amount": 500, "currency": "usd"})
    assert second.ending_balance == -1000
    assert client.v1.customers.retrieve(customer.id).balance == -1000
    assert client.v1.customers.retrieve(customer.id).currency == "usd"
    listed = client.v1.customers.balance_transactions.list(customer.id)
    assert [t.id for t in listed.data] == [second.id, txn.id]
    fetched = client.v1.customers.balance_transactions.retrieve(customer.id, txn.id)
    assert fetched.description == "credit"
    changed = client.v1.customers.balance_transactions.update(
        customer.id, txn.id, params={"description": "goodwill", "metadata": {"k": "v"}})
    assert changed.description == "goodwill" and changed.metadata.to_dict() == {"k": "v"}
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.balance_transactions.create(
            customer.id, params={"amount": 1, "currency": "eur"})
    assert info.value.param == "currency"


def test_customer_tax_ids(client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={"email": "tax@example.com"})
    tax_id = client.v1.customers.tax_ids.create(customer.id,
                                                params={"type": "eu_vat", "value": "DE123456789"})
    assert tax_id.object == "tax_id" and tax_id.id.startswith("txi_")
    assert tax_id.country == "DE" and tax_id.customer == customer.id
    assert tax_id.verification is not None and tax_id.verification.status == "pending"
    listed = client.v1.customers.tax_ids.list(customer.id)
    assert [t.id for t in listed.data] == [tax_id.id]
    assert client.v1.customers.tax_ids.retrieve(customer.id, tax_id.id).value == "DE123456789"
    removed = client.v1.customers.tax_ids.delete(customer.id, tax_id.id)
    assert removed.deleted is True
    assert client.v1.customers.tax_ids.list(customer.id).data == []


def test_customer_tax_exempt_blank_resets_to_none(emulator: RunningEmulator,
                                                   account: dict[str, str]) -> None:
    headers = {"Authorization": f"Bearer {account['secret_key']}"}
    created = httpx.post(f"{emulator.base}/v1/customers", headers=headers,
                         data={"tax_exempt": "exempt"}).json()
    assert created["tax_exempt"] == "exempt"
    reset = httpx.post(f"{emulator.base}/v1/customers/{created['id']}", headers=headers,
                       data={"tax_exempt": ""}).json()
    assert reset["tax_exempt"] == "none"


def test_customer_create_params_and_expandable_lists(client: stripe.StripeClient) -> None:
    customer = client.v1.customers.create(params={
        "email": "vat@example.com", "tax_id_data": [{"type": "eu_vat", "value": "FR12345678901"}],
        "shipping": {"name": "S", "address": {"country": "DE", "postal_code": "10115"}},
        "address": {"country": "US", "state": "CA"}, "tax": {"ip_address": "203.0.113.9"}})
    assert "tax_ids" not in customer and "tax" not in customer
    full = client.v1.customers.retrieve(customer.id, params={
        "expand": ["tax_ids", "tax", "subscriptions", "sources"]})
    assert full.tax_ids is not None
    assert [(t.value, t.country) for t in full.tax_ids.data] == [("FR12345678901", "FR")]
    assert full.tax_ids.url == f"/v1/customers/{customer.id}/tax_ids"
    events = client.v1.events.list(params={"limit": 2}).data
    assert [e.type for e in events] == ["customer.tax_id.created", "customer.created"]
    assert full.tax is not None and full.tax.ip_address == "203.0.113.9"
    assert full.tax.location is not None
    assert (full.tax.location.country, full.tax.location.source) == ("DE", "shipping_destination")
    assert full.tax.automatic_tax == "supported"
    assert full.subscriptions is not None and full.subscriptions.data == []
    assert full.sources is not None and full.sources.data == []
    # Subscriptions show up in the customer's expanded list.
    price = client.v1.prices.create(params={"currency": "usd", "unit_amount": 500,
                                            "recurring": {"interval": "month"},
                                            "product_data": {"name": "Sub"}})
    sub = client.v1.subscriptions.create(params={
        "customer": customer.id, "items": [{"price": price.id}],
        "payment_behavior": "default_incomplete"})
    listed = client.v1.customers.retrieve(customer.id, params={"expand": ["subscriptions"]})
    assert listed.subscriptions is not None
    assert [s.id for s in listed.subscriptions.data] == [sub.id]
    # A bad tax id leaves no customer behind.
    before = len(client.v1.customers.list(params={"limit": 100}).data)
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.create(params={"tax_id_data": [{"type": "eu_vat", "value": "123"}]})
    assert info.value.param == "tax_id_data[0][value]"
    assert len(client.v1.customers.list(params={"limit": 100}).data) == before
    # No location and validate_location=immediately is refused.
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.create(params={"tax": {"validate_location": "immediately"}})
    assert info.value.code == "customer_tax_location_invalid"
    bare = client.v1.customers.retrieve(
        client.v1.customers.create(params={}).id, params={"expand": ["tax"]})
    assert bare.tax is not None and bare.tax.automatic_tax == "unrecognized_location"
    assert bare.tax.location is None
    # Legacy sources and cash balances fail loudly instead of being dropped.
    for params in ({"source": "tok_visa"}, {"cash_balance": {"settings": {
            "reconciliation_mode": "manual"}}}):
        with pytest.raises(stripe.InvalidRequestError) as info:
            client.v1.customers.create(params=params)  # type: ignore[arg-type]
        assert info.value.code == "emulator_unsupported"
        assert info.value.param == next(iter(params))
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.update(customer.id, params={"default_source": "card_x"})
    assert info.value.code == "emulator_unsupported" and info.value.param == "default_source"


# ------------------------------------------------------------------ products

def test_product_with_default_price_data(client: stripe.StripeClient) -> None:
    product = client.v1.products.create(params={
        "name": "Pro plan", "description": "All the things", "metadata": {"tier": "pro"},
        "default_price_data": {
            "currency": "usd", "unit_amount": 2000, "tax_behavior": "exclusive",
            "recurring": {"interval": "month", "interval_count": 1},
            "currency_options": {"eur": {"unit_amount": 1800}, "gbp": {"unit_amount": 1600}}},
        "marketing_features": [{"name": "Fast"}, {"name": "Friendly"}],
        "shippable": False, "statement_descriptor": "PRO PLAN", "unit_label": "seat",
        "url": "https://example.com/pro", "images": ["https://example.com/a.png"],
        "tax_code": "txcd_10000000",
    })
    assert product.id.startswith("prod_") and product.active is True
    assert product.type == "service" and product.unit_label == "seat"
    assert [f.name for f in product.marketing_features] == ["Fast", "Friendly"]
    assert isinstance(product.default_price, str)
    price = client.v1.prices.retrieve(product.default_price,
                                      params={"expand": ["currency_options"]})
    assert price.product == product.id and price.unit_amount == 2000
    assert price.type == "recurring" and price.recurring is not None
    assert price.recurring.interval == "month" and price.recurring.usage_type == "licensed"
    assert price.tax_behavior == "exclusive"
    assert price.currency_options is not None
    assert price.currency_options["eur"].unit_amount == 1800
    assert price.currency_options["usd"].unit_amount == 2000
    expanded = client.v1.products.retrieve(product.id, params={"expand": ["default_price"]})
    assert expanded.default_price.id == price.id  # type: ignore[union-attr]


def test_product_type_tax_details_and_atomic_default_price(client: stripe.StripeClient) -> None:
    good = client.v1.products.create(params={
        "name": "Box", "type": "good", "tax_details": {"performance_location": "US-CA"}})
    assert good.type == "good"
    assert good.tax_details is not None and good.tax_details.performance_location == "US-CA"
    assert good.tax_details.tax_code is None
    assert [p.id for p in client.v1.products.list(params={"type": "good"}).data] == [good.id]
    before = client.v1.products.list(params={"limit": 100}).data
    events_before = client.v1.events.list(params={"limit": 100}).data
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.products.create(params={"name": "Broken", "default_price_data": {
            "currency": "usd", "unit_amount": 100,
            "recurring": {"interval": "month", "interval_count": 37}}})
    assert info.value.param == "default_price_data[recurring][interval_count]"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.create(params={"currency": "usd", "product_data": {"name": "Inline"}})
    assert info.value.param == "unit_amount"
    # Neither failed request left a product or an event behind.
    assert client.v1.products.list(params={"limit": 100}).data == before
    assert client.v1.events.list(params={"limit": 100}).data == events_before


def test_price_currency_options_only_when_expanded(client: stripe.StripeClient) -> None:
    product = client.v1.products.create(params={"name": "P"})
    price = client.v1.prices.create(params={
        "product": product.id, "currency": "usd", "unit_amount": 100,
        "currency_options": {"eur": {"unit_amount": 90}}})
    assert "currency_options" not in price
    full = client.v1.prices.retrieve(price.id, params={"expand": ["currency_options"]})
    assert full.currency_options is not None and full.currency_options["eur"].unit_amount == 90
    # Update changes only the fields sent; a new currency gets a complete entry.
    updated = client.v1.prices.update(price.id, params={
        "currency_options": {"eur": {"unit_amount": 95},
                             "gbp": {"unit_amount": 80, "tax_behavior": "exclusive"}},
        "expand": ["currency_options"]})
    options = updated.currency_options
    assert options is not None
    assert options["eur"].unit_amount == 95 and str(options["eur"].unit_amount_decimal) == "95"
    assert options["eur"].tax_behavior == "unspecified"
    assert options["gbp"].unit_amount == 80 and options["gbp"].tax_behavior == "exclusive"
    assert options["gbp"].tiers is None and options["gbp"].custom_unit_amount is None
    assert options["usd"].unit_amount == 100
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.update(price.id, params={
            "currency_options": {"usd": {"unit_amount": 1}}})
    assert info.value.code == "emulator_unsupported"
    assert info.value.param == "currency_options[usd]"
    cleared = client.v1.prices.update(price.id, params={
        "currency_options": "", "expand": ["currency_options"]})  # type: ignore[typeddict-item]
    assert cleared.currency_options is None


def test_product_update_list_search_delete(client: stripe.StripeClient) -> None:
    a = client.v1.products.create(params={"name": "Alpha", "metadata": {"line": "x"}})
    b = client.v1.products.create(params={"name": "Beta", "active": False})
    c = client.v1.products.create(params={"name": "Gamma", "id": "prod_custom_gamma"})
    assert c.id == "prod_custom_gamma"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.products.create(params={"name": "dup", "id": "prod_custom_gamma"})
    assert info.value.code == "resource_already_exists"
    assert [p.id for p in client.v1.products.list().data] == [c.id, b.id, a.id]
    active = client.v1.products.list(params={"active": True})
    assert [p.id for p in active.data] == [c.id, a.id]
    inactive = client.v1.products.list(params={"active": False})
    assert [p.id for p in inactive.data] == [b.id]
    by_ids = client.v1.products.list(params={"ids": [a.id, b.id]})
    assert {p.id for p in by_ids.data} == {a.id, b.id}
    found = client.v1.products.search(params={"query": "name:'Alpha' AND active:'true'"})
    assert [p.id for p in found.data] == [a.id]
    meta = client.v1.products.search(params={"query": "metadata['line']:'x'"})
    assert [p.id for p in meta.data] == [a.id]
    updated = client.v1.products.update(a.id, params={"name": "Alpha 2", "description": "d"})
    assert updated.name == "Alpha 2" and updated.updated >= a.updated
    price = client.v1.prices.create(params={"product": a.id, "currency": "usd",
                                            "unit_amount": 100})
    with_default = client.v1.products.update(a.id, params={"default_price": price.id})
    assert with_default.default_price == price.id
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.products.delete(a.id)  # it has a price
    removed = client.v1.products.delete(b.id)
    assert removed.deleted is True
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.products.retrieve(b.id)
    assert info.value.http_status == 404


# ------------------------------------------------------------------ prices

def test_prices_one_time_recurring_and_filters(client: stripe.StripeClient) -> None:
    product = client.v1.products.create(params={"name": "Thing"})
    one = client.v1.prices.create(params={"product": product.id, "currency": "USD",
                                          "unit_amount": 999, "nickname": "single"})
    assert one.type == "one_time" and one.currency == "usd" and one.recurring is None
    assert str(one.unit_amount_decimal) == "999" and one.billing_scheme == "per_unit"
    yearly = client.v1.prices.create(params={
        "product": product.id, "currency": "eur", "unit_amount": 9900,
        "recurring": {"interval": "year"}})
    assert yearly.recurring is not None and yearly.recurring.interval_count == 1
    decimal = client.v1.prices.create(params={"product": product.id, "currency": "usd",
                                              "unit_amount_decimal": "12.5"})
    assert decimal.unit_amount is None and str(decimal.unit_amount_decimal) == "12.5"
    inline = client.v1.prices.create(params={"currency": "usd", "unit_amount": 5,
                                             "product_data": {"name": "Inline"}})
    assert client.v1.products.retrieve(str(inline.product)).name == "Inline"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.create(params={"currency": "usd", "unit_amount": 5,
                                        "product": product.id, "product_data": {"name": "Two"}})
    assert info.value.param == "product"
    assert "one of these parameters: product, product_data" in str(info.value.user_message)
    listed = client.v1.prices.list(params={"product": product.id})
    assert [p.id for p in listed.data] == [decimal.id, yearly.id, one.id]
    assert [p.id for p in client.v1.prices.list(params={"type": "recurring"}).data] == [yearly.id]
    assert [p.id for p in client.v1.prices.list(params={"currency": "eur"}).data] == [yearly.id]
    by_interval = client.v1.prices.list(params={"recurring": {"interval": "year"}})
    assert [p.id for p in by_interval.data] == [yearly.id]
    client.v1.prices.update(one.id, params={"active": False, "nickname": "old",
                                            "metadata": {"a": "b"}})
    assert [p.id for p in client.v1.prices.list(params={"active": False}).data] == [one.id]
    assert client.v1.prices.update(one.id, params={"tax_behavior": "exclusive"}).tax_behavior \
        == "exclusive"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.update(one.id, params={"tax_behavior": "inclusive"})
    assert info.value.param == "tax_behavior"
    query = f"product:'{product.id}' AND type:'recurring'"
    found = client.v1.prices.search(params={"query": query})
    assert [p.id for p in found.data] == [yearly.id]
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.create(params={"product": product.id, "currency": "usd"})
    assert info.value.code == "parameter_missing" and info.value.param == "unit_amount"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.create(params={"product": "prod_missing", "currency": "usd",
                                        "unit_amount": 1})
    assert info.value.param == "product" and info.value.code == "resource_missing"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.create(params={"product": product.id, "currency": "usd",
                                        "unit_amount": 1,
                                        "recurring": {"interval": "fortnight"}})  # type: ignore[typeddict-item]
    assert info.value.param == "recurring[interval]"


def test_price_transform_quantity_tiers_and_custom_amount(client: stripe.StripeClient) -> None:
    product = client.v1.products.create(params={"name": "Packs"})
    packs = client.v1.prices.create(params={
        "product": product.id, "currency": "usd", "unit_amount": 1000,
        "transform_quantity": {"divide_by": 10, "round": "up"}})
    assert packs.transform_quantity is not None
    assert packs.transform_quantity.divide_by == 10 and packs.transform_quantity.round == "up"
    tiered = client.v1.prices.create(params={
        "product": product.id, "currency": "usd", "billing_scheme": "tiered",
        "tiers_mode": "graduated", "recurring": {"interval": "month"},
        "tiers": [{"up_to": 10, "unit_amount": 500}, {"up_to": "inf", "unit_amount": 400,
                                                      "flat_amount": 100}]},
        options={"stripe_version": "2026-10-28.endive"})
    assert tiered.billing_scheme == "tiered" and tiered.unit_amount is None
    assert "tiers" not in tiered
    full = client.v1.prices.retrieve(tiered.id, params={"expand": ["tiers"]})
    assert full.tiers is not None
    assert [t.up_to for t in full.tiers] == [10, None]
    assert full.tiers[1].flat_amount == 100 and str(full.tiers[0].unit_amount_decimal) == "500"
    custom = client.v1.prices.create(params={
        "product": product.id, "currency": "usd",
        "custom_unit_amount": {"enabled": True, "minimum": 100, "preset": 500}})
    assert custom.custom_unit_amount is not None and custom.custom_unit_amount.preset == 500
    assert custom.unit_amount is None
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.create(params={"product": product.id, "currency": "usd",
                                        "billing_scheme": "tiered",
                                        "recurring": {"interval": "month"}})
    assert info.value.param == "tiers"
    tiers = [{"up_to": "inf", "unit_amount": 5}]
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.create(params={"product": product.id, "currency": "usd",
                                        "billing_scheme": "tiered", "tiers": tiers,
                                        "recurring": {"interval": "month"}})
    assert info.value.param == "tiers_mode"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.create(params={"product": product.id, "currency": "usd",
                                        "billing_scheme": "tiered", "tiers": tiers,
                                        "tiers_mode": "volume", "unit_amount": 5,
                                        "recurring": {"interval": "month"}})
    assert info.value.param == "unit_amount"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.create(params={"product": product.id, "currency": "usd",
                                        "billing_scheme": "tiered", "tiers_mode": "volume",
                                        "recurring": {"interval": "month"},
                                        "tiers": [{"up_to": 5, "unit_amount": 5}]})
    assert info.value.param == "tiers[0][up_to]"


def test_lookup_keys_and_transfer(client: stripe.StripeClient) -> None:
    product = client.v1.products.create(params={"name": "Keyed"})
    first = client.v1.prices.create(params={"product": product.id, "currency": "usd",
                                            "unit_amount": 100, "lookup_key": "standard"})
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.prices.create(params={"product": product.id, "currency": "usd",
                                        "unit_amount": 200, "lookup_key": "standard"})
    assert info.value.param == "lookup_key" and first.id in str(info.value.user_message)
    second = client.v1.prices.create(params={"product": product.id, "currency": "usd",
                                             "unit_amount": 200, "lookup_key": "standard",
                                             "transfer_lookup_key": True})
    assert second.lookup_key == "standard"
    assert client.v1.prices.retrieve(first.id).lookup_key is None
    found = client.v1.prices.list(params={"lookup_keys": ["standard", "other"]})
    assert [p.id for p in found.data] == [second.id]
    client.v1.prices.update(first.id, params={"lookup_key": "standard",
                                              "transfer_lookup_key": True})
    assert client.v1.prices.retrieve(second.id).lookup_key is None
    assert client.v1.prices.list(params={"lookup_keys": ["standard"]}).data[0].id == first.id


# ------------------------------------------------------------------ coupons

def test_coupons(client: stripe.StripeClient) -> None:
    percent = client.v1.coupons.create(params={"percent_off": 25, "duration": "repeating",
                                               "duration_in_months": 3, "name": "Quarter",
                                               "max_redemptions": 10})
    assert percent.object == "coupon" and percent.percent_off == 25
    assert percent.duration_in_months == 3 and percent.valid is True
    assert percent.amount_off is None and percent.currency is None
    amount = client.v1.coupons.create(params={
        "id": "FIVEOFF", "amount_off": 500, "currency": "usd", "duration": "forever",
        "currency_options": {"eur": {"amount_off": 450}}, "redeem_by": 1_900_000_000})
    assert amount.id == "FIVEOFF" and amount.amount_off == 500
    assert amount.redeem_by == 1_900_000_000
    full = client.v1.coupons.retrieve("FIVEOFF", params={"expand": ["currency_options"]})
    assert full.currency_options is not None and full.currency_options["eur"].amount_off == 450
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.coupons.create(params={"id": "FIVEOFF", "percent_off": 5})
    assert info.value.code == "resource_already_exists"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.coupons.create(params={"amount_off": 5})
    assert info.value.param == "currency"
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.coupons.create(params={"percent_off": 5, "amount_off": 5, "currency": "usd"})
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.coupons.create(params={"percent_off": 150})
    assert info.value.param == "percent_off"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.coupons.create(params={"percent_off": 5, "duration": "repeating"})
    assert info.value.param == "duration_in_months"
    renamed = client.v1.coupons.update(percent.id, params={"name": "Q", "metadata": {"a": "1"}})
    assert renamed.name == "Q" and renamed.metadata.to_dict() == {"a": "1"}
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.coupons.update(percent.id, params={"percent_off": 50})  # type: ignore[typeddict-unknown-key]
    assert info.value.code == "parameter_unknown"
    assert [c.id for c in client.v1.coupons.list().data] == ["FIVEOFF", percent.id]
    assert client.v1.coupons.delete("FIVEOFF").deleted is True
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.coupons.retrieve("FIVEOFF")


def test_coupon_applies_to_products(client: stripe.StripeClient) -> None:
    product = client.v1.products.create(params={"name": "Only this"})
    coupon = client.v1.coupons.create(params={"percent_off": 10,
                                              "applies_to": {"products": [product.id]}})
    full = client.v1.coupons.retrieve(coupon.id, params={"expand": ["applies_to"]})
    assert full.applies_to is not None and full.applies_to.products == [product.id]


# ------------------------------------------------------------------ promotion codes

def test_promotion_codes_clover_shape(client: stripe.StripeClient) -> None:
    coupon = client.v1.coupons.create(params={"percent_off": 20})
    customer = client.v1.customers.create(params={"email": "promo@example.com"})
    promo = client.v1.promotion_codes.create(params={
        "promotion": {"type": "coupon", "coupon": coupon.id}, "code": "SPRING20",
        "customer": customer.id, "max_redemptions": 5, "expires_at": 1_900_000_000,
        "restrictions": {"first_time_transaction": True, "minimum_amount": 1000,
                         "minimum_amount_currency": "usd"},
        "metadata": {"campaign": "spring"}})
    assert promo.id.startswith("promo_") and promo.code == "SPRING20" and promo.active
    assert promo.promotion.type == "coupon" and promo.promotion.coupon == coupon.id
    assert "coupon" not in promo
    assert promo.restrictions.first_time_transaction is True
    assert promo.restrictions.minimum_amount == 1000
    expanded = client.v1.promotion_codes.retrieve(promo.id,
                                                  params={"expand": ["promotion.coupon"]})
    assert expanded.promotion.coupon.percent_off == 20  # type: ignore[union-attr]
    generated = client.v1.promotion_codes.create(params={
        "promotion": {"type": "coupon", "coupon": coupon.id}})
    assert generated.code and generated.code != "SPRING20"
    listed = client.v1.promotion_codes.list(params={"code": "spring20"})
    assert [p.id for p in listed.data] == [promo.id]
    by_coupon = client.v1.promotion_codes.list(params={"coupon": coupon.id})
    assert {p.id for p in by_coupon.data} == {promo.id, generated.id}
    by_customer = client.v1.promotion_codes.list(params={"customer": customer.id})
    assert [p.id for p in by_customer.data] == [promo.id]
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.promotion_codes.create(params={
            "promotion": {"type": "coupon", "coupon": "nope"}, "code": "X1"})
    assert info.value.param == "promotion[coupon]"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.promotion_codes.create(params={"code": "X2"})  # type: ignore[typeddict-item]
    assert info.value.code == "parameter_missing" and info.value.param == "promotion"


def test_promotion_code_uniqueness_among_active(client: stripe.StripeClient) -> None:
    coupon = client.v1.coupons.create(params={"amount_off": 100, "currency": "usd"})
    promotion = {"type": "coupon", "coupon": coupon.id}
    first = client.v1.promotion_codes.create(params={"promotion": promotion, "code": "ONCE"})
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.promotion_codes.create(params={"promotion": promotion, "code": "once"})
    assert info.value.param == "code"
    client.v1.promotion_codes.update(first.id, params={"active": False})
    second = client.v1.promotion_codes.create(params={"promotion": promotion, "code": "ONCE"})
    assert second.active is True
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.promotion_codes.update(first.id, params={"active": True})
    assert info.value.param == "active"
    assert [p.id for p in client.v1.promotion_codes.list(params={"active": True}).data] == \
        [second.id]
    updated = client.v1.promotion_codes.update(second.id, params={
        "metadata": {"k": "v"},
        "restrictions": {"currency_options": {"eur": {"minimum_amount": 500}}}})
    assert updated.metadata.to_dict() == {"k": "v"}
    assert updated.restrictions.currency_options is not None
    assert updated.restrictions.currency_options["eur"].minimum_amount == 500


def test_coupon_currency_options_update_and_promotion_code_rules(
        client: stripe.StripeClient) -> None:
    amount = client.v1.coupons.create(params={"amount_off": 500, "currency": "usd",
                                              "currency_options": {"eur": {"amount_off": 450}}})
    updated = client.v1.coupons.update(amount.id, params={
        "currency_options": {"gbp": {"amount_off": 400}, "eur": {"amount_off": 460}},
        "expand": ["currency_options"]})
    options = updated.currency_options
    assert options is not None
    assert options.to_dict() == {"eur": {"amount_off": 460}, "gbp": {"amount_off": 400}}
    percent = client.v1.coupons.create(params={"percent_off": 10})
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.coupons.update(percent.id, params={
            "currency_options": {"eur": {"amount_off": 1}}})
    assert info.value.param == "currency_options"
    promotion = {"type": "coupon", "coupon": percent.id}
    dashed = client.v1.promotion_codes.create(params={"promotion": promotion,  # type: ignore[typeddict-item]
                                                      "code": "Spring-2026"})
    assert dashed.code == "Spring-2026"
    for bad in ("SPRING 26", "10%OFF", "under_score"):
        with pytest.raises(stripe.InvalidRequestError) as info:
            client.v1.promotion_codes.create(params={"promotion": promotion,  # type: ignore[typeddict-item]
                                                     "code": bad})
        assert info.value.param == "code", bad
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.promotion_codes.create(params={"promotion": promotion,  # type: ignore[typeddict-item]
                                                 "customer_account": "acct_123"})
    assert info.value.code == "emulator_unsupported"
    assert info.value.param == "customer_account"


def test_promotion_codes_classic_shape_before_clover(emulator: RunningEmulator,
                                                     account: dict[str, str]) -> None:
    old = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base},
                              stripe_version=BASIL)
    coupon = old.v1.coupons.create(params={"percent_off": 15})
    promo = old.v1.promotion_codes.create(params={"coupon": coupon.id, "code": "OLD15"})  # type: ignore[typeddict-unknown-key]
    assert promo["coupon"]["id"] == coupon.id and promo["coupon"]["percent_off"] == 15
    assert "promotion" not in promo
    listed = old.v1.promotion_codes.list()
    assert listed.data[0]["coupon"]["object"] == "coupon"
    # Old-style list filter by coupon works too.
    assert [p.id for p in old.v1.promotion_codes.list(params={"coupon": coupon.id}).data] == \
        [promo.id]
    # The same object through the newest version: the promotion shape.
    new = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base})
    fetched = new.v1.promotion_codes.retrieve(promo.id)
    assert fetched.promotion.coupon == coupon.id and "coupon" not in fetched
    # An account pinned to basil reads the classic shape without a header.
    basil = emulator.new_account(api_version=BASIL)
    headers = {"Authorization": f"Bearer {basil['secret_key']}"}
    made = httpx.post(f"{emulator.base}/v1/coupons", data={"percent_off": "5"}, headers=headers)
    created = httpx.post(f"{emulator.base}/v1/promotion_codes",
                         data={"coupon": made.json()["id"], "code": "RAW5"}, headers=headers)
    assert created.status_code == 200, created.text
    assert created.json()["coupon"]["id"] == made.json()["id"]
    # The clover request shape is not accepted by an older version.
    refused = httpx.post(f"{emulator.base}/v1/promotion_codes",
                         data={"promotion[type]": "coupon", "promotion[coupon]": made.json()["id"]},
                         headers=headers)
    assert refused.status_code == 400
    assert refused.json()["error"]["param"] == "promotion"


# ------------------------------------------------------------------ shipping and tax rates

def test_shipping_rates(client: stripe.StripeClient) -> None:
    rate = client.v1.shipping_rates.create(params={
        "display_name": "Ground", "type": "fixed_amount",
        "fixed_amount": {"amount": 500, "currency": "usd",
                         "currency_options": {"eur": {"amount": 450, "tax_behavior": "inclusive"}}},
        "delivery_estimate": {"minimum": {"unit": "business_day", "value": 5},
                              "maximum": {"unit": "business_day", "value": 7}},
        "tax_behavior": "exclusive", "tax_code": "txcd_92010001", "metadata": {"k": "v"}})
    assert rate.id.startswith("shr_") and rate.active
    assert rate.fixed_amount is not None and rate.fixed_amount.amount == 500
    assert rate.delivery_estimate is not None
    assert rate.delivery_estimate.minimum is not None
    assert rate.delivery_estimate.minimum.value == 5
    full = client.v1.shipping_rates.retrieve(rate.id,
                                             params={"expand": ["fixed_amount.currency_options"]})
    assert full.fixed_amount is not None and full.fixed_amount.currency_options is not None
    assert full.fixed_amount.currency_options["eur"].amount == 450
    express = client.v1.shipping_rates.create(params={
        "display_name": "Express", "fixed_amount": {"amount": 1500, "currency": "eur"}})
    updated = client.v1.shipping_rates.update(rate.id, params={"active": False})
    assert updated.active is False
    assert [r.id for r in client.v1.shipping_rates.list().data] == [express.id, rate.id]
    assert [r.id for r in client.v1.shipping_rates.list(params={"active": True}).data] == \
        [express.id]
    assert [r.id for r in client.v1.shipping_rates.list(params={"currency": "eur"}).data] == \
        [express.id]
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.shipping_rates.create(params={"display_name": "No amount"})
    assert info.value.param == "fixed_amount"


def test_tax_rates(client: stripe.StripeClient) -> None:
    vat = client.v1.tax_rates.create(params={
        "display_name": "VAT", "percentage": 20, "inclusive": True, "country": "GB",
        "jurisdiction": "UK", "description": "UK VAT", "tax_type": "vat"})
    assert vat.id.startswith("txr_") and vat.percentage == 20.0 and vat.inclusive is True
    assert vat.active and vat.country == "GB" and vat.tax_type == "vat"
    sales = client.v1.tax_rates.create(params={"display_name": "Sales", "percentage": 8.875,
                                               "inclusive": False, "state": "NY"})
    assert sales.percentage == 8.875
    changed = client.v1.tax_rates.update(vat.id, params={"active": False,
                                                         "display_name": "Old VAT"})
    assert changed.active is False and changed.display_name == "Old VAT"
    assert [r.id for r in client.v1.tax_rates.list().data] == [sales.id, vat.id]
    assert [r.id for r in client.v1.tax_rates.list(params={"active": True}).data] == [sales.id]
    assert [r.id for r in client.v1.tax_rates.list(params={"inclusive": True}).data] == [vat.id]
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.tax_rates.create(params={"display_name": "x", "percentage": 120,
                                           "inclusive": False})
    assert info.value.param == "percentage"
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.tax_rates.create(params={"display_name": "x", "percentage": 5})  # type: ignore[typeddict-item]
    assert info.value.code == "parameter_missing" and info.value.param == "inclusive"


# ------------------------------------------------------------------ customer discounts

def _old_client(emulator: RunningEmulator, account: dict[str, str]) -> stripe.StripeClient:
    """Customers take `coupon` / `promotion_code` only before basil."""
    return stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base},
                               stripe_version="2024-06-20")


def test_customer_discount_delete(emulator: RunningEmulator, account: dict[str, str],
                                  client: stripe.StripeClient) -> None:
    old = _old_client(emulator, account)
    coupon = client.v1.coupons.create(params={"percent_off": 25, "duration": "forever"})
    customer = old.v1.customers.create(params={
        "email": "disc@example.com", "coupon": coupon.id})  # type: ignore[typeddict-unknown-key]
    assert customer.discount is not None and customer.discount.coupon.id == coupon.id
    current = client.v1.customers.retrieve(customer.id)
    assert current.discount is not None and current.discount.source.coupon == coupon.id
    discount_id = current.discount.id

    # A subscription without discounts of its own inherits the customer's.
    product = client.v1.products.create(params={"name": "Inherit"})
    price = client.v1.prices.create(params={"product": product.id, "unit_amount": 2000,
                                            "currency": "usd",
                                            "recurring": {"interval": "month"}})
    sub = client.v1.subscriptions.create(params={
        "customer": customer.id, "items": [{"price": price.id}],
        "payment_behavior": "default_incomplete", "expand": ["latest_invoice"]})
    invoice = sub.latest_invoice
    assert not isinstance(invoice, str) and invoice is not None
    assert invoice.total == 1500 and invoice.discounts == [discount_id]

    gone = client.v1.customers.delete_discount(customer.id)
    assert gone.id == discount_id and gone.to_dict()["deleted"] is True
    assert gone.source.coupon == coupon.id and gone.customer == customer.id
    assert client.v1.customers.retrieve(customer.id).discount is None
    types = [e.type for e in client.v1.events.list(params={"limit": 100}).data]
    assert types.index("customer.discount.deleted") < types.index("customer.discount.created")
    deleted_event = client.v1.events.list(params={"type": "customer.discount.deleted"}).data[0]
    assert deleted_event.data.object["id"] == discount_id
    # Nothing left to delete; a new invoice is no longer discounted.
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.delete_discount(customer.id)
    assert info.value.http_status == 404 and info.value.code == "resource_missing"
    item = client.v1.invoice_items.create(params={"customer": customer.id, "amount": 1000,
                                                  "currency": "usd"})
    manual = client.v1.invoices.create(params={"customer": customer.id,
                                               "pending_invoice_items_behavior": "include"})
    assert manual.total == 1000 and manual.discounts == []
    assert [ln.amount for ln in manual.lines.data] == [item.amount]
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.delete_discount("cus_missing")
    assert info.value.http_status == 404 and info.value.param == "customer"


def test_customer_coupon_promotion_code_and_once(emulator: RunningEmulator,
                                                 account: dict[str, str],
                                                 client: stripe.StripeClient) -> None:
    old = _old_client(emulator, account)
    once = client.v1.coupons.create(params={"amount_off": 300, "currency": "usd",
                                            "duration": "once"})
    promo = client.v1.promotion_codes.create(params={
        "promotion": {"type": "coupon", "coupon": once.id}, "code": "ONCE3"})
    customer = old.v1.customers.create(params={"email": "once@example.com"})
    updated = old.v1.customers.update(customer.id, params={
        "promotion_code": promo.id})  # type: ignore[typeddict-unknown-key]
    assert updated.discount is not None and updated.discount.promotion_code == promo.id
    # Invoices created without `discounts` inherit it; `discounts=""` opts out.
    client.v1.invoice_items.create(params={"customer": customer.id, "amount": 1000,
                                           "currency": "usd"})
    inherited = client.v1.invoices.create(params={
        "customer": customer.id, "pending_invoice_items_behavior": "include"})
    assert inherited.total == 700
    bare = client.v1.invoices.create(params={"customer": customer.id,
                                             "discounts": ""})  # type: ignore[typeddict-item]
    assert bare.discounts == []
    # A `once` coupon is used up by the first subscription invoice it discounts.
    product = client.v1.products.create(params={"name": "Once"})
    price = client.v1.prices.create(params={"product": product.id, "unit_amount": 1000,
                                            "currency": "usd",
                                            "recurring": {"interval": "month"}})
    sub = client.v1.subscriptions.create(params={
        "customer": customer.id, "items": [{"price": price.id}],
        "payment_behavior": "default_incomplete", "expand": ["latest_invoice"]})
    assert not isinstance(sub.latest_invoice, str) and sub.latest_invoice is not None
    assert sub.latest_invoice.total == 700
    assert client.v1.customers.retrieve(customer.id).discount is None
    # `coupon=""` on an update removes a discount; basil and later know no `coupon`.
    forever = client.v1.coupons.create(params={"percent_off": 10, "duration": "forever"})
    again = old.v1.customers.update(customer.id, params={
        "coupon": forever.id})  # type: ignore[typeddict-unknown-key]
    assert again.discount is not None
    cleared = old.v1.customers.update(customer.id, params={
        "coupon": ""})  # type: ignore[typeddict-unknown-key]
    assert cleared.discount is None
    with pytest.raises(stripe.InvalidRequestError) as info:
        client.v1.customers.update(customer.id, params={
            "coupon": forever.id})  # type: ignore[typeddict-unknown-key]
    assert info.value.param == "coupon"
    with pytest.raises(stripe.InvalidRequestError) as info:
        old.v1.customers.create(params={"coupon": "nope"})  # type: ignore[typeddict-unknown-key]
    assert info.value.param == "coupon" and info.value.http_status == 404
