"""What one oversized request costs the emulator, and every other client meanwhile.

    .venv/bin/python benchmarks/request_limits.py [--megabytes 20] [--params 5000000]

Starts `stripebench emulator serve` as a real server process, then sends one form body
of N parameters (`a=1&a=1&...`, padded to the asked size) to `POST /v1/customers`
while a second client keeps reading `GET /v1/customers/{id}`. Prints how long the big
request took and what it answered, how much the server's resident memory grew, and the
longest wait the other client saw. Everything talks to 127.0.0.1 and stops by itself.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def body(megabytes: int, params: int) -> bytes:
    pairs = b"&".join([b"a=1"] * params)
    size = megabytes * 1_000_000
    if len(pairs) < size:
        pairs += b"&description=" + b"x" * (size - len(pairs) - 13)
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=int, default=20)
    parser.add_argument("--params", type=int, default=5_000_000)
    args = parser.parse_args()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    server = subprocess.Popen([sys.executable, "-m", "stripebench.cli", "emulator", "serve",
                               "--port", str(port)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/_emulator/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("the emulator did not start")
            time.sleep(0.1)
        account = httpx.post(f"{base}/_emulator/accounts", json={}).json()
        auth = {"Authorization": f"Bearer {account['secret_key']}"}
        customer = httpx.post(f"{base}/v1/customers", headers=auth,
                              data={"email": "probe@example.com"}).json()["id"]
        payload = body(args.megabytes, args.params)
        rss_before = rss_mb(server.pid)
        peak = [rss_before]
        waits: list[float] = []
        done = threading.Event()

        def other_client() -> None:
            with httpx.Client(base_url=base, headers=auth, timeout=120) as client:
                while not done.is_set():
                    started = time.monotonic()
                    client.get(f"/v1/customers/{customer}")
                    waits.append(time.monotonic() - started)
                    time.sleep(0.01)

        def sample_memory() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], rss_mb(server.pid))
                time.sleep(0.02)

        reader = threading.Thread(target=other_client, daemon=True)
        reader.start()
        threading.Thread(target=sample_memory, daemon=True).start()
        time.sleep(0.3)
        started = time.monotonic()
        response = httpx.post(f"{base}/v1/customers", headers={
            **auth, "Content-Type": "application/x-www-form-urlencoded"}, content=payload,
            timeout=300)
        took = time.monotonic() - started
        time.sleep(0.3)
        done.set()
        reader.join(timeout=130)
        peak[0] = max(peak[0], rss_mb(server.pid))
        print(f"body: {len(payload) / 1e6:.1f} MB, {args.params:,} params")
        print(f"answer: {response.status_code} {response.text[:120]!r}")
        print(f"big request took: {took:.2f} s")
        print(f"server RSS: {rss_before:.0f} MB before, peak {peak[0]:.0f} MB "
              f"(+{peak[0] - rss_before:.0f} MB)")
        print(f"other client: {len(waits)} reads, longest wait {max(waits) * 1000:.0f} ms")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
