"""Restoring snapshots: other accounts stay served, and the disk never holds half a restore.

A 100,000-object snapshot is about 70 MB of JSON. Reading it, building the account and
writing its rows in one synchronous call held the event loop, and so every other
account, for seconds. Here each stage is a generator that does a bounded slice of work
and then yields; `run` (the control plane) gives the event loop a turn at every yield,
`run_now` (startup, `Store.restore`) goes straight through.

On disk, the new account's rows are written under a fresh generation number in small
transactions of their own, which no reader looks at; one short transaction then points
the account row at that generation (the commit point), and the old generation's rows
are swept in chunks. A kill before the commit point leaves the old account whole, a kill
after it the new one: never neither, never a mix (`tests/emulator/core/test_core_restore.py`).
"""

from __future__ import annotations

import asyncio
import codecs
import gc
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from .account import Account, account_from_snapshot
from .slices import SLICE_BYTES, SLICE_OBJECTS, Steps, T

if TYPE_CHECKING:
    from .store import Store
# Test-only hook: with this set to a file path, a restore writes the name of each pause
# point ("staged", "committed") into that file and waits (≤ 60 s) until the file is gone,
# so a test can kill -9 the server exactly there.
PAUSE_ENV = "STRIPEBENCH_EMULATOR_RESTORE_PAUSE"


_running = [0]  # restores in progress (they interleave on the event loop)


async def run(steps: Steps[T]) -> T:
    # A restore makes about a million containers; each time that crosses the collector's
    # thresholds, a full collection walks the whole heap (about a second at 100k
    # objects), holding every account. So no automatic collection while restores run,
    # and what they built is frozen afterwards: JSON trees have no cycles to collect.
    _running[0] += 1
    gc.disable()
    try:
        while True:
            try:
                point = next(steps)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            if point is not None and os.environ.get(PAUSE_ENV):
                await _pause_for_test(Path(os.environ[PAUSE_ENV]), point)
            await asyncio.sleep(0)
    finally:
        _running[0] -= 1
        if not _running[0]:
            gc.freeze()
            gc.enable()


async def _pause_for_test(marker: Path, point: str) -> None:
    marker.write_text(point)
    for _ in range(600):
        if not marker.exists():
            return
        await asyncio.sleep(0.1)


# ------------------------------------------------------------------ restoring

def restore_steps(store: Store, snapshots: list[dict[str, Any]],
                  replace_all: bool) -> Steps[list[Account]]:
    """Build the snapshots' accounts, stage their rows, then swap them in at one point."""
    ids = [s["account"]["id"] for s in snapshots]
    busy = [i for i in ids if i in store.restoring]
    if busy or (replace_all and store.restoring):
        raise ValueError(f"A restore of {', '.join(busy or sorted(store.restoring))} is "
                         "already running; wait for it to finish.")
    store.restoring.update(ids)
    epoch = store.epoch
    staged: list[Account] = []
    accounts: list[Account] = []
    committed = False
    try:
        for snapshot in snapshots:
            accounts.append((yield from account_from_snapshot(snapshot)))
        if store.db is not None:
            for account in accounts:
                account.gen = store.next_gen
                store.next_gen += 1
                staged.append(account)
                yield from _stage(store, account)
            yield "staged"
        contested: list[tuple[str, str]] = []
        for account in accounts:
            contested += yield from _adopt(store, account)
        if store.epoch != epoch:
            raise ValueError("The emulator was reset, or an account deleted, while this "
                             "restore ran; nothing was restored.")
        if store.db is not None:
            store.commit_generations(accounts, replace_all)
        committed = True
        replaced = store.install(accounts, replace_all, contested)
        if store.db is not None:
            yield "committed"
            for old in replaced:
                while store.sweep_chunk(old.id, old.gen):
                    yield None
        for old in replaced:  # freeing 100k objects at once takes a few hundred ms too
            yield from _release(store, old)
        return accounts
    finally:
        store.restoring.difference_update(ids)
        if not committed:
            for account in accounts:  # ids claimed ahead of a swap that never came
                current = store.accounts.get(account.id)
                for object_id in account.objects:
                    if current is None or object_id not in current.objects:
                        store.disown(account, object_id)
        if not committed and store.db is not None:
            for account in staged:  # nothing points at these rows: drop them now
                while store.sweep_chunk(account.id, account.gen, size=100_000):
                    pass


def _adopt(store: Store, account: Account) -> Steps[list[tuple[str, str]]]:
    """Point the id index at the new account's objects ahead of the swap, where no other
    account holds them (`Store.find` of such an id answers nothing until the swap).
    Returns the ids another account holds: the swap takes those over."""
    contested = []
    for count, object_id in enumerate(account.objects, 1):
        holder = store.owner.setdefault(object_id, account.id)
        if holder != account.id:
            contested.append((object_id, account.id))
        if count % (10 * SLICE_OBJECTS) == 0:
            yield None
    return contested


def _release(store: Store, account: Account) -> Steps[None]:
    """Drop a replaced account: its ids the new one lacks, then its objects, in slices."""
    current = store.accounts.get(account.id)
    for count, object_id in enumerate(account.objects, 1):
        if current is None or object_id not in current.objects:
            store.disown(account, object_id)
        if count % (10 * SLICE_OBJECTS) == 0:
            yield None
    for table in (account.objects, account.seq, account.idempotency):
        while table:
            for _ in range(min(len(table), 5 * SLICE_OBJECTS)):
                table.popitem()
            yield None
    account.order.clear()
    account.indexes.clear()


def _stage(store: Store, account: Account) -> Steps[None]:
    """Write the account's rows under its new generation, a slice per transaction."""
    rows: list[tuple[Any, ...]] = []
    for object_type, type_ids in account.order.items():
        for object_id in type_ids:
            obj = account.objects.get(object_id)
            # Deleted objects keep a row (data NULL) so list order survives restarts.
            rows.append((account.id, account.gen, object_id, account.seq[object_id],
                         object_type, orjson.dumps(obj).decode() if obj is not None else None))
            if len(rows) >= SLICE_OBJECTS:
                store.stage_rows(rows, [])
                rows = []
                yield None
    keys = [(account.id, account.gen, key, json.dumps(entry))
            for key, entry in account.idempotency.items()]
    for start in range(0, max(len(keys), 1), SLICE_OBJECTS):
        store.stage_rows(rows if start == 0 else [], keys[start:start + SLICE_OBJECTS])
        yield None


# ------------------------------------------------------------------ reading the body

_SPACE = re.compile(r"[ \t\n\r]*")


def read_restore_body(raw: bytes) -> Steps[dict[str, Any]]:
    """Parse a restore body (one snapshot, or `{"accounts": [...]}`) a slice at a time.

    The big members (objects, idempotency keys, the creation order) are read element
    by element with the C decoder; everything else in one call.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    parts = []
    for start in range(0, len(raw), 4 * SLICE_BYTES):
        parts.append(decoder.decode(raw[start:start + 4 * SLICE_BYTES]))
        yield None
    parts.append(decoder.decode(b"", final=True))
    reader = _Reader("".join(parts))
    del parts

    def snapshot_member(key: str) -> Steps[Any]:
        if key == "objects":
            return reader.array(reader.shared)
        if key == "idempotency":
            return reader.object_(lambda _: reader.shared())
        if key == "sequence":
            return reader.array(reader.plain)
        if key == "order":
            return reader.object_(lambda _: reader.array(reader.plain))
        return reader.plain()

    def top_member(key: str) -> Steps[Any]:
        if key == "accounts":
            return reader.array(lambda: reader.object_(snapshot_member))
        return snapshot_member(key)

    document = yield from reader.object_(top_member)
    reader.skip_space()
    if reader.pos != len(reader.text):
        raise ValueError(f"unexpected data after the JSON object at character {reader.pos}")
    return document


SHARED_STRING_MAX = 32


def _share(value: Any, memo: dict[str, str]) -> Any:
    if type(value) is dict:
        return {memo.setdefault(k, k): _share(v, memo) for k, v in value.items()}
    if type(value) is list:
        return [_share(v, memo) for v in value]
    if type(value) is str and len(value) <= SHARED_STRING_MAX:
        return memo.setdefault(value, value)
    return value


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.last_yield = 0
        self.decoder = json.JSONDecoder()
        self.memo: dict[str, str] = {}

    def skip_space(self) -> None:
        found = _SPACE.match(self.text, self.pos)
        assert found is not None
        self.pos = found.end()

    def take(self, expected: str) -> str:
        self.skip_space()
        char = self.text[self.pos:self.pos + 1]
        if char not in expected:
            raise ValueError(f"expected {' or '.join(expected)} at character {self.pos}")
        self.pos += 1
        return char

    def plain(self) -> Steps[Any]:
        """One value through the C decoder, then a turn for others if a slice is used up."""
        self.skip_space()
        value, self.pos = self.decoder.raw_decode(self.text, self.pos)
        if self.pos - self.last_yield >= SLICE_BYTES:
            self.last_yield = self.pos
            yield None
        return value

    def shared(self) -> Steps[Any]:
        """Like `plain`, but every member name and short string is one shared object.

        One `json.loads` of a whole document shares its member names; values decoded
        one by one would each carry their own copies (2.7 KB per customer instead of
        1.1 KB). Short strings ("customer", "usd", "none") are shared the same way.
        """
        value = yield from self.plain()
        return _share(value, self.memo)

    def array(self, element: Callable[[], Steps[Any]]) -> Steps[list[Any]]:
        self.take("[")
        items: list[Any] = []
        self.skip_space()
        if self.text.startswith("]", self.pos):
            self.pos += 1
            return items
        while True:
            items.append((yield from element()))
            if self.take(",]") == "]":
                return items

    def object_(self, member: Callable[[str], Steps[Any]]) -> Steps[dict[str, Any]]:
        self.take("{")
        result: dict[str, Any] = {}
        self.skip_space()
        if self.text.startswith("}", self.pos):
            self.pos += 1
            return result
        while True:
            self.skip_space()
            key, self.pos = self.decoder.raw_decode(self.text, self.pos)
            if not isinstance(key, str):
                raise ValueError(f"expected a member name at character {self.pos}")
            self.take(":")
            result[key] = yield from member(key)
            if self.take(",}") == "}":
                return result
