"""Checkout Sessions through the official node SDK (stripe-node), run by `node`."""

from __future__ import annotations

from pathlib import Path

from conftest import RunningEmulator
from node_helpers import run_node_script

SCRIPT = r"""
const stripe = require(process.env.STRIPE_NODE)(process.env.KEY, {
  host: '127.0.0.1', port: Number(process.env.PORT), protocol: 'http', maxNetworkRetries: 1,
});
const out = {};
(async () => {
  const price = await stripe.prices.create({
    currency: 'usd', unit_amount: 3000, product_data: {name: 'Node shoes'}});
  const session = await stripe.checkout.sessions.create({
    mode: 'payment', ui_mode: 'embedded_page',
    return_url: 'https://shop.test/done?session_id={CHECKOUT_SESSION_ID}',
    line_items: [{price: price.id, quantity: 2,
                  adjustable_quantity: {enabled: true, minimum: 1, maximum: 3}}],
    custom_fields: [{key: 'size', type: 'dropdown', label: {type: 'custom', custom: 'Size'},
                     dropdown: {options: [{label: 'EU 42', value: 'eu42'}]}}],
    shipping_address_collection: {allowed_countries: ['US', 'GB']},
    shipping_options: [{shipping_rate_data: {display_name: 'Post', type: 'fixed_amount',
                        fixed_amount: {amount: 700, currency: 'usd'}}}],
    metadata: {cart: 'node'},
  });
  out.session = session;
  out.retrieved = await stripe.checkout.sessions.retrieve(session.id, {
    expand: ['line_items.data.price.product']});
  out.items = await stripe.checkout.sessions.listLineItems(session.id, {limit: 5});
  out.listed = await stripe.checkout.sessions.list({status: 'open', limit: 3});
  out.expired = await stripe.checkout.sessions.expire(session.id);
  try {
    await stripe.checkout.sessions.create({mode: 'payment', ui_mode: 'embedded',
                                           line_items: [{price: price.id, quantity: 1}]});
  } catch (err) {
    out.oldName = {type: err.type, param: err.param, status: err.statusCode};
  }
  process.stdout.write(JSON.stringify(out));
})().catch((err) => { console.error(err); process.exit(1); });
"""


def test_node_sdk_checkout_sessions(emulator: RunningEmulator, account: dict[str, str],
                                    tmp_path: Path) -> None:
    out = run_node_script(SCRIPT, account["secret_key"], emulator.base, tmp_path)
    session = out["session"]
    assert session["id"].startswith("cs_test_") and session["ui_mode"] == "embedded_page"
    assert session["client_secret"].startswith(session["id"] + "_secret_")
    assert session["url"] is None and session["redirect_on_completion"] == "always"
    assert session["amount_subtotal"] == 6000 and session["amount_total"] == 6700
    assert session["shipping_address_collection"]["allowed_countries"] == ["US", "GB"]
    assert session["custom_fields"][0]["dropdown"]["options"][0]["value"] == "eu42"
    assert session["metadata"] == {"cart": "node"}
    item = out["retrieved"]["line_items"]["data"][0]
    assert item["price"]["product"]["name"] == "Node shoes"
    assert item["adjustable_quantity"] == {"enabled": True, "maximum": 3, "minimum": 1}
    assert [i["quantity"] for i in out["items"]["data"]] == [2]
    assert session["id"] in [s["id"] for s in out["listed"]["data"]]
    assert out["expired"]["status"] == "expired"
    assert out["oldName"] == {"type": "StripeInvalidRequestError", "param": "ui_mode",
                              "status": 400}
