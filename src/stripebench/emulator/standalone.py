"""What `stripebench emulator serve` adds for someone developing their own integration
against the emulator: the listening socket bound before anything is printed (a busy port
is one line, not a claim to listen followed by uvicorn's traceback), fixed keys (an app's
`.env` keeps working across restarts) and fixtures loaded at start, in the shape of the
Stripe CLI's fixture files.

None of this is used by the harness: a trial's emulator keeps random keys and has no
fixtures of this kind (see landing.py for the page, which trials never reach either).
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import re
import socket
from pathlib import Path
from typing import Any

from .account import Account
from .app import EmulatorApp
from .forms import encode
from .http import Request

KEY_PREFIXES = {"secret": ("sk_test_",), "publishable": ("pk_test_",)}
_REFERENCE = re.compile(r"\$\{([^}:]+):([^}]*)\}")


class StandaloneError(ValueError):
    """Something the user asked for that cannot be done; the message says what to do."""


def bind(host: str, port: int, option: str = "--port") -> socket.socket:
    """A listening socket on host:port, or StandaloneError naming the port and the way
    out (before anything claims to listen)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise StandaloneError(
                f"port {port} on {host} is already in use (another emulator? `ss -ltnp "
                f"'sport = :{port}'` shows the process); stop it or choose another port "
                f"with {option} N") from None
        if exc.errno == errno.EACCES:
            raise StandaloneError(f"no permission to listen on port {port}; choose a port "
                                  f"above 1023 with {option} N") from None
        raise StandaloneError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.set_inheritable(False)
    return sock


def check_key(kind: str, key: str) -> None:
    prefixes = KEY_PREFIXES[kind]
    if not key.startswith(prefixes) or len(key) < len(prefixes[0]) + 8 \
            or not re.fullmatch(r"[A-Za-z0-9_]+", key):
        raise StandaloneError(f"--{'api-key' if kind == 'secret' else 'publishable-key'} "
                              f"must look like {prefixes[0]}... (letters, digits and _ , "
                              f"at least 8 after the prefix): got {key[:12]!r}")


def fix_keys(app: EmulatorApp, account: Account, secret: str | None,
             publishable: str | None) -> None:
    """Give the default account these keys (the random ones stop working)."""
    store = app.store
    for kind, key in (("secret", secret), ("publishable", publishable)):
        if key is None:
            continue
        check_key(kind, key)
        owner = store.keys.get(key)
        if owner is not None and owner[0] is not account:
            raise StandaloneError(f"the key {key[:12]}... belongs to account {owner[0].id}")
        attribute = "secret_key" if kind == "secret" else "publishable_key"
        store.keys.pop(getattr(account, attribute), None)
        setattr(account, attribute, key)
        store.keys[key] = (account, kind)
    store.touch(account)
    store.flush()


def _lookup(made: dict[str, Any], name: str, path: str) -> Any:
    if name == ".env":
        variable, _, default = path.partition("|")
        return os.environ.get(variable, default)
    if name not in made:
        raise StandaloneError(f"fixture reference ${{{name}:{path}}}: no earlier fixture "
                              f"named {name!r}")
    value: Any = made[name]
    for part in [p for p in re.split(r"[.\[\]]", path) if p]:
        try:
            value = value[int(part)] if isinstance(value, list) else value[part]
        except (KeyError, IndexError, ValueError, TypeError):
            raise StandaloneError(f"fixture reference ${{{name}:{path}}}: {name!r} has no "
                                  f"{path}") from None
    return value


def _resolve(value: Any, made: dict[str, Any]) -> Any:
    if isinstance(value, dict):
        return {k: _resolve(v, made) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, made) for v in value]
    if isinstance(value, str):
        whole = _REFERENCE.fullmatch(value)
        if whole:
            return _lookup(made, whole.group(1), whole.group(2))
        return _REFERENCE.sub(lambda m: str(_lookup(made, m.group(1), m.group(2))), value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def load_fixtures(app: EmulatorApp, account: Account, path: Path) -> list[str]:
    """Apply a Stripe CLI fixture file ({"fixtures": [{"name", "path", "method",
    "params"}]}, `${name:field.path}` and `${.env:VAR}` references) to the account
    through its own API; returns one line per request made."""
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise StandaloneError(f"cannot read fixtures {path}: {exc}") from None
    fixtures = document.get("fixtures") if isinstance(document, dict) else None
    if not isinstance(fixtures, list):
        raise StandaloneError(f"{path}: a fixture file is a JSON object with a "
                              "\"fixtures\" list (the Stripe CLI's shape)")
    made: dict[str, Any] = {}
    lines = []
    for number, fixture in enumerate(fixtures, 1):
        if not isinstance(fixture, dict) or "path" not in fixture:
            raise StandaloneError(f"{path}: fixture {number} has no \"path\"")
        name = str(fixture.get("name") or f"fixture_{number}")
        method = str(fixture.get("method", "post")).upper()
        api_path = str(_resolve(fixture["path"], made))
        params = _resolve(fixture.get("params") or {}, made)
        body = encode(params).encode() if method == "POST" else b""
        query = encode(params) if method != "POST" else ""
        request = Request(method=method, path=api_path, query=query, body=body,
                          host="api.stripe.com",
                          headers={"authorization": f"Bearer {account.secret_key}",
                                   "content-type": "application/x-www-form-urlencoded",
                                   "user-agent": "stripebench emulator serve --fixtures"})
        response = asyncio.run(app.handle(request))
        try:
            answer = json.loads(response.body)
        except ValueError:
            answer = {}
        if response.status >= 400:
            message = (answer.get("error") or {}).get("message", response.body[:200])
            raise StandaloneError(f"{path}: fixture {name!r} ({method} {api_path}) failed "
                                  f"with {response.status}: {message}")
        made[name] = answer
        lines.append(f"{name}: {method} {api_path} → {answer.get('id', response.status)}")
    return lines
