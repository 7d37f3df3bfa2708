"""The documents the index holds: sections with stable ids."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    """One searchable passage.

    `doc_id` is stable across builds (`api/checkout.sessions/create`,
    `api/checkout.sessions/create#custom_fields`, `guide/checkout/custom-fields#dropdown`);
    `keywords` are extra terms indexed with a boost but not shown (`context`: the same
    for the enclosing page, weaker); `kind` is "api",
    "object", "guide" or "emulator".
    """

    doc_id: str
    title: str
    text: str
    kind: str
    keywords: str = ""
    url: str = ""
    context: str = ""  # terms of the enclosing page, indexed with a low weight
