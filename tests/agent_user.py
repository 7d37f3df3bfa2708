"""A throwaway unprivileged user for tests that need the agent to be someone other than
root (a Harbor container's `agent`): a system user of its own per checkout, made once
with useradd and kept, with no login, no home and no processes of anyone else's. Tests
that kill every process of the agent's user must never play it with a shared account
such as `nobody`."""

from __future__ import annotations

import hashlib
import pwd
import subprocess

from paths import REPO


def throwaway_user() -> pwd.struct_passwd:
    name = "sbv-" + hashlib.sha256(str(REPO).encode()).hexdigest()[:8]
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    done = subprocess.run(["useradd", "--system", "--user-group", "--no-create-home",
                           "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
                           name], capture_output=True, text=True)
    assert done.returncode in (0, 9), done.stderr   # 9: made meanwhile by another run
    return pwd.getpwnam(name)
