"""What the guide checks read from a guide: its front matter, its fenced snippets with
their markers, and the backticked names of its prose (see docs/guide-audit.md).

Front matter sits between `---` lines before the title:

    ---
    sources:
      - https://docs.stripe.com/api/checkout/sessions/create
    old_names:
      - 2022-08-01 charges
    ---

`sources` are the Stripe pages the guide was written from; `old_names` lists names of an
older API version (`<version> <name>...`), checked against the old SDK of that version
instead of the pinned one.

A snippet may be preceded by a marker comment, `<!-- snippet: key=value; key=value -->`:
`skip=<reason>` (not run, the reason says why), `wrap=<method>` (a fragment of that
method's parameters: the test places it in a call), `version=<api version>` (run at that
Stripe-Version), `given=<name>:<fixture>,...` (which fixture a name stands for),
`runtime=browser` (JavaScript that runs in a page, not in node), `fresh` (a new account).
Markers and front matter are not shown to agents (guide_pages strips them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)
MARKER = re.compile(r"<!--\s*snippet:(.*?)-->", re.S)
FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass(frozen=True)
class Snippet:
    guide: str
    line: int
    lang: str
    code: str
    marker: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.guide}:{self.line}"

    def given(self) -> dict[str, str]:
        pairs = [p.split(":", 1) for p in self.marker.get("given", "").split(",") if p]
        return {k.strip(): v.strip() for k, v in pairs}


@dataclass(frozen=True)
class Guide:
    path: Path
    front: dict[str, list[str]]
    body: str

    @property
    def name(self) -> str:
        return self.path.name

    def old_names(self) -> dict[str, str]:
        """name -> the API version it belongs to."""
        out = {}
        for entry in self.front.get("old_names", []):
            version, *names = entry.split()
            out.update(dict.fromkeys(names, version))
        return out


def parse_front(text: str) -> tuple[dict[str, list[str]], str]:
    """(front matter as key -> list of values, the rest of the text)."""
    found = FRONT.match(text)
    if not found:
        return {}, text
    front: dict[str, list[str]] = {}
    key = ""
    for line in found.group(1).splitlines():
        if line.startswith("  - ") and key:
            front[key].append(line[4:].strip())
        elif line.endswith(":") and not line.startswith(" "):
            key = line[:-1].strip()
            front[key] = []
        elif line.strip():
            raise ValueError(f"front matter line not understood: {line!r}")
    return front, text[found.end():]


def strip_front(text: str) -> str:
    return parse_front(text)[1]


def load(path: Path) -> Guide:
    front, body = parse_front(path.read_text())
    return Guide(path, front, body)


def _marker(text: str) -> dict[str, str]:
    out = {}
    for part in text.split(";"):
        key, _, value = part.strip().partition("=")
        if key:
            out[key.strip()] = value.strip()
    return out


def snippets(guide: Guide) -> list[Snippet]:
    lines = guide.path.read_text().splitlines()
    out = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence and fence.group(1):
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            marker: dict[str, str] = {}
            k = i - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            if k >= 0:
                found = MARKER.fullmatch(lines[k].strip())
                if found:
                    marker = _marker(found.group(1))
            out.append(Snippet(guide.name, i + 1, fence.group(1),
                               "\n".join(lines[i + 1:j]) + "\n", marker))
            i = j
        i += 1
    return out


def prose(text: str) -> str:
    """The text outside fenced code and HTML comments."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    kept, in_code = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if not in_code:
            kept.append(line)
    return "\n".join(kept)


def backticked(text: str) -> list[tuple[int, str]]:
    """(line number in `text`, content) of every inline code span of the prose."""
    out: list[tuple[int, str]] = []
    for number, line in enumerate(prose(text).splitlines(), 1):
        out.extend((number, m) for m in re.findall(r"`([^`\n]+)`", line))
    return out
