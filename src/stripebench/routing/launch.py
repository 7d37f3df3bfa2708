"""`stripebench exec`: run any command so that Stripe's host names reach the emulator."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import httpx

from .bwrap import BubblewrapSandbox, Routing, bwrap_works
from .env import Keys, fallback_env

# Host variables a routed command must not inherit: the sandbox sets its own.
NOT_INHERITED = {"HOME", "TMPDIR", "PWD", "OLDPWD", "PATH", "SHLVL", "_",
                 "SSL_CERT_DIR", "PYTHONHOME", "VIRTUAL_ENV", "STRIPEBENCH_CONTROL_TOKEN",
                 "STRIPEBENCH_EMULATOR_SALT"}


class ExecError(RuntimeError):
    """A clear, user-facing reason why the command could not be started."""


def resolve_keys(emulator_url: str, *, account: str | None = None,
                 secret_key: str | None = None, publishable_key: str | None = None,
                 control_token: str | None = None) -> Keys:
    """Keys for the command: given ones, else looked up through the control plane
    (`--account`, the account owning `--secret-key`, or the emulator's first account)."""
    if secret_key and publishable_key:
        return Keys(secret_key, publishable_key, account)
    headers = {"x-emulator-token": control_token} if control_token else {}
    base = emulator_url.rstrip("/")
    try:
        if account:
            response = httpx.get(f"{base}/_emulator/accounts/{account}", headers=headers,
                                 timeout=10)
            found = [response.json()] if response.status_code == 200 else []
            if not found:
                raise ExecError(f"the emulator at {base} has no account {account} "
                                f"(HTTP {response.status_code})")
        else:
            response = httpx.get(f"{base}/_emulator/accounts", headers=headers, timeout=10)
            if response.status_code != 200:
                if secret_key:  # no control plane access: go with what we were given
                    return Keys(secret_key, publishable_key)
                raise ExecError(f"cannot list the emulator's accounts (HTTP "
                                f"{response.status_code}); pass --secret-key or set "
                                "STRIPEBENCH_CONTROL_TOKEN")
            found = response.json()["data"]
            if secret_key:
                found = [a for a in found if a["secret_key"] == secret_key]
                if not found:
                    return Keys(secret_key, publishable_key)
    except httpx.HTTPError as exc:
        raise ExecError(f"cannot reach the emulator at {base}: {exc}") from None
    if not found:
        raise ExecError(f"the emulator at {base} has no accounts")
    info = found[0]
    return Keys(info["secret_key"], publishable_key or info["publishable_key"], info["id"])


def run(command: Sequence[str], *, emulator_url: str, keys: Keys, workdir: Path,
        share: Sequence[Path] = (), sandbox: bool = True) -> int:
    """Run `command` routed (bubblewrap) or, without namespaces, pointed at the emulator."""
    if not command:
        raise ExecError("no command given: stripebench exec [OPTIONS] -- COMMAND ...")

    if sandbox and bwrap_works():
        box = BubblewrapSandbox(workdir, routing=Routing(emulator_url, keys), extra_ro=share)
        try:
            inherited = {k: v for k, v in os.environ.items()
                         if k not in NOT_INHERITED and k not in box.env}
            return box.run_attached(list(command), env=inherited)
        finally:
            box.stop()
    if sandbox:
        print("stripebench: bubblewrap cannot create namespaces here, so Stripe's host names "
              "are NOT routed; the command gets STRIPE_API_BASE and friends pointing at the "
              "emulator instead (see docs/routing.md).", file=sys.stderr)
    env = dict(os.environ) | fallback_env(emulator_url, keys)
    try:
        return subprocess.call(list(command), env=env, cwd=workdir)
    except FileNotFoundError:
        raise ExecError(f"command not found: {command[0]}") from None
