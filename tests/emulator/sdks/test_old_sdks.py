"""Old SDK majors against the emulator, each at its pinned API version, and the same
objects read back through the current SDK (2026 endive): both tell the same story.

stripe-python 5.x (pinned here to 2020-08-27) and 7.x (pins 2023-10-16), stripe-node
10.x (2022-08-01) come from the registries via `scripts/setup.sh` into `.old-sdks/`;
stripe-node 23 from `node_modules`. Each old SDK runs in its own process.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import httpx
import stripe

from paths import REPO

ROOT = REPO
OLD = ROOT / ".old-sdks"

PYTHON_FLOW = r'''
import json, sys
import stripe
stripe.api_key, stripe.api_base = sys.argv[1], sys.argv[2]
if sys.argv[3] != "-":
    stripe.api_version = sys.argv[3]
try:
    from stripe.version import VERSION
except ImportError:
    from stripe._version import VERSION
out = {"sdk": VERSION}
product = stripe.Product.create(name="Pro")
price = stripe.Price.create(product=product.id, unit_amount=2400, currency="usd",
                            recurring={"interval": "month"})
customer = stripe.Customer.create(email="old@example.com")
pm = stripe.PaymentMethod.attach("pm_card_visa", customer=customer.id)
stripe.Customer.modify(customer.id, invoice_settings={"default_payment_method": pm.id})
sub = stripe.Subscription.create(customer=customer.id, items=[{"price": price.id}],
                                 expand=["latest_invoice.payment_intent"])
inv = sub.latest_invoice
out.update(sub=sub.id, status=sub.status, period=[sub.current_period_start,
           sub.current_period_end], invoice=inv.id, paid=inv.paid,
           paid_out_of_band=inv.paid_out_of_band, invoice_sub=inv.subscription,
           intent=inv.payment_intent.id, intent_status=inv.payment_intent.status,
           charge=inv.charge, line_price=inv.lines.data[0].price.id,
           line_type=inv.lines.data[0].type, price=price.id)
pi = stripe.PaymentIntent.retrieve(inv.payment_intent.id)
out["pi_invoice"] = pi.invoice
out["pi_charges"] = [c.id for c in pi.charges.data] if "charges" in pi else None
stripe.Subscription.create(customer=customer.id, items=[{"price": price.id}])
out["total_count"] = stripe.Subscription.list(limit=1, include=["total_count"]).total_count
stripe.InvoiceItem.create(customer=customer.id, price=price.id)  # pre-basil `price`
upcoming = stripe.Invoice.upcoming(customer=customer.id, subscription=sub.id)
out["upcoming"] = [upcoming.amount_due, sorted(l.amount for l in upcoming.lines.data)]
lines = stripe.Invoice.upcoming_lines(customer=customer.id, subscription=sub.id)
out["upcoming_lines"] = len(lines.data)
later = stripe.Subscription.modify(sub.id, cancel_at_period_end=True)
out["cancel_at"] = later.cancel_at
print(json.dumps(out))
'''

NODE_FLOW = r'''
const [modulePath, key, port, version] = process.argv.slice(1);
const Stripe = require(modulePath);
const config = {host: '127.0.0.1', port: Number(port), protocol: 'http'};
if (version !== '-') config.apiVersion = version;
const stripe = Stripe(key, config);
(async () => {
  const product = await stripe.products.create({name: 'Node plan'});
  const price = await stripe.prices.create({product: product.id, unit_amount: 1500,
    currency: 'usd', recurring: {interval: 'month'}});
  const customer = await stripe.customers.create({email: 'node@example.com'});
  const out = {price: price.id};
  if (version !== '-') {
    const pm = await stripe.paymentMethods.attach('pm_card_visa', {customer: customer.id});
    await stripe.customers.update(customer.id,
      {invoice_settings: {default_payment_method: pm.id}});
    const sub = await stripe.subscriptions.create({customer: customer.id,
      items: [{price: price.id}], expand: ['latest_invoice.payment_intent']});
    const inv = sub.latest_invoice;
    Object.assign(out, {sub: sub.id, status: sub.status,
      period: [sub.current_period_start, sub.current_period_end], invoice: inv.id,
      paid: inv.paid, intent: inv.payment_intent.id, invoice_sub: inv.subscription});
    const list = await stripe.invoices.list({customer: customer.id, include: ['total_count']});
    out.total_count = list.total_count;
  } else {
    const sub = await stripe.subscriptions.create({customer: customer.id,
      items: [{price: price.id}], payment_behavior: 'default_incomplete',
      expand: ['latest_invoice.confirmation_secret', 'latest_invoice.payments']});
    const inv = sub.latest_invoice;
    const intent = inv.payments.data[0].payment.payment_intent;
    await stripe.paymentIntents.confirm(intent, {payment_method: 'pm_card_visa'});
    const after = await stripe.subscriptions.retrieve(sub.id);
    Object.assign(out, {sub: sub.id, status: after.status, secret:
      inv.confirmation_secret.client_secret.startsWith(intent + '_secret_'),
      period: [after.items.data[0].current_period_start,
               after.items.data[0].current_period_end],
      has_sub_period: 'current_period_start' in after, invoice: inv.id});
  }
  console.log(JSON.stringify(out));
})().catch((err) => { console.error(err.message); process.exit(1); });
'''


def run_python(sdk_dir: str, key: str, base: str, version: str) -> dict[str, Any]:
    target = OLD / sdk_dir
    assert target.is_dir(), f"{target} is missing: run scripts/setup.sh"
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run([str(ROOT / ".venv/bin/python"), "-c", PYTHON_FLOW, key, base,
                           version], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run_node(module: Path, key: str, base: str, version: str) -> dict[str, Any]:
    assert module.is_dir(), f"{module} is missing: run scripts/setup.sh"
    port = base.rsplit(":", 1)[1]
    done = subprocess.run(["node", "-e", NODE_FLOW, str(module), key, port, version],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def check_against_current(client: stripe.StripeClient, old: dict[str, Any]) -> None:
    """The objects an old SDK saw, read through the current version, agree."""
    sub = client.v1.subscriptions.retrieve(old["sub"])
    item = sub["items"].data[0]
    assert [item.current_period_start, item.current_period_end] == old["period"]
    assert "current_period_start" not in sub
    inv = client.v1.invoices.retrieve(old["invoice"])
    assert (inv.status == "paid") == old["paid"]
    assert inv.parent.subscription_details.subscription == old["invoice_sub"] == old["sub"]
    assert "paid" not in inv and "payment_intent" not in inv
    [payment] = client.v1.invoice_payments.list(params={"invoice": inv.id,
                                                        "status": "paid"}).data
    assert payment.payment.payment_intent == old["intent"]


def test_stripe_python_7_at_its_pinned_version(emulator: Any, account: dict[str, str],
                                               client: stripe.StripeClient) -> None:
    old = run_python("stripe7", account["secret_key"], emulator.base, "-")
    assert old["status"] == "active" and old["paid"] is True
    assert old["paid_out_of_band"] is False and old["intent_status"] == "succeeded"
    assert old["period"][1] - old["period"][0] in (28 * 86400, 29 * 86400, 30 * 86400,
                                                   31 * 86400)
    assert old["charge"].startswith("ch_") and old["pi_invoice"] == old["invoice"]
    assert old["pi_charges"] is None  # 2023-10-16 is after charges left PaymentIntents
    assert (old["line_price"], old["line_type"]) == (old["price"], "subscription")
    assert old["total_count"] == 2
    # Next invoice: the 2400 renewal plus the pending 2400 invoice item.
    assert old["upcoming"] == [4800, [2400, 2400]] and old["upcoming_lines"] == 2
    assert old["cancel_at"] == old["period"][1]
    check_against_current(client, old)


def test_stripe_python_5_pinned_before_2022_11_15(emulator: Any, account: dict[str, str],
                                                  client: stripe.StripeClient) -> None:
    old = run_python("stripe5", account["secret_key"], emulator.base, "2020-08-27")
    assert old["sdk"].startswith("5.")
    assert old["paid"] is True and old["pi_charges"] == [old["charge"]]
    assert old["total_count"] == 2 and old["upcoming"][0] == 4800
    check_against_current(client, old)


def test_stripe_node_10_and_current_node(emulator: Any, account: dict[str, str],
                                         client: stripe.StripeClient) -> None:
    old = run_node(OLD / "node10/node_modules/stripe", account["secret_key"], emulator.base,
                   "2022-08-01")
    assert old["status"] == "active" and old["paid"] is True and old["total_count"] == 1
    check_against_current(client, old)
    new = run_node(ROOT / "node_modules/stripe", account["secret_key"], emulator.base, "-")
    assert new["status"] == "active" and new["secret"] is True
    assert new["has_sub_period"] is False
    assert new["period"][1] > new["period"][0]


def test_removed_in_basil(emulator: Any, account: dict[str, str]) -> None:
    headers = {"Authorization": f"Bearer {account['secret_key']}"}
    listing = httpx.get(f"{emulator.base}/v1/subscriptions?include[]=total_count",
                        headers=headers)
    # Basil's changelog: asking a list for total_count is a 400 property_forbidden, by
    # include[], exclude[] or expand[] alike (issue 28).
    assert listing.status_code == 400
    assert listing.json()["error"]["param"] == "include"
    assert listing.json()["error"]["code"] == "property_forbidden"
    for query in ("exclude[]=total_count", "expand[]=total_count"):
        other = httpx.get(f"{emulator.base}/v1/customers?{query}", headers=headers)
        assert other.status_code == 400, query
        assert other.json()["error"]["code"] == "property_forbidden"
    searched = httpx.get(f"{emulator.base}/v1/customers/search?query=email:'a@b.c'"
                         "&expand[]=total_count", headers=headers)
    assert searched.status_code == 200 and searched.json()["total_count"] == 0
    upcoming = httpx.get(f"{emulator.base}/v1/invoices/upcoming?customer=cus_x",
                         headers=headers)
    assert upcoming.status_code == 400 and "create_preview" in upcoming.json()["error"][
        "message"]
    old = httpx.get(f"{emulator.base}/v1/subscriptions?include[]=total_count",
                    headers={**headers, "Stripe-Version": "2024-06-20"})
    assert old.status_code == 200 and old.json()["total_count"] == 0
