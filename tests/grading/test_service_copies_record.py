"""`ServiceCopies.bypassing` reads the account's request record, which no flood can cut.

The attack this guards against (issue 25, "request-log flush"): a service copy sends one
request straight to the emulator (its old SDK, around the grader's recording proxy), then
5,000 harmless ones; with a ring buffer of the last 5,000 requests the stale one fell out
of the log before the grader read it, and the grader passed a service that was not
upgraded. The copies here are no processes: the test is the service, sending through the
grader's stamp (as its proxies do) or around it, pipelined on one keep-alive connection
to the harness's emulator (a child process, as in a run).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import start_emulator
from stripebench.emulator.request_log import STAMP_HEADER
from stripebench.grading.sdk_upgrade.service_copies import ServiceCopies, _bypassing

FLOOD = 5_600  # past the old ring buffer's 5,000 (trimmed at 5,500 to 5,000)
STALE = "Stripe/v1 PythonBindings/2.60.0"

Copies = Callable[[str, str], ServiceCopies]


@pytest.fixture()
def grading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Copies]:
    """Start a grader's ServiceCopies on (emulator base, secret key), with no service
    (only the grader's own proxy): what a grader holds while its copies run."""
    started: list[ServiceCopies] = []

    def start(base: str, key: str) -> ServiceCopies:
        monkeypatch.setenv("STRIPE_API_BASE", base)
        monkeypatch.setenv("STRIPE_SECRET_KEY", key)
        started.append(ServiceCopies(tmp_path, ()))
        return started[-1]

    yield start
    for copies in started:
        copies.stop()


def send(base: str, key: str, count: int, stamp: str | None, agent: str) -> None:
    """`count` GET /v1/balance, pipelined on one connection; each must answer 200."""
    host, port = base.removeprefix("http://").split(":")
    request = (f"GET /v1/balance HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n"
               f"User-Agent: {agent}\r\n" + (f"{STAMP_HEADER}: {stamp}\r\n" if stamp else "")
               + "\r\n").encode()
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        writer = threading.Thread(target=sock.sendall, args=(request * count,))
        writer.start()  # written while the answers are read: neither side's buffer fills
        buffer = b""
        for _ in range(count):
            while b"\r\n\r\n" not in buffer:
                buffer += sock.recv(1 << 16)
            head, buffer = buffer.split(b"\r\n\r\n", 1)
            assert head.startswith(b"HTTP/1.1 200"), head[:200]
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            while len(buffer) < length:
                buffer += sock.recv(1 << 16)
            buffer = buffer[length:]
        writer.join()


def test_a_flood_after_a_stale_request_does_not_hide_it(server: Any, grading: Copies
                                                        ) -> None:
    account = server.create_account("acct_flood1")
    key = account.secret_key
    send(server.base, key, 3, None, "setup/1")  # before the grading: not its business
    copies = grading(server.base, key)
    send(server.base, key, 1, None, STALE)  # straight to the emulator
    send(server.base, key, FLOOD, copies.grader.stamp, "harmless/1")  # through a proxy
    assert copies.bypassing() == [f"GET /v1/balance ({STALE})"]
    # the harness's copy of the record holds it all too (what emulator_requests.json is)
    record = server.requests(account.id)
    assert (record["total"], record["dropped"], record["complete"]) == (FLOOD + 4, 0, True)
    assert [e["seq"] for e in record["data"]] == list(range(1, FLOOD + 5))
    assert record["data"][3]["user_agent"] == STALE and record["data"][3]["recorded_by"] is None
    server.delete_account(account.id)


def test_only_stamped_requests_and_the_five_first_that_were_not(server: Any,
                                                               grading: Copies) -> None:
    account = server.create_account("acct_flood2")
    key = account.secret_key
    copies = grading(server.base, key)
    with httpx.Client(base_url=copies.grader_base,  # the grader's real proxy stamps these
                      headers={"Authorization": f"Bearer {key}"}) as through:
        for _ in range(3):
            assert through.get("/v1/balance").status_code == 200
    assert copies.bypassing() == []
    send(server.base, key, 2, "a-stamp-of-its-own", "forger/1")  # not the grader's
    send(server.base, key, 6, None, "direct/1")
    assert copies.bypassing() == ["GET /v1/balance (forger/1)"] * 2 + [
        "GET /v1/balance (direct/1)"] * 3
    server.delete_account(account.id)


def test_a_record_over_its_budget_fails_the_check_closed(grading: Copies) -> None:
    small = start_emulator(request_budget=6000)  # some dozens of entries
    try:
        for stale in (0, 1):
            account = small.new_account()
            key = account["secret_key"]
            copies = grading(small.base, key)
            send(small.base, key, stale, None, "direct/1")  # kept: the record has room
            # every later request of the grading stamped, but not all of them kept
            send(small.base, key, 60, copies.grader.stamp, "harmless/1")
            record = httpx.get(f"{small.base}/_stripebench/request_log?limit=0",
                               headers={"Authorization": f"Bearer {key}"}).json()
            assert record["dropped"] > 0 and record["total"] == 60 + stale
            found = copies.bypassing()
            assert found[0] == (
                f"the emulator's request record overflowed: {record['dropped']} requests "
                f"(from seq {record['kept'] + 1} on) were counted but not kept (6000 bytes "
                "a record), so the grading's requests cannot all be checked")
            assert found[1:] == ["GET /v1/balance (direct/1)"] * stale
    finally:
        small.stop()


def test_a_record_that_began_again_fails_the_check_closed(tmp_path: Path) -> None:
    def entries() -> Iterator[dict[str, Any]]:
        return iter([])

    first = start_emulator(data=tmp_path)
    try:
        account = first.new_account()
        send(first.base, account["secret_key"], 4, None, "before/1")
    finally:
        first.stop()
    second = start_emulator(data=tmp_path)  # the same accounts, from the data folder
    try:
        record = httpx.get(f"{second.base}/_stripebench/request_log?limit=0", headers={
            "Authorization": f"Bearer {account['secret_key']}"}).json()
        assert record["began"] == "restarted"
        for watermark in (0, 4):
            found = _bypassing(record, watermark, set(), entries)
            assert len(found) == 1 and "does not cover the whole grading" in found[0]
    finally:
        second.stop()
