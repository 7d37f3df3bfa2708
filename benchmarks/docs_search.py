"""Documentation search quality and speed.

Runs the realistic agent queries in `docs_queries.json` (each with the doc ids that
answer it) against a freshly built index and prints recall@1, recall@5, MRR, query
latency (p50/p95) and index build time. A hit counts when its id equals an expected id,
or is a section of an expected page (`guide/x` matches `guide/x#y`).

Query sets: `core` (queries from the tasks' needs, written with the guides),
`paraphrase` (re-worded questions; the guides' keywords were tuned on them) and
`holdout` (written last and never tuned on: the honest figure for unseen wording).

    .venv/bin/python benchmarks/docs_search.py [--verbose] [--reuse]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from stripebench.docs.index import DocsIndex, build, index_path

QUERIES = Path(__file__).with_name("docs_queries.json")


def matches(doc_id: str, expected: list[str]) -> bool:
    return any(doc_id == e or doc_id.startswith(e + "#") for e in expected)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--verbose", action="store_true", help="print every miss")
    ap.add_argument("--reuse", action="store_true", help="use the cached index if present")
    args = ap.parse_args()
    cases = json.loads(QUERIES.read_text())

    with tempfile.TemporaryDirectory() as tmp:
        target = index_path() if args.reuse else Path(tmp) / "docs.sqlite"
        info = build(target)
        index = DocsIndex(info.path)
        index.search("warm up", 5)
        top1 = top5 = 0
        rr: list[float] = []
        latencies: list[float] = []
        by_set: dict[str, list[int]] = {}
        for case in cases:
            started = time.perf_counter()
            hits = index.search(case["q"], 5)
            latencies.append((time.perf_counter() - started) * 1000)
            ranks = [i for i, h in enumerate(hits, 1) if matches(h.doc_id, case["expect"])]
            rank = ranks[0] if ranks else 0
            top1 += rank == 1
            top5 += rank > 0
            rr.append(1 / rank if rank else 0.0)
            by_set.setdefault(case.get("set", "core"), []).append(rank)
            if args.verbose and rank != 1:
                print(f"{'MISS' if not rank else f'rank {rank}'}: {case['q']!r} expected "
                      f"{case['expect']} got {[h.doc_id for h in hits]}")
        index.close()

    n = len(cases)
    q = statistics.quantiles(latencies, n=20)
    print(f"queries          {n}")
    print(f"sections         {info.sections}")
    print(f"build            {info.seconds:.2f} s" + (" (cached)" if info.reused else ""))
    print(f"recall@1         {top1 / n:.3f}")
    print(f"recall@5         {top5 / n:.3f}")
    print(f"MRR@5            {sum(rr) / n:.3f}")
    for name, ranks in by_set.items():
        at1 = sum(r == 1 for r in ranks) / len(ranks)
        at5 = sum(r > 0 for r in ranks) / len(ranks)
        print(f"  {name:11s} n={len(ranks):3d}  recall@1 {at1:.3f}  recall@5 {at5:.3f}")
    print(f"latency p50      {statistics.median(latencies):.1f} ms")
    print(f"latency p95      {q[18]:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
