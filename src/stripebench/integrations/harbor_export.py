"""`stripebench export harbor --out DIR`: our tasks as genuine Harbor tasks.

Our own task layout resembles Harbor's but is not one (no tests/test.sh, our own
reward.json shape, fields Harbor does not know). The export writes, per task:

    <id>/task.toml        Harbor's schema; our extra facts (services, sub-problems, turn
                          limit, API version) under [metadata.stripebench]
    <id>/instruction.md   the instruction plus the environment the agent works in
    <id>/environment/     Dockerfile, entrypoint.sh, stripebench's source, project/
                          (tasks/<id>/, the task definition and starter repo, laid out
                          as in our repository, with the node_modules packages its
                          hidden setup reads; root-only in the image), the offline
                          package caches the task installs from
    <id>/tests/           test.sh (runs our hidden grader, writes Harbor's reward) and
                          our grader's files
    <id>/solution/        solve.sh (runs our reference solution in /app)

In the container the entrypoint runs `harbor_runtime start` (emulator, account,
fixtures, setup, services) before Harbor's agent; the verifier shares the agent's
container because the grader needs what the agent left there (the emulator's state and
the services), so the task tells `harbor lint` to skip its shared-verifier rule. The
verifier runs as root and keeps the agent's code away from its own files: the services
it restarts, and whatever the grader launches, run as the agent's user (see
harbor_runtime.grade).
"""

from __future__ import annotations

import json
import shutil
from importlib.metadata import version as package_version
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ..harness.emulator import Account
from ..harness.prompt import task_prompt
from ..harness.proof.variants import reference_copy
from ..harness.sandbox import npm_cache, wheelhouse
from ..harness.task import Task
from ..harness.trial import agent_env, service_env

APP = "/app"
HOME = "/opt/stripebench"
CACHES = "/opt/stripebench-cache"
AGENT_ENV = "/etc/stripebench/agent.env"
AGENT_USER = "agent"
EMULATOR_PORT = 12111
BASE_IMAGE = "python:3.11-slim-bookworm"


class ExportError(RuntimeError):
    pass


def source_tree() -> Path:
    """The stripebench checkout this runs from (the image installs it from source)."""
    root = Path(__file__).resolve().parents[3]
    if not (root / "pyproject.toml").is_file() or not (root / "src" / "stripebench").is_dir():
        raise ExportError(f"export installs stripebench from its source checkout; "
                          f"{root} is not one")
    return root


def _copy_source(root: Path, into: Path) -> None:
    into.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(root / name, into / name)
    shutil.copytree(root / "src", into / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))


def export_tasks(tasks: list[Task], out: Path) -> list[Path]:
    """Export every task under `out/<id>/` (replacing an earlier export of it)."""
    root = source_tree()
    return [export_task(task, out / task.id, root) for task in tasks]


def export_task(task: Task, target: Path, root: Path) -> Path:
    if target.exists():
        shutil.rmtree(target)
    environment = target / "environment"
    _copy_source(root, environment / "stripebench")
    project = environment / "project"
    _copy_definition(task, project / "tasks" / task.id)
    _copy_node_packages(task, project / "node_modules")
    caches = _copy_caches(task, environment)
    (environment / "Dockerfile").write_text(dockerfile(task, caches))
    _write_script(environment / "entrypoint.sh", ENTRYPOINT)
    tests = target / "tests"
    shutil.copytree(task.tests, tests, symlinks=False)
    _write_script(tests / "test.sh", TEST_SH)
    solution = target / "solution"
    reference_copy(task.solution, solution / "stripebench")  # no mutants/, alternatives/
    _write_script(solution / "solve.sh", SOLVE_SH)
    (target / "instruction.md").write_text(instruction(task, bool(caches)))
    (target / "task.toml").write_text(task_toml(task))
    return target


def _copy_definition(task: Task, into: Path) -> None:
    """What the container needs to set the trial up: tests/ and solution/ only for a
    task with a hidden [setup], which may run from there (root-only in the image, like
    the rest of the definition: the agent's user cannot read it)."""
    hidden = set() if task.setup_command else {"tests", "solution"}
    shutil.copytree(task.path, into, symlinks=False,
                    ignore=lambda folder, names: [n for n in names if Path(folder) == task.path
                                                  and n in hidden]
                    + [n for n in names if n in ("__pycache__", "node_modules")])
    (into / "environment").mkdir(exist_ok=True)  # the Dockerfile copies it to /app


def _copy_node_packages(task: Task, into: Path) -> None:
    """The project's npm packages a task's hidden setup reads (say, connect-js it
    vendors into the starter), at the same place relative to the task as in our repo."""
    installed = source_tree() / "node_modules"
    if not task.setup_command or not installed.is_dir():
        return
    texts = "\n".join(p.read_text(errors="ignore") for p in task.tests.rglob("*.py"))
    names = [p.name for p in installed.iterdir() if not p.name.startswith((".", "@"))]
    names += [f"{scope.name}/{p.name}" for scope in installed.glob("@*") for p in
              scope.iterdir()]
    for name in names:
        if f'"{name}"' in texts or f"/{name}/" in texts or \
                " / ".join(f'"{part}"' for part in name.split("/")) in texts:
            shutil.copytree(installed / name, into / name, symlinks=False)


def _copy_caches(task: Task, environment: Path) -> list[str]:
    """The offline wheelhouse and npm cache (in the image under CACHES) for a task
    whose starter installs from them."""
    copied = []
    for name, source in (("wheelhouse", wheelhouse()), ("npm", npm_cache())):
        variable = "STRIPEBENCH_WHEELHOUSE" if name == "wheelhouse" else \
            "STRIPEBENCH_NPM_CACHE"
        if source is not None and _mentions(task, variable):
            shutil.copytree(source, environment / "caches" / name)
            copied.append(name)
    return copied


def _mentions(task: Task, text: str) -> bool:
    places = [task.path / "instruction.md", *task.environment.rglob("*")]
    for path in places:
        if path.is_file() and "node_modules" not in path.parts:
            try:
                if text in path.read_text(errors="ignore"):
                    return True
            except OSError:
                continue
    return False


def _write_script(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


def dockerfile(task: Task, caches: list[str]) -> str:

    version = package_version("playwright")  # the graders' browser driver, pinned
    cache_lines = "".join(f"COPY caches/{name}/ {CACHES}/{name}/\n" for name in caches)
    cache_env = "".join(
        f"ENV {variable}={CACHES}/{name}\n" for name, variable in
        (("wheelhouse", "STRIPEBENCH_WHEELHOUSE"), ("npm", "STRIPEBENCH_NPM_CACHE"))
        if name in caches)
    return f"""\
# {task.id}: {task.title}
# Written by `stripebench export harbor`. The entrypoint sets the trial up (the local
# Stripe emulator, the trial's account and fixtures, the task's services) before the
# agent starts; the agent works in {APP} as the user `{AGENT_USER}`.
FROM {BASE_IMAGE}

RUN apt-get update \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \\
      chromium nodejs npm curl git procps util-linux \\
 && rm -rf /var/lib/apt/lists/*

COPY stripebench/ {HOME}/src/
RUN pip install --no-cache-dir {HOME}/src playwright=={version}

COPY project/ {HOME}/project/
COPY project/tasks/{task.id}/environment/ {APP}/
COPY entrypoint.sh {HOME}/entrypoint.sh
{cache_lines}
RUN useradd --create-home --shell /bin/bash {AGENT_USER} \\
 && chown -R {AGENT_USER}:{AGENT_USER} {APP} \\
 && chmod 700 {HOME} \\
 && mkdir -p /etc/stripebench \\
 && echo '[ -r {AGENT_ENV} ] && . {AGENT_ENV}' > /etc/profile.d/stripebench.sh \\
 && echo '[ -r {AGENT_ENV} ] && . {AGENT_ENV}' >> /etc/bash.bashrc

# Every shell gets the trial's variables: login shells through profile.d, interactive
# ones through bash.bashrc, `bash -c` through BASH_ENV.
ENV BASH_ENV={AGENT_ENV} \\
    STRIPEBENCH_HOME={HOME} \\
    STRIPEBENCH_TASK={task.id} \\
    STRIPEBENCH_APP={APP} \\
    STRIPEBENCH_AGENT_ENV={AGENT_ENV} \\
    STRIPEBENCH_AGENT_USER={AGENT_USER} \\
    STRIPEBENCH_EMULATOR_PORT={EMULATOR_PORT}
{cache_env}WORKDIR {APP}
ENTRYPOINT ["{HOME}/entrypoint.sh"]
CMD ["sleep", "infinity"]
"""


ENTRYPOINT = """\
#!/bin/sh
# The container's entrypoint: set the stripebench trial up, then run the command
# (Harbor's keep-alive). A trial that cannot be set up stops the container, loudly.
set -e
cd /
python -m stripebench.integrations.harbor_runtime start
exec "$@"
"""

TEST_SH = """\
#!/usr/bin/env bash
# Harbor's verifier: stripebench's hidden grader over the agent's work (the services
# restart first), then Harbor's reward file: a flat map of numbers, `reward` the total.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd /
exec python -m stripebench.integrations.harbor_runtime grade --tests "$here" \\
  --reward "${STRIPEBENCH_REWARD:-/logs/verifier/reward.json}"
"""

SOLVE_SH = """\
#!/usr/bin/env bash
# Harbor's oracle: stripebench's reference solution, run in the agent's working directory.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ -r "${STRIPEBENCH_AGENT_ENV:-/etc/stripebench/agent.env}" ] &&
  . "${STRIPEBENCH_AGENT_ENV:-/etc/stripebench/agent.env}"
export STRIPEBENCH_WORKDIR="${STRIPEBENCH_APP:-/app}"
cd "$STRIPEBENCH_WORKDIR"
exec bash "$here/stripebench/solve.sh"
"""


def instruction(task: Task, caches: bool) -> str:
    """The prompt `stripebench run` gives, for the container's paths and ports (the
    variables' names only: their values exist once the container runs)."""
    ports = {s.name: s.port for s in task.services if s.port}
    account = Account("acct_", "", "", "")
    env = {**agent_env(account, SimpleNamespace(base="")),  # type: ignore[arg-type]
           **service_env(task, {s.name: 0 for s in task.services})}
    env.pop("PATH", None)
    if not caches:
        env.pop("STRIPEBENCH_WHEELHOUSE", None)
        env.pop("STRIPEBENCH_NPM_CACHE", None)
    text = task_prompt(task, Path(APP), env, ports)
    return text + (f"The variables are in `{AGENT_ENV}`, which every shell sources; "
                   f"source it yourself in a shell that lacks them. Stripe here is a local "
                   f"emulator at `$STRIPE_API_BASE`.\n")


def task_toml(task: Task) -> str:
    meta: dict[str, Any] = {
        "id": task.id, "title": task.title, "category": task.category,
        "tags": list(task.tags), "source": "stripebench",
    }
    extra: dict[str, Any] = {"max_turns": task.max_turns,
                             "services": [{k: v for k, v in s.__dict__.items() if v is not None}
                                          for s in task.services],
                             "subproblems": [{"name": s.name, "subscores": list(s.subscores)}
                                             for s in task.subproblems]}
    if task.api_version:
        extra["api_version"] = task.api_version
    # the grader restarts the services and may run them as long as they took to start
    verifier_timeout = task.grader_timeout + task.services_timeout + 60
    lines = [f"# {task.id}, exported by `stripebench export harbor`.",
             'schema_version = "1.4"', "",
             "[metadata]", *_assignments(meta), "",
             "[metadata.stripebench]", *_assignments(extra), "",
             "[metadata.harbor.lint]",
             "# The grader needs the agent's container: the emulator's state and the",
             "# services it restarts live there.",
             'ignore = ["shared-verifier"]', "",
             "[agent]", f"timeout_sec = {task.agent_timeout:g}", f'user = "{AGENT_USER}"', "",
             "[verifier]", f"timeout_sec = {verifier_timeout:g}",
             "# root: it ends the agent's processes, locks its own files away and runs",
             f"# the agent's services as `{AGENT_USER}` (harbor_runtime grade)",
             'user = "root"', "",
             "[environment]", "build_timeout_sec = 1800", f'workdir = "{APP}"',
             "# offline like every stripebench trial: Stripe is the local emulator",
             'network_mode = "no-network"', "",
             "[environment.healthcheck]",
             f'command = "test -f {Path(AGENT_ENV).parent}/ready"',
             "interval_sec = 1", "start_period_sec = "
             f"{task.services_timeout + task.setup_timeout + 60:g}",
             "start_interval_sec = 1", "retries = 3", ""]
    return "\n".join(lines)


def _assignments(table: dict[str, Any]) -> list[str]:
    return [f"{key} = {_toml_value(value)}" for key, value in table.items()]


def _toml_value(value: Any) -> str:

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}"
                                for k, v in value.items()) + " }"
    raise ExportError(f"cannot write {value!r} to task.toml")
