"""Record documentation queries and find the ones that found nothing useful.

The harness gives each trial a `QueryLog` (a JSONL file in the trial record) and calls
`record()` for every search the agent makes — or wraps the tool with `logged_search`, or
calls `search_and_record()` and keeps the record in its own transcript.
`stripebench report` feeds the records to `unhelpful_queries()` to list queries with no
hits or weak hits: Stripe found documentation bugs this way.

A hit is judged by two numbers stored with each record: the top BM25 `score` (scale
depends on the corpus, so the default threshold is 0 = off) and `coverage`, the share of
the query's words that appear in the top hit's title and text (stemmed loosely).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .index import Hit, get_index
from .tokens import content_terms, terms
from .tool import format_hits

MIN_COVERAGE = 0.5


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def coverage(query: str, hit: Hit | None) -> float:
    """Share of the query's words found in the hit (0 when there is no hit)."""
    wanted = {_stem(t) for t in content_terms(query)}
    if hit is None or not wanted:
        return 0.0
    present = {_stem(t) for t in terms(f"{hit.title} {hit.text} {hit.doc_id}")}
    return round(len(wanted & present) / len(wanted), 3)


def make_record(query: str, hits: list[Hit], limit: int, **extra: Any) -> dict[str, Any]:
    top = hits[0] if hits else None
    return {
        "query": query,
        "limit": limit,
        "results": [{"doc_id": h.doc_id, "title": h.title, "score": h.score} for h in hits],
        "top_score": top.score if top else 0.0,
        "coverage": coverage(query, top),
        **extra,
    }


class QueryLog:
    """Append-only JSONL log of documentation queries (thread-safe)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def record(self, query: str, hits: list[Hit], limit: int = 5, **extra: Any
               ) -> dict[str, Any]:
        entry = make_record(query, hits, limit, **extra)
        line = json.dumps(entry, sort_keys=True)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(line + "\n")
        return entry

    def read(self) -> list[dict[str, Any]]:
        return read_log(self.path)


def read_log(path: str | Path) -> list[dict[str, Any]]:
    p = Path(path)
    if not p.exists():
        return []
    out = []
    for line in p.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a torn last line from a killed trial is not worth failing for
    return out


def search_and_record(query: str, limit: int = 5, index: Path | None = None, **extra: Any
                      ) -> tuple[str, dict[str, Any]]:
    """The tool's text for the agent and the record to keep in the trial's transcript
    (`index`: a run's own corpus, see harness/interventions.py)."""
    hits = get_index(index).search(query, limit)
    return format_hits(query, hits), make_record(query, hits, limit, **extra)


def logged_search(log: QueryLog, **extra: Any) -> Callable[[str, int], str]:
    """A `search_stripe_documentation` that also records each query in `log`."""

    def search_stripe_documentation(query: str, limit: int = 5) -> str:
        hits = get_index().search(query, limit)
        log.record(query, hits, limit, **extra)
        return format_hits(query, hits)

    search_stripe_documentation.__doc__ = (
        "Search Stripe's API reference and guides; returns ranked passages with doc ids.")
    return search_stripe_documentation


@dataclass(frozen=True)
class Unhelpful:
    query: str
    reason: str  # "no results", "weak match"
    top_doc_id: str
    top_score: float
    coverage: float
    count: int  # how many times it was asked


def unhelpful_queries(records: Iterable[dict[str, Any]], min_coverage: float = MIN_COVERAGE,
                      min_score: float = 0.0) -> list[Unhelpful]:
    """Queries with no results, or whose best hit covers too little of the query."""
    found: dict[str, Unhelpful] = {}
    for r in records:
        query = str(r.get("query", ""))
        raw = r.get("results")
        # Records from `make_record` list the hits; a transcript may only count them.
        results = raw if isinstance(raw, list) else []
        count = len(results) if isinstance(raw, list) else int(raw or 0)
        score = float(r.get("top_score", 0.0))
        cov = float(r.get("coverage", 1.0 if count else 0.0))
        if not count:
            reason = "no results"
        elif cov < min_coverage or (min_score and score < min_score):
            reason = "weak match"
        else:
            continue
        key = " ".join(query.lower().split())
        prev = found.get(key)
        top = str(results[0].get("doc_id", "")) if results else ""
        found[key] = Unhelpful(query, reason, top, score, cov, (prev.count if prev else 0) + 1)
    return sorted(found.values(), key=lambda u: (-u.count, u.query))
