"""Wall 1 of issue 25: host root through file capabilities (and set-id bits).

A service declared `unprivileged` (PostgreSQL's mode) runs as uid 65534 in a user
namespace of its own where that uid stands for the sandbox's root, i.e. the host's uid 0.
From there a process can make a nested user namespace mapping some uid onto itself and
write a version-3 `security.capability` whose root id is the host's root: a file
capability the host honours. Left in the workdir, `cap_setuid` on a copy of any program
makes every local user who runs it root. The walls: everything agent code writes is
mounted nosuid inside (no capability or set-id bit works there), and after every
teardown -- run_trial, the standing trials behind Inspect and Harbor, `stripebench exec`
and the MCP server's own sandbox -- no file of the trial carries a capability or a
set-id bit; what was cleared is recorded as tamper evidence.
"""

from __future__ import annotations

import os
import shutil
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import RunningEmulator, run_exec, start_emulator
from paths import TESTS
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.emulator import Emulator
from stripebench.harness.sandbox import make_sandbox
from stripebench.harness.task import Task, load_task
from stripebench.harness.tools.server import toolbox_from_config
from stripebench.harness.trial import TrialConfig, run_trial
from stripebench.integrations.standing import close_trial, grade_trial, open_trial
from stripebench.sandbox.room import writable_mounts_without_nosuid
from stripebench.sandbox.safe_files import CAPABILITY_XATTR, clear_setid_bits

SHOP = TESTS / "fixtures" / "tasks" / "fixture-shop"

# Python 3.11 has no os.unshare: the syscall through libc. Runs in a forked child so the
# service itself carries on; writes `planted` only if the kernel took the capability.
PLANT = r'''
import ctypes, os, shutil, struct
def plant_capability(target, source="/bin/true"):
    shutil.copy(source, target)
    if os.fork():
        os.wait()
        return
    try:
        uid, gid = os.getuid(), os.getgid()
        assert ctypes.CDLL(None, use_errno=True).unshare(0x10000000) == 0  # CLONE_NEWUSER
        for name, text in (("setgroups", "deny"), ("uid_map", f"1 {uid} 1"),
                           ("gid_map", f"1 {gid} 1")):
            with open(f"/proc/self/{name}", "w") as out:
                out.write(text)
        # version 3, cap_setuid permitted+effective, root id 1 (= the service's uid)
        os.setxattr(target, "security.capability",
                    struct.pack("<6I", 0x03000001, 1 << 7, 0, 0, 0, 1))
        open(target + ".planted", "w").write(os.getxattr(target, "security.capability").hex())
    finally:
        os._exit(0)
'''


def unprivileged_shop(root: Path) -> Task:
    """fixture-shop whose web service runs `unprivileged = true`."""
    task_dir = root / "fixture-shop"
    shutil.copytree(SHOP, task_dir)
    toml = task_dir / "task.toml"
    toml.write_text(toml.read_text().replace('command = "python3 app.py"\n',
                                             'command = "python3 app.py"\nunprivileged = true\n'))
    task = load_task(task_dir)
    assert task.services[0].unprivileged
    return task


def planting_app(target: str) -> str:
    """app.py that plants the capability when it starts, then serves as before."""
    return PLANT + f"plant_capability({target!r})\n" + (SHOP / "environment" / "app.py"
                                                         ).read_text()


def privileged_files(root: Path) -> list[str]:
    found = []
    for folder, _dirs, names, _fd in os.fwalk(root):
        for name in names:
            path = Path(folder) / name
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode):
                continue
            if info.st_mode & (stat.S_ISUID | stat.S_ISGID):
                found.append(str(path))
            elif CAPABILITY_XATTR in os.listxattr(path, follow_symlinks=False):
                found.append(str(path))
    return found


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    emulator = start_emulator()
    yield emulator
    emulator.stop()


def test_every_writable_mount_a_command_sees_is_nosuid(tmp_path: Path) -> None:
    """Inside the room (a command, a hidden unprivileged service like the grader's)
    no writable mount lets a set-id bit or a file capability take effect."""
    box = make_sandbox("bwrap", tmp_path / "w", {})
    try:
        table = box.exec("cat /proc/self/mountinfo").stdout
        assert f" {box.workdir} " in table and " /dev/shm " in table
        assert writable_mounts_without_nosuid(table) == [], table
        box.exec("mkdir .hidden")
        box.start_service("db", "cat /proc/self/mountinfo > mounts.txt; sleep 600",
                          unprivileged=True, hide=[str(box.workdir / ".hidden")])
        for _ in range(200):
            if (box.workdir / "mounts.txt").exists() and box.read_file("mounts.txt"):
                break
            time.sleep(0.05)
        service_table = box.read_file("mounts.txt").decode()
        assert " /proc " in service_table
        assert writable_mounts_without_nosuid(service_table) == [], service_table
        # findmnt agrees for the workdir
        options = box.exec(f"findmnt -no OPTIONS {box.workdir}").stdout
        assert "nosuid" in options.split(",") and "nodev" in options.split(","), options
    finally:
        box.stop()


def test_a_planted_capability_does_nothing_inside_and_is_gone_after_stop(tmp_path: Path
                                                                         ) -> None:
    """The attack itself, in a bare sandbox: the unprivileged service writes a
    host-valid capability; run inside, the file gains nothing (nosuid); stop() clears
    it and says so."""
    box = make_sandbox("bwrap", tmp_path / "w", {})
    try:
        box.write_file("plant.py", PLANT + "plant_capability('t', '/usr/bin/grep')\n")
        box.start_service("db", "python3 plant.py; sleep 600", unprivileged=True)
        for _ in range(200):
            if (box.workdir / "t.planted").exists():
                break
            time.sleep(0.05)
        assert (box.workdir / "t.planted").exists(), "the attack did not run"
        assert CAPABILITY_XATTR in os.listxattr(box.workdir / "t")
        # the capable grep reports its own capabilities: none
        caps = box.exec("./t CapEff /proc/self/status")
        assert caps.stdout.split()[-1] == "0000000000000000", caps
    finally:
        box.stop()
    assert privileged_files(tmp_path / "w") == []
    assert getattr(box, "cleared", []) == ["t: file capabilities"]


def test_run_trial_clears_what_an_unprivileged_service_planted(tmp_path: Path,
                                                                emu: RunningEmulator) -> None:
    """The issue's attack through a whole trial: the agent leaves app.py planting the
    capability; the grader restarts the service (unprivileged), which plants it; after
    teardown no file carries it and the record names it."""
    task = unprivileged_shop(tmp_path / "tasks")
    steps = [{"tool": "create", "args": {"path": "app.py", "file_text": planting_app("tool")}},
             {"tool": "bash", "args": {"command": "cp /bin/true s && chmod 6755 s"}},
             {"tool": "submit", "args": {"summary": "done"}}]
    trial_dir = tmp_path / "trial"
    record = run_trial(task, 1, trial_dir, ScriptedAgent(steps), Emulator(emu.base),
                       TrialConfig("wall1", "scripted", None, sandbox="bwrap"))
    workdir = trial_dir / "workdir"
    assert (workdir / "tool.planted").exists(), record   # the capability was there
    assert privileged_files(trial_dir) == []
    cleared = record["tamper"]["privileged_files_cleared"]
    assert "tool: file capabilities" in cleared
    assert "s: setuid, setgid" in cleared
    assert record["status"] == "completed" and record["reward"] == 0.0


def test_standing_trials_behind_inspect_and_harbor_clear_it_too(tmp_path: Path,
                                                                 emu: RunningEmulator) -> None:
    """Inspect's scorer and Harbor's verifier grade through standing.grade_trial and end
    with close_trial: the same capability, planted while grading, is gone after both."""
    task = unprivileged_shop(tmp_path / "tasks")
    trial = open_trial(task, Emulator(emu.base), tmp_path / "trial", tmp_path / "work")
    try:
        (trial.workdir / "app.py").write_text(planting_app("tool"))  # the agent's work
        record = grade_trial(trial)
        assert (trial.workdir / "tool.planted").exists(), record
        assert privileged_files(trial.workdir) == []
        assert "tool: file capabilities" in record["tamper"]["privileged_files_cleared"]
        # planted again after grading (a local sandbox isolates nothing): close clears it
        (trial.workdir / "late").write_bytes(Path("/bin/true").read_bytes())
        (trial.workdir / "late").chmod(0o4755)
    finally:
        close_trial(trial)
    assert privileged_files(trial.workdir) == []


def test_exec_and_the_mcp_servers_own_sandbox_clear_set_id_bits(
        tmp_path: Path, emu: RunningEmulator) -> None:
    """`stripebench exec` and the standalone MCP server make their own sandbox over a
    folder of the user's: what a command left set-id there is cleared when it ends."""
    account = emu.new_account()
    done = run_exec(emu, account, tmp_path, "sh", "-c",
                    "cp /bin/true u && chmod 4755 u && cp /bin/true g && chmod 2755 g")
    assert done.returncode == 0, done.stderr
    assert privileged_files(tmp_path) == []
    assert (tmp_path / "u").stat().st_mode & 0o777 == 0o755
    mcp_dir = tmp_path / "mcp"
    mcp_dir.mkdir()
    toolbox = toolbox_from_config(None, mcp_dir, sandboxed=True)
    try:
        result = toolbox.call("bash", {"command": "cp /bin/true x && chmod 4755 x"})
        assert not result.is_error, result.text
        assert (mcp_dir / "x").stat().st_mode & stat.S_ISUID
    finally:
        toolbox.close()
        toolbox.sandbox.stop()   # what `stripebench mcp` does when it ends
    assert privileged_files(mcp_dir) == []


def test_clearing_never_follows_a_link_and_keeps_the_rest_of_the_mode(tmp_path: Path
                                                                      ) -> None:
    """A symlink to a host set-id program (or a folder of them) is never followed:
    only the trial's own files change, and only their set-id bits and capability."""
    (tmp_path / "link").symlink_to("/usr/bin/passwd")
    (tmp_path / "dirlink").symlink_to("/usr/bin")
    own = tmp_path / "sub" / "own"
    own.parent.mkdir()
    own.write_bytes(b"#!/bin/sh\n")
    own.chmod(0o6751)
    before = Path("/usr/bin/passwd").stat().st_mode
    assert clear_setid_bits(tmp_path) == ["sub/own: setuid, setgid"]
    assert Path("/usr/bin/passwd").stat().st_mode == before
    assert stat.S_IMODE(own.stat().st_mode) == 0o751
    assert clear_setid_bits(tmp_path) == []
