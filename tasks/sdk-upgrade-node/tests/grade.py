"""sdk-upgrade-node grader.

Gate: package.json depends on stripe-node 23 (the current major), and the services'
installed packages (node_modules/stripe, when there is one) are that major. Then, per service
(payments, invoices, subscriptions):

- `<service>_upgraded`: the service reports (GET /version) the SDK it imported at major
  23 and the current API version, its code (its file and the modules it requires) names
  no older API version, and what it reports is what it does: the grader starts its own
  copy of each service from the workdir (`bash run.sh <service>`) with `STRIPE_API_BASE`
  pointing at a recording proxy in front of the emulator, grades that copy, and requires
  every Stripe request it made to carry the current `Stripe-Version` and stripe-node
  23's User-Agent (a service that reports 23 and the current version while its requests
  still say 2022-08-01, or come from stripe 10, is not upgraded);
- contract checks: the grader makes fresh test data through the API (payments refunded,
  uncaptured and unpaid; invoices paid, open, paid out of band, void and draft;
  subscriptions with several items, intervals and states), computes each endpoint's JSON
  itself from the current API (sdk_upgrade.contracts), and compares it with what the service
  answers. A service that is not upgraded scores 0 on its contracts: its old code would
  still answer correctly through the old SDK and version.

Each service weighs the same (4), so each is a third of the total. The contracts and
the test data are sdk-upgrade-python's: the three services answer the same JSON.
"""

from __future__ import annotations

import json
import re
from functools import partial
from pathlib import Path

from stripebench.grading.sdk_upgrade.cases import contract_cases
from stripebench.grading.sdk_upgrade.service_code import node_service
from stripebench.grading.sdk_upgrade.service_copies import ServiceCopies, grade_upgrades
from stripebench.grading.sdk_upgrade.upgraded import (
    Target,
    require_upgraded,
    stale_versions,
)

SERVICES = ("payments", "invoices", "subscriptions")
MAJOR = 23
PIN = re.compile(r"^[\^~]?(\d+)\.\d+\.\d+$")


def current_version() -> str:
    import stripe

    return str(stripe.api_version)


TARGET = Target("stripe-node", "NodeBindings", MAJOR, current_version())


def _small_file(path: Path, limit: int = 1_000_000) -> str:
    """A regular file's text; anything else (a FIFO would hang the read) is an error."""
    import stat

    info = path.stat()
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        raise ValueError(f"{path.name} is not a regular file of sane size")
    return path.read_text(errors="replace")


def pinned_major(work: Path) -> bool:
    """package.json depends on stripe at the current major, and that is what
    node_modules holds (install.sh ran when the services restarted)."""
    try:
        manifest = json.loads(_small_file(work / "package.json"))
        spec = str(manifest["dependencies"]["stripe"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"package.json does not name a stripe dependency: {exc}") from None
    pin = PIN.match(spec)
    if not pin or int(pin.group(1)) != MAJOR:
        raise ValueError(f"package.json must depend on stripe {MAJOR}.x.y (found {spec!r})")
    installed = work / "node_modules" / "stripe" / "package.json"
    if installed.exists():
        version = str(json.loads(_small_file(installed)).get("version", ""))
        if version.split(".")[0] != str(MAJOR):
            raise ValueError(f"the services' node_modules holds stripe {version}")
    return True


# The services are the agent's code: each GET to one waits at most REQUEST_TIMEOUT
# seconds, and each service's together at most SERVICE_BUDGET (see grading/bounded.py).
SERVICE_BUDGET = 20.0


def upgraded(work: Path, copies: ServiceCopies, service: str, bypassing: list[str]
             ) -> bool:
    # The service's code: its file and the modules it requires (not a tool or a note
    # beside it: the instruction asks about the services' code).
    files = node_service(work, work / "services" / f"{service}.js")
    return require_upgraded(TARGET, copies, service, bypassing,
                            stale_versions(work, files, TARGET.version))


def main() -> None:
    from stripebench.grading import Grader, stripe_client, workdir

    work = workdir()
    grader = Grader()
    if not grader.gate(f"stripe_{MAJOR}_pinned", lambda: pinned_major(work)):
        grader.write()
        return
    copies = ServiceCopies(work, SERVICES)
    try:
        client = stripe_client(api_base=copies.grader_base)
        grade_upgrades(grader, copies, contract_cases(client, copies.urls),
                       partial(upgraded, work, copies), SERVICE_BUDGET)
    finally:
        copies.stop()
    grader.write()


if __name__ == "__main__":
    main()
