"""sdk-upgrade-python grader.

Gate: requirements.txt pins stripe-python 16 (the current major), and the services'
installed environment (.deps/current, when there is one) holds it. Then, per service
(payments, invoices, subscriptions):

- `<service>_upgraded`: the service reports (GET /version) the SDK it imported at major
  16 and the current API version, its code (its file and the local modules it imports)
  names no older API version, and what it reports is what it does: the grader starts its
  own copy of each service from the workdir (`bash run.sh <service>`) with
  `STRIPE_API_BASE` pointing at a recording proxy in front of the emulator, grades that
  copy, and requires every Stripe request it made to carry the current `Stripe-Version`
  and stripe-python 16's User-Agent (a service that reports 16 and the current version
  while its requests still say 2022-08-01, or come from stripe 5, is not upgraded);
- contract checks: the grader makes fresh test data through the API (payments refunded,
  uncaptured and unpaid; invoices paid, open, paid out of band, void and draft;
  subscriptions with several items, intervals and states), computes each endpoint's JSON
  itself from the current API (sdk_upgrade.contracts), and compares it with what the service
  answers. A service that is not upgraded scores 0 on its contracts: its old code would
  still answer correctly through the old SDK and version.

Each service weighs the same (4), so each is a third of the total.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

from stripebench.grading.sdk_upgrade.cases import contract_cases
from stripebench.grading.sdk_upgrade.service_code import python_service
from stripebench.grading.sdk_upgrade.service_copies import ServiceCopies, grade_upgrades
from stripebench.grading.sdk_upgrade.upgraded import (
    Target,
    require_upgraded,
    stale_versions,
)

SERVICES = ("payments", "invoices", "subscriptions")
MAJOR = 16
PIN = re.compile(r"^\s*stripe\s*==\s*(\d+)\.\d+\.\d+\s*(#.*)?$", re.IGNORECASE)


def current_version() -> str:
    import stripe

    return str(stripe.api_version)


TARGET = Target("stripe-python", "PythonBindings", MAJOR, current_version())


def pinned_major(work: Path) -> bool:
    """requirements.txt pins stripe exactly, at the current major."""
    import stat

    requirements = work / "requirements.txt"
    info = requirements.stat()
    if not stat.S_ISREG(info.st_mode) or info.st_size > 100_000:  # a FIFO would hang us
        raise ValueError("requirements.txt is not a regular file of sane size")
    majors = [int(m.group(1)) for line in requirements.read_text().splitlines()
              if (m := PIN.match(line))]
    if majors != [MAJOR]:
        raise ValueError(f"requirements.txt must pin stripe=={MAJOR}.x.y exactly once "
                         f"(found majors {majors})")
    # What install.sh last installed for the services (run.sh ran it when they restarted).
    installed = [d.name for d in (work / ".deps" / "current").glob("stripe-*.dist-info")]
    if installed and not all(n.startswith(f"stripe-{MAJOR}.") for n in installed):
        raise ValueError(f"the services' environment (.deps/current) holds {installed}")
    return True


# The services are the agent's code: each GET to one waits at most REQUEST_TIMEOUT
# seconds, and each service's together at most SERVICE_BUDGET (see grading/bounded.py).
SERVICE_BUDGET = 25.0


def upgraded(work: Path, copies: ServiceCopies, service: str, bypassing: list[str]
             ) -> bool:
    # The service's code: its file and the local modules it imports (not a tool or a
    # note beside it: the instruction asks about the services' code).
    files = python_service(work, work / "services" / f"{service}.py")
    return require_upgraded(TARGET, copies, service, bypassing,
                            stale_versions(work, files, TARGET.version))


def main() -> None:
    from stripebench.grading import Grader, stripe_client, workdir

    work = workdir()
    grader = Grader()
    if not grader.gate("stripe_16_pinned", lambda: pinned_major(work)):
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
