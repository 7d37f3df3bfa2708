"""sdk-upgrade-java grader.

Gate: pom.xml depends on stripe-java 33 (the current major), and the jars the build
copied (target/lib/stripe-java-*.jar, when there are any) are that major. Then, per
service (payments, invoices, subscriptions):

- `<service>_upgraded`: the service reports (GET /version) the SDK it loaded at major 33
  and the current API version (stripe-java 33's own, 2026-07-29.dahlia), its code (every
  source the build compiles) names no older API version, and what it reports is what it
  does: the grader starts its own copy of each service from the workdir (`bash run.sh
  <service>`) with `STRIPE_API_BASE` (and every other variable naming the emulator)
  pointing at a recording proxy in front of the emulator, grades that copy, and requires
  every Stripe request it made to carry exactly one `Stripe-Version`, the current one,
  and stripe-java 33's User-Agent (a service that reports 33 and the current version
  while its requests say 2020-08-27, or come from stripe-java 20, is not upgraded);
- contract checks: the grader makes fresh test data through the API (payments refunded,
  uncaptured and unpaid; invoices paid, open, paid out of band, void and draft;
  subscriptions with several items, intervals and states), computes each endpoint's JSON
  itself from the current API (sdk_upgrade.contracts), and compares it with what the service
  answers. A service that is not upgraded scores 0 on its contracts: its old code would
  still answer correctly through the old SDK and version.

Each service weighs the same (4), so each is a third of the total. The contracts and
the test data are sdk-upgrade-python's: the three services answer the same JSON
(computed here at stripe-java 33's API version).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from functools import partial
from pathlib import Path

from stripebench.grading.sdk_upgrade.cases import contract_cases
from stripebench.grading.sdk_upgrade.service_code import java_service
from stripebench.grading.sdk_upgrade.service_copies import ServiceCopies, grade_upgrades
from stripebench.grading.sdk_upgrade.upgraded import (
    Target,
    require_upgraded,
    stale_versions,
)

SERVICES = ("payments", "invoices", "subscriptions")
MAJOR = 33
# The API version stripe-java 33 is pinned to (com.stripe.Stripe.API_VERSION): it sends
# no other unless told to with RequestOptions' unsafe override.
CURRENT_VERSION = "2026-07-29.dahlia"
PIN = re.compile(r"^(\d+)\.\d+\.\d+$")
POM = "{http://maven.apache.org/POM/4.0.0}"


def current_version() -> str:
    return CURRENT_VERSION


TARGET = Target("stripe-java", "JavaBindings", MAJOR, current_version())


def class_file(service: str) -> str:
    """The service's entry point's file: Payments.java for payments."""
    return service.capitalize() + ".java"


def _small_file(path: Path, limit: int = 1_000_000) -> str:
    """A regular file's text; anything else (a FIFO would hang the read) is an error."""
    import stat

    info = path.stat()
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        raise ValueError(f"{path.name} is not a regular file of sane size")
    return path.read_text(errors="replace")


def _pom_text(element: ElementTree.Element | None, tag: str) -> str:
    found = element.find(POM + tag) if element is not None else None
    return (found.text or "").strip() if found is not None else ""


def pinned_major(work: Path) -> bool:
    """pom.xml depends on stripe-java at the current major (a `${property}` version is
    looked up in its properties), and that is what the build copied into target/lib
    (build.sh ran when the services restarted)."""
    try:
        pom = ElementTree.fromstring(_small_file(work / "pom.xml"))
    except (OSError, ValueError, ElementTree.ParseError, RecursionError) as exc:
        raise ValueError(f"pom.xml is not readable: {exc}") from None
    versions = [_pom_text(dep, "version")
                for dep in pom.iter(POM + "dependency")
                if _pom_text(dep, "groupId") == "com.stripe"
                and _pom_text(dep, "artifactId") == "stripe-java"]
    if len(versions) != 1:
        raise ValueError(f"pom.xml must depend on com.stripe:stripe-java once "
                         f"(found {len(versions)} dependencies on it)")
    spec = versions[0]
    property_name = re.fullmatch(r"\$\{([\w.-]+)\}", spec)
    if property_name:
        spec = _pom_text(pom.find(POM + "properties"), property_name.group(1))
    pin = PIN.match(spec)
    if not pin or int(pin.group(1)) != MAJOR:
        raise ValueError(f"pom.xml must depend on stripe-java {MAJOR}.x.y (found {spec!r})")
    lib = work / "target" / "lib"
    jars = sorted(p.name for p in lib.glob("stripe-java-*.jar")) if lib.is_dir() else []
    wrong = [name for name in jars if not name.startswith(f"stripe-java-{MAJOR}.")]
    if wrong:
        raise ValueError(f"the services' build holds {', '.join(wrong)}")
    return True


# The services are the agent's code: each GET to one waits at most REQUEST_TIMEOUT
# seconds, and each service's together at most SERVICE_BUDGET (see grading/bounded.py).
SERVICE_BUDGET = 20.0
# The copies start from the services' build (target/), made when they restarted: a JVM
# starts in 1-3 s; a build (when the code changed since then) takes 15-30 s.
BUILD_AND_START_SECONDS = 60.0


def upgraded(work: Path, copies: ServiceCopies, service: str, bypassing: list[str]
             ) -> bool:
    # The service's code: what the build compiles, other services' entry classes aside
    # (not a tool or a note beside it: the instruction asks about the services' code).
    files = java_service(work, [class_file(s) for s in SERVICES if s != service])
    return require_upgraded(TARGET, copies, service, bypassing,
                            stale_versions(work, files, TARGET.version))


def main() -> None:
    from stripebench.grading import Grader, stripe_client, workdir

    work = workdir()
    grader = Grader()
    if not grader.gate(f"stripe_{MAJOR}_pinned", lambda: pinned_major(work)):
        grader.write()
        return
    copies = ServiceCopies(work, SERVICES,
                           start_seconds=BUILD_AND_START_SECONDS)
    try:
        client = stripe_client(CURRENT_VERSION, api_base=copies.grader_base)
        grade_upgrades(grader, copies, contract_cases(client, copies.urls),
                       partial(upgraded, work, copies), SERVICE_BUDGET)
    finally:
        copies.stop()
    grader.write()


if __name__ == "__main__":
    main()
