"""Each account's request record, as graders read it (GET /_stripebench/request_log).

It is how an SDK-upgrade grader proves nothing went around its recording proxies
(stripebench.grading.sdk_upgrade.service_copies): the record names every API request the
account received, with its Stripe-Version and User-Agent, and only the SHA-256 of the
proxy's stamp, so reading it never hands a service a stamp it could forge. Requests a
platform makes on a connected account (https://docs.stripe.com/connect/authentication,
the Stripe-Account header) are the platform's: a service cannot hide its requests in a
connected account's record. The record is append-only: nothing is ever pushed out of it;
past its byte budget it keeps counting and says what it did not keep.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import httpx
import pytest
import stripe

from conftest import RunningEmulator, start_emulator

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
    assert [e["seq"] for e in entries] == [1, 2]
    # after=<seq>: only what came later; reading the log is not itself logged
    later = read(emulator, account["secret_key"], after=str(sdk_entry["seq"])).json()["data"]
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


def test_counters_are_exact_and_pages_follow_seq(
        emulator: RunningEmulator, account: dict[str, str]) -> None:
    key = account["secret_key"]
    with httpx.Client(base_url=emulator.base,
                      headers={"Authorization": f"Bearer {key}"}) as http:
        for n in range(7):
            stamp = {"Stripebench-Recorded-By": "a" if n % 2 else "b"} if n < 5 else {}
            assert http.get("/v1/balance", headers=stamp).status_code == 200
        http.get("/v1/customers/cus_missing")  # a 404 is a request too
    counters = read(emulator, key, limit="0").json()
    assert counters["data"] == [] and counters["has_more"] is True
    assert {k: counters[k] for k in ("total", "kept", "dropped", "complete", "began",
                                     "unstamped", "other_stamps")} == {
        "total": 8, "kept": 8, "dropped": 0, "complete": True, "began": "created",
        "unstamped": 3, "other_stamps": 0}
    digest = {s: hashlib.sha256(s.encode()).hexdigest() for s in "ab"}
    assert counters["stamps"] == {digest["b"]: 3, digest["a"]: 2}
    first = read(emulator, key, limit="3").json()
    assert [e["seq"] for e in first["data"]] == [1, 2, 3] and first["has_more"] is True
    rest = read(emulator, key, after="3", limit="10").json()
    assert [e["seq"] for e in rest["data"]] == [4, 5, 6, 7, 8] and rest["has_more"] is False
    assert rest["data"][-1]["status"] == 404
    assert read(emulator, key, after="8").json()["data"] == []


@pytest.mark.parametrize(("query", "param", "says"), [
    ("after=req_123", "after", "not an integer"),  # a request id is no longer a watermark
    ("after=", "after", "not an integer"),
    ("after=-1", "after", "not an integer"),
    ("after=1.5", "after", "not an integer"),
    ("after=3", "after", "past the last request"),
    ("limit=abc", "limit", "not an integer"),
    ("limit=100001", "limit", "from 0 to 100000"),
    ("after=0&after=1", "after", "more than once"),
    ("starting_after=0", "starting_after", "unknown parameter: starting_after"),
    ("limit=5&verbose=1", "verbose", "unknown parameter: verbose"),
])
def test_bad_read_parameters_are_stripe_errors_naming_them(
        emulator: RunningEmulator, account: dict[str, str], client: stripe.StripeClient,
        query: str, param: str, says: str) -> None:
    client.v1.customers.create()
    for url, headers in ((f"{emulator.base}{LOG}?{query}",
                          {"Authorization": f"Bearer {account['secret_key']}"}),
                         (f"{emulator.base}/_emulator/accounts/{account['id']}/requests"
                          f"?{query}", {})):
        answer = httpx.get(url, headers=headers)
        assert answer.status_code == 400, (url, answer.text)
        error = answer.json()["error"]
        assert error["type"] == "invalid_request_error" and error["param"] == param
        assert says in error["message"]


def test_past_its_budget_the_record_keeps_counting_and_says_what_it_dropped() -> None:
    small = start_emulator(request_budget=4000)  # about a dozen entries
    try:
        owner = small.new_account()
        key = owner["secret_key"]
        with httpx.Client(base_url=small.base,
                          headers={"Authorization": f"Bearer {key}"}) as http:
            for n in range(40):
                stamp = {"Stripebench-Recorded-By": "proxy"} if n % 4 else {}
                http.get("/v1/balance", headers={"User-Agent": f"probe/{n}", **stamp})
        record = read(small, key).json()
        kept = record["kept"]
        assert 5 < kept < 40 and record["used_bytes"] <= record["budget_bytes"] == 4000
        # counted: every request, whatever was kept
        assert (record["total"], record["dropped"], record["complete"]) == (40, 40 - kept,
                                                                            False)
        assert record["unstamped"] == 10
        assert record["stamps"] == {hashlib.sha256(b"proxy").hexdigest(): 30}
        # held: the unbroken run from the first request on, nothing replaced since
        assert [e["seq"] for e in record["data"]] == list(range(1, kept + 1))
        assert [e["user_agent"] for e in record["data"]] == [f"probe/{n}" for n in range(kept)]
        assert read(small, key, after=str(kept)).json()["data"] == []
        control = httpx.get(f"{small.base}/_emulator/accounts/{owner['id']}/requests").json()
        assert (control["total"], control["kept"], control["dropped"]) == (40, kept, 40 - kept)
    finally:
        small.stop()


def test_a_restore_keeps_the_record_and_a_new_account_starts_one(
        emulator: RunningEmulator, account: dict[str, str], client: stripe.StripeClient
) -> None:
    client.v1.customers.create(params={"name": "Before"})
    snapshot = httpx.get(f"{emulator.base}/_emulator/accounts/{account['id']}/snapshot").json()
    assert "record" not in snapshot and "requests" not in snapshot  # not account state
    client.v1.customers.create(params={"name": "Undone by the restore"})
    restored = httpx.post(f"{emulator.base}/_emulator/restore", json=snapshot)
    assert restored.status_code == 200, restored.text
    client.v1.customers.list()
    record = read(emulator, account["secret_key"]).json()
    assert [(e["seq"], e["method"]) for e in record["data"]] == [
        (1, "POST"), (2, "POST"), (3, "GET")]
    assert record["began"] == "created" and record["complete"] is True
    # the same snapshot as an account this server does not hold: a record of its own
    moved = {**snapshot, "account": {**snapshot["account"], "id": account["id"] + "copy"}}
    copy = httpx.post(f"{emulator.base}/_emulator/restore", json=moved).json()
    fresh = read(emulator, copy["secret_key"]).json()
    assert (fresh["total"], fresh["began"], fresh["complete"]) == (0, "restored", True)
    # a deleted and recreated account starts from nothing
    httpx.delete(f"{emulator.base}/_emulator/accounts/{account['id']}")
    again = emulator.new_account(id=account["id"])
    assert read(emulator, again["secret_key"]).json()["total"] == 0


def test_after_a_restart_the_record_says_it_began_there(tmp_path: Path) -> None:
    first = start_emulator(data=tmp_path)
    try:
        owner = first.new_account()
        stripe.StripeClient(owner["secret_key"], base_addresses={"api": first.base}
                            ).v1.customers.create()
        assert read(first, owner["secret_key"]).json()["total"] == 1
    finally:
        first.stop()
    second = start_emulator(data=tmp_path)
    try:
        record = read(second, owner["secret_key"]).json()
        assert (record["total"], record["began"], record["complete"]) == (0, "restarted",
                                                                          False)
    finally:
        second.stop()


def test_restoring_an_export_keeps_the_records_of_the_accounts_it_holds() -> None:
    own = start_emulator()
    try:
        kept, gone = own.new_account(), own.new_account()
        for holder in (kept, gone):
            stripe.StripeClient(holder["secret_key"], base_addresses={"api": own.base}
                                ).v1.customers.create()
        export = httpx.get(f"{own.base}/_emulator/snapshot").json()
        export["accounts"] = [a for a in export["accounts"] if a["account"]["id"] != gone["id"]]
        assert httpx.post(f"{own.base}/_emulator/restore", json=export).status_code == 200
        record = read(own, kept["secret_key"]).json()
        assert (record["total"], record["began"]) == (1, "created")
        assert read(own, gone["secret_key"]).status_code == 401  # its account is gone
    finally:
        own.stop()
