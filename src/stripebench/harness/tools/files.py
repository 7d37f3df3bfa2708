"""File tools over a sandbox: view, create, str_replace, insert."""

from __future__ import annotations

from typing import Any

from ..sandbox import Sandbox, SandboxError
from .base import ToolResult

VIEW_LIMIT = 40_000


def _read_text(sandbox: Sandbox, path: str) -> str:
    data = sandbox.read_file(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SandboxError(f"{path} is not a UTF-8 text file ({len(data)} bytes)") from None


def view(sandbox: Sandbox, path: str, view_range: list[int] | None = None) -> ToolResult:
    listing = sandbox.exec(["bash", "-c", 'if [ -d "$1" ]; then find "$1" -maxdepth 2 '
                            '-not -path "*/.*" -not -path "*/node_modules/*" | sort | head -400;'
                            ' else echo __FILE__; fi', "_", path], timeout=20)
    if listing.stdout.strip() != "__FILE__" and listing.exit_code == 0:
        return ToolResult(f"Files in {path} (2 levels, hidden items skipped):\n"
                          f"{listing.stdout}")
    text = _read_text(sandbox, path)
    lines = text.splitlines()
    start, end = 1, len(lines)
    if view_range:
        if len(view_range) != 2:
            return ToolResult("view_range must be [start, end]", is_error=True)
        start = max(1, int(view_range[0]))
        end = len(lines) if int(view_range[1]) == -1 else min(len(lines), int(view_range[1]))
        if start > max(end, 1):
            return ToolResult(f"view_range {view_range} is outside the file's {len(lines)} "
                              "lines", is_error=True)
    numbered = "\n".join(f"{n:6}\t{lines[n - 1]}" for n in range(start, end + 1))
    if len(numbered) > VIEW_LIMIT:
        numbered = numbered[:VIEW_LIMIT] + "\n[... truncated: use view_range ...]"
    return ToolResult(numbered or "(empty file)")


def create(sandbox: Sandbox, path: str, file_text: str) -> ToolResult:
    sandbox.write_file(path, file_text)
    return ToolResult(f"Wrote {len(file_text.encode())} bytes to {path}")


def str_replace(sandbox: Sandbox, path: str, old_str: str, new_str: str = "") -> ToolResult:
    text = _read_text(sandbox, path)
    count = text.count(old_str)
    if not old_str or count == 0:
        return ToolResult(f"old_str was not found in {path}; nothing changed", is_error=True)
    if count > 1:
        lines = [n + 1 for n, line in enumerate(text.splitlines())
                 if old_str.splitlines()[0] in line]
        return ToolResult(f"old_str occurs {count} times in {path} (lines {lines}); make it "
                          "unique", is_error=True)
    updated = text.replace(old_str, new_str, 1)
    sandbox.write_file(path, updated)
    line = text[: text.index(old_str)].count("\n") + 1
    snippet = updated.splitlines()[max(0, line - 3): line + new_str.count("\n") + 3]
    return ToolResult(f"Edited {path}. Around line {line} now:\n" + "\n".join(snippet))


def insert(sandbox: Sandbox, path: str, insert_line: int, insert_text: str) -> ToolResult:
    text = _read_text(sandbox, path)
    lines = text.splitlines(keepends=True)
    if not 0 <= insert_line <= len(lines):
        return ToolResult(f"insert_line must be between 0 and {len(lines)}", is_error=True)
    if lines and not lines[-1].endswith("\n") and insert_line == len(lines):
        lines[-1] += "\n"
    block = insert_text if insert_text.endswith("\n") else insert_text + "\n"
    lines.insert(insert_line, block)
    sandbox.write_file(path, "".join(lines))
    return ToolResult(f"Inserted {block.count(chr(10))} line(s) after line {insert_line} of "
                      f"{path}")


def run(sandbox: Sandbox, name: str, args: dict[str, Any]) -> ToolResult:
    if name == "view":
        return view(sandbox, args["path"], args.get("view_range"))
    if name == "create":
        return create(sandbox, args["path"], args["file_text"])
    if name == "str_replace":
        return str_replace(sandbox, args["path"], args["old_str"], args.get("new_str", ""))
    if name == "insert":
        return insert(sandbox, args["path"], int(args["insert_line"]), args["insert_text"])
    raise KeyError(name)
