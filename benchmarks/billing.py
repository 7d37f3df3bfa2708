"""Billing engine speed: subscription creation, prorated updates, previews, and test
clock advancement through a year of renewals for many subscriptions.

    .venv/bin/python benchmarks/billing.py [--subscriptions 50] [--rounds 30]

Runs a real emulator in-process (as the tests do) and drives it with the official
python SDK. Prints p50 / p95 milliseconds per call and the time to advance one clock
through 12 monthly renewals. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import stripe

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from billing_helpers import DAY, JAN_1, make_shop  # noqa: E402
from conftest import start_emulator  # noqa: E402


def timed(samples: dict[str, list[float]], name: str, call: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    result = call()
    samples.setdefault(name, []).append((time.perf_counter() - start) * 1000)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--subscriptions", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    emulator = start_emulator()
    account = emulator.new_account()
    client = stripe.StripeClient(account["secret_key"],
                                 base_addresses={"api": emulator.base})
    shop = make_shop(client)
    cheap, dear = shop.price(1000), shop.price(2500)
    samples: dict[str, list[float]] = {}
    subs = []
    for _ in range(max(args.rounds, args.subscriptions)):
        sub = timed(samples, "subscriptions.create", lambda: client.v1.subscriptions.create(
            params={"customer": shop.customer.id, "items": [{"price": cheap.id}]}))
        subs.append(sub)
    for sub in subs[:args.rounds]:
        change = [{"id": sub["items"].data[0].id, "price": dear.id}]
        timed(samples, "invoices.create_preview",
              lambda s=sub, c=change: client.v1.invoices.create_preview(params={
                  "subscription": s.id, "subscription_details": {"items": c}}))
        timed(samples, "subscriptions.update (prorate)",
              lambda s=sub, c=change: client.v1.subscriptions.update(s.id,
                                                                     params={"items": c}))
    for name, values in samples.items():
        values.sort()
        p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
        print(f"{name:34s} p50 {statistics.median(values):7.1f} ms   p95 {p95:7.1f} ms"
              f"   n={len(values)}")
    count = max(args.rounds, args.subscriptions)
    start = time.perf_counter()
    for month in range(1, 13):
        shop.advance(JAN_1 + month * 31 * DAY)
    took = time.perf_counter() - start
    invoices = sum(1 for _ in client.v1.invoices.list(params={"limit": 100}).auto_paging_iter())
    print(f"advance 12 months, {count} subscriptions: {took:.2f} s "
          f"({invoices} invoices in total, {took / 12 * 1000:.0f} ms per monthly advance)")
    emulator.stop()


if __name__ == "__main__":
    main()
