"""Is a service upgraded? The checks the four SDK-upgrade graders share.

A service counts as upgraded when its `/version` names the new SDK major and API
version, no older API version is left in its code, every Stripe request its graded copy
sent carried exactly the new version and the new SDK's User-Agent, and nothing reached
the emulator around the recording proxies. Each check raises ValueError saying why not
(the grader keeps the message).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ...emulator.versions import KNOWN_VERSIONS
from ..bounded import REQUEST_TIMEOUT, Budget
from .service_copies import ServiceCopies

# A quoted API version: "2022-08-01", '2025-03-31.basil', `2026-03-25.dahlia` (Go raw)
VERSION_LITERAL = re.compile(r"""["'`](\d{4}-\d{2}-\d{2}(?:\.[a-z]+)?)["'`]""")
MAX_SOURCE_BYTES = 2_000_000


@dataclass(frozen=True)
class Target:
    """What an upgraded service runs: `sdk` (e.g. stripe-python) at `major`, whose
    User-Agent names `bindings` (e.g. PythonBindings), at API `version`."""

    sdk: str
    bindings: str
    major: int
    version: str


def stale_versions(work: Path, files: Iterable[Path], current: str) -> list[str]:
    """Older API versions the files name, as `<file>: <version>` (the files: a
    service's code, as sdk_upgrade.service_code finds it)."""

    return [f"{path.relative_to(work)}: {literal}" for path in files
            for literal in VERSION_LITERAL.findall(path.read_text(errors="replace"))
            if literal in KNOWN_VERSIONS and literal != current]


def require_upgraded(target: Target, copies: ServiceCopies, service: str,
                     bypassing: list[str], stale: list[str],
                     extra: Callable[[], None] | None = None) -> bool:
    """True, or ValueError naming the first check the service fails. `stale` is what
    `stale_versions` found in its code; `extra` a task's own check, run once the service
    has answered `/version`."""
    status, info = Budget(REQUEST_TIMEOUT).get(copies.urls[service] + "/version")
    if status != 200 or not isinstance(info, dict):
        raise ValueError(f"GET /version answered {status}: {str(info)[:200]}")
    sdk = str(info.get("stripe_sdk", ""))
    if sdk.removeprefix("v").split(".")[0] != str(target.major):
        raise ValueError(f"the service runs {target.sdk} {sdk!r}, not {target.major}.x")
    if info.get("api_version") != target.version:
        raise ValueError(f"the service uses API version {info.get('api_version')!r}, "
                         f"not {target.version}")
    if extra is not None:
        extra()
    if stale:
        raise ValueError("older API versions still in the code: " + ", ".join(stale))
    problems = copies.recorders[service].problems(target.bindings, target.major,
                                                  target.version)
    if problems:
        raise ValueError(f"its Stripe requests are not {target.sdk} {target.major} at the "
                         "current API version: " + "; ".join(problems))
    if bypassing:
        raise ValueError("Stripe requests went around the grader's recording proxies: "
                         + "; ".join(bypassing))
    return True
