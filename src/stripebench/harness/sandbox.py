"""Which room a trial's commands run in: the factory over every sandbox kind.

`LocalSandbox` (`stripebench.sandbox.local`) runs commands in a plain directory (no
isolation). `BubblewrapSandbox` (`stripebench.routing.bwrap`) runs them in a bubblewrap
namespace that sees only the trial's workdir and a read-only system, has loopback-only
networking with Stripe's host names routed to the emulator, and dies as a whole at
`stop()`. What both share (the Sandbox protocol, process handling, workdir files) is in
`stripebench.sandbox.base`, below the routing and the harness alike; re-exported here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from ..routing.bwrap import BubblewrapSandbox, Routing, bwrap_works
from ..sandbox.base import (
    LOGS,
    READ_LIMIT,
    ExecResult,
    Sandbox,
    SandboxError,
    WorkdirFiles,
    go_module_cache,
    kill_group,
    maven_repository,
    npm_cache,
    open_service_log,
    port_open,
    run_captured,
    service_log_tail,
    shell_argv,
    tail,
    url_ok,
    wait_until_ready,
    wheelhouse,
)
from ..sandbox.local import LocalSandbox, RunAs, UserSandbox


def bwrap_available() -> bool:
    """True when bubblewrap is installed and can create the namespaces we need here."""
    return bwrap_works()


def make_sandbox(kind: Literal["bwrap", "local"], workdir: Path | str,
                 env: dict[str, str] | None = None, *, emulator_url: str | None = None,
                 **options: Any) -> Sandbox:
    """A sandbox of `kind`. With `emulator_url` (the emulator's plain HTTP address, else an
    http:// STRIPE_API_BASE in `env`) a bubblewrap sandbox routes Stripe's host names to
    it, using the STRIPE_SECRET_KEY / STRIPE_PUBLISHABLE_KEY in `env`. Other bwrap
    options: `routing` (a `stripebench.routing.bwrap.Routing`), `shared` / `extra_ro`
    (read-only paths). A local one: `run_as` (a `RunAs`: its commands run as that user,
    a `UserSandbox`). Either kind: `limits` (`stripebench.sandbox.limits.Limits`),
    `clear_on_stop` (set-id bits and file capabilities cleared by stop(); default on)."""
    if kind == "local":
        local = {k: v for k, v in options.items() if k in ("limits", "clear_on_stop")}
        if options.get("run_as") is not None:
            return UserSandbox(workdir, env, run_as=options["run_as"], **local)
        return LocalSandbox(workdir, env, **local)
    if kind == "bwrap":
        if options.pop("run_as", None) is not None:
            raise SandboxError("run_as is for local sandboxes (a bubblewrap room has "
                               "walls of its own)")
        # An emulator named by STRIPE_API_BASE is unreachable from inside the sandbox's
        # loopback-only network, so route to it rather than hand over a dead address.
        emulator_url = emulator_url or _emulator_in(env or {})
        if emulator_url and "routing" not in options:
            options["routing"] = Routing(emulator_url)
        return BubblewrapSandbox(workdir, env, **options)
    raise SandboxError(f"unknown sandbox kind {kind!r} (expected 'bwrap' or 'local')")


def choose_kind(kind: str) -> Literal["bwrap", "local"]:
    """`auto` (what `stripebench run --sandbox` defaults to): bwrap wherever it can
    create its namespaces, else local; `bwrap` and `local` as they are."""
    if kind == "auto":
        return "bwrap" if bwrap_available() else "local"
    if kind not in ("bwrap", "local"):
        raise SandboxError(f"unknown sandbox kind {kind!r} (expected auto, bwrap or local)")
    return "bwrap" if kind == "bwrap" else "local"


def _emulator_in(env: dict[str, str]) -> str | None:
    base = env.get("STRIPE_API_BASE", "")
    return base if base.startswith("http://") else None


def __getattr__(name: str) -> Any:
    # BubblewrapSandbox lives with the routing code it depends on; imported on first use
    # (the routing loads certificates and Stripe's host list, which LocalSandbox users
    # do not need). The routing never imports this module.
    if name == "BubblewrapSandbox":
        return BubblewrapSandbox
    raise AttributeError(name)


__all__ = ["LOGS", "READ_LIMIT", "ExecResult", "Sandbox", "SandboxError", "LocalSandbox",
           "UserSandbox", "RunAs", "choose_kind",
           "WorkdirFiles", "make_sandbox", "bwrap_available", "run_captured", "kill_group",
           "wheelhouse", "npm_cache", "go_module_cache", "maven_repository",
           "open_service_log", "service_log_tail", "port_open", "url_ok",
           "shell_argv", "tail", "wait_until_ready"]
