"""No account can read, compute or change another's objects (wall 5 of issue 25).

Ids were seeded from the server seed (0 by default) and the account id, and connected
accounts took their ids from one shared sequence: from an unrelated account an attacker
listed the first connected account ids, derived a victim platform's connected Checkout
Session id and paid it on the hosted page, and connect.stripe.com opened any Express
Dashboard without checking the login link's token. Now every account's ids are salted
with a secret the agent never sees (the harness's per trial, or the server's
`--salt`), a connected account takes its id and salt from its platform's, and a login
link works only with the token issued for that account, once.

Stripe's pages: https://docs.stripe.com/api/accounts/login_link ("Login Links are
single-use URLs"), https://docs.stripe.com/connect/authentication (Stripe-Account acts
only on the platform's own connected accounts),
https://docs.stripe.com/api/checkout/sessions/object#checkout_session_object-url.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
import stripe

from checkout_helpers import confirm
from conftest import RunningEmulator, start_emulator
from connect_helpers import custom_account
from stripebench.emulator.ids import IdGenerator

SEED = 0


def trial(emulator: RunningEmulator, name: str) -> tuple[dict[str, str], stripe.StripeClient]:
    """A trial account as the harness makes one: its own id and secret id salt."""
    account = emulator.new_account(id=f"acct_1{name}", salt=f"secret-of-{name}")
    client = stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base},
                                 max_network_retries=0)
    return account, client


def victim_objects(client: stripe.StripeClient) -> dict[str, Any]:
    """A platform's own and its connected account's customer, PaymentIntent and
    Checkout Session, and an Express account with a login link."""
    made: dict[str, Any] = {}
    conn = custom_account(client)
    for where, options in (("own", {}), ("connected", {"stripe_account": conn.id})):
        customer = client.v1.customers.create(params={"email": "victim@example.com"},
                                              options=options)
        price = client.v1.prices.create(params={
            "currency": "usd", "unit_amount": 5000, "product_data": {"name": "Grooming"}},
            options=options)
        session = client.v1.checkout.sessions.create(params={
            "mode": "payment", "success_url": "https://victim.example/ok",
            "line_items": [{"price": price.id, "quantity": 1}]}, options=options)
        intent = client.v1.payment_intents.create(params={
            "amount": 700, "currency": "usd", "customer": customer.id}, options=options)
        made[where] = {"customer": customer, "session": session, "intent": intent}
    express = client.v1.accounts.create(params={
        "type": "express", "capabilities": {"transfers": {"requested": True}}})
    made.update(conn=conn, express=express,
                login=client.v1.accounts.login_links.create(express.id).url)
    return made


def id_at(seed: str, counter: int, prefix: str) -> str:
    """The id a generator seeded with `seed` makes at `counter`, as an attacker computes it."""
    ids = IdGenerator(seed)
    ids.counter = counter - 1
    return ids.new(prefix)


def derivable(account_ids: list[str], per_account: int = 60) -> set[str]:
    """Every id an attacker computes from the seed: the first account ids of the shared
    sequence, and the first objects of each account it can name."""
    sequence = [id_at(f"{SEED}:accounts", n, "acct") for n in range(1, 41)]
    found = set(sequence)
    for name in account_ids + sequence:
        for counter in range(1, per_account + 1):
            found |= {id_at(f"{SEED}:{name}", counter, prefix)
                      for prefix in ("cs_test", "cus", "pi", "acct")}
    return found


def test_another_accounts_ids_cannot_be_derived_or_paid(emulator: RunningEmulator) -> None:
    victim, client = trial(emulator, "victim")
    made = victim_objects(client)
    sessions = {made[w]["session"].id: made[w]["session"] for w in ("own", "connected")}
    real = {made["conn"].id, made["express"].id, *sessions}
    for where in ("own", "connected"):
        real |= {made[where]["customer"].id, made[where]["intent"].id}
    # Even knowing both account ids (Stripe does not hide them), nothing is derivable.
    hits = real & derivable([victim["id"], made["conn"].id])
    paid = [confirm(emulator.base, sessions[i]) for i in hits if i in sessions]
    assert not hits, f"derived from the seed: {sorted(hits)}; paid: {paid}"
    for where, options in (("own", {}), ("connected", {"stripe_account": made["conn"].id})):
        assert client.v1.checkout.sessions.retrieve(
            made[where]["session"].id, options=options).status == "open"


def test_another_account_cannot_read_change_or_pay_by_id(emulator: RunningEmulator) -> None:
    _, victim_client = trial(emulator, "victim2")
    made = victim_objects(victim_client)
    attacker, client = trial(emulator, "attacker2")
    conn = made["conn"].id
    for where, options in (("own", {}), ("connected", {})):
        objects = made[where]
        with pytest.raises(stripe.InvalidRequestError) as err:
            client.v1.customers.retrieve(objects["customer"].id, options=options)
        assert err.value.http_status == 404
        with pytest.raises(stripe.InvalidRequestError):
            client.v1.customers.update(objects["customer"].id, params={"email": "x@evil.example"})
        with pytest.raises(stripe.InvalidRequestError):
            client.v1.checkout.sessions.retrieve(objects["session"].id)
        with pytest.raises(stripe.InvalidRequestError):
            client.v1.checkout.sessions.expire(objects["session"].id)
        with pytest.raises(stripe.InvalidRequestError):
            client.v1.payment_intents.retrieve(objects["intent"].id)
        with pytest.raises(stripe.InvalidRequestError):
            client.v1.payment_intents.confirm(objects["intent"].id,
                                              params={"payment_method": "pm_card_visa"})
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.accounts.retrieve(conn)
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.accounts.update(conn, params={"metadata": {"owned": "yes"}})
    with pytest.raises(stripe.StripeError):  # acting as the victim's connected account
        client.v1.customers.list(options={"stripe_account": conn})
    with pytest.raises(stripe.StripeError):
        client.v1.payment_intents.confirm(made["connected"]["intent"].id, params={
            "payment_method": "pm_card_visa"}, options={"stripe_account": conn})
    # The attacker's publishable key with the victim's client secret opens nothing.
    secret = made["connected"]["intent"].client_secret
    peek = httpx.get(f"{emulator.base}/v1/payment_intents/{made['connected']['intent'].id}",
                     params={"client_secret": secret},
                     headers={"Authorization": f"Bearer {attacker['publishable_key']}"})
    assert peek.status_code in (400, 401, 403, 404)
    # Nothing of the victim's changed or was paid.
    for where, options in (("own", {}), ("connected", {"stripe_account": conn})):
        assert victim_client.v1.customers.retrieve(
            made[where]["customer"].id, options=options).email == "victim@example.com"
        assert victim_client.v1.payment_intents.retrieve(
            made[where]["intent"].id, options=options).status == "requires_payment_method"
        assert victim_client.v1.checkout.sessions.retrieve(
            made[where]["session"].id, options=options).status == "open"


def test_express_dashboard_needs_the_issued_token_once(emulator: RunningEmulator) -> None:
    _, victim_client = trial(emulator, "victim3")
    made = victim_objects(victim_client)
    _, client = trial(emulator, "attacker3")
    own = client.v1.accounts.create(params={
        "type": "express", "capabilities": {"transfers": {"requested": True}}})
    own_token = client.v1.accounts.login_links.create(own.id).url.rsplit("/", 1)[1]
    victim_link = made["login"]
    express, victim_token = re.search(r"/acct_login/(acct_\w+)/(\w+)$", victim_link).groups()

    def dashboard(token: str, account: str = express) -> httpx.Response:
        return httpx.get(f"{emulator.base}/connect.stripe.com/express/acct_login/"
                         f"{account}/{token}")

    assert dashboard("x").status_code == 404  # no token
    assert dashboard("lltok_" + "0" * 24).status_code == 404  # a guessed one
    assert dashboard(own_token).status_code == 404  # another platform's token
    assert dashboard(victim_token, made["conn"].id).status_code == 404  # another account
    opened = dashboard(victim_token)
    assert opened.status_code == 200 and "Express Dashboard" in opened.text
    assert dashboard(victim_token).status_code == 404  # single use
    assert dashboard(own_token, own.id).status_code == 200


def test_same_seed_and_salt_same_ids_and_the_salt_survives_restore() -> None:
    """Replay stays deterministic for a given seed and salt; another salt gives other
    ids; a snapshot carries the salt, so a restored account goes on with the same ids."""
    servers = [start_emulator(seed=5, salt="run-salt"), start_emulator(seed=5, salt="run-salt"),
               start_emulator(seed=5, salt="other-salt")]
    try:
        runs = []
        for server in servers:
            account = server.new_account()  # no salt of its own: the server's applies
            client = stripe.StripeClient(account["secret_key"],
                                         base_addresses={"api": server.base})
            conn = custom_account(client)
            customer = client.v1.customers.create(params={"email": "a@example.com"},
                                                  options={"stripe_account": conn.id})
            runs.append((account["id"], conn.id, customer.id))
        assert runs[0] == runs[1]
        assert runs[2][1] != runs[0][1] and runs[2][2] != runs[0][2]
        first = servers[0]
        snapshots = [httpx.get(f"{first.base}/_emulator/accounts/{acct}/snapshot").json()
                     for acct in runs[0][:2]]
        assert all(s["account"]["salt"] for s in snapshots)
        fresh = start_emulator(seed=5)  # no server salt: the snapshots' own salts hold
        try:
            for snapshot in snapshots:
                restored = httpx.post(f"{fresh.base}/_emulator/restore", json=snapshot).json()
                assert restored["id"] == snapshot["account"]["id"]
            key = {s["account"]["id"]: s["account"]["secret_key"] for s in snapshots}
            made = []
            for server in (first, fresh):
                client = stripe.StripeClient(key[runs[0][0]], base_addresses={"api": server.base})
                made.append(client.v1.customers.create(
                    params={"email": "next@example.com"},
                    options={"stripe_account": runs[0][1]}).id)
            assert made[0] == made[1]
            # and the account info the API or control plane shows never names the salt
            info = httpx.get(f"{fresh.base}/_emulator/accounts/{runs[0][0]}").text
            assert "salt" not in info and "run-salt" not in info
        finally:
            fresh.stop()
    finally:
        for server in servers:
            server.stop()
