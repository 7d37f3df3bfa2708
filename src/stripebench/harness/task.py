"""Task directories: `task.toml`, `instruction.md`, `environment/`, `tests/`, `solution/`.

The layout resembles Harbor's (Terminal-Bench 2) but is not a Harbor task: `stripebench
export harbor` writes genuine ones (integrations/harbor_export.py). The
stripebench-specific parts are `[[services]]` (what the environment runs and how to know
it is up), `[stripe]` (API version and fixtures to seed) and `[[subproblems]]`.
The full format is documented in docs/tasks.md.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
    agent_timeout: float = 1800.0
    max_turns: int = 200
    grader_timeout: float = 300.0
    grader_command: str = "python tests/grade.py"
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


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise TaskError(f"[{key}] must be a table")
    return value


def _number(table: dict[str, Any], key: str, default: float, where: str) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise TaskError(f"{where}.{key} must be a positive number, got {value!r}")
    return float(value)


def load_fixtures(task_dir: Path, stripe: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """Fixture calls from `[[stripe.fixtures]]` and/or the file named by `fixtures_file`."""
    import json

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
    from .fixtures import parse_call

    return tuple(parse_call(c, n) for n, c in enumerate(calls))


def load_task(path: Path) -> Task:
    path = Path(path).resolve()
    toml_path = path / "task.toml"
    if not toml_path.is_file():
        raise TaskError(f"{path}: no task.toml")
    try:
        data = tomllib.loads(toml_path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(f"{toml_path}: {exc}") from exc
    meta = _table(data, "metadata")
    task_id = str(meta.get("id", data.get("id", path.name)))
    if not TASK_ID.match(task_id):
        raise TaskError(f"{path.name}: bad task id {task_id!r} (lowercase, digits, - _ .)")
    category = str(meta.get("category", data.get("category", "")))
    if category not in CATEGORIES:
        raise TaskError(f"{task_id}: category must be one of {', '.join(CATEGORIES)}, "
                        f"got {category!r}")
    instruction_path = path / "instruction.md"
    if not instruction_path.is_file():
        raise TaskError(f"{task_id}: no instruction.md")
    agent = _table(data, "agent")
    verifier = _table(data, "verifier")
    environment = _table(data, "environment")
    stripe = _table(data, "stripe")
    services = []
    for n, raw in enumerate(data.get("services", [])):
        if not isinstance(raw, dict) or not raw.get("command"):
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
    for n, raw in enumerate(data.get("subproblems", [])):
        if not isinstance(raw, dict) or not raw.get("name") or not raw.get("subscores"):
            raise TaskError(f"{task_id}: subproblems[{n}] needs a name and subscores")
        subproblems.append(Subproblem(str(raw["name"]), tuple(map(str, raw["subscores"]))))
    return Task(
        id=task_id, path=path, title=str(meta.get("title", data.get("title", task_id))),
        category=category, instruction=instruction_path.read_text(),
        agent_timeout=_number(agent, "timeout_sec", 1800, "agent"),
        max_turns=int(_number(agent, "max_turns", 200, "agent")),
        grader_timeout=_number(verifier, "timeout_sec", 300, "verifier"),
        grader_command=str(verifier.get("command", _default_grader(path))),
        services_timeout=_number(environment, "services_timeout_sec", 60, "environment"),
        setup_command=_table(data, "setup").get("command"),
        setup_timeout=_number(_table(data, "setup"), "timeout_sec", 120, "setup"),
        services=tuple(services), api_version=stripe.get("api_version"),
        fixtures=load_fixtures(path, stripe), subproblems=tuple(subproblems),
        tags=tuple(map(str, meta.get("tags", []))), raw=data,
    )


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
