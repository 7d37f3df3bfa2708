"""sdk-upgrade-go grader.

Gate: go.mod requires stripe-go v85 (the current major). Then, per service (payments,
invoices, subscriptions):

- `<service>_upgraded`: the service reports (GET /version) the stripe-go release it was
  built with at major 85 and the API version stripe-go v85 sends, its package depends on
  stripe-go v85 and no other major (`go list -deps`), its code (its package and the
  module's packages it imports) names no older API version, and what it reports is what
  it does: the grader starts its own copy of each service from the workdir (`bash run.sh
  <service>`, which builds it) with `STRIPE_API_BASE` pointing at a recording proxy in
  front of the emulator, grades that copy, and requires every Stripe request it made to
  carry exactly one `Stripe-Version`, the current one, and exactly one User-Agent,
  stripe-go v85's (a service that reports v85 while its requests come from v72 at
  2020-08-27 is not upgraded);
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

import os
import re
from functools import partial
from pathlib import Path

from stripebench.grading import launch
from stripebench.grading.sdk_upgrade.cases import contract_cases
from stripebench.grading.sdk_upgrade.service_code import go_service
from stripebench.grading.sdk_upgrade.service_copies import ServiceCopies, grade_upgrades
from stripebench.grading.sdk_upgrade.upgraded import (
    Target,
    require_upgraded,
    stale_versions,
)

SERVICES = ("payments", "invoices", "subscriptions")
MAJOR = 85
# The API version stripe-go v85 is pinned to (its stripe.APIVersion): every request it
# makes carries it, and no client option changes it.
API_VERSION = "2026-03-25.dahlia"
MODULE = "github.com/stripe/stripe-go/v"
# A requirement of stripe-go in go.mod: `require <module> <version>` or a line of a
# require block.
REQUIREMENT = re.compile(r"^\s*(?:require\s+)?github\.com/stripe/stripe-go/v(\d+)\s+"
                         r"v(\d+)\.\d+\.\d+\S*", re.MULTILINE)


def current_version() -> str:
    return API_VERSION


TARGET = Target("stripe-go", "GoBindings", MAJOR, current_version())


def _small_file(path: Path, limit: int = 1_000_000) -> str:
    """A regular file's text; anything else (a FIFO would hang the read) is an error."""
    import stat

    info = path.stat()
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        raise ValueError(f"{path.name} is not a regular file of sane size")
    return path.read_text(errors="replace")


def pinned_major(work: Path) -> bool:
    """go.mod requires stripe-go at the current major (v85.x.y); an older major may stay
    only while a service still imports it (services not upgraded yet, which then score
    nothing of their own): the instruction says no longer v72 once every service moved."""
    try:
        text = _small_file(work / "go.mod")
    except (OSError, ValueError) as exc:
        raise ValueError(f"no readable go.mod: {exc}") from None
    code = "\n".join(line.split("//")[0] for line in text.splitlines())
    found = [(int(path), int(version)) for path, version in REQUIREMENT.findall(code)]
    if (MAJOR, MAJOR) not in found:
        listed = ", ".join(f"v{p} v{v}" for p, v in found) or "none"
        raise ValueError(f"go.mod must require {MODULE}{MAJOR} v{MAJOR}.x.y "
                         f"(stripe-go requirements found: {listed})")
    older = sorted({path for path, _ in found if path != MAJOR})
    code_files = [f for s in SERVICES for f in go_service(work, work / "services" / s)]
    imported = {int(m) for f in code_files for m in re.findall(
        r'"github\.com/stripe/stripe-go/v(\d+)(?:/[^"]*)?"', f.read_text(errors="replace"))}
    unused = [f"v{m}" for m in older if m not in imported]
    if unused:
        raise ValueError(f"go.mod still requires stripe-go {', '.join(unused)}, which no "
                         "service imports any more")
    return True


# The services are the agent's code: each GET to one waits at most REQUEST_TIMEOUT
# seconds, and each service's together at most SERVICE_BUDGET (see grading/bounded.py).
SERVICE_BUDGET = 20.0
# The copies build (from the warm cache of the services' own build) and start.
BUILD_AND_START_SECONDS = 120.0


def sdk_majors(work: Path, service: str) -> set[int]:
    """The stripe-go majors the service's package depends on, as its build resolves them
    (`go list -deps`, offline, nothing compiled or run): a service that keeps its v72 code
    and forges v85's headers onto its requests (stripe-go lets a request set any header)
    still links v72. Each must be the real module from the module cache, not a local
    copy standing in for it (a `replace` in go.mod or go.work)."""
    cache = Path(os.environ.get("STRIPEBENCH_GOMODCACHE", "/nonexistent")).resolve()
    env = {"GOMODCACHE": str(cache), "GOPROXY": "off", "GOSUMDB": "off",
           "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local", "GOENV": "off",
           "GOCACHE": str(work / ".go" / "cache")}
    listing = ("{{if not .Standard}}{{with .Module}}{{.Path}}\t{{.Dir}}{{end}}\n{{end}}")
    # go reads the submission's go.mod and go.work: it runs as the agent's code does
    try:
        done = launch.run(["go", "list", "-deps", "-f", listing, f"./services/{service}"],
                          cwd=work, env=env, timeout=60)
    except launch.LaunchError as exc:
        raise ValueError(f"go list of the service's package failed: {exc}") from None
    if done.timed_out or done.exit_code != 0:
        raise ValueError("go list of the service's package failed: " + done.stderr[-500:])
    majors = set()
    for line in done.stdout.splitlines():
        module, _, folder = line.partition("\t")
        found = re.fullmatch(r"github\.com/stripe/stripe-go/v(\d+)", module)
        if not found:
            continue
        if cache not in Path(folder).resolve().parents:
            raise ValueError(f"{module} comes from {folder}, not the module cache")
        majors.add(int(found.group(1)))
    return majors


def links_v85_alone(work: Path, service: str) -> None:
    majors = sdk_majors(work, service)
    if majors != {MAJOR}:
        found = ", ".join(f"v{m}" for m in sorted(majors)) or "no stripe-go"
        raise ValueError(f"the service's package depends on {found}, not stripe-go "
                         f"v{MAJOR} alone")


def upgraded(work: Path, copies: ServiceCopies, service: str, bypassing: list[str]
             ) -> bool:
    # The service's code: its package and the module's packages it imports (not a tool
    # or a note beside it: the instruction asks about the services' code).
    files = go_service(work, work / "services" / service)
    return require_upgraded(TARGET, copies, service, bypassing,
                            stale_versions(work, files, TARGET.version),
                            partial(links_v85_alone, work, service))


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
        client = stripe_client(api_base=copies.grader_base)
        grade_upgrades(grader, copies, contract_cases(client, copies.urls),
                       partial(upgraded, work, copies), SERVICE_BUDGET)
    finally:
        copies.stop()
    grader.write()


if __name__ == "__main__":
    main()
