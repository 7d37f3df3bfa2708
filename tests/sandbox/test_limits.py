"""A trial's processes, memory, disk and time are bounded (issue 25, "Limits").

Each attack runs once in the agent's phase (the agent starts it with its bash tool) and
once in the grading phase (the agent leaves it in the service the grader restarts).
Every trial must end recorded -- `limit_breached` (counts 0) or a reward of 0 -- with the
attack's processes gone, and the host and a neighbour sandbox unharmed. The limits are
small (a few MiB, 64 processes) so nothing here really strains the machine.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import RunningEmulator, start_emulator
from paths import TESTS
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.emulator import Emulator
from stripebench.harness.sandbox import make_sandbox
from stripebench.harness.task import load_task
from stripebench.harness.trial import TrialConfig, run_trial
from stripebench.sandbox.cgroups import Cgroup, CgroupUnavailable
from stripebench.sandbox.disk import DiskUnavailable, WorkdirDisk
from stripebench.sandbox.limits import LIMIT_BREACHED, Limits, MiB

SHOP = load_task(TESTS / "fixtures" / "tasks" / "fixture-shop")
SMALL = Limits(pids=64, memory_bytes=192 * MiB,
               tmpfs_bytes={d: 8 * MiB for d in ("/tmp", "/dev/shm", "/run", "/home",
                                                 "/root", "/var/tmp")},
               tmpfs_inodes=512, workdir_bytes=32 * MiB, workdir_inodes=1024)
MARK = "stripebench-limit-attack"   # in every attack's command line, to find leftovers

ATTACKS = {
    # every process forks on forever
    "fork_bomb": "import os, time\nwhile True:\n    try:\n        os.fork()\n"
                 "    except OSError:\n        time.sleep(0.05)\n",
    # one file grows past the workdir's quota
    "disk_fill": "with open('big.bin', 'wb') as out:\n    while True:\n"
                 "        out.write(b'x' * (1 << 20))\n        out.flush()\n",
    # empty files until no inode is left
    "many_files": "import os\nos.makedirs('many', exist_ok=True)\n"
                  "for i in range(1_000_000):\n    open(f'many/{i}', 'w').close()\n",
    # 1 GiB of touched memory
    "memory_hog": "hog = b'x' * (1 << 30)\nimport time\ntime.sleep(60)\n",
    # ignores SIGTERM, leaves its process group and session, sleeps forever
    "ignores_sigterm": "import os, signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                       "if os.fork():\n    os._exit(0)\nos.setsid()\n"
                       "while True:\n    time.sleep(1)\n",
}
# What each attack breaches (None: no limit is hit; the trial ends with reward 0).
BREACH = {"fork_bomb": "processes", "disk_fill": "disk", "many_files": "disk",
          "memory_hog": "memory", "ignores_sigterm": None}


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    emulator = start_emulator()
    yield emulator
    emulator.stop()


def attack_file(name: str) -> str:
    return f"# {MARK}\n" + ATTACKS[name]


def agent_phase(name: str, mark: str) -> list[dict[str, Any]]:
    """The agent runs the attack in the background and carries on (then submits)."""
    return [{"tool": "create", "args": {"path": f"{mark}.py", "file_text": attack_file(name)}},
            {"tool": "bash", "args": {"command": f"(python3 {mark}.py > attack.log 2>&1 &) ; "
                                                 "sleep 3; echo started", "timeout": 20}},
            {"tool": "submit", "args": {"summary": "nothing to see"}}]


def grading_phase(name: str, mark: str) -> list[dict[str, Any]]:
    """The agent leaves the attack in app.py: it runs when the grader restarts the
    service, beside the grader, and the service then serves as before."""
    start = ("import subprocess, time\n"
             f"subprocess.Popen(['python3', '{mark}.py'], start_new_session=True)\n"
             "time.sleep(2)\n")
    app = start + (SHOP.environment / "app.py").read_text()
    return [{"tool": "create", "args": {"path": f"{mark}.py", "file_text": attack_file(name)}},
            {"tool": "create", "args": {"path": "app.py", "file_text": app}},
            {"tool": "submit", "args": {"summary": "nothing to see"}}]


def leftovers(mark: str = MARK) -> list[int]:
    """Processes whose command line names `mark` (an attack's file)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def test_this_machine_holds_the_limits(tmp_path: Path) -> None:
    """The mechanisms the tests below rely on exist here (cgroup, loop-mounted image);
    without them an attack would hit the host itself, so their absence fails loudly."""
    try:
        Cgroup.create(SMALL).remove()
        WorkdirDisk.create(tmp_path / "w", SMALL).release()
    except (CgroupUnavailable, DiskUnavailable) as exc:
        pytest.fail(f"limits cannot be held on this machine: {exc}")


@pytest.mark.parametrize("phase", ["agent", "grading"])
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_attack_ends_recorded_and_contained(attack: str, phase: str, tmp_path: Path,
                                            emu: RunningEmulator) -> None:
    mark = f"{MARK}-{attack}-{phase}"
    steps = agent_phase(attack, mark) if phase == "agent" else grading_phase(attack, mark)
    trial_dir = tmp_path / "trial"
    started = time.monotonic()
    record = run_trial(SHOP, 1, trial_dir, ScriptedAgent(steps), Emulator(emu.base),
                       TrialConfig("limits", "scripted", None, sandbox="bwrap",
                                   agent_timeout=40, limits=SMALL))
    # recorded, as an error counting 0 or as a reward of 0
    assert (trial_dir / "result.json").is_file()
    assert not record["limits"]["unbounded"], record["limits"]
    breached = [b for b in record["limits"]["breached"]]
    expected = BREACH[attack]
    if expected is None:
        assert breached == [] and record["status"] == "completed", record
        assert record["reward"] == 0.0
        # the stubborn process was alive at the end of its phase and was killed there
        assert record["tamper"][f"{phase}_processes_killed_at_stop"] >= 1
    else:
        assert record["status"] == LIMIT_BREACHED and record["reward"] is None, record
        assert any(b["phase"] == phase and b["limit"].startswith(expected)
                   for b in breached), breached
        assert expected in record["error"]
    # nothing of the attack survives the trial; the workdir is a plain folder again
    assert leftovers(mark) == []
    workdir = trial_dir / "workdir"
    assert workdir.is_dir() and not os.path.ismount(workdir)
    assert not list(trial_dir.glob("*.img"))
    # the emulator (the trials' shared neighbour) lived through it
    assert record["status"] != "emulator_error"
    assert time.monotonic() - started < 300   # bounded by the timeouts, not by the attack


def test_a_neighbour_sandbox_and_the_host_keep_working_during_a_fork_bomb_and_hog(
        tmp_path: Path) -> None:
    """While one sandbox sits at its process and memory limits, another one (and the
    host) still forks, allocates and writes its tmpfs."""
    mark = f"{MARK}-neighbour"
    bomber = make_sandbox("bwrap", tmp_path / "a", {}, limits=SMALL)
    neighbour = make_sandbox("bwrap", tmp_path / "b", {}, limits=SMALL)
    try:
        bomber.write_file(f"{mark}.py", attack_file("fork_bomb"))
        bomber.write_file("hog.py", attack_file("memory_hog"))
        bomber.exec("python3 hog.py; echo $?", timeout=20)   # killed out of memory
        bomber.exec(f"(python3 {mark}.py &) ; sleep 2", timeout=20)
        assert bomber.exec("true", timeout=10).exit_code != 0  # no fork left in there
        done = neighbour.exec("for i in $(seq 20); do true & done; wait; "
                              "python3 -c 'x = b\"y\" * (64 << 20)' && "
                              "head -c 4M /dev/zero > /dev/shm/ok && echo fine", timeout=30)
        assert done.stdout.strip() == "fine", done
        assert os.system("true") == 0   # the host too
    finally:
        bomber.stop()
        neighbour.stop()
    assert any(b.startswith("processes") for b in bomber.breaches), bomber.breaches
    assert any(b.startswith("memory") for b in bomber.breaches), bomber.breaches
    assert neighbour.breaches == []
    assert leftovers(mark) == []


@pytest.mark.parametrize("folder", ["/dev/shm", "/tmp", "/var/tmp", "/run", "/home",
                                    "/root"])
def test_each_tmpfs_folder_is_capped_in_size_and_files(folder: str, tmp_path: Path) -> None:
    """The issue's attack: 2 GiB written into /dev/shm grew the host's shared memory.
    Inside, each tmpfs folder stops at its size and at its inode count; the host's
    own folder is never touched."""
    before = shutil.disk_usage("/dev/shm").used
    box = make_sandbox("bwrap", tmp_path / "w", {}, limits=SMALL)
    try:
        big = box.exec(f"head -c 64M /dev/zero > {folder}/fill; echo $?", timeout=30)
        assert big.stdout.strip() != "0" and "No space left" in big.stderr, big
        box.exec(f"rm -f {folder}/fill")
        many = box.exec(f"mkdir -p {folder}/n && cd {folder}/n && "
                        "for i in $(seq 2000); do : > f$i || exit 7; done", timeout=60)
        assert many.exit_code == 7 and "No space left" in many.stderr, many
        mounts = box.exec(f"grep ' {folder} ' /proc/self/mountinfo").stdout
        assert "size=8192k" in mounts and "nr_inodes=512" in mounts, mounts
    finally:
        box.stop()
    assert shutil.disk_usage("/dev/shm").used - before < 8 * MiB


def test_without_a_cgroup_the_sandbox_says_it_is_unbounded(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """Where no cgroup can be made (no write access to /sys/fs/cgroup), the sandbox
    still runs, and says so: the trial records it under limits.unbounded."""
    from stripebench.sandbox import cgroups

    monkeypatch.setattr(cgroups, "ROOT", tmp_path / "no-cgroups")
    box = make_sandbox("bwrap", tmp_path / "w", {}, limits=SMALL)
    try:
        assert box.exec("echo hi").stdout == "hi\n"
        unbounded = getattr(box, "unbounded", "")
        assert "cgroup v1" in unbounded and "cgroup v2" in unbounded, unbounded
    finally:
        box.stop()
