"""Restoring over an existing account is atomic on disk, and other accounts stay served.

A real `stripebench emulator serve --data DIR` process restores a snapshot over an account
that has acknowledged objects; the test-only pause hook (`STRIPEBENCH_EMULATOR_RESTORE_PAUSE`,
see emulator/restoring.py) holds the restore at a named point while the test looks at the
server and the SQLite file, then the process is killed with SIGKILL there. After a restart
the account is either all old (killed before the commit point) or all new (after it):
never gone, never a mix.
"""

from __future__ import annotations

import signal
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import stripe
from test_core_persistence import serve

from conftest import free_port

NEW_COUNT = 1500  # several staging slices: the kill lands with new rows on disk


def _client(base: str, account: dict[str, Any]) -> stripe.StripeClient:
    return stripe.StripeClient(account["secret_key"], base_addresses={"api": base},
                               max_network_retries=0)


def _prepare(base: str) -> dict[str, Any]:
    """Account A with acknowledged objects, and a different snapshot to restore over it."""
    account = httpx.post(f"{base}/_emulator/accounts", json={}).json()
    client = _client(base, account)
    old = [client.v1.customers.create(params={"email": f"old{i}@example.com"}).id
           for i in range(12)]
    client.v1.customers.delete(old[3])
    keyed = client.v1.customers.create(params={"email": "keyed@example.com"},
                                       options={"idempotency_key": "old-key"}).id
    old_live = [keyed] + [i for i in reversed(old) if i != old[3]]
    snapshot = httpx.get(f"{base}/_emulator/accounts/{account['id']}/snapshot").json()
    template = next(o for o in snapshot["objects"] if o["object"] == "customer")
    new = [dict(template, id=f"cus_new{i:05d}", email=f"new{i}@example.com")
           for i in range(NEW_COUNT)]
    snapshot.update(objects=new, order={"customer": [o["id"] for o in new]},
                    sequence=[o["id"] for o in new], idempotency={})
    return {"account": account, "old_live": old_live, "deleted": old[3],
            "new_newest_first": [o["id"] for o in reversed(new)], "snapshot": snapshot}


def _start_restore(base: str, snapshot: dict[str, Any]) -> threading.Thread:
    def post() -> None:
        try:
            httpx.post(f"{base}/_emulator/restore", json=snapshot, timeout=90)
        except httpx.HTTPError:
            pass  # the server is killed under it
    thread = threading.Thread(target=post, daemon=True)
    thread.start()
    return thread


def _wait_for(marker: Path, point: str, process: Any) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if marker.exists() and marker.read_text() == point:
            return
        assert process.poll() is None, "the server died"
        time.sleep(0.05)
    pytest.fail(f"the restore never paused at {point!r}")


def _generations(data: Path, account_id: str) -> dict[int, int]:
    """Rows per generation for the account, read straight from the SQLite file."""
    with sqlite3.connect(data / "emulator.sqlite3") as db:
        return dict(db.execute("SELECT gen, COUNT(*) FROM objects WHERE account=? "
                               "GROUP BY gen", (account_id,)).fetchall())


def _kill(process: Any) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)


def _ids(client: stripe.StripeClient) -> list[str]:
    return [c.id for c in client.v1.customers.list(params={"limit": 100}).auto_paging_iter()]


def test_kill_before_the_commit_point_keeps_the_old_account_whole(tmp_path: Path) -> None:
    port, marker = free_port(), tmp_path / "pause"
    base = f"http://127.0.0.1:{port}"
    data = tmp_path / "data"
    process = serve(data, port, env={"STRIPEBENCH_EMULATOR_RESTORE_PAUSE": str(marker)})
    try:
        setup = _prepare(base)
        account = setup["account"]
        other = httpx.post(f"{base}/_emulator/accounts", json={}).json()
        _start_restore(base, setup["snapshot"])
        _wait_for(marker, "staged", process)
        # Mid-restore, the server answers: other accounts work, A still shows its old state,
        # a second restore of A is refused.
        assert _client(base, other).v1.customers.create(params={"name": "During"}).id
        assert _ids(_client(base, account)) == setup["old_live"]
        second = httpx.post(f"{base}/_emulator/restore", json=setup["snapshot"], timeout=30)
        assert second.status_code == 400 and "already running" in second.text
        # The new rows are on disk, under a generation nothing points at yet.
        staged = _generations(data, account["id"])
        assert len(staged) == 2 and NEW_COUNT in staged.values()
    finally:
        _kill(process)

    process = serve(data, port)
    try:
        client = _client(base, account)
        assert _ids(client) == setup["old_live"]
        assert client.v1.customers.retrieve(setup["deleted"]).to_dict().get("deleted") is True
        replay = client.v1.customers.create(params={"email": "keyed@example.com"},
                                            options={"idempotency_key": "old-key"})
        assert replay.last_response.headers.get("idempotent-replayed") == "true"
        with pytest.raises(stripe.InvalidRequestError, match="No such customer"):
            client.v1.customers.retrieve("cus_new00000")
        # The half-written generation was swept at start: one generation left.
        assert len(_generations(data, account["id"])) == 1
    finally:
        _kill(process)


def test_kill_after_the_commit_point_has_the_new_account_whole(tmp_path: Path) -> None:
    port, marker = free_port(), tmp_path / "pause"
    base = f"http://127.0.0.1:{port}"
    data = tmp_path / "data"
    process = serve(data, port, env={"STRIPEBENCH_EMULATOR_RESTORE_PAUSE": str(marker)})
    try:
        setup = _prepare(base)
        account = setup["account"]
        _start_restore(base, setup["snapshot"])
        _wait_for(marker, "staged", process)
        marker.unlink()
        _wait_for(marker, "committed", process)
        # Committed but the old generation not yet swept: both are on disk.
        assert len(_generations(data, account["id"])) == 2
    finally:
        _kill(process)

    process = serve(data, port)
    try:
        client = _client(base, account)
        assert list(_generations(data, account["id"]).values()) == [NEW_COUNT]  # old swept
        assert _ids(client) == setup["new_newest_first"]
        with pytest.raises(stripe.InvalidRequestError, match="No such customer"):
            client.v1.customers.retrieve(setup["old_live"][-1])
        fresh = client.v1.customers.create(params={"email": "keyed@example.com"},
                                           options={"idempotency_key": "old-key"})
        assert fresh.last_response.headers.get("idempotent-replayed") is None
    finally:
        _kill(process)


def test_restore_without_a_pause_replaces_the_account_and_survives_a_restart(
        tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    data = tmp_path / "data"
    process = serve(data, port)
    try:
        setup = _prepare(base)
        account = setup["account"]
        restored = httpx.post(f"{base}/_emulator/restore", json=setup["snapshot"], timeout=60)
        assert restored.json()["id"] == account["id"]
        assert _ids(_client(base, account)) == setup["new_newest_first"]
        assert list(_generations(data, account["id"]).values()) == [NEW_COUNT]
        bad = httpx.post(f"{base}/_emulator/restore", content=b'{"account": {"id": ',
                         headers={"content-type": "application/json"})
        assert bad.status_code == 400 and "Invalid snapshot" in bad.text
        assert _ids(_client(base, account)) == setup["new_newest_first"]
    finally:
        _kill(process)
    process = serve(data, port)
    try:
        assert _ids(_client(base, account)) == setup["new_newest_first"]
    finally:
        _kill(process)


def test_a_data_directory_from_before_generations_is_migrated(tmp_path: Path) -> None:
    """Files written before rows carried a generation load unchanged, deletions included."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = serve(tmp_path, port)
    try:
        account = httpx.post(f"{base}/_emulator/accounts", json={}).json()
        client = _client(base, account)
        made = [client.v1.customers.create(params={"email": f"m{i}@example.com"}).id
                for i in range(4)]
        client.v1.customers.delete(made[1])
    finally:
        _kill(process)
    # Rewrite the file into the earlier layout: no `gen` column anywhere.
    with sqlite3.connect(tmp_path / "emulator.sqlite3") as db:
        db.execute("CREATE TABLE old_objects AS SELECT account, id, seq, type, data FROM objects")
        db.execute("CREATE TABLE old_keys AS SELECT account, key, data FROM idempotency")
        db.execute("CREATE TABLE old_accounts AS SELECT id, meta FROM accounts")
        for table in ("objects", "idempotency", "accounts"):
            db.execute(f"DROP TABLE {table}")
        db.execute("CREATE TABLE accounts (id TEXT PRIMARY KEY, meta TEXT)")
        db.execute("CREATE TABLE objects (account TEXT, id TEXT, seq INTEGER, type TEXT, "
                   "data TEXT, PRIMARY KEY (account, id))")
        db.execute("CREATE TABLE idempotency (account TEXT, key TEXT, data TEXT, "
                   "PRIMARY KEY (account, key))")
        db.execute("INSERT INTO accounts SELECT * FROM old_accounts")
        db.execute("INSERT INTO objects SELECT * FROM old_objects")
        db.execute("INSERT INTO idempotency SELECT * FROM old_keys")
        for table in ("old_objects", "old_keys", "old_accounts"):
            db.execute(f"DROP TABLE {table}")
    process = serve(tmp_path, port)
    try:
        client = _client(base, account)
        assert _ids(client) == [made[3], made[2], made[0]]
        assert client.v1.customers.retrieve(made[1]).to_dict().get("deleted") is True
        page = client.v1.customers.list(params={"limit": 1, "starting_after": made[1]})
        assert [c.id for c in page.data] == [made[0]]
        assert client.v1.customers.create(params={"email": "after@example.com"}).id not in made
    finally:
        _kill(process)
