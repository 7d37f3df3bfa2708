"""Payments latency: create+confirm PaymentIntents, declines, 3DS, refunds (python SDK).

    .venv/bin/python benchmarks/payments.py [--rounds 200]

Runs a real emulator in-process (uvicorn on a free port, as the tests do) and drives it
with the official python SDK. Prints p50 / p95 / max milliseconds per step and the
request rate of the confirm step. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import stripe

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from conftest import start_emulator  # noqa: E402


def timed(samples: dict[str, list[float]], name: str, fn: Callable[[], object]) -> object:
    start = time.perf_counter()
    result = fn()
    samples.setdefault(name, []).append((time.perf_counter() - start) * 1000)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    emulator = start_emulator()
    try:
        account = emulator.new_account()
        client = stripe.StripeClient(account["secret_key"],
                                     base_addresses={"api": emulator.base})
        base = {"amount": 2000, "currency": "usd", "allowed_payment_method_types": ["card"]}
        samples: dict[str, list[float]] = {}
        browser = httpx.Client()  # keep-alive, as a browser would
        for _ in range(args.rounds):
            pi = timed(samples, "create+confirm pm_card_visa", lambda: client.v1.payment_intents
                       .create(params={**base, "payment_method": "pm_card_visa",
                                       "confirm": True}))
            timed(samples, "decline (402)", lambda: _decline(client, base))
            action = timed(samples, "confirm 3DS -> requires_action", lambda: client.v1
                           .payment_intents.create(params={
                               **base, "payment_method": "pm_card_authenticationRequired",
                               "confirm": True, "return_url": "https://shop.test/r"}))
            url = action.next_action.redirect_to_url.url  # type: ignore[attr-defined]
            timed(samples, "3DS page approve (POST)",
                  lambda url=url: browser.post(url, data={"outcome": "approve"}))
            timed(samples, "refund", lambda pi=pi: client.v1.refunds.create(
                params={"payment_intent": pi.id}))  # type: ignore[attr-defined]
        print(f"payments benchmark: {args.rounds} rounds")
        for name, values in samples.items():
            values.sort()
            p95 = values[int(len(values) * 0.95) - 1]
            print(f"  {name:34s} p50 {statistics.median(values):6.1f} ms  p95 {p95:6.1f} ms"
                  f"  max {values[-1]:6.1f} ms")
        confirm = samples["create+confirm pm_card_visa"]
        print(f"  confirm throughput (sequential): {1000 / statistics.mean(confirm):.0f} /s")
    finally:
        emulator.stop()


def _decline(client: stripe.StripeClient, base: dict[str, object]) -> None:
    try:
        client.v1.payment_intents.create(params={  # type: ignore[call-overload]
            **base, "payment_method": "pm_card_chargeDeclined", "confirm": True})
    except stripe.CardError:
        return
    raise SystemExit("expected a decline")


if __name__ == "__main__":
    main()
