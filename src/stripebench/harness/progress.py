"""What `stripebench run` shows while it works and when it ends: a bar with the trials
done of all, the trials running now, the time spent and the time left (estimated from
the trials done so far), the spend when the model is priced; then one screen saying what
the run did, where its report is and how much disk it used."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..rundir import SCORED, load_results, needs_retry


class RunProgress:
    """The live bar; `started` and `finished` are called from the trials' threads."""

    def __init__(self, console: Console, total: int, done: int) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.spend = 0.0
        self.priced = False
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TextColumn("{task.fields[extra]}"),
                                 TimeElapsedColumn(), TextColumn("left"),
                                 TimeRemainingColumn(), console=console)
        self.bar = self.progress.add_task("trials", total=total, completed=done, extra="")

    def __enter__(self) -> RunProgress:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(*exc)  # type: ignore[arg-type]

    def _refresh(self) -> None:
        extra = f"{self.running} running"
        if self.priced:
            extra += f" · ${self.spend:.2f} spent"
        self.progress.update(self.bar, extra=extra)

    def started(self, task: str, attempt: int) -> None:
        with self.lock:
            self.running += 1
            self._refresh()

    def finished(self, result: dict[str, Any]) -> None:
        with self.lock:
            self.running = max(0, self.running - 1)
            if result.get("cost_usd") is not None:
                self.priced = True
                self.spend += float(result["cost_usd"])
            reward = result.get("reward")
            shown = "—" if reward is None else f"{float(reward):.2f}"
            if reward is not None and result["status"] not in SCORED:
                shown += " (not scored)"  # e.g. graded after a timeout, for information
            self.progress.console.print(
                f"  {result['task']} #{result['attempt']}: {result['status']} reward "
                f"{shown} turns {result['turns']} ({result['wall_seconds']}s)", markup=False)
            self.progress.advance(self.bar)
            self._refresh()


def disk_used(folder: Path) -> int:
    """Bytes the folder takes on disk (allocated blocks, as du counts them)."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return total


def size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def summary(out: Path, started: float, sandbox: str | None,
            reports: list[Path]) -> tuple[list[str], dict[str, Any]]:
    """The final screen (lines) and the same facts for `run --json`."""
    records: list[dict[str, Any]] = [dict(r) for r in load_results(out, sandbox)]
    statuses = Counter(str(r.get("status")) for r in records)
    scored = [float(r["reward"]) for r in records
              if r.get("status") in SCORED and r.get("reward") is not None]
    failed = [r for r in records if needs_retry(r)]
    cost = [float(r["cost_usd"]) for r in records if r.get("cost_usd") is not None]
    tokens = sum(int(r.get("input_tokens") or 0) + int(r.get("output_tokens") or 0)
                 for r in records)
    used = disk_used(out)
    wall = time.monotonic() - started
    facts: dict[str, Any] = {
        "run_dir": str(out), "trials": len(records), "statuses": dict(statuses),
        "scored": len(scored), "strict": sum(1 for s in scored if s >= 1.0),
        "failed": [f"{r['task']} #{r['attempt']}: {r['status']}" for r in failed],
        "cost_usd": round(sum(cost), 4) if cost else None, "tokens": tokens,
        "wall_seconds": round(wall, 1), "disk_bytes": used,
        "reports": [str(p) for p in reports]}
    lines = ["", f"Run finished in {wall:.0f}s: {len(records)} trial(s) in {out}",
             "  statuses   " + ", ".join(f"{n} {s}" for s, n in statuses.most_common())]
    if scored:
        lines.append(f"  scored     {len(scored)}, of which {facts['strict']} at exactly "
                     f"1.0 (mean reward {sum(scored) / len(scored):.3f})")
    if tokens or cost:
        lines.append(f"  model use  {tokens:,} tokens"
                     + (f", ${sum(cost):.2f}" if cost else " (no price known for the model)"))
    if failed:
        lines.append(f"  errors     {len(failed)} trial(s) measured nothing ("
                     + ", ".join(facts["failed"][:4]) + (", ..." if len(failed) > 4 else "")
                     + f"); redo them: stripebench run --resume --retry-errors --out {out}")
    if reports:
        lines.append("  report     " + ", ".join(str(p) for p in reports))
    lines.append(f"  disk       {size(used)} in {out}")
    lines.append("  next       stripebench report RUN... (side by side), stripebench compare "
                 "RUN_A RUN_B (paired, with a verdict)")
    return lines, facts
