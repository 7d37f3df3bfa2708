"""The import contract: every module under src/stripebench, parsed with `ast` (imports in
functions and under TYPE_CHECKING count: they show the same coupling), imports only from
its own layer or lower ones, harness and results never import each other, no two modules
import each other (directly or round a cycle), and every import inside a function says
why on a comment beside it.

Layers, bottom to top: sandbox (and sdk_ast, a parser with no dependencies); emulator;
routing (and stripe_cli, the emulator's `stripe listen`/`trigger`); docs; grading;
rundir; harness and results (peers that never import each other); integrations; cli.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from paths import REPO

SRC = REPO / "src"
PACKAGE = SRC / "stripebench"
LAYERS: list[tuple[str, ...]] = [
    ("sandbox", "sdk_ast", "__init__"),
    ("emulator",),
    ("routing", "stripe_cli"),
    ("docs",),
    ("grading",),
    ("rundir",),
    ("harness", "results"),
    ("integrations",),
    ("cli",),
]
PEERS_APART = {("harness", "results"), ("results", "harness")}
LEVEL = {part: n for n, parts in enumerate(LAYERS) for part in parts}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


@dataclass(frozen=True)
class Import:
    source: str
    target: str  # a module of MODULES
    line: int
    local: bool  # inside a function


def _resolve(source: str, node: ast.ImportFrom | ast.Import) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.startswith("stripebench"):
                yield _existing(alias.name)
        return
    if node.level:
        package = source if MODULES[source].name == "__init__.py" else \
            source.rsplit(".", 1)[0]
        base = package.split(".")
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if not target.startswith("stripebench"):
        return
    for alias in node.names:  # `from pkg import module` is an import of that module
        yield f"{target}.{alias.name}" if f"{target}.{alias.name}" in MODULES \
            else _existing(target)


def _existing(name: str) -> str:
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _imports(name: str) -> list[Import]:
    tree = ast.parse(MODULES[name].read_text())
    found: list[Import] = []

    def visit(node: ast.AST, local: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.extend(Import(name, target, child.lineno, local)
                             for target in _resolve(name, child))
            visit(child, local or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    visit(tree, False)
    return found


IMPORTS = [i for name in sorted(MODULES) for i in _imports(name)]


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_part_of_the_package_has_a_layer() -> None:
    assert {_part(m) for m in MODULES} == set(LEVEL)


def test_imports_point_down_the_layers() -> None:
    wrong = []
    for i in IMPORTS:
        a, b = _part(i.source), _part(i.target)
        if a != b and (LEVEL[b] > LEVEL[a] or (a, b) in PEERS_APART):
            wrong.append(f"{i.source}:{i.line} imports {i.target} ({a} -> {b})")
    assert wrong == []


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for i in IMPORTS:
        if i.target != i.source:
            graph[i.source].add(i.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            connect(module)
    return found


def test_no_import_cycles() -> None:
    assert _cycles() == []


# The billing engine still reaches up into resource modules (charging an invoice makes a
# PaymentIntent, a subscription's default method goes through setup_intents, ...):
# resources -> billing is the intended direction. No module cycle results, but the two
# packages depend on each other; these are the edges left to move down, and none may
# be added.
BILLING_TO_RESOURCES = {
    ("billing.changes", "resources._common"), ("billing.collect", "resources.customers"),
    ("billing.collect", "resources.payment_intents"), ("billing.creating", "resources._common"),
    ("billing.creating", "resources.customer_discounts"),
    ("billing.creating", "resources.payment_methods"),
    ("billing.creating", "resources.products"), ("billing.creating", "resources.setup_intents"),
    ("billing.discounts", "resources.discounts"), ("billing.invoicing", "resources.webhooks"),
    ("billing.items", "resources.products"),
    ("billing.subscribing", "resources.customer_discounts"),
    ("billing.taxes", "resources.checkout_breakdown"),
}


def test_billing_gains_no_new_import_of_resources() -> None:
    emulator = "stripebench.emulator."
    found = {(i.source.removeprefix(emulator), i.target.removeprefix(emulator))
             for i in IMPORTS if i.source.startswith(f"{emulator}billing")
             and i.target.startswith(f"{emulator}resources")}
    assert found - BILLING_TO_RESOURCES == set()
    assert BILLING_TO_RESOURCES - found == set(), "an edge is gone: drop it from the list"


def _commented(lines: list[str], line: int) -> bool:
    """A `#` comment on the import's line or the line before; a run of imports shares
    the comment above its first one."""
    n = line - 1
    while True:
        if "#" in lines[n]:
            return True
        above = lines[n - 1].strip() if n > 0 else ""
        if above.startswith("#"):
            return True
        if above.startswith(("import ", "from ")):
            n -= 1
            continue
        return False


def test_every_function_local_import_says_why() -> None:
    bare = []
    texts = {name: MODULES[name].read_text().splitlines() for name in MODULES}
    seen = set()
    for path_name, path in MODULES.items():
        tree = ast.parse(path.read_text())
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.Import | ast.ImportFrom) and \
                        (path_name, node.lineno) not in seen:
                    seen.add((path_name, node.lineno))
                    if not _commented(texts[path_name], node.lineno):
                        bare.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert bare == [], f"{len(bare)} function-local import(s) without a reason"


def test_the_checker_sees_what_it_must() -> None:
    """The contract's own parser: relative imports, `from pkg import module`, TYPE_CHECKING
    and function-local imports all become edges."""
    mine = {(i.target, i.local) for i in IMPORTS if i.source == "stripebench.harness.phases"}
    assert ("stripebench.rundir", False) in mine
    assert ("stripebench.sandbox.safe_files", False) in mine  # from ..sandbox import module
    trial = {i.target for i in IMPORTS if i.source == "stripebench.harness.trial"}
    assert "stripebench.harness.phases" in trial  # from . import phases
    command = {(i.target, i.local) for i in IMPORTS if i.source == "stripebench.harness.cli"}
    assert ("stripebench.harness.runner", True) in command
    guarded = {i.target for i in IMPORTS if i.source == "stripebench.emulator.web"}
    assert "stripebench.emulator.store" in guarded  # under TYPE_CHECKING
    lines = ["x = 1", "    # heavy: rich", "    import a", "    import b", "    import c"]
    assert _commented(lines, 5) and not _commented(["x", "import a"], 2)
