"""The trial sandbox: process handling (local and bubblewrap) and the bubblewrap walls."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import stripe

from conftest import RunningEmulator
from stripebench.harness.sandbox import (
    LocalSandbox,
    Sandbox,
    SandboxError,
    bwrap_available,
    make_sandbox,
)
from stripebench.routing.bwrap import BubblewrapSandbox


def running(marker: str) -> bool:
    found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    return found.returncode == 0


def settles(check: Callable[[], bool], within: float = 10.0) -> bool:
    """Poll until `check()` holds (True) or `within` seconds pass (False): processes are
    reaped asynchronously, so assertions wait for the state instead of sleeping a guess."""
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


# ---------------------------------------------------------------------- both kinds

@pytest.fixture(params=["local", "bwrap"])
def box(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Sandbox]:
    sandbox = make_sandbox(request.param, tmp_path / "work")
    yield sandbox
    sandbox.stop()


def test_exec_captures_output_exit_code_and_env(box: Sandbox) -> None:
    result = box.exec("echo out; echo err >&2; echo $GREETING; exit 7", env={"GREETING": "hi"})
    assert (result.exit_code, result.stdout, result.stderr) == (7, "out\nhi\n", "err\n")
    assert not result.timed_out and not result.truncated
    listed = box.exec(["ls", "-a"], cwd=".")
    assert listed.ok


def test_exec_caps_output_and_kills_on_timeout(box: Sandbox) -> None:
    big = box.exec("head -c 500000 /dev/zero | tr '\\0' x", output_limit=1000)
    assert big.truncated and big.stdout.startswith("x" * 1000) and "truncated" in big.stdout
    started = time.monotonic()
    slow = box.exec("sleep 30; echo never", timeout=1)
    assert slow.timed_out and slow.exit_code == 124 and "never" not in slow.stdout
    assert time.monotonic() - started < 10


def test_background_job_does_not_hang_exec(box: Sandbox) -> None:
    started = time.monotonic()
    result = box.exec("sleep 20 & echo started")
    assert result.stdout == "started\n"
    assert time.monotonic() - started < 5


def test_files_round_trip_and_stay_in_the_workdir(box: Sandbox) -> None:
    box.write_file("src/app.txt", "hello")
    assert box.exec("cat src/app.txt").stdout == "hello"
    box.exec("echo from-inside > made.txt")
    assert box.read_file("made.txt") == b"from-inside\n"
    assert (box.workdir / "made.txt").exists()
    with pytest.raises(SandboxError):
        box.read_file("../../etc/passwd")
    with pytest.raises(SandboxError):
        box.write_file("/tmp/escape.txt", "x")


def test_service_ready_port_and_dies_at_stop(box: Sandbox) -> None:
    port = 18000 + (abs(hash(str(box.workdir))) % 1000)
    marker = f"http.server {port}"
    box.start_service("web", f"python3 -m http.server {port}", ready_port=port, timeout=20)
    assert box.exec(f"curl -s -o /dev/null -w '%{{http_code}}' http://127.0.0.1:{port}/"
                    ).stdout == "200"
    assert running(marker)
    box.stop()
    assert settles(lambda: not running(marker))


def test_service_that_dies_reports_its_output(box: Sandbox) -> None:
    with pytest.raises(SandboxError, match="boom"):
        box.start_service("bad", "echo boom; exit 3", ready_port=1, timeout=10)


def test_unprivileged_service_is_not_root_and_writes_as_the_sandbox_user(box: Sandbox
                                                                          ) -> None:
    """PostgreSQL refuses to run as root: a service declared `unprivileged` runs as uid
    65534 (in a user namespace of its own), yet the files it writes in the workdir are
    the sandbox user's, and it has no capabilities. Without the option the same service
    is root (the sandbox's user), which is what the saas tasks' database could not use."""
    script = "id -u > {0}.uid; grep CapEff /proc/self/status > {0}.caps; sleep 600"
    box.start_service("plain", script.format("plain"))
    box.start_service("db", script.format("db"), unprivileged=True)
    assert settles(lambda: (box.workdir / "db.caps").exists()
                   and (box.workdir / "plain.caps").exists())
    assert box.read_file("plain.uid").strip() == b"0" or os.geteuid() != 0
    assert box.read_file("db.uid").strip() == b"65534"
    assert box.read_file("db.caps").split()[-1] == b"0000000000000000"
    assert (box.workdir / "db.uid").stat().st_uid == os.geteuid()


# ---------------------------------------------------------------------- bubblewrap walls

needs_bwrap = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")


@pytest.fixture()
def layout(tmp_path: Path) -> dict[str, Path]:
    """A task with a hidden grader and solution, and two trials' workdirs."""
    task = tmp_path / "tasks" / "demo"
    (task / "tests").mkdir(parents=True)
    (task / "tests" / "grader.py").write_text("SECRET_GRADER = 1\n")
    (task / "solution").mkdir()
    (task / "solution" / "solve.sh").write_text("echo reference\n")
    mine = tmp_path / "trials" / "t1" / "work"
    other = tmp_path / "trials" / "t2" / "work"
    mine.mkdir(parents=True)
    other.mkdir(parents=True)
    (other / "notes.txt").write_text("other trial's work\n")
    return {"task": task, "mine": mine, "other": other}


@needs_bwrap
def test_agent_cannot_see_grader_solution_other_trials_or_home(layout: dict[str, Path]
                                                                ) -> None:
    task, other = layout["task"], layout["other"]
    with BubblewrapSandbox(layout["mine"]) as box:
        # the files exist on the host...
        assert (task / "tests" / "grader.py").exists()
        for target in [task / "tests" / "grader.py", task / "solution" / "solve.sh",
                       other / "notes.txt", Path.home() / ".bashrc"]:
            attempt = box.exec(["cat", str(target)])
            assert attempt.exit_code != 0, target
            assert "No such file" in attempt.stderr
        assert box.exec(["ls", str(task.parent)]).exit_code != 0
        assert box.exec("cat /etc/shadow").exit_code != 0
        # ...the system is there but read-only, and home is a private tmpfs
        assert box.exec("touch /usr/bin/planted").exit_code != 0
        assert box.exec('echo "$HOME"; ls -A ~').stdout == "/home/agent\n"
        # the agent is root without capabilities: it cannot mount its way out
        mounted = box.exec("mkdir -p m && mount -t tmpfs none m")
        assert mounted.exit_code != 0 and "permission denied" in mounted.stderr.lower()


@needs_bwrap
def test_network_is_loopback_only(layout: dict[str, Path]) -> None:
    host_ip = _non_loopback_ip()
    with socket.socket() as server:
        server.bind(("0.0.0.0", 0))
        server.listen()
        port = server.getsockname()[1]
        threading.Thread(target=_accept_forever, args=(server,), daemon=True).start()
        # reachable from the host on both addresses...
        for address in ("127.0.0.1", host_ip):
            socket.create_connection((address, port), timeout=2).close()
        with BubblewrapSandbox(layout["mine"]) as box:
            probe = ("import socket,sys\ntry:\n socket.create_connection((sys.argv[1], "
                     "int(sys.argv[2])), timeout=3)\nexcept OSError as e:\n print(e); "
                     "sys.exit(1)\n")
            for address in (host_ip, "127.0.0.1", "1.1.1.1"):
                attempt = box.exec(["python3", "-c", probe, address, str(port)])
                assert attempt.exit_code == 1, (address, attempt)
            interfaces = box.exec("cat /proc/net/dev").stdout
            assert "lo:" in interfaces and "eth0" not in interfaces


@needs_bwrap
def test_every_process_dies_with_the_sandbox(layout: dict[str, Path]) -> None:
    box = BubblewrapSandbox(layout["mine"])
    # an ordinary background job, one that escapes its process group, and a service
    box.exec("sleep 4242 >/dev/null 2>&1 &")
    box.exec("setsid nohup sleep 4343 >/dev/null 2>&1 &")
    box.start_service("looper", "while true; do sleep 4444; done")
    assert settles(lambda: all(running(f"sleep {n}") for n in (4242, 4343, 4444)))
    box.stop()
    assert settles(lambda: not any(running(f"sleep {n}") for n in (4242, 4343, 4444)))


@needs_bwrap
def test_execs_share_one_network_and_ports_can_be_exposed(layout: dict[str, Path]) -> None:
    with BubblewrapSandbox(layout["mine"]) as box:
        (layout["mine"] / "index.html").write_text("served from inside")
        box.start_service("site", "python3 -m http.server 8000", ready_url="http://127.0.0.1:8000/")
        assert "served from inside" in box.exec("curl -s http://127.0.0.1:8000/index.html").stdout
        host_port = box.expose_port(8000)
        assert httpx.get(f"http://127.0.0.1:{host_port}/index.html").text == "served from inside"
        assert box.expose_port(8000) == host_port


def test_local_sandbox_hides_host_secrets_from_env(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    with LocalSandbox(tmp_path, env={"STRIPE_SECRET_KEY": "sk_test_given"}) as box:
        shown = box.exec("env").stdout
    assert "sk-ant-secret" not in shown and "sk_test_given" in shown


def _non_loopback_ip() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("10.255.255.255", 1))
        address: str = s.getsockname()[0]
    assert not address.startswith("127."), "this test needs a non-loopback interface"
    return address


def _accept_forever(server: socket.socket) -> None:
    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        conn.close()


UNPRIVILEGED_SCRIPT = """
import sys
from stripebench.routing.bwrap import BubblewrapSandbox, Routing
from stripebench.routing.env import Keys
with BubblewrapSandbox(sys.argv[1] + "/work", shared=[],
                       routing=Routing(sys.argv[2], Keys(sys.argv[3]))) as box:
    print(box.exec("id -u; curl -sS https://api.stripe.com/v1/customers/" + sys.argv[4]
                   + " -u $STRIPE_SECRET_KEY:").stdout)
"""


def _unprivileged_possible() -> bool:
    import os
    import shutil
    import sys
    if os.geteuid() != 0 or not shutil.which("setpriv") or not bwrap_available():
        return False
    system = subprocess.run(["/usr/bin/python3", "-c", "import sys; print(sys.version_info[:2])"],
                            capture_output=True, text=True)
    return system.stdout.strip() == str(tuple(sys.version_info[:2]))


@pytest.mark.skipif(not _unprivileged_possible(), reason="needs root to switch to nobody")
def test_unprivileged_user_gets_the_same_sandbox(emulator: RunningEmulator,
                                                 account: dict[str, str],
                                                 client: stripe.StripeClient) -> None:
    """Without root, bubblewrap uses a user namespace: same walls, routing still works."""
    import os
    import shutil
    import sysconfig
    import tempfile

    from stripebench.emulator.tls import ensure_certificates

    made = client.v1.customers.create({"email": "unprivileged@example.com"})
    home = Path(tempfile.mkdtemp(prefix="stripebench-unpriv-"))
    try:
        shutil.copytree(ensure_certificates().directory, home / "ca")
        (home / "try.py").write_text(UNPRIVILEGED_SCRIPT)
        subprocess.run(["chown", "-R", "65534:65534", str(home)], check=True)
        src = Path(__import__("stripebench").__file__).parents[1]
        site = sysconfig.get_paths()["purelib"]  # this venv's packages
        done = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
             "env", "-i", "PATH=/usr/bin:/bin", f"HOME={home}", f"STRIPEBENCH_HOME={home}",
             f"PYTHONPATH={src}:{site}", "/usr/bin/python3", str(home / "try.py"), str(home),
             emulator.base, account["secret_key"], made.id],
            capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        uid, _, body = done.stdout.partition("\n")
        assert uid == "0"  # root of its own user namespace only
        assert '"unprivileged@example.com"' in body
        assert (home / "work").stat().st_uid == 65534 != os.geteuid()
    finally:
        shutil.rmtree(home, ignore_errors=True)


@needs_bwrap
def test_a_stopped_sandbox_says_so(layout: dict[str, Path]) -> None:
    box = BubblewrapSandbox(layout["mine"])
    box.stop()
    with pytest.raises(SandboxError, match="stopped"):
        box.exec("true")
    box.stop()  # idempotent


@needs_bwrap
def test_only_a_grader_sandbox_gets_the_stripebench_package(layout: dict[str, Path]) -> None:
    probe = ["python", "-c", "import stripebench.grading"]
    with BubblewrapSandbox(layout["mine"]) as agent_box:
        assert agent_box.exec(probe).exit_code != 0
    grader_box = make_sandbox("bwrap", layout["mine"], share_package=True)
    try:
        assert grader_box.exec(probe).ok
    finally:
        grader_box.stop()
