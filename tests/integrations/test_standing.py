"""Standing trials (the trial split at the agent, for Inspect and Harbor) take a sandbox
kind: `auto` is bubblewrap wherever it works, as `stripebench run --sandbox auto`. The
agent's commands and the services run in that room, the grading room is of the same
kind (grade_submission), and the record says honestly whether the trial was sealed.

The proof that grading happened in a sealed room: the agent's app, restarted for the
grader, looks for the grader's sealed folder (where the grading room mounts it, and where
it is on the host) and writes down what it found. In a bubblewrap room it finds neither;
in a local room it reads the grader's tests, and the record says unsealed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import RunningEmulator
from paths import TESTS
from stripebench.harness.emulator import Emulator
from stripebench.harness.sandbox import bwrap_available
from stripebench.harness.task import load_task
from stripebench.integrations.standing import (
    close_trial,
    grade_trial,
    open_trial,
    reopen_trial,
)
from stripebench.routing.bwrap import BubblewrapSandbox
from stripebench.rundir import load_result

SHOP = TESTS / "fixtures" / "tasks" / "fixture-shop"
SOLUTION = (SHOP / "solution" / "solve.sh").read_text()

needs_bwrap = pytest.mark.skipif(not bwrap_available(),
                                 reason="bubblewrap cannot create namespaces here")


def peeking_app(trial_dir: Path) -> str:
    """The shop's app.py, which first tries to read the grader's tests wherever they
    might be and records what it saw in peek.txt."""
    places = ["/grader/tests/grade.py", str(trial_dir / "grading" / "tests" / "grade.py")]
    return (f"import pathlib\nseen = []\nfor place in {places!r}:\n"
            "    try:\n        seen.append(place + ': ' + pathlib.Path(place).read_text()[:40])\n"
            "    except OSError as exc:\n        seen.append(place + ': ' + type(exc).__name__)\n"
            "pathlib.Path('peek.txt').write_text('\\n'.join(seen))\n"
            + (SHOP / "environment" / "app.py").read_text())


@needs_bwrap
def test_auto_is_bubblewrap_and_the_trial_is_graded_sealed(tmp_path: Path,
                                                           emulator: RunningEmulator) -> None:
    task = load_task(SHOP)
    trial = open_trial(task, Emulator(emulator.base), tmp_path / "trial", tmp_path / "work",
                       agent="test")
    try:
        assert trial.sandbox_kind == "bwrap" and trial.sealed
        assert isinstance(trial.sandbox, BubblewrapSandbox)
        mcp = json.loads(trial.mcp_config.read_text())
        assert mcp["sandbox"] == "bwrap" and mcp["attach"]["ns_pid"] > 0  # MCP joins it
        # the agent's commands: in the room, reaching Stripe through its routing
        hidden = trial.sandbox.exec(f"cat {SHOP / 'tests' / 'grade.py'}")
        assert hidden.exit_code != 0 and "No such file" in hidden.stderr
        solved = trial.sandbox.exec(SOLUTION)
        assert solved.ok, solved.stderr
        (trial.workdir / "app.py").write_text(peeking_app(trial.trial_dir))
        record = grade_trial(trial)
    finally:
        close_trial(trial)
    assert record["status"] == "completed" and record["reward"] == 1.0, record
    assert record["sealed"] is True and not any("unsealed" in n for n in record["notes"])
    # the restarted app saw neither the room's /grader nor the host's sealed folder
    peek = (trial.workdir / "peek.txt").read_text().splitlines()
    assert len(peek) == 2 and all(line.endswith(("FileNotFoundError", "PermissionError"))
                                  for line in peek), peek
    assert (trial.trial_dir / "grading" / "reward.json").is_file()
    loaded = load_result(trial.trial_dir)   # rundir's typed record, as reports read it
    assert loaded is not None
    assert loaded["sealed"] is True and loaded["agent"] == "test" and loaded["schema"] == 1
    assert loaded["task_version"] == task.version
    # another process (Harbor's test.sh) reopens it with the same room and seal
    again = reopen_trial(task, trial.describe())
    assert again.sandbox_kind == "bwrap" and again.sealed and again.record["sealed"]


def test_a_local_room_is_unsealed_and_says_so(tmp_path: Path,
                                              emulator: RunningEmulator) -> None:
    task = load_task(SHOP)
    trial = open_trial(task, Emulator(emulator.base), tmp_path / "trial", tmp_path / "work",
                       sandbox="local")
    try:
        assert trial.sandbox_kind == "local" and not trial.sealed
        assert json.loads(trial.mcp_config.read_text())["attach"] is None
        (trial.workdir / "app.py").write_text(peeking_app(trial.trial_dir))
        record = grade_trial(trial)
    finally:
        close_trial(trial)
    assert record["status"] == "completed" and record["reward"] == 0.0, record
    assert record["sealed"] is False
    assert any("unsealed" in note for note in record["notes"])
    # why: the agent's app read the grader's tests while it was graded
    assert '"""Grader for the fixture shop."""' in (trial.workdir / "peek.txt").read_text()
    loaded = load_result(trial.trial_dir)
    assert loaded is not None and loaded["sealed"] is False


def test_unknown_kinds_and_a_user_in_a_bubblewrap_room_are_refused(
        tmp_path: Path, emulator: RunningEmulator) -> None:
    from stripebench.harness.sandbox import RunAs, SandboxError

    task = load_task(SHOP)
    with pytest.raises(SandboxError, match="unknown sandbox kind"):
        open_trial(task, Emulator(emulator.base), tmp_path / "t", tmp_path / "w",
                   sandbox="docker")
    if bwrap_available():
        with pytest.raises(ValueError, match="run_as is for a local room"):
            open_trial(task, Emulator(emulator.base), tmp_path / "t", tmp_path / "w",
                       sandbox="bwrap", run_as=RunAs("x", 1000, 1000, "/"))
