"""Task directories: `task.toml`, `instruction.md`, `environment/`, `tests/`, `solution/`.

The layout resembles Harbor's (Terminal-Bench 2) but is not a Harbor task: `stripebench
export harbor` writes genuine ones (integrations/harbor_export.py). The
stripebench-specific parts are `[[services]]` (what the environment runs and how to know
it is up), `[stripe]` (API version and fixtures to seed) and `[[subproblems]]`.
task.toml is read strictly into `Task` (TaskToml, KEYS): an unknown key fails with its
name and the file; `[metadata] version` is required. The full format: docs/tasks.md.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .fixtures import parse_call

CATEGORIES = ("backend", "full-stack", "gym")
TASK_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")


class TaskError(ValueError):
    """A task directory that does not follow the format."""


@dataclass(frozen=True)
class Service:
    name: str
    command: str
    port: int | None = None
    ready_url: str | None = None
    # runs as nobody:nogroup, not root (PostgreSQL refuses root); see docs/tasks.md
    unprivileged: bool = False


@dataclass(frozen=True)
class Subproblem:
    name: str
    subscores: tuple[str, ...]


@dataclass(frozen=True)
class Task:
    id: str
    path: Path
    title: str
    category: str
    instruction: str
    version: int = 1  # [metadata] version: raised when the task changes; in every record
    agent_timeout: float = 1800.0
    max_turns: int = 200
    grader_timeout: float = 300.0
    grader_command: str = "python tests/grade.py"
    # [verifier] writable: folders of the submission the grader may write (the app's
    # data it adds rows to); it sees the rest read-only
    grader_writable: tuple[str, ...] = ()
    services_timeout: float = 60.0
    # [setup] command: runs after the fixtures, before the services, outside the sandbox
    # with the control plane (e.g. checkout-gym's hidden sessions).
    setup_command: str | None = None
    setup_timeout: float = 120.0
    services: tuple[Service, ...] = ()
    api_version: str | None = None
    fixtures: tuple[dict[str, Any], ...] = ()
    subproblems: tuple[Subproblem, ...] = ()
    tags: tuple[str, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def environment(self) -> Path:
        return self.path / "environment"

    @property
    def tests(self) -> Path:
        return self.path / "tests"

    @property
    def solution(self) -> Path:
        return self.path / "solution"


# The task.toml format: every table and the keys it may hold. Anything else is refused
# with its name and the file (a misspelt key would otherwise be silently ignored).
KEYS: dict[str, frozenset[str]] = {
    "": frozenset({"metadata", "agent", "verifier", "environment", "setup", "stripe",
                   "services", "subproblems"}),
    "metadata": frozenset({"id", "version", "title", "category", "tags"}),
    "agent": frozenset({"timeout_sec", "max_turns"}),
    "verifier": frozenset({"timeout_sec", "command", "writable"}),
    # cpus, memory_mb: what a trial needs (Harbor's names; the Ray executor reads them)
    "environment": frozenset({"services_timeout_sec", "cpus", "memory_mb"}),
    "setup": frozenset({"command", "timeout_sec"}),
    "stripe": frozenset({"api_version", "fixtures", "fixtures_file"}),
    "services": frozenset({"name", "command", "port", "ready_url", "unprivileged"}),
    "subproblems": frozenset({"name", "subscores"}),
}
ARRAYS = ("services", "subproblems")  # arrays of tables; the others are tables


class TaskToml:
    """task.toml read strictly: each table checked against KEYS before anything is
    taken from it, so every error names the key and the file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise TaskError(f"{path}: {exc}") from exc
        self._only(self.data, "")
        for name in KEYS[""]:
            value = self.data.get(name)
            if value is None:
                continue
            if name in ARRAYS:
                if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                    raise TaskError(f"{path}: [[{name}]] must be an array of tables")
                for n, entry in enumerate(value):
                    self._only(entry, name, f"{name}[{n}]")
            elif not isinstance(value, dict):
                raise TaskError(f"{path}: [{name}] must be a table")
            else:
                self._only(value, name)

    def _only(self, table: dict[str, Any], kind: str, where: str | None = None) -> None:
        unknown = sorted(set(table) - KEYS[kind])
        if unknown:
            place = f"[{where or kind}] " if kind else "the top level "
            raise TaskError(f"{self.path}: unknown key {unknown[0]!r} in {place}(known: "
                            f"{', '.join(sorted(KEYS[kind]))})")

    def table(self, name: str) -> dict[str, Any]:
        value: dict[str, Any] = self.data.get(name, {})
        return value

    def array(self, name: str) -> list[dict[str, Any]]:
        value: list[dict[str, Any]] = self.data.get(name, [])
        return value

    def number(self, table: str, key: str, default: float) -> float:
        value = self.table(table).get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise TaskError(f"{self.path}: {table}.{key} must be a positive number, "
                            f"got {value!r}")
        return float(value)

    def version(self) -> int:
        value = self.table("metadata").get("version")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise TaskError(f"{self.path}: metadata.version must be a whole number >= 1 "
                            f"(raise it when the task changes), got {value!r}")
        return value


def load_fixtures(task_dir: Path, stripe: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """Fixture calls from `[[stripe.fixtures]]` and/or the file named by `fixtures_file`."""
    calls: list[Any] = list(stripe.get("fixtures", []))
    if "fixtures_file" in stripe:
        path = task_dir / str(stripe["fixtures_file"])
        if not path.is_file():
            raise TaskError(f"stripe.fixtures_file {path.name!r} does not exist")
        text = path.read_text()
        loaded = tomllib.loads(text).get("fixtures", []) if path.suffix == ".toml" \
            else json.loads(text)
        if not isinstance(loaded, list):
            raise TaskError(f"{path.name} must hold a list of fixture calls")
        calls.extend(loaded)
    return tuple(parse_call(c, n) for n, c in enumerate(calls))


def load_task(path: Path) -> Task:
    path = Path(path).resolve()
    toml_path = path / "task.toml"
    if not toml_path.is_file():
        raise TaskError(f"{path}: no task.toml")
    toml = TaskToml(toml_path)
    meta = toml.table("metadata")
    task_id = str(meta.get("id", path.name))
    if not TASK_ID.match(task_id):
        raise TaskError(f"{path.name}: bad task id {task_id!r} (lowercase, digits, - _ .)")
    category = str(meta.get("category", ""))
    if category not in CATEGORIES:
        raise TaskError(f"{task_id}: category must be one of {', '.join(CATEGORIES)}, "
                        f"got {category!r}")
    version = toml.version()
    instruction_path = path / "instruction.md"
    if not instruction_path.is_file():
        raise TaskError(f"{task_id}: no instruction.md")
    stripe = toml.table("stripe")
    services = []
    for n, raw in enumerate(toml.array("services")):
        if not raw.get("command"):
            raise TaskError(f"{task_id}: services[{n}] needs a command")
        port = raw.get("port")
        if port is not None and (not isinstance(port, int) or not 0 < port < 65536):
            raise TaskError(f"{task_id}: services[{n}].port must be a port number")
        unprivileged = raw.get("unprivileged", False)
        if not isinstance(unprivileged, bool):
            raise TaskError(f"{task_id}: services[{n}].unprivileged must be true or false")
        services.append(Service(name=str(raw.get("name", f"service{n}")),
                                command=str(raw["command"]), port=port,
                                ready_url=raw.get("ready_url"), unprivileged=unprivileged))
    subproblems = []
    for n, raw in enumerate(toml.array("subproblems")):
        if not raw.get("name") or not raw.get("subscores"):
            raise TaskError(f"{task_id}: subproblems[{n}] needs a name and subscores")
        subproblems.append(Subproblem(str(raw["name"]), tuple(map(str, raw["subscores"]))))
    return Task(
        id=task_id, path=path, title=str(meta.get("title", task_id)), version=version,
        category=category, instruction=instruction_path.read_text(),
        agent_timeout=toml.number("agent", "timeout_sec", 1800),
        max_turns=int(toml.number("agent", "max_turns", 200)),
        grader_timeout=toml.number("verifier", "timeout_sec", 300),
        grader_command=str(toml.table("verifier").get("command", _default_grader(path))),
        grader_writable=_writable(task_id, toml.table("verifier").get("writable", [])),
        services_timeout=toml.number("environment", "services_timeout_sec", 60),
        setup_command=toml.table("setup").get("command"),
        setup_timeout=toml.number("setup", "timeout_sec", 120),
        services=tuple(services), api_version=stripe.get("api_version"),
        fixtures=load_fixtures(path, stripe), subproblems=tuple(subproblems),
        tags=tuple(map(str, meta.get("tags", []))), raw=toml.data,
    )


def _writable(task_id: str, raw: Any) -> tuple[str, ...]:
    """[verifier] writable: plain relative folder names inside the submission."""
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise TaskError(f"{task_id}: verifier.writable must be a list of folder names")
    for name in raw:
        parts = Path(name).parts
        if not parts or Path(name).is_absolute() or ".." in parts or parts[0] == ".stripebench":
            raise TaskError(f"{task_id}: verifier.writable {name!r} must be a folder inside "
                            "the submission")
    return tuple(raw)


def _default_grader(path: Path) -> str:
    if (path / "tests" / "test.sh").is_file():
        return "bash tests/test.sh"
    return "python tests/grade.py"


def problems(task: Task) -> list[str]:
    """Everything wrong with a task directory that loading alone does not catch."""
    found = []
    if not task.environment.is_dir():
        found.append("no environment/ directory")
    if not task.tests.is_dir():
        found.append("no tests/ directory (the grader)")
    if not (task.solution / "solve.sh").is_file():
        found.append("no solution/solve.sh (the oracle)")
    if not task.instruction.strip():
        found.append("instruction.md is empty")
    names = [s.name for s in task.services]
    if len(set(names)) != len(names):
        found.append("two services share a name")
    refs = [c["ref"] for c in task.fixtures if c.get("ref")]
    if len(set(refs)) != len(refs):
        found.append("two fixtures share a ref")
    return found


def discover(root: Path) -> list[Task]:
    """Every task under `root` (a directory of task directories), sorted by id."""
    root = Path(root)
    if (root / "task.toml").is_file():
        return [load_task(root)]
    if not root.is_dir():
        return []
    return sorted((load_task(p) for p in root.iterdir() if (p / "task.toml").is_file()),
                  key=lambda t: t.id)


def select(tasks: list[Task], ids: list[str] | None = None,
           category: str | None = None) -> list[Task]:
    if ids:
        by_id = {t.id: t for t in tasks}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise TaskError(f"unknown task(s): {', '.join(missing)}; "
                            f"known: {', '.join(sorted(by_id)) or 'none'}")
        tasks = [by_id[i] for i in ids]
    if category:
        if category not in CATEGORIES:
            raise TaskError(f"category must be one of {', '.join(CATEGORIES)}")
        tasks = [t for t in tasks if t.category == category]
    return tasks
