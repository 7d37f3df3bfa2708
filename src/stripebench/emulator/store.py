"""State: accounts and their objects, held in memory with optional SQLite persistence.

Objects are plain dicts in the canonical (newest API version) shape; keys starting
with `_` are private bookkeeping that never reaches a client. Generated ids are
unique across accounts, so a page served by id (a Checkout Session, a receipt) can
find its account; ids a caller chooses (products, coupons, customers) may repeat
across accounts and are only ever looked up within one. With a data directory, each
request's writes are committed to a WAL-mode SQLite file before the response is sent,
so an acknowledged write survives `kill -9`.
"""

from __future__ import annotations

import gc
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .clock import DEFAULT_START, Clock
from .ids import IdGenerator
from .indexes import FieldIndex, TypeWalk

REQUEST_LOG_LIMIT = 5000
# Every this many new objects, what is alive moves out of the garbage collector's sight
# (gc.freeze): stored objects are JSON trees without cycles, and a full collection
# walking 100k of them holds every account for about a second.
FREEZE_EVERY = 20_000


@dataclass
class Account:
    id: str
    secret_key: str
    publishable_key: str
    api_version: str
    ids: IdGenerator
    clock: Clock
    parent: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    objects: dict[str, dict[str, Any]] = field(default_factory=dict)
    order: dict[str, list[str]] = field(default_factory=dict)  # type -> ids, oldest first
    seq: dict[str, int] = field(default_factory=dict)  # object id -> creation sequence
    idempotency: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    gen: int = 0  # the generation of its rows on disk; a restore writes the next one
    # type -> field path -> index; built on first use (see indexes.py), never persisted
    indexes: dict[str, dict[tuple[str, ...], FieldIndex]] = field(default_factory=dict)

    def meta(self) -> dict[str, Any]:
        return {"id": self.id, "secret_key": self.secret_key,
                "publishable_key": self.publishable_key, "api_version": self.api_version,
                "seed": self.ids.seed, "counter": self.ids.counter, "time": self.clock.time,
                "parent": self.parent, "settings": self.settings}

    def iter_type(self, object_type: str, newest_first: bool = True) -> TypeWalk:
        """The live objects of one type, newest first; list pages seek in it by cursor."""
        return TypeWalk(self.order.get(object_type, []), self.objects, self.seq, newest_first,
                        lambda path: self.field_index(object_type, path))

    def field_index(self, object_type: str, path: tuple[str, ...]) -> FieldIndex:
        by_path = self.indexes.setdefault(object_type, {})
        index = by_path.get(path)
        if index is None:
            index = by_path[path] = FieldIndex(path)
            for obj in self.iter_type(object_type):
                index.update(obj)
        return index

    def reindex(self, object_id: str) -> None:
        """File an object (or its removal) in the field indexes of its type."""
        obj = self.objects.get(object_id)
        if obj is None:
            for by_path in self.indexes.values():
                for index in by_path.values():
                    index.discard(object_id)
            return
        for index in self.indexes.get(obj["object"], {}).values():
            index.update(obj)


class Store:
    def __init__(self, seed: int = 0, start_time: int = DEFAULT_START,
                 data_dir: Path | None = None, default_version: str = "") -> None:
        self.seed = seed
        self.start_time = start_time
        self.default_version = default_version
        self.accounts: dict[str, Account] = {}
        self.keys: dict[str, tuple[Account, str]] = {}
        self.owner: dict[str, str] = {}  # object id -> account id
        self.account_ids = IdGenerator(f"{seed}:accounts")
        self.dirty: set[tuple[str, str]] = set()
        self.dirty_accounts: set[str] = set()
        self.dirty_keys: set[tuple[str, str]] = set()
        self.tombstones: dict[tuple[str, str], str] = {}
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

    def create_account(self, *, api_version: str | None = None, parent: str | None = None,
                       account_id: str | None = None,
                       settings: dict[str, Any] | None = None) -> Account:
        acct_id = account_id or self.account_ids.new("acct")
        ids = IdGenerator(f"{self.seed}:{acct_id}")
        account = Account(
            id=acct_id,
            secret_key=ids.new("sk_test"),
            publishable_key=ids.new("pk_test"),
            api_version=api_version or self.default_version,
            ids=ids,
            clock=Clock(self.start_time),
            parent=parent,
            settings=settings or {},
        )
        self._register(account)
        return account

    def _register(self, account: Account) -> None:
        self.accounts[account.id] = account
        self.keys[account.secret_key] = (account, "secret")
        self.keys[account.publishable_key] = (account, "publishable")
        self.dirty_accounts.add(account.id)

    def delete_account(self, account_id: str) -> None:
        account = self.accounts.pop(account_id)
        self.epoch += 1
        self.keys.pop(account.secret_key, None)
        self.keys.pop(account.publishable_key, None)
        for object_id in account.objects:
            self.disown(account, object_id)
        if self.db is not None:
            with self.db:
                for table, column in (("accounts", "id"), ("objects", "account"),
                                      ("idempotency", "account")):
                    self.db.execute(f"DELETE FROM {table} WHERE {column}=?", (account_id,))

    def reset(self) -> None:
        self.epoch += 1
        self.accounts.clear()
        self.keys.clear()
        self.owner.clear()
        self.account_ids = IdGenerator(f"{self.seed}:accounts")
        self._clear_dirty()
        if self.db is not None:
            with self.db:
                for table in ("accounts", "objects", "idempotency"):
                    self.db.execute(f"DELETE FROM {table}")

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

    def restore(self, data: dict[str, Any]) -> Account:
        """Replace (or add) one account from its snapshot, in one go (see restoring.py)."""
        from .restoring import restore_steps, run_now
        return run_now(restore_steps(self, [data], replace_all=False))[0]

    def export_all(self) -> dict[str, Any]:
        return {"seed": self.seed, "accounts": [self.snapshot(a) for a in self.accounts.values()]}

    def import_all(self, data: dict[str, Any]) -> None:
        """Replace every account with the exported ones, in one go (see restoring.py)."""
        from .restoring import restore_steps, run_now
        run_now(restore_steps(self, list(data["accounts"]), replace_all=True))

    def install(self, accounts: list[Account], replace_all: bool,
                contested: list[tuple[str, str]] | None = None) -> list[Account]:
        """Swap restored accounts in (memory only); returns the accounts they replaced.

        The id index already points at the new objects (restoring._adopt), but for
        `contested` (object id, account id) pairs held elsewhere; the replaced accounts'
        leftover ids are released after (restoring._release), so this stays short.
        """
        replaced = list(self.accounts.values()) if replace_all else [
            self.accounts[a.id] for a in accounts if a.id in self.accounts]
        if replace_all:
            self.accounts.clear()
            self.keys.clear()
            self.account_ids = IdGenerator(f"{self.seed}:accounts")
        for account in accounts:
            old = self.accounts.pop(account.id, None)
            if old is not None:
                self.keys.pop(old.secret_key, None)
                self.keys.pop(old.publishable_key, None)
            self._register(account)
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
        from .restoring import account_from_snapshot, run_now
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
            self.install([account], replace_all=False)
        self.next_gen = 1 + max([gen for _, _, gen in rows], default=0)
        row = db.execute("SELECT value FROM settings WHERE key='account_counter'").fetchone()
        if row:
            self.account_ids.counter = int(row[0])
        self._clear_dirty()
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
        """Commit this request's writes (only bookkeeping without a data directory)."""
        self._reindex_dirty()
        if self.unfrozen >= FREEZE_EVERY:
            self.unfrozen = 0
            gc.freeze()
        if self.db is None or not (self.dirty or self.dirty_accounts or self.dirty_keys):
            self._clear_dirty()
            return
        touched = self.dirty_accounts | {a for a, _ in self.dirty}
        db = self.db
        db.execute("BEGIN")
        try:
            for acct_id, object_id in self.dirty:
                account = self.accounts.get(acct_id)
                if account is None:
                    continue
                obj = account.objects.get(object_id)
                # Deleted objects keep a row (data NULL) so list order survives restarts.
                db.execute("INSERT OR REPLACE INTO objects VALUES (?,?,?,?,?,?)",
                           (acct_id, account.gen, object_id, account.seq.get(object_id, 0),
                            obj["object"] if obj else self.tombstones.get((acct_id, object_id), ""),
                            json.dumps(obj) if obj else None))
            for acct_id, key in self.dirty_keys:
                account = self.accounts.get(acct_id)
                if account is not None and key in account.idempotency:
                    db.execute("INSERT OR REPLACE INTO idempotency VALUES (?,?,?,?)",
                               (acct_id, account.gen, key, json.dumps(account.idempotency[key])))
            for acct_id in touched:
                account = self.accounts.get(acct_id)
                if account is not None:
                    db.execute("INSERT OR REPLACE INTO accounts VALUES (?,?,?)",
                               (acct_id, json.dumps(account.meta()), account.gen))
            db.execute("INSERT OR REPLACE INTO settings VALUES ('account_counter', ?)",
                       (str(self.account_ids.counter),))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
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
