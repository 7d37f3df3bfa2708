"""`stripebench compare`'s statistics on synthetic runs: interval coverage of a known
effect, false-positive rate under no effect, power, and the time a comparison takes.

    .venv/bin/python benchmarks/compare_stats.py [--seeds 200] [--effect 0.2]

Synthetic pairs as in tests/results/test_compare.py (4 tasks, 8 attempts, rewards the share of
4 checks passed). Prints figures; nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_compare import arm, synthetic_pairs, write_run  # noqa: E402

from stripebench.results import load_run, stats  # noqa: E402
from stripebench.results.compare import compare_runs  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--effect", type=float, default=0.2)
    parser.add_argument("--alpha", type=float, default=0.05)
    args = parser.parse_args()
    covered = found = false = 0
    started = time.perf_counter()
    for seed in range(args.seeds):
        shifted = stats.paired(synthetic_pairs(seed, args.effect), 1 - args.alpha,
                               resamples=2000, seed=seed)
        covered += shifted.low <= args.effect <= shifted.high  # type: ignore[operator]
        found += stats.significant(shifted, args.alpha)
        null = stats.paired(synthetic_pairs(seed, 0.0), 1 - args.alpha, resamples=2000,
                            seed=seed)
        false += stats.significant(null, args.alpha)
    print(f"{args.seeds} seeds, 32 pairs in 4 tasks, alpha {args.alpha}: "
          f"coverage of +{args.effect} {covered / args.seeds:.3f}, power "
          f"{found / args.seeds:.3f}, false positives {false / args.seeds:.3f} "
          f"({time.perf_counter() - started:.1f} s)")
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        for tasks, attempts in ((40, 3), (4, 50)):
            pairs = [(f"t{t}", rng.choice([0, .25, .5, .75, 1]),
                      rng.choice([0, .25, .5, .75, 1]))
                     for t in range(tasks) for _ in range(attempts)]
            a = write_run(Path(tmp) / f"{tasks}a", arm(pairs, 0))
            b = write_run(Path(tmp) / f"{tasks}b", arm(pairs, 1))
            clock = time.perf_counter()
            compare_runs(load_run(a), load_run(b))
            print(f"compare {tasks} tasks x {attempts} attempts: "
                  f"{time.perf_counter() - clock:.2f} s")


if __name__ == "__main__":
    main()
