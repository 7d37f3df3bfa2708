"""Write scripted_partial.json: a replay for the scripted agent that migrates only the
first four legacy customers (C1001-C1004) with the reference script.

    python make_partial.py      # regenerates solution/scripted_partial.json

Graded, it scores 4/9 of every check except `discount_applied` (C1006 is not migrated):
56/135 in all.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

STEP = "cat > migrate.py <<'PYEOF'\n{script}PYEOF\npython migrate.py C1001 C1002 C1003 C1004\n"


def replay() -> list[dict[str, object]]:
    script = (HERE / "migrate.py").read_text()
    return [{"tool": "bash", "args": {"command": STEP.format(script=script)}}]


if __name__ == "__main__":
    (HERE / "scripted_partial.json").write_text(json.dumps(replay(), indent=2) + "\n")
    print("wrote", HERE / "scripted_partial.json")
