#!/usr/bin/env bash
# Oracle: the reference handlers for every challenge, wired into the gym's app.py.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/public_set.json" "$here/gym_solution.py" "$here/variant.py" "$work/"
cd "$work"
"${PYTHON:-python}" - <<'PY'
from pathlib import Path
app = Path("app.py")
marker = "HANDLERS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}\n"
text = app.read_text()
if "import install" not in text:
    hook = "from variant import install  # noqa: E402\ninstall(HANDLERS, stripe_client)\n"
    app.write_text(text.replace(marker, marker + hook, 1))
PY
