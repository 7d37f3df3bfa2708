"""Guides (Markdown we wrote) split into sections.

A guide file `guides/checkout.custom-fields.md` has the id `guide/checkout/custom-fields`;
each `## Heading` starts a section `guide/checkout/custom-fields#heading`, and the text
before the first `##` is the guide's own section. An HTML comment
`<!-- keywords: a, b -->` adds index terms to the section it sits in without showing them.
The emulator's own fidelity notes (`docs/fidelity.md` in a source checkout) are indexed
the same way under `emulator/fidelity`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from .corpus import Section

GUIDES_DIR = Path(__file__).with_name("guides")
REPO_FIDELITY = Path(__file__).resolve().parents[3] / "docs" / "fidelity.md"
_KEYWORDS = re.compile(r"<!--\s*keywords:(.*?)-->", re.S)
# Checker-only markup (guide_check.py): front matter and snippet markers; agents see neither.
_FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)
_SNIPPET_MARKER = re.compile(r"^<!--\s*snippet:.*?-->\n", re.S | re.M)


def slug(heading: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-")


def guide_files() -> list[Path]:
    return sorted(GUIDES_DIR.glob("*.md"))


def extra_files() -> list[Path]:
    """Documents outside the package that are indexed when present."""
    return [REPO_FIDELITY] if REPO_FIDELITY.is_file() else []


def guide_id(path: Path) -> str:
    return "guide/" + path.stem.replace(".", "/")


def corpus_hash() -> str:
    """sha256 over the guides and the fidelity notes as indexed: a run records it, since
    fixing a guide can change scores."""
    h = hashlib.sha256()
    for path in guide_files() + extra_files():
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def split_markdown(doc_id: str, markdown: str, kind: str) -> Iterator[Section]:
    markdown = _SNIPPET_MARKER.sub("", _FRONT.sub("", markdown, count=1))
    lines = markdown.splitlines()
    page_title = doc_id
    if lines and lines[0].startswith("# "):
        page_title = lines[0][2:].strip()
        lines = lines[1:]
    chunks: list[tuple[str, list[str]]] = [("", [])]
    in_code = False
    for line in lines:
        if line.startswith("```"):
            in_code = not in_code
        if not in_code and line.startswith("## "):
            chunks.append((line[3:].strip(), []))
        else:
            chunks[-1][1].append(line)
    seen: set[str] = set()
    headings = [h for h, _ in chunks[1:]]
    # Keywords given in a page's intro describe the whole page: every section gets them.
    page_keywords = " ".join(k.strip() for k in _KEYWORDS.findall("\n".join(chunks[0][1])))
    for heading, body in chunks:
        text = "\n".join(body).strip()
        if not heading and headings:
            # Every page has its own section, so `show(page id)` always works.
            toc = "Sections: " + "; ".join(headings)
            text = f"{text}\n\n{toc}" if _KEYWORDS.sub("", text).strip() else \
                f"{toc}\n{text}"
        keywords = " ".join(k.strip() for k in _KEYWORDS.findall(text))
        text = _KEYWORDS.sub("", text).strip()
        anchor = slug(heading)
        while anchor in seen:
            anchor += "-2"
        seen.add(anchor)
        sid = f"{doc_id}#{anchor}" if heading else doc_id
        title = f"{page_title} — {heading}" if heading else page_title
        if not heading:
            keywords = ""  # the page's keywords go to `context`, like its sections'
        yield Section(sid, title, text, kind, keywords, context=page_keywords)


def guide_sections(paths: Iterable[Path] | None = None) -> Iterator[Section]:
    for path in guide_files() if paths is None else paths:
        yield from split_markdown(guide_id(path), path.read_text(), "guide")
    for path in extra_files():
        yield from split_markdown("emulator/fidelity", path.read_text(), "emulator")
