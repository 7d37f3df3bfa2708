"""Create-customer throughput and latency of the emulator, and of localstripe for scale.

    .venv/bin/python benchmarks/emulator_throughput.py [--seconds 10] [--connections 8]

Starts `stripebench emulator serve` as a real server process, then drives
`POST /v1/customers` (form body + a fresh Idempotency-Key, as the SDKs send) over
keep-alive connections from separate client processes, for a fixed time: first with an
empty account, then with 100,000 customers already stored (loaded through the control
plane's restore). The same load then goes to localstripe, installed in a throwaway
venv (/tmp/ls-venv) and started on another port. Prints requests/second, p50/p99
latency and the ratio. Every loop is bounded in time and talks only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
LS_VENV = Path("/tmp/ls-venv")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_up(url: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


# ------------------------------------------------------------------ load generator

async def _connection(port: int, key: str, stop_at: float, tag: str,
                      latencies: list[float]) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    count = 0
    try:
        while time.perf_counter() < stop_at:
            body = f"email=bench{tag}-{count}%40example.com&name=Bench&metadata[n]={count}"
            request = (f"POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                       f"Authorization: Bearer {key}\r\n"
                       f"Idempotency-Key: {tag}-{count}\r\n"
                       "Content-Type: application/x-www-form-urlencoded\r\n"
                       f"Content-Length: {len(body)}\r\n\r\n{body}").encode()
            started = time.perf_counter()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            chunked = False
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
                elif name.lower() == b"transfer-encoding" and b"chunked" in value.lower():
                    chunked = True
            if chunked:
                while True:
                    size = int((await reader.readuntil(b"\r\n")).strip(), 16)
                    await reader.readexactly(size + 2)
                    if size == 0:
                        break
            else:
                await reader.readexactly(length)
            latencies.append(time.perf_counter() - started)
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(head[:200].decode(errors="replace"))
            count += 1
    finally:
        writer.close()
    return count


def _client_process(port: int, key: str, connections: int, seconds: float, tag: str,
                    queue: Any) -> None:
    latencies: list[float] = []

    async def main() -> int:
        stop_at = time.perf_counter() + seconds
        counts = await asyncio.gather(*(
            _connection(port, key, stop_at, f"{tag}{i}", latencies) for i in range(connections)))
        return sum(counts)

    total = asyncio.run(main())
    queue.put((total, latencies))


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (Linux /proc), to show cost per request
    independently of whatever else shares the machine."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def drive(port: int, key: str, seconds: float, connections: int, processes: int,
          tag: str, server_pid: int | None = None) -> dict[str, float]:
    """Run the load for `seconds` from `processes` client processes; return the figures."""
    cpu_before = cpu_seconds(server_pid) if server_pid else 0.0
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    per = max(1, connections // processes)
    workers = [ctx.Process(target=_client_process,
                           args=(port, key, per, seconds, f"{tag}p{i}c", queue))
               for i in range(processes)]
    started = time.perf_counter()
    for w in workers:
        w.start()
    results = [queue.get(timeout=seconds + 120) for _ in workers]
    elapsed = time.perf_counter() - started
    for w in workers:
        w.join(timeout=10)
    total = sum(r[0] for r in results)
    cpu = cpu_seconds(server_pid) - cpu_before if server_pid else float("nan")
    latencies = sorted(x for r in results for x in r[1])
    return {"requests": total, "cpu_us": 1e6 * cpu / total if total else float("nan"),
            "rps": total / min(elapsed, seconds + 0.5) if total else 0.0,
            "p50_ms": 1000 * statistics.median(latencies) if latencies else float("nan"),
            "p99_ms": 1000 * latencies[int(len(latencies) * 0.99) - 1] if latencies
            else float("nan")}


# ------------------------------------------------------------------ servers

def start_emulator(port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "stripebench.cli", "emulator", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    wait_up(f"http://127.0.0.1:{port}/_emulator/health", process)
    return process


def preload_customers(base: str, key: str, count: int) -> None:
    """Give the account `count` customers in one control-plane restore."""
    account = httpx.post(f"{base}/v1/customers", data={"email": "template@example.com"},
                         headers={"Authorization": f"Bearer {key}"}).json()
    accounts = httpx.get(f"{base}/_emulator/accounts").json()["data"]
    acct = next(a["id"] for a in accounts if a["secret_key"] == key)
    snapshot = httpx.get(f"{base}/_emulator/accounts/{acct}/snapshot").json()
    objects = []
    for i in range(count):
        customer = dict(account)
        customer["id"] = f"cus_pre{i:010d}"
        customer["email"] = f"pre{i}@example.com"
        objects.append(customer)
    snapshot["objects"] = objects
    snapshot["order"] = {"customer": [o["id"] for o in objects]}
    snapshot["sequence"] = [o["id"] for o in objects]
    snapshot["idempotency"] = {}
    body = json.dumps(snapshot)
    r = httpx.post(f"{base}/_emulator/restore", content=body,
                   headers={"content-type": "application/json"}, timeout=300)
    r.raise_for_status()
    listed = httpx.get(f"{base}/v1/customers", params={"limit": 1},
                       headers={"Authorization": f"Bearer {key}"}).json()
    assert listed["has_more"], "preload failed"


def start_localstripe() -> tuple[subprocess.Popen[bytes], int] | None:
    binary = LS_VENV / "bin" / "localstripe"
    if not binary.exists():
        print("installing localstripe into a throwaway venv at /tmp/ls-venv ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(LS_VENV)], check=True)
        subprocess.run([str(LS_VENV / "bin" / "pip"), "install", "-q", "localstripe"],
                       check=True)
    for _ in range(3):  # it listens on [::]; a port free on 127.0.0.1 may be taken there
        port = free_port()
        process = subprocess.Popen([str(binary), "--port", str(port)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_up(f"http://127.0.0.1:{port}/v1/customers", process)
            return process, port
        except RuntimeError as exc:
            print(f"localstripe did not start on port {port}: {exc}")
            process.kill()
    return None


def report(label: str, figures: dict[str, float]) -> None:
    print(f"{label:<40} {figures['rps']:>7.0f} req/s  p50 {figures['p50_ms']:6.2f} ms  "
          f"p99 {figures['p99_ms']:7.2f} ms  server CPU {figures['cpu_us']:6.0f} us/req "
          f"({int(figures['requests'])} requests)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--preload", type=int, default=100_000)
    parser.add_argument("--skip-localstripe", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"load average before the run: {load:.2f} (figures are only comparable on an "
          "otherwise idle machine; server CPU per request is the steadier number)")
    print(f"{os.cpu_count()} cores; {args.connections} keep-alive connections from "
          f"{args.processes} client processes; {args.seconds:.0f} s per run", flush=True)

    port = free_port()
    emulator = start_emulator(port)
    base = f"http://127.0.0.1:{port}"
    try:
        empty = httpx.post(f"{base}/_emulator/accounts", json={}).json()
        drive(port, empty["secret_key"], 1.0, args.connections, args.processes, "warm")
        cold = httpx.post(f"{base}/_emulator/accounts", json={}).json()
        at_zero = drive(port, cold["secret_key"], args.seconds, args.connections,
                        args.processes, "zero", emulator.pid)
        report("emulator, 0 customers stored", at_zero)
        loaded = httpx.post(f"{base}/_emulator/accounts", json={}).json()
        started = time.perf_counter()
        preload_customers(base, loaded["secret_key"], args.preload)
        print(f"  (preloaded {args.preload:,} customers in {time.perf_counter() - started:.1f} s)")
        at_full = drive(port, loaded["secret_key"], args.seconds, args.connections,
                        args.processes, "full", emulator.pid)
        report(f"emulator, {args.preload:,} customers stored", at_full)
        print(f"  throughput at {args.preload:,} objects = "
              f"{100 * at_full['rps'] / at_zero['rps']:.0f}% of empty")
    finally:
        emulator.kill()
        emulator.wait()

    if args.skip_localstripe:
        return
    started_ls = start_localstripe()
    if started_ls is None:
        return
    localstripe, ls_port = started_ls
    try:
        key = "sk_test_benchmark"
        drive(ls_port, key, 1.0, args.connections, args.processes, "warm")
        ls = drive(ls_port, key, args.seconds, args.connections, args.processes, "ls",
                   localstripe.pid)
        report("localstripe, same load", ls)
        if ls["rps"]:
            print(f"  emulator / localstripe = {at_zero['rps'] / ls['rps']:.1f}x "
                  f"(empty), {at_full['rps'] / ls['rps']:.1f}x "
                  f"(emulator at {args.preload:,} objects); server CPU per request: "
                  f"{ls['cpu_us'] / at_zero['cpu_us']:.1f}x less")
    finally:
        localstripe.kill()
        localstripe.wait()


if __name__ == "__main__":
    main()
