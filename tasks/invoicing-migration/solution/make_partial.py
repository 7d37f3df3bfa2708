"""Write scripted_partial.json: a replay for the scripted agent that creates the catalog
and invoices only the four online bookings that are not refunded (the reference
migrate_invoices.js with --only), and leaves purchases as they were; it runs the
starter's smoke test (`npm test`) first.

    python make_partial.py      # regenerates solution/scripted_partial.json

Graded: the catalog in full (4 of 18), a third of each invoice check (4 of the 12
bookings: 8/3 of 18) and no purchase: 20/54 in all.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ONLINE = "B-1001,B-1003,B-1004,B-1005"
STEP = ("cat > migrate_invoices.js <<'JSEOF'\n{script}JSEOF\n"
        f"bash install.sh\nnpm test\nnode migrate_invoices.js --only {ONLINE}\n"
        f"node migrate_invoices.js --only {ONLINE}\n")


def replay() -> list[dict[str, object]]:
    script = (HERE / "migrate_invoices.js").read_text()
    return [{"tool": "bash", "args": {"command": STEP.format(script=script)}}]


if __name__ == "__main__":
    (HERE / "scripted_partial.json").write_text(json.dumps(replay(), indent=2) + "\n")
    print("wrote", HERE / "scripted_partial.json")
