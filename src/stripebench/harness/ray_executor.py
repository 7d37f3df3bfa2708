"""`stripebench run --executor ray`: every trial a Ray task, results back in the run dir.

The driver (the `stripebench run` process) keeps the run directory exactly as the local
executor does: `run.json` first, then per trial `trials/<task>/<attempt>/` with
`result.json` written last and atomically, so `report`, `compare` and `--resume` work
unchanged and kill -9 of the driver loses only the trials in flight.

A trial runs on whichever node has its resources (CPUs, memory, and the `browser` custom
resource for tasks tagged `browser`). On that node it works in a local scratch folder,
against an emulator owned by its Ray worker process (started on the worker's first trial,
reused by its later ones, killed by the kernel if the worker dies), then sends the trial
folder back as a tar archive; the driver unpacks it into the run directory. Nothing is
shared between nodes but Ray itself: the tasks and the run's intervention copies travel
as one archive in Ray's object store, so a node needs the project installed (with
bubblewrap and Chromium), not the tasks.

A worker that dies (kill -9, out of memory, a lost node) loses only its trial: Ray runs
the task again elsewhere (`ray_retries()` times). Account ids and their id salts derive
from a salt the driver keeps in the run folder, so a trial redone on another worker, or
after `--resume`, gets the same account and object ids.
"""

from __future__ import annotations

import atexit
import copy
import dataclasses
import hashlib
import io
import logging
import os
import shutil
import socket
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..rundir import new_record, trial_dir, write_result
from .agents import Agent
from .emulator import Emulator, EmulatorDown, stored_salt
from .interventions import COPIES, Interventions, docs_index
from .runner import MAX_EMULATOR_RESTARTS, RunError, RunPlan, pending, prepare
from .task import Task, load_task
from .trial import TrialConfig, run_trial

# How often Ray reruns a trial whose worker process died (system failures only: a trial
# that ran to its end, whatever its status, is never rerun by Ray); $STRIPEBENCH_RAY_RETRIES.
RAY_RETRIES = 3
BROWSER_TAG = "browser"  # tasks with this tag need the `browser` custom resource
# What a trial asks of its node, unless its task.toml says otherwise under
# [environment] cpus / memory_mb (Harbor's names).
DEFAULT_CPUS = 1.0
DEFAULT_MEMORY_MB = 1024
BROWSER_MEMORY_MB = 2048
# Dependency folders a trial installs again from the wheelhouse or npm cache: not sent
# back (they are large and the report does not read them).
NOT_SENT_BACK = {"node_modules", "__pycache__", ".venv", ".deps"}
# Variables of the driver's environment the agents and tasks read on the workers.
FORWARDED_ENV = ("ANTHROPIC_", "OPENAI_", "STRIPEBENCH_MODEL", "STRIPEBENCH_PRICE",
                 "STRIPEBENCH_GYM_SEED", "STRIPEBENCH_GRADER_DEBUG", "STRIPEBENCH_CLAUDE_BIN",
                 "STRIPEBENCH_CODEX_BIN", "STRIPEBENCH_GOOSE_BIN")
SCRATCH_ENV = "STRIPEBENCH_RAY_SCRATCH"


def ray_retries() -> int:
    value = os.environ.get("STRIPEBENCH_RAY_RETRIES", str(RAY_RETRIES))
    if not value.isdigit():
        raise RunError(f"STRIPEBENCH_RAY_RETRIES must be a whole number, got {value!r}")
    return int(value)


def offline_ray_env(address: str | None) -> None:
    """Set before ray is imported. Ray sends nothing anywhere (no usage statistics); a
    cluster on this machine's loopback (or the one we start) stays there: Ray would
    otherwise swap 127.0.0.1 for the machine's outward address, where a head started
    with `--node-ip-address 127.0.0.1` does not listen."""
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    host = (address or "127.0.0.1").removeprefix("ray://").rsplit(":", 1)[0]
    if host == "localhost" or host.startswith("127."):
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # keep loopback addresses


# ---------------------------------------------------------------------------- resources

def trial_resources(task: Task) -> dict[str, Any]:
    """The Ray task options declaring what one trial of `task` needs."""
    environment = task.raw.get("environment", {})
    browser = BROWSER_TAG in task.tags
    cpus = environment.get("cpus", DEFAULT_CPUS)
    memory_mb = environment.get("memory_mb",
                                BROWSER_MEMORY_MB if browser else DEFAULT_MEMORY_MB)
    for key, value in (("cpus", cpus), ("memory_mb", memory_mb)):
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise RunError(f"{task.id}: [environment] {key} must be a positive number, "
                           f"got {value!r}")
    return {"num_cpus": float(cpus), "memory": int(memory_mb * 1024 * 1024),
            "resources": {BROWSER_TAG: 1} if browser else {}}


def check_feasible(tasks: list[Task], nodes: list[dict[str, Any]]) -> None:
    """Fail before submitting when no live node could ever run a task's trials (Ray
    would otherwise queue them forever)."""
    alive = [n.get("Resources", {}) for n in nodes if n.get("Alive")]
    for task in tasks:
        need = trial_resources(task)
        wanted = {"CPU": need["num_cpus"], "memory": need["memory"], **need["resources"]}
        if not any(all(have.get(k, 0) >= v for k, v in wanted.items()) for have in alive):
            shown = ", ".join(f"{k} {v:g}" if k != "memory" else f"memory {v / 2**20:g} MiB"
                              for k, v in wanted.items())
            hint = (" (start Chromium nodes with `ray start --resources "
                    "'{\"browser\": N}'`)") if BROWSER_TAG in wanted else ""
            raise RunError(f"no node of the Ray cluster can run {task.id}: a trial needs "
                           f"{shown}{hint}")


# ---------------------------------------------------------------------------- archives

def pack(root: Path, skip: set[str] | None = None, leave_out: tuple[str, ...] = ()) -> bytes:
    """A gzip tar of the folder's contents (symlinks kept as links; folders named in
    `skip` anywhere and the paths in `leave_out` not included)."""
    skip = skip or set()

    def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        parts = Path(info.name).parts
        if any(p in skip for p in parts) or info.name in leave_out:
            return None
        return info

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=3) as tar:
        for child in sorted(root.iterdir()):
            tar.add(child, arcname=child.name, filter=keep)
    return buffer.getvalue()


def unpack(data: bytes, dest: Path) -> list[str]:
    """Extract an archive into dest with tarfile's `data` filter: nothing lands outside
    dest, no links out of it, no devices or set-id bits. Members it refuses (an agent's
    symlink to /etc, a FIFO) are left out; their names are returned."""
    refused: list[str] = []

    def safe(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
        try:
            return tarfile.data_filter(member, path)
        except tarfile.FilterError:
            refused.append(member.name)
            return None

    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(dest, filter=safe)
    return refused


def bundle_inputs(plan: RunPlan) -> bytes:
    """The tasks (each under tasks/<id>/) and the run's intervention copies, as the
    workers get them."""
    with tempfile.TemporaryDirectory(prefix="stripebench-ray-inputs-") as tmp:
        root = Path(tmp)
        for task in plan.tasks:
            shutil.copytree(task.path, root / "tasks" / task.id / task.path.name,
                            symlinks=True, ignore=shutil.ignore_patterns(*NOT_SENT_BACK))
        if (plan.out / COPIES).is_dir():
            shutil.copytree(plan.out / COPIES, root / COPIES, symlinks=True)
        return pack(root)


# ---------------------------------------------------------------------------- workers

def scratch_root() -> Path:
    return Path(os.environ.get(SCRATCH_ENV) or
                Path(tempfile.gettempdir()) / "stripebench-ray")


_inputs: dict[str, Path] = {}
_emulators: dict[str, Emulator] = {}


def _inputs_on_node(run_id: str, digest: str, data: bytes) -> Path:
    """This node's copy of the run's inputs: unpacked once (by whichever worker gets
    there first: a whole copy is renamed into place)."""
    if digest in _inputs:
        return _inputs[digest]
    target = scratch_root() / run_id / f"inputs-{digest[:16]}"
    if not target.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".inputs-", dir=target.parent))
        unpack(data, tmp)
        try:
            tmp.rename(target)
        except OSError:  # another worker was faster
            shutil.rmtree(tmp, ignore_errors=True)
    _inputs[digest] = target
    return target


def _worker_emulator(run_id: str, salt: str) -> Emulator:
    """This worker process's emulator for the run (started on its first trial)."""
    emulator = _emulators.get(run_id)
    if emulator is None:
        data = scratch_root() / run_id / f"emulator-{socket.gethostname()}-{os.getpid()}"
        shutil.rmtree(data, ignore_errors=True)  # a pid reused since an earlier worker
        emulator = Emulator.start(data=data, die_with_parent=True)
        atexit.register(emulator.stop)
        _emulators[run_id] = emulator
    else:
        emulator.ensure_running()
    emulator.account_salt = salt  # the same account ids on whichever worker
    return emulator


def _local_interventions(arm: Interventions | None, inputs: Path) -> Interventions | None:
    """The arm with its copies taken from this node's inputs."""
    if arm is None:
        return None
    copies = inputs / COPIES
    return dataclasses.replace(
        arm, skills_copy=copies / "skills" if arm.skills is not None else None,
        docs_index=docs_index(copies / "docs", arm.docs_mode) if arm.docs is not None
        else None)


def run_on_worker(task_id: str, task_dir_name: str, attempt: int, config: TrialConfig,
                  salt: str, digest: str, inputs: bytes, agent: Agent
                  ) -> tuple[dict[str, Any], bytes]:
    """The Ray task: one trial in this node's scratch folder; its record and folder."""
    started = time.time()
    local = _inputs_on_node(config.run_id, digest, inputs)
    task = load_task(local / "tasks" / task_id / task_dir_name)
    config = dataclasses.replace(config, interventions=_local_interventions(
        config.interventions, local))
    folder = scratch_root() / config.run_id / "trials" / task_id / str(attempt)
    lost: list[str] = []
    try:
        emulator = _worker_emulator(config.run_id, salt)
    except EmulatorDown as exc:
        record = failed_record(task, attempt, config, "emulator_error", str(exc), started)
        return record, b""
    while True:
        record = run_trial(task, attempt, folder, copy.deepcopy(agent), emulator, config)
        if record["status"] != "emulator_error" or \
                emulator.generation > MAX_EMULATOR_RESTARTS:
            break
        lost.append(record["error"] or "")  # restarted already: redo from scratch
    record["notes"] += [f"redone after the emulator died: {e}" for e in lost]
    record["executor"] = {"kind": "ray", "host": socket.gethostname(), **_node(),
                          "worker_pid": os.getpid(), "scratch": str(folder)}
    archive = pack(folder, skip=NOT_SENT_BACK, leave_out=("result.json",))
    shutil.rmtree(folder, ignore_errors=True)
    return record, archive


def _node() -> dict[str, str]:
    """Which Ray node ran the trial (for the record)."""
    try:
        # optional dependency (stripebench[ray]): only --executor ray needs it
        import ray

        return {"node_id": ray.get_runtime_context().get_node_id(),
                "node_ip": ray.util.get_node_ip_address()}
    except Exception:  # noqa: BLE001 - informative only
        return {}


def failed_record(task: Task, attempt: int, config: TrialConfig, status: str, error: str,
                  started: float) -> dict[str, Any]:
    """The result of a trial that never produced its own (its workers kept dying)."""
    finished = time.time()
    record: dict[str, Any] = {**new_record(
        task=task.id, task_version=task.version, category=task.category, attempt=attempt,
        run_id=config.run_id, agent=config.agent_name, model=config.model,
        sealed=config.sandbox != "local", status=status, started=started,
        subproblems={s.name: list(s.subscores) for s in task.subproblems})}
    record.update(error=error, finished=finished, wall_seconds=round(finished - started, 3))
    return record


# ---------------------------------------------------------------------------- driver

def store_trial(out: Path, record: dict[str, Any], archive: bytes) -> None:
    """Put a finished trial's folder in the run directory, result.json last: an
    interrupted store leaves no result.json, so --resume redoes the trial."""
    final = trial_dir(out, record["task"], int(record["attempt"]))
    final.parent.mkdir(parents=True, exist_ok=True)
    incoming = Path(tempfile.mkdtemp(prefix=f".{final.name}.incoming-", dir=final.parent))
    try:
        refused = unpack(archive, incoming) if archive else []
        if refused:
            record["notes"].append(f"left out of the run directory (links out of the "
                                   f"trial or special files): {', '.join(refused[:20])}")
        if final.exists():
            shutil.rmtree(final)
        incoming.rename(final)
    finally:
        shutil.rmtree(incoming, ignore_errors=True)
    write_result(final, record)


def connect(address: str | None, parallel: int | None) -> bool:
    """Join the cluster at `address`, or start a local one (this machine's cores, or
    `parallel` trials' worth). True when we started it."""
    offline_ray_env(address)
    try:
        # optional dependency (stripebench[ray]): only --executor ray needs it
        import ray
    except ImportError:
        raise RunError("--executor ray needs Ray: pip install 'stripebench[ray]' (or "
                       "scripts/setup.sh)") from None
    if ray.is_initialized():
        return False
    quiet: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING}
    env = {k: v for k, v in os.environ.items() if k.startswith(FORWARDED_ENV)}
    runtime_env = {"env_vars": env} if env else None
    try:
        if address:
            ray.init(address=address, runtime_env=runtime_env, **quiet)
            return False
        cpus = parallel or os.cpu_count() or 1
        # "local": a new instance even where `ray start` left one to auto-connect to
        ray.init(address="local", num_cpus=cpus, resources={BROWSER_TAG: max(1, cpus // 2)},
                 include_dashboard=False, runtime_env=runtime_env,
                 **quiet)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise RunError(f"could not reach the Ray cluster{f' at {address}' if address else ''}"
                       f": {exc}") from None
    return True


def execute_ray(plan: RunPlan, make_agent: Callable[[], Agent],
                on_result: Callable[[dict[str, Any]], None] | None = None,
                address: str | None = None, max_in_flight: int | None = None
                ) -> list[dict[str, Any]]:
    """Run every pending trial on Ray; return the results of the trials run now."""
    meta = prepare(plan)
    todo, _ = pending(plan)
    if not todo:
        return []
    started_cluster = connect(address, max_in_flight)

    # optional dependency (stripebench[ray]): only --executor ray needs it
    import ray
    from ray.exceptions import RayError, RayTaskError

    try:
        check_feasible([t for t, _ in todo], ray.nodes())
        config = TrialConfig(run_id=meta["run_id"], agent_name=plan.agent_name,
                             model=plan.model, sandbox=plan.sandbox,
                             agent_timeout=plan.agent_timeout, max_turns=plan.max_turns,
                             interventions=plan.interventions)
        inputs = bundle_inputs(plan)
        digest = hashlib.sha256(inputs).hexdigest()
        inputs_ref = ray.put(inputs)
        salt = stored_salt(plan.out / "emulator")  # the same after --resume
        remote = ray.remote(run_on_worker)
        retries = ray_retries()
        queue = list(todo)
        in_flight: dict[Any, tuple[Task, int, float]] = {}
        results: list[dict[str, Any]] = []

        def submit() -> None:
            while queue and (max_in_flight is None or len(in_flight) < max_in_flight):
                task, attempt = queue.pop(0)
                ref = remote.options(max_retries=retries, **trial_resources(task)).remote(
                    task.id, task.path.name, attempt, config, salt, digest, inputs_ref,
                    make_agent())
                in_flight[ref] = (task, attempt, time.time())

        submit()
        while in_flight:
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            task, attempt, submitted = in_flight.pop(ready[0])
            try:
                record, archive = ray.get(ready[0])
            except RayError as exc:  # its workers kept dying, or the harness itself broke
                why = "the trial's Ray task raised" if isinstance(exc, RayTaskError) else \
                    f"the trial's Ray worker died {retries + 1} time(s)"
                record, archive = failed_record(
                    task, attempt, config, "harness_error",
                    f"{why}: {type(exc).__name__}: {str(exc)[:1500]}", submitted), b""
            try:
                store_trial(plan.out, record, archive)
            except (OSError, tarfile.TarError, EOFError) as exc:  # the archive, not the run
                record = failed_record(task, attempt, config, "harness_error",
                                       f"the trial's folder could not be stored: "
                                       f"{type(exc).__name__}: {exc}", submitted)
                store_trial(plan.out, record, b"")
            results.append(record)
            if on_result is not None:
                on_result(record)
            submit()
        return results
    finally:
        if started_cluster:
            ray.shutdown()
