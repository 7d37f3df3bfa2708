"""Reports from run directories: best-of-N with ties by fewest turns, sub-problems
coalesced, category means and turn ranges, errors listed and a task with no scored attempt
counted 0 in the means; terminal, Markdown, CSV and a self-contained HTML page."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from stripebench.results import load_run, summarize
from stripebench.results.html import page
from stripebench.results.report import csv_text, markdown

STRIPEBENCH = str(Path(sys.executable).parent / "stripebench")

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def trial(task: str, attempt: int, reward: float | None, turns: int, *,
          category: str = "backend", status: str = "completed",
          subscores: dict[str, float] | None = None,
          subproblems: dict[str, list[str]] | None = None) -> dict[str, Any]:
    return {"task": task, "attempt": attempt, "category": category, "status": status,
            "reward": reward, "turns": turns, "subscores": subscores or {},
            "subproblems": subproblems or {}, "error": None if status == "completed"
            else "the service died", "input_tokens": 10, "output_tokens": 5, "cost_usd": None,
            "tool_calls": 2, "wall_seconds": 1.0}


def write_run(root: Path, model: str, trials: list[dict[str, Any]]) -> Path:
    root.mkdir(parents=True)
    (root / "run.json").write_text(json.dumps({"run_id": f"{root.name}-abc", "agent":
                                               "anthropic", "model": model}))
    for t in trials:
        folder = root / "trials" / t["task"] / str(t["attempt"])
        folder.mkdir(parents=True)
        (folder / "result.json").write_text(json.dumps(t))
    return root


def sample(tmp: Path) -> Path:
    split = {"service_a": ["a"], "service_b": ["b"]}
    run = write_run(tmp / "r1", "claude-x", [
        trial("checkout", 1, 0.5, 30, category="full-stack"),
        trial("checkout", 2, 1.0, 60, category="full-stack"),
        trial("checkout", 3, 1.0, 40, category="full-stack"),  # tie on 1.0: fewest turns
        trial("upgrade", 1, 0.5, 10, subscores={"a": 1.0, "b": 0.0}, subproblems=split),
        trial("upgrade", 2, 0.5, 20, subscores={"a": 0.0, "b": 1.0}, subproblems=split),
        trial("gym", 1, None, 0, category="gym", status="service_error"),
        trial("gym", 2, 0.25, 90, category="gym"),
        trial("broken", 1, None, 0, category="gym", status="grader_error"),
    ])
    shot = run / "trials" / "checkout" / "3"
    (shot / "screenshots").mkdir()
    (shot / "screenshots" / "s.png").write_bytes(PNG)
    events = [{"type": "start", "prompt": "Do <the> thing"},
              {"type": "message", "role": "assistant", "text": "Looking at the page"},
              {"type": "tool_call", "name": "browser_take_screenshot", "args": {}},
              {"type": "tool_result", "name": "browser_take_screenshot", "text": "ok",
               "images": ["screenshots/s.png"], "is_error": False, "seconds": 0.2},
              {"type": "docs_search", "query": "zorblax frobnicate", "results": []},
              {"type": "end", "status": "completed"}]
    (shot / "transcript.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n{torn")
    return run


def test_best_of_n_and_category_means(tmp_path: Path) -> None:
    summary = summarize(load_run(sample(tmp_path)))
    tasks = {t.task: t for t in summary.tasks}
    assert (tasks["checkout"].score, tasks["checkout"].turns, tasks["checkout"].chosen) == \
        (1.0, 40, [3])
    # each sub-problem takes its best attempt: 1.0 and 1.0, though no attempt got both
    assert tasks["upgrade"].score == 1.0 and tasks["upgrade"].parts == \
        {"service_a": 1.0, "service_b": 1.0}
    assert tasks["upgrade"].turns == 15 and tasks["upgrade"].chosen == [1, 2]
    assert tasks["gym"].score == 0.25 and (tasks["gym"].valid, tasks["gym"].attempts) == (1, 2)
    assert tasks["broken"].score is None
    cats = {c.category: c for c in summary.categories}
    assert [c.category for c in summary.categories] == ["backend", "full-stack", "gym"]
    # "broken" has no scored attempt: it counts 0, it is not dropped from the means
    assert cats["gym"].mean == 0.125 and (cats["gym"].scored, cats["gym"].tasks) == (1, 2)
    assert (cats["backend"].turn_min, cats["backend"].turn_max) == (15, 15)
    assert summary.mean == (1.0 + 1.0 + 0.25 + 0.0) / 4
    assert sorted(e["status"] for e in summary.errors) == ["grader_error", "service_error"]


def test_csv_markdown_and_html(tmp_path: Path) -> None:
    summaries = [summarize(load_run(sample(tmp_path)))]
    rows = list(csv.reader(io.StringIO(csv_text(summaries))))
    assert rows[0] == ["eval name", "model", "run ID", "score", "turn count"]
    assert ["checkout", "claude-x", "r1-abc", "1.0000", "40"] in rows
    assert ["broken", "claude-x", "r1-abc", "", ""] in rows
    md = markdown(summaries)
    assert "| anthropic:claude-x | gym | 12.5% | 1/2 | 90 |" in md
    assert "service_error" in md and "zorblax frobnicate" in md
    html = page(summaries)
    assert html.startswith("<!doctype html>") and "<svg" in html
    assert "data:image/png;base64," in html
    assert "Do &lt;the&gt; thing" in html  # transcripts are escaped
    assert 'src="http' not in html and "<link" not in html  # nothing loaded from outside
    assert "zorblax frobnicate" in html
    # per-trial sub-scores: the upgrade attempts got a and b the other way round
    assert "<tr><td>a</td><td class=num>1.00</td></tr><tr><td>b</td><td class=num>0.00</td>" \
        in html and "<tr><td>a</td><td class=num>0.00</td></tr>" in html


def test_report_command_writes_every_format(tmp_path: Path) -> None:
    run = sample(tmp_path)
    other = write_run(tmp_path / "r2", "gpt-y", [trial("checkout", 1, 0.75, 12,
                                                       category="full-stack")])
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "stripebench.cli", "report", str(run),
                           str(other), "--markdown", str(out / "r.md"), "--csv",
                           str(out / "r.csv"), "--html", str(out / "r.html")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "anthropic:gpt-y" in done.stdout and "75.0%" in done.stdout
    assert "found nothing useful" in done.stdout and "zorblax frobnicate" in done.stdout
    assert "gpt-y" in (out / "r.csv").read_text()
    assert (out / "r.html").stat().st_size > 1000
    bad = subprocess.run([sys.executable, "-m", "stripebench.cli", "report",
                          str(tmp_path / "nope")], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "not a run directory" in bad.stderr


def test_an_interrupted_run_says_which_trials_are_missing(tmp_path: Path) -> None:
    run = write_run(tmp_path / "r3", "m", [trial("checkout", 1, 1.0, 5)])
    meta = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**meta, "tasks": ["checkout", "refunds"],
                                              "attempts": 2}))
    loaded = load_run(run)
    assert loaded.unfinished == ["checkout #2", "refunds #1", "refunds #2"]
    md = markdown([summarize(loaded)])
    assert "## Trials not finished" in md and "refunds #2" in md
    done = subprocess.run([sys.executable, "-m", "stripebench.cli", "report", str(run)],
                          capture_output=True, text=True, timeout=60)
    assert "3 trial(s) not finished" in done.stdout and "--resume" in done.stdout
    complete = write_run(tmp_path / "r4", "m", [trial("checkout", 1, 1.0, 5)])
    assert load_run(complete).unfinished == []  # no plan recorded: nothing to claim


def test_a_hung_or_crashed_agent_is_never_a_score(tmp_path: Path) -> None:
    # the grader ran after the timeout and found the work done: still not a score
    run = write_run(tmp_path / "r5", "m", [
        trial("checkout", 1, 1.0, 7, status="agent_timeout"),
        trial("checkout", 2, 0.5, 9),
        trial("refunds", 1, 1.0, 3, status="agent_error"),
    ])
    summary = summarize(load_run(run))
    tasks = {t.task: t for t in summary.tasks}
    assert (tasks["checkout"].score, tasks["checkout"].chosen) == (0.5, [2])
    # and crashing on purpose does not take the task out of the mean: it counts 0
    assert tasks["refunds"].score is None and summary.mean == 0.25
    assert sorted(e["status"] for e in summary.errors) == ["agent_error", "agent_timeout"]
    rows = list(csv.reader(io.StringIO(csv_text([summary]))))
    assert ["refunds", "m", "r5-abc", "", ""] in rows
    assert ["checkout", "m", "r5-abc", "0.5000", "9"] in rows


def test_every_ungradeable_trial_is_listed_and_counts_zero(tmp_path: Path) -> None:
    """An agent cannot lift its mean by making its trials ungradeable: each such trial is
    listed, and a task left with no scored attempt counts 0."""
    run = write_run(tmp_path / "r", "m", [
        trial("good", 1, 1.0, 3),
        trial("dropped", 1, None, 4, status="harness_error"),
        trial("dropped", 2, None, 4, status="emulator_error"),
        trial("legacy", 1, None, 2),  # an old harness's `completed` without a reward
    ])
    summary = summarize(load_run(run))
    assert summary.mean == 1.0 / 3
    assert sorted((e["task"], e["attempt"]) for e in summary.errors) == \
        [("dropped", 1), ("dropped", 2), ("legacy", 1)]
    md = markdown([summary])
    for status in ("harness_error", "emulator_error", "| legacy | 1 | completed |"):
        assert status in md
    assert "counts 0 in the means" in md


def test_tamper_evidence_is_flagged_in_every_report(tmp_path: Path) -> None:
    """Issue 25: what a wall caught in a trial (here a planted module and a refused
    launch request) is listed under "Tamper evidence" in the Markdown and HTML reports,
    naming the trial; services killed at teardown (every trial has them) are not."""
    flagged = trial("upgrade", 1, 0.5, 10)
    flagged["tamper"] = {"shadowing_files": ["netrc.py", "h11.py"],
                         "launch_requests_refused": ["cwd must be the submission folder"],
                         "grading_processes_killed_at_stop": 4}
    quiet = trial("upgrade", 2, 0.5, 10)
    quiet["tamper"] = {"agent_processes_killed_at_stop": 3}
    summaries = [summarize(load_run(write_run(tmp_path / "r", "m", [flagged, quiet])))]
    md = markdown(summaries)
    section = md.split("## Tamper evidence")[1]
    assert "upgrade #1: shadowing_files (2: netrc.py, h11.py); launch_requests_refused" in section
    assert "upgrade #2" not in section and "killed_at_stop" not in section
    assert "Tamper evidence" in page(summaries) and "netrc.py" in page(summaries)
    clean = [summarize(load_run(write_run(tmp_path / "c", "m", [quiet])))]
    assert "Tamper evidence" not in markdown(clean) + page(clean)


class _Tables(HTMLParser):
    """The rows (cell texts) of each <table class=attempts> of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.inside = False
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and ("class", "attempts") in attrs:
            self.inside = True
            self.tables.append([])
        elif self.inside and tag == "tr":
            self.tables[-1].append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def test_the_html_report_shows_every_attempt_as_the_terminal_and_markdown_do(
        tmp_path: Path) -> None:
    run = write_run(tmp_path / "r", "claude-x", [
        trial("checkout", 1, 1.0, 30, category="full-stack"),
        trial("checkout", 2, 0.8, 30, category="full-stack"),
        trial("checkout", 3, 1.0, 30, category="full-stack"),
        trial("upgrade", 1, 1.0, 10),
        trial("upgrade", 2, 1.0, 10),
        trial("upgrade", 3, None, 0, status="agent_timeout"),  # measured: worth 0
    ])
    meta = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**meta, "attempts": 3,
                                              "tasks": ["checkout", "upgrade"]}))
    out = tmp_path / "out"
    done = subprocess.run([STRIPEBENCH, "report", str(run), "--html", str(out / "r.html"),
                           "--markdown", str(out / "r.md")],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stdout + done.stderr
    parser = _Tables()
    parser.feed((out / "r.html").read_text())
    assert len(parser.tables) == 1
    head, *rows = parser.tables[0]
    assert head == ["Task / category", "Trials", "Mean ± se", "Strict (=1.0)", "pass@3",
                    "pass^3"]
    by_name = {row[0]: row[1:] for row in rows}
    assert list(by_name) == ["checkout", "upgrade", "backend", "full-stack", "all"]
    # checkout: (1, .8, 1): mean 93.3%, se 6.7, 2 of 3 strict; pass@3 100%, pass^3 0%
    assert by_name["checkout"] == ["3", "93.3% ± 6.7", "66.7%", "100.0%", "0.0%"]
    assert by_name["upgrade"] == ["3", "66.7% ± 33.3", "66.7%", "100.0%", "0.0%"]
    assert by_name["all"][:3] == ["6", "80.0% ± 17.0", "66.7%"]
    # the same numbers as the Markdown report and the terminal table
    markdown_rows = [line for line in (out / "r.md").read_text().splitlines()
                     if line.startswith("| anthropic:claude-x | ") and "±" in line]
    for name, cells in by_name.items():
        row = next(line for line in markdown_rows
                   if line.split(" | ")[1].strip("* ") == name)
        assert [c.strip() for c in row.strip("| ").split(" | ")[2:]] == cells
    terminal_row = next(line for line in done.stdout.splitlines()
                        if "checkout" in line and "±" in line)
    assert all(cell in terminal_row for cell in by_name["checkout"])
