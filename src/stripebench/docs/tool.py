"""Agent-facing text for the documentation tools (what an MCP tool returns)."""

from __future__ import annotations

from .index import Hit, get_index

PASSAGE_CHARS = 1800


def _passage(text: str, doc_id: str, limit: int = PASSAGE_CHARS) -> str:
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    return (text[: cut if cut > limit // 2 else limit].rstrip()
            + f"\n[... {len(text) - limit} more characters: open doc id {doc_id}]")


def format_hits(query: str, hits: list[Hit]) -> str:
    if not hits:
        return (f"No documentation matched {query!r}. Try other words: an API name "
                "(payment_intents, checkout.sessions), a parameter, or an error code.")
    parts = [f"{len(hits)} result(s) for {query!r}. Open a full page with its doc id."]
    for rank, h in enumerate(hits, 1):
        parts.append(f"\n[{rank}] {h.title}\ndoc id: {h.doc_id}\n\n{_passage(h.text, h.doc_id)}")
    return "\n".join(parts)


def search_stripe_documentation(query: str, limit: int = 5) -> str:
    """Search Stripe's API reference and guides; returns ranked passages as text.

    Each result has a title, a stable doc id (pass it to `show_stripe_documentation`
    for the whole page) and the passage.
    """
    return format_hits(query, get_index().search(query, limit))


def show_stripe_documentation(doc_id: str) -> str:
    """The full text of one documentation page or section by its doc id."""
    index = get_index()
    hit = index.show(doc_id.strip())
    if hit is None:
        near = index.similar_ids(doc_id.strip())
        hint = f" Similar ids: {', '.join(near)}." if near else ""
        return f"No document with id {doc_id!r}.{hint}"
    return f"{hit.title}\ndoc id: {hit.doc_id}\n\n{hit.text}"
