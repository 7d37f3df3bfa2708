"""Markdown as the words a reader sees: what requirement texts are compared with.

Stripped: headings' `#`, emphasis `*`/`_` (not an underscore inside a word), backticks
and code fences (their content stays), link and image syntax `[x](y)` -> `x`, list
markers, block quotes, table pipes and separator rows. Then all whitespace collapses to
one space.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_LIST = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_QUOTE = re.compile(r"^\s*>\s?")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_CODE = re.compile(r"(`+)(.+?)\1")
_EMPHASIS_OPEN = re.compile(r"(?<![\w*_])[*_]{1,3}(?=[^\s*_])")
_EMPHASIS_CLOSE = re.compile(r"(?<=[^\s*_])[*_]{1,3}(?![\w*_])")
_SPACE = re.compile(r"\s+")


def _inline(text: str) -> str:
    """Links and emphasis go; code spans keep their content untouched. Code spans stand
    in as placeholders while emphasis is stripped, so `**a `b`**` loses both markers."""
    spans: list[str] = []

    def hold(match: re.Match[str]) -> str:
        spans.append(match.group(2))
        return f"\x00{len(spans) - 1}\x00"

    plain = _plain(_CODE.sub(hold, text))
    return re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], plain)


def _plain(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS_OPEN.sub("", text)
    return _EMPHASIS_CLOSE.sub("", text)


def strip_markdown(text: str) -> str:
    lines = []
    in_code = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            lines.append(line)
            continue
        if _TABLE_RULE.match(line) and "|" in line:
            continue
        line = _QUOTE.sub("", line)
        line = _HEADING.sub("", line)
        line = _LIST.sub("", line)
        if line.lstrip().startswith("|"):
            line = line.replace("|", " ")
        lines.append(_inline(line))
    return _SPACE.sub(" ", " ".join(lines)).strip()
