"""checkout-gym set-up: create the hidden challenge sessions before the agent starts.

Runs outside the sandbox after the fixtures are seeded, with the emulator's control
plane. The sessions must stay unreadable to the agent's keys, so they live in a hidden
account that holds a clone of the trial account's catalog — the very same product,
price and shipping-rate ids — made through the control plane's snapshot/restore. The
agent can list its own account (no sessions there) and cannot reach the hidden one; the
browser gets only client secrets and the hidden account's publishable key, which can
draw the pages and nothing else.

Environment (from the harness): STRIPE_API_BASE, STRIPE_SECRET_KEY (the trial account),
STRIPEBENCH_CONTROL_TOKEN (if the server has one), STRIPEBENCH_WORKDIR, and optionally
STRIPEBENCH_GYM_SEED / STRIPEBENCH_GYM_COUNT (default: the public seed, 20 pages).
Writes STRIPEBENCH_WORKDIR/challenges.json for the app (client secrets only) and the
answer key — seed, hidden account, each session's parameters with real ids — to
STRIPEBENCH_SETUP_OUTPUT, which the harness hands to the grader and never to the agent.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sys
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the generator beside this file
from generate import (  # noqa: E402
    DEFAULT_COUNT,
    PRE_ENDIVE_VERSION,
    PUBLIC_SEED,
    generate,
    resolve,
)

CATALOG_TYPES = ("product", "price", "shipping_rate", "coupon", "promotion_code", "tax_rate")
RETURN_URL = "http://127.0.0.1/challenge-complete?session_id={CHECKOUT_SESSION_ID}"


def settings() -> tuple[int, int]:
    seed = int(os.environ.get("STRIPEBENCH_GYM_SEED") or PUBLIC_SEED)
    count = int(os.environ.get("STRIPEBENCH_GYM_COUNT") or DEFAULT_COUNT)
    return seed, count


def _control(base: str) -> httpx.Client:
    token = os.environ.get("STRIPEBENCH_CONTROL_TOKEN")
    headers = {"X-Emulator-Token": token} if token else {}
    return httpx.Client(base_url=base, headers=headers, timeout=60)


def hidden_clone(control: httpx.Client, secret_key: str, seed: int) -> dict[str, str]:
    """Restore the trial account's catalog under a new, hidden account; return its keys."""
    accounts = control.get("/_emulator/accounts").raise_for_status().json()["data"]
    trial = next((a for a in accounts if a["secret_key"] == secret_key), None)
    if trial is None:
        raise SystemExit("the trial account is not on this emulator")
    snap = control.get(f"/_emulator/accounts/{trial['id']}/snapshot").raise_for_status().json()
    digest = hashlib.sha256(f"checkout-gym:{trial['id']}:{seed}".encode()).hexdigest()
    hidden_id = f"acct_1gym{digest[:16]}"
    objects = [o for o in snap["objects"] if o.get("object") in CATALOG_TYPES]
    keep = {o["id"] for o in objects}
    # Ids may be predictable; the keys must not be: this code is public.
    meta = dict(snap["account"], id=hidden_id, secret_key=f"sk_test_gym{secrets.token_hex(24)}",
                publishable_key=f"pk_test_gym{secrets.token_hex(24)}", seed=f"gym:{digest}",
                counter=0, parent=None)
    clone = {"account": meta, "objects": objects,
             "order": {t: [i for i in ids if i in keep] for t, ids in snap["order"].items()
                       if t in CATALOG_TYPES},
             "sequence": [i for i in snap.get("sequence", []) if i in keep],
             "idempotency": {}}
    control.post("/_emulator/restore", json=clone).raise_for_status()
    return {"id": hidden_id, "secret_key": meta["secret_key"],
            "publishable_key": meta["publishable_key"]}


def catalog_ids(client: Any) -> tuple[dict[str, str], dict[str, str]]:
    """The hidden account's price ids by lookup key and shipping-rate ids by their
    `lookup` metadata: what the generator's symbolic references resolve to."""
    prices = {p.lookup_key: p.id for p in client.v1.prices.list({"limit": 100}).data
              if p.lookup_key}
    rates = {r.metadata["lookup"]: r.id
             for r in client.v1.shipping_rates.list({"limit": 100}).data
             if "lookup" in (r.metadata or {})}
    return prices, rates


def stripe_client(base: str, key: str) -> Any:
    import stripe

    return stripe.StripeClient(key, base_addresses={"api": base, "files": base,
                                                    "meter_events": base},
                               max_network_retries=2)


def main() -> None:
    base = os.environ["STRIPE_API_BASE"].rstrip("/")
    workdir = Path(os.environ["STRIPEBENCH_WORKDIR"])
    seed, count = settings()
    with _control(base) as control:
        hidden = hidden_clone(control, os.environ["STRIPE_SECRET_KEY"], seed)
    created = os.environ.get("STRIPEBENCH_SETUP_ACCOUNTS")
    if created:  # the harness deletes it with the trial's own account at teardown
        with open(created, "a") as handle:
            handle.write(hidden["id"] + "\n")
    client = stripe_client(base, hidden["secret_key"])
    prices, rates = catalog_ids(client)
    pages = []
    answers = {}
    for item in generate(seed, count):
        params = resolve(item["params"], prices, rates)
        answers[str(item["number"])] = params
        # `payment_method_types` exists only before the endive API version: such a
        # session is created the way an integration pinned to dahlia would.
        options = ({"stripe_version": PRE_ENDIVE_VERSION}
                   if "payment_method_types" in params else {})
        session = client.v1.checkout.sessions.create(
            dict(params, ui_mode="embedded_page", return_url=RETURN_URL), options)
        pages.append({"number": item["number"], "client_secret": session.client_secret})
    (workdir / "challenges.json").write_text(json.dumps(
        {"publishable_key": hidden["publishable_key"], "challenges": pages}, indent=2) + "\n")
    key = {"seed": seed, "count": count, "hidden_account": hidden["id"], "answers": answers}
    output = os.environ.get("STRIPEBENCH_SETUP_OUTPUT")
    if output:
        Path(output).write_text(json.dumps(key, indent=2) + "\n")
    print(f"checkout-gym: {len(pages)} challenge pages (seed {seed}) in hidden account "
          f"{hidden['id']}")


if __name__ == "__main__":
    main()
