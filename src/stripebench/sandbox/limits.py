"""How much of the machine one sandbox may take, and how a breach is told.

Everything here runs as root, so per-uid rlimits cannot tell trials apart. Each limit is
held by a mechanism of its own (docs/harness.md, "Limits"):

- processes and threads: the sandbox's cgroup, `pids.max` (cgroups.py);
- memory, including what its tmpfs folders hold: the cgroup's memory limit; the kernel's
  OOM killer then picks a process of that sandbox, never the emulator or a neighbour;
- each tmpfs of the sandbox (/tmp, /dev/shm, /run, /home, /root, /var/tmp): its own size
  and inode count (mounts.py);
- the workdir: a filesystem image of its own with a fixed size and inode count (disk.py);
- time: the agent's, the services' and the grader's timeouts; at stop the cgroup is frozen
  and killed as a unit, so a process that ignores SIGTERM (or forks on) dies all the same.

The sizes: the machine has 24 GiB of memory, 2 cores and a pid_max of 32768 shared by a
run's parallel trials (two sandboxes each at most at once: the agent's, then the
grader's). A task's heaviest honest work (Chromium with a Node or Java server, a Maven
build copying its 80 MB repository into /tmp, a Go build cache of 200 MB in the workdir)
fits well inside them; eight sandboxes at these limits still leave the host pids and
memory of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB


def _tmpfs_sizes() -> dict[str, int]:
    return {"/tmp": 1 * GiB, "/dev/shm": 256 * MiB, "/run": 16 * MiB, "/home": 512 * MiB,
            "/root": 64 * MiB, "/var/tmp": 256 * MiB}


@dataclass(frozen=True)
class Limits:
    """One sandbox's share. Tests pass small ones; runs use the defaults."""

    pids: int = 2048                       # tasks (processes and threads) at once
    memory_bytes: int = 4 * GiB            # resident memory, page cache and tmpfs pages
    tmpfs_bytes: dict[str, int] = field(default_factory=_tmpfs_sizes)
    tmpfs_inodes: int = 65536              # files per tmpfs folder
    workdir_bytes: int = 4 * GiB           # the workdir's filesystem image
    workdir_inodes: int = 262144           # files in the workdir (node_modules: ~30k)

    def describe(self) -> dict[str, object]:
        """What a trial records about the limits it ran under."""
        return {"pids": self.pids, "memory_bytes": self.memory_bytes,
                "tmpfs_bytes": dict(self.tmpfs_bytes), "tmpfs_inodes": self.tmpfs_inodes,
                "workdir_bytes": self.workdir_bytes, "workdir_inodes": self.workdir_inodes}


DEFAULT_LIMITS = Limits()

# The status a trial gets when any of its sandboxes hit a limit: counted 0, never retried
# (the agent's code did it, not the harness).
LIMIT_BREACHED = "limit_breached"


def size_text(size: int) -> str:
    for unit, name in ((GiB, "GiB"), (MiB, "MiB"), (KiB, "KiB")):
        if size >= unit and size % unit == 0:
            return f"{size // unit} {name}"
    return f"{size} bytes"
