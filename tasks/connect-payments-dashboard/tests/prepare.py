"""Task setup (outside the sandbox): vendor @stripe/connect-js into the starter app, as a
front-end repository would keep it, from the copy the project installed from npm."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SOURCE = ROOT / "node_modules" / "@stripe" / "connect-js" / "dist" / "connect.esm.js"


def main() -> int:
    workdir = Path(os.environ["STRIPEBENCH_WORKDIR"])
    if not SOURCE.is_file():
        print(f"missing {SOURCE}: run scripts/setup.sh (npm install)", file=sys.stderr)
        return 1
    target = workdir / "static" / "vendor" / "connect-js"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE, target / "connect.esm.js")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
