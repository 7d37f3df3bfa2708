"""The sealed grading room (issue 25): walls 2 and 3, and the room red-teamed.

Every attack is an agent of the fixture task tests/fixtures/room/fixture-room run as a
benchmark trial in bubblewrap: the task asks for run.sh to print `new`; its grader runs
run.sh through the launcher, probes the web service, writes its data/ folder, and
imports some modules only after the agent's code ran. Each attacking agent leaves
run.sh printing `old` and tries to get the grader's reward anyway, or to see what it
must not. The honest outcome of such a trial is 0.5 (web_up and data_written pass,
prints_new, weight 2, fails); 1.0 or a planted marker means the wall broke.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paths import TESTS
from stripebench.harness.agents.simple import OracleAgent, ScriptedAgent
from stripebench.harness.emulator import Emulator
from stripebench.harness.launch_server import BadRequest, LaunchServer, parse_request
from stripebench.harness.side_rooms import SideRooms
from stripebench.harness.task import load_task
from stripebench.harness.trial import TrialConfig, run_trial
from stripebench.sandbox.limits import DEFAULT_LIMITS
from stripebench.sandbox.local import LocalSandbox

# not among tests/fixtures/tasks: the harness tests run every task there
ROOM_TASK = TESTS / "fixtures" / "room" / "fixture-room"
HONEST_FAILURE = 0.5
# What a planted module does if it is ever imported by the grader: claim full marks
# everywhere it can think of, and leave a marker the test looks for.
CLAIM = r'''
import os, json, pathlib
for target in [os.environ.get("STRIPEBENCH_REWARD_PATH", ""), "/grader/reward.json",
               "reward.json", ".stripebench/grader/reward.json"]:
    try:
        pathlib.Path(target).write_text(json.dumps({"total": 1.0}))
    except Exception:
        pass
for folder in [os.environ.get("STRIPEBENCH_WORKDIR", "."), "."]:
    try:
        pathlib.Path(folder, "data", "pwned-" + __name__).write_text("imported\n")
    except Exception:
        pass
'''


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    running = Emulator.start()
    yield running
    running.stop()


def attack(emulator: Emulator, tmp_path: Path, steps: list[dict[str, Any]],
           name: str = "attack") -> tuple[dict[str, Any], Path]:
    """One bubblewrap trial of fixture-room whose agent takes `steps`."""
    trial_dir = tmp_path / name
    record = run_trial(load_task(ROOM_TASK), 1, trial_dir, ScriptedAgent(steps), emulator,
                       TrialConfig(run_id="room", agent_name="attacker", model=None,
                                   sandbox="bwrap"))
    return record, trial_dir


def create(path: str, text: str) -> dict[str, Any]:
    return {"tool": "create", "args": {"path": path, "file_text": text}}


def bash(command: str) -> dict[str, Any]:
    return {"tool": "bash", "args": {"command": command, "timeout": 30}}


def honest_failure(record: dict[str, Any]) -> None:
    assert record["status"] == "completed", record["error"]
    assert record["subscores"]["prints_new"] == 0.0
    assert record["reward"] == HONEST_FAILURE, record


def markers(trial_dir: Path) -> list[str]:
    data = trial_dir / "workdir" / "data"
    return sorted(p.name for p in data.iterdir() if p.name.startswith("pwned"))


def test_the_reference_passes_in_the_room(emulator: Emulator, tmp_path: Path) -> None:
    """The room's fixture itself: solved, it scores 1.0, sealed; the grader wrote only
    its data/ folder; the reward came from the sealed folder beside the workdir."""
    trial_dir = tmp_path / "oracle"
    record = run_trial(load_task(ROOM_TASK), 1, trial_dir, OracleAgent(), emulator,
                       TrialConfig(run_id="room", agent_name="oracle", model=None,
                                   sandbox="bwrap"))
    assert record["status"] == "completed" and record["reward"] == 1.0, record
    assert record["sealed"] is True
    assert (trial_dir / "workdir" / "data" / "grader-note").read_text() == "graded\n"
    assert not (trial_dir / "workdir" / "grader-was-here").exists()
    assert json.loads((trial_dir / "grading" / "reward.json").read_text())["total"] == 1.0
    assert not (trial_dir / "workdir" / ".stripebench" / "grader").exists()


def test_planted_modules_do_not_shadow_the_graders_imports(emulator: Emulator,
                                                           tmp_path: Path) -> None:
    """Wall 2: modules the grader imports lazily (netrc, shlex, httpx, h11, httpcore),
    sitecustomize, a .pth and a fake stripebench package, planted at the workdir's top,
    where the old grader's tests lived (.stripebench/grader/tests) and where run.sh runs.
    None is imported: the grader's tests live in the sealed folder and it runs -E -s."""
    steps = [create(f"{where}{module}.py", CLAIM)
             for where in ("", ".stripebench/grader/tests/", "data/")
             for module in ("netrc", "shlex", "httpx", "h11", "httpcore", "sitecustomize",
                            "usercustomize")]
    steps += [create("stripebench/__init__.py", CLAIM),
              create("stripebench/grading/__init__.py", CLAIM),
              create("zz.pth", "import netrc\n"),
              bash("mkdir -p .stripebench/grader && cp netrc.py .stripebench/grader/")]
    record, trial_dir = attack(emulator, tmp_path, steps)
    honest_failure(record)
    assert markers(trial_dir) == []
    # the evidence: files named like modules the grader imported, the .pth
    planted = set(record["tamper"]["shadowing_files"])
    assert {"netrc.py", "shlex.py", "httpx.py", "h11.py", "sitecustomize.py", "zz.pth",
            "stripebench/__init__.py"} <= planted, planted


def test_a_detached_reforking_process_dies_with_the_script_that_started_it(
        emulator: Emulator, tmp_path: Path) -> None:
    """Wall 3: run.sh (run by the grader) leaves a detached process that re-forks
    continuously and keeps rewriting every reward it can reach. Its pid namespace dies
    with run.sh: no heartbeat after the script ended, none after the trial, reward
    honest."""
    daemon = ("setsid bash -c 'while true; do "
              "for f in /grader/reward.json reward.json .stripebench/grader/reward.json; do "
              "echo {\\\"total\\\": 1.0} > $f 2>/dev/null; done; "
              "date +%s%N > data/heartbeat; (sleep 0.05) & sleep 0.05; done' "
              "</dev/null >/dev/null 2>&1 &\n")
    record, trial_dir = attack(emulator, tmp_path, [
        create("run.sh", "#!/usr/bin/env bash\n" + daemon + "sleep 0.5\necho old\n")])
    honest_failure(record)
    heartbeat = trial_dir / "workdir" / "data" / "heartbeat"
    assert heartbeat.exists()  # it did run, during the grader's run.sh
    first = heartbeat.read_text()
    time.sleep(1.0)
    assert heartbeat.read_text() == first, "the detached loop outlived the trial"


def test_the_service_cannot_see_the_sealed_folder_or_the_launcher(
        emulator: Emulator, tmp_path: Path) -> None:
    """The agent's service, restarted for grading, looks for the grader's folder, its
    tests, its reward and the launch socket, and writes what it found into the
    workdir: it finds nothing and can write none of it."""
    probe = r'''
import os, socket, json
seen = {}
for path in ["/grader/tests/grade.py", "/grader/launch/launch.sock", "/grader/reward.json"]:
    seen[path] = os.path.exists(path)
try:
    seen["listing"] = os.listdir("/grader")
except OSError as exc:
    seen["listing"] = type(exc).__name__
try:
    open("/grader/reward.json", "w").write('{"total": 1.0}')
    seen["wrote_reward"] = True
except OSError:
    seen["wrote_reward"] = False
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect("/grader/launch/launch.sock")
    seen["launch_connected"] = True
except OSError:
    seen["launch_connected"] = False
open("data/service-view.json", "w").write(json.dumps(seen))
'''
    record, trial_dir = attack(emulator, tmp_path, [
        create("probe.py", probe),
        create("serve.sh", "#!/usr/bin/env bash\npython3 probe.py\nexec python3 app.py\n")])
    honest_failure(record)
    seen = json.loads((trial_dir / "workdir" / "data" / "service-view.json").read_text())
    # its side room never mounts /grader (FileNotFoundError); in the grading room's own
    # namespaces it would be covered (PermissionError): either way, nothing of it
    assert seen.pop("listing") in ("FileNotFoundError", "PermissionError")
    assert seen == {"/grader/tests/grade.py": False, "/grader/launch/launch.sock": False,
                    "/grader/reward.json": False, "wrote_reward": False,
                    "launch_connected": False}


def test_agent_code_cannot_find_the_grader_process(emulator: Emulator,
                                                   tmp_path: Path) -> None:
    """run.sh and the service list every process they can see and look for the
    grader's environment (its reward path) or command line: they see only their own
    pid namespace."""
    hunt = r'''
import os, json, sys
found = []
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    try:
        cmd = open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        continue
    env = b""
    try:
        env = open(f"/proc/{pid}/environ", "rb").read()
    except OSError:
        pass
    if b"grade.py" in cmd or b"STRIPEBENCH_REWARD_PATH" in env or b"launch.sock" in env:
        found.append(pid)
open(f"data/hunt-{sys.argv[1]}.json", "w").write(json.dumps(
    {"found": found, "visible": len([p for p in os.listdir("/proc") if p.isdigit()])}))
'''
    record, trial_dir = attack(emulator, tmp_path, [
        create("hunt.py", hunt),
        create("run.sh", "#!/usr/bin/env bash\npython3 hunt.py script\necho old\n"),
        create("serve.sh", "#!/usr/bin/env bash\n(sleep 3; python3 hunt.py service) &\n"
                           "exec python3 app.py\n")])
    honest_failure(record)
    data = trial_dir / "workdir" / "data"
    script = json.loads((data / "hunt-script.json").read_text())
    assert script["found"] == [] and script["visible"] <= 4, script
    if (data / "hunt-service.json").exists():  # the grader may finish before 3 s
        assert json.loads((data / "hunt-service.json").read_text())["found"] == []


def test_rewards_written_by_the_agent_count_for_nothing(emulator: Emulator,
                                                        tmp_path: Path) -> None:
    """reward.json at the workdir's top, in the old grader folder, and outside the
    workdir as the agent's sandbox sees it (where the sealed folder will be): the
    harness reads only the sealed folder, which it makes afresh after the agent."""
    claim = '{"total": 1.0, "subscores": {"prints_new": 1.0}}'
    record, trial_dir = attack(emulator, tmp_path, [
        create("reward.json", claim),
        bash(f"mkdir -p .stripebench/grader ../grading && echo '{claim}' > "
             f".stripebench/grader/reward.json; echo '{claim}' > ../grading/reward.json "
             f"2>/dev/null; echo '{claim}' > ../reward.json 2>/dev/null; true")])
    honest_failure(record)


def test_a_python_planted_on_the_path_is_not_the_graders(emulator: Emulator,
                                                         tmp_path: Path) -> None:
    """Executables named python in the workdir, its bin/ and node_modules/.bin/ (where
    a careless PATH would look first) are never what runs the grader."""
    fake = "#!/bin/sh\n" + "echo '{\"total\": 1.0}' > \"$STRIPEBENCH_REWARD_PATH\"\n" + \
        "touch \"$STRIPEBENCH_WORKDIR/data/pwned-python\"\n"
    steps = [create(path, fake) for path in ("python", "bin/python", "node_modules/.bin/python",
                                             "python3")]
    steps.append(bash("chmod +x python python3 bin/python node_modules/.bin/python"))
    record, trial_dir = attack(emulator, tmp_path, steps)
    honest_failure(record)
    assert markers(trial_dir) == []


def test_a_writable_folder_replaced_by_a_symlink_stays_read_only(emulator: Emulator,
                                                                  tmp_path: Path) -> None:
    """The grader may write data/ only: an agent that swaps data/ for a symlink to the
    submission's top gets no write access to the submission through it; the trial
    records the tamper and the grader's data check fails."""
    record, trial_dir = attack(emulator, tmp_path, [
        bash("printf '#!/usr/bin/env bash\\necho new\\n' > run.sh && rm -rf data && "
             "ln -s . data")])
    assert record["status"] == "completed", record["error"]
    assert record["subscores"]["prints_new"] == 1.0
    assert record["subscores"]["data_written"] == 0.0
    assert "data" in record["tamper"]["writable_folders_refused"]


def test_a_launched_command_cannot_reach_the_launcher(emulator: Emulator,
                                                      tmp_path: Path) -> None:
    """run.sh tries every unix socket it can find, and the launcher's place, to have a
    command of its own run beside the grader: there is none to reach."""
    reach = r'''
import glob, json, socket
tried = {}
for path in ["/grader/launch/launch.sock"] + glob.glob("/run/stripebench/sock/*") + \
        glob.glob("/tmp/sb-launch-*/launch.sock"):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        s.sendall(json.dumps({"argv": ["touch", "data/pwned-launch"]}).encode() + b"\n")
        tried[path] = s.recv(1000).decode()
    except OSError as exc:
        tried[path] = "refused: " + type(exc).__name__
open("data/reach.json", "w").write(json.dumps(tried))
'''
    record, trial_dir = attack(emulator, tmp_path, [
        create("reach.py", reach),
        create("run.sh", "#!/usr/bin/env bash\npython3 reach.py\necho old\n")])
    honest_failure(record)
    tried = json.loads((trial_dir / "workdir" / "data" / "reach.json").read_text())
    assert tried.get("/grader/launch/launch.sock", "").startswith("refused")
    assert markers(trial_dir) == []


def test_huge_output_from_a_launched_command_is_capped(emulator: Emulator,
                                                       tmp_path: Path) -> None:
    """run.sh prints 20 MB: the grader gets at most its output limit, the trial ends
    normally with an honest score."""
    record, _ = attack(emulator, tmp_path, [
        create("run.sh", "#!/usr/bin/env bash\nhead -c 20000000 /dev/zero | tr '\\0' x\n")])
    honest_failure(record)


def test_a_service_that_ignores_sigterm_and_reforks_is_gone_after_grading(
        emulator: Emulator, tmp_path: Path) -> None:
    """The agent's service traps TERM and keeps spawning detached children during
    grading: when the room stops they all die (cgroup and pid namespace), none is left
    on the machine, and the trial's tamper record counts what was killed."""
    tag = f"room-stray-{os.getpid()}-{time.monotonic_ns()}"
    serve = ("#!/usr/bin/env bash\ntrap '' TERM\n"
             f"(while true; do setsid bash -c 'exec -a {tag} sleep 30' & sleep 0.2; done) &\n"
             "exec python3 app.py\n")
    record, _ = attack(emulator, tmp_path, [create("serve.sh", serve)])
    honest_failure(record)
    left = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and tag.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                left.append(pid)
        except OSError:
            pass
    assert left == []
    assert record["tamper"].get("grading_processes_killed_at_stop", 0) > 0


# ---------------------------------------------------------------- the launcher itself

@pytest.mark.parametrize("request_text, why", [
    ("not json", "not JSON"),
    ('["ls"]', "JSON object"),
    ('{"argv": "ls"}', "argv"),
    ('{"argv": []}', "argv"),
    ('{"argv": ["ls", 3]}', "argv"),
    ('{"argv": ["ls"], "cwd": "/etc"}', "cwd"),
    ('{"argv": ["ls"], "cwd": "WORK/../.."}', "cwd"),
    ('{"argv": ["ls"], "cwd": "relative"}', "cwd"),
    ('{"argv": ["ls"], "env": {"A": 1}}', "env"),
    ('{"argv": ["ls"], "timeout": NaN}', "timeout"),
    ('{"argv": ["ls"], "timeout": 1e9}', "timeout"),
    ('{"argv": ["ls"], "timeout": true}', "timeout"),
    ('{"argv": ["ls"], "output_limit": 1e12}', "output_limit"),
    ('{"argv": ["ls"], "mode": "daemon"}', "mode"),
    ('{"argv": ["ls"], "log": "../../etc/passwd"}', "log"),
])
def test_bad_launch_requests_are_refused_with_the_reason(tmp_path: Path, request_text: str,
                                                         why: str) -> None:
    with pytest.raises(BadRequest, match=why):
        parse_request(request_text.replace("WORK", str(tmp_path)).encode(), tmp_path)


def test_the_launcher_runs_commands_and_refuses_bad_ones_on_the_wire(tmp_path: Path) -> None:
    """A live launcher over a local sandbox: a good request runs in the submission and
    answers its output; a bad one is answered with the reason, runs nothing, and is
    counted for the tamper record."""
    from stripebench.grading import launch

    work = tmp_path / "work"
    box = LocalSandbox(work, {})
    rooms = SideRooms(box, {}, DEFAULT_LIMITS)
    server = LaunchServer(rooms, box.workdir, tmp_path / "l.sock", log_dir=tmp_path)
    os.environ[launch.SOCKET_VARIABLE] = str(tmp_path / "l.sock")
    try:
        done = launch.run(["sh", "-c", "pwd; echo err >&2; exit 3"], cwd=work)
        assert (done.exit_code, done.stdout.strip(), done.stderr.strip()) == (3, str(work),
                                                                             "err")
        with pytest.raises(launch.LaunchError, match="cwd"):
            launch.run(["touch", "x"], cwd="/etc")
        assert server.refused and not (Path("/etc") / "x").exists()
        with launch.start(["sh", "-c", "echo up; sleep 60"], cwd=work, log="svc"):
            for _ in range(100):
                if (tmp_path / "svc.log").read_text().strip() == "up":
                    break
                time.sleep(0.05)
        assert (tmp_path / "svc.log").read_text().strip() == "up"
        assert server.launched == 2
    finally:
        del os.environ[launch.SOCKET_VARIABLE]
        server.close()
        box.stop()
