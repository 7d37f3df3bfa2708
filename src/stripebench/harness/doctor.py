"""`stripebench doctor`: what this machine has for a run, what is missing, and what a run
would do without it (fall back to unsealed trials, or lose the tasks that need it).

Each check is quick (a version command, a directory, one bubblewrap probe); nothing is
installed or changed. `scripts/setup.sh` (make setup) installs all of it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from ..sandbox.base import go_module_cache, maven_repository, npm_cache, wheelhouse
from .provenance import CHECKOUT, TOOLS, tool_version
from .sandbox import bwrap_available

MIN_FREE_BYTES = 5 * 1024 ** 3  # a full run keeps workdirs, logs and transcripts


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    found: str  # what is there (a version, a path, a size), or "missing"
    without: str  # what a run does without it ("" when ok)


def _tool(name: str, without: str) -> Callable[[], Check]:
    def check() -> Check:
        version = tool_version(TOOLS[name])
        return Check(name, version is not None, version or "missing",
                     "" if version else without)
    return check


def _sandbox() -> Check:
    if shutil.which("bwrap") is None:
        return Check("bubblewrap", False, "missing", "trials cannot be sealed: `run` "
                     "refuses to start unless --allow-unsealed (scores not comparable)")
    if not bwrap_available():
        clone = Path("/proc/sys/kernel/unprivileged_userns_clone")
        why = f" ({clone} is 0)" if clone.exists() and clone.read_text().strip() == "0" \
            else ""
        return Check("bubblewrap", False, "installed, but cannot create user namespaces"
                     + why, "trials cannot be sealed: `run` refuses to start unless "
                     "--allow-unsealed (scores not comparable)")
    return Check("bubblewrap", True, "works (user namespaces available)", "")


def _cache(name: str, find: Callable[[], Path | None], tasks: str) -> Callable[[], Check]:
    def check() -> Check:
        path = find()
        if path is None or not any(path.iterdir()):
            return Check(f"offline cache: {name}", False, "missing",
                         f"{tasks} cannot install their packages offline")
        return Check(f"offline cache: {name}", True, str(path), "")
    return check


def _old_sdks() -> Check:
    folder = CHECKOUT / ".old-sdks"
    missing = [n for n in ("stripe5", "stripe7", "node10") if not (folder / n).is_dir()]
    if missing:
        return Check("old Stripe SDKs", False, f"missing {', '.join(missing)}",
                     "the API-version tests lack their old SDKs (runs are unaffected)")
    return Check("old Stripe SDKs", True, str(folder), "")


def _disk(where: Path) -> Callable[[], Check]:
    def check() -> Check:
        target = where if where.exists() else Path.cwd()
        free = shutil.disk_usage(target).free
        shown = f"{free / 1024 ** 3:.1f} GB free in {target}"
        if free < MIN_FREE_BYTES:
            return Check("disk space", False, shown, "long runs may fill the disk "
                         f"(keep {MIN_FREE_BYTES // 1024 ** 3} GB free; trials keep their "
                         "workdirs and transcripts)")
        return Check("disk space", True, shown, "")
    return check


def checks(runs: Path) -> list[Check]:
    postgres = "the saas-* tasks (their app runs its own PostgreSQL) fail to set up"
    steps: list[Callable[[], Check]] = [
        _sandbox,
        _tool("chromium", "no browser tools for agents, no full-stack graders: the "
                          "full-stack and gym tasks fail"),
        _tool("postgres", postgres),
        _tool("node", "the Node tasks, Stripe.js pages' graders and the agent CLIs "
                      "(claude-code, codex) fail"),
        _tool("java", "sdk-upgrade-java fails to build"),
        _tool("go", "sdk-upgrade-go fails to build"),
        _disk(runs),
        _cache("wheelhouse", wheelhouse, "sdk-upgrade-python and other Python tasks"),
        _cache("npm", npm_cache, "the Node tasks"),
        _cache("maven", maven_repository, "sdk-upgrade-java"),
        _cache("go modules", go_module_cache, "sdk-upgrade-go"),
        _old_sdks,
    ]
    return [step() for step in steps]


def as_dicts(found: list[Check]) -> list[dict[str, object]]:
    return [asdict(c) for c in found]


def lines(found: list[Check]) -> list[str]:
    out = []
    for c in found:
        out.append(f"{'ok  ' if c.ok else 'MISS'}  {c.name:26} {c.found}")
        if not c.ok:
            out.append(f"      {'':26} without it: {c.without}")
    bad = [c for c in found if not c.ok]
    out.append("")
    out.append("everything a run needs is here" if not bad else
               f"{len(bad)} missing: `make setup` (scripts/setup.sh) installs them"
               + ("" if os.geteuid() == 0 else " (apt packages need sudo)"))
    return out
