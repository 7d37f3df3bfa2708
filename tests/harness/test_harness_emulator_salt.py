"""The run's id salt (wall 5 of issue 25): kept in the run's emulator folder, so a resumed
run gives a redone trial the same account and object ids; every account the run's
emulator makes is salted (a trial's by the harness, a task set-up's by the server's
salt), so no trial computes another's ids from the seed.

https://docs.stripe.com/api/checkout/sessions/object#checkout_session_object-url (a
session's page pays it: its id must not be guessable).
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import stripe

from stripebench.emulator.ids import IdGenerator
from stripebench.harness.emulator import Emulator


def first_ids(emu: Emulator, account_id: str) -> tuple[str, str]:
    """A trial's first customer and first connected account, on a fresh account."""
    account = emu.create_account(account_id)
    client = stripe.StripeClient(account.secret_key, base_addresses={"api": emu.base},
                                 max_network_retries=0)
    customer = client.v1.customers.create(params={"email": "resume@example.com"})
    conn = client.v1.accounts.create(params={
        "type": "express", "capabilities": {"transfers": {"requested": True}}})
    return customer.id, conn.id


def test_a_resumed_run_replays_a_redone_trials_ids(tmp_path: Path) -> None:
    data = tmp_path / "run" / "emulator"
    first = Emulator.start(data=data)
    try:
        account_id = first.trial_account_id("connect-payments-dashboard", 1)
        before = first_ids(first, account_id)
        salt = first.account_salt
    finally:
        first.stop()
    assert os.stat(data / "account_salt").st_mode & 0o077 == 0  # the harness's alone
    resumed = Emulator.start(data=data)  # `stripebench run --resume`
    try:
        assert resumed.account_salt == salt
        assert resumed.trial_account_id("connect-payments-dashboard", 1) == account_id
        assert first_ids(resumed, account_id) == before  # the trial, redone
    finally:
        resumed.stop()
    other = Emulator.start(data=tmp_path / "other-run" / "emulator")
    try:
        assert other.account_salt != salt
        assert first_ids(other, account_id) != before  # same id, other run: other ids
    finally:
        other.stop()


def test_every_account_of_the_runs_emulator_is_salted(tmp_path: Path) -> None:
    emu = Emulator.start(data=tmp_path / "emulator")
    try:
        trial = emu.create_account(emu.trial_account_id("checkout-gym", 1))
        # what a task's set-up makes through the control plane, with no salt of its own
        bare = emu.http.post("/_emulator/accounts", json={}).json()
        for account_id in (trial.id, bare["id"]):
            meta = emu.snapshot(account_id)["account"]
            assert meta["salt"] and meta["salt"] not in str(emu.http.get(
                f"/_emulator/accounts/{account_id}").json())
            customer, conn = first_ids_of(emu, account_id)
            unsalted = IdGenerator(f"0:{account_id}")
            unsalted.counter = 2
            assert customer != unsalted.new("cus")
            sequence = IdGenerator("0:accounts")  # the shared sequence they came from
            assert conn not in {sequence.new("acct") for _ in range(20)}
        assert httpx.get(f"{emu.base}/v1/account", headers={
            "Authorization": f"Bearer {trial.secret_key}"}).text.count("salt") == 0
    finally:
        emu.stop()


def first_ids_of(emu: Emulator, account_id: str) -> tuple[str, str]:
    """The first customer and connected account an existing account makes."""
    key = emu.snapshot(account_id)["account"]["secret_key"]
    client = stripe.StripeClient(key, base_addresses={"api": emu.base}, max_network_retries=0)
    customer = client.v1.customers.create(params={"email": "salted@example.com"})
    conn = client.v1.accounts.create(params={
        "type": "express", "capabilities": {"transfers": {"requested": True}}})
    return customer.id, conn.id
