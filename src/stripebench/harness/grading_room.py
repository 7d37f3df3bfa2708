"""The sealed grading room: the one place a submission is graded.

`grade_submission` grades a submission folder (a trial's workdir) with the task's hidden
grader; trials, the standing trials of Inspect and Harbor, and `tasks check` (oracle,
noop, mutants, alternatives: all trials) come through here. What runs where:

- the grader's **sealed folder**, on the host beside the trial (`<trial>/grading/`, never
  under the workdir), holds its tests, its inputs (fixtures, the account's snapshots, the
  set-up's output), its logs and its reward. The grading sandbox mounts it at /grader;
- the **grader** runs there as `python -E -s` (no module of the submission, no .pth, no
  PYTHON* variable can shadow its imports: see `grader_argv`), in mount and pid
  namespaces of its own that see the submission read-only (but for `[verifier] writable`
  folders);
- the **agent's code** -- the task's services, and whatever the grader runs through
  `stripebench.grading.launch` (migration scripts, service copies) -- never runs in the
  grading sandbox: the services share one side room, each launched command gets a fresh
  one (`side_rooms.py`), a sandbox of its own over the submission with its own mount,
  pid and network namespaces, which never mounts /grader and dies as a unit. The grader
  reaches the services at their ports, and a started command at the port it serves,
  through relays; the agent's code reaches the emulator and only the grading room's
  ports the grader handed it (a service copy: its own recorder), never the grader's
  other helpers;
- the **reward** is read from the sealed folder after every process of the grading is
  dead (the sandbox stopped: its cgroup and namespaces killed). No reward.json anywhere
  else counts.

A local sandbox has no namespaces: the same steps run, unsealed (the trial says so).
"""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..grading.checks import IMPORTED_MODULES
from ..rundir import write_json_atomic
from ..sandbox import safe_files
from ..sandbox.base import SandboxError, run_captured, shell_argv
from ..sandbox.limits import DEFAULT_LIMITS, Limits
from ..sandbox.local import LocalSandbox
from .emulator import Emulator
from .evidence import note_sandbox_end
from .launch_server import LaunchServer
from .sandbox import BubblewrapSandbox, RunAs, Sandbox, make_sandbox
from .services import route_webhooks, start_services
from .side_rooms import SideRoom, SideRooms
from .task import Task

GRADER_INSIDE = "/grader"          # the sealed folder, as the grading sandbox sees it
SEALED = "grading"                 # its name in the trial directory
REWARD_LIMIT = 1024 * 1024
GRADER_OUTPUT_LIMIT = 200_000
# the submission's installed packages and build output are not its own modules
SKIP_WHEN_SCANNING = {".stripebench", "node_modules", "__pycache__", ".git", ".venv", ".deps",
                      ".go", "target", "venv", "site-packages"}
SCAN_FILE_LIMIT = 20_000
SHADOW_LIMIT = 20
INPUTS = ("fixtures.json", "stripe_seed.json", "stripe_final.json", "setup.json")


class GraderError(Exception):
    """The grader ran but gave no valid reward (timed out, crashed, wrote garbage)."""


def sealed_folder(trial_dir: Path) -> Path:
    return trial_dir / SEALED


def prepare_sealed(task: Task, trial_dir: Path) -> Path:
    """A fresh sealed folder: the grader's tests and inputs (trusted copies), empty logs/
    and launch/ folders. Whatever an earlier grading left there is gone."""
    sealed = sealed_folder(trial_dir)
    if sealed.is_symlink() or sealed.is_file():
        sealed.unlink()
    shutil.rmtree(sealed, ignore_errors=True)
    sealed.mkdir(mode=0o700)
    shutil.copytree(task.tests, sealed / "tests", symlinks=False)
    for name in INPUTS:
        if (trial_dir / name).is_file():
            shutil.copyfile(trial_dir / name, sealed / name)
    (sealed / "logs").mkdir()
    (sealed / "launch").mkdir()
    return sealed


def grader_argv(command: str) -> list[str]:
    """The grader's command; a python one runs isolated: -E (no PYTHON* variable), -s (no
    user site). Its sys.path is the script's own folder (sealed: graders import the
    modules beside them), the standard library and the benchmark's read-only
    site-packages -- nothing the submission can write."""
    argv = shlex.split(command)
    if argv and argv[0] in ("python", "python3"):
        return [argv[0], "-E", "-s", *argv[1:]]
    return shell_argv(command)


def read_reward(path: Path) -> dict[str, Any]:
    """A valid reward.json at `path`, or ValueError saying what is wrong with it."""
    try:  # no symlink followed, no FIFO opened, no giant file loaded
        raw = safe_files.read_in(path.parent, path.name, limit=REWARD_LIMIT + 1)
    except OSError:
        raise ValueError("the grader wrote no reward.json (or not as a plain file)") from None
    if len(raw) > REWARD_LIMIT:
        raise ValueError(f"reward.json is larger than {REWARD_LIMIT} bytes")
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"reward.json is not JSON: {exc}") from None
    total = data.get("total") if isinstance(data, dict) else None
    if isinstance(total, bool) or not isinstance(total, int | float) or not 0 <= total <= 1:
        raise ValueError(f"reward.json total must be a number in [0, 1], got {total!r}")
    subscores = data.get("subscores", {})
    if not isinstance(subscores, dict) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= 1
            for v in subscores.values()):
        raise ValueError("reward.json subscores must map names to numbers in [0, 1]")
    return data


def fresh_harness_dir(workdir: Path) -> None:
    """Replace the workdir's .stripebench/ (the agent could write there: a symlink to a
    host folder, a FIFO for a log) with an empty folder for the services' logs.
    shutil.rmtree never follows a symlink: it removes the link, not what it names."""
    harness_dir = workdir / ".stripebench"
    if harness_dir.is_symlink() or (harness_dir.exists() and not harness_dir.is_dir()):
        harness_dir.unlink()
    elif harness_dir.exists():
        shutil.rmtree(harness_dir)
    safe_files.makedirs_in(workdir, ".stripebench/logs")


class GradingRoom:
    """The grading sandbox over one submission, with its sealed folder and launcher.
    Use as a context manager; `stop()` kills everything in it."""

    def __init__(self, kind: str, workdir: Path, sealed: Path, env: dict[str, str], *,
                 limits: Limits = DEFAULT_LIMITS, run_as: RunAs | None = None) -> None:
        self.kind = kind
        self.workdir = workdir
        self.sealed = sealed
        # a unix socket's path must stay short: it lives in a folder of its own, bound
        # into the sealed folder at launch/
        self._socket_dir = Path(tempfile.mkdtemp(prefix="sb-launch-"))
        options: dict[str, Any] = {"limits": limits, "clear_on_stop": False}
        if run_as is not None:  # a local room whose agent code runs as that user
            options["run_as"] = run_as
        if kind == "bwrap":
            options.update(share_package=True, binds=[
                (sealed, GRADER_INSIDE), (self._socket_dir, f"{GRADER_INSIDE}/launch")])
            self.inside = Path(GRADER_INSIDE)
            self.socket_inside = f"{GRADER_INSIDE}/launch/launch.sock"
        else:
            self.inside = sealed
            self.socket_inside = str(self._socket_dir / "launch.sock")
        self.sandbox: Sandbox = make_sandbox(kind, workdir, env, **options)  # type: ignore[arg-type]
        self.rooms = SideRooms(self.sandbox, env, limits)
        self.services: SideRoom | None = None
        self.launcher = LaunchServer(self.rooms, self.sandbox.workdir,
                                     self._socket_dir / "launch.sock", log_dir=sealed / "logs")

    def start_services(self, task: Task, ports: dict[str, int]) -> None:
        """The task's services, together in a side room; the grader reaches each at its
        port. Raises SandboxError if one does not come up (the others still serve)."""
        if not task.services:
            return
        self.services = self.rooms.open(serve=list(ports.values()))
        start_services(self.services.sandbox, task, ports)

    @property
    def services_sandbox(self) -> Sandbox | None:
        """Where the services run (webhooks are delivered there): their side room (none
        if it could not be made: never the grading room's network), or the local
        sandbox."""
        if isinstance(self.sandbox, BubblewrapSandbox):
            return self.services.sandbox if self.services is not None else None
        return self.sandbox

    def grader_env(self, task: Task) -> dict[str, str]:
        inside = self.inside
        env = {
            "STRIPEBENCH_WORKDIR": str(self.workdir),
            "STRIPEBENCH_REWARD_PATH": str(inside / "reward.json"),
            "STRIPEBENCH_FIXTURES": str(inside / "fixtures.json"),
            "STRIPEBENCH_SEED_SNAPSHOT": str(inside / "stripe_seed.json"),
            "STRIPEBENCH_FINAL_SNAPSHOT": str(inside / "stripe_final.json"),
            "STRIPEBENCH_GRADER_LOGS": str(inside / "logs"),
            "STRIPEBENCH_LAUNCH": self.socket_inside,
            "STRIPEBENCH_TASK": task.id,
        }
        if (self.sealed / "setup.json").is_file():
            env["STRIPEBENCH_SETUP_OUTPUT"] = str(inside / "setup.json")
        return env

    def run_grader(self, task: Task, writable: Sequence[str]) -> Any:
        """The grader, isolated, over the submission read-only but for `writable`."""
        argv = grader_argv(task.grader_command)
        env = self.grader_env(task)
        if isinstance(self.sandbox, BubblewrapSandbox):
            return self.sandbox.exec(argv, timeout=task.grader_timeout, env=env,
                                     cwd=str(self.inside), output_limit=GRADER_OUTPUT_LIMIT,
                                     read_only=True, writable=writable)
        assert isinstance(self.sandbox, LocalSandbox)  # its cwd is the sealed folder
        return run_captured([*self.sandbox.join_argv(), *argv],
                            env=self.sandbox.full_env(env), cwd=self.sealed,
                            timeout=task.grader_timeout, output_limit=GRADER_OUTPUT_LIMIT)

    def stop(self) -> None:
        """Kill everything: the grading sandbox first (its cgroup holds the side rooms'
        processes too, so what ran anywhere is counted and killed as one), then the side
        rooms' holders and relays."""
        self.launcher.close()
        self.sandbox.stop()
        self.rooms.close()
        shutil.rmtree(self._socket_dir, ignore_errors=True)

    def __enter__(self) -> GradingRoom:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def grade_submission(task: Task, trial_dir: Path, workdir: Path, *, env: dict[str, str],
                     ports: dict[str, int], sandbox_kind: str, record: dict[str, Any],
                     limits: Limits = DEFAULT_LIMITS,
                     webhooks: tuple[Emulator, str] | None = None,
                     run_as: RunAs | None = None) -> GradingRoom:
    """Grade `workdir` with the task's grader in the sealed room. Fills `record`'s
    reward and subscores (or status `grader_error` with why), notes and tamper entries;
    returns the stopped room. What its sandbox hit or left (limits, tamper evidence) is
    in `record` even when grading failed with an exception. `run_as` (a local room
    only): the agent's code -- services, launched commands -- runs as that user (a
    container's agent user); the grader stays root."""
    fresh_harness_dir(workdir)
    writable, refused = real_folders(workdir, task.grader_writable)
    if refused:  # a symlink or file in place of a folder the grader may write
        record.setdefault("tamper", {})["writable_folders_refused"] = refused
    sealed = prepare_sealed(task, trial_dir)
    room = GradingRoom(sandbox_kind, workdir, sealed, env, limits=limits, run_as=run_as)
    try:
        try:
            room.start_services(task, ports)
        except SandboxError as exc:  # the agent's changes broke the app: the grader sees it
            record["notes"].append(f"services did not come back for grading: {exc}"[:2000])
        if webhooks is not None and room.services_sandbox is not None:
            try:
                route_webhooks(*webhooks, room.services_sandbox, ports)
            except SandboxError as exc:  # the services' room is broken (a fork bomb...)
                record["notes"].append(f"webhooks could not be routed to the services: "
                                       f"{exc}"[:2000])
        result = room.run_grader(task, writable)
        (trial_dir / "grader.log").write_text(
            f"$ {task.grader_command}\nexit code {result.exit_code}\n--- stdout\n"
            f"{result.stdout}\n--- stderr\n{result.stderr}")
        if result.timed_out:
            raise GraderError(f"the grader timed out after {task.grader_timeout:g}s")
        exit_code = result.exit_code
    except GraderError as exc:
        _grader_failed(record, str(exc))
        return room
    finally:
        room.stop()   # every process of the grading is dead before the reward is read
        note_sandbox_end(record, "grading", room.sandbox)  # also when grading failed
    if room.launcher.refused:
        record.setdefault("tamper", {})["launch_requests_refused"] = room.launcher.refused[:20]
    try:
        reward = read_reward(sealed / "reward.json")
    except ValueError as exc:
        _grader_failed(record, f"{exc} (grader exit code {exit_code}; see grader.log)")
        return room
    write_json_atomic(trial_dir / "reward.json", reward)
    planted = shadowing_files(workdir, imported_modules(sealed))
    if planted:
        record.setdefault("tamper", {})["shadowing_files"] = planted
    record["reward"] = float(reward["total"])
    record["subscores"] = {k: float(v) for k, v in reward.get("subscores", {}).items()}
    return room


def real_folders(workdir: Path, names: Sequence[str]) -> tuple[list[str], list[str]]:
    """`names` split into real folders of the submission (no symlink on the way, a
    directory at the end) and the rest."""
    good: list[str] = []
    bad: list[str] = []
    for name in names:
        path, ok = workdir, True
        for part in Path(name).parts:
            path = path / part
            ok = ok and path.is_dir() and not path.is_symlink()
        (good if ok else bad).append(name)
    return good, bad


def imported_modules(sealed: Path) -> set[str]:
    """The top-level modules the grader imported (it lists them beside its reward)."""
    try:
        names = json.loads(safe_files.read_in(sealed, IMPORTED_MODULES, limit=REWARD_LIMIT))
    except (OSError, ValueError):
        return set()
    return {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()


def shadowing_files(workdir: Path, imported: set[str]) -> list[str]:
    """Files of the submission that would shadow the grader's imports were it not
    isolated: a module or package named like one it imported, a .pth file, a
    sitecustomize or usercustomize (at most SHADOW_LIMIT, for the tamper record)."""
    found = []
    for rel, _dir_fd, name in safe_files.regular_files(workdir, SKIP_WHEN_SCANNING,
                                                       SCAN_FILE_LIMIT):
        path = Path(rel)
        stem = path.parent.name if name == "__init__.py" else path.stem
        if name.endswith(".pth") or (name.endswith(".py") and (
                stem in imported or stem in ("sitecustomize", "usercustomize"))):
            found.append(rel)
            if len(found) >= SHADOW_LIMIT:
                break
    return found


def _grader_failed(record: dict[str, Any], why: str) -> None:
    record.update(status="grader_error", reward=None, error=why)
