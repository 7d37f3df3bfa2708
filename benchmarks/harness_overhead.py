"""Harness overhead: trial set-up / agent / grading / tear-down with the noop agent on the
fixture task, and tool round-trip latency in-process and over MCP (stdio).

    .venv/bin/python benchmarks/harness_overhead.py [--trials 6] [--calls 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from stripebench.harness.agents import make_agent
from stripebench.harness.emulator import Emulator
from stripebench.harness.runner import RunPlan, execute
from stripebench.harness.sandbox import LocalSandbox
from stripebench.harness.task import load_task
from stripebench.harness.tools import Toolbox

TASK = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "tasks" / "fixture-shop"


def ms(values: list[float]) -> str:
    values = sorted(values)
    p90 = values[max(0, int(len(values) * 0.9) - 1)]
    return f"median {statistics.median(values) * 1000:7.1f} ms   p90 {p90 * 1000:7.1f} ms"


def trials(n: int, tmp: Path) -> None:
    emulator = Emulator.start()
    task = load_task(TASK)
    try:
        results = execute(RunPlan(out=tmp / "noop", tasks=[task], agent_name="noop",
                                  model=None, attempts=n), lambda: make_agent("noop"),
                          emulator=emulator)
    finally:
        emulator.stop()
    print(f"trial phases, noop agent on {task.id} ({n} trials, one web service, 3 fixtures):")
    for key in ("setup_seconds", "agent_seconds", "grader_seconds", "teardown_seconds",
                "wall_seconds"):
        print(f"  {key:18} {ms([float(r[key]) for r in results])}")


def in_process(calls: int, tmp: Path) -> None:
    (tmp / "w").mkdir()
    (tmp / "w" / "page.html").write_text("<h1>Hi</h1><button>Go</button>")
    tools = Toolbox(LocalSandbox(tmp / "w"))
    try:
        for name, args in (("bash", {"command": "true"}),
                           ("create", {"path": "f.txt", "file_text": "x\n" * 100}),
                           ("view", {"path": "f.txt"})):
            timings = []
            for _ in range(calls):
                start = time.perf_counter()
                tools.call(name, args)
                timings.append(time.perf_counter() - start)
            print(f"  in-process {name:22} {ms(timings)}")
        start = time.perf_counter()
        tools.call("browser_navigate", {"url": (tmp / "w" / "page.html").as_uri()})
        print(f"  in-process first browser_navigate (launches Chromium) "
              f"{(time.perf_counter() - start) * 1000:.0f} ms")
        timings = []
        for _ in range(calls):
            start = time.perf_counter()
            tools.call("browser_snapshot", {})
            timings.append(time.perf_counter() - start)
        print(f"  in-process {'browser_snapshot':22} {ms(timings)}")
    finally:
        tools.close()


async def over_mcp(calls: int, tmp: Path) -> None:
    (tmp / "m").mkdir()
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "stripebench.cli", "mcp", "--workdir", str(tmp / "m")])
    start = time.perf_counter()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            print(f"  MCP stdio server start + initialize  "
                  f"{(time.perf_counter() - start) * 1000:.0f} ms")
            for name, args in (("bash", {"command": "true"}),
                               ("create", {"path": "f.txt", "file_text": "x"})):
                timings = []
                for _ in range(calls):
                    begin = time.perf_counter()
                    await session.call_tool(name, args)
                    timings.append(time.perf_counter() - begin)
                print(f"  MCP stdio  {name:22} {ms(timings)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=6)
    parser.add_argument("--calls", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trials(args.trials, Path(tmp))
        print("tool round trips:")
        in_process(args.calls, Path(tmp))
        anyio.run(over_mcp, args.calls, Path(tmp))


if __name__ == "__main__":
    main()
