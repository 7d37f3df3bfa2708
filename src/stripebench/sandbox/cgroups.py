"""One control group per sandbox: its processes counted, its memory capped, killed as one.

Every process that enters a sandbox (its namespace holder, each command, each service,
the browser the harness starts in it) first writes its own pid into the group's
`cgroup.procs` files and only then execs what it was asked to run (`join_argv`), so
nothing of the sandbox ever runs outside the group, and whatever it forks stays in.

Two layouts are supported:

- cgroup v1 (this machine kind): the `pids`, `memory` and `freezer` hierarchies, each
  with a `stripebench/<harness pid>-<random>` group below the harness's own group;
- cgroup v2 (one unified tree with `pids` and `memory` delegated to the harness's group):
  the same group in that tree, killed through `cgroup.kill`.

Without either (no write access to /sys/fs/cgroup, say), `Cgroup.create` raises
`CgroupUnavailable` saying why; the sandbox then runs unbounded and the trial records it.
Nothing inside a sandbox can leave its group: /sys is not mounted there, and no process
inside holds a capability in the host's namespaces.
"""

from __future__ import annotations

import errno
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from .limits import Limits, size_text

ROOT = Path("/sys/fs/cgroup")
PARENT = "stripebench"
V1_CONTROLLERS = ("pids", "memory", "freezer")
# The shell prefix: join every group named before `--`, then become the command.
JOIN_SCRIPT = ('for f do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; '
               'shift; exec "$@"')


def join_prefix(procs_files: list[str]) -> list[str]:
    """Prefix for an argv: the process writes its pid into each of `procs_files` (one
    group's `cgroup.procs` per hierarchy), then execs the argv."""
    return ["/bin/sh", "-c", JOIN_SCRIPT, "cgroup-join", *procs_files, "--"]


class CgroupUnavailable(RuntimeError):
    """No control group can be made here (the message says why)."""


def own_groups(proc_cgroup: str | None = None) -> dict[str, str]:
    """This process's group per controller ("" for the v2 tree), from /proc/self/cgroup."""
    text = proc_cgroup if proc_cgroup is not None else \
        Path("/proc/self/cgroup").read_text()
    found: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(",") if parts[1] else [""]:
            found[controller] = parts[2]
    return found


@dataclass
class Cgroup:
    version: int
    dirs: dict[str, Path]      # controller ("" on v2) -> the group's directory
    limits: Limits

    # ------------------------------------------------------------------ making

    @classmethod
    def create(cls, limits: Limits) -> Cgroup:
        """A fresh group with `limits` applied. Raises CgroupUnavailable."""
        name = f"{os.getpid()}-{secrets.token_hex(4)}"
        groups = own_groups()
        reasons = []
        for make in (cls._v1, cls._v2):
            try:
                return make(groups, name, limits)
            except CgroupUnavailable as exc:
                reasons.append(str(exc))
        raise CgroupUnavailable("; ".join(reasons))

    @classmethod
    def _v1(cls, groups: dict[str, str], name: str, limits: Limits) -> Cgroup:
        missing = [c for c in ("pids", "memory") if not (ROOT / c / "cgroup.procs").is_file()]
        if missing:
            raise CgroupUnavailable(f"cgroup v1: no {' or '.join(missing)} hierarchy "
                                    f"under {ROOT}")
        dirs: dict[str, Path] = {}
        try:
            for controller in V1_CONTROLLERS:
                mount = ROOT / controller
                if not (mount / "cgroup.procs").is_file():
                    continue  # the freezer is optional: killing then loops instead
                parent = mount / groups.get(controller, "/").lstrip("/") / PARENT
                parent.mkdir(parents=True, exist_ok=True)
                _sweep(parent)
                (parent / name).mkdir()
                dirs[controller] = parent / name
            made = cls(1, dirs, limits)
            _write(dirs["pids"] / "pids.max", str(limits.pids))
            _write(dirs["memory"] / "memory.limit_in_bytes", str(limits.memory_bytes))
            memsw = dirs["memory"] / "memory.memsw.limit_in_bytes"
            if memsw.exists():  # no swapping out of the limit either
                _write(memsw, str(limits.memory_bytes))
            return made
        except OSError as exc:
            for folder in dirs.values():
                _rmdir(folder)
            raise CgroupUnavailable(f"cgroup v1: {exc.strerror or exc} "
                                    f"({exc.filename})") from None

    @classmethod
    def _v2(cls, groups: dict[str, str], name: str, limits: Limits) -> Cgroup:
        if not (ROOT / "cgroup.controllers").is_file() or "" not in groups:
            raise CgroupUnavailable(f"cgroup v2: {ROOT} is not a unified tree")
        own = ROOT / groups[""].lstrip("/")
        parent = own / PARENT
        made: Path | None = None
        try:
            parent.mkdir(exist_ok=True)
            wanted = {"pids", "memory"}
            if not wanted <= set((parent / "cgroup.controllers").read_text().split()):
                raise CgroupUnavailable(f"cgroup v2: pids and memory are not delegated to "
                                        f"{own}")
            _write(parent / "cgroup.subtree_control", "+pids +memory")
            _sweep(parent)
            made = parent / name
            made.mkdir()
            _write(made / "pids.max", str(limits.pids))
            _write(made / "memory.max", str(limits.memory_bytes))
            if (made / "memory.swap.max").exists():
                _write(made / "memory.swap.max", "0")
            return cls(2, {"": made}, limits)
        except OSError as exc:
            if made is not None:
                _rmdir(made)
            raise CgroupUnavailable(f"cgroup v2: {exc.strerror or exc} "
                                    f"({exc.filename})") from None

    # ------------------------------------------------------------------ using

    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs.values()]

    def join_argv(self) -> list[str]:
        """Prefix for an argv: the process joins this group, then execs the argv."""
        return join_prefix(self.procs_files())

    def pids(self) -> list[int]:
        first = next(iter(self.dirs.values()))
        try:
            return [int(p) for p in (first / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def breaches(self) -> list[str]:
        """The limits this group hit so far, in words (empty: none)."""
        found = []
        events = self._file("pids", "pids.events")
        refused = _counter(events, "max")
        if refused:
            found.append(f"processes: {refused} forks refused at the limit of "
                         f"{self.limits.pids}")
        memory = self._file("memory", "memory.oom_control" if self.version == 1
                            else "memory.events")
        killed = _counter(memory, "oom_kill")
        if killed:
            found.append(f"memory: {killed} process(es) killed out of memory at the limit "
                         f"of {size_text(self.limits.memory_bytes)}")
        return found

    def _file(self, controller: str, name: str) -> str:
        folder = self.dirs.get(controller if self.version == 1 else "")
        try:
            return (folder / name).read_text() if folder else ""
        except OSError:
            return ""

    # ------------------------------------------------------------------ ending

    def kill(self, timeout: float = 10) -> int:
        """Kill every process in the group, as one: frozen first (nothing forks while
        the list is read), then SIGKILL, then thawed so the kills land. Returns how many
        processes were killed."""
        killed: set[int] = set()
        deadline = time.monotonic() + timeout
        if self.version == 2 and (self.dirs[""] / "cgroup.kill").exists():
            killed.update(self.pids())
            _try_write(self.dirs[""] / "cgroup.kill", "1")
        while (left := self.pids()) and time.monotonic() < deadline:
            frozen = self._freeze(True)
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.add(pid)
                except OSError:
                    pass
            if frozen:
                self._freeze(False)
            time.sleep(0.01)
        return len(killed)

    def _freeze(self, frozen: bool) -> bool:
        if self.version == 2:
            target = self.dirs[""] / "cgroup.freeze"
            return _try_write(target, "1" if frozen else "0")
        folder = self.dirs.get("freezer")
        if folder is None:
            return False
        state = "FROZEN" if frozen else "THAWED"
        if not _try_write(folder / "freezer.state", state):
            return False
        deadline = time.monotonic() + 2
        while frozen and time.monotonic() < deadline:
            try:
                if (folder / "freezer.state").read_text().strip() == state:
                    break
            except OSError:
                break
            time.sleep(0.005)
        return True

    def remove(self) -> None:
        """Kill what is left and delete the group's directories."""
        self.kill()
        for folder in self.dirs.values():
            _rmdir(folder)


def _counter(text: str, key: str) -> int:
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key and parts[1].isdigit():
            return int(parts[1])
    return 0


def _write(path: Path, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _try_write(path: Path, value: str) -> bool:
    try:
        _write(path, value)
        return True
    except OSError:
        return False


def _rmdir(folder: Path) -> None:
    for _ in range(50):
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                return
            time.sleep(0.02)  # the last killed process is still being reaped


def _sweep(parent: Path) -> None:
    """Remove the groups of harnesses that died without removing them."""
    try:
        entries = list(parent.iterdir())
    except OSError:
        return
    for entry in entries:
        owner = entry.name.split("-", 1)[0]
        if not entry.is_dir() or not owner.isdigit() or Path(f"/proc/{owner}").exists():
            continue
        try:
            for pid in (entry / "cgroup.procs").read_text().split():
                os.kill(int(pid), signal.SIGKILL)
        except (OSError, ValueError):
            pass
        _rmdir(entry)
