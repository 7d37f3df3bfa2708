"""How the emulator behaves with 100,000 objects in one account: pages, search, restore, memory.

    .venv/bin/python benchmarks/emulator_scale.py [--objects 100000] [--memory 100000]

Starts `stripebench emulator serve --data DIR` as a real server process and prints:

- restore: a 100,000-customer snapshot restored into account A (first into an empty
  account, then over the existing one) while a client of account B keeps asking for
  `GET /v1/customers?limit=1`; B's worst and p99 latency during the restore is the stall
  other accounts see;
- list pages of 100 at several cursor positions (`starting_after` near the newest, in
  the middle, near the oldest; `ending_before` from the middle), a `created` filter and
  the `email` list filter: the median of repeated requests;
- a full walk of all objects with `limit=100`;
- searches: exact email (the first request separately: it may build the index), exact
  metadata, and a substring search (a scan by nature, for scale);
- the longest slice of a restore in CPU time, in-process (so the figure does not move
  with what else runs on the machine);
- memory: a separate process creates `--memory` customers through the API in-process
  (the same `EmulatorApp.handle` path the server runs, with an Idempotency-Key as the SDKs
  send) and prints the resident-memory growth per customer.

Every loop is bounded in count and time and talks only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from emulator_throughput import free_port, wait_up  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def start_server(port: int, data: Path) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "stripebench.cli", "emulator", "serve", "--port", str(port),
         "--data", str(data)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    wait_up(f"http://127.0.0.1:{port}/_emulator/health", process)
    return process


def snapshot_with_customers(base: str, account: dict[str, Any], count: int) -> bytes:
    """Account A's snapshot with `count` customers shaped like one made through the API."""
    headers = {"Authorization": f"Bearer {account['secret_key']}"}
    template = httpx.post(f"{base}/v1/customers", data={"email": "template@example.com"},
                          headers=headers).json()
    snapshot = httpx.get(f"{base}/_emulator/accounts/{account['id']}/snapshot").json()
    objects = []
    for i in range(count):
        customer = dict(template, id=f"cus_scale{i:09d}", email=f"scale{i}@example.com",
                        metadata={"n": str(i)})
        objects.append(customer)
    snapshot["objects"] = objects
    snapshot["order"] = {"customer": [o["id"] for o in objects]}
    snapshot["sequence"] = [o["id"] for o in objects]
    snapshot["idempotency"] = {}
    return json.dumps(snapshot).encode()


def restore_while_watching(base: str, body: bytes, watcher_key: str) -> dict[str, float]:
    """Restore `body` while another account's client polls; its latencies show the stall."""
    calls: list[tuple[float, float]] = []  # (started, finished)
    done = threading.Event()

    def watch() -> None:
        with httpx.Client(headers={"Authorization": f"Bearer {watcher_key}"},
                          timeout=600) as client:
            deadline = time.monotonic() + 600
            while not done.is_set() and time.monotonic() < deadline:
                started = time.perf_counter()
                client.get(f"{base}/v1/customers", params={"limit": 1}).raise_for_status()
                calls.append((started, time.perf_counter()))
                time.sleep(0.002)

    watcher = threading.Thread(target=watch)
    watcher.start()
    time.sleep(0.3)
    started = time.perf_counter()
    response = httpx.post(f"{base}/_emulator/restore", content=body, timeout=600,
                          headers={"content-type": "application/json"})
    elapsed = time.perf_counter() - started
    done.set()
    watcher.join()
    response.raise_for_status()
    # Only the calls that overlapped the restore count.
    latencies = sorted(end - begin for begin, end in calls
                       if end >= started and begin <= started + elapsed)
    return {"seconds": elapsed, "max_ms": 1000 * latencies[-1],
            "p99_ms": 1000 * latencies[max(0, int(len(latencies) * 0.99) - 1)],
            "p50_ms": 1000 * statistics.median(latencies), "requests": len(latencies)}


def median_ms(client: httpx.Client, url: str, params: dict[str, Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        client.get(url, params=params).raise_for_status()
        times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times)


def measure_lists(base: str, key: str, count: int, repeat: int) -> None:
    ids = [f"cus_scale{i:09d}" for i in range(count)]  # oldest first
    url = f"{base}/v1/customers"
    with httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=600) as client:
        client.get(url, params={"limit": 1}).raise_for_status()
        cases = [
            ("first page (no cursor)", {}),
            ("starting_after the 1,000th newest", {"starting_after": ids[-min(1000, count)]}),
            ("starting_after the middle", {"starting_after": ids[count // 2]}),
            ("starting_after near the oldest", {"starting_after": ids[150]}),
            ("ending_before the middle", {"ending_before": ids[count // 2]}),
            ("ending_before near the newest", {"ending_before": ids[-150]}),
            ("email filter, oldest customer", {"email": "scale0@example.com"}),
        ]
        for label, params in cases:
            ms = median_ms(client, url, {"limit": 100, **params}, repeat)
            print(f"  list {label:<40} {ms:8.2f} ms", flush=True)

        started = time.perf_counter()
        seen = 0
        cursor: str | None = None
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            page = client.get(url, params={"limit": 100, **(
                {"starting_after": cursor} if cursor else {})}).json()
            seen += len(page["data"])
            if not page["has_more"]:
                break
            cursor = page["data"][-1]["id"]
        print(f"  full walk, limit=100: {seen:,} objects in "
              f"{time.perf_counter() - started:.1f} s", flush=True)

        search = f"{base}/v1/customers/search"
        target = count // 3
        started = time.perf_counter()
        found = client.get(search, params={"query": f"metadata['n']:'{target}'"}).json()
        first = 1000 * (time.perf_counter() - started)
        assert [c["email"] for c in found["data"]] == [f"scale{target}@example.com"], found
        print(f"  search metadata exact, first request    {first:8.2f} ms (builds its index)")
        for label, query in (("email exact", f"email:'scale{count // 4}@example.com'"),
                             ("metadata exact", f"metadata['n']:'{count // 5}'"),
                             ("email substring (scan)", "email~'e77777@'")):
            ms = median_ms(client, search, {"query": query}, repeat)
            print(f"  search {label:<32} {ms:8.2f} ms", flush=True)


# ------------------------------------------------------------------ memory

def _rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def memory_child(count: int) -> None:
    from stripebench.emulator.http import Request
    from stripebench.emulator.server import build

    app = build(seed=1)
    account = next(iter(app.store.accounts.values()))
    headers = {"authorization": f"Bearer {account.secret_key}",
               "content-type": "application/x-www-form-urlencoded"}

    async def create_all() -> None:
        for i in range(count):
            body = f"email=mem{i}%40example.com&name=Memory+Test&metadata[n]={i}".encode()
            response = await app.handle(Request(
                "POST", "/v1/customers", "", {**headers, "idempotency-key": f"mem-{i}"},
                body, "127.0.0.1"))
            if response.status != 200:
                raise RuntimeError(response.body[:300])

    gc.collect()
    before = _rss_bytes()
    started = time.perf_counter()
    asyncio.run(create_all())
    gc.collect()
    grown = _rss_bytes() - before
    print(f"  memory: {count:,} customers through the API in "
          f"{time.perf_counter() - started:.1f} s: RSS +{grown / 1e6:.0f} MB "
          f"= {grown / count:,.0f} bytes per customer "
          f"({grown / 1e6 * 100_000 / count:.0f} MB per 100k)", flush=True)


def slices_child(count: int) -> None:
    """Restore `count` customers in-process over an account that has them already, and
    report the longest stretch of CPU time (thread_time, so time the OS gave to other
    processes does not count) the event loop would have been held without a turn."""
    from stripebench.emulator.server import build

    with tempfile.TemporaryDirectory() as data:
        app = build(seed=1, data=Path(data))
        store = app.store
        account = next(iter(store.accounts.values()))
        template = {"object": "customer", "created": 1767225600, "email": None,
                    "metadata": {}, "invoice_settings": {"custom_fields": None, "footer": None},
                    **{f"field_{i}": None for i in range(24)}}
        snapshot = store.snapshot(account)
        objects = [dict(template, id=f"cus_scale{i:09d}", email=f"scale{i}@example.com",
                        metadata={"n": str(i)}) for i in range(count)]
        snapshot.update(objects=objects, order={"customer": [o["id"] for o in objects]},
                        sequence=[o["id"] for o in objects], idempotency={})
        body = json.dumps(snapshot).encode()
        del objects, snapshot
        for label in ("restore into the account", "restore over the same account"):
            try:
                from stripebench.emulator import restoring
            except ImportError:  # the code before slicing: one synchronous call
                started = time.thread_time()
                store.restore(json.loads(body))
                store.flush()
                longest, slices = time.thread_time() - started, 1
            else:
                longest, slices = 0.0, 0
                for steps in (restoring.read_restore_body(body),):
                    data_, longest, slices = _step_through(steps, longest, slices)
                _, longest, slices = _step_through(
                    restoring.restore_steps(store, [data_], replace_all=False), longest, slices)
                store.flush()
            print(f"  in-process {label}: {slices} slices, longest {1000 * longest:.1f} ms "
                  "CPU without a turn for other requests", flush=True)


def _step_through(steps: Any, longest: float, slices: int) -> tuple[Any, float, int]:
    gc.disable()  # as restoring.run does
    try:
        while True:
            started = time.thread_time()
            try:
                next(steps)
            except StopIteration as done:
                return done.value, max(longest, time.thread_time() - started), slices + 1
            longest = max(longest, time.thread_time() - started)
            slices += 1
    finally:
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--objects", type=int, default=100_000)
    parser.add_argument("--memory", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--skip-lists", action="store_true")
    parser.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--slices-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child)
        return
    if args.slices_child:
        slices_child(args.slices_child)
        return
    print(f"load average before the run: {os.getloadavg()[0]:.2f}; "
          f"{args.objects:,} customers in one account", flush=True)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as data:
        server = start_server(port, Path(data))
        try:
            target = httpx.post(f"{base}/_emulator/accounts", json={}).json()
            watcher = httpx.post(f"{base}/_emulator/accounts", json={}).json()
            body = snapshot_with_customers(base, target, args.objects)
            print(f"  snapshot body: {len(body) / 1e6:.0f} MB", flush=True)
            for label in ("restore into a fresh account", "restore over the same account"):
                figures = restore_while_watching(base, body, watcher["secret_key"])
                print(f"  {label}: {figures['seconds']:.2f} s; account B meanwhile: "
                      f"{figures['requests']} requests, p50 {figures['p50_ms']:.1f} ms, "
                      f"p99 {figures['p99_ms']:.1f} ms, worst {figures['max_ms']:.1f} ms",
                      flush=True)
            del body
            if not args.skip_lists:
                measure_lists(base, target["secret_key"], args.objects, args.repeat)
        finally:
            server.kill()
            server.wait()
    subprocess.run([sys.executable, __file__, "--slices-child", str(args.objects)],
                   check=True, cwd=ROOT)
    if args.memory:
        subprocess.run([sys.executable, __file__, "--memory-child", str(args.memory)],
                       check=True, cwd=ROOT)


if __name__ == "__main__":
    main()
