"""Billing through the current stripe-node SDK: a trial on a test clock, the renewal it
turns into, a prorated preview and the invoice's payments."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from billing_helpers import DAY, JAN_1
from paths import REPO

ROOT = REPO

SCRIPT = r'''
const [key, port, start] = process.argv.slice(1);
const stripe = require('stripe')(key, {host: '127.0.0.1', port: Number(port),
                                       protocol: 'http'});
const T0 = Number(start), DAY = 86400;
(async () => {
  const clock = await stripe.testHelpers.testClocks.create({frozen_time: T0});
  const customer = await stripe.customers.create({email: 'n@example.com',
                                                  test_clock: clock.id});
  const pm = await stripe.paymentMethods.attach('pm_card_visa', {customer: customer.id});
  await stripe.customers.update(customer.id,
    {invoice_settings: {default_payment_method: pm.id}});
  const product = await stripe.products.create({name: 'Seats'});
  const price = await stripe.prices.create({product: product.id, unit_amount: 3100,
    currency: 'usd', recurring: {interval: 'month'}});
  const sub = await stripe.subscriptions.create({customer: customer.id,
    items: [{price: price.id, quantity: 2}], trial_end: T0 + 10 * DAY});
  await stripe.testHelpers.testClocks.advance(clock.id, {frozen_time: T0 + 10 * DAY + 7200});
  const after = await stripe.subscriptions.retrieve(sub.id, {expand: ['latest_invoice']});
  const preview = await stripe.invoices.createPreview({customer: customer.id,
    subscription: sub.id, subscription_details: {
      items: [{id: after.items.data[0].id, quantity: 3}],
      proration_date: T0 + 10 * DAY + 31 * DAY / 2, proration_behavior: 'always_invoice'}});
  const payments = await stripe.invoicePayments.list({invoice: after.latest_invoice.id});
  console.log(JSON.stringify({
    trialStatus: sub.status, status: after.status, paid: after.latest_invoice.amount_paid,
    reason: after.latest_invoice.billing_reason,
    period: [after.items.data[0].current_period_start, after.items.data[0].current_period_end],
    preview: preview.lines.data.map((l) => l.amount).sort((a, b) => a - b),
    previewDue: preview.amount_due,
    payments: payments.data.map((p) => [p.status, p.amount_paid]),
  }));
})().catch((err) => { console.error(err.message); process.exit(1); });
'''


def test_node_trial_renewal_preview(emulator: Any, account: dict[str, str]) -> None:
    port = emulator.base.rsplit(":", 1)[1]
    done = subprocess.run(["node", "-e", SCRIPT, account["secret_key"], port, str(JAN_1)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert (out["trialStatus"], out["status"]) == ("trialing", "active")
    assert (out["paid"], out["reason"]) == (6200, "subscription_cycle")
    assert out["period"] == [JAN_1 + 10 * DAY, JAN_1 + 10 * DAY + 31 * DAY]
    # Half of the 31-day period left: -6200/2 = -3100 and 9300/2 = 4650.
    assert out["preview"] == [-3100, 4650] and out["previewDue"] == 1550
    assert out["payments"] == [["paid", 6200]]


ISSUE_12_SCRIPT = r'''
const [key, port, start] = process.argv.slice(1);
const stripe = require('stripe')(key, {host: '127.0.0.1', port: Number(port),
                                       protocol: 'http'});
const T0 = Number(start), DAY = 86400;
(async () => {
  const clock = await stripe.testHelpers.testClocks.create({frozen_time: T0});
  const customer = await stripe.customers.create({email: 'n@example.com',
                                                  test_clock: clock.id});
  const product = await stripe.products.create({name: 'Gold Plan'});
  const price = await stripe.prices.create({product: product.id, unit_amount: 3100,
    currency: 'usd', recurring: {interval: 'month'}});
  const trial = await stripe.subscriptions.create({customer: customer.id,
    items: [{price: price.id}], trial_period_days: 14, expand: ['pending_setup_intent']});
  const schedule = await stripe.subscriptionSchedules.create({customer: customer.id,
    start_date: 'now', phases: [{items: [{price: price.id}], duration: {interval: 'month'}}]});
  const scheduled = await stripe.subscriptions.retrieve(schedule.subscription,
    {expand: ['latest_invoice']});
  let anchorError = null;
  try {
    await stripe.subscriptions.create({customer: customer.id, items: [{price: price.id}],
      billing_cycle_anchor: T0 + 40 * DAY, proration_behavior: 'none'});
  } catch (err) { anchorError = err.param; }
  const pm = await stripe.paymentMethods.attach('pm_card_visa', {customer: customer.id});
  const paying = await stripe.subscriptions.create({customer: customer.id,
    items: [{price: price.id}], default_payment_method: pm.id});
  await stripe.testHelpers.testClocks.advance(clock.id, {frozen_time: T0 + 10 * DAY});
  const changed = await stripe.subscriptions.update(paying.id, {
    items: [{id: paying.items.data[0].id, quantity: 2}], proration_behavior: 'always_invoice',
    expand: ['latest_invoice']});
  console.log(JSON.stringify({
    trial: [trial.status, trial.pending_setup_intent && trial.pending_setup_intent.status],
    scheduled: [scheduled.status, scheduled.latest_invoice.status],
    anchorError,
    lines: changed.latest_invoice.lines.data.map((l) => l.description).sort(),
  }));
})().catch((err) => { console.error(err.message); process.exit(1); });
'''


def test_node_issue_12_billing_fidelity(emulator: Any, account: dict[str, str]) -> None:
    """The billing items of issue 12 through stripe-node: a trial without a card gets a
    pending SetupIntent (https://docs.stripe.com/billing/subscriptions/deferred-payment);
    a schedule starting now drafts its first invoice, so no card is needed
    (https://docs.stripe.com/api/subscriptions/create); an anchor past the next natural
    billing date is refused (https://docs.stripe.com/billing/subscriptions/billing-cycle);
    proration lines read "Unused time on Gold Plan ..." and name the count above one
    (https://docs.stripe.com/billing/subscriptions/prorations)."""
    port = emulator.base.rsplit(":", 1)[1]
    done = subprocess.run(["node", "-e", ISSUE_12_SCRIPT, account["secret_key"], port,
                           str(JAN_1)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["trial"] == ["trialing", "requires_payment_method"]
    assert out["scheduled"] == ["active", "draft"]
    assert out["anchorError"] == "billing_cycle_anchor"
    assert out["lines"] == ["Remaining time on 2 × Gold Plan after 11 Jan 2026",
                            "Unused time on Gold Plan after 11 Jan 2026"]
