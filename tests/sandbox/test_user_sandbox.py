"""UserSandbox: a local sandbox whose commands, services and launched programs run as
another user (a Harbor container's agent user), while the harness and the grader stay
root. Played by a throwaway system user (tests/agent_user.py).

The grading room's launcher (`stripebench.grading.launch`, served by the harness) runs
the agent's code for the grader: in a UserSandbox it runs as the user too, in the folder
asked for, with the user's HOME, and cannot read what is root's alone (the grader's
sealed folder, its socket)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_user import throwaway_user
from stripebench.grading import launch
from stripebench.harness.launch_server import LaunchServer
from stripebench.harness.sandbox import RunAs, SandboxError, UserSandbox, make_sandbox
from stripebench.harness.side_rooms import SideRooms
from stripebench.sandbox.limits import DEFAULT_LIMITS


@pytest.fixture()
def room() -> Iterator[tuple[UserSandbox, RunAs, Path]]:
    """A UserSandbox over a workdir the user owns, in a folder it may enter, beside a
    root-only folder playing the grader's sealed one."""
    user = throwaway_user()
    run_as = RunAs.named(user.pw_name)
    root = Path(tempfile.mkdtemp(prefix="stripebench-user-sandbox-"))
    root.chmod(0o755)
    workdir = root / "work"
    workdir.mkdir()
    os.chown(workdir, run_as.uid, run_as.gid)
    sealed = root / "sealed"
    sealed.mkdir(mode=0o700)
    (sealed / "grade.py").write_text("secret")
    sandbox = make_sandbox("local", workdir, {"GIVEN": "yes"}, run_as=run_as)
    assert isinstance(sandbox, UserSandbox)
    try:
        yield sandbox, run_as, root
    finally:
        sandbox.stop()
        subprocess.run(["rm", "-rf", str(root)], check=False)


def test_commands_and_services_run_as_the_user(room: tuple[UserSandbox, RunAs, Path]
                                               ) -> None:
    sandbox, run_as, root = room
    done = sandbox.exec("id -u; id -g; echo $HOME $USER $GIVEN; "
                        "grep -E '^(CapEff|NoNewPrivs)' /proc/self/status; pwd")
    assert done.ok, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == [str(run_as.uid), str(run_as.gid), f"{run_as.home} {run_as.name} yes"]
    assert lines[3].split() == ["CapEff:", "0000000000000000"]
    assert lines[4].split() == ["NoNewPrivs:", "1"]
    assert lines[5] == str(sandbox.workdir)
    peek = sandbox.exec(f"cat {root / 'sealed' / 'grade.py'}")
    assert peek.exit_code != 0 and "Permission denied" in peek.stderr
    port = _free_port()
    sandbox.start_service("web", f"python3 -m http.server {port} --bind 127.0.0.1",
                          ready_port=port, timeout=20)
    assert _owner_of_listener(port) == run_as.uid
    # what the sandbox's commands write is the user's
    sandbox.exec("echo hi > mine.txt")
    assert (sandbox.workdir / "mine.txt").stat().st_uid == run_as.uid


def test_the_graders_launcher_runs_the_agents_code_as_the_user(
        room: tuple[UserSandbox, RunAs, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox, run_as, root = room
    socket_dir = Path(tempfile.mkdtemp(prefix="sb-launch-test-"))
    server = LaunchServer(SideRooms(sandbox, {}, DEFAULT_LIMITS), sandbox.workdir,
                          socket_dir / "launch.sock", log_dir=root / "sealed")
    monkeypatch.setenv(launch.SOCKET_VARIABLE, str(socket_dir / "launch.sock"))
    (sandbox.workdir / "sub").mkdir()
    os.chown(sandbox.workdir / "sub", run_as.uid, run_as.gid)
    try:
        done = launch.run(["sh", "-c", "id -u; pwd; echo $HOME; cat ../../sealed/grade.py"],
                          cwd=sandbox.workdir / "sub", timeout=30)
        lines = done.stdout.splitlines()
        assert lines[:3] == [str(run_as.uid), str(sandbox.workdir / "sub"), run_as.home]
        assert "Permission denied" in done.stderr and "secret" not in done.stdout
        with launch.start(["sh", "-c", "id -u > started.txt; sleep 60"],
                          cwd=sandbox.workdir, log="bg"):
            deadline = time.monotonic() + 10
            while not (sandbox.workdir / "started.txt").exists():
                assert time.monotonic() < deadline
                time.sleep(0.05)
        assert (sandbox.workdir / "started.txt").read_text().strip() == str(run_as.uid)
    finally:
        server.close()
        subprocess.run(["rm", "-rf", str(socket_dir)], check=False)


def test_run_as_is_for_local_rooms_only(tmp_path: Path) -> None:
    from stripebench.harness.sandbox import bwrap_available

    if not bwrap_available():
        pytest.skip("bubblewrap cannot create namespaces here")
    with pytest.raises(SandboxError, match="run_as is for local sandboxes"):
        make_sandbox("bwrap", tmp_path, {}, run_as=RunAs("x", 1, 1, "/"))


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _owner_of_listener(port: int) -> int | None:
    """The uid owning the TCP socket listening on 127.0.0.1:port (/proc/net/tcp)."""
    wanted = f"0100007F:{port:04X}"
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == wanted and fields[3] == "0A":   # LISTEN
            return int(fields[7])
    return None
