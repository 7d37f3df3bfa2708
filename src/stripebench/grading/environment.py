"""What the harness hands a grader, read from its environment variables.

STRIPE_SECRET_KEY / STRIPE_PUBLISHABLE_KEY  the trial account's keys
STRIPE_API_BASE                             the emulator's base URL
STRIPEBENCH_WORKDIR                         the agent's working directory (its submission)
STRIPEBENCH_REWARD_PATH                     where reward.json goes
STRIPEBENCH_FIXTURES                        JSON file: fixture responses by ref
STRIPEBENCH_SEED_SNAPSHOT                   JSON file: the account right after seeding
STRIPEBENCH_FINAL_SNAPSHOT                  JSON file: the account when the agent stopped
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: run the grader through the stripebench harness")
    return value


def workdir() -> Path:
    return Path(_env("STRIPEBENCH_WORKDIR"))


def reward_path() -> Path:
    return Path(os.environ.get("STRIPEBENCH_REWARD_PATH", "reward.json"))


def _json_file(name: str) -> Any:
    return json.loads(Path(_env(name)).read_text())


def fixtures() -> dict[str, Any]:
    data: dict[str, Any] = _json_file("STRIPEBENCH_FIXTURES")
    return data


def seed_snapshot() -> dict[str, Any]:
    data: dict[str, Any] = _json_file("STRIPEBENCH_SEED_SNAPSHOT")
    return data


def final_snapshot() -> dict[str, Any]:
    data: dict[str, Any] = _json_file("STRIPEBENCH_FINAL_SNAPSHOT")
    return data


def stripe_client(api_version: str | None = None, api_base: str | None = None) -> Any:
    """The official python SDK's StripeClient on the trial's account (through `api_base`,
    e.g. a grader's recording proxy, instead of the emulator's address when given)."""
    # the stripe SDK is slow to import: only graders that call the API need it
    import stripe

    base = api_base or _env("STRIPE_API_BASE")
    kwargs: dict[str, Any] = {"base_addresses": {"api": base, "files": base,
                                                 "meter_events": base},
                              "max_network_retries": 2}
    if api_version:
        kwargs["stripe_version"] = api_version
    return stripe.StripeClient(_env("STRIPE_SECRET_KEY"), **kwargs)
