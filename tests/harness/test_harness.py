"""The whole trial loop on small fixture tasks: oracle, noop and scripted agents, every
outcome (pass, partial, fail, timeout, crash, broken service, broken grader), parallel
trials, resume after kill -9, and `tasks check`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from paths import TESTS
from stripebench.harness.agents import make_agent
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.check import check_tasks
from stripebench.harness.emulator import Emulator
from stripebench.harness.runner import RunPlan, execute, pending
from stripebench.harness.task import discover, load_task, problems
from stripebench.harness.trial import processes_in

FIXTURES = TESTS / "fixtures" / "tasks"
SHOP = load_task(FIXTURES / "fixture-shop")
CREATE_CUSTOMER = ('curl -sf "$STRIPE_API_BASE/v1/customers" -u "$STRIPE_SECRET_KEY:" '
                   '-d email=ada@example.com -d "name=Ada Lovelace"')
SAVE_ID = " | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"id\"], end=\"\")' " \
          "> customer.txt"
SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "pass": [{"tool": "view", "args": {"path": "."}},
             {"tool": "bash", "args": {"command": CREATE_CUSTOMER + SAVE_ID}},
             {"tool": "submit", "args": {"summary": "done"}}],
    "partial": [{"tool": "bash", "args": {"command": CREATE_CUSTOMER}}],
    "fail": [{"tool": "create", "args": {"path": "customer.txt", "file_text": "cus_nope"}}],
    "timeout": [{"tool": "bash", "args": {"command": "sleep 30"}},
                {"tool": "bash", "args": {"command": "echo never"}}],
    "crash": [{"tool": "bash", "args": {"command": "true"}}, {"crash": "model API exploded"}],
}


@pytest.fixture(scope="module")
def emu(emulator: Any) -> Emulator:
    return Emulator(emulator.base)


def run_one(tmp: Path, emu: Emulator, agent: Any, task: Any = SHOP, **plan: Any
            ) -> dict[str, Any]:
    results = execute(RunPlan(out=tmp, tasks=[task], agent_name=agent.name, model=None,
                              **plan), lambda: agent, emulator=emu)
    assert len(results) == 1
    return results[0]


def test_fixture_tasks_load_and_validate() -> None:
    tasks = {t.id: t for t in discover(FIXTURES)}
    assert set(tasks) >= {"fixture-shop", "fixture-broken-service", "fixture-bad-grader"}
    assert SHOP.category == "backend" and SHOP.max_turns == 20
    assert [c["ref"] for c in SHOP.fixtures] == ["tee", "tee_price", "launch"]
    assert problems(SHOP) == []


def test_scripted_outcomes(tmp_path: Path, emu: Emulator) -> None:
    got = {}
    for name, steps in SCRIPTS.items():
        got[name] = run_one(tmp_path / name, emu, ScriptedAgent(steps),
                            agent_timeout=3 if name == "timeout" else None)
    assert got["pass"]["status"] == "completed" and got["pass"]["reward"] == 1.0
    assert got["pass"]["turns"] == 3 and got["pass"]["tool_calls"] == 3
    # the record: current schema, the task's version, and unsealed (a local sandbox)
    assert {(r["schema"], r["task_version"], r["sealed"]) for r in got.values()} == {
        (1, SHOP.version, False)}
    assert got["partial"]["reward"] == 0.5
    assert got["partial"]["subscores"]["customer_created"] == 1.0
    assert got["partial"]["subscores"]["customer_file"] == 0.0
    assert got["fail"]["status"] == "completed" and got["fail"]["reward"] == 0.0
    assert got["timeout"]["status"] == "agent_timeout"
    assert got["timeout"]["agent_seconds"] < 10
    assert got["crash"]["status"] == "agent_error"
    assert "model API exploded" in got["crash"]["error"]
    # the record keeps what happened: transcript, request log, submission, grader output
    trial = tmp_path / "pass" / "trials" / "fixture-shop" / "1"
    events = [json.loads(line) for line in (trial / "transcript.jsonl").read_text().splitlines()]
    assert [e["name"] for e in events if e["type"] == "tool_call"] == ["view", "bash", "submit"]
    # the account's whole request record: the set-up's, the agent's and the grader's
    saved = json.loads((trial / "emulator_requests.json").read_text())
    assert (saved["complete"], saved["dropped"]) == (True, 0)
    assert [r["seq"] for r in saved["data"]] == list(range(1, saved["total"] + 1))
    phases = saved["phases"]
    assert list(phases) == ["setup", "agent", "grading"]
    assert phases["grading"]["last_seq"] == saved["total"]

    def made_in(phase: str) -> set[str]:
        return {f"{r['method']} {r['path']}" for r in saved["data"]
                if phases[phase]["first_seq"] <= r["seq"] <= phases[phase]["last_seq"]}
    assert {"POST /v1/products", "POST /v1/coupons"} <= made_in("setup")  # the fixtures
    assert made_in("agent") == {"POST /v1/customers"}
    assert "GET /v1/customers" in made_in("grading")  # the grader's look-up
    assert got["pass"]["submission"]["added"] == ["customer.txt"]
    assert "[PASS] customer_created" in (trial / "grader.log").read_text()
    assert not (trial / "workdir" / ".stripebench" / "grader").exists()


def test_seeded_fixtures_and_collateral_gate(tmp_path: Path, emu: Emulator) -> None:
    # deleting a seeded coupon is collateral damage: the gate zeroes the score
    steps = SCRIPTS["pass"][:2] + [{"tool": "bash", "args": {
        "command": 'curl -sf -X DELETE "$STRIPE_API_BASE/v1/coupons/LAUNCH10" '
                   '-u "$STRIPE_SECRET_KEY:"'}}]
    result = run_one(tmp_path, emu, ScriptedAgent(steps))
    trial = tmp_path / "trials" / "fixture-shop" / "1"
    refs = json.loads((trial / "fixtures.json").read_text())
    assert refs["tee"]["id"] == "prod_fixture_tee"
    assert refs["tee_price"]["product"] == "prod_fixture_tee"
    assert result["subscores"]["customer_created"] == 1.0
    assert result["subscores"]["gate:stripe_untouched"] == 0.0 and result["reward"] == 0.0


def test_broken_service_and_grader_are_errors_not_scores(tmp_path: Path, emu: Emulator) -> None:
    service = run_one(tmp_path / "s", emu, make_agent("oracle"),
                      task=load_task(FIXTURES / "fixture-broken-service"))
    assert service["status"] == "service_error" and service["reward"] is None
    assert "exited with code 3" in service["error"]
    grader = run_one(tmp_path / "g", emu, make_agent("oracle"),
                     task=load_task(FIXTURES / "fixture-bad-grader"))
    assert grader["status"] == "grader_error" and grader["reward"] is None
    assert "no reward.json" in grader["error"]


def test_parallel_trials_do_not_interfere(tmp_path: Path, emu: Emulator) -> None:
    results = execute(RunPlan(out=tmp_path, tasks=[SHOP], agent_name="oracle", model=None,
                              attempts=3, parallel=3), lambda: make_agent("oracle"),
                      emulator=emu)
    assert sorted(r["reward"] for r in results) == [1.0, 1.0, 1.0]
    assert len({r["account"] for r in results}) == 3
    assert len({r["ports"]["web"] for r in results}) == 3
    ids = set()
    for r in results:
        trial = tmp_path / "trials" / "fixture-shop" / str(r["attempt"])
        ids.add((trial / "workdir" / "customer.txt").read_text())
        posts = [q for q in json.loads((trial / "emulator_requests.json").read_text())["data"]
                 if q["path"] == "/v1/customers" and q["method"] == "POST"]
        assert len(posts) == 1  # each account saw only its own trial's request
    assert len(ids) == 3


def test_tasks_check_proves_oracle_and_noop(tmp_path: Path) -> None:
    lines: list[str] = []
    failures = check_tasks([SHOP, load_task(FIXTURES / "fixture-bad-grader")], tmp_path,
                           echo=lines.append)
    assert failures == ["fixture-bad-grader"]
    assert any(line.startswith("ok   fixture-shop") for line in lines)


def test_resume_after_kill_9(tmp_path: Path) -> None:
    out = tmp_path / "run"
    script = tmp_path / "slow.json"
    script.write_text(json.dumps([{"sleep": 1.5}] + SCRIPTS["pass"]))
    command = [sys.executable, "-m", "stripebench.cli", "run", "--agent", "scripted",
               "--script", str(script), "--tasks-dir", str(FIXTURES), "--tasks",
               "fixture-shop", "--attempts", "3", "--out", str(out), "--no-report"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    first = out / "trials" / "fixture-shop" / "1" / "result.json"
    deadline = time.monotonic() + 60
    while not first.exists():
        assert time.monotonic() < deadline, "the first trial never finished"
        time.sleep(0.1)
    second = out / "trials" / "fixture-shop" / "2"
    while not second.exists():  # the second trial is now in flight (its agent sleeps 1.5 s)
        assert time.monotonic() < deadline, "the second trial never started"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = first.read_text()
    unfinished = [p for p in (out / "trials" / "fixture-shop").iterdir()
                  if not (p / "result.json").exists()]
    assert unfinished, "kill -9 should have interrupted a trial"
    done = subprocess.run(command + ["--resume"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    results = [json.loads((out / "trials" / "fixture-shop" / str(n) / "result.json")
                          .read_text()) for n in (1, 2, 3)]
    assert [r["reward"] for r in results] == [1.0, 1.0, 1.0]
    assert first.read_text() == before  # finished trials are not redone
    assert processes_in(out) == []  # the interrupted trial's service did not outlive it
    again = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert again.returncode == 2 and "--resume" in again.stderr  # no silent overwrite


def test_bubblewrap_trial_hides_the_grader_and_solution(tmp_path: Path, emu: Emulator) -> None:
    peek = {"tool": "bash", "args": {"command": f"ls {FIXTURES / 'fixture-shop' / 'tests'} "
                                                f"{FIXTURES / 'fixture-shop' / 'solution'}"}}
    result = run_one(tmp_path, emu, ScriptedAgent([peek] + SCRIPTS["pass"][1:]),
                     sandbox="bwrap")
    assert result["status"] == "completed" and result["reward"] == 1.0
    assert result["sealed"] is True
    events = [json.loads(line) for line in (tmp_path / "trials" / "fixture-shop" / "1" /
                                            "transcript.jsonl").read_text().splitlines()]
    first = next(e for e in events if e["type"] == "tool_result")
    assert first["is_error"] and "No such file or directory" in first["text"]


def test_a_redone_trial_starts_and_ends_identical(tmp_path: Path, emu: Emulator) -> None:
    finals, keys = [], []
    for name in ("first", "again"):
        result = run_one(tmp_path / name, emu, make_agent("oracle"))
        assert result["reward"] == 1.0
        trial = tmp_path / name / "trials" / "fixture-shop" / "1"
        seed = json.loads((trial / "stripe_seed.json").read_text())
        final = json.loads((trial / "stripe_final.json").read_text())
        keys.append(seed["account"].pop("secret_key"))
        final["account"].pop("secret_key"), seed["account"].pop("publishable_key")
        final["account"].pop("publishable_key")
        finals.append((seed, final, (trial / "workdir" / "customer.txt").read_text()))
    assert finals[0] == finals[1]  # same account, ids, timestamps and files
    assert keys[0] != keys[1]  # but fresh keys: nobody can derive a trial's key


def test_relative_out_is_anchored_where_the_run_started(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # setup commands and services run from other directories; they get absolute paths
    monkeypatch.chdir(tmp_path)
    plan = RunPlan(out=Path("runs/r1"), tasks=[SHOP], agent_name="noop", model=None)
    assert plan.out == tmp_path / "runs" / "r1"


def test_turn_limit_stops_the_agent_and_still_scores(tmp_path: Path, emu: Emulator) -> None:
    result = run_one(tmp_path, emu, ScriptedAgent(SCRIPTS["pass"]), max_turns=2)
    assert result["status"] == "turn_limit" and result["turns"] == 2
    assert result["tool_calls"] == 2  # the third step (submit) never ran
    assert result["reward"] == 1.0  # the work was done: a turn limit is a scored end
    phases = [result[k] for k in ("setup_seconds", "agent_seconds", "grader_seconds",
                                  "teardown_seconds")]
    assert all(p >= 0 for p in phases) and result["agent_seconds"] > 0
    assert sum(phases) <= result["wall_seconds"] + 0.01


def _task_copy(tmp: Path, name: str, verifier: str) -> Any:
    import shutil

    target = tmp / name
    shutil.copytree(FIXTURES / "fixture-shop", target)
    toml = (target / "task.toml").read_text()
    toml = toml.replace('id = "fixture-shop"', f'id = "{name}"').replace(
        '[verifier]\ntimeout_sec = 60\ncommand = "python tests/grade.py"', verifier)
    assert verifier in toml
    (target / "task.toml").write_text(toml)
    return load_task(target)


def test_grader_timeout_and_invalid_reward_are_grader_errors(tmp_path: Path,
                                                             emu: Emulator) -> None:
    slow = _task_copy(tmp_path / "tasks", "slow-grader",
                      '[verifier]\ntimeout_sec = 2\ncommand = "sleep 30"')
    result = run_one(tmp_path / "slow", emu, make_agent("oracle"), task=slow)
    assert result["status"] == "grader_error" and result["reward"] is None
    assert "timed out after 2s" in result["error"]
    assert result["grader_seconds"] < 20
    over = _task_copy(tmp_path / "tasks", "over-one",
                      '[verifier]\ntimeout_sec = 60\ncommand = "python tests/over.py"')
    (over.tests / "over.py").write_text(
        "import json, os\njson.dump({'total': 1.5}, open(os.environ"
        "['STRIPEBENCH_REWARD_PATH'], 'w'))\n")
    result = run_one(tmp_path / "over", emu, make_agent("oracle"), task=over)
    assert result["status"] == "grader_error" and result["reward"] is None
    assert "must be a number in [0, 1], got 1.5" in result["error"]


def test_docs_searches_in_a_trial_are_recorded_and_reported(tmp_path: Path,
                                                            emu: Emulator) -> None:
    from stripebench.results import load_run, summarize
    from stripebench.results.report import markdown

    steps = [{"tool": "search_stripe_documentation",
              "args": {"query": "checkout session custom field dropdown", "limit": 3}},
             {"tool": "search_stripe_documentation", "args": {"query": "qwxzv plorbic"}},
             *SCRIPTS["pass"]]
    result = run_one(tmp_path, emu, ScriptedAgent(steps))
    assert result["reward"] == 1.0 and result["tool_calls"] == 5
    events = [json.loads(line) for line in (tmp_path / "trials" / "fixture-shop" / "1" /
                                            "transcript.jsonl").read_text().splitlines()]
    searches = [e for e in events if e["type"] == "docs_search"]
    assert [s["query"] for s in searches] == ["checkout session custom field dropdown",
                                              "qwxzv plorbic"]
    good, bad = searches
    assert len(good["results"]) == 3 and good["coverage"] >= 0.5
    assert all(r["doc_id"] and r["title"] for r in good["results"])
    assert bad["coverage"] < 0.5
    report = markdown([summarize(load_run(tmp_path))])
    listed = report.split("found nothing useful")[1]
    assert "qwxzv plorbic" in listed and "fixture-shop #1" in listed
    assert "custom field dropdown" not in listed


def test_task_format_errors_and_the_tasks_list_command(tmp_path: Path) -> None:
    from stripebench.harness.task import TaskError, select

    bad = _task_copy(tmp_path, "bad-category", '[verifier]\ntimeout_sec = 60\n'
                     'command = "python tests/grade.py"').path
    (bad / "task.toml").write_text((bad / "task.toml").read_text().replace(
        'category = "backend"', 'category = "frontend"'))
    with pytest.raises(TaskError, match="category must be one of backend, full-stack, gym"):
        load_task(bad)
    unsolved = _task_copy(tmp_path, "unsolved", '[verifier]\ntimeout_sec = 60\n'
                          'command = "python tests/grade.py"')
    (unsolved.solution / "solve.sh").unlink()
    assert problems(unsolved) == ["no solution/solve.sh (the oracle)"]
    tasks = discover(FIXTURES)
    assert [t.id for t in select(tasks, category="gym")] == ["fixture-bad-grader"]
    with pytest.raises(TaskError, match="unknown task"):
        select(tasks, ["nope"])
    listed = subprocess.run([sys.executable, "-m", "stripebench.cli", "tasks", "list",
                             "--tasks-dir", str(FIXTURES)], capture_output=True, text=True,
                            timeout=60)
    assert listed.returncode == 0, listed.stderr
    shop = next(line for line in listed.stdout.splitlines() if line.startswith("fixture-shop"))
    assert shop.split()[:4] == ["fixture-shop", "backend", "60s", "20"]
    broken = subprocess.run([sys.executable, "-m", "stripebench.cli", "tasks", "list",
                             "--tasks-dir", str(tmp_path)], capture_output=True, text=True,
                            timeout=60)
    assert broken.returncode == 2 and "category must be one of" in broken.stderr


def test_an_unsealed_run_needs_the_explicit_flag(tmp_path: Path) -> None:
    """Issue 25: the room cannot vanish silently. `--sandbox local` (nothing isolated,
    scores not comparable) refuses to start without --allow-unsealed, and says why."""
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "stripebench.cli", "run", "--agent", "noop",
                           "--tasks-dir", str(FIXTURES), "--tasks", "fixture-shop", "--out",
                           str(out), "--sandbox", "local"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0
    assert "--allow-unsealed" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()


def test_run_command_defaults_to_the_oracle_and_prints_the_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`make run` without an API key: the oracle over the tasks, then the report."""
    from stripebench.harness.agents import default_agent

    env = {k: v for k, v in os.environ.items()
           if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "STRIPEBENCH_MODEL")}
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "stripebench.cli", "run", "--tasks-dir",
                           str(FIXTURES), "--category", "backend", "--out", str(out),
                           "--sandbox", "local", "--allow-unsealed"], capture_output=True,
                          text=True, timeout=240, env=env)
    # the broken service's trial measured nothing: exit 1 says so (issue 32)
    assert done.returncode == 1, done.stderr
    assert "errors     1 trial(s) measured nothing" in done.stdout
    assert json.loads((out / "run.json").read_text())["agent"] == "oracle"
    assert sorted(p.name for p in (out / "trials").iterdir()) == [
        "fixture-broken-service", "fixture-shop"]  # the gym fixture is another category
    assert "fixture-shop #1: completed reward 1.00" in done.stdout  # live progress
    assert "fixture-broken-service #1: service_error reward —" in done.stdout
    assert "By category" in done.stdout and "fixture-shop" in done.stdout
    md = (out / "report.md").read_text()
    # the broken task has no scored attempt: it counts 0 in the mean, it is not dropped
    assert "| oracle | backend | 50.0% | 1/2 |" in md and "service_error" in md
    assert (out / "report.html").read_text().startswith("<!doctype html>")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("STRIPEBENCH_MODEL", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    assert default_agent() == ("anthropic", "claude-sonnet-4-5")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    monkeypatch.setenv("STRIPEBENCH_MODEL", "gpt-x")
    assert default_agent() == ("openai", "gpt-x")


def test_tasks_check_can_run_again_into_the_same_out(tmp_path: Path) -> None:
    for _ in range(2):
        lines: list[str] = []
        assert check_tasks([SHOP], tmp_path, echo=lines.append) == [], lines
        assert lines[-1] == "ok   fixture-shop: oracle 1.0, noop 0.0"


def test_run_takes_several_task_ids_after_one_tasks_flag(tmp_path: Path) -> None:
    base = [sys.executable, "-m", "stripebench.cli", "run", "--agent", "noop", "--tasks-dir",
            str(FIXTURES), "--no-report", "--sandbox", "local", "--allow-unsealed"]
    for n, ids in enumerate((["fixture-shop", "fixture-bad-grader"],
                             ["fixture-shop,fixture-bad-grader"])):
        out = tmp_path / f"r{n}"
        done = subprocess.run(base + ["--out", str(out), "--tasks", *ids], capture_output=True,
                              text=True, timeout=120)
        # the bad grader's trial is a grader_error: a failed trial, exit 1 (issue 32)
        assert done.returncode == 1 and "grader_error" in done.stdout, done.stderr
        assert json.loads((out / "run.json").read_text())["tasks"] == [
            "fixture-shop", "fixture-bad-grader"]
    script = tmp_path / "hang.json"
    script.write_text(json.dumps([{"sleep": 60}]))
    hung = subprocess.run(base[:5] + ["scripted", "--script", str(script)] + base[6:] + [
        "--out", str(tmp_path / "r8"), "--tasks", "fixture-shop", "--agent-timeout", "1"],
        capture_output=True, text=True, timeout=120)
    assert hung.returncode == 0, hung.stderr
    # graded for information, but the live display does not pass it off as a score
    assert "fixture-shop #1: agent_timeout reward 0.00 (not scored)" in hung.stdout
    stray = subprocess.run(base + ["--out", str(tmp_path / "r9"), "fixture-shop"],
                           capture_output=True, text=True, timeout=60)
    assert stray.returncode == 2 and "unexpected argument(s): fixture-shop" in stray.stderr


def test_tasks_check_command_exit_codes(tmp_path: Path) -> None:
    base = [sys.executable, "-m", "stripebench.cli", "tasks", "check", "--tasks-dir",
            str(FIXTURES), "--sandbox", "local"]
    good = subprocess.run(base + ["--out", str(tmp_path / "a"), "fixture-shop"],
                          capture_output=True, text=True, timeout=180)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "ok   fixture-shop: oracle 1.0, noop 0.0" in good.stdout
    assert "all 1 task(s) pass" in good.stdout
    bad = subprocess.run(base + ["--out", str(tmp_path / "b"), "fixture-bad-grader"],
                         capture_output=True, text=True, timeout=180)
    assert bad.returncode == 1
    assert "problem: the oracle should score 1.0: status grader_error" in bad.stdout
    assert "problem: no tests/requirements.toml" in bad.stdout
    assert "FAIL fixture-bad-grader: oracle None" in bad.stdout
    assert "1 task(s) failed the check: fixture-bad-grader" in bad.stderr


def test_parallel_bubblewrap_trials_share_a_port_number_without_clashing(
        tmp_path: Path, emu: Emulator) -> None:
    results = execute(RunPlan(out=tmp_path, tasks=[SHOP], agent_name="oracle", model=None,
                              attempts=2, parallel=2, sandbox="bwrap"),
                      lambda: make_agent("oracle"), emulator=emu)
    assert [r["status"] for r in results] == ["completed", "completed"]
    assert [r["reward"] for r in results] == [1.0, 1.0]
    # each sandbox has its own loopback: both web services listen on the declared 8000
    assert [r["ports"]["web"] for r in results] == [8000, 8000]
    assert len({r["account"] for r in results}) == 2
    a, b = results
    assert a["started"] < b["finished"] and b["started"] < a["finished"]  # they overlapped


def test_resume_after_kill_9_with_parallel_trials(tmp_path: Path) -> None:
    out = tmp_path / "run"
    script = tmp_path / "slow.json"
    script.write_text(json.dumps([{"sleep": 1.5}] + SCRIPTS["pass"]))
    command = [sys.executable, "-m", "stripebench.cli", "run", "--agent", "scripted",
               "--script", str(script), "--tasks-dir", str(FIXTURES), "--tasks",
               "fixture-shop", "--attempts", "4", "--parallel", "2", "--out", str(out),
               "--no-report", "--sandbox", "local", "--allow-unsealed"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    trials = out / "trials" / "fixture-shop"
    deadline = time.monotonic() + 90

    def state() -> tuple[list[Path], list[Path]]:
        dirs = list(trials.iterdir()) if trials.exists() else []
        return ([d for d in dirs if (d / "result.json").exists()],
                [d for d in dirs if not (d / "result.json").exists()])

    while True:  # wait for finished trials and trials in flight at the same time
        finished, running = state()
        if finished and running:
            break
        assert time.monotonic() < deadline and proc.poll() is None, "never got there"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished, running = state()
    kept = {d.name: (d / "result.json").read_text() for d in finished}
    assert running and len(kept) < 4
    done = subprocess.run(command + ["--resume"], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    results = [json.loads((trials / str(n) / "result.json").read_text()) for n in (1, 2, 3, 4)]
    assert [r["reward"] for r in results] == [1.0] * 4
    assert {name: (trials / name / "result.json").read_text() for name in kept} == kept
    assert processes_in(out) == []


# ---------------------------------------------------------------------------------------
# No trial leaves the score silently: an ungradeable trial is an error that counts 0 and
# is redone by --retry-errors; an emulator that dies is restarted and the trial redone.

class FinalSnapshotFails(Emulator):
    """The real emulator, whose account snapshot fails once the agent is done (as it
    did for an account holding an object that could not be rendered)."""

    def __init__(self, base: str) -> None:
        super().__init__(base)
        self.snapshots = 0

    def snapshot(self, account_id: str) -> dict[str, Any]:
        self.snapshots += 1
        if self.snapshots > 1:
            raise RuntimeError("emulator GET snapshot: 500 api_error")
        return super().snapshot(account_id)


def test_a_trial_that_cannot_be_graded_is_an_error_counted_as_zero_and_retried(
        tmp_path: Path, emulator: Any) -> None:
    from stripebench.results import load_run, summarize

    broken = FinalSnapshotFails(emulator.base)
    result = run_one(tmp_path, broken, ScriptedAgent(SCRIPTS["pass"]))
    assert result["status"] == "harness_error" and result["reward"] is None
    assert "could not be graded" in result["error"] and "500 api_error" in result["error"]
    summary = summarize(load_run(tmp_path))
    assert summary.mean == 0.0 and [e["status"] for e in summary.errors] == ["harness_error"]
    plan = RunPlan(out=tmp_path, tasks=[SHOP], agent_name="scripted", model=None, resume=True,
                   retry_errors=True)
    assert pending(plan)[0] == [(SHOP, 1)]
    redone = execute(plan, lambda: ScriptedAgent(SCRIPTS["pass"]), emulator=Emulator(emulator.base))
    assert [(r["status"], r["reward"]) for r in redone] == [("completed", 1.0)]
    assert summarize(load_run(tmp_path)).mean == 1.0


def test_an_old_completed_trial_without_a_reward_is_listed_and_retried(tmp_path: Path) -> None:
    """Result files written before this fix said `completed` with reward None."""
    from stripebench.results import load_run, summarize

    plan = RunPlan(out=tmp_path, tasks=[SHOP], agent_name="scripted", model=None)
    from stripebench.harness.runner import prepare
    from stripebench.rundir import trial_dir, write_json_atomic
    prepare(plan)
    folder = trial_dir(tmp_path, SHOP.id, 1)
    folder.mkdir(parents=True)
    write_json_atomic(folder / "result.json", {
        "task": SHOP.id, "attempt": 1, "category": "backend", "status": "completed",
        "reward": None, "turns": 3, "subscores": {}, "error": "RuntimeError: snapshot 500"})
    summary = summarize(load_run(tmp_path))
    assert summary.mean == 0.0 and len(summary.errors) == 1
    plan.resume = plan.retry_errors = True
    assert pending(plan)[0] == [(SHOP, 1)]


class KillsTheEmulator:
    """An agent whose first `kills` runs kill the emulator process (SIGKILL) mid-trial;
    later runs replay the passing script."""

    name = "scripted"
    model: str | None = None

    def __init__(self, emulator: Emulator, state: dict[str, int]) -> None:
        self.emulator, self.state = emulator, state

    def run(self, ctx: Any) -> Any:
        from stripebench.harness.agents.base import AgentOutcome

        if self.state["left"] > 0:
            self.state["left"] -= 1
            assert self.emulator.process is not None
            self.emulator.process.send_signal(signal.SIGKILL)
            self.emulator.process.wait()
            return AgentOutcome(turns=1)
        return ScriptedAgent(SCRIPTS["pass"]).run(ctx)


def test_an_emulator_that_dies_mid_trial_is_restarted_and_the_trial_redone(
        tmp_path: Path) -> None:
    server = Emulator.start(data=tmp_path / "emulator")
    try:
        state = {"left": 1}
        plan = RunPlan(out=tmp_path / "run", tasks=[SHOP], agent_name="scripted", model=None)
        results = execute(plan, lambda: KillsTheEmulator(server, state), emulator=server)
        assert [(r["status"], r["reward"]) for r in results] == [("completed", 1.0)]
        assert server.generation == 1 and server.exit_codes == [-signal.SIGKILL]
        assert any("redone" in note for note in results[0]["notes"])
        # the restarted server kept state and still answers the harness
        assert server.create_account("acct_1afterrestart").id == "acct_1afterrestart"
    finally:
        server.stop()


def test_an_emulator_that_keeps_dying_fails_the_run_loudly(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from stripebench.harness import runner

    monkeypatch.setattr(runner, "MAX_EMULATOR_RESTARTS", 1)
    server = Emulator.start(data=tmp_path / "emulator")
    try:
        plan = RunPlan(out=tmp_path / "run", tasks=[SHOP], agent_name="scripted", model=None)
        with pytest.raises(runner.RunError, match="emulator died .*--retry-errors"):
            execute(plan, lambda: KillsTheEmulator(server, {"left": 99}), emulator=server)
        result = json.loads((tmp_path / "run" / "trials" / SHOP.id / "1" / "result.json")
                            .read_text())
        assert result["status"] == "emulator_error" and result["reward"] is None
        plan.resume = plan.retry_errors = True
        assert pending(plan)[0] == [(SHOP, 1)]
    finally:
        server.stop()
