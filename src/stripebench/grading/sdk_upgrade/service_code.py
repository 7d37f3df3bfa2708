"""A service's code: the files the stale-API-version scan reads.

The SDK-upgrade instructions ask that no older API version be left "in the services'
code": a service's own source and the local code it loads, not a developer's tool, a
note or a test that happens to sit in the same directory (a correct upgrade with
`tools/record.py` quoting the old version in its docstring scored 0 when the scan read
every `.py` of the workdir). Each function here follows what the language really loads:

- Python: the service's file and the local modules it imports (its folder and the
  workdir are the roots a script started as `python services/x.py` can import from);
- Node: the service's file and the relative `require`/`import`s it makes;
- Go: the service's package and the module's own packages it imports;
- Java: every source the Maven build compiles (src/main/java), other services' entry
  classes aside.

Every file is a regular file of bounded size (a FIFO would hang the read), at most
MAX_FILES per service.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from .upgraded import MAX_SOURCE_BYTES

MAX_FILES = 500


def _readable(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size <= MAX_SOURCE_BYTES
    except OSError:
        return False


def _inside(work: Path, path: Path) -> bool:
    try:
        path.resolve().relative_to(work.resolve())
    except (OSError, ValueError, RuntimeError):
        return False
    return True


def _closure(work: Path, entries: Iterable[Path],
             loads: Callable[[Path], Iterable[Path]]) -> list[Path]:
    """Every file reachable from `entries` through `loads`, inside `work`."""
    seen: list[Path] = []
    queue = [Path(os.path.normpath(p)) for p in entries]
    while queue and len(seen) < MAX_FILES:
        path = queue.pop(0)
        if path in seen or not _readable(path) or not _inside(work, path):
            continue
        seen.append(path)
        queue += [Path(os.path.normpath(p)) for p in loads(path)]
    return seen


def _python_module(roots: Iterable[Path], name: str) -> list[Path]:
    """The files importing dotted `name` runs from one of `roots` (its packages'
    __init__.py on the way)."""
    parts = name.split(".")
    for root in roots:
        found = []
        for n in range(1, len(parts) + 1):
            base = root.joinpath(*parts[:n])
            if base.with_suffix(".py").is_file():
                found.append(base.with_suffix(".py"))
                break
            if (base / "__init__.py").is_file():
                found.append(base / "__init__.py")
            elif not base.is_dir():
                break
        if found:
            return found
    return []


def python_service(work: Path, entry: Path) -> list[Path]:
    """`entry` (services/payments.py) and the local Python modules it imports."""
    roots = [entry.parent, work]

    def loads(path: Path) -> list[Path]:
        try:
            tree = ast.parse(path.read_text(errors="replace"))
        except (SyntaxError, ValueError, RecursionError):
            return []
        out: list[Path] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    out += _python_module(roots, alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level > len(path.parents):
                    continue
                here = [path.parents[node.level - 1]] if node.level else roots
                module = node.module or ""
                for alias in node.names:
                    dotted = f"{module}.{alias.name}" if module else alias.name
                    out += _python_module(here, dotted) or _python_module(here, module)
        return out

    return _closure(work, [entry], loads)


NODE_IMPORT = re.compile(
    r"""(?:require|import)\s*\(\s*['"](\.{1,2}/[^'"]+)['"]\s*\)"""
    r"""|(?:from|import)\s+['"](\.{1,2}/[^'"]+)['"]""")
NODE_SUFFIXES = ("", ".js", ".cjs", ".mjs", ".ts", ".json", "/index.js", "/index.ts")


def node_service(work: Path, entry: Path) -> list[Path]:
    """`entry` (services/payments.js) and the relative modules it requires or imports."""

    def loads(path: Path) -> list[Path]:
        out = []
        for match in NODE_IMPORT.finditer(path.read_text(errors="replace")):
            spec = match.group(1) or match.group(2)
            for suffix in NODE_SUFFIXES:
                target = path.parent / (spec + suffix)
                if target.is_file():
                    out.append(target)
                    break
        return out

    return _closure(work, [entry], loads)


GO_MODULE = re.compile(r"^\s*module\s+(\S+)", re.MULTILINE)
GO_IMPORTS = re.compile(r"^import\s*(?:\(([^)]*)\)|([^\n]*))", re.MULTILINE)
GO_PATH = re.compile(r'"([^"]+)"')


def go_service(work: Path, package: Path) -> list[Path]:
    """The .go files of `package` (services/payments) and of the module's own packages
    it imports, as its build compiles them (tests aside)."""
    try:
        module = GO_MODULE.search((work / "go.mod").read_text(errors="replace"))
    except OSError:
        module = None
    prefix = module.group(1) + "/" if module else None

    def sources(folder: Path) -> list[Path]:
        if not folder.is_dir() or not _inside(work, folder):
            return []
        return sorted(p for p in folder.glob("*.go") if not p.name.endswith("_test.go"))

    def loads(path: Path) -> list[Path]:
        out = []
        for block in GO_IMPORTS.finditer(path.read_text(errors="replace")):
            for spec in GO_PATH.findall(block.group(1) or block.group(2) or ""):
                if prefix and spec.startswith(prefix):
                    out += sources(work / spec.removeprefix(prefix))
        return out

    return _closure(work, sources(package), loads)


def java_service(work: Path, others: Iterable[str]) -> list[Path]:
    """Every .java file the build compiles (src/main/java), but `others` (the other
    services' entry classes, e.g. Invoices.java)."""
    skip = set(others)
    root = work / "src" / "main" / "java"
    files = sorted(p for p in root.rglob("*.java") if p.name not in skip) \
        if root.is_dir() else []
    return [p for p in files if _readable(p) and _inside(work, p)][:MAX_FILES]
