"""`stripebench emulator serve --data DIR` keeps every acknowledged write across `kill -9`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import stripe

from conftest import free_port


def serve(data: Path, port: int, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "stripebench.cli", "emulator", "serve", "--port", str(port),
               "--data", str(data), "--seed", "77"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/_emulator/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
        if process.poll() is not None:
            break
    process.kill()
    output = process.stdout.read() if process.stdout else b""
    raise RuntimeError(f"emulator did not start: {output!r}")


def test_kill_dash_nine_loses_nothing(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = serve(tmp_path, port)
    try:
        banner = b""
        assert process.stdout is not None
        while b"secret key" not in banner:
            banner += process.stdout.readline()
        secret = banner.split(b"secret key")[1].split()[0].decode()
        client = stripe.StripeClient(secret, base_addresses={"api": base})
        customers = [client.v1.customers.create(params={"email": f"p{i}@example.com"}).id
                     for i in range(5)]
        client.v1.customers.update(customers[0], params={"name": "Renamed",
                                                         "metadata": {"k": "v"}})
        client.v1.customers.delete(customers[1])
        product = client.v1.products.create(params={
            "name": "Kept", "default_price_data": {"currency": "usd", "unit_amount": 300}})
        coupon = client.v1.coupons.create(params={"percent_off": 30, "id": "KEEP30"})
        client.v1.promotion_codes.create(params={"promotion": {"type": "coupon",
                                                               "coupon": coupon.id},
                                                 "code": "KEEPME"})
        keyed = client.v1.customers.create(params={"email": "idem@example.com"},
                                           options={"idempotency_key": "persist-key"})
        extra = httpx.post(f"{base}/_emulator/accounts", json={}).json()
        other = stripe.StripeClient(extra["secret_key"], base_addresses={"api": base})
        other_customer = other.v1.customers.create(params={"name": "Other"})
        before = client.v1.customers.list(params={"limit": 100})
        events_before = client.v1.events.list(params={"limit": 100})
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    process = serve(tmp_path, port)
    try:
        after = client.v1.customers.list(params={"limit": 100})
        assert [c.id for c in after.data] == [c.id for c in before.data]
        assert [c.to_dict() for c in after.data] == [c.to_dict() for c in before.data]
        assert client.v1.customers.retrieve(customers[0]).name == "Renamed"
        assert client.v1.customers.retrieve(customers[1]).to_dict().get("deleted") is True
        kept = client.v1.products.retrieve(product.id, params={"expand": ["default_price"]})
        assert kept.default_price.unit_amount == 300  # type: ignore[union-attr]
        assert client.v1.coupons.retrieve("KEEP30").percent_off == 30
        assert client.v1.promotion_codes.list(params={"code": "KEEPME"}).data
        events_after = client.v1.events.list(params={"limit": 100})
        assert [e.id for e in events_after.data] == [e.id for e in events_before.data]
        replay = client.v1.customers.create(params={"email": "idem@example.com"},
                                            options={"idempotency_key": "persist-key"})
        assert replay.id == keyed.id
        assert replay.last_response.headers.get("idempotent-replayed") == "true"
        assert other.v1.customers.retrieve(other_customer.id).name == "Other"
        # New writes continue the id sequence and the clock: nothing collides, order holds.
        fresh = client.v1.customers.create(params={"email": "new@example.com"})
        assert fresh.id not in customers and fresh.created > keyed.created
        newest = client.v1.customers.list(params={"limit": 2})
        assert [c.id for c in newest.data] == [fresh.id, keyed.id]
        # Cursor pagination still works over the restored order.
        page = client.v1.customers.list(params={"limit": 2, "starting_after": keyed.id})
        assert [c.id for c in page.data] == [customers[4], customers[3]]
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)


# ---------------------------------------------------------------------------------------
# A full or read-only disk under `--data`: a real tmpfs of a few MB (we run as root).

@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path) -> Path:
    """Take every free byte of the disk with one file (removing it frees them)."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError:
            pass
    return filler


def banner_key(process: subprocess.Popen[bytes]) -> str:
    banner = b""
    assert process.stdout is not None
    while b"secret key" not in banner:
        line = process.stdout.readline()
        assert line, banner
        banner += line
    return banner.split(b"secret key")[1].split()[0].decode()


def test_a_full_disk_refuses_writes_applies_none_and_keeps_serving_reads(
        small_disk: Path) -> None:
    """Stripe answers its own failures with a 500 `api_error`
    (https://docs.stripe.com/api/errors); a write that failed must not be applied."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = serve(small_disk / "state", port)
    try:
        client = stripe.StripeClient(banner_key(process), base_addresses={"api": base},
                                     max_network_retries=0)
        kept = client.v1.customers.create(params={"email": "kept@example.com"})
        filler = fill(small_disk)
        big = {f"k{i}": "v" * 500 for i in range(50)}
        refused: list[str] = []
        for i in range(40):  # each write adds ~30 KB to the WAL: it runs out quickly
            try:
                client.v1.customers.create(params={"email": f"c{i}@example.com",
                                                   "metadata": big})
            except stripe.APIError as exc:
                assert exc.http_status == 500
                assert exc.error is not None and exc.error.type == "api_error"
                assert "nothing was changed" in (exc.error.message or "")
                refused.append(f"c{i}@example.com")
                break
        assert refused, "the disk never filled"
        listed = [c.email for c in client.v1.customers.list(params={"limit": 100}).data]
        assert refused[0] not in listed and "kept@example.com" in listed
        assert client.v1.customers.retrieve(kept.id).email == "kept@example.com"
        with pytest.raises(stripe.APIError):  # an update is refused the same way
            client.v1.customers.update(kept.id, params={"metadata": big})
        assert client.v1.customers.retrieve(kept.id).to_dict()["metadata"] == {}
        filler.unlink()
        again = client.v1.customers.create(params={"email": refused[0]})
        assert again.email == refused[0]
        before = [c.id for c in client.v1.customers.list(params={"limit": 100}).data]
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    process = serve(small_disk / "state", port)
    try:
        after = [c.id for c in client.v1.customers.list(params={"limit": 100}).data]
        assert after == before  # what was refused was never stored either
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)


def _serve_fails(data: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "stripebench.cli", "emulator", "serve",
                           "--port", str(free_port()), "--data", str(data)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(data) in lines[0], done.stderr
    return lines[0]


def test_serve_on_a_full_folder_exits_with_one_line(small_disk: Path) -> None:
    fill(small_disk)
    _serve_fails(small_disk / "state")


def test_serve_on_a_read_only_folder_exits_with_one_line(small_disk: Path) -> None:
    (small_disk / "state").mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    _serve_fails(small_disk / "state")
