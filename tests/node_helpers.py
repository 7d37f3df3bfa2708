"""Runs a stripe-node script against the test emulator: the script reads the secret key
from $KEY, the emulator's port from $PORT and the SDK's path from $STRIPE_NODE, and
prints one JSON document."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run_node_script(source: str, key: str, base: str, tmp_path: Path) -> Any:
    assert shutil.which("node"), "node is needed for the node SDK tests"
    package = ROOT / "node_modules" / "stripe"
    assert package.is_dir(), "run `npm install` (scripts/setup.sh) first"
    script = tmp_path / "script.js"
    script.write_text(source)
    run = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/local/bin:/usr/bin:/bin", "KEY": key,
                              "PORT": base.rsplit(":", 1)[1], "STRIPE_NODE": str(package)})
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)
