"""Method names of the installed stripe-node SDK, when there is one.

stripe-node names nested operations differently from stripe-python
(`stripe.checkout.sessions.listLineItems(id)` vs
`client.v1.checkout.sessions.line_items.list(id)`), so the reference reads the real names
from the node package's compiled resources (`cjs/resources/**/*.js`): each method there
is `name(...) { return this._makeRequest('VERB', \\`/v1/...\\`` ...`. Without a node SDK the
names are derived from the python ones.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
_METHOD = re.compile(r"^\s{4}(\w+)\([^)]*\)\s*\{\s*\n\s*return this\._makeRequest\('(\w+)',\s*"
                     r"[`'\"]([^`'\"]+)[`'\"]", re.M)
_TEMPLATE = re.compile(r"\$\{[^}]*\}|\{[^}]*\}")


def node_sdk_dir() -> Path | None:
    candidate = REPO / "node_modules" / "stripe"
    return candidate if (candidate / "cjs" / "resources").is_dir() else None


def node_sdk_version() -> str:
    root = node_sdk_dir()
    if root is None:
        return ""
    try:
        return str(json.loads((root / "package.json").read_text()).get("version", ""))
    except (OSError, ValueError):
        return ""


def path_key(verb: str, path: str) -> tuple[str, str]:
    """Verb and path with every `{param}` / `${expr}` reduced to `{}`."""
    return verb.upper(), _TEMPLATE.sub("{}", path)


def _accessor(rel: Path) -> str:
    parts = [*rel.parent.parts, rel.stem]
    return ".".join(p[:1].lower() + p[1:] for p in parts if p)


@cache
def node_methods() -> dict[tuple[str, str], str]:
    """(VERB, normalised path) -> `stripe.resource.method` of the installed stripe-node."""
    root = node_sdk_dir()
    if root is None:
        return {}
    resources = root / "cjs" / "resources"
    out: dict[tuple[str, str], str] = {}
    for js in sorted(resources.rglob("*.js")):
        accessor = _accessor(js.relative_to(resources))
        for name, verb, path in _METHOD.findall(js.read_text(encoding="utf-8")):
            out.setdefault(path_key(verb, path), f"stripe.{accessor}.{name}")
    # A few resources are exposed under another name than their file's: keep only names
    # that really are functions on a client (when node is here to ask).
    working = _callable(sorted(set(out.values())))
    return {k: v for k, v in out.items() if working is None or v in working}


_CHECK = """
const Stripe = require(process.argv[1]); const s = new Stripe('sk_test_docs');
const ok = JSON.parse(process.argv[2]).filter(c => {
  let o = s; for (const p of c.split('.').slice(1)) o = o == null ? undefined : o[p];
  return typeof o === 'function'; });
process.stdout.write(JSON.stringify(ok));
"""


def _callable(names: list[str]) -> set[str] | None:
    node, root = shutil.which("node"), node_sdk_dir()
    if node is None or root is None:
        return None
    try:
        done = subprocess.run([node, "-e", _CHECK, str(root), json.dumps(names)],
                              capture_output=True, text=True, timeout=60, check=True)
        return set(json.loads(done.stdout))
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
