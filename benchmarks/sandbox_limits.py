"""What the limits cost: a bubblewrap sandbox's start+stop with and without its cgroup,
one command's round trip through the cgroup join, the workdir's quota image (make, copy
out), and the teardown's sweep for set-id bits and file capabilities over a tree the size
of a node_modules folder.

    .venv/bin/python benchmarks/sandbox_limits.py [--runs 5] [--files 30000]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from stripebench.routing.bwrap import BubblewrapSandbox
from stripebench.sandbox import cgroups
from stripebench.sandbox.disk import WorkdirDisk
from stripebench.sandbox.limits import DEFAULT_LIMITS
from stripebench.sandbox.safe_files import clear_setid_bits


def timed(runs: int, action: Callable[[int], None]) -> str:
    values = []
    for n in range(runs):
        start = time.perf_counter()
        action(n)
        values.append(time.perf_counter() - start)
    return f"median {statistics.median(values) * 1000:8.1f} ms   max {max(values) * 1000:8.1f} ms"


def sandbox_cycle(tmp: Path, runs: int, with_cgroup: bool) -> tuple[str, str]:
    saved = cgroups.ROOT
    if not with_cgroup:
        cgroups.ROOT = tmp / "no-cgroups"
    try:
        box = BubblewrapSandbox(tmp / "exec")
        try:
            assert (box.cgroup is not None) == with_cgroup, box.unbounded
            command = timed(runs * 4, lambda n: box.exec("true"))
        finally:
            box.stop()
        cycle = timed(runs, lambda n: BubblewrapSandbox(tmp / f"w{with_cgroup}{n}").stop())
        return cycle, command
    finally:
        cgroups.ROOT = saved


def tree(root: Path, files: int) -> None:
    for n in range(files):
        folder = root / f"pkg{n // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{n}.js").write_text("module.exports = 1;\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=30_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        for with_cgroup in (False, True):
            cycle, command = sandbox_cycle(tmp, args.runs, with_cgroup)
            label = "with its cgroup" if with_cgroup else "without a cgroup"
            print(f"bwrap sandbox start+stop {label:17} {cycle}")
            print(f"exec('true')             {label:17} {command}")
        print(f"cgroup create+remove                       "
              f"{timed(args.runs, lambda n: cgroups.Cgroup.create(DEFAULT_LIMITS).remove())}")
        source = tmp / "tree"
        tree(source, args.files)
        print(f"set-id/capability sweep, {args.files} files      "
              f"{timed(args.runs, lambda n: clear_setid_bits(source))}")

        def quota(n: int) -> None:
            disk = WorkdirDisk.create(tmp / f"q{n}" / "workdir", DEFAULT_LIMITS)
            tree(disk.workdir, args.files // 10)
            disk.release()
        print(f"workdir quota make+fill({args.files // 10})+copy out    "
              f"{timed(args.runs, quota)}")

        def plain(n: int) -> None:
            tree(tmp / f"p{n}" / "workdir", args.files // 10)
        print(f"plain folder fill({args.files // 10}) (baseline)        "
              f"{timed(args.runs, plain)}")


if __name__ == "__main__":
    main()
