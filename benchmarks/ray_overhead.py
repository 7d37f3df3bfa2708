"""What the Ray executor costs per trial next to the local one, and how many trials at once
one node sustains.

1. The same noop trials on the fixture task, one at a time, with the local executor and
   with the Ray executor on a Ray instance on this machine: the time from one result to
   the next (set-up, agent, grading, tear-down, plus for Ray: scheduling, the task's
   arguments, the archive there and back), the first trial's latency (for Ray: a worker
   process and its emulator starting), and the start of Ray itself.
2. Oracle trials of the fixture task (a web service, the solution, the grader) with 1, 2,
   4... trials in flight on this one node: trials per minute and each trial's wall time.
3. The same with an agent that first waits (as a model-backed agent mostly does): how
   many such trials one node carries at once.

    .venv/bin/python benchmarks/ray_overhead.py [--trials 8] [--in-flight 1,2,4]
        [--waiting-in-flight 2,4,8] [--think 10]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stripebench.harness.agents import make_agent
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.emulator import Emulator
from stripebench.harness.ray_executor import BROWSER_TAG, execute_ray, offline_ray_env
from stripebench.harness.runner import RunPlan, execute
from stripebench.harness.task import load_task

SOLVE = ('curl -sf "$STRIPE_API_BASE/v1/customers" -u "$STRIPE_SECRET_KEY:" -d '
         'email=ada@example.com -d "name=Ada Lovelace" | python3 -c \'import json,sys; '
         'print(json.load(sys.stdin)["id"], end="")\' > customer.txt')
TASK = load_task(Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "tasks" /
                 "fixture-shop")


def arrivals(run: Callable[[Callable[[dict[str, Any]], None]], object]
             ) -> tuple[float, list[float], list[dict[str, Any]]]:
    """Run; the first result's latency, the gaps between later results, the results."""
    start = time.monotonic()
    stamps: list[float] = []
    results: list[dict[str, Any]] = []

    def on_result(result: dict[str, Any]) -> None:
        stamps.append(time.monotonic())
        results.append(result)

    run(on_result)
    return stamps[0] - start, [b - a for a, b in zip(stamps, stamps[1:], strict=False)], \
        results


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:7.0f} ms  (min {min(values) * 1000:.0f}," \
           f" max {max(values) * 1000:.0f})"


def plan(out: Path, agent: str, trials: int, sandbox: str) -> RunPlan:
    return RunPlan(out=out, tasks=[TASK], agent_name=agent, model=None, attempts=trials,
                   sandbox=sandbox)


def overhead(tmp: Path, trials: int, sandbox: str) -> None:
    print(f"1. noop on {TASK.id}, {trials} trials one at a time, {sandbox} sandbox")
    emulator = Emulator.start()
    try:
        first, gaps, results = arrivals(lambda cb: execute(
            plan(tmp / "local", "noop", trials, sandbox), lambda: make_agent("noop"),
            on_result=cb, emulator=emulator))
    finally:
        emulator.stop()
    local = report("local executor", first, gaps, results)
    first, gaps, results = arrivals(lambda cb: execute_ray(
        plan(tmp / "ray", "noop", trials, sandbox), lambda: make_agent("noop"),
        on_result=cb, max_in_flight=1))
    remote = report("ray executor", first, gaps, results)
    print(f"  Ray's overhead per trial (outside the trial, ray - local): "
          f"{(remote - local) * 1000:+.0f} ms")


def report(name: str, first: float, gaps: list[float], results: list[dict[str, Any]]
           ) -> float:
    """Print one executor's figures; its median time per trial outside the trial itself
    (result to result, less the trial's own wall time)."""
    walls = [float(r["wall_seconds"]) for r in results]
    outside = statistics.median(gaps) - statistics.median(walls[1:])
    print(f"  {name:15}  first result {first * 1000:6.0f} ms; then one every {ms(gaps)}")
    print(f"  {'':15}  trial wall {ms(walls)}; outside the trial {outside * 1000:5.0f} ms")
    return outside


def sustained(tmp: Path, trials: int, in_flight: list[int], sandbox: str,
              agent: str = "oracle", think: float = 0) -> None:
    for n in in_flight:
        start = time.monotonic()
        results = execute_ray(plan(tmp / f"{agent}-{n}", agent, trials, sandbox),
                              lambda: waiting_agent(think) if think else make_agent(agent),
                              max_in_flight=n)
        took = time.monotonic() - start
        scored = sum(1 for r in results if r["reward"] == 1.0)
        print(f"  {n} in flight: {trials / took * 60:5.1f} trials/min, trial wall "
              f"{ms([r['wall_seconds'] for r in results])}, {scored}/{trials} scored 1.0")


def waiting_agent(seconds: float) -> Any:
    """A model-backed agent's shape: waits (the model thinking), then does the task."""
    return ScriptedAgent([{"sleep": seconds}, {"tool": "bash", "args": {"command": SOLVE}},
                          {"tool": "submit", "args": {"summary": "done"}}])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--in-flight", default="1,2,4")
    parser.add_argument("--waiting-in-flight", default="2,4,8")
    parser.add_argument("--think", type=float, default=10.0)
    parser.add_argument("--sandbox", default="bwrap")
    args = parser.parse_args()
    in_flight = [int(n) for n in args.in_flight.split(",")]
    waiting = [int(n) for n in args.waiting_in_flight.split(",")]
    offline_ray_env(None)
    import ray

    start = time.monotonic()
    # One Ray instance for every measurement, with room for the most trials in flight.
    ray.init(num_cpus=max(in_flight + waiting), resources={BROWSER_TAG: 1}, include_dashboard=False,
             log_to_driver=False, logging_level=logging.WARNING)
    print(f"ray.init (a one-node Ray on this machine): {time.monotonic() - start:.1f} s")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            overhead(Path(tmp), args.trials, args.sandbox)
            print(f"2. oracle on {TASK.id}, {args.trials} trials, {args.sandbox} sandbox, "
                  f"on this node ({os.cpu_count()} cores)")
            sustained(Path(tmp), args.trials, in_flight, args.sandbox)
            print(f"3. an agent that waits {args.think:g} s (a model thinking), then solves "
                  f"{TASK.id}: {args.trials} trials")
            sustained(Path(tmp), args.trials, waiting, args.sandbox, agent="scripted",
                      think=args.think)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
