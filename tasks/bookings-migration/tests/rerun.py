"""The instruction: the migration is `migrate.js`, and running it again must change
nothing. So the grader runs `node migrate.js` twice more on the table it left and
compares the customers and bookings tables before and after.

The script is the agent's code: it runs through the grading room's launcher
(stripebench.grading.launch), never beside the grader.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from stripebench.grading import launch

RUNS = 2
TIMEOUT = 60  # seconds per run


def run_once(work: Path) -> tuple[int | None, str]:
    """One more run of migrate.js, in a room of its own (its pid namespace dies with it:
    nothing it leaves running outlives the run)."""
    done = launch.run(["node", "migrate.js"], cwd=work, timeout=TIMEOUT)
    code = None if done.timed_out else done.exit_code
    return code, done.output[-1500:]


def tables(db: sqlite3.Connection) -> dict[str, list[tuple[Any, ...]]]:
    return {name: [tuple(r) for r in db.execute(f"SELECT * FROM {name} ORDER BY id")]
            for name in ("customers", "bookings")}


def changed(before: dict[str, list[tuple[Any, ...]]],
            after: dict[str, list[tuple[Any, ...]]]) -> list[str]:
    found = []
    for name in before:
        gone = set(before[name]) - set(after[name])
        added = set(after[name]) - set(before[name])
        found += [f"{name}: {sorted(map(str, added))[:3]} instead of "
                  f"{sorted(map(str, gone))[:3]}"] if gone or added else []
    return found


def rerun_changes_nothing(db: sqlite3.Connection, work: Path) -> bool:
    """`node migrate.js` twice more: both succeed, neither changes a row."""
    script = work / "migrate.js"
    if not script.is_file() or script.is_symlink():
        raise ValueError("no migrate.js in the workdir")
    if not db.execute("SELECT 1 FROM bookings WHERE source = 'phone' LIMIT 1").fetchone():
        raise ValueError("nothing was migrated")
    before = tables(db)
    problems = []
    for n in range(1, RUNS + 1):
        code, output = run_once(work)
        if code != 0:
            problems.append(f"run {n} exited with {code}: {output[-300:]}")
        problems += [f"run {n}: {p}" for p in changed(before, tables(db))]
    if problems:
        raise ValueError("; ".join(problems[:4]))
    return True
