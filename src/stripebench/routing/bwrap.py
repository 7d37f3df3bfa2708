"""The bubblewrap sandbox: one trial's private namespaces (mount, pid, net, ipc, uts).

Shape of a sandbox:

- one long-lived `bwrap` process per trial holds the namespaces. Its command is the relay
  (`relay.py`), listening on 127.0.0.1:443 inside and forwarding to the emulator's TLS
  front through a unix socket bind-mounted from the harness's run directory;
- every `exec` / service enters those namespaces with `nsenter` and drops all
  capabilities with `setpriv`, so commands share one loopback network (a server started
  by one command is reachable from the next) and one process tree;
- `stop()` kills the holder: the namespace's init dies and the kernel kills every process
  left in it (`--unshare-pid`); `--die-with-parent` does the same if the harness dies.

What the sandbox sees: the workdir (read-write, at its host path), /usr and the other
system directories, /etc (read-only, secrets masked, a private /etc/hosts), the Python
installation, the repository's .venv, node_modules, wheelhouse, npm cache, Go module cache
and Maven repository (read-only), a tmpfs /tmp and home. Nothing else of the host: not the
task's tests/ or solution/, not other trials, not the user's home. The network namespace
has only loopback.
"""

from __future__ import annotations

import functools
import json
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import stripebench

from ..emulator.tls import Certificates, ensure_certificates
from ..emulator.web import STRIPE_HOSTS
from ..sandbox import safe_files
from ..sandbox.base import (
    ExecResult,
    SandboxError,
    WorkdirFiles,
    end_processes,
    go_module_cache,
    kill_group,
    maven_repository,
    npm_cache,
    open_service_log,
    run_captured,
    service_log_tail,
    shell_argv,
    tail,
    wheelhouse,
)
from ..sandbox.cgroups import Cgroup, CgroupUnavailable
from ..sandbox.limits import DEFAULT_LIMITS, Limits
from ..sandbox.room import (
    HOME,
    INSIDE,
    PROC_READ_ONLY_SCRIPT,
    SYSTEM_DIRS,
    enter_argv,
    enter_prefix,
    room_args,
    tmpfs_limit_script,
)
from . import relay
from .env import Keys, TrustFiles, routed_env
from .front import RelayThread, emulator_address
from .ports import PortBridges

# CA bundles that libraries pin instead of reading SSL_CERT_FILE; ours is mounted on top.
PINNED_BUNDLES = ("stripe/data/ca-certificates.crt", "certifi/cacert.pem",
                  "lib/data/ca-certificates.crt")
START_TIMEOUT = 20.0
RUNDIR_PREFIX = "stripebench-sandbox-"


@functools.cache
def bwrap_works() -> bool:
    """bwrap is installed and may create the namespaces (root or user namespaces)."""
    exe = shutil.which("bwrap")
    if exe is None or shutil.which("nsenter") is None:
        return False
    try:
        probe = subprocess.run([exe, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid",
                                "--die-with-parent", "true"], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


@dataclass(frozen=True)
class Routing:
    """Route Stripe's hosts to this emulator (its plain HTTP address), with these keys."""

    emulator_url: str
    keys: Keys = Keys()


def repo_root() -> Path:
    return Path(stripebench.__file__).resolve().parents[2]


def package_source() -> Path:
    """The directory holding the `stripebench` package (src/ in a checkout)."""
    return Path(stripebench.__file__).resolve().parents[1]


def default_shared() -> list[Path]:
    """Read-only trees tools need: the Python install, the venv, the repo's node_modules."""
    shared = {Path(sys.base_prefix).resolve(), Path(sys.prefix)}
    # site-packages a .pth of the venv adds (a venv layered over another one's packages)
    shared |= {Path(entry).resolve() for entry in sys.path
               if entry.endswith("site-packages") and Path(entry).is_dir()}
    modules = repo_root() / "node_modules"
    if modules.is_dir():
        shared.add(modules)
    for offline in (wheelhouse(), npm_cache(), go_module_cache(), maven_repository()):
        if offline is not None:
            shared.add(offline)
    return sorted(p for p in shared if not _under_system(p))


def _under_system(path: Path) -> bool:
    return any(path == Path(d) or Path(d) in path.parents for d in SYSTEM_DIRS)


class BubblewrapSandbox(PortBridges, WorkdirFiles):
    def __init__(self, workdir: Path | str, env: dict[str, str] | None = None, *,
                 routing: Routing | None = None, shared: Sequence[Path | str] | None = None,
                 extra_ro: Iterable[Path | str] = (), certificates: Certificates | None = None,
                 share_package: bool = False, limits: Limits = DEFAULT_LIMITS,
                 clear_on_stop: bool = True, binds: Sequence[tuple[Path, str]] = (),
                 cgroup: Cgroup | None = None, sockets: Path | None = None,
                 forwards: Mapping[int, str] | None = None,
                 port_sockets: Sequence[int] = ()) -> None:
        """`share_package`: also mount stripebench's own source read-only (graders import
        `stripebench.grading`; an agent's sandbox does not need it). `limits`: its
        processes, memory and tmpfs sizes (held by a cgroup of its own where this
        machine allows one: `self.unbounded` says why not otherwise). `clear_on_stop`:
        stop() clears set-id bits and file capabilities in the workdir (a trial, which
        does that once at its teardown, turns it off). `binds`: more host folders
        mounted read-write, each at the path given (the grading room's sealed folder).
        `cgroup`: join this group (another sandbox's) instead of making one: one set of
        limits holds for both, and its owner reads, kills and removes it. `sockets`: the
        host folder to use as its socket folder (made here, removed at stop; a side
        room's lies in the grading room's). From the start, its holder carries
        `forwards`, {port: address inside}, and the sockets of `port_sockets` (see
        routing.ports)."""
        if not bwrap_works():
            raise SandboxError("bubblewrap cannot create namespaces here (needs root or "
                               "unprivileged user namespaces); use the local sandbox")
        self.workdir = Path(workdir).resolve()
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.routing = routing
        self.shared = [Path(p) for p in (shared if shared is not None else default_shared())]
        self.shared += [Path(p) for p in extra_ro]
        if share_package:
            self.shared.append(package_source())
        _sweep_abandoned()
        self.rundir = Path(tempfile.mkdtemp(prefix=RUNDIR_PREFIX))
        self.inside = self.rundir / "inside"      # bound at INSIDE
        (self.inside / "sock").mkdir(parents=True)  # where the socket folder is bound
        self._own_sockets = sockets is None       # bound read-write (unix sockets)
        self.sockets = self.inside / "sock" if sockets is None else Path(sockets)
        self.sockets.mkdir(parents=True, exist_ok=self._own_sockets)
        self._groups: set[int] = set()
        self._services: dict[str, subprocess.Popen[bytes]] = {}
        self._relays: RelayThread | None = None
        self._exposed: dict[int, int] = {}
        self._port_sockets: set[int] = set()
        self.forwards = dict(forwards or {})
        self.port_sockets = list(port_sockets)
        self._holder: subprocess.Popen[bytes] | None = None
        self.limits = limits
        self.cgroup: Cgroup | None = cgroup
        self._own_cgroup = cgroup is None
        self.unbounded: str | None = None      # why no cgroup holds it, if none does
        self.breaches: list[str] = []          # limits it hit (read after stop)
        self.cleared: list[str] = []           # set-id / capability files stop() cleared
        self.killed_at_stop = 0                # processes still running at stop()
        self.clear_on_stop = clear_on_stop
        self.binds = [(Path(host), inside) for host, inside in binds]
        self._certs = certificates or (ensure_certificates() if routing else None)
        given = dict(env or {})
        if routing is not None and routing.keys.secret_key is None:
            self.routing = Routing(routing.emulator_url, Keys(
                given.get("STRIPE_SECRET_KEY"), given.get("STRIPE_PUBLISHABLE_KEY")))
        # Routing wins over given values: an emulator address from outside (say
        # STRIPE_API_BASE=http://127.0.0.1:12111) is unreachable in here.
        self.env = self._base_env() | given | self._routing_env()
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    # ------------------------------------------------------------------ start

    def _base_env(self) -> dict[str, str]:
        path = [str(Path(sys.prefix) / "bin")]
        modules = repo_root() / "node_modules"
        if modules in self.shared:
            path.append(str(modules / ".bin"))
        path += ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        env = {"PATH": ":".join(path), "HOME": HOME, "USER": "agent", "LANG": "C.UTF-8",
               "TERM": "dumb", "TMPDIR": "/tmp", "STRIPEBENCH_SANDBOX": "bwrap"}
        if modules in self.shared:
            env["NODE_PATH"] = str(modules)
        return env

    def _routing_env(self) -> dict[str, str]:
        if self.routing is None or self._certs is None:
            return {}
        trust = TrustFiles(bundle=f"{INSIDE}/bundle.pem", ca=f"{INSIDE}/ca.pem",
                           truststore=f"{INSIDE}/truststore.p12"
                           if self._certs.truststore else None, spki=self._certs.spki)
        return routed_env(trust, self.routing.keys)

    def _prepare_run_dir(self) -> None:
        hosts = ["127.0.0.1 localhost sandbox", "::1 localhost ip6-localhost"]
        if self.routing is not None:
            hosts.append("127.0.0.1 " + " ".join(STRIPE_HOSTS))
        (self.inside / "hosts").write_text("\n".join(hosts) + "\n")
        shutil.copy(relay.__file__, self.inside / "relay.py")
        if self._certs is not None:
            shutil.copy(self._certs.bundle, self.inside / "bundle.pem")
            shutil.copy(self._certs.ca_cert, self.inside / "ca.pem")
            if self._certs.truststore:
                shutil.copy(self._certs.truststore, self.inside / "truststore.p12")
        self._chromium_flags_dir()

    def _chromium_flags_dir(self) -> None:
        """Debian's /usr/bin/chromium sources /etc/chromium.d/*: a copy of that directory
        with one more file makes every Chromium started in the sandbox -- by code that
        knows nothing of us, e.g. Playwright with only --headless -- accept our
        certificates (Chromium ignores SSL_CERT_FILE)."""
        system = Path("/etc/chromium.d")
        if self._certs is None or not system.is_dir():
            return
        target = self.inside / "chromium.d"
        shutil.copytree(system, target, symlinks=True)
        # CHROMIUM_FLAGS is word-split by the launcher, so only the SPKI flag (no spaces)
        # goes here; host names already resolve through the sandbox's /etc/hosts.
        spki = ",".join(self._certs.spki)
        (target / "zz-stripebench").write_text(
            "# stripebench sandbox: accept the local CA's keys (Stripe's hosts are routed)\n"
            'export CHROMIUM_FLAGS="$CHROMIUM_FLAGS '
            f'--ignore-certificate-errors-spki-list={spki}"\n')

    def bwrap_args(self) -> list[str]:
        """bwrap's arguments for this sandbox (the room of `sandbox.room`, plus the
        routing's hosts file, Chromium flags and CA bundles)."""
        extra = ["--ro-bind", str(self.inside / "hosts"), "/etc/hosts"]
        for host, inside in self.binds:
            extra += ["--bind", str(host), inside]
        if (self.inside / "chromium.d").is_dir():
            extra += ["--ro-bind", str(self.inside / "chromium.d"), "/etc/chromium.d"]
        if self._certs is not None:
            bundle = str(self.inside / "bundle.pem")
            for pinned in self._pinned_bundles():
                extra += ["--ro-bind", bundle, str(pinned)]
        return room_args(workdir=self.workdir, shared=self.shared, rundir_inside=self.inside,
                         sockets=self.sockets, limits=self.limits, extra=extra)

    def _pinned_bundles(self) -> list[Path]:
        found = [Path("/etc/ssl/certs/ca-certificates.crt")]
        for tree in self.shared:
            found += _pinned_in_installation(str(tree))
        found += _pinned_in_tree(str(self.workdir))  # a task may ship its own venv
        return [p for p in found if p.is_file()]

    def _start(self) -> None:
        self._prepare_run_dir()
        routes: list[str] = []
        caps: list[str] = []
        if self.routing is not None and self._certs is not None:
            self._relay_thread().add(f"unix:{self.sockets / 'stripe.sock'}",
                                     emulator_address(self.routing.emulator_url),
                                     self._certs.server_context())
            routes.append(f"tcp:127.0.0.1:443=unix:{INSIDE}/sock/stripe.sock")
            caps = ["--cap-add", "CAP_NET_BIND_SERVICE"]  # port 443, relay only
        routes += [f"tcp:127.0.0.1:{port}={target}" for port, target in self.forwards.items()]
        routes += [f"unix:{INSIDE}/sock/port-{port}.sock=tcp:127.0.0.1:{port}"
                   for port in self.port_sockets]
        command = [_python(), f"{INSIDE}/relay.py", *(routes or ["--hold"])]
        if self._own_cgroup:
            try:
                self.cgroup = Cgroup.create(self.limits)
            except CgroupUnavailable as exc:
                self.unbounded = str(exc)
        info_read, info_write = os.pipe()
        args = [*self._join(), *self.bwrap_args(), *caps, "--info-fd", str(info_write),
                "--", *command]
        with open(self.rundir / "holder.log", "ab") as log:
            self._holder = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.PIPE, stderr=log,
                                            pass_fds=(info_write,), start_new_session=True,
                                            env=self.env)
        os.close(info_write)
        try:
            self.ns_pid = _read_child_pid(info_read, self._holder, self.rundir / "holder.log")
            (self.rundir / "holder.pid").write_text(str(self._holder.pid))
        finally:
            os.close(info_read)
        assert self._holder.stdout is not None
        line = _readline(self._holder.stdout, START_TIMEOUT)
        if line.strip() != b"ready":
            raise SandboxError("the sandbox did not start: "
                               + tail(self.rundir / "holder.log"))
        self._port_sockets.update(self.port_sockets)
        own_userns = os.readlink("/proc/self/ns/user")
        self._enter_user = os.readlink(f"/proc/{self.ns_pid}/ns/user") != own_userns
        self._protect_proc()

    def _protect_proc(self) -> None:
        """Make the kernel's knobs under the sandbox's /proc read-only and cap its tmpfs
        folders' inodes, once, before any command of the agent runs (see
        sandbox.room)."""
        script = f"{PROC_READ_ONLY_SCRIPT} && {tmpfs_limit_script(self.limits)}"
        done = subprocess.run([*enter_prefix(self.ns_pid, self._enter_user, mount_only=True),
                               "--", "/bin/sh", "-c", script],
                              capture_output=True, text=True, timeout=START_TIMEOUT)
        if done.returncode != 0:
            raise SandboxError(f"could not make /proc/sys read-only or size the tmpfs "
                               f"folders in the sandbox: {done.stderr.strip()}")

    def _join(self) -> list[str]:
        """The prefix that puts a process into this sandbox's cgroup (if it has one)."""
        return self.cgroup.join_argv() if self.cgroup is not None else []

    # ------------------------------------------------------------------ exec

    def enter_argv(self, argv: Sequence[str], cwd: str | None = None,
                   hide: Sequence[str] = (), unprivileged: bool = False,
                   read_only: bool = False, writable: Sequence[str] = ()) -> list[str]:
        """argv that runs `argv` inside the sandbox, capabilities dropped, in `cwd`.

        `hide`: directories the command must not reach. It then runs in mount and pid
        namespaces of its own (same network): each hidden directory is covered by an
        empty read-only tmpfs it cannot unmount, and it sees none of the sandbox's
        other processes. (The grading room no longer needs it: the agent's code runs
        in side rooms that never mount the grader's folder, see harness/side_rooms.py.)
        `read_only`: the workdir is read-only for the command (but for the folders
        `writable` in it), again in namespaces of its own: the grader's view.
        `unprivileged`: run as uid 65534 in a user namespace of its own, not as root
        (see start_service)."""
        if not self.alive():
            raise SandboxError("the sandbox has been stopped; nothing can run in it")
        where = self._inside_path(cwd) if cwd else str(self.workdir)
        return enter_argv(argv, ns_pid=self.ns_pid, enter_user=self._enter_user, where=where,
                          hide=[self._inside_path(h) for h in hide],
                          read_only=str(self.workdir) if read_only else None,
                          writable=writable, unprivileged=unprivileged, join=self._join())

    def alive(self) -> bool:
        return self._holder is not None and self._holder.poll() is None

    def attach_info(self) -> dict[str, Any]:
        """What another process needs to run commands in this sandbox (see attach.py)."""
        return {"workdir": str(self.workdir), "ns_pid": self.ns_pid,
                "ns_mnt": os.readlink(f"/proc/{self.ns_pid}/ns/mnt"),
                "enter_user": self._enter_user, "rundir": str(self.rundir), "env": self.env,
                "emulator_url": self.routing.emulator_url if self.routing else None,
                # commands of another process join the same cgroup (counted, killed with it)
                "cgroup_procs": self.cgroup.procs_files() if self.cgroup else []}

    def _inside_path(self, path: str) -> str:
        p = Path(path)
        return str(p if p.is_absolute() else self.workdir / p)

    def exec(self, command: str | list[str], *, timeout: float = 120,
             output_limit: int = 100_000, env: dict[str, str] | None = None,
             cwd: str | None = None, read_only: bool = False,
             writable: Sequence[str] = ()) -> ExecResult:
        argv = self.enter_argv(shell_argv(command), cwd, read_only=read_only,
                               writable=writable)
        return run_captured(argv, env=self.env | (env or {}),
                            cwd=self.workdir, timeout=timeout, output_limit=output_limit,
                            on_start=self._groups.add)

    def run_attached(self, argv: Sequence[str], env: dict[str, str] | None = None) -> int:
        """Run with this terminal's stdin/stdout/stderr (what `stripebench exec` does).

        The command stays in our process group, so the terminal's Ctrl-C reaches it
        directly; we only wait (ignoring SIGINT ourselves) and return its exit code."""
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            proc = subprocess.Popen(self.enter_argv(list(argv)), env=self.env | (env or {}),
                                    cwd=self.workdir,
                                    preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                     signal.SIG_DFL))
            return proc.wait()
        finally:
            signal.signal(signal.SIGINT, previous)

    def popen(self, argv: Sequence[str], *, hide: Sequence[str] = (), unprivileged: bool = False,
              cwd: str | None = None, **kwargs: Any) -> subprocess.Popen[bytes]:
        """Start a process inside without waiting (the caller owns its pipes); `cwd`
        (inside), `hide` and `unprivileged` as in `enter_argv`."""
        env = self.env | kwargs.pop("env", {})
        proc = subprocess.Popen(self.enter_argv(list(argv), cwd, hide=hide,
                                                unprivileged=unprivileged), env=env,
                                cwd=self.workdir, start_new_session=True, **kwargs)
        self._groups.add(proc.pid)
        return proc

    def chromium_launcher(self, chromium: str = "/usr/bin/chromium") -> Path:
        """An executable that starts Chromium inside the sandbox, for Playwright's
        `executable_path`: the browser then sees what the agent's code sees (its
        localhost servers, Stripe's hosts routed). Playwright talks to it over inherited
        pipes, which survive nsenter; its --user-data-dir (a host /tmp path) is simply
        created in the sandbox's private /tmp."""
        launcher = self.rundir / "chromium"
        if not launcher.exists():
            env = " ".join(shlex.quote(f"{k}={v}") for k, v in self.env.items())
            argv = " ".join(shlex.quote(a) for a in self.enter_argv([chromium]))
            launcher.write_text(f'#!/bin/sh\nexec env -i {env} {argv} "$@"\n')
            launcher.chmod(0o700)
        return launcher

    # ------------------------------------------------------------------ files

    # ------------------------------------------------------------------ services

    def start_service(self, name: str, command: str, *, ready_url: str | None = None,
                      ready_port: int | None = None, timeout: float = 60,
                      hide: Sequence[str] = (), unprivileged: bool = False) -> None:
        """`unprivileged`: the service runs as uid 65534 in a user namespace of its own
        where that uid stands for the sandbox's root (`as_unprivileged`), for servers
        that refuse root such as PostgreSQL. It has no capabilities (its bounding set
        cannot be cut once it is not root; no_new_privs keeps it from gaining any)."""
        log = open_service_log(self.workdir, name)
        try:
            proc = self.popen(shell_argv(command), stdin=subprocess.DEVNULL, stdout=log,
                              stderr=subprocess.STDOUT, hide=hide, unprivileged=unprivileged)
        finally:
            os.close(log)
        self._services[name] = proc
        if ready_url:
            check = ["python3", "-c", _URL_PROBE, ready_url]
        elif ready_port:
            check = ["python3", f"{INSIDE}/relay.py", "--probe", f"tcp:127.0.0.1:{ready_port}",
                     "--timeout", "1"]
        else:
            return
        deadline = time.monotonic() + timeout
        while True:
            if self.exec(check, timeout=10).exit_code == 0:
                return
            if proc.poll() is not None:
                raise SandboxError(f"service {name!r} exited with code {proc.returncode} "
                                   f"before it was ready; last output:\n"
                                   f"{service_log_tail(self.workdir, name)}")
            if time.monotonic() > deadline:
                raise SandboxError(f"service {name!r} was not ready after {timeout:g}s; last "
                                   f"output:\n{service_log_tail(self.workdir, name)}")
            time.sleep(0.1)

    # ------------------------------------------------------------------ teardown

    def stop(self) -> None:
        """Kill everything of the sandbox (its cgroup frozen and killed as a unit, then
        the namespace holder), note the limits it hit (`breaches`), clear set-id bits
        and file capabilities from its workdir (`cleared`). Safe to call twice."""
        own = self.cgroup if self._own_cgroup else None
        if own is not None:
            self.breaches = own.breaches()
            self.killed_at_stop += own.kill()
        if self._holder is not None:
            kill_group(self._holder.pid)   # namespace init dies -> kernel kills the rest
            self._holder.wait()
            if self._holder.stdout is not None:
                self._holder.stdout.close()
            self._holder = None
        end_processes(self._groups, self._services)
        if self._relays is not None:
            self._relays.stop()
            self._relays = None
        if own is not None:
            own.remove()
        self.cgroup = None
        if self.clear_on_stop and self.workdir.is_dir():  # nothing of it runs any more
            self.cleared += safe_files.clear_setid_bits(self.workdir)
        shutil.rmtree(self.rundir, ignore_errors=True)
        if not self._own_sockets:
            shutil.rmtree(self.sockets, ignore_errors=True)

    def __enter__(self) -> BubblewrapSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@functools.cache
def _pinned_in_installation(tree: str) -> list[Path]:
    """Pinned bundles in a Python installation or venv (read-only: cached per process)."""
    found: list[Path] = []
    sites = [Path(tree)] if tree.endswith("site-packages") else []
    for site in sites + list(Path(tree).glob("lib/python3*/site-packages")):
        found += [site / p for p in ("stripe/data/ca-certificates.crt", "certifi/cacert.pem",
                                     "pip/_vendor/certifi/cacert.pem")]
    return found


def _pinned_in_tree(tree: str) -> list[Path]:
    found = []
    for root, dirs, files in os.walk(tree):
        # Node never pins a bundle file; skipping node_modules keeps big workdirs quick.
        dirs[:] = [d for d in dirs
                   if d not in (".git", "__pycache__", ".stripebench", "node_modules")]
        for name in files:
            if name in ("ca-certificates.crt", "cacert.pem"):
                candidate = Path(root) / name
                # a symlink the agent planted would aim our bundle's mount elsewhere
                if candidate.is_symlink():
                    continue
                if any(str(candidate).endswith(p) for p in PINNED_BUNDLES):
                    found.append(candidate)
    return found


_URL_PROBE = """
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1], timeout=2)
except urllib.error.HTTPError as e:
    sys.exit(0 if e.code < 500 else 1)
except Exception:
    sys.exit(1)
"""


def _sweep_abandoned() -> None:
    """Remove run directories of sandboxes whose harness died without stop()."""
    for rundir in Path(tempfile.gettempdir()).glob(RUNDIR_PREFIX + "*"):
        try:
            pid = int((rundir / "holder.pid").read_text())
        except (OSError, ValueError):
            continue  # still starting, or not ours
        if not Path(f"/proc/{pid}").exists():
            shutil.rmtree(rundir, ignore_errors=True)


def _python() -> str:
    return "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable


def _read_child_pid(fd: int, holder: subprocess.Popen[bytes], log: Path) -> int:
    data = b""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            chunk = os.read(fd, 4096)
            data += chunk
            try:
                return int(json.loads(data)["child-pid"])
            except ValueError:
                if not chunk:
                    break
        elif holder.poll() is not None:
            break
    raise SandboxError(f"bubblewrap failed to start: {tail(log)}")


def _readline(stream: Any, timeout: float) -> bytes:
    ready, _, _ = select.select([stream], [], [], timeout)
    return stream.readline() if ready else b""
