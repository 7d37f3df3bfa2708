"""`stripebench export harbor`: genuine Harbor tasks.

Harbor itself (the `harbor` package, in the Python 3.12 venv `.venv-harbor` that
scripts/setup.sh makes) lints and loads every exported task: `harbor lint` with its
default rules, and its `Task` class, which validates the config and the verifier script.
Our own tasks/ directories, by contrast, are refused by it.

There is no Docker engine here, so the container's entrypoint and tests/test.sh run
directly on this machine, with the container's paths pointed at temporary folders:
the entrypoint starts a real emulator and the task's services, the reference solution
runs, test.sh grades and writes Harbor's reward file (oracle 1.0, noop 0.0).

The container's `agent` user is played by a throwaway system user made for these tests
(`agent_user`; grading kills every process of that user, so it must be nobody else's),
the verifier by root, as in Harbor (wall 6: the verifier runs the agent's code as the
agent's user, away from its own files).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_user import throwaway_user
from paths import REPO, TESTS
from stripebench.harness.emulator import free_port
from stripebench.harness.task import discover, load_task
from stripebench.integrations.harbor_export import export_tasks
from stripebench.integrations.harbor_runtime import processes_of

ROOT = REPO
FIXTURES = TESTS / "fixtures" / "tasks"
HARBOR = ROOT / ".venv-harbor" / "bin"


@pytest.fixture(scope="module")
def harbor() -> None:
    assert (HARBOR / "harbor").is_file(), \
        "Harbor's venv .venv-harbor is missing: run scripts/setup.sh (it needs Python 3.12)"


@pytest.fixture(scope="module")
def agent_user() -> str:
    """The container's agent user, played by a system user of its own (see
    tests/agent_user.py)."""
    return throwaway_user().pw_name


@pytest.fixture()
def open_root() -> Iterator[Path]:
    """A folder other users may enter (pytest's tmp_path is root's alone), as a
    container's / is."""
    root = Path(tempfile.mkdtemp(prefix="stripebench-harbor-user-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("harbor")
    export_tasks(discover(ROOT / "tasks"), out)
    return out


def harbor_lint(*paths: Path) -> list[dict[str, Any]]:
    done = subprocess.run([str(HARBOR / "harbor"), "lint", "--json", *map(str, paths)],
                          capture_output=True, text=True, timeout=120)
    findings: list[dict[str, Any]] = json.loads(done.stdout or "[]")
    assert done.returncode == (1 if findings else 0), done.stderr
    return findings


LOAD = """
import json, sys
from harbor.models.task.task import Task
for path in sys.argv[1:]:
    task = Task(path)
    print(json.dumps({"name": task.name, "instruction": task.instruction,
                      "user": task.config.agent.user,
                      "timeout": task.config.agent.timeout_sec,
                      "healthcheck": task.config.environment.healthcheck.command}))
"""


def test_every_exported_task_passes_harbor_lint_and_loads(exported: Path, harbor: None
                                                          ) -> None:
    tasks = sorted(p for p in exported.iterdir() if p.is_dir())
    assert [p.name for p in tasks] == sorted(t.id for t in discover(ROOT / "tasks"))
    assert harbor_lint(*tasks) == []
    done = subprocess.run([str(HARBOR / "python"), "-c", LOAD, *map(str, tasks)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = [json.loads(line) for line in done.stdout.splitlines()]
    assert [t["name"] for t in loaded] == [p.name for p in tasks]
    for task, path in zip(loaded, tasks, strict=True):
        ours = load_task(ROOT / "tasks" / path.name)
        assert task["user"] == "agent" and task["timeout"] == ours.agent_timeout
        assert ours.instruction.strip()[:200] in task["instruction"]
        assert "/etc/stripebench/agent.env" in task["instruction"]
        assert task["healthcheck"] == "test -f /etc/stripebench/ready"


def test_our_own_task_directories_are_not_harbor_tasks(harbor: None) -> None:
    """Why the export exists: Harbor refuses tasks/ as it is."""
    findings = harbor_lint(ROOT / "tasks" / "webhook-fulfillment")
    messages = " ".join(f["message"] for f in findings)
    assert "Missing OS-compatible verifier script" in messages
    assert "Unknown field 'services'" in messages


def test_export_layout_keeps_hidden_parts_out_of_the_image(exported: Path) -> None:
    task = exported / "webhook-fulfillment"
    environment = task / "environment"
    # the grader and the solution reach the container only at verification / oracle time
    definition = environment / "project" / "tasks" / "webhook-fulfillment"
    assert definition.is_dir()
    assert not (definition / "tests").exists() and not (definition / "solution").exists()
    assert (task / "tests" / "test.sh").is_file() and (task / "tests" / "grade.py").is_file()
    assert (task / "solution" / "solve.sh").is_file()
    # the reference travels, its mutants and alternatives (the grader's proof) do not
    reference = task / "solution" / "stripebench"
    assert (reference / "app.py").is_file() and (reference / "register.py").is_file()
    assert not (reference / "mutants").exists() and not (reference / "alternatives").exists()
    dockerfile = (environment / "Dockerfile").read_text()
    assert "chmod 700 /opt/stripebench" in dockerfile  # project/, state/: root only
    assert 'ENTRYPOINT ["/opt/stripebench/entrypoint.sh"]' in dockerfile
    config = tomllib.loads((task / "task.toml").read_text())
    assert config["metadata"]["stripebench"]["max_turns"] == load_task(
        ROOT / "tasks" / "webhook-fulfillment").max_turns
    assert config["environment"]["network_mode"] == "no-network"
    # a task whose hidden setup runs from its tests/ and solution/ keeps them, root-only,
    # with the npm package its setup vendors into the starter
    connect = exported / "connect-payments-dashboard" / "environment" / "project"
    assert (connect / "tasks" / "connect-payments-dashboard" / "tests" / "prepare.py").is_file()
    assert (connect / "node_modules" / "@stripe" / "connect-js" / "dist").is_dir()
    assert [p.name for p in (connect / "node_modules").iterdir()] == ["@stripe"]
    # the offline wheelhouse travels only with the task that installs from it
    assert (exported / "sdk-upgrade-python" / "environment" / "caches" / "wheelhouse").is_dir()
    assert not (environment / "caches").exists()


# ---------------------------------------------------------------- the container, run here

class Container:
    """An exported task's container paths, mapped to temporary folders."""

    def __init__(self, task_dir: Path, root: Path) -> None:
        self.task_dir = task_dir
        self.home, self.app = root / "opt", root / "app"
        self.agent_env = root / "etc" / "agent.env"
        self.reward = root / "logs" / "verifier" / "reward.json"
        import shutil

        shutil.copytree(task_dir / "environment" / "project", self.home / "project")
        shutil.copytree(task_dir / "environment" / "project" / "tasks" / task_dir.name /
                        "environment", self.app)
        self.env = {**os.environ, "STRIPEBENCH_HOME": str(self.home),
                    "STRIPEBENCH_APP": str(self.app),
                    "STRIPEBENCH_AGENT_ENV": str(self.agent_env),
                    "STRIPEBENCH_EMULATOR_PORT": str(free_port()),
                    "STRIPEBENCH_REWARD": str(self.reward),
                    # this machine's ports are shared: the service gets a free one
                    "STRIPEBENCH_SERVICE_PORTS": "fresh",
                    "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}

    def run(self, *command: str, cwd: Path = Path("/")) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(command), env=self.env, capture_output=True, text=True,
                              timeout=300, cwd=cwd)

    def stop(self) -> None:
        described = self.home / "state" / "trial.json"
        if described.is_file():
            try:
                os.kill(json.loads(described.read_text())["emulator_pid"], signal.SIGTERM)
            except OSError:
                pass


@pytest.fixture()
def shop(tmp_path: Path) -> Any:
    export_tasks([load_task(FIXTURES / "fixture-shop")], tmp_path / "export")
    container = Container(tmp_path / "export" / "fixture-shop", tmp_path / "container")
    yield container
    container.stop()


def start(container: Container) -> None:
    entry = container.task_dir / "environment" / "entrypoint.sh"
    done = container.run("sh", str(entry), "true")  # `true`: Harbor's keep-alive command
    assert done.returncode == 0, done.stderr
    assert (container.agent_env.parent / "ready").is_file()


def test_entrypoint_sets_the_trial_up_and_oracle_scores_one(shop: Container) -> None:
    start(shop)
    variables = shop.agent_env.read_text()
    assert "export STRIPE_SECRET_KEY=sk_test_" in variables and "WEB_URL" in variables
    assert "CONTROL_TOKEN" not in variables  # the control plane stays the harness's
    assert (shop.home / "state").stat().st_mode & 0o777 == 0o700
    # the task's service runs and answers (it reads customer.txt, absent yet)
    web = next(line.split("=", 1)[1] for line in variables.splitlines()
               if line.startswith("export WEB_URL="))
    import httpx

    assert httpx.get(f"{web}/health", timeout=5).status_code == 200
    solve = shop.run("bash", str(shop.task_dir / "solution" / "solve.sh"))
    assert solve.returncode == 0, solve.stderr
    assert (shop.app / "customer.txt").read_text().startswith("cus_")
    graded = shop.run("bash", str(shop.task_dir / "tests" / "test.sh"))
    assert graded.returncode == 0, graded.stdout + graded.stderr
    reward = json.loads(shop.reward.read_text())
    assert reward == {"reward": 1.0, "gate:stripe_untouched": 1.0, "customer_created": 1.0,
                      "customer_file": 1.0, "app_reports_customer": 1.0}


def test_noop_scores_zero_in_harbors_reward_format(shop: Container) -> None:
    start(shop)
    graded = shop.run("bash", str(shop.task_dir / "tests" / "test.sh"))
    assert graded.returncode == 0, graded.stdout + graded.stderr
    reward = json.loads(shop.reward.read_text())
    assert reward["reward"] == 0.0
    assert all(isinstance(v, float) for v in reward.values())  # Harbor: numbers only


def test_grading_kills_what_the_agent_left_in_the_workdir(shop: Container) -> None:
    """A background process the agent left would otherwise rewrite files while the
    grader reads them (and hold the service's port). The verifier's own shell works in
    /app too (Harbor's workdir): it and test.sh must survive to deliver the reward."""
    start(shop)
    leftover = subprocess.Popen(["sh", "-c", "while :; do echo cus_forged > customer.txt; "
                                 "sleep 0.05; done"], cwd=shop.app, start_new_session=True)
    try:
        graded = shop.run("bash", "-c", f"bash {shop.task_dir / 'tests' / 'test.sh'}; "
                          "echo verifier shell alive", cwd=shop.app)
        assert graded.returncode == 0, graded.stdout + graded.stderr
        assert "verifier shell alive" in graded.stdout
        assert leftover.wait(timeout=10) == -signal.SIGKILL
        assert json.loads(shop.reward.read_text())["reward"] == 0.0
    finally:
        if leftover.poll() is None:
            leftover.kill()


def test_a_failing_setup_stops_the_container_loudly(tmp_path: Path) -> None:
    export_tasks([load_task(FIXTURES / "fixture-broken-service")], tmp_path / "export")
    container = Container(tmp_path / "export" / "fixture-broken-service", tmp_path / "c")
    try:
        done = container.run("sh", str(container.task_dir / "environment" / "entrypoint.sh"),
                             "true")
        assert done.returncode != 0
        assert "could not be set up" in done.stderr
        assert not (container.agent_env.parent / "ready").exists()
    finally:
        container.stop()


@pytest.mark.parametrize("agent, wanted", [("oracle", 1.0), ("noop", 0.0)])
def test_a_real_task_in_its_container_oracle_one_noop_zero(
        exported: Path, tmp_path: Path, agent: str, wanted: float) -> None:
    """webhook-fulfillment: a service, webhooks routed to it, a grader that restarts the
    shop and replays deliveries; the reference solution registers its endpoint."""
    container = Container(exported / "webhook-fulfillment", tmp_path)
    try:
        start(container)
        if agent == "oracle":
            solve = container.run("bash", str(container.task_dir / "solution" / "solve.sh"))
            assert solve.returncode == 0, solve.stdout + solve.stderr
        graded = container.run("bash", str(container.task_dir / "tests" / "test.sh"))
        assert graded.returncode == 0, graded.stdout + graded.stderr
        reward = json.loads(container.reward.read_text())
        assert reward["reward"] == wanted, graded.stdout
        assert all(isinstance(v, float) for v in reward.values()) and len(reward) > 1
        if agent == "oracle":
            assert reward["endpoint_registered"] == reward["forged_refused"] == 1.0
    finally:
        container.stop()


def test_services_run_as_the_agent_user_and_grading_ends_its_processes(
        agent_user: str, open_root: Path) -> None:
    """In the container the agent is `agent`, not root: the services run as that user
    (so the agent can restart them), and grading kills every process of that user,
    wherever it works."""
    from stripebench.harness.trial import processes_in

    user = pwd.getpwnam(agent_user)
    export_tasks([load_task(FIXTURES / "fixture-shop")], open_root / "export")
    container = Container(open_root / "export" / "fixture-shop", open_root / "c")
    container.env["STRIPEBENCH_AGENT_USER"] = agent_user
    lurker = None
    try:
        start(container)
        owners = {Path(f"/proc/{pid}").stat().st_uid for pid in processes_in(container.app)}
        assert owners == {user.pw_uid}
        assert (container.app / "app.py").stat().st_uid == user.pw_uid
        lurker = subprocess.Popen(["setpriv", f"--reuid={user.pw_uid}",
                                   f"--regid={user.pw_gid}", "--clear-groups", "sleep",
                                   "300"], cwd="/")
        graded = container.run("bash", str(container.task_dir / "tests" / "test.sh"))
        assert graded.returncode == 0, graded.stdout + graded.stderr
        assert lurker.wait(timeout=10) == -signal.SIGKILL
        assert json.loads(container.reward.read_text())["reward"] == 0.0
    finally:
        if lurker is not None and lurker.poll() is None:
            lurker.kill()
        container.stop()


# The agent's app.py, planted for the verifier: when the verifier restarts it, a thread
# keeps trying to forge Harbor's reward and the grading room's, to rewrite the grader and
# to read the verifier's tests and the trial's state (control token), writing down in
# attempts.json what it managed (a success is kept). Then it serves as the shop does.
FORGER = """
import json, os, pathlib, threading, time
TARGETS = {targets!r}
seen = {{"uid": os.getuid()}}
def forge():
    while True:
        for name, (action, path, text) in TARGETS.items():
            try:
                if action == "read":
                    pathlib.Path(path).read_text()
                else:
                    pathlib.Path(path).write_text(text)
                seen[name] = "done"
            except OSError as exc:
                if seen.get(name) != "done":
                    seen[name] = type(exc).__name__
        pathlib.Path("attempts.json").write_text(json.dumps(seen))
        time.sleep(0.05)
threading.Thread(target=forge, daemon=True).start()
"""
FORGED_GRADER = ("import json, os\nopen(os.environ['STRIPEBENCH_REWARD_PATH'], 'w')"
                 ".write(json.dumps({'total': 1.0, 'subscores': {}}))\n")


def test_the_verifier_runs_the_agents_code_as_the_agent_away_from_its_files(
        agent_user: str, open_root: Path) -> None:
    """Wall 6: Harbor's verifier is root and restarts the agent's services. They run as
    the agent's user: a service the agent planted, trying all through the verification
    to write the reward (Harbor's and the grading room's), to rewrite the grader, to read
    the verifier's tests and the trial's state, fails at each, and the reward stays the
    honest one (this work is a noop: 0). Before, the services ran as root and the forged
    grader scored 1.0."""
    user = pwd.getpwnam(agent_user)
    export_tasks([load_task(FIXTURES / "fixture-shop")], open_root / "export")
    task_dir = open_root / "export" / "fixture-shop"
    container = Container(task_dir, open_root / "c")
    container.env["STRIPEBENCH_AGENT_USER"] = agent_user
    verifier = container.reward.parent
    verifier.mkdir(parents=True)
    verifier.chmod(0o777)      # Harbor's mount, as writable to the agent as it may be
    (open_root / "c" / "logs").chmod(0o755)
    tests = task_dir / "tests"
    assert tests.stat().st_mode & 0o005 == 0o005    # uploaded readable to all, as Harbor's
    sealed = container.home / "state" / "trial" / "grading"
    targets = {
        "harbor_reward": ("write", str(container.reward), '{"reward": 1.0}'),
        "harbor_reward_txt": ("write", str(verifier / "reward.txt"), "1"),
        "verifier_tests": ("read", str(tests / "grade.py"), ""),
        "room_reward": ("write", str(sealed / "reward.json"), '{"total": 1.0}'),
        "room_grader": ("write", str(sealed / "tests" / "grade.py"), FORGED_GRADER),
        "trial_state": ("read", str(container.home / "state" / "trial.json"), ""),
    }
    try:
        start(container)
        planted = container.app / "app.py"
        planted.write_text(FORGER.format(targets=targets) + planted.read_text())
        os.chown(planted, user.pw_uid, user.pw_gid)
        graded = container.run("bash", str(task_dir / "tests" / "test.sh"))
        assert graded.returncode == 0, graded.stdout + graded.stderr
        attempts = json.loads((container.app / "attempts.json").read_text())
        assert attempts.pop("uid") == user.pw_uid     # the service ran as the agent
        assert set(attempts) == set(targets), attempts  # it tried everything at least once
        assert all(outcome == "PermissionError" for outcome in attempts.values()), attempts
        # the honest reward (a noop's), and nothing else for Harbor to read
        assert json.loads(container.reward.read_text()) == {
            "reward": 0.0, "gate:stripe_untouched": 1.0, "customer_created": 0.0,
            "customer_file": 0.0, "app_reports_customer": 0.0}
        assert sorted(p.name for p in verifier.iterdir()) == ["reward.json"]
        assert container.reward.stat().st_uid == 0
        # the verifier's tests are root's now; its folder is given back as it was
        assert tests.stat().st_uid == 0 and stat.S_IMODE(tests.stat().st_mode) == 0o700
        assert stat.S_IMODE(verifier.stat().st_mode) == 0o777
        assert processes_of(user.pw_uid) == []   # none alive (a zombie waits for init)
    finally:
        container.stop()


def test_a_reward_planted_before_an_ungradeable_verification_is_removed(
        agent_user: str, open_root: Path) -> None:
    """No reward from us (the trial could not be graded): Harbor must find none at all,
    not one the agent left in its folder (reward.txt is read when reward.json is
    missing)."""
    export_tasks([load_task(FIXTURES / "fixture-shop")], open_root / "export")
    container = Container(open_root / "export" / "fixture-shop", open_root / "c")
    container.env["STRIPEBENCH_AGENT_USER"] = agent_user
    verifier = container.reward.parent
    try:
        start(container)
        container.stop()  # the emulator dies under the trial: it cannot be graded
        pid = json.loads((container.home / "state" / "trial.json").read_text())["emulator_pid"]
        deadline = time.monotonic() + 10
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        verifier.mkdir(parents=True)
        (verifier / "reward.txt").write_text("1")
        (verifier / "reward.json").symlink_to("/etc/hostname")
        graded = container.run("bash", str(container.task_dir / "tests" / "test.sh"))
        assert graded.returncode == 1 and "not graded" in graded.stderr
        assert list(verifier.iterdir()) == []
        assert Path("/etc/hostname").is_file()   # the link went, not what it named
    finally:
        container.stop()


def test_export_command(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from stripebench.cli import app

    runner = CliRunner()
    done = runner.invoke(app, ["export", "harbor", "--out", str(tmp_path / "out"),
                               "--tasks-dir", str(FIXTURES), "--tasks", "fixture-shop"])
    assert done.exit_code == 0, done.output
    assert "1 Harbor task(s)" in done.output
    assert (tmp_path / "out" / "fixture-shop" / "tests" / "test.sh").is_file()
    unknown = runner.invoke(app, ["export", "harbor", "--out", str(tmp_path / "x"),
                                  "--tasks-dir", str(FIXTURES), "--tasks", "nope"])
    assert unknown.exit_code == 2 and "unknown task(s): nope" in unknown.output
    assert not (tmp_path / "x").exists()


def test_an_ungradeable_trial_writes_no_reward_and_says_why(shop: Container) -> None:
    """Harbor must see a verifier error, not a 0, when the trial cannot be graded (here
    the emulator died): no reward file, exit 1, one line naming the reason."""
    import time

    start(shop)
    shop.stop()  # the emulator dies under the trial
    deadline = time.monotonic() + 10
    pid = json.loads((shop.home / "state" / "trial.json").read_text())["emulator_pid"]
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    graded = shop.run("bash", str(shop.task_dir / "tests" / "test.sh"))
    assert graded.returncode == 1
    assert "not graded (harness_error): the trial could not be graded" in graded.stderr
    assert "Traceback" not in graded.stderr
    assert not shop.reward.exists()


@pytest.mark.parametrize("task_id", sorted(t.id for t in discover(ROOT / "tasks")))
def test_every_exported_entrypoint_sets_its_trial_up(exported: Path, tmp_path: Path,
                                                     task_id: str) -> None:
    """The fixtures, the hidden setup (run from the root-only task definition, with the
    npm packages it reads) and the services of every task come up in its container."""
    container = Container(exported / task_id, tmp_path)
    try:
        start(container)
        described = json.loads((container.home / "state" / "trial.json").read_text())
        assert described["task"] == task_id
        assert "STRIPE_SECRET_KEY" in container.agent_env.read_text()
    finally:
        from stripebench.integrations.standing import kill_processes_in

        kill_processes_in(container.app)
        container.stop()
