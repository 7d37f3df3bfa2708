"""In-memory indexes over one account's objects: creation order and exact field values.

A list page or a search must not cost more with the number of objects stored. Two
structures make that so:

- `TypeWalk`, what `Account.iter_type` returns: the ids of one type in creation order
  (deleted ones included, so cursors on them keep working). Iterating it walks the
  objects like before; a list page instead seeks to its cursor by bisecting on the
  creation sequence, so a page deep in the list costs what the first one costs.
- `FieldIndex`: for one type and one field path, which ids hold which value (strings
  compared case-insensitively, numbers as floats). Built the first time a list filter or
  a search asks for that field, then kept current on every write. It only narrows the
  candidates: the caller still tests each candidate with its own predicate, so an index
  can make a query fast but never make it answer differently.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any

Obj = dict[str, Any]


def path_value(obj: Obj, path: tuple[str, ...]) -> Any:
    """The value at a dotted path (`("customer_details", "email")`), None if absent."""
    value: Any = obj
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def index_key(value: Any) -> Hashable | None:
    """The key a value is filed under; None for values no exact query looks up."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return ("#", float(value))
    if isinstance(value, str):
        return value.lower()
    return None


def query_keys(text: str) -> list[Hashable]:
    """Every key under which a value that a query's `text` matches exactly can be filed."""
    keys: list[Hashable] = [text.lower()]
    try:
        keys.append(("#", float(text)))
    except ValueError:
        pass
    return keys


class FieldIndex:
    def __init__(self, path: tuple[str, ...]) -> None:
        self.path = path
        # key -> the one id holding it, or a set once several do (most values are unique:
        # a set per value would cost 200 bytes each)
        self.buckets: dict[Hashable, str | set[str]] = {}
        self.filed: dict[str, Hashable] = {}  # object id -> its key, to move it on change

    def update(self, obj: Obj) -> None:
        object_id = obj["id"]
        key = index_key(path_value(obj, self.path))
        if key is not None and self.filed.get(object_id) == key:
            return
        self.discard(object_id)
        if key is None:
            return
        self.filed[object_id] = key
        held = self.buckets.setdefault(key, object_id)
        if held is object_id or held == object_id:
            return
        if isinstance(held, str):
            self.buckets[key] = {held, object_id}
        else:
            held.add(object_id)

    def discard(self, object_id: str) -> None:
        key = self.filed.pop(object_id, None)
        if key is None:
            return
        held = self.buckets[key]
        if isinstance(held, str):
            del self.buckets[key]
            return
        held.discard(object_id)
        if len(held) == 1:
            self.buckets[key] = held.pop()

    def lookup(self, keys: Iterable[Hashable]) -> set[str]:
        found: set[str] = set()
        for key in keys:
            held = self.buckets.get(key)
            if isinstance(held, str):
                found.add(held)
            elif held is not None:
                found |= held
        return found


class TypeWalk:
    """The objects of one type, newest first (or oldest first), seekable by sequence."""

    def __init__(self, ids: list[str], objects: dict[str, Obj], seq: dict[str, int],
                 newest_first: bool = True, index: IndexFor | None = None) -> None:
        self.ids = ids  # oldest first, ascending creation sequence
        self.objects = objects
        self.seq = seq
        self.newest_first = newest_first
        self.index = index  # this type's field indexes, built on first use

    def __iter__(self) -> Iterator[Obj]:
        return self._walk(len(self.ids) - 1, -1) if self.newest_first else self._walk(0, 1)

    def _walk(self, start: int, step: int) -> Iterator[Obj]:
        ids, objects = self.ids, self.objects
        stop = -1 if step < 0 else len(ids)
        for position in range(start, stop, step):
            obj = objects.get(ids[position])
            if obj is not None:
                yield obj

    def older_than(self, sequence: int) -> Iterator[Obj]:
        """Objects created before `sequence`, newest first."""
        return self._walk(bisect_left(self.ids, sequence, key=self.seq.__getitem__) - 1, -1)

    def newer_than(self, sequence: int) -> Iterator[Obj]:
        """Objects created after `sequence`, oldest first (closest to the cursor first)."""
        return self._walk(bisect_right(self.ids, sequence, key=self.seq.__getitem__), 1)

    def only(self, object_ids: set[str]) -> TypeWalk:
        """The same walk restricted to `object_ids`."""
        return TypeWalk(sorted(object_ids, key=self.seq.__getitem__), self.objects, self.seq,
                        self.newest_first)


IndexFor = Callable[[tuple[str, ...]], FieldIndex]
