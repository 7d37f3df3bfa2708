"""The per-task cost of grading: set-up / agent / grading / wall of one oracle trial per
task, for one or more checkouts of stripebench (say, before and after the sealed room),
the checkouts taking turns task by task so that drift on a busy machine hits them alike.

    .venv/bin/python benchmarks/grading_cost.py [--tasks a b] \\
        --checkout before=/work/wt/before --checkout after=/work/main
    .venv/bin/python benchmarks/grading_cost.py --read before=/tmp/x/before ...

Each checkout runs `stripebench run --agent oracle --attempts 1 --sandbox bwrap` with its
own `.venv/bin/stripebench`; `--read` prints the figures of runs made earlier.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

PHASES = ("setup_seconds", "agent_seconds", "grader_seconds", "wall_seconds")
TASKS = Path(__file__).resolve().parent.parent / "tasks"


def run_one(checkout: Path, task: str, out: Path) -> None:
    # each checkout with its own tasks: graders and task.toml change with the harness
    command = [str(checkout / ".venv" / "bin" / "stripebench"), "run", "--agent", "oracle",
               "--attempts", "1", "--sandbox", "bwrap", "--tasks-dir", str(checkout / "tasks"),
               "--tasks", task, "--out", str(out), "--no-report"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=checkout)
    took = time.perf_counter() - start
    if done.returncode != 0:
        print(f"  {checkout}: {task} failed after {took:.0f} s: {done.stderr[-300:]}")


def figures(run: Path) -> dict[str, dict[str, float]]:
    found = {}
    for result in sorted(run.glob("*/trials/*/*/result.json")):  # <run>/<task>/trials/...
        record = json.loads(result.read_text())
        found[record["task"]] = {k: float(record.get(k) or 0.0) for k in PHASES} | {
            "reward": record.get("reward")}
    return found


def table(runs: dict[str, Path]) -> None:
    data = {name: figures(path) for name, path in runs.items()}
    tasks = sorted({t for found in data.values() for t in found})
    names = list(runs)
    print(f"{'task':28}" + "".join(f"{n + ' ' + p.split('_')[0]:>17}" for n in names
                                   for p in PHASES))
    totals = {n: dict.fromkeys(PHASES, 0.0) for n in names}
    for task in tasks:
        row = f"{task:28}"
        for n in names:
            found = data[n].get(task, {})
            flag = "" if found.get("reward") == 1.0 else "!"  # the oracle must score 1.0
            for p in PHASES:
                value = found.get(p)
                row += f"{'—' if value is None else f'{value:.1f}{flag}':>17}"
                totals[n][p] += value or 0.0
        print(row)
    print(f"{'all':28}" + "".join(f"{totals[n][p]:>17.1f}" for n in names for p in PHASES))
    print("(! : that trial did not score 1.0)")
    if len(names) == 2:
        a, b = names
        grading = totals[b]["grader_seconds"] / max(totals[a]["grader_seconds"], 1e-9) - 1
        print(f"grading, {b} against {a}: {grading:+.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", action="append", default=[], help="NAME=PATH")
    parser.add_argument("--read", action="append", default=[], help="NAME=RUN_DIR")
    parser.add_argument("--tasks", nargs="*", default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.read:
        table({k: Path(v) for k, v in (item.split("=", 1) for item in args.read)})
        return
    checkouts = {k: Path(v) for k, v in (item.split("=", 1) for item in args.checkout)}
    tasks = args.tasks or sorted(p.parent.name for p in TASKS.glob("*/task.toml"))
    out = args.out or Path(tempfile.mkdtemp(prefix="grading-cost-"))
    for task in tasks:
        for name, checkout in checkouts.items():
            run_one(checkout, task, out / name / task)
    print(f"runs in {out}")
    table({name: out / name for name in checkouts})


if __name__ == "__main__":
    main()
