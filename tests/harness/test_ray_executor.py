"""`stripebench run --executor ray` on a real local Ray cluster: a head on 127.0.0.1 with
no CPUs of its own and two worker nodes of one CPU each (one declares the `browser`
resource), started once for the module. The driver is the real CLI in a subprocess,
joining the cluster with --ray-address and the cluster's auth token. Covers the run
directory layout (report and compare read it), the browser resource routing a trial to
its node, a worker killed mid-trial (Ray reruns the trial elsewhere, it is scored), and
kill -9 of the driver followed by --resume."""

from __future__ import annotations

import io
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paths import REPO, TESTS
from stripebench.harness.ray_executor import (
    RunError,
    check_feasible,
    pack,
    trial_resources,
    unpack,
)
from stripebench.harness.task import load_task

FIXTURES = TESTS / "fixtures" / "tasks"
TASKS = REPO / "tasks"
PASS_STEPS: list[dict[str, Any]] = [
    {"tool": "bash", "args": {"command":
        'curl -sf "$STRIPE_API_BASE/v1/customers" -u "$STRIPE_SECRET_KEY:" '
        '-d email=ada@example.com -d "name=Ada Lovelace"'
        " | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"id\"], end=\"\")'"
        " > customer.txt"}},
    {"tool": "submit", "args": {"summary": "done"}}]


class RayCluster:
    def __init__(self, cluster: Any, browser_node: str, plain_node: str,
                 env: dict[str, str]) -> None:
        self.cluster, self.address = cluster, cluster.address
        self.browser_node, self.plain_node, self.env = browser_node, plain_node, env


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RayCluster]:
    # Token authentication (Ray's default for new clusters) with a token of our own; the
    # Ray processes (and so the workers' scratch folders) inherit these from this process.
    env = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token",
           "RAY_AUTH_TOKEN": secrets.token_hex(16),
           "STRIPEBENCH_RAY_SCRATCH": str(tmp_path_factory.mktemp("ray-scratch"))}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    from ray.cluster_utils import Cluster

    loopback = {"node_ip_address": "127.0.0.1"}
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "include_dashboard": False, **loopback})
    try:
        browser = cluster.add_node(num_cpus=1, resources={"browser": 1}, **loopback)
        plain = cluster.add_node(num_cpus=1, **loopback)
        cluster.wait_for_nodes()
        yield RayCluster(cluster, browser.node_id, plain.node_id, env)
    finally:
        cluster.shutdown()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run_command(cluster: RayCluster, out: Path, *args: str, tasks_dir: Path = FIXTURES,
                tasks: str = "fixture-shop") -> list[str]:
    return [sys.executable, "-m", "stripebench.cli", "run", "--executor", "ray",
            "--ray-address", cluster.address, "--tasks-dir", str(tasks_dir), "--tasks",
            tasks, "--out", str(out), "--no-report", *args]


def cli(cluster: RayCluster, command: list[str], timeout: float = 240
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **cluster.env})


def result(out: Path, task: str, attempt: int) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "trials" / task / str(attempt) /
                                       "result.json").read_text())
    return data


def running(pid: int) -> bool:
    """Alive and not a zombie (dead, waiting to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def emulators_of(host_pid: str) -> list[int]:
    """Emulator servers whose data folder names this worker (host-pid)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "emulator serve" in cmdline and f"emulator-{host_pid}/" in cmdline:
            found.append(int(entry.name))
    return found


def test_a_run_on_the_cluster_fills_the_usual_run_directory(tmp_path: Path,
                                                            ray_cluster: RayCluster) -> None:
    # A copy of the fixture task tagged `browser`: only the browser node may run it.
    tasks_dir = tmp_path / "tasks"
    shutil.copytree(FIXTURES / "fixture-shop", tasks_dir / "fixture-shop")
    shutil.copytree(FIXTURES / "fixture-shop", tasks_dir / "fixture-shop-browser")
    toml = tasks_dir / "fixture-shop-browser" / "task.toml"
    toml.write_text(toml.read_text().replace('id = "fixture-shop"',
                                             'id = "fixture-shop-browser"')
                    .replace('tags = ["fixture"]', 'tags = ["fixture", "browser"]'))
    oracle, noop = tmp_path / "oracle", tmp_path / "noop"
    done = cli(ray_cluster, run_command(ray_cluster, oracle, "--agent", "oracle",
                                        "--attempts", "2", "--sandbox", "bwrap",
                                        tasks_dir=tasks_dir,
                                        tasks="fixture-shop,fixture-shop-browser"))
    assert done.returncode == 0, done.stderr
    records = [result(oracle, task, n) for task in ("fixture-shop", "fixture-shop-browser")
               for n in (1, 2)]
    assert [(r["status"], r["reward"]) for r in records] == [("completed", 1.0)] * 4
    assert {r["executor"]["kind"] for r in records} == {"ray"}
    assert {r["executor"]["node_id"] for r in records[2:]} == {ray_cluster.browser_node}
    # The trial folders came back whole: what the agent made, the grader's log, the record.
    trial = oracle / "trials" / "fixture-shop" / "1"
    assert (trial / "workdir" / "customer.txt").read_text().startswith("cus_")
    assert "[PASS] customer_created" in (trial / "grader.log").read_text()
    assert (trial / "transcript.jsonl").is_file() and (trial / "stripe_final.json").is_file()
    assert not list((oracle / "trials").glob("*/.*"))  # no half-unpacked folder left
    assert len({r["account"] for r in records}) == 4  # each trial its own account
    done = cli(ray_cluster, run_command(ray_cluster, noop, "--agent", "noop",
                                        "--attempts", "2", "--sandbox", "bwrap",
                                        tasks_dir=tasks_dir))
    assert done.returncode == 0, done.stderr
    assert [result(noop, "fixture-shop", n)["reward"] for n in (1, 2)] == [0.0, 0.0]
    report = subprocess.run([sys.executable, "-m", "stripebench.cli", "report", str(oracle),
                             str(noop), "--quiet", "--csv", str(tmp_path / "r.csv")],
                            capture_output=True, text=True, timeout=60)
    assert report.returncode == 0, report.stderr
    assert "fixture-shop" in (tmp_path / "r.csv").read_text()
    compare = subprocess.run([sys.executable, "-m", "stripebench.cli", "compare", str(noop),
                              str(oracle)], capture_output=True, text=True, timeout=60)
    assert compare.returncode == 0, compare.stderr
    again = cli(ray_cluster, run_command(ray_cluster, noop, "--agent", "noop", "--attempts",
                                         "2", "--resume", tasks_dir=tasks_dir))
    assert again.returncode == 0 and "(2 already done)" in " ".join(again.stdout.split())


def test_a_worker_killed_mid_trial_loses_only_that_try(tmp_path: Path,
                                                       ray_cluster: RayCluster) -> None:
    pids = tmp_path / "worker-pids"
    script = tmp_path / "script.json"
    # In a local sandbox the tool's shell is a child of the Ray worker running the trial;
    # each try notes that worker and the trial's account.
    account = ('curl -sf "$STRIPE_API_BASE/v1/account" -u "$STRIPE_SECRET_KEY:" | python3 -c '
               '\'import json,sys; print(json.load(sys.stdin)["id"])\'')
    script.write_text(json.dumps([{"tool": "bash", "args": {
        "command": f'echo "$PPID $({account})" >> {pids}'}}, {"sleep": 6}, *PASS_STEPS]))
    out = tmp_path / "run"
    proc = subprocess.Popen(run_command(ray_cluster, out, "--agent", "scripted", "--script",
                                        str(script), "--sandbox", "local", "--allow-unsealed"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **ray_cluster.env})
    deadline = time.monotonic() + 120
    while not pids.exists() or not pids.read_text().strip():
        assert time.monotonic() < deadline and proc.poll() is None, "no trial started"
        time.sleep(0.1)
    victim = int(pids.read_text().split()[0])
    assert "ray::" in Path(f"/proc/{victim}/cmdline").read_text()  # a Ray worker
    host_pid = f"{os.uname().nodename}-{victim}"
    assert emulators_of(host_pid), "the worker's own emulator should be running"
    os.kill(victim, signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr
    record = result(out, "fixture-shop", 1)
    assert record["status"] == "completed" and record["reward"] == 1.0
    tries = [line.split() for line in pids.read_text().splitlines()]
    assert len(tries) == 2 and int(tries[0][0]) == victim != int(tries[1][0])  # rerun
    assert record["executor"]["worker_pid"] == int(tries[1][0])
    # The other worker's emulator gave the redone trial the same account (the driver's salt).
    assert tries[0][1] == tries[1][1] == record["account"]
    # The dead worker's emulator died with it (the kernel's parent-death signal).
    deadline = time.monotonic() + 10
    while emulators_of(host_pid):
        assert time.monotonic() < deadline, "the killed worker's emulator outlived it"
        time.sleep(0.2)


def test_a_worker_dying_past_its_retries_is_a_harness_error_retry_errors_redoes(
        tmp_path: Path, ray_cluster: RayCluster) -> None:
    pids = tmp_path / "worker-pids"
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"tool": "bash", "args": {"command": f"echo $PPID >> {pids}"}},
                                  {"sleep": 6}, *PASS_STEPS]))
    out = tmp_path / "run"
    command = run_command(ray_cluster, out, "--agent", "scripted", "--script", str(script),
                          "--sandbox", "local", "--allow-unsealed")
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **ray_cluster.env,
                                 "STRIPEBENCH_RAY_RETRIES": "0"})
    deadline = time.monotonic() + 120
    while not pids.exists() or not pids.read_text().strip():
        assert time.monotonic() < deadline and proc.poll() is None, "no trial started"
        time.sleep(0.1)
    os.kill(int(pids.read_text().split()[0]), signal.SIGKILL)
    _, stderr = proc.communicate(timeout=180)
    # the run goes on: the trial is recorded as lost, and the exit code says a trial
    # measured nothing (issue 32: 1 for failed trials)
    assert proc.returncode == 1, stderr
    record = result(out, "fixture-shop", 1)
    assert record["status"] == "harness_error" and record["reward"] is None
    assert "the trial's Ray worker died 1 time(s)" in record["error"]
    done = cli(ray_cluster, command + ["--resume", "--retry-errors"])
    assert done.returncode == 0, done.stderr
    assert result(out, "fixture-shop", 1)["reward"] == 1.0


def test_the_workers_emulator_dying_mid_trial_is_redone_on_that_worker(
        tmp_path: Path, ray_cluster: RayCluster) -> None:
    marker = tmp_path / "killed-once"
    # The tool's shell is the worker's child, and so is the worker's emulator: kill it.
    kill = (f"[ -f {marker} ] || {{ touch {marker}; kill -9 $(ps --ppid $PPID -o pid=,args= "
            "| awk '/emulator serve/ {print $1}'); }")
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"tool": "bash", "args": {"command": kill}}, *PASS_STEPS]))
    out = tmp_path / "run"
    done = cli(ray_cluster, run_command(ray_cluster, out, "--agent", "scripted", "--script",
                                        str(script), "--sandbox", "local", "--allow-unsealed"))
    assert done.returncode == 0, done.stderr
    record = result(out, "fixture-shop", 1)
    assert marker.exists()
    assert record["status"] == "completed" and record["reward"] == 1.0
    assert any(n.startswith("redone after the emulator died") for n in record["notes"])


def test_driver_kill_9_then_resume(tmp_path: Path, ray_cluster: RayCluster) -> None:
    script = tmp_path / "slow.json"
    script.write_text(json.dumps([{"sleep": 2}, *PASS_STEPS]))
    out = tmp_path / "run"
    command = run_command(ray_cluster, out, "--agent", "scripted", "--script", str(script),
                          "--sandbox", "local", "--allow-unsealed", "--attempts", "3",
                          "--parallel", "1")
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, env={**os.environ, **ray_cluster.env})
    first = out / "trials" / "fixture-shop" / "1" / "result.json"
    deadline = time.monotonic() + 120
    while not first.exists():
        assert time.monotonic() < deadline and proc.poll() is None, "no trial finished"
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)  # the driver: its trial in flight is lost
    proc.wait()
    before = first.read_text()
    unfinished = [n for n in (2, 3) if not (out / "trials" / "fixture-shop" / str(n) /
                                            "result.json").exists()]
    assert unfinished, "kill -9 should have come before the last trial"
    done = cli(ray_cluster, command + ["--resume"])
    assert done.returncode == 0, done.stderr
    assert [result(out, "fixture-shop", n)["reward"] for n in (1, 2, 3)] == [1.0] * 3
    assert first.read_text() == before  # a finished trial is never redone


def test_resources_follow_the_task_and_infeasible_runs_fail_before_submitting() -> None:
    shop, browser_task = load_task(FIXTURES / "fixture-shop"), \
        load_task(TASKS / "card-element-to-checkout")
    assert trial_resources(shop) == {"num_cpus": 1.0, "memory": 1024 * 2**20, "resources": {}}
    assert trial_resources(browser_task)["resources"] == {"browser": 1}
    cpu_only = [{"Alive": True, "Resources": {"CPU": 2.0, "memory": 8 * 2**30}},
                {"Alive": False, "Resources": {"CPU": 8.0, "memory": 8 * 2**30,
                                               "browser": 4.0}}]
    check_feasible([shop], cpu_only)
    with pytest.raises(RunError, match="card-element-to-checkout.*browser"):
        check_feasible([shop, browser_task], cpu_only)  # the browser node is dead
    greedy = load_task(FIXTURES / "fixture-shop")
    for value in ("two", 0, True):
        greedy.raw["environment"] = {"cpus": value}
        with pytest.raises(RunError, match="cpus must be a positive number"):
            trial_resources(greedy)
    greedy.raw["environment"] = {"cpus": 4, "memory_mb": 512}
    assert trial_resources(greedy)["num_cpus"] == 4.0
    with pytest.raises(RunError, match="fixture-shop: a trial needs CPU 4"):
        check_feasible([greedy], cpu_only)  # no live node has 4 CPUs
    small = [{"Alive": True, "Resources": {"CPU": 2.0, "memory": 512 * 2**20,
                                           "browser": 1.0}}]
    with pytest.raises(RunError, match="memory 1024 MiB"):
        check_feasible([shop], small)


def test_trial_archives_keep_the_layout_and_refuse_what_points_out(tmp_path: Path) -> None:
    trial = tmp_path / "trial"
    (trial / "workdir" / "node_modules" / "big").mkdir(parents=True)
    (trial / "workdir" / "app.py").write_text("print('hi')\n")
    (trial / "workdir" / "node_modules" / "big" / "index.js").write_text("x")
    (trial / "workdir" / "inside").symlink_to("app.py")
    (trial / "workdir" / "passwd").symlink_to("/etc/passwd")
    (trial / "workdir" / "up").symlink_to("../../../..")
    os.mkfifo(trial / "workdir" / "pipe")
    (trial / "result.json").write_text("{}")
    data = pack(trial, skip={"node_modules"}, leave_out=("result.json",))
    names = tarfile.open(fileobj=io.BytesIO(data)).getnames()
    assert "workdir/app.py" in names and "result.json" not in names
    assert not any("node_modules" in n for n in names)
    dest = tmp_path / "back"
    refused = unpack(data, dest)
    assert sorted(refused) == ["workdir/passwd", "workdir/pipe", "workdir/up"]
    assert (dest / "workdir" / "inside").read_text() == "print('hi')\n"
    assert not (dest / "workdir" / "passwd").exists() and not (dest / "workdir" / "up").exists()


@pytest.mark.parametrize("die_with_parent", [True, False])
def test_a_workers_emulator_dies_with_it_even_by_kill_9(tmp_path: Path,
                                                        die_with_parent: bool) -> None:
    """The guard a Ray worker's emulator has on any cluster: the kernel's parent-death
    signal. Without it (the local executor's default) the server outlives its parent."""
    code = ("import sys, time\nfrom pathlib import Path\n"
            "from stripebench.harness.emulator import Emulator\n"
            f"e = Emulator.start(data=Path(sys.argv[1]), die_with_parent={die_with_parent})\n"
            "print(e.process.pid, flush=True)\ntime.sleep(120)\n")
    parent = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "emu")],
                              stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    server = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 5
    while running(server) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = running(server)
    if alive:
        os.kill(server, signal.SIGKILL)
    assert alive is not die_with_parent


def test_executor_options_are_checked() -> None:
    for args, message in ((["--executor", "threads"], "--executor must be local or ray"),
                          (["--ray-address", "127.0.0.1:1"], "--ray-address needs --executor")):
        done = subprocess.run([sys.executable, "-m", "stripebench.cli", "run", "--agent",
                               "noop", "--tasks-dir", str(FIXTURES), *args],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and message in done.stderr


def test_without_an_address_a_run_starts_its_own_ray(tmp_path: Path,
                                                     ray_cluster: RayCluster) -> None:
    """Even with another cluster up on this machine (the module's, which a bare
    ray.init() would join), the run gets a Ray of its own and stops it at the end."""
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "stripebench.cli", "run", "--executor", "ray",
                           "--agent", "noop", "--tasks-dir", str(FIXTURES), "--tasks",
                           "fixture-shop", "--sandbox", "local", "--allow-unsealed",
                           "--parallel", "1", "--out", str(out), "--no-report"],
                          capture_output=True, text=True, timeout=240,
                          env={**os.environ, "RAY_ADDRESS": ray_cluster.address})
    assert done.returncode == 0, done.stderr
    record = result(out, "fixture-shop", 1)
    assert record["status"] == "completed" and record["reward"] == 0.0
    assert record["executor"]["node_id"] not in (ray_cluster.browser_node,
                                                 ray_cluster.plain_node)
    assert record["executor"]["node_ip"] == "127.0.0.1"
