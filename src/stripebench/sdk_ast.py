"""Helpers for reading the stripe-python SDK's source with `ast`: both the schema
generator (scripts/gen_schema.py) and the docs index (docs/sdk_model.py) walk its
TypedDict params and resource classes."""

from __future__ import annotations

import ast
from functools import lru_cache

# Keys of the SDK's per-request options, mixed into some params TypedDicts; never params.
REQUEST_OPTION_KEYS = {
    "api_key", "stripe_version", "stripe_account", "stripe_context",
    "max_network_retries", "idempotency_key", "content_type", "headers",
}


def annotation(node: ast.expr) -> ast.expr:
    """Unwrap string annotations ("Literal['']|Foo") into real expressions."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _parse(node.value) or node
    return node


@lru_cache(maxsize=65536)
def _parse(text: str) -> ast.expr | None:
    # The same annotation strings recur thousands of times; parsed nodes are never mutated.
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError:
        return None


def name_of(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return ""


def subscript_args(node: ast.Subscript) -> list[ast.expr]:
    return list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]


def union_members(node: ast.expr) -> list[ast.expr]:
    """The alternatives of `A | B`, `Union[A, B]` and `Optional[A]` (None included)."""
    node = annotation(node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return union_members(node.left) + union_members(node.right)
    if isinstance(node, ast.Subscript) and name_of(node.value) in ("Union", "Optional"):
        members = [m for e in subscript_args(node) for m in union_members(e)]
        if name_of(node.value) == "Optional":
            members.append(ast.Constant(None))
        return members
    return [node]
