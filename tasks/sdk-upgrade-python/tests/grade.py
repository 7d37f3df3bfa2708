"""sdk-upgrade-python grader.

Gate: requirements.txt pins stripe-python 16 (the current major), and the services'
installed environment (.deps/current, when there is one) holds it. Then, per service
(payments, invoices, subscriptions):

- `<service>_upgraded`: the service reports (GET /version) the SDK it imported at major
  16 and the current API version, its code names no older API version, and what it
  reports is what it does: the grader starts its own copy of each service from the
  workdir (`bash run.sh <service>`) with `STRIPE_API_BASE` pointing at a recording
  proxy in front of the emulator, grades that copy, and requires every Stripe request
  it made to carry the current `Stripe-Version` and stripe-python 16's User-Agent (a
  service that reports 16 and the current version while its requests still say
  2022-08-01, or come from stripe 5, is not upgraded);
- contract checks: the grader makes fresh test data through the API (payments refunded,
  uncaptured and unpaid; invoices paid, open, paid out of band, void and draft;
  subscriptions with several items, intervals and states), computes each endpoint's JSON
  itself from the current API (sdk_upgrade.contracts), and compares it with what the service
  answers. A service that is not upgraded scores 0 on its contracts: its old code would
  still answer correctly through the old SDK and version.

Each service weighs the same (4), so each is a third of the total.
"""

from __future__ import annotations

import os
import re
from functools import partial
from pathlib import Path

from stripebench.grading.sdk_upgrade.cases import contract_cases
from stripebench.grading.sdk_upgrade.service_copies import (
    REQUEST_TIMEOUT,
    Budget,
    ServiceCopies,
    grade_upgrades,
)

SERVICES = ("payments", "invoices", "subscriptions")
MAJOR = 16
PIN = re.compile(r"^\s*stripe\s*==\s*(\d+)\.\d+\.\d+\s*(#.*)?$", re.IGNORECASE)
VERSION_LITERAL = re.compile(r"""["'](\d{4}-\d{2}-\d{2}(?:\.[a-z]+)?)["']""")


def current_version() -> str:
    import stripe

    return str(stripe.api_version)


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
# seconds, and each service's together at most SERVICE_BUDGET (see service_copies.Budget).
SERVICE_BUDGET = 25.0


def stale_versions(work: Path, service: str) -> list[str]:
    """Older API versions named in the service's code (its file and shared modules; not
    the other services' files, nor installed packages or hidden folders)."""
    from stripebench.emulator.versions import KNOWN_VERSIONS

    others = {f"{s}.py" for s in SERVICES if s != service}
    found = []
    for folder, dirs, names in os.walk(work):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and d not in ("venv", "node_modules", "__pycache__"))
        for path in (Path(folder) / n for n in sorted(names)
                     if n.endswith(".py") and n not in others):
            if not path.is_file() or path.stat().st_size > 2_000_000:  # FIFOs hang a read
                continue
            found += [f"{path.relative_to(work)}: {literal}"
                      for literal in VERSION_LITERAL.findall(path.read_text(errors="replace"))
                      if literal in KNOWN_VERSIONS and literal != current_version()]
    return found


def upgraded(work: Path, copies: ServiceCopies, service: str, bypassing: list[str]
             ) -> bool:
    status, info = Budget(REQUEST_TIMEOUT).get(copies.urls[service] + "/version")
    if status != 200 or not isinstance(info, dict):
        raise ValueError(f"GET /version answered {status}: {str(info)[:200]}")
    sdk = str(info.get("stripe_sdk", ""))
    if sdk.split(".")[0] != str(MAJOR):
        raise ValueError(f"the service runs stripe-python {sdk!r}, not {MAJOR}.x")
    if info.get("api_version") != current_version():
        raise ValueError(f"the service uses API version {info.get('api_version')!r}, "
                         f"not {current_version()}")
    stale = stale_versions(work, service)
    if stale:
        raise ValueError("older API versions still in the code: " + ", ".join(stale))
    problems = copies.recorders[service].problems("PythonBindings", MAJOR, current_version())
    if problems:
        raise ValueError(f"its Stripe requests are not stripe-python {MAJOR} at the current API "
                         "version: " + "; ".join(problems))
    if bypassing:
        raise ValueError("Stripe requests went around the grader's recording proxies: "
                         + "; ".join(bypassing))
    return True


def main() -> None:
    from stripebench.grading import Grader, stripe_client, workdir

    work = workdir()
    grader = Grader()
    if not grader.gate("stripe_16_pinned", lambda: pinned_major(work)):
        grader.write()
        return
    copies = ServiceCopies(work, SERVICES, Path(__file__).resolve().parent.parent)
    try:
        client = stripe_client(api_base=copies.grader_base)
        grade_upgrades(grader, copies, contract_cases(client, copies.urls),
                       partial(upgraded, work, copies), SERVICE_BUDGET)
    finally:
        copies.stop()
    grader.write()


if __name__ == "__main__":
    main()
