"""The instruction: the migration is `migrate.js`, and running it again must change
nothing. So the grader runs `node migrate.js` twice more on the table it left and
compares the customers and bookings tables before and after.

The script is the agent's code running beside the grader: this process is made
non-dumpable first, the script runs in a session of its own without the grader's
variables, and everything it started is killed afterwards.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from stripebench.grading.sdk_upgrade.service_copies import harden, kill_strays

RUNS = 2
TIMEOUT = 60  # seconds per run


def run_once(work: Path) -> tuple[int | None, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STRIPEBENCH_")}
    proc = subprocess.Popen(["node", "migrate.js"], cwd=work, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=TIMEOUT)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        out, code = b"", None
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
    return code, out[-1500:].decode(errors="replace")


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
    harden()
    script = work / "migrate.js"
    if not script.is_file() or script.is_symlink():
        raise ValueError("no migrate.js in the workdir")
    if not db.execute("SELECT 1 FROM bookings WHERE source = 'phone' LIMIT 1").fetchone():
        raise ValueError("nothing was migrated")
    before = tables(db)
    problems = []
    try:
        for n in range(1, RUNS + 1):
            code, output = run_once(work)
            if code != 0:
                problems.append(f"run {n} exited with {code}: {output[-300:]}")
            problems += [f"run {n}: {p}" for p in changed(before, tables(db))]
    finally:
        kill_strays()
    if problems:
        raise ValueError("; ".join(problems[:4]))
    return True
