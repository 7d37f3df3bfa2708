"""How much routing and the sandbox cost: prints figures, asserts nothing.

    .venv/bin/python benchmarks/routing.py

Measures: loading the local CA, starting a routed bubblewrap sandbox, the per-command
overhead of exec (bwrap vs local), and API request latency through the routed path
(TLS + in-sandbox relay + TLS front) against plain HTTP straight to the emulator.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from conftest import start_emulator  # noqa: E402
from stripebench.emulator.tls import ensure_certificates  # noqa: E402
from stripebench.harness.sandbox import LocalSandbox, bwrap_available  # noqa: E402
from stripebench.routing.bwrap import BubblewrapSandbox, Routing  # noqa: E402
from stripebench.routing.env import Keys  # noqa: E402

REQUESTS = 300
LATENCY_SCRIPT = """
import os, sys, time, requests
session = requests.Session()
session.auth = (os.environ["STRIPE_SECRET_KEY"], "")
base = sys.argv[1]
session.get(base + "/v1/customers").raise_for_status()
times = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    session.get(base + "/v1/customers")
    times.append(time.perf_counter() - t)
times.sort()
print(f"{sum(times) / len(times) * 1000:.2f} {times[len(times) // 2] * 1000:.2f} "
      f"{times[int(len(times) * 0.95)] * 1000:.2f}")
"""


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def timed(fn, repeat: int = 1) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return out


def main() -> None:
    if not bwrap_available():
        print("bubblewrap cannot run here; nothing to measure")
        return
    emulator = start_emulator()
    account = emulator.new_account()
    keys = Keys(account["secret_key"], account["publishable_key"], account["id"])
    ensure_certificates()
    print(f"load local CA (cached)        {ms(min(timed(ensure_certificates, 20)))}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "latency.py").write_text(LATENCY_SCRIPT)
        starts = []
        for _ in range(5):
            started = time.perf_counter()
            box = BubblewrapSandbox(work, routing=Routing(emulator.base, keys))
            starts.append(time.perf_counter() - started)
            box.stop()
        print(f"start routed bwrap sandbox    {ms(statistics.median(starts))}  (median of 5)")
        with BubblewrapSandbox(work, routing=Routing(emulator.base, keys)) as box, \
                LocalSandbox(work, env=keys.env()) as local:
            bwrap_exec = statistics.median(timed(lambda: box.exec("true"), 30))
            local_exec = statistics.median(timed(lambda: local.exec("true"), 30))
            print(f"exec `true`   bwrap           {ms(bwrap_exec)}")
            print(f"exec `true`   local           {ms(local_exec)}")
            routed = box.exec(["python", "latency.py", "https://api.stripe.com", str(REQUESTS)])
            direct = local.exec([sys.executable, "latency.py", emulator.base, str(REQUESTS)])
            for label, result in (("routed HTTPS", routed), ("direct HTTP ", direct)):
                mean, p50, p95 = result.stdout.split()
                print(f"GET /v1/customers {label} mean {mean} ms  p50 {p50} ms  p95 {p95} ms"
                      f"  ({REQUESTS} requests, keep-alive)")
    emulator.stop()


if __name__ == "__main__":
    main()
