"""Inspect's sandbox environment `stripebench`: the trial's bubblewrap room.

A real `inspect_ai.eval` with a scripted model (tests/inspect_models.py) and Inspect's own
`bash()` and `python()` tools (`-T tools=inspect`), which run through `sandbox()`, i.e.
through our provider: the commands run in the trial's room (the workdir is theirs, the
task's hidden tests/ on the host are not there, /proc shows the room's processes only),
the reference solution run that way reaches the emulator through the room's routing, and
the sample is graded in the sealed grading room. The provider's file calls and errors are
driven directly, without an eval. `-T sandbox=local` is the explicit, unsealed way out.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from paths import TESTS

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import EvalSample, read_eval_log  # noqa: E402
from inspect_ai.model import get_model  # noqa: E402
from inspect_ai.util import SandboxUserUnsupportedError  # noqa: E402
from inspect_ai.util._sandbox.registry import registry_find_sandboxenv  # noqa: E402

from inspect_models import ScriptedModel  # noqa: E402  (registers stripebench-scripted)
from stripebench.harness.sandbox import bwrap_available  # noqa: E402
from stripebench.integrations.inspect_eval import stripebench  # noqa: E402
from stripebench.integrations.inspect_sandbox import (  # noqa: E402
    TrialSandbox,
    TrialSandboxConfig,
)

FIXTURES = TESTS / "fixtures" / "tasks"
SHOP = FIXTURES / "fixture-shop"
HIDDEN = SHOP / "tests" / "grade.py"   # the grader, on the host beside the task
SOLUTION = (SHOP / "solution" / "solve.sh").read_text()

needs_bwrap = pytest.mark.skipif(not bwrap_available(),
                                 reason="bubblewrap cannot create namespaces here")


def evaluate(tmp_path: Path, script: list[list[Any]], **options: Any) -> EvalSample:
    task = stripebench(tasks="fixture-shop", tasks_dir=str(FIXTURES),
                       trials_dir=str(tmp_path / "trials"), tools="inspect", **options)
    ScriptedModel.offered.clear()
    model = get_model("stripebench-scripted/room", script=script)
    logs = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    log = read_eval_log(logs[0].location)
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 1
    return log.samples[0]


def tool_results(sample: EvalSample) -> list[str]:
    return [m.text for m in sample.messages if m.role == "tool"]


# what every process the command can see is running (one line each)
PROCESSES = "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done"


@needs_bwrap
def test_inspect_tools_run_in_the_trials_room_and_the_sample_is_graded_sealed(
        tmp_path: Path) -> None:
    assert HIDDEN.is_file()
    sample = evaluate(tmp_path, [
        ["bash", {"command": f"pwd; cat {HIDDEN}"}],
        ["bash", {"command": PROCESSES}],
        ["python", {"code": "import os\nopen('from_python.txt', 'w').write(os.getcwd())\n"
                            "print('python ran in', os.getcwd())"}],
        ["bash", {"command": SOLUTION}],
        ["submit", {"summary": "customer created"}]])
    assert ScriptedModel.offered[0] == ["bash", "python", "submit"]   # Inspect's tools
    score = sample.scores["stripebench_grader"]  # type: ignore[index]
    trial_dir = Path(score.metadata["trial_dir"])
    workdir = trial_dir / "workdir"
    hidden, processes, python, solved = tool_results(sample)[:4]
    # the room's working directory is the trial's workdir; the task's tests are not there
    assert hidden.splitlines()[-1] == str(workdir)
    assert "No such file or directory" in hidden and "g.gate(" not in hidden
    # its own pid namespace: its init (the relay), the service and this command; none of
    # the host's (not pytest, not the emulator)
    seen = [line for line in processes.splitlines() if line.strip()]
    assert any("relay.py" in line for line in seen) and any("app.py" in line for line in seen)
    assert not any("pytest" in line or "stripebench.emulator" in line for line in seen)
    assert len(seen) < 12, seen
    # python() feeds its code on stdin: it ran, in the workdir, and its file is the trial's
    assert f"python ran in {workdir}" in python
    assert (workdir / "from_python.txt").read_text() == str(workdir)
    assert "error" not in solved.lower()
    # graded in the sealed room: the reward, and the record says sealed
    assert score.value == 1.0, score.explanation
    assert score.metadata["status"] == "completed"
    assert score.metadata["sealed"] is True and score.metadata["sandbox"] == "bwrap"
    result = json.loads((trial_dir / "result.json").read_text())
    assert result["sealed"] is True and result["reward"] == 1.0
    assert (trial_dir / "grading" / "reward.json").is_file()   # the sealed folder's
    assert not (workdir / "reward.json").exists()
    # the commands went through the provider: Inspect recorded them as sandbox events
    execs = [e for e in sample.events if e.event == "sandbox" and e.action == "exec"]
    assert any(str(HIDDEN) in (e.cmd or "") for e in execs)  # type: ignore[union-attr]


def test_local_is_explicit_and_says_unsealed(tmp_path: Path) -> None:
    """`-T sandbox=local`: the commands run on this machine (they can read the task's
    hidden tests), and the sample, the score and the record say unsealed."""
    sample = evaluate(tmp_path, [["bash", {"command": f"cat {HIDDEN}"}]], sandbox="local")
    assert "g.gate(" in tool_results(sample)[0]   # why it is not comparable
    score = sample.scores["stripebench_grader"]  # type: ignore[index]
    assert score.metadata["sealed"] is False and score.metadata["sandbox"] == "local"
    assert "unsealed" in (score.explanation or "")
    assert sample.metadata["sealed"] is False
    result = json.loads((Path(score.metadata["trial_dir"]) / "result.json").read_text())
    assert result["sealed"] is False
    assert any("unsealed" in note for note in result["notes"])


def test_the_task_refuses_unknown_rooms_and_toolsets() -> None:
    with pytest.raises(ValueError, match="sandbox must be bwrap or local"):
        stripebench(tasks="fixture-shop", tasks_dir=str(FIXTURES), sandbox="docker")
    with pytest.raises(ValueError, match="tools must be one of"):
        stripebench(tasks="fixture-shop", tasks_dir=str(FIXTURES), tools="shell")
    task = stripebench(tasks="fixture-shop", tasks_dir=str(FIXTURES))
    room = task.dataset[0].sandbox
    assert room is not None and room.type == "stripebench"
    assert isinstance(room.config, TrialSandboxConfig) and room.config.sandbox == "bwrap"


def test_the_provider_is_registered_through_the_entry_point() -> None:
    """`inspect eval` finds `stripebench` as a sandbox type (pyproject's inspect_ai entry
    point), and a config read back from a log becomes ours again."""
    assert registry_find_sandboxenv("stripebench") is TrialSandbox
    assert TrialSandbox.config_deserialize({"sandbox": "local", "trials_dir": "/x"}) == \
        TrialSandboxConfig(sandbox="local", trials_dir="/x")


@needs_bwrap
def test_files_errors_and_users_through_the_provider(tmp_path: Path) -> None:
    """read_file/write_file go through a command in the room: binary data and CRLF
    survive, a path outside the workdir is the room's (its private /tmp), errors are the
    ones Inspect documents, a timeout kills the command, other users are refused."""

    async def drive() -> None:
        config = TrialSandboxConfig(trials_dir=str(tmp_path / "trials"))
        rooms = await TrialSandbox.sample_init("t", config, {"task_dir": str(SHOP)})
        room = rooms["default"]
        assert isinstance(room, TrialSandbox)
        workdir = room.trial.workdir
        try:
            await room.write_file("deep/data.bin", bytes(range(256)))
            assert (workdir / "deep" / "data.bin").read_bytes() == bytes(range(256))
            assert await room.read_file("deep/data.bin", text=False) == bytes(range(256))
            await room.write_file("/tmp/inside.txt", "one\r\ntwo\n")
            assert await room.read_file("/tmp/inside.txt") == "one\r\ntwo\n"
            assert not Path("/tmp/inside.txt").exists()   # the room's own /tmp
            with pytest.raises(FileNotFoundError):
                await room.read_file(str(HIDDEN))           # the host's file is not there
            with pytest.raises(IsADirectoryError):
                await room.read_file("deep")
            with pytest.raises(IsADirectoryError):
                await room.write_file("deep", "x")
            with pytest.raises(UnicodeDecodeError):
                await room.read_file("deep/data.bin")
            listed = await room.exec(["ls"], cwd="deep")
            assert listed.success and listed.stdout.split() == ["data.bin"]
            started = anyio.current_time()
            with pytest.raises(TimeoutError):
                await room.exec(["sh", "-c", "sleep 30 & sleep 30"], timeout=1)
            assert anyio.current_time() - started < 10
            left = await room.exec(["sh", "-c", "ps -eo args | grep -c '^sleep 30' || true"])
            assert left.stdout.strip() == "0"   # the whole process group was killed
            me = await room.exec(["id", "-u"], user="root")
            assert me.stdout.strip() == "0"
            with pytest.raises(SandboxUserUnsupportedError):
                await room.exec(["id"], user="nobody")
            env = await room.exec(["sh", "-c", "echo $STRIPE_API_BASE $EXTRA"],
                                  env={"EXTRA": "given"})
            assert env.stdout.split() == ["https://api.stripe.com", "given"]
            assert "CONTROL_TOKEN" not in (await room.exec(["env"])).stdout
        finally:
            await TrialSandbox.sample_cleanup("t", config, rooms, False)
        assert not os.path.exists(f"/proc/{room.trial.emulator.process.pid}") or \
            room.trial.emulator.process.poll() is not None  # type: ignore[union-attr]

    anyio.run(drive)
