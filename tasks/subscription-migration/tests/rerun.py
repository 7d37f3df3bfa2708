"""The instruction: the migration is `migrate.py`, safe to run again at any time. So the
grader runs it twice more, on the state it left, and checks that nothing was created,
charged, attached or changed twice.

The script is the agent's code: it runs through the grading room's launcher
(stripebench.grading.launch), never beside the grader.
"""

from __future__ import annotations

from typing import Any

from stripebench.grading import Grader, launch, workdir

RUNS = 2
TIMEOUT = 90  # seconds per run; the reference takes a few


def run_once() -> tuple[int | None, str]:
    """One more run of migrate.py, in a room of its own (its pid namespace dies with
    it: nothing it leaves running outlives the run)."""
    done = launch.run(["python", "migrate.py"], cwd=workdir(), timeout=TIMEOUT)
    code = None if done.timed_out else done.exit_code
    return code, done.output[-2000:]


def state(client: Any, legacy_ids: list[str]) -> dict[str, Any]:
    """What a second run must leave alone, read from the API."""
    def every(listing: Any) -> list[dict[str, Any]]:
        return [o.to_dict() for o in listing.auto_paging_iter()]

    customers = every(client.v1.customers.list(params={"limit": 100}))
    migrated = [c for c in customers
                if (c.get("metadata") or {}).get("legacy_id") in legacy_ids]
    cards = {c["id"]: sorted(p.id for p in client.v1.payment_methods.list(
        params={"customer": c["id"], "type": "card", "limit": 100}).auto_paging_iter())
        for c in migrated}
    return {
        "by_legacy": {i: sorted(c["id"] for c in migrated
                                if c["metadata"]["legacy_id"] == i) for i in legacy_ids},
        "subscriptions": {c["id"]: sorted(s["id"] for s in every(
            client.v1.subscriptions.list(params={"customer": c["id"], "status": "all",
                                                 "limit": 100}))) for c in migrated},
        "cards": cards,
        "defaults": {c["id"]: (c.get("invoice_settings") or {}).get("default_payment_method")
                     for c in migrated},
        "charges": sorted(o["id"] for o in every(client.v1.charges.list(
            params={"limit": 100}))),
        "payment_intents": sorted(o["id"] for o in every(client.v1.payment_intents.list(
            params={"limit": 100}))),
        "invoices": {o["id"]: (o.get("customer"), o.get("amount_due")) for o in every(
            client.v1.invoices.list(params={"limit": 100}))},
        "coupons": {o["id"]: o.get("percent_off") for o in every(client.v1.coupons.list(
            params={"limit": 100}))},
    }


def created_twice(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    found = [f"{legacy}: customers {before['by_legacy'][legacy]} became "
             f"{after['by_legacy'].get(legacy)}" for legacy in before["by_legacy"]
             if after["by_legacy"].get(legacy) != before["by_legacy"][legacy]]
    found += [f"customer {c}: subscriptions {subs} became {after['subscriptions'].get(c)}"
              for c, subs in before["subscriptions"].items()
              if after["subscriptions"].get(c) != subs]
    found += [f"new {kind} {', '.join(sorted(set(after[kind]) - set(before[kind])))}"
              for kind in ("charges", "payment_intents")
              if set(after[kind]) - set(before[kind])]
    found += [f"new invoice {i} ({customer}, due {due})"
              for i, (customer, due) in after["invoices"].items()
              if i not in before["invoices"] and (due or customer in before["cards"])]
    known = set(before["coupons"].values())
    found += [f"coupon {i} again ({pct}% off)" for i, pct in after["coupons"].items()
              if i not in before["coupons"] and pct in known]
    return found


def attached_twice(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    found = [f"customer {c}: cards {cards} became {after['cards'].get(c)}"
             for c, cards in before["cards"].items() if after["cards"].get(c) != cards]
    found += [f"customer {c}: default card {pm} became {after['defaults'].get(c)}"
              for c, pm in before["defaults"].items() if after["defaults"].get(c) != pm]
    return found


def grade(g: Grader, client: Any, legacy_ids: list[str]) -> None:
    """The three re-run checks, after everything else was graded."""
    script = workdir() / "migrate.py"
    if not legacy_ids or not script.is_file() or script.is_symlink():
        why = "nothing was migrated" if not legacy_ids else "no migrate.py in the workdir"
        for name, weight in (("rerun_succeeds", 1), ("rerun_creates_nothing", 2),
                             ("rerun_attaches_nothing", 1)):
            g.check(name, weight, 0.0, why)
        return
    before = state(client, legacy_ids)
    failures, created, attached = [], [], []
    for n in range(1, RUNS + 1):
        code, output = run_once()
        if code != 0:
            failures.append(f"run {n} exited with {code}: {output[-300:]}")
        after = state(client, legacy_ids)
        created += [f"run {n}: {p}" for p in created_twice(before, after)]
        attached += [f"run {n}: {p}" for p in attached_twice(before, after)]

    def verdict(problems: list[str]) -> bool:
        if problems:
            raise ValueError("; ".join(problems[:4]))
        return True

    g.check("rerun_succeeds", 1, lambda: verdict(failures))
    g.check("rerun_creates_nothing", 2, lambda: verdict(created))
    g.check("rerun_attaches_nothing", 1, lambda: verdict(attached))
