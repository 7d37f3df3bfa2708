"""Offline Stripe documentation search for agents.

    from stripebench.docs import search, show, search_stripe_documentation
    search("embedded checkout return_url")          # -> list[Hit]
    show("api/checkout.sessions/create#custom_fields")
    print(search_stripe_documentation("custom field dropdown", limit=5))

The corpus is an API reference generated from the installed stripe SDK plus guides
written for this project; see `index.py` for where the index is cached.
"""

from __future__ import annotations

from .index import BuildInfo, DocsIndex, Hit, build, get_index, index_path
from .tool import search_stripe_documentation, show_stripe_documentation

__all__ = ["BuildInfo", "DocsIndex", "Hit", "build", "get_index", "index_path", "search",
           "search_stripe_documentation", "show", "show_stripe_documentation"]


def search(query: str, limit: int = 5) -> list[Hit]:
    """Ranked sections for `query` (best first)."""
    return get_index().search(query, limit)


def show(doc_id: str) -> Hit | None:
    """One document by its stable id, or None."""
    return get_index().show(doc_id)
