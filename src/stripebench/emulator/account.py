"""One account's state in memory: its objects, list order, idempotency records, indexes,
and the record of the requests it received (request_record.py; never in a snapshot)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .clock import Clock
from .ids import IdGenerator
from .indexes import FieldIndex, TypeWalk
from .request_record import RequestRecord
from .slices import SLICE_OBJECTS, Steps


@dataclass
class Account:
    id: str
    secret_key: str
    publishable_key: str
    api_version: str
    ids: IdGenerator
    clock: Clock
    parent: str | None = None
    salt: str = ""  # secret: seeds the ids (ids.py); never shown through the API
    settings: dict[str, Any] = field(default_factory=dict)
    objects: dict[str, dict[str, Any]] = field(default_factory=dict)
    order: dict[str, list[str]] = field(default_factory=dict)  # type -> ids, oldest first
    seq: dict[str, int] = field(default_factory=dict)  # object id -> creation sequence
    idempotency: dict[str, dict[str, Any]] = field(default_factory=dict)
    record: RequestRecord = field(default_factory=RequestRecord)  # not state: see there
    gen: int = 0  # the generation of its rows on disk; a restore writes the next one
    # type -> field path -> index; built on first use (see indexes.py), never persisted
    indexes: dict[str, dict[tuple[str, ...], FieldIndex]] = field(default_factory=dict)

    def meta(self) -> dict[str, Any]:
        return {"id": self.id, "secret_key": self.secret_key,
                "publishable_key": self.publishable_key, "api_version": self.api_version,
                "seed": self.ids.seed, "counter": self.ids.counter, "time": self.clock.time,
                "parent": self.parent, "settings": self.settings, "salt": self.salt}

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


def account_from_snapshot(data: dict[str, Any]) -> Steps[Account]:
    """An `Account` (not yet registered anywhere) from `Store.snapshot`'s format."""
    meta = data["account"]
    ids = IdGenerator(meta["seed"])
    ids.counter = meta["counter"]
    account = Account(id=meta["id"], secret_key=meta["secret_key"],
                      publishable_key=meta["publishable_key"], api_version=meta["api_version"],
                      ids=ids, clock=Clock(meta["time"]), parent=meta.get("parent"),
                      salt=meta.get("salt") or "", settings=meta.get("settings", {}))
    objects, seq = account.objects, account.seq
    for count, obj in enumerate(data["objects"], 1):
        objects[obj["id"]] = obj
        if count % SLICE_OBJECTS == 0:
            yield None
    order: dict[str, list[str]] = {k: list(v) for k, v in (data.get("order") or {}).items()}
    sequence = data.get("sequence") or [i for type_ids in order.values() for i in type_ids]
    for count, object_id in enumerate(sequence, 1):
        seq.setdefault(object_id, len(seq))
        if count % (10 * SLICE_OBJECTS) == 0:
            yield None
    # Lists bisect the order lists by sequence: every listed id needs one, every object
    # must be listed, and each list must ascend.
    listed: set[str] = set()
    step = 10 * SLICE_OBJECTS
    for type_ids in list(order.values()):
        for count, object_id in enumerate(type_ids, 1):
            seq.setdefault(object_id, len(seq))
            listed.add(object_id)
            if count % step == 0:
                yield None
    for count, (object_id, obj) in enumerate(objects.items(), 1):
        if object_id not in listed:
            seq.setdefault(object_id, len(seq))
            order.setdefault(obj["object"], []).append(object_id)
        if count % step == 0:
            yield None
    for type_ids in order.values():
        for position in range(1, len(type_ids)):
            if seq[type_ids[position - 1]] > seq[type_ids[position]]:
                type_ids.sort(key=seq.__getitem__)
                break
            if position % step == 0:
                yield None
    account.order = order
    account.idempotency = dict(data.get("idempotency") or {})
    yield None
    return account
