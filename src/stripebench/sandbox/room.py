"""The bubblewrap room's shape, as argument lists: namespaces, mounts, sizes, entering.

Pure functions, no processes started: `routing.bwrap.BubblewrapSandbox` runs what they
build (and adds the Stripe-host routing on top). What the room sees:

- its own mount, pid, network, ipc and uts namespaces (`--unshare-all`), a user
  namespace too when the harness is not root;
- /usr and the other system directories, /etc (read-only, secrets masked, a private
  /etc/hosts), the shared read-only trees (Python, the venv, node_modules, the offline
  caches);
- the workdir read-write at its host path; the run directory read-only at INSIDE with its
  socket folder read-write;
- /tmp, /dev/shm, /run, /home, /root and /var/tmp as tmpfs folders, each of a fixed size
  and inode count (`Limits`);

and every mount a command can write is `nosuid,nodev` (bwrap's binds and tmpfs folders
are; `writable_mounts_without_nosuid` checks a room's mount table for the tests): a file
with set-id bits or file capabilities planted there gives nobody anything inside.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

from .base import as_unprivileged
from .limits import Limits

INSIDE = "/run/stripebench"         # the run directory as the sandbox sees it
HOME = "/home/agent"
# Masked inside the sandbox even though /etc is visible.
ETC_SECRETS = ("shadow", "shadow-", "gshadow", "gshadow-", "sudoers", "sudoers.d",
               "ssl/private", "ssh", "security/opasswd", "pip.conf", "npmrc", "netrc",
               "docker", "containerd", "kubernetes", "machine-id")
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Kernel knobs under /proc that uid 0 may write without any capability (the files are
# root-owned): kernel.core_pattern runs a program as host root on the next crash,
# sysrq-trigger reboots the machine. They are bind-mounted read-only over every /proc
# the sandbox mounts; a read-only bind carried into a namespace is locked, and a /proc
# with covered parts cannot be mounted afresh, so nothing inside can undo it.
PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs")
PROC_READ_ONLY_SCRIPT = " && ".join(
    f'{{ [ ! -e /proc/{name} ] || {{ mount --bind /proc/{name} /proc/{name} && '
    f'mount -o remount,bind,ro,nosuid,nodev,noexec /proc/{name}; }}; }}'
    for name in PROC_READ_ONLY)
# The tmpfs folders of the room, in mount order (/home before its agent folder).
TMPFS_DIRS = ("/dev/shm", "/tmp", "/var/tmp", "/run", "/home", "/root")


def system_args() -> list[str]:
    """The host's system directories and /etc, read-only, with /etc's secrets masked."""
    args: list[str] = []
    for d in SYSTEM_DIRS:
        p = Path(d)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), d]
        elif p.is_dir():
            args += ["--ro-bind", d, d]
    args += ["--ro-bind", "/etc", "/etc"]
    for name in ETC_SECRETS:
        target = Path("/etc") / name
        if target.is_dir() and not target.is_symlink():
            args += ["--tmpfs", str(target), "--remount-ro", str(target)]
        elif target.exists():
            args += ["--ro-bind", "/dev/null", str(target)]
    return args


def tmpfs_args(limits: Limits) -> list[str]:
    """/proc, /dev and the room's tmpfs folders, each capped in size (bwrap's `--size`
    applies to the next `--tmpfs`); their inode counts are set by `tmpfs_limit_script`."""
    args = ["--proc", "/proc", "--dev", "/dev"]
    for folder in TMPFS_DIRS:
        args += ["--size", str(limits.tmpfs_bytes[folder]), "--tmpfs", folder]
        if folder == "/home":
            args += ["--dir", HOME]
    return args


def tmpfs_limit_script(limits: Limits) -> str:
    """Shell run once in the room's mount namespace (with the harness's capabilities):
    each tmpfs folder gets its inode cap, which bwrap cannot set. Run before any command
    of the agent; a remount needs CAP_SYS_ADMIN, which no command inside holds."""
    return " && ".join(
        f"mount -o remount,nosuid,nodev,size={limits.tmpfs_bytes[folder]},"
        f"nr_inodes={limits.tmpfs_inodes} {folder}" for folder in TMPFS_DIRS)


def namespace_args(hostname: str = "sandbox") -> list[str]:
    """Every namespace of its own. --as-pid-1: the holder's command is the namespace's
    init, which signals from inside cannot kill."""
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--as-pid-1",
            "--hostname", hostname]
    if os.geteuid() != 0:
        # Unprivileged: in a user namespace, as its root, so the relay may take port
        # 443 there; files written to the workdir still belong to the real user.
        args += ["--unshare-user", "--uid", "0", "--gid", "0"]
    return args


def room_args(*, workdir: Path, shared: Sequence[Path], rundir_inside: Path, sockets: Path,
              limits: Limits, extra: Sequence[str] = ()) -> list[str]:
    """bwrap's arguments for a room over `workdir` (before `--` and the command).
    `extra`: more mounts (the routing's hosts file, CA bundles), placed after the workdir
    so they may cover files in it."""
    args = [*namespace_args(), *system_args(), *tmpfs_args(limits)]
    for tree in shared:
        if tree.exists():
            args += ["--ro-bind", str(tree), str(tree)]
    args += ["--bind", str(workdir), str(workdir)]
    args += ["--ro-bind", str(rundir_inside), INSIDE, "--bind", str(sockets), f"{INSIDE}/sock"]
    args += [*extra, "--chdir", str(workdir)]
    return args


def enter_prefix(ns_pid: int, enter_user: bool, *, mount_only: bool = False) -> list[str]:
    """nsenter into the room whose init is `ns_pid` (all its namespaces, or only its
    mount namespace)."""
    enter = ["nsenter", "-t", str(ns_pid), "-m"]
    if not mount_only:
        enter += ["-n", "-p", "-i", "-u"]
    if enter_user:
        enter += ["-U", "--preserve-credentials"]
    return enter


def drop_privileges(unprivileged: bool = False) -> list[str]:
    """The last step before a command inside: no capabilities, none to gain (setpriv);
    `unprivileged` first moves it to uid 65534 in a user namespace of its own."""
    return [*(as_unprivileged() if unprivileged else []),
            "setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--"]


def enter_argv(argv: Sequence[str], *, ns_pid: int, enter_user: bool, where: str,
               hide: Sequence[str] = (), read_only: str | None = None,
               writable: Sequence[str] = (), unprivileged: bool = False,
               join: Sequence[str] = ()) -> list[str]:
    """argv that runs `argv` inside the room, in `where`, capabilities dropped.

    `join`: a prefix run first, on the host (the room's cgroup, see cgroups.join_argv), so
    the command and all it forks are counted and killed with the room.
    `hide`: directories the command must not reach; `read_only`: a directory it sees
    read-only, except the folders `writable` below it. With either, it runs in mount and
    pid namespaces of its own (same network): each hidden directory is covered by an
    empty read-only tmpfs, the read-only one is re-bound read-only, none of which it can
    undo without capabilities, and it sees none of the room's other processes. Its pid
    namespace dies with it: when the command (the namespace's init) exits, or
    `unshare` is killed (--kill-child), the kernel kills everything it forked.
    `unprivileged`: run as uid 65534 in a user namespace of its own, not as root."""
    enter = [*join, *enter_prefix(ns_pid, enter_user)]
    drop = drop_privileges(unprivileged)
    if not hide and read_only is None:
        return [*enter, "-r", "-w", "--", *drop, "/bin/sh", "-c", 'cd "$0" && exec "$@"',
                where, *argv]
    steps = [PROC_READ_ONLY_SCRIPT]
    steps += [f"mount -t tmpfs -o ro,nosuid,nodev,size=4k,mode=000 hidden {shlex.quote(h)}"
              for h in hide]
    if read_only is not None:
        steps += read_only_script(read_only, writable)
    script = " && ".join(steps) + ' && cd "$0" && exec "$@"'
    return [*enter, "-r", "-w", "--", "unshare", "-m", "-p", "-f", "--kill-child",
            "--mount-proc", "--propagation", "private", "--", "/bin/sh", "-c", script,
            where, *drop, *argv]


def read_only_script(folder: str, writable: Sequence[str]) -> list[str]:
    """Shell steps making `folder` read-only but for its sub-folders `writable` (names
    relative to it). A writable folder must be a real directory of `folder`, not a
    symlink leading elsewhere (`realpath` must give back the same path); one that is
    not stays read-only like the rest."""
    top = shlex.quote(folder)
    steps = []
    for name in writable:
        path = shlex.quote(str(Path(folder) / name))
        steps.append(f'{{ ! [ -d {path} ] || [ "$(realpath -e {path})" != {path} ] || '
                     f"mount --bind {path} {path}; }}")
    # --rbind keeps the writable binds below it; the remount reaches only the top mount
    steps += [f"mount --rbind {top} {top}",
              f"mount -o remount,bind,ro,nosuid,nodev {top}"]
    return steps


def writable_mounts_without_nosuid(mountinfo: str) -> list[str]:
    """Mount points in a /proc/PID/mountinfo text that are writable but lack nosuid
    (where a planted set-id file or file capability would take effect)."""
    found = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if len(fields) < 6:
            continue
        point, options = fields[4], set(fields[5].split(","))
        if "rw" in options and "nosuid" not in options:
            found.append(point)
    return found


def quote(argv: Sequence[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)
