"""BM25 search over documentation sections with SQLite FTS5.

The index lives in the user's cache (`~/.cache/stripebench/docs-<sdk>-<hash>.sqlite`,
or `$STRIPEBENCH_CACHE_DIR`) and is named by a fingerprint of everything it is built
from — the installed SDK's files, the guides, this package's code — so a changed SDK or
guide gets a new index and an unchanged one is reused. Builds write a temporary file and
rename it into place, so concurrent trials never read a half-written index.
"""

from __future__ import annotations

import difflib
import fcntl
import hashlib
import os
import re
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from . import guide_pages as guides
from .api_reference import api_sections
from .corpus import Section
from .node_sdk import node_sdk_version
from .sdk_model import read_sdk
from .tokens import index_text, query_terms, split_compound

INDEX_FORMAT = "2"
WEIGHTS = (8.0, 4.0, 1.0, 1.0)  # bm25 column weights: title, keywords, body, context
PER_PAGE = 3  # at most this many sections of one page in a result list
KIND_PRIOR = {"guide": 1.25, "emulator": 1.1, "api": 1.0, "object": 0.9}
FTS_TOKENIZER = "porter unicode61 tokenchars '_'"


_ENDPOINT = re.compile(r"\b(GET|POST|DELETE)?\s*(/v[12]/[\w/{}:.\-]+)", re.I)


def _path_pattern(path: str) -> str:
    """`/v1/invoices/in_123/pay` or `/v1/invoices/:id/pay` -> `/v1/invoices/{%}/pay`."""
    out = []
    for i, seg in enumerate(path.rstrip("/").split("/")):
        looks_like_id = i > 2 and "_" in seg and any(c.isdigit() for c in seg)
        out.append("{%}" if seg.startswith((":", "{")) or looks_like_id else seg)
    return "/".join(out)


@dataclass(frozen=True)
class Hit:
    doc_id: str
    title: str
    text: str
    score: float
    url: str = ""
    kind: str = ""


@dataclass(frozen=True)
class BuildInfo:
    path: Path
    sections: int
    seconds: float
    reused: bool


def cache_dir() -> Path:
    explicit = os.environ.get("STRIPEBENCH_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "stripebench"


def _sdk_dir() -> tuple[str, Path]:
    # the stripe SDK is slow to import: only where its files are read
    import stripe

    return str(stripe.VERSION), Path(stripe.__file__).parent


def fingerprint() -> str:
    """Hash of the inputs: SDK file names and sizes (python; node's version), guides,
    extra docs, this code."""
    version, sdk = _sdk_dir()
    h = hashlib.sha256(f"{INDEX_FORMAT}\n{version}\n{node_sdk_version()}\n".encode())
    for path in sorted(sdk.rglob("*.py")):
        h.update(f"{path.relative_to(sdk)}:{path.stat().st_size}\n".encode())
    own = sorted(Path(__file__).parent.glob("*.py"))
    for path in own + guides.guide_files() + guides.extra_files():
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def index_path() -> Path:
    version, _ = _sdk_dir()
    return cache_dir() / f"docs-{version}-{fingerprint()}.sqlite"


def all_sections(guide_paths: list[Path] | None = None) -> Iterable[Section]:

    yield from guides.guide_sections(guide_paths)
    yield from api_sections(read_sdk())


def guides_index(guide_paths: list[Path]) -> Path:
    """An index with these guides in place of the packaged ones (the API reference as
    usual), cached like the default one under a fingerprint that includes them."""
    h = hashlib.sha256(f"{fingerprint()}\n".encode())
    for path in guide_paths:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    version, _ = _sdk_dir()
    target = cache_dir() / f"docs-{version}-guides-{h.hexdigest()[:16]}.sqlite"
    try:
        build(target, guide_paths=guide_paths)
    except OSError:  # a read-only cache: as get_index does
        target = Path(tempfile.gettempdir()) / "stripebench" / target.name
        build(target, guide_paths=guide_paths)
    return target


DOCS_MODES = ("overlay", "replace")


def corpus_index(folder: Path, mode: str) -> Path:
    """The index of a run's own documentation corpus: the API reference as usual, with the
    guides of `folder` on top of the packaged ones (overlay) or in their place (replace).
    ValueError when the guides do not make a corpus (two guides with one id, ...)."""
    if mode not in DOCS_MODES:
        raise ValueError(f"docs mode must be one of {', '.join(DOCS_MODES)}, got {mode!r}")
    own = {p.name: p for p in sorted(Path(folder).glob("*.md"))}
    packaged = {p.name: p for p in guides.guide_files()}
    chosen = own if mode == "replace" else {**packaged, **own}
    return guides_index([chosen[name] for name in sorted(chosen)])


def write_index(path: Path, sections: Iterable[Section]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    os.close(fd)
    count = 0
    try:
        con = sqlite3.connect(tmp)
        with con:
            con.execute("CREATE TABLE sections (rowid INTEGER PRIMARY KEY, doc_id TEXT UNIQUE,"
                        " title TEXT, text TEXT, kind TEXT, url TEXT)")
            con.execute("CREATE VIRTUAL TABLE fts USING fts5(title, keywords, body, context,"
                        f" content='', tokenize=\"{FTS_TOKENIZER}\")")
            seen: set[str] = set()
            for s in sections:
                if s.doc_id in seen:
                    raise ValueError(f"duplicate doc id {s.doc_id}")
                seen.add(s.doc_id)
                count += 1
                con.execute("INSERT INTO sections VALUES (?, ?, ?, ?, ?, ?)",
                            (count, s.doc_id, s.title, s.text, s.kind, s.url))
                con.execute("INSERT INTO fts (rowid, title, keywords, body, context)"
                            " VALUES (?, ?, ?, ?, ?)",
                            (count, index_text(s.title), index_text(s.keywords),
                             index_text(s.text), index_text(s.context)))
            con.execute("INSERT INTO fts (fts) VALUES ('optimize')")
        con.close()
        os.chmod(tmp, 0o644)  # mkstemp makes it private; the index is shared, not secret
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return count


def build(path: Path | None = None, force: bool = False,
          guide_paths: list[Path] | None = None) -> BuildInfo:
    """Build the index unless an up-to-date one is already cached (`guide_paths`: these
    guides instead of the packaged ones)."""
    target = path or index_path()
    if target.exists() and not force:
        return BuildInfo(target, _count(target), 0.0, reused=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    # Trials often start together: one process builds, the others wait and reuse it.
    with open(target.with_name(target.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.exists() and not force:
            return BuildInfo(target, _count(target), 0.0, reused=True)
        started = time.perf_counter()
        count = write_index(target, all_sections(guide_paths))
        return BuildInfo(target, count, time.perf_counter() - started, reused=False)


def _count(path: Path) -> int:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(con.execute("SELECT count(*) FROM sections").fetchone()[0])
    finally:
        con.close()


class DocsIndex:
    """A read-only handle on one index file; safe to share between threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        self._lock = threading.Lock()
        self._objects: list[str] | None = None

    def close(self) -> None:
        self._con.close()

    def search(self, query: str, limit: int = 5) -> list[Hit]:
        terms = query_terms(query)
        limit = max(1, min(int(limit), 50))
        if not terms:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)
        with self._lock:
            rows = self._con.execute(
                "SELECT s.doc_id, s.title, s.text, s.kind, s.url, bm25(fts, ?, ?, ?, ?) AS rank"
                " FROM fts JOIN sections s ON s.rowid = fts.rowid WHERE fts MATCH ?"
                " ORDER BY rank LIMIT ?", (*WEIGHTS, match, limit * 4 + 20)).fetchall()
        hits = [Hit(doc_id, title, text, round(-rank * KIND_PRIOR.get(kind, 1.0), 4), url, kind)
                for doc_id, title, text, kind, url, rank in rows]
        hits.sort(key=lambda h: (-h.score, h.doc_id))
        best = hits[0].score if hits else 0.0
        exact = self._endpoint_hits(query, best) + self._object_hits(query, best)
        exact_ids = {h.doc_id for h in exact}
        ranked = exact + [h for h in hits if h.doc_id not in exact_ids]
        per_page: dict[str, int] = {}
        diverse = []
        for h in ranked:  # leave room for other pages
            page = h.doc_id.split("#")[0]
            per_page[page] = per_page.get(page, 0) + 1
            if per_page[page] <= PER_PAGE:
                diverse.append(h)
        return diverse[:limit]

    def _object_hits(self, query: str, best: float) -> list[Hit]:
        """Object pages named by a query that asks for an object ("checkout session object").

        Object pages list every field, so BM25's length normalisation buries them under
        short passages that merely mention the words; naming the object is explicit.
        """
        words = [w.rstrip("s") for w in split_compound("_".join(re.findall(r"\w+", query)))]
        if "object" not in words:
            return []
        text = " " + " ".join(words) + " "
        with self._lock:
            if self._objects is None:
                self._objects = [r[0] for r in self._con.execute(
                    "SELECT doc_id FROM sections WHERE kind = 'object' AND doc_id LIKE '%/object'")]
            names = self._objects
        found = []
        for doc_id in names:
            name = doc_id[len("api/"):-len("/object")]
            parts = [w.rstrip("s") for w in re.findall(r"[a-z0-9]+", name)]
            if f" {' '.join(parts)} " in text:
                found.append((len(parts), doc_id))
        found.sort(key=lambda f: (-f[0], f[1]))
        out = []
        for i, (_, doc_id) in enumerate(found[:2]):
            page = self.show(doc_id)
            if page is not None:
                out.append(Hit(page.doc_id, page.title, page.text.split("\n\nSections:")[0],
                               round(best + 0.5 - i * 0.01, 4), page.url, page.kind))
        return out

    def _endpoint_hits(self, query: str, best: float) -> list[Hit]:
        """Method pages whose verb and path the query names (`POST /v1/checkout/sessions`)."""
        found = _ENDPOINT.search(query)
        if not found:
            return []
        verb = (found.group(1) or "%").upper()
        pattern = f"%({verb} {_path_pattern(found.group(2))})"
        with self._lock:
            rows = self._con.execute(
                "SELECT doc_id, title, text, kind, url FROM sections WHERE kind = 'api'"
                " AND title LIKE ? ORDER BY length(doc_id), rowid LIMIT 5", (pattern,)).fetchall()
        rows = [r for r in rows if "#" not in r[0]]
        return [Hit(d, t, x, round(best + 1.0 - i * 0.01, 4), u, k)
                for i, (d, t, x, k, u) in enumerate(rows)]

    def show(self, doc_id: str) -> Hit | None:
        """The section with this id; a page id (no `#`) also gets its sub-sections."""
        with self._lock:
            row = self._con.execute("SELECT doc_id, title, text, kind, url FROM sections"
                                    " WHERE doc_id = ?", (doc_id,)).fetchone()
            subs = [] if "#" in doc_id else self._con.execute(
                "SELECT doc_id, title, text, kind FROM sections WHERE doc_id > ? AND doc_id < ?"
                " ORDER BY rowid", (doc_id + "#", doc_id + "$")).fetchall()
        if row is None:
            return None
        text = row[2]
        guide_like = row[3] in ("guide", "emulator")
        for sub_id, sub_title, sub_text, _ in subs:
            if guide_like:
                heading = sub_title.split(" — ", 1)[-1]
                text += f"\n\n## {heading}  [{sub_id}]\n\n{sub_text}"
        if subs and not guide_like:
            text += "\n\nSections: " + ", ".join(s[0] for s in subs)
        return Hit(row[0], row[1], text, 0.0, row[4], row[3])

    def ids(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._con.execute("SELECT doc_id FROM sections ORDER BY rowid")]

    def similar_ids(self, doc_id: str, n: int = 5) -> list[str]:
        ids = self.ids()
        near = [i for i in ids if i.startswith(doc_id)][:n]
        return near or difflib.get_close_matches(doc_id, ids, n=n, cutoff=0.5)


_open: dict[Path, DocsIndex] = {}
_open_lock = threading.Lock()
_default: list[Path] = []  # the fingerprint is computed once per process


def get_index(path: Path | None = None) -> DocsIndex:
    """The current index, built on first use and kept open for the process."""
    with _open_lock:
        if path is None and not _default:
            _default.append(index_path())
        target = path or _default[0]
        if target not in _open:
            try:
                build(target)
            except OSError:
                if path is not None:
                    raise
                # A read-only home (CI, sandboxes) must not cost the agent its docs.
                target = _default[0] = Path(tempfile.gettempdir()) / "stripebench" / target.name
                build(target)
            _open.setdefault(target, DocsIndex(target))
        return _open[target]
