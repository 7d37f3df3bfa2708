"""The official node SDK (stripe-node) against the emulator, run by `node` in a subprocess."""

from __future__ import annotations

from pathlib import Path

from conftest import RunningEmulator
from node_helpers import run_node_script

SCRIPT = r"""
const stripe = require(process.env.STRIPE_NODE)(process.env.KEY, {
  host: '127.0.0.1', port: Number(process.env.PORT), protocol: 'http', maxNetworkRetries: 2,
});
const out = {};
(async () => {
  const customer = await stripe.customers.create({
    email: 'node@example.com', name: 'Node', metadata: {from: 'node'},
    address: {line1: '1 Node St', city: 'Berlin'}, preferred_locales: ['de'],
  });
  out.customer = customer;
  out.retrieved = await stripe.customers.retrieve(customer.id);
  for (let i = 0; i < 4; i++) await stripe.customers.create({email: `n${i}@example.com`});
  out.page = await stripe.customers.list({limit: 2});
  out.all = [];
  for await (const c of stripe.customers.list({limit: 2})) out.all.push(c.id);
  const product = await stripe.products.create({
    name: 'Node product', default_price_data: {currency: 'usd', unit_amount: 1234,
                                               recurring: {interval: 'month'}}});
  out.product = await stripe.products.retrieve(product.id, {expand: ['default_price']});
  out.search = await stripe.customers.search({query: "metadata['from']:'node'"});
  const again = await stripe.customers.create({email: 'idem@example.com'},
                                              {idempotencyKey: 'node-key'});
  const replay = await stripe.customers.create({email: 'idem@example.com'},
                                               {idempotencyKey: 'node-key'});
  out.idempotent = again.id === replay.id;
  out.replayHeader = replay.lastResponse.headers['idempotent-replayed'];
  try {
    await stripe.customers.retrieve('cus_does_not_exist');
  } catch (err) {
    out.missing = {type: err.type, code: err.code, param: err.param, status: err.statusCode,
                   message: err.message, requestId: err.requestId};
  }
  try {
    await stripe.prices.create({currency: 'usd', unit_amount: 5, prodcut: 'x'});
  } catch (err) {
    out.unknown = {type: err.type, code: err.code, param: err.param, status: err.statusCode};
  }
  const bad = require(process.env.STRIPE_NODE)('sk_test_wrong', {
    host: '127.0.0.1', port: Number(process.env.PORT), protocol: 'http'});
  try {
    await bad.customers.list();
  } catch (err) {
    out.auth = {type: err.type, status: err.statusCode};
  }
  const deleted = await stripe.customers.del(customer.id);
  out.deleted = deleted.deleted;
  process.stdout.write(JSON.stringify(out));
})().catch((err) => { console.error(err); process.exit(1); });
"""


def test_node_sdk_create_list_retrieve_errors(emulator: RunningEmulator,
                                              account: dict[str, str], tmp_path: Path) -> None:
    out = run_node_script(SCRIPT, account["secret_key"], emulator.base, tmp_path)
    customer = out["customer"]
    assert customer["id"].startswith("cus_") and customer["email"] == "node@example.com"
    assert customer["address"]["city"] == "Berlin" and customer["address"]["line2"] is None
    assert customer["preferred_locales"] == ["de"]
    assert out["retrieved"]["metadata"] == {"from": "node"}
    assert len(out["page"]["data"]) == 2 and out["page"]["has_more"] is True
    assert len(out["all"]) == 5 and out["all"][-1] == customer["id"]
    assert out["product"]["default_price"]["unit_amount"] == 1234
    assert out["product"]["default_price"]["recurring"]["interval"] == "month"
    assert [c["id"] for c in out["search"]["data"]] == [customer["id"]]
    assert out["idempotent"] is True and out["replayHeader"] == "true"
    assert out["missing"]["type"] == "StripeInvalidRequestError"
    assert out["missing"]["code"] == "resource_missing" and out["missing"]["param"] == "id"
    assert out["missing"]["status"] == 404
    assert out["missing"]["requestId"].startswith("req_")
    assert out["unknown"]["code"] == "parameter_unknown" and out["unknown"]["param"] == "prodcut"
    assert out["auth"] == {"type": "StripeAuthenticationError", "status": 401}
    assert out["deleted"] is True
