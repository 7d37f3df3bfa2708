"""Chromium flags that make a browser reach the local Stripe by Stripe's real host names.

Chromium on Linux does not read SSL_CERT_FILE (it trusts the NSS database), so instead
of installing our CA we tell it to accept certificates whose public key is ours
(`--ignore-certificate-errors-spki-list`, honoured because Playwright always passes a
`--user-data-dir`). Host names are mapped explicitly too, so the same flags work whether
Chromium runs inside the sandbox (Stripe hosts -> the relay on 127.0.0.1:443) or on the
host next to `emulator serve --https` (Stripe hosts -> 127.0.0.1:HTTPS_PORT).
"""

from __future__ import annotations

import os

from ..emulator.tls import ensure_certificates
from .env import host_resolver_rules
from .front import RelayThread, emulator_address, port_of

BASE_ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking")


def chromium_args(spki: str | list[str] | tuple[str, ...] | None = None,
                  https_port: int | None = None) -> list[str]:
    """Flags for routed Chromium. `spki` defaults to $STRIPEBENCH_SPKI (set by the sandbox);
    outside a sandbox the local CA is loaded (created if needed)."""
    if spki is None:
        spki = os.environ.get("STRIPEBENCH_SPKI") or None
    if spki is None:
        spki = list(ensure_certificates().spki)
    hashes = spki.split(",") if isinstance(spki, str) else list(spki)
    return [f"--ignore-certificate-errors-spki-list={','.join(hashes)}",
            f"--host-resolver-rules={host_resolver_rules(https_port)}"]


_FRONTS: dict[str, int] = {}


def https_front_port(emulator_url: str) -> int:
    """A TLS front for `emulator_url` on a free local port, one per process and emulator."""
    if emulator_url not in _FRONTS:

        relays = RelayThread()
        bound = relays.add("tcp:127.0.0.1:0", emulator_address(emulator_url),
                           ensure_certificates().server_context())
        _FRONTS[emulator_url] = port_of(bound)
    return _FRONTS[emulator_url]


def launch_options(sandbox: object = None, emulator_url: str | None = None,
                   chromium: str = "/usr/bin/chromium") -> dict[str, object]:
    """Keyword arguments for Playwright's `chromium.launch()` so the browser reaches the
    local Stripe by Stripe's host names:

    - a bubblewrap sandbox: Chromium runs inside it (same localhost as the agent's code,
      Stripe hosts routed by the sandbox when it routes);
    - otherwise, with `emulator_url`: Chromium runs here and Stripe hosts map to a TLS
      front for that emulator;
    - neither: plain Chromium (Stripe hosts unrouted)."""
    launcher = getattr(sandbox, "chromium_launcher", None)
    if launcher is not None:  # inside the sandbox, never on the host beside it
        if getattr(sandbox, "routing", None) is None:
            return {"executable_path": str(launcher(chromium)), "args": list(BASE_ARGS)}
        env = getattr(sandbox, "env", {})
        return {"executable_path": str(launcher(chromium)),
                "args": [*BASE_ARGS, *chromium_args(env.get("STRIPEBENCH_SPKI"))]}
    if emulator_url:
        return {"executable_path": chromium,
                "args": [*BASE_ARGS, *chromium_args(https_port=https_front_port(emulator_url))]}
    return {"executable_path": chromium, "args": list(BASE_ARGS)}
