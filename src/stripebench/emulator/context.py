"""The per-request context handed to every resource handler; it writes Events and tells
the event listeners (the registry events.py re-exports)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import shape
from .errors import missing
from .store import Account, Store
from .web import url_for

Listener = Callable[["Ctx", dict[str, Any]], None]
LISTENERS: list[Listener] = []  # told of every Event (webhook delivery, billing)


class Ctx:
    def __init__(self, store: Store, account: Account, *, version: str, key_kind: str = "secret",
                 request_id: str = "", idempotency_key: str | None = None,
                 method: str = "GET", path: str = "", routed: bool = False,
                 local_origin: str = "http://127.0.0.1:12111") -> None:
        self.store = store
        self.account = account
        self.version = version
        self.key_kind = key_kind
        self.request_id = request_id
        self.idempotency_key = idempotency_key
        self.method = method
        self.path = path
        self.routed = routed
        self.local_origin = local_origin

    def acting_as(self, account: Account) -> Ctx:
        """The same request acting on another account (a platform's connected account)."""
        return Ctx(self.store, account, version=self.version, key_kind=self.key_kind,
                   request_id=self.request_id, idempotency_key=self.idempotency_key,
                   method=self.method, path=self.path, routed=self.routed,
                   local_origin=self.local_origin)

    def url(self, host: str, path: str) -> str:
        """A link to one of the emulator's Stripe hosts, reachable the way this request came."""
        return url_for(self.routed, self.local_origin, host, path)

    # --- time and entropy: everything goes through the account's seeded services
    def now(self) -> int:
        return self.account.clock.now()

    def new_id(self, prefix: str, length: int | None = None) -> str:
        return self.account.ids.new(prefix, length)

    def secret_for(self, object_id: str) -> str:
        return self.account.ids.secret(object_id)

    # --- objects
    def new(self, object_type: str, prefix: str, **fields: Any) -> dict[str, Any]:
        """A fresh object with every field the SDK declares, then `fields` on top."""
        obj = shape.blank(object_type)
        obj["id"] = fields.pop("id", None) or self.new_id(prefix)
        if "created" in obj:
            obj["created"] = self.now()
        obj.update(fields)
        return obj

    def put(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self.store.put(self.account, shape.conform(obj))

    def remove(self, object_id: str) -> None:
        self.store.remove(self.account, object_id)

    def maybe(self, object_id: Any, object_type: str | None = None) -> dict[str, Any] | None:
        if not isinstance(object_id, str):
            return None
        obj = self.account.objects.get(object_id)
        if obj is None or (object_type and obj.get("object") != object_type):
            return None
        return obj

    def get(self, object_id: Any, object_type: str, param: str = "id",
            kind: str | None = None) -> dict[str, Any]:
        obj = self.maybe(object_id, object_type)
        if obj is None:
            name = kind or object_type.replace("_", " ").split(".")[-1]
            raise missing(name, str(object_id), param)
        return obj

    def all(self, object_type: str) -> list[dict[str, Any]]:
        return list(self.account.iter_type(object_type))

    def emit(self, event_type: str, obj: dict[str, Any],
             previous_attributes: dict[str, Any] | None = None) -> dict[str, Any]:
        """Write the Event of a state change and tell every listener (events.py)."""
        data: dict[str, Any] = {"object": shape.snapshot(obj)}
        if previous_attributes:
            data["previous_attributes"] = shape.clone(previous_attributes)
        event = self.new("event", "evt", type=event_type, data=data,
                         api_version=self.account.api_version, pending_webhooks=0,
                         request={"id": self.request_id or None,
                                  "idempotency_key": self.idempotency_key})
        event["livemode"] = False
        if self.account.parent:  # events of a connected account name it (Connect webhooks)
            event["account"] = self.account.id
        self.put(event)
        for listener in LISTENERS:
            listener(self, event)
        return event
