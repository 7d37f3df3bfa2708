"""subscription-gym grader: run every challenge against the agent's billing service.

The challenges (with the parameters the grader needs) come from the set-up step's output
(STRIPEBENCH_SETUP_OUTPUT); the agent's service is at BILLING_URL. For each challenge the
grader builds fresh preconditions on a test clock of its own, POSTs the request to
`/challenges/<n>`, advances the clock and checks the outcome (tests/families.py). One
sub-score per family (weight 1): 1 when every check holds, else 0 with the first
mismatch as its message. The agent's service gets at most REQUEST_SECONDS per call and
the whole grade at most BUDGET_SECONDS; what is left when the budget runs out scores 0.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from families import FAMILIES, Gym, Mismatch  # noqa: E402

# Overridable by the grader's own environment (the harness sets neither; tests do).
REQUEST_SECONDS = float(os.environ.get("SUBSCRIPTION_GYM_REQUEST_SECONDS") or 20)
BUDGET_SECONDS = float(os.environ.get("SUBSCRIPTION_GYM_BUDGET_SECONDS") or 80)
MAX_RESPONSE_BYTES = 100_000


def challenges() -> list[dict[str, Any]]:
    path = os.environ.get("STRIPEBENCH_SETUP_OUTPUT")
    if not path:
        raise SystemExit("STRIPEBENCH_SETUP_OUTPUT is not set: the set-up step did not run")
    found: list[dict[str, Any]] = json.loads(Path(path).read_text())["challenges"]
    return found


class Service:
    """The agent's endpoints: JSON in, JSON object out, bounded in time and size."""

    def __init__(self, base: str, deadline: float) -> None:
        self.http = httpx.Client(base_url=base.rstrip("/"), timeout=REQUEST_SECONDS)
        self.deadline = deadline

    def __call__(self, number: int, body: dict[str, Any]) -> dict[str, Any]:
        left = self.deadline - time.monotonic()
        if left <= 1:
            raise Mismatch("out of grading time")
        try:
            with self.http.stream("POST", f"/challenges/{number}", json=body,
                                  timeout=min(REQUEST_SECONDS, left)) as response:
                raw = b""
                for chunk in response.iter_bytes():
                    raw += chunk
                    if len(raw) > MAX_RESPONSE_BYTES:
                        raise Mismatch("the endpoint's answer is too large")
        except httpx.HTTPError as exc:
            raise Mismatch(f"POST /challenges/{number} failed: {type(exc).__name__}") from None
        if response.status_code != 200:
            raise Mismatch(f"POST /challenges/{number} answered {response.status_code}: "
                           f"{raw[:300].decode(errors='replace')}")
        try:
            answer = json.loads(raw)
        except (ValueError, RecursionError):
            raise Mismatch("the endpoint's answer is not JSON") from None
        if not isinstance(answer, dict):
            raise Mismatch("the endpoint's answer is not a JSON object")
        return answer


def main() -> None:
    from stripebench.grading import Grader, stripe_client

    started = time.monotonic()
    client = stripe_client()
    service = Service(os.environ.get("BILLING_URL", "http://127.0.0.1:4242"),
                      started + BUDGET_SECONDS)
    grader = Grader()
    for challenge in sorted(challenges(), key=lambda c: int(c["number"])):
        family = FAMILIES[challenge["family"]]

        def run(challenge: dict[str, Any] = challenge, family: Any = family) -> bool:
            family(Gym(client, int(challenge["number"]), challenge["params"], service))
            return True

        grader.check(challenge["family"], 1, run)
    grader.write()
    print(f"graded in {time.monotonic() - started:.1f}s")


if __name__ == "__main__":
    main()
