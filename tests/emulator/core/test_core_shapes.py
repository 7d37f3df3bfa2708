"""Every object the emulator returns has exactly the fields the SDK declares.

A scenario touches every resource this area serves (with expansions, lists, search,
deletes, old API versions) and each JSON body is walked against the SDK-derived
schema: no field the SDK does not declare, no non-nullable declared field missing,
recursively into nested hashes, arrays and expanded objects.
"""

from __future__ import annotations

from typing import Any

import httpx
import stripe

from checkout_helpers import confirm
from conftest import RunningEmulator
from stripebench.emulator import schema, shape

SKIP_FIELDS = {"deleted"}


def check(value: Any, where: str, problems: list[str], seen: set[str]) -> None:
    if isinstance(value, list):
        for i, item in enumerate(value):
            check(item, f"{where}[{i}]", problems, seen)
        return
    if not isinstance(value, dict):
        return
    kind = value.get("object")
    if kind in ("list", "search_result"):
        check(value.get("data"), f"{where}.data", problems, seen)
        return
    if isinstance(kind, str):
        if value.get("deleted") is True:
            return
        spec = schema.object_schema(kind)
        if spec is None:
            problems.append(f"{where}: object type {kind!r} is not declared by the SDK")
            return
        seen.add(kind)
        check_fields(value, spec["fields"], f"{where}<{kind}>", problems, seen)


def check_fields(value: dict[str, Any], fields: dict[str, Any], where: str,
                 problems: list[str], seen: set[str]) -> None:
    for name in value:
        if name not in fields:
            problems.append(f"{where}.{name}: not declared by the SDK")
    for name, spec in fields.items():
        if name not in value:
            if not spec.get("nullable") and spec.get("type") != "list" and name not in SKIP_FIELDS:
                problems.append(f"{where}.{name}: declared non-nullable field is missing")
            continue
        check_value(value[name], spec, f"{where}.{name}", problems, seen)


def check_value(value: Any, spec: dict[str, Any], where: str, problems: list[str],
                seen: set[str]) -> None:
    if value is None:
        if not spec.get("nullable"):
            problems.append(f"{where}: null but not nullable")
        return
    kind = spec.get("type")
    if kind == "object" and "fields" in spec:
        if not isinstance(value, dict):
            problems.append(f"{where}: expected a hash")
            return
        check_fields(value, spec["fields"], where, problems, seen)
    elif kind == "array":
        if not isinstance(value, list):
            problems.append(f"{where}: expected an array")
            return
        for i, item in enumerate(value):
            check_value(item, spec.get("items") or {}, f"{where}[{i}]", problems, seen)
    elif kind in ("expandable", "any", "list"):
        if isinstance(value, (dict, list)):
            check(value, where, problems, seen)
    elif kind == "string" and not isinstance(value, str):
        problems.append(f"{where}: expected a string, got {value!r}")
    elif kind == "integer" and (not isinstance(value, int) or isinstance(value, bool)):
        problems.append(f"{where}: expected an integer, got {value!r}")
    elif kind == "boolean" and not isinstance(value, bool):
        problems.append(f"{where}: expected a boolean, got {value!r}")
    if kind == "string" and spec.get("enum") and value not in spec["enum"]:
        problems.append(f"{where}: {value!r} is not one of the declared values")


def test_every_returned_object_matches_the_sdk_schema(emulator: RunningEmulator,
                                                      account: dict[str, str]) -> None:
    http = httpx.Client(base_url=emulator.base,
                        headers={"Authorization": f"Bearer {account['secret_key']}"})
    bodies: list[tuple[str, Any]] = []

    def call(method: str, path: str, data: dict[str, Any] | None = None,
             version: str | None = None) -> Any:
        headers = {"Stripe-Version": version} if version else {}
        if method == "GET":
            r = http.get(path, params=data, headers=headers)
        else:
            r = http.request(method, path, data=data, headers=headers)
        assert r.status_code == 200, (method, path, r.text)
        body = r.json()
        bodies.append((f"{method} {path} {version or ''}", body))
        if version:
            assert "promotion" not in body and "coupon" in (body.get("data") or [body])[0]
        return body

    customer = call("POST", "/v1/customers", {
        "email": "shape@example.com", "address[line1]": "1 Road", "shipping[name]": "S",
        "shipping[address][city]": "Paris", "invoice_settings[custom_fields][0][name]": "PO",
        "invoice_settings[custom_fields][0][value]": "1", "metadata[a]": "b"})
    cid = customer["id"]
    call("POST", f"/v1/customers/{cid}", {"name": "Shape", "tax_exempt": "reverse"})
    call("GET", f"/v1/customers/{cid}")
    call("POST", f"/v1/customers/{cid}/balance_transactions", {"amount": "-100",
                                                                "currency": "usd"})
    call("GET", f"/v1/customers/{cid}/balance_transactions", {"expand[]": "data.customer"})
    tax_id = call("POST", f"/v1/customers/{cid}/tax_ids", {"type": "eu_vat",
                                                          "value": "FR12345678901"})
    call("GET", f"/v1/customers/{cid}/tax_ids/{tax_id['id']}")
    call("POST", f"/v1/customers/{cid}", {"tax[ip_address]": "203.0.113.9"})
    call("GET", f"/v1/customers/{cid}", {
        "expand[0]": "tax", "expand[1]": "tax_ids", "expand[2]": "subscriptions",
        "expand[3]": "sources", "expand[4]": "cash_balance",
        "expand[5]": "invoice_credit_balance"})
    product = call("POST", "/v1/products", {
        "name": "Shape", "default_price_data[currency]": "usd",
        "default_price_data[unit_amount]": "100",
        "default_price_data[recurring][interval]": "month",
        "default_price_data[currency_options][eur][unit_amount]": "90",
        "package_dimensions[height]": "1", "package_dimensions[length]": "2",
        "package_dimensions[weight]": "3", "package_dimensions[width]": "4",
        "marketing_features[0][name]": "Fast"})
    call("GET", f"/v1/products/{product['id']}", {"expand[]": "default_price"})
    call("POST", "/v1/prices", {
        "product": product["id"], "currency": "usd", "billing_scheme": "tiered",
        "tiers_mode": "volume", "recurring[interval]": "month",
        "recurring[usage_type]": "licensed",
        "tiers[0][up_to]": "5", "tiers[0][unit_amount]": "10",
        "tiers[1][up_to]": "inf", "tiers[1][unit_amount]": "5",
        "transform_quantity[divide_by]": "2", "transform_quantity[round]": "down"})
    call("POST", "/v1/prices", {"product": product["id"], "currency": "usd",
                                "custom_unit_amount[enabled]": "true",
                                "custom_unit_amount[minimum]": "100"})
    call("GET", "/v1/prices", {"expand[0]": "data.product", "expand[1]": "data.tiers",
                               "expand[2]": "data.currency_options"})
    call("GET", "/v1/prices/search", {"query": "active:'true'"})
    call("GET", "/v1/products/search", {"query": "name:'Shape'"})
    coupon = call("POST", "/v1/coupons", {"percent_off": "10", "duration": "repeating",
                                          "duration_in_months": "2",
                                          "applies_to[products][0]": product["id"]})
    call("GET", f"/v1/coupons/{coupon['id']}", {"expand[]": "applies_to"})
    call("POST", "/v1/coupons", {"amount_off": "100", "currency": "usd",
                                 "currency_options[eur][amount_off]": "90"})
    call("GET", "/v1/coupons", {"expand[]": "data.currency_options"})
    promo = call("POST", "/v1/promotion_codes", {
        "promotion[type]": "coupon", "promotion[coupon]": coupon["id"], "customer": cid,
        "restrictions[minimum_amount]": "100", "restrictions[minimum_amount_currency]": "usd",
        "restrictions[currency_options][eur][minimum_amount]": "90"})
    call("GET", f"/v1/promotion_codes/{promo['id']}",
         {"expand[0]": "promotion.coupon", "expand[1]": "customer"})
    call("GET", f"/v1/promotion_codes/{promo['id']}", version="2025-03-31.basil")
    call("GET", "/v1/promotion_codes", version="2024-06-20")
    call("POST", "/v1/shipping_rates", {
        "display_name": "Ground", "fixed_amount[amount]": "500", "fixed_amount[currency]": "usd",
        "fixed_amount[currency_options][eur][amount]": "450",
        "delivery_estimate[minimum][unit]": "day", "delivery_estimate[minimum][value]": "1"})
    call("POST", "/v1/shipping_rates", {"display_name": "Simple", "fixed_amount[amount]": "5",
                                        "fixed_amount[currency]": "usd"})
    call("GET", "/v1/shipping_rates")
    call("POST", "/v1/tax_rates", {"display_name": "VAT", "percentage": "20",
                                   "inclusive": "true", "country": "FR"})
    call("GET", "/v1/tax_rates")
    call("POST", "/v1/webhook_endpoints", {"url": "https://example.com/h",
                                           "enabled_events[]": "*"})
    call("GET", "/v1/webhook_endpoints")
    call("GET", "/v1/events", {"limit": "100"})
    call("GET", "/v1/customers/search", {"query": "email:'shape@example.com'"})
    call("DELETE", f"/v1/customers/{cid}/tax_ids/{tax_id['id']}")
    call("DELETE", f"/v1/customers/{cid}")

    problems: list[str] = []
    seen: set[str] = set()
    for label, body in bodies:
        if label.endswith(" "):  # the SDK describes only its own (newest) API version
            check(body, label, problems, seen)
    assert not problems, "\n".join(problems[:40])
    assert seen >= {"customer", "product", "price", "coupon", "promotion_code", "shipping_rate",
                    "tax_rate", "event", "webhook_endpoint", "customer_balance_transaction",
                    "tax_id"}


def method_hash_problems(value: Any, where: str, problems: list[str]) -> None:
    """Hashes keyed by payment method type hold only the types in play: the object's own
    `type` (charge details, PaymentMethods, previews) or, for options hashes, the intent's
    or session's `payment_method_types`."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            method_hash_problems(item, f"{where}[{i}]", problems)
        return
    if not isinstance(value, dict):
        return
    kind = value.get("object")
    for path in shape.PER_TYPE_HASHES.get(kind, ()) if isinstance(kind, str) else ():
        target = value
        for part in filter(None, path.split(".")):
            target = target.get(part) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            continue
        used = set(shape.per_type_keys(kind, path)) & set(target)
        allowed = {target.get("type")} if "type" in target else set(
            value.get("payment_method_types") or ())
        if used - allowed:
            problems.append(f"{where}<{kind}>.{path or '(itself)'}: {sorted(used - allowed)}")
    for name, child in value.items():
        if isinstance(child, (dict, list)):
            method_hash_problems(child, f"{where}.{name}", problems)


def test_payments_checkout_and_billing_objects(emulator: RunningEmulator,
                                              account: dict[str, str]) -> None:
    """The same walk over the payment, Checkout and billing resources, plus two rules the
    SDK cannot express: no hash for a payment method type that is not in play, and no enum
    value the emulator chose by itself (blank enum fields hold Stripe's value or are set
    by the resource; a null non-nullable one is reported by the walk)."""
    client = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base},
                                 max_network_retries=0)
    bodies: list[tuple[str, Any]] = []

    def keep(label: str, obj: Any) -> Any:
        bodies.append((label, obj.to_dict() if hasattr(obj, "to_dict") else obj))
        return obj

    customer = keep("customer", client.v1.customers.create(params={
        "email": "walk@example.com", "payment_method": "pm_card_visa",
        "invoice_settings": {"default_payment_method": "pm_card_visa"}}))
    client.v1.customers.tax_ids.create(customer.id, params={"type": "eu_vat",
                                                            "value": "FR12345678901"})
    intent = keep("intent", client.v1.payment_intents.create(params={
        "amount": 2000, "currency": "usd", "payment_method": "pm_card_createDispute",
        "confirm": True, "statement_descriptor_suffix": "WALK",
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}}))
    keep("charge", client.v1.charges.retrieve(intent.latest_charge))
    keep("method", client.v1.payment_methods.retrieve(intent.payment_method))
    dispute = keep("dispute", client.v1.disputes.list().data[0])
    keep("dispute-updated", client.v1.disputes.update(dispute.id, params={
        "evidence": {"uncategorized_text": "all fine"}, "submit": False}))
    refunded = client.v1.payment_intents.create(params={
        "amount": 900, "currency": "usd", "payment_method": "pm_card_visa", "confirm": True,
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})
    keep("refund", client.v1.refunds.create(params={"payment_intent": refunded.id}))
    keep("setup", client.v1.setup_intents.create(params={
        "customer": customer.id, "payment_method": "pm_card_visa", "confirm": True,
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}}))
    keep("ctoken", client.v1.test_helpers.confirmation_tokens.create(
        params={"payment_method": "pm_card_visa"}))
    coupon = client.v1.coupons.create(params={"percent_off": 10})
    promo = client.v1.promotion_codes.create(params={
        "promotion": {"type": "coupon", "coupon": coupon.id}})
    price = client.v1.prices.create(params={
        "currency": "usd", "unit_amount": 1500, "recurring": {"interval": "month"},
        "product_data": {"name": "Walk plan"}})
    session = keep("session", client.v1.checkout.sessions.create(params={
        "mode": "subscription", "success_url": "https://example.com/ok",
        "customer": customer.id, "line_items": [{"price": price.id, "quantity": 1}],
        "discounts": [{"promotion_code": promo.id}]}))
    confirm(emulator.base, session)
    done = keep("session-done", client.v1.checkout.sessions.retrieve(session.id, params={
        "expand": ["line_items", "subscription.latest_invoice", "total_details.breakdown"]}))
    sub = done.subscription
    keep("invoice-lines", client.v1.invoices.line_items.list(sub.latest_invoice.id))
    keep("item", client.v1.invoice_items.create(params={
        "customer": customer.id, "amount": 400, "currency": "usd"}))
    keep("schedule", client.v1.subscription_schedules.create(params={
        "from_subscription": sub.id}))
    keep("portal", client.v1.billing_portal.configurations.create(params={
        "features": {"invoice_history": {"enabled": True}}}))
    keep("link", client.v1.payment_links.create(params={
        "line_items": [{"price": price.id, "quantity": 1}]}))
    keep("events", client.v1.events.list(params={"limit": 100}))

    problems: list[str] = []
    seen: set[str] = set()
    for label, body in bodies:
        check(body, label, problems, seen)
        method_hash_problems(body, label, problems)
    assert not problems, "\n".join(problems[:40])
    assert seen >= {"charge", "payment_intent", "payment_method", "dispute", "refund",
                    "setup_intent", "confirmation_token", "checkout.session", "subscription",
                    "invoice", "line_item", "invoiceitem", "subscription_schedule",
                    "billing_portal.configuration", "payment_link", "event"}
