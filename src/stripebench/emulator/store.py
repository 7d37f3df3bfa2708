"""State: accounts and their objects, held in memory with optional SQLite persistence.

Objects are plain dicts in the canonical (newest API version) shape; keys starting
with `_` are private bookkeeping that never reaches a client. Generated ids are
unique across accounts, so a page served by id (a Checkout Session, a receipt) can
find its account; ids a caller chooses (products, coupons, customers) may repeat
across accounts and are only ever looked up within one. With a data directory, each
request's writes are committed to a WAL-mode SQLite file before the response is sent,
so an acknowledged write survives `kill -9`. A request whose writes cannot be stored (a
full or read-only disk, a value JSON cannot carry) is undone in memory too: what was
not acknowledged never happened.
"""

from __future__ import annotations

import gc
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from .account import Account, account_from_snapshot
from .clock import DEFAULT_START, Clock
from .errors import APIError, InvalidRequest, StripeError
from .ids import IdGenerator, account_generator, derive_salt, random_key
from .request_record import DEFAULT_BUDGET, Began, RequestRecord
from .slices import run_now

# Every this many new objects, what is alive moves out of the garbage collector's sight
# (gc.freeze): stored objects are JSON trees without cycles, and a full collection
# walking 100k of them holds every account for about a second.
FREEZE_EVERY = 20_000


@dataclass
class _Encoded:
    """One flush's writes, encoded: object rows (None: deleted), idempotency rows, metas."""

    objects: dict[tuple[str, str], bytes | None]
    keys: dict[tuple[str, str], bytes]
    metas: dict[str, bytes]


class Store:
    def __init__(self, seed: int = 0, start_time: int = DEFAULT_START,
                 data_dir: Path | None = None, default_version: str = "",
                 salt: str = "", request_budget: int = DEFAULT_BUDGET) -> None:
        self.seed = seed
        self.request_budget = request_budget  # bytes of request entries per account
        # The server's secret: accounts created without a salt of their own derive theirs
        # from it ("" keeps ids computable from the seed, for a standalone emulator).
        self.salt = salt
        self.start_time = start_time
        self.default_version = default_version
        self.accounts: dict[str, Account] = {}
        self.keys: dict[str, tuple[Account, str]] = {}
        self.owner: dict[str, str] = {}  # object id -> account id
        self.account_ids = self._account_sequence()
        self.dirty: set[tuple[str, str]] = set()
        self.dirty_accounts: set[str] = set()
        self.dirty_keys: set[tuple[str, str]] = set()
        self.tombstones: dict[tuple[str, str], str] = {}
        # The last stored form of every object and account: a failed flush puts these back.
        self.committed: dict[tuple[str, str], bytes] = {}
        self.committed_meta: dict[str, bytes] = {}
        self.committed_account_counter = 0
        # Runtime services hung on the store (the webhook dispatcher); never persisted.
        self.extensions: dict[str, Any] = {}
        self.db: sqlite3.Connection | None = None
        self.next_gen = 1
        self.epoch = 0  # bumped by reset/delete: a restore that spans one must not commit
        self.restoring: set[str] = set()  # account ids with a restore under way
        self.unfrozen = 0  # objects created since the last gc.freeze
        if data_dir is not None:
            self._open(Path(data_dir))

    # ----------------------------------------------------------------- accounts

    def _account_sequence(self) -> IdGenerator:
        """Ids of accounts created without one (salted like the accounts themselves)."""
        return IdGenerator(f"{self.seed}:{self.salt}:accounts" if self.salt
                           else f"{self.seed}:accounts")

    def create_account(self, *, api_version: str | None = None, parent: str | None = None,
                       account_id: str | None = None, settings: dict[str, Any] | None = None,
                       salt: str | None = None) -> Account:
        """A new account. A connected account (`parent`) takes its id from its platform's
        salted generator and its salt from the platform's: nobody can compute either
        from the seed, however many accounts the server holds."""
        platform = self.accounts[parent] if parent else None
        if platform is not None:
            acct_id = account_id or platform.ids.new("acct")
            self.touch(platform)  # the platform's id counter moved
            salt = derive_salt(platform.salt, acct_id) if salt is None else salt
        else:
            acct_id = account_id or self.account_ids.new("acct")
            salt = derive_salt(self.salt, acct_id) if salt is None else salt
        ids = account_generator(self.seed, salt, acct_id)
        ids.counter += 2  # where seeded keys once were: the account's object ids stay put
        account = Account(
            id=acct_id,
            secret_key=random_key("sk_test"),
            publishable_key=random_key("pk_test"),
            api_version=api_version or self.default_version,
            ids=ids,
            clock=Clock(self.start_time),
            parent=parent,
            salt=salt,
            settings=settings or {},
        )
        self._register(account)
        return account

    def _register(self, account: Account) -> None:
        account.record.budget = self.request_budget
        self.accounts[account.id] = account
        self.keys[account.secret_key] = (account, "secret")
        self.keys[account.publishable_key] = (account, "publishable")
        self.dirty_accounts.add(account.id)

    def delete_account(self, account_id: str) -> None:
        account = self.accounts[account_id]
        self.epoch += 1
        if self.db is not None:  # stored first: a failed delete leaves the account whole
            with self._transaction() as db:
                for table, column in (("accounts", "id"), ("objects", "account"),
                                      ("idempotency", "account")):
                    db.execute(f"DELETE FROM {table} WHERE {column}=?", (account_id,))
        self._forget_account(account)

    def _forget_account(self, account: Account) -> None:
        del self.accounts[account.id]
        self.keys.pop(account.secret_key, None)
        self.keys.pop(account.publishable_key, None)
        self.committed_meta.pop(account.id, None)
        for object_id in account.seq:
            self.disown(account, object_id)
            self.committed.pop((account.id, object_id), None)

    def reset(self) -> None:
        self.epoch += 1
        if self.db is not None:
            with self._transaction() as db:
                for table in ("accounts", "objects", "idempotency"):
                    db.execute(f"DELETE FROM {table}")
        self.accounts.clear()
        self.keys.clear()
        self.owner.clear()
        self.committed.clear()
        self.committed_meta.clear()
        self.committed_account_counter = 0
        self.account_ids = self._account_sequence()
        self._clear_dirty()

    # ----------------------------------------------------------------- objects

    def put(self, account: Account, obj: dict[str, Any]) -> dict[str, Any]:
        object_id = obj["id"]
        if object_id not in account.seq:
            account.seq[object_id] = len(account.seq)
            account.order.setdefault(obj["object"], []).append(object_id)
            self.owner[object_id] = account.id
            self.unfrozen += 1
        account.objects[object_id] = obj
        account.reindex(object_id)
        self.dirty.add((account.id, object_id))
        return obj

    def remove(self, account: Account, object_id: str) -> None:
        removed = account.objects.pop(object_id, None)
        if removed is not None:
            self.tombstones[(account.id, object_id)] = removed["object"]
            account.reindex(object_id)
        self.disown(account, object_id)
        self.dirty.add((account.id, object_id))

    def disown(self, account: Account, object_id: str) -> None:
        # Ids a caller chooses (`prod_tee` from a task's fixtures) may exist in several
        # accounts at once: only the account the index points at gives the entry up.
        if self.owner.get(object_id) == account.id:
            del self.owner[object_id]

    def touch(self, account: Account) -> None:
        """Mark account-level state (clock, id counter) as changed."""
        self.dirty_accounts.add(account.id)

    def remember(self, account: Account, key: str, entry: dict[str, Any]) -> None:
        """Record an idempotency key's first response."""
        account.idempotency[key] = entry
        self.dirty_keys.add((account.id, key))

    def find(self, object_id: str) -> tuple[Account, dict[str, Any]] | None:
        account_id = self.owner.get(object_id)
        if account_id is None:
            return None
        account = self.accounts.get(account_id)
        obj = account.objects.get(object_id) if account is not None else None
        # None too for an id a restore has claimed but not swapped in yet
        return (account, obj) if account is not None and obj is not None else None

    # ----------------------------------------------------------------- snapshots

    def snapshot(self, account: Account) -> dict[str, Any]:
        sequence = sorted(account.seq, key=account.seq.__getitem__)
        return {
            "account": account.meta(),
            "objects": [account.objects[i] for i in sequence if i in account.objects],
            "order": account.order,
            "sequence": sequence,
            "idempotency": account.idempotency,
        }

    def export_all(self) -> dict[str, Any]:
        return {"seed": self.seed, "accounts": [self.snapshot(a) for a in self.accounts.values()]}

    def install(self, accounts: list[Account], replace_all: bool,
                contested: list[tuple[str, str]] | None = None,
                began: Began = "restored") -> list[Account]:
        """Swap restored accounts in (memory only); returns the accounts they replaced.
        An account that replaces one of the same id keeps its request record; a new one
        starts a record that `began` now.

        The id index already points at the new objects (restoring._adopt), but for
        `contested` (object id, account id) pairs held elsewhere; the replaced accounts'
        leftover ids are released after (restoring._release), so this stays short.
        """
        replaced = list(self.accounts.values()) if replace_all else [
            self.accounts[a.id] for a in accounts if a.id in self.accounts]
        if replace_all:
            self.accounts.clear()
            self.keys.clear()
            self.account_ids = self._account_sequence()
        previous = {a.id: a for a in replaced}
        for account in accounts:
            old = self.accounts.pop(account.id, None)
            if old is not None:
                self.keys.pop(old.secret_key, None)
                self.keys.pop(old.publishable_key, None)
            kept = previous.get(account.id)
            account.record = kept.record if kept is not None else RequestRecord(began=began)
            self._register(account)
            # what a failed write later rolls back to (see `rollback`)
            self.committed_meta[account.id] = orjson.dumps(account.meta())
            for object_id, obj in account.objects.items():
                self.committed[(account.id, object_id)] = orjson.dumps(obj)
        for object_id, account_id in contested or []:
            self.owner[object_id] = account_id
        return replaced

    # ----------------------------------------------------------------- persistence

    def _open(self, data_dir: Path) -> None:
        data_dir.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(data_dir / "emulator.sqlite3", check_same_thread=False,
                             isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        _create_or_migrate(db)
        self.db = db
        # Rows of a generation no account points at: a restore killed before its commit,
        # or the replaced generation of one killed before its sweep.
        with db:
            for table in ("objects", "idempotency"):
                db.execute(f"DELETE FROM {table} WHERE NOT EXISTS (SELECT 1 FROM accounts a "
                           f"WHERE a.id={table}.account AND a.gen={table}.gen)")
        rows = db.execute("SELECT id, meta, gen FROM accounts").fetchall()
        for acct_id, meta_json, gen in rows:
            order: dict[str, list[str]] = {}
            objects = []
            sequence = []
            for object_id, object_type, data in db.execute(
                    "SELECT id, type, data FROM objects WHERE account=? AND gen=? ORDER BY seq",
                    (acct_id, gen)):
                order.setdefault(object_type, []).append(object_id)
                sequence.append(object_id)
                if data is not None:
                    objects.append(json.loads(data))
            idem = {k: json.loads(v) for k, v in db.execute(
                "SELECT key, data FROM idempotency WHERE account=? AND gen=?", (acct_id, gen))}
            account = run_now(account_from_snapshot(
                {"account": json.loads(meta_json), "objects": objects, "order": order,
                 "sequence": sequence, "idempotency": idem}))
            account.gen = gen
            # requests before the restart were held in memory only: not in its record
            self.install([account], replace_all=False, began="restarted")
        self.next_gen = 1 + max([gen for _, _, gen in rows], default=0)
        row = db.execute("SELECT value FROM settings WHERE key='account_counter'").fetchone()
        if row:
            self.account_ids.counter = int(row[0])
        try:
            self._committed(self._encode_dirty())
        except TypeError as exc:  # written by an older emulator that let such values in
            raise APIError(f"{data_dir} holds an object that cannot be shown ({exc})") from None
        gc.freeze()

    # A restore writes the new generation's rows in small transactions of their own
    # (`stage_rows`), then makes them the account's in one transaction that only flips
    # the account row's generation (`commit_generations`): a kill before that keeps the
    # old account whole, a kill after it has the new one whole. The old generation's rows
    # are swept afterwards in chunks (`sweep_chunk`), or at the next start.

    def stage_rows(self, objects: list[tuple[Any, ...]], keys: list[tuple[Any, ...]]) -> None:
        assert self.db is not None
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO objects VALUES (?,?,?,?,?,?)", objects)
            self.db.executemany("INSERT OR REPLACE INTO idempotency VALUES (?,?,?,?)", keys)

    def commit_generations(self, accounts: list[Account], replace_all: bool) -> None:
        assert self.db is not None
        with self.db:
            if replace_all:
                self.db.execute("DELETE FROM accounts")
            for account in accounts:
                self.db.execute("INSERT OR REPLACE INTO accounts VALUES (?,?,?)",
                                (account.id, json.dumps(account.meta()), account.gen))

    def sweep_chunk(self, account_id: str, gen: int, size: int = 1000) -> bool:
        """Delete up to `size` rows of a dead generation; False once none are left."""
        assert self.db is not None
        deleted = 0
        with self.db:
            for table in ("objects", "idempotency"):
                deleted += self.db.execute(
                    f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} "
                    "WHERE account=? AND gen=? LIMIT ?)", (account_id, gen, size)).rowcount
        return deleted > 0

    def flush(self) -> None:
        """Store this request's writes, or undo them in memory and raise a StripeError.

        Objects are encoded with orjson, the encoder responses use, so nothing is kept
        that could not be shown again (a lone surrogate, an integer beyond 64 bits)."""
        self._reindex_dirty()
        if self.unfrozen >= FREEZE_EVERY:
            self.unfrozen = 0
            gc.freeze()
        if not (self.dirty or self.dirty_accounts or self.dirty_keys):
            self._clear_dirty()
            return
        try:
            encoded = self._encode_dirty()
        except TypeError as exc:
            self.rollback()
            raise InvalidRequest(f"A value in this request cannot be stored ({exc}); nothing "
                                 "was changed.") from None
        if self.db is not None:
            try:
                self._write(encoded)
            except StripeError:
                self.rollback()
                raise
        self._committed(encoded)

    def _encode_dirty(self) -> _Encoded:
        objects: dict[tuple[str, str], bytes | None] = {}
        for acct_id, object_id in self.dirty:
            account = self.accounts.get(acct_id)
            if account is not None:
                obj = account.objects.get(object_id)
                objects[(acct_id, object_id)] = None if obj is None else orjson.dumps(obj)
        keys = {}
        for acct_id, key in self.dirty_keys:
            account = self.accounts.get(acct_id)
            if account is not None and key in account.idempotency:
                keys[(acct_id, key)] = orjson.dumps(account.idempotency[key])
        metas = {acct_id: orjson.dumps(self.accounts[acct_id].meta())
                 for acct_id in self.dirty_accounts | {a for a, _ in self.dirty}
                 if acct_id in self.accounts}
        return _Encoded(objects, keys, metas)

    def _write(self, encoded: _Encoded) -> None:
        with self._transaction() as db:
            for (acct_id, object_id), data in encoded.objects.items():
                account = self.accounts[acct_id]
                obj = account.objects.get(object_id)
                # Deleted objects keep a row (data NULL) so list order survives restarts.
                db.execute("INSERT OR REPLACE INTO objects VALUES (?,?,?,?,?,?)",
                           (acct_id, account.gen, object_id, account.seq.get(object_id, 0),
                            obj["object"] if obj else
                            self.tombstones.get((acct_id, object_id), ""),
                            None if data is None else data.decode()))
            for (acct_id, key), data in encoded.keys.items():
                db.execute("INSERT OR REPLACE INTO idempotency VALUES (?,?,?,?)",
                           (acct_id, self.accounts[acct_id].gen, key, data.decode()))
            for acct_id, meta in encoded.metas.items():
                db.execute("INSERT OR REPLACE INTO accounts VALUES (?,?,?)",
                           (acct_id, meta.decode(), self.accounts[acct_id].gen))
            db.execute("INSERT OR REPLACE INTO settings VALUES ('account_counter', ?)",
                       (str(self.account_ids.counter),))

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One SQLite transaction; its failure (a full or read-only disk) is Stripe's
        api_error, and the database keeps what it had."""
        db = self.db
        assert db is not None
        try:
            db.execute("BEGIN")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except (sqlite3.Error, OSError) as exc:
            raise APIError(f"The emulator could not store this request's changes ({exc}); "
                           "nothing was changed.") from None

    def _committed(self, encoded: _Encoded) -> None:
        for key, data in encoded.objects.items():
            if data is None:
                self.committed.pop(key, None)
            else:
                self.committed[key] = data
        self.committed_meta.update(encoded.metas)
        self.committed_account_counter = self.account_ids.counter
        self._clear_dirty()

    def rollback(self) -> None:
        """Undo every in-memory change since the last successful flush."""
        for acct_id, object_id in list(self.dirty):
            account = self.accounts.get(acct_id)
            if account is None:
                continue
            before = self.committed.get((acct_id, object_id))
            if before is not None:
                self.put(account, orjson.loads(before))
            elif object_id in account.objects:  # created by the failed request
                self.remove(account, object_id)
        for acct_id, key in self.dirty_keys:
            account = self.accounts.get(acct_id)
            if account is not None:
                account.idempotency.pop(key, None)
        for acct_id in self.dirty_accounts | {a for a, _ in self.dirty}:
            account = self.accounts.get(acct_id)
            stored = self.committed_meta.get(acct_id)
            if account is None:
                continue
            if stored is None:  # the account itself was new
                self._forget_account(account)
                continue
            meta = orjson.loads(stored)
            account.clock.time = meta["time"]
            account.ids.counter = meta["counter"]
            account.api_version = meta["api_version"]
            account.settings = meta["settings"]
        self.account_ids.counter = self.committed_account_counter
        self._clear_dirty()

    def _reindex_dirty(self) -> None:
        # A handler may change an object after `put` within its request: file it again.
        for acct_id, object_id in self.dirty:
            account = self.accounts.get(acct_id)
            if account is not None and account.indexes:
                account.reindex(object_id)

    def _clear_dirty(self) -> None:
        self.dirty.clear()
        self.dirty_accounts.clear()
        self.dirty_keys.clear()
        self.tombstones.clear()


def _create_or_migrate(db: sqlite3.Connection) -> None:
    """The tables, keyed by (account, generation); older files (no generation) migrate."""
    columns = [row[1] for row in db.execute("PRAGMA table_info(objects)")]
    with db:
        if columns and "gen" not in columns:
            db.execute("ALTER TABLE objects RENAME TO objects_v1")
            db.execute("ALTER TABLE idempotency RENAME TO idempotency_v1")
            db.execute("ALTER TABLE accounts ADD COLUMN gen INTEGER NOT NULL DEFAULT 0")
        db.execute("CREATE TABLE IF NOT EXISTS accounts (id TEXT PRIMARY KEY, meta TEXT, "
                   "gen INTEGER NOT NULL DEFAULT 0)")
        db.execute("CREATE TABLE IF NOT EXISTS objects (account TEXT, gen INTEGER, id TEXT, "
                   "seq INTEGER, type TEXT, data TEXT, PRIMARY KEY (account, gen, id))")
        db.execute("CREATE TABLE IF NOT EXISTS idempotency (account TEXT, gen INTEGER, key TEXT, "
                   "data TEXT, PRIMARY KEY (account, gen, key))")
        db.execute("CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT)")
        if columns and "gen" not in columns:
            db.execute("INSERT INTO objects SELECT account, 0, id, seq, type, data "
                       "FROM objects_v1")
            db.execute("INSERT INTO idempotency SELECT account, 0, key, data FROM idempotency_v1")
            db.execute("DROP TABLE objects_v1")
            db.execute("DROP TABLE idempotency_v1")
