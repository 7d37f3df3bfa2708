"""The run record: a run written before the record had an owner still loads and reports;
records round-trip through rundir; the status table decides scores, retries and what is
left out; reports open with the unsealed warning."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from paths import REPO, TESTS
from stripebench.harness.runner import RunPlan, pending
from stripebench.harness.task import load_task
from stripebench.results import load_run, summarize
from stripebench.results.compare import compare_runs, trial_score
from stripebench.results.compare_report import markdown as compare_markdown
from stripebench.results.compare_report import page as compare_page
from stripebench.results.compare_report import terminal as compare_terminal
from stripebench.results.html import page
from stripebench.results.report import csv_text, markdown
from stripebench.rundir import (
    LEFT_OUT,
    RETRYABLE,
    SCHEMA_VERSION,
    SCORED,
    TABLE,
    ZERO,
    Transcript,
    load_result,
    new_record,
    read_meta,
    status,
    trial_dir,
    write_meta,
    write_result,
)
from stripebench.rundir.statuses import table_markdown
from stripebench.rundir.transcript import read

OLD_RUN = TESTS / "fixtures" / "runs" / "schema0-oracle-local"
SHOP = load_task(TESTS / "fixtures" / "tasks" / "fixture-shop")
UNSEALED = "unsealed: scores are not comparable"


def test_a_run_written_before_schema_1_loads_upgraded() -> None:
    raw = json.loads((OLD_RUN / "trials" / "fixture-shop" / "1" / "result.json").read_text())
    assert "schema" not in raw and "sealed" not in raw  # the fixture really is old
    run = load_run(OLD_RUN)
    assert [(t["task"], t["attempt"], t["status"]) for t in run.trials] == [
        ("fixture-shop", 1, "completed"), ("fixture-shop", 2, "completed")]
    for t in run.trials:
        # old records: schema 0, no task version, sealed read from run.json's sandbox
        assert t["schema"] == 0 and t["task_version"] is None and t["sealed"] is False
        assert t["setup_retries"] == 0
    assert run.unsealed and run.unfinished == []
    summary = summarize(run)
    assert summary.mean == 1.0 and summary.errors == []
    assert summary.tasks[0].valid == 2 and summary.tasks[0].parts == {"stripe": 1.0,
                                                                      "files": 1.0}
    events = read(run.trial_dir(run.trials[0]) / "transcript.jsonl")
    assert [e["type"] for e in events] == ["start", "tool_call", "tool_result", "end"]


def test_every_report_of_an_unsealed_run_opens_with_the_warning() -> None:
    summaries = [summarize(load_run(OLD_RUN))]
    assert markdown(summaries).startswith(f"**{UNSEALED} (oracle)**\n# stripebench results")
    assert page(summaries).split("<body>")[1].startswith(f"<p class=err><b>{UNSEALED}")
    done = subprocess.run([sys.executable, "-m", "stripebench.cli", "report", str(OLD_RUN)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith(UNSEALED)
    assert "fixture-shop" in csv_text(summaries)  # the CSV keeps Stripe's columns only
    old = load_run(OLD_RUN)
    comparison = compare_runs(old, old, resamples=200)
    assert compare_terminal([comparison]).startswith(UNSEALED)
    assert compare_markdown([comparison]).startswith(f"**{UNSEALED}")
    assert f"<p class=err><b>{UNSEALED}" in compare_page([comparison]).split("<h1>")[0]


def _sealed_run(root: Path, trials: list[tuple[int, str, float | None]],
                sealed: bool = True) -> Path:
    write_meta(root, {"run_id": "r", "agent": "scripted", "model": None,
                      "tasks": [SHOP.id], "attempts": len(trials), "sandbox": "bwrap"})
    for attempt, name, reward in trials:
        record = new_record(task=SHOP.id, task_version=SHOP.version, category="backend",
                            attempt=attempt, run_id="r", agent="scripted", model=None,
                            sealed=sealed, status=name)
        record["reward"] = reward
        folder = trial_dir(root, SHOP.id, attempt)
        folder.mkdir(parents=True)
        write_result(folder, record)
    return root


def test_a_sealed_run_has_no_warning_and_one_unsealed_trial_brings_it(tmp_path: Path) -> None:
    sealed = _sealed_run(tmp_path / "sealed", [(1, "completed", 0.5)])
    assert UNSEALED not in markdown([summarize(load_run(sealed))])
    assert read_meta(sealed)["schema"] == 1
    mixed = _sealed_run(tmp_path / "mixed", [(1, "completed", 0.5)])
    late = new_record(task=SHOP.id, task_version=1, category="backend", attempt=2,
                      run_id="r", agent="scripted", model=None, sealed=False,
                      status="completed")
    trial_dir(mixed, SHOP.id, 2).mkdir()
    write_result(trial_dir(mixed, SHOP.id, 2), late)
    assert markdown([summarize(load_run(mixed))]).startswith(f"**{UNSEALED}")


def test_a_record_round_trips_and_a_broken_one_is_not_a_trial(tmp_path: Path) -> None:
    record = new_record(task="t", task_version=3, category="gym", attempt=2, run_id="r",
                        agent="a", model="m", sealed=True, started=5.0,
                        subproblems={"p": ["x"]})
    write_result(tmp_path, record)
    assert load_result(tmp_path) == record and record["schema"] == SCHEMA_VERSION
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]  # no temp file left
    (tmp_path / "result.json").write_text('{"task": "t", "attempt": 1, "stat')  # cut short
    assert load_result(tmp_path) is None
    (tmp_path / "result.json").write_text('["not", "a", "record"]')
    assert load_result(tmp_path) is None


def test_a_transcript_cut_by_kill_9_reads_up_to_the_cut(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "transcript.jsonl")
    transcript.add("start", task="t")
    transcript.add("end", status="completed")
    with open(tmp_path / "transcript.jsonl", "a") as handle:
        handle.write('{"type": "tool_ca')
    assert [e["type"] for e in read(tmp_path / "transcript.jsonl")] == ["start", "end"]
    assert read(tmp_path / "missing.jsonl") == []


def test_the_status_table_is_consistent_and_documented() -> None:
    names = [s.name for s in TABLE]
    assert len(set(names)) == len(names)
    assert SCORED == ("completed", "turn_limit")
    assert set(ZERO) == {"agent_timeout", "agent_error", "limit_breached"}
    assert set(LEFT_OUT) == {"budget_stopped", "provider_refused", "endpoint_unreachable"}
    assert set(RETRYABLE) == {"setup_error", "service_error", "grader_error",
                              "harness_error", "emulator_error", *LEFT_OUT}
    for row in TABLE:
        assert not (row.scored and (row.zero or row.retried or row.left_out)), row
        assert not (row.zero and (row.retried or row.left_out)), row
        assert row.meaning
    assert status("from_the_future").name == "unknown"  # listed, counts 0, never redone
    assert table_markdown() in (REPO / "docs" / "harness.md").read_text()


def _trial(attempt: int, name: str, reward: float | None = None,
           task: str = "t") -> dict[str, Any]:
    return {"task": task, "attempt": attempt, "status": name, "reward": reward,
            "category": "backend", "turns": 1, "subscores": {}}


def test_left_out_tasks_leave_the_means_errors_count_zero(tmp_path: Path) -> None:
    from stripebench.results.store import Run

    run = Run(tmp_path, {"run_id": "r"}, [
        _trial(1, "completed", 1.0, "solved"),
        _trial(1, "budget_stopped", None, "unmeasured"),
        _trial(2, "provider_refused", None, "unmeasured"),
        _trial(1, "grader_error", None, "broken"),
        _trial(1, "limit_breached", 0.7, "breached"),  # graded for information only
    ])
    summary = summarize(run)
    by_task = {t.task: t for t in summary.tasks}
    assert by_task["unmeasured"].left_out and by_task["unmeasured"].score is None
    assert not by_task["broken"].left_out and not by_task["breached"].left_out
    assert summary.mean == pytest.approx(1 / 3)  # solved 1, broken 0, breached 0
    assert summary.categories[0].tasks == 3
    assert len(summary.errors) == 4
    text = markdown([summary])
    assert "## Tasks not measured" in text
    assert "unmeasured (budget_stopped, provider_refused)" in text
    # paired comparison: the agent's failure scores 0, the others void their pair
    assert trial_score(_trial(1, "limit_breached", 0.7)) == 0.0
    assert trial_score(_trial(1, "agent_timeout", 0.7)) == 0.0
    for name in ("endpoint_unreachable", "harness_error", "from_the_future"):
        assert trial_score(_trial(1, name)) is None
    # a task with a left-out attempt and a scored one is measured
    mixed = Run(tmp_path, {}, [_trial(1, "budget_stopped"), _trial(2, "completed", 0.5)])
    assert summarize(mixed).mean == 0.5


def test_retry_errors_redoes_errors_and_left_out_trials_not_the_agents(tmp_path: Path) -> None:
    statuses = ["completed", "agent_error", "limit_breached", "grader_error",
                "budget_stopped", "endpoint_unreachable", "from_the_future"]
    root = _sealed_run(tmp_path / "run", [(n, name, 1.0 if name == "completed" else None)
                                          for n, name in enumerate(statuses, 1)])
    plan = RunPlan(out=root, tasks=[SHOP], agent_name="scripted", model=None,
                   attempts=len(statuses), resume=True)
    assert pending(plan) == ([], len(statuses))
    plan.retry_errors = True
    todo, done = pending(plan)
    assert [statuses[n - 1] for _, n in todo] == ["grader_error", "budget_stopped",
                                                  "endpoint_unreachable"]
    assert done == 4


def test_the_old_run_fixture_is_untouched_by_loading(tmp_path: Path) -> None:
    copy = tmp_path / "old"
    shutil.copytree(OLD_RUN, copy)
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    summarize(load_run(copy))
    assert {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()} == before
