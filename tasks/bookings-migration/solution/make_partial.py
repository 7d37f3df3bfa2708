"""Write scripted_partial.json: a replay for the scripted agent that migrates the phone
bookings (the reference migrate.js, run twice) and builds none of the API; it runs the
starter's smoke test (`npm test`) first.

    python make_partial.py      # regenerates solution/scripted_partial.json

Graded, it earns the migration sub-problem in full (phone rows, the new customer, a
clean table: weight 5 of 20) and nothing else: the endpoints still answer 501.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

STEP = ("cat > migrate.js <<'JSEOF'\n{script}JSEOF\n"
        "bash install.sh\nnpm test\nnode migrate.js\nnode migrate.js\n")


def replay() -> list[dict[str, object]]:
    script = (HERE / "migrate.js").read_text()
    return [{"tool": "bash", "args": {"command": STEP.format(script=script)}}]


if __name__ == "__main__":
    (HERE / "scripted_partial.json").write_text(json.dumps(replay(), indent=2) + "\n")
    print("wrote", HERE / "scripted_partial.json")
