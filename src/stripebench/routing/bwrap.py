"""The bubblewrap sandbox: a trial's private namespaces (mount, pid, net, ipc, uts)."""

from __future__ import annotations

import functools
import shutil
import subprocess


@functools.cache
def bwrap_works() -> bool:
    """bwrap is installed and may create the namespaces (root or user namespaces)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return False
    try:
        probe = subprocess.run([exe, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid",
                                "--die-with-parent", "true"], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0
