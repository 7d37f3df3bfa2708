"""Turn canonical objects into API responses: strip private fields, expand, downgrade.

`expand` paths (`customer`, `data.customer`, `items.data.price.product`) replace ids
with the objects they name, up to four levels, going through the `data` of lists.
Fields Stripe leaves out unless asked (a Checkout Session's `line_items`, an invoice's
`payments`) are computed by functions registered with `@includable`. Every object is
passed through the version changes for the request's API version once its own expansions
are done; a path naming a field only that version's shape has (a pre-basil line's `price`)
is resolved after the downgrade.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import shape, versions
from .errors import InvalidRequest

if TYPE_CHECKING:
    from .context import Ctx

MAX_DEPTH = 4
Includer = Callable[["Ctx", dict[str, Any]], Any]
INCLUDABLE: dict[tuple[str, str], Includer] = {}


def includable(object_type: str, field: str) -> Callable[[Includer], Includer]:
    def register(fn: Includer) -> Includer:
        INCLUDABLE[(object_type, field)] = fn
        return fn
    return register


# Fields Stripe sends only when expanded although they are stored on the object
# (a price's `currency_options` and `tiers`, a coupon's `applies_to`).
HIDDEN: dict[str, frozenset[str]] = {}


def hidden_unless_expanded(object_type: str, *fields: str) -> None:
    HIDDEN[object_type] = HIDDEN.get(object_type, frozenset()) | frozenset(fields)
    for name in fields:
        INCLUDABLE[(object_type, name)] = _stored(name)


def _stored(name: str) -> Includer:
    def include(ctx: Ctx, obj: dict[str, Any]) -> Any:
        return obj.get(name)
    return include


_NESTED = (dict, list)


def public_copy(value: Any) -> Any:
    if isinstance(value, dict):
        kind = value.get("object")
        hidden = HIDDEN.get(kind) if HIDDEN and type(kind) is str else None
        if hidden:
            return {k: public_copy(v) if type(v) in _NESTED else v for k, v in value.items()
                    if not k.startswith("_") and k not in hidden}
        return {k: public_copy(v) if type(v) in _NESTED else v for k, v in value.items()
                if not k.startswith("_")}
    if isinstance(value, list):
        return [public_copy(v) for v in value]
    return value


def expand_tree(paths: list[str]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for index, path in enumerate(paths):
        if not isinstance(path, str) or not path:
            raise InvalidRequest("Invalid expand path", param=f"expand[{index}]")
        parts = path.split(".")
        # Every segment counts, `data` too: Stripe's deepest list expansion is
        # `data.payment_intent.customer.default_source`.
        if len(parts) > MAX_DEPTH:
            raise InvalidRequest(
                f"You cannot expand more than {MAX_DEPTH} levels of a property. Property: {path}",
                param=f"expand[{index}]")
        node = tree
        for part in parts:
            node = node.setdefault(part, {})
    return tree


# What a publishable key sees of an intent (Stripe's "retrievable with publishable key"
# fields); the rest (customer, metadata, latest_charge, amount_received, ...) is left out.
PUBLISHABLE_FIELDS: dict[str, frozenset[str]] = {
    "payment_intent": frozenset((
        "id", "object", "amount", "automatic_payment_methods", "canceled_at",
        "cancellation_reason", "capture_method", "client_secret", "confirmation_method",
        "created", "currency", "description", "last_payment_error", "livemode", "next_action",
        "payment_method", "payment_method_types", "processing", "receipt_email",
        "setup_future_usage", "shipping", "status")),
    "setup_intent": frozenset((
        "id", "object", "cancellation_reason", "client_secret", "created", "description",
        "last_setup_error", "livemode", "next_action", "payment_method", "payment_method_types",
        "status", "usage")),
}


def render(ctx: Ctx, obj: dict[str, Any], expand: list[str] | None = None) -> dict[str, Any]:
    out = public_copy(obj)
    _Expansion(ctx).finish(obj, out, expand_tree(expand) if expand else {}, "")
    visible = PUBLISHABLE_FIELDS.get(str(out.get("object"))) \
        if ctx.key_kind == "publishable" else None
    if visible is not None:
        out = {k: v for k, v in out.items() if k in visible}
    return out


# A field the newest shape lacks (or holds as a scalar) but that the request's API
# version may carry as an embedded object (a pre-basil line's `price`, a pre-clover
# promotion code's `coupon`): checked after the downgrade, on the version's shape.
_Deferred = tuple[dict[str, Any], str, dict[str, Any], str, bool]


class _Expansion:
    """One response's expansion: every object is downgraded once, children first.

    Objects fetched for an id are finished (expanded, then downgraded) before they are
    put in place, and remembered in `done` so the parent's downgrade walk leaves them
    alone; `done` holds the objects themselves so no id() is reused while it runs.
    """

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.done: dict[int, dict[str, Any]] = {}
        self.downgrading = versions.has_downgrades(ctx.version)

    def finish(self, source: dict[str, Any], out: dict[str, Any], tree: dict[str, Any],
               prefix: str) -> None:
        deferred: list[_Deferred] = []
        if tree:
            self.expand(source, out, tree, prefix, deferred)
        if self.downgrading:
            self.downgrade_tree(out)
        for node, field, subtree, path, was_missing in deferred:
            self.resolve(node, field, subtree, path, was_missing)

    def expand(self, source: dict[str, Any], out: dict[str, Any], tree: dict[str, Any],
               prefix: str, deferred: list[_Deferred],
               fields: dict[str, Any] | None = None) -> None:
        if "object" in out:
            fields = shape.field_spec(str(out["object"])) or fields
        for field, subtree in tree.items():
            path = f"{prefix}{field}"
            if out.get("object") in ("list", "search_result") and field == "data":
                for src_item, item in zip(source.get("data", []), out.get("data", []),
                                          strict=False):
                    if isinstance(item, dict):
                        self.expand(src_item, item, subtree, f"{path}.", deferred)
                continue
            object_type = str(source.get("object"))
            includer = INCLUDABLE.get((object_type, field))
            if includer is not None and (field not in source or source.get(field) is None
                                         or isinstance(source.get(field), str)
                                         or field in HIDDEN.get(object_type, ())):
                value = includer(self.ctx, source)
                out[field] = public_copy(value)
                if isinstance(value, dict):
                    self.expand(value, out[field], subtree, f"{path}.", deferred)
                continue
            spec = fields.get(field) if fields is not None else None
            if field not in out or (fields is not None and not _expandable(spec)):
                deferred.append((out, field, subtree, path, field not in out))
                continue
            out[field] = self.expand_value(source.get(field), out[field], subtree, path,
                                           deferred, spec)

    def expand_value(self, src: Any, value: Any, subtree: dict[str, Any], path: str,
                     deferred: list[_Deferred], spec: dict[str, Any] | None = None) -> Any:
        if value is None:
            return None
        if isinstance(value, str):
            return self.fetch(value, subtree, path)
        if isinstance(value, list):
            item_spec = spec.get("items") if spec else None
            src_list = src if isinstance(src, list) else [None] * len(value)
            return [self.expand_value(s, v, subtree, path, deferred, item_spec)
                    for s, v in zip(src_list, value, strict=False)]
        if isinstance(value, dict):
            nested = spec.get("fields") if spec and spec.get("type") == "object" else None
            self.expand(src if isinstance(src, dict) else value, value, subtree, f"{path}.",
                        deferred, nested)
            return value
        raise _not_expandable(path)

    def fetch(self, object_id: str, subtree: dict[str, Any], path: str) -> dict[str, Any]:
        """The object an id names, expanded and downgraded, ready to put in place."""
        found = self.ctx.account.objects.get(object_id)
        if found is None:
            found = _shared_object(self.ctx, object_id)
        if found is None:
            raise _not_expandable(path)
        expanded = public_copy(found)
        self.finish(found, expanded, subtree, f"{path}.")
        self.done[id(expanded)] = expanded
        return expanded

    def resolve(self, node: dict[str, Any], field: str, subtree: dict[str, Any], path: str,
                was_missing: bool) -> None:
        value = node.get(field)
        if isinstance(value, dict):
            # Embedded by the version's shape (already downgraded): naming it is allowed,
            # and deeper paths expand inside it.
            self._mark_done(value)
            stored = self.ctx.account.objects.get(str(value.get("id")))
            source = stored if stored is not None and stored.get("object") == value.get(
                "object") else value
            self.finish(source, value, subtree, f"{path}.")
        elif was_missing and field in node and value is None:
            return
        elif was_missing and isinstance(value, str):
            node[field] = self.fetch(value, subtree, path)
        else:
            raise _not_expandable(path)

    def _mark_done(self, value: Any) -> None:
        if isinstance(value, dict):
            if "object" in value:
                self.done[id(value)] = value
            for child in value.values():
                if isinstance(child, (dict, list)):
                    self._mark_done(child)
        elif isinstance(value, list):
            for child in value:
                self._mark_done(child)

    def downgrade_tree(self, value: Any) -> None:
        if isinstance(value, dict):
            if id(value) in self.done:
                return
            for child in value.values():
                if isinstance(child, (dict, list)):
                    self.downgrade_tree(child)
            if "object" in value and versions.RESPONSE_CHANGES:
                versions.downgrade(self.ctx, value)
                self.done[id(value)] = value
        elif isinstance(value, list):
            for child in value:
                self.downgrade_tree(child)


def _not_expandable(path: str) -> InvalidRequest:
    return InvalidRequest(f"This property cannot be expanded ({path}).", param="expand")


def _expandable(spec: dict[str, Any] | None) -> bool:
    """Whether a declared field is an id that expands, or a hash, array or embedded list
    that may hold one (`items.data.price.product` goes through the items list)."""
    if spec is None:
        return False
    kind = spec.get("type")
    if kind == "array":
        return _expandable(spec.get("items"))
    return kind in ("expandable", "any", "map", "list") or (
        kind == "object" and "fields" in spec)


def _shared_object(ctx: Ctx, object_id: str) -> dict[str, Any] | None:
    """Objects of a connected account's platform (or vice versa) expand too."""
    found = ctx.store.find(object_id)
    if found is None:
        return None
    owner, obj = found
    related = {ctx.account.id, ctx.account.parent}
    if owner.id in related or owner.parent == ctx.account.id:
        return obj
    return None
