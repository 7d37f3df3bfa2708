"""Each account's request log, as graders read it (GET /_stripebench/request_log).

It is how an SDK-upgrade grader proves nothing went around its recording proxies
(stripebench.grading.sdk_upgrade.service_copies): the log names every API request the account
received, with its Stripe-Version and User-Agent, and only the SHA-256 of the proxy's
stamp, so reading the log never hands a service a stamp it could forge. Requests a
platform makes on a connected account (https://docs.stripe.com/connect/authentication,
the Stripe-Account header) are the platform's: a service cannot hide its requests in a
connected account's log.
"""

from __future__ import annotations

import hashlib

import httpx
import pytest
import stripe

from conftest import RunningEmulator

LOG = "/_stripebench/request_log"


def read(emulator: RunningEmulator, key: str, **params: str) -> httpx.Response:
    return httpx.get(emulator.base + LOG, params=params,
                     headers={"Authorization": f"Bearer {key}"})


def test_the_log_names_each_request_with_version_agent_and_hashed_stamp(
        emulator: RunningEmulator, account: dict[str, str], client: stripe.StripeClient
) -> None:
    first = client.v1.customers.create(params={"name": "Logged"})
    stamped = httpx.post(emulator.base + "/v1/customers", data={"name": "Stamped"}, headers={
        "Authorization": f"Bearer {account['secret_key']}", "Stripe-Version": "2022-08-01",
        "User-Agent": "probe/1", "Stripebench-Recorded-By": "grader-secret"})
    assert stamped.status_code == 200
    entries = read(emulator, account["secret_key"]).json()["data"]
    assert [e["method"] + " " + e["path"] for e in entries] == ["POST /v1/customers"] * 2
    sdk_entry, probe_entry = entries
    assert sdk_entry["user_agent"] == f"Stripe/v1 PythonBindings/{stripe.VERSION}"
    assert sdk_entry["recorded_by"] is None
    assert probe_entry["version"] == "2022-08-01" and probe_entry["user_agent"] == "probe/1"
    assert probe_entry["recorded_by"] == hashlib.sha256(b"grader-secret").hexdigest()
    assert "grader-secret" not in read(emulator, account["secret_key"]).text
    # after=<id>: only what came later; reading the log is not itself logged
    later = read(emulator, account["secret_key"], after=sdk_entry["id"]).json()["data"]
    assert [e["id"] for e in later] == [probe_entry["id"]]
    assert first.id.startswith("cus_")


def test_only_the_accounts_own_secret_key_reads_it(emulator: RunningEmulator,
                                                   account: dict[str, str]) -> None:
    assert read(emulator, account["publishable_key"]).status_code == 401
    assert read(emulator, "sk_test_guessed000000000000").status_code == 401
    assert httpx.get(emulator.base + LOG).status_code == 401
    other = emulator.new_account()
    stripe.StripeClient(other["secret_key"], base_addresses={"api": emulator.base}
                        ).v1.customers.create(params={"name": "Other's"})
    assert read(emulator, account["secret_key"]).json()["data"] == []


def test_requests_on_a_connected_account_stay_in_the_platforms_log(
        emulator: RunningEmulator, account: dict[str, str], client: stripe.StripeClient
) -> None:
    connected = client.v1.accounts.create(params={"type": "express", "country": "US"})
    client.v1.customers.create(params={"name": "On behalf"},
                               options={"stripe_account": connected.id})
    entries = read(emulator, account["secret_key"]).json()["data"]
    assert [(e["path"], e.get("account")) for e in entries] == [
        ("/v1/accounts", None), ("/v1/customers", connected.id)]


@pytest.mark.parametrize("after", ["req_unknown", ""])
def test_an_unknown_or_empty_after_gives_the_whole_log(
        emulator: RunningEmulator, account: dict[str, str], client: stripe.StripeClient,
        after: str) -> None:
    client.v1.customers.create()
    assert len(read(emulator, account["secret_key"], after=after).json()["data"]) == 1
