"""A task's hidden set-up that hangs past its timeout (issue 32): what it printed stays in
the trial folder's setup.log, it is tried once more after the first try's processes are
killed and its accounts deleted, and the report lists the trial. The task is the fixture
shop behind the set-up tests/fixtures/setup-hang/setup.py, which hangs on its first try
and, on its second, checks that the first try's customer, account and background process
are gone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from paths import TESTS

STRIPEBENCH = str(Path(sys.executable).parent / "stripebench")
SHOP = TESTS / "fixtures" / "tasks" / "fixture-shop"
HANGING_SETUP = TESTS / "fixtures" / "setup-hang" / "setup.py"


def hanging_shop(root: Path) -> Path:
    """The fixture shop as `fixture-setup-hang`, behind the hanging set-up (4 s limit);
    returns the tasks folder holding it."""
    task = root / "tasks" / "fixture-setup-hang"
    shutil.copytree(SHOP, task)
    shutil.copy(HANGING_SETUP, task / "tests" / "setup.py")
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace('id = "fixture-shop"', 'id = "fixture-setup-hang"')
                    + '\n[setup]\ncommand = "python tests/setup.py"\ntimeout_sec = 4\n')
    return task.parent


def test_a_hung_setup_keeps_its_log_and_is_retried_once(tmp_path: Path) -> None:
    out = tmp_path / "run"
    tasks = hanging_shop(tmp_path)
    done = subprocess.run(
        [STRIPEBENCH, "run", "--agent", "oracle", "--tasks-dir", str(tasks), "--tasks",
         "fixture-setup-hang", "--sandbox", "local", "--allow-unsealed", "--out", str(out),
         "--no-report"], capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    trial = out / "trials" / "fixture-setup-hang" / "1"
    record = json.loads((trial / "result.json").read_text())
    assert record["status"] == "completed" and record["reward"] == 1.0, record
    assert record["setup_retries"] == 1
    assert any(note.startswith("set-up retried: try 1: the task's setup timed out after 4s")
               for note in record["notes"]), record["notes"]
    log = (trial / "setup.log").read_text()
    # the first try's output, printed before it hung, then the second try's
    assert log.index("first try: seeded, now hanging") < log.index("timed out after 4s") \
        < log.index("--- try 2 ---") < log.index("second try: the first try's accounts "
                                                 "and processes are gone")
    assert log.rstrip().endswith("exit code 0")

    report = subprocess.run([STRIPEBENCH, "report", str(out), "--markdown",
                             str(tmp_path / "report.md"), "--html",
                             str(tmp_path / "report.html")],
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "COLUMNS": "200"})
    assert report.returncode == 0, report.stdout + report.stderr
    assert "fixture-setup-hang #1: set-up retried 1x, then completed (try 1: the task's " \
        "setup timed out after 4s" in " ".join(report.stdout.split())
    markdown = (tmp_path / "report.md").read_text()
    assert "## Trials whose set-up was retried" in markdown
    assert "fixture-setup-hang #1: set-up retried 1x, then completed" in markdown
    assert "Trials whose set-up was retried" in (tmp_path / "report.html").read_text()
    as_json = subprocess.run([STRIPEBENCH, "report", str(out), "--json"],
                             capture_output=True, text=True, timeout=120)
    assert json.loads(as_json.stdout)["runs"][0]["setup_retried"] == [
        {"task": "fixture-setup-hang", "attempt": 1, "setup_retries": 1,
         "status": "completed"}]


def test_a_setup_failing_twice_is_a_setup_error_with_both_tries_logged(
        tmp_path: Path) -> None:
    task = tmp_path / "tasks" / "fixture-setup-fails"
    task.mkdir(parents=True)
    (task / "instruction.md").write_text("Nothing to do.\n")
    (task / "task.toml").write_text(
        '[metadata]\nversion = 1\ncategory = "backend"\ntitle = "Fixture: set-up fails"\n'
        '[setup]\ncommand = "echo about to fail; exit 7"\ntimeout_sec = 10\n')
    out = tmp_path / "run"
    done = subprocess.run(
        [STRIPEBENCH, "run", "--agent", "noop", "--tasks-dir", str(task.parent),
         "--sandbox", "local", "--allow-unsealed", "--out", str(out), "--no-report"],
        capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    trial = out / "trials" / "fixture-setup-fails" / "1"
    record = json.loads((trial / "result.json").read_text())
    assert record["status"] == "setup_error", record
    assert record["setup_retries"] == 1
    assert "on its retry too" in record["error"]
    log = (trial / "setup.log").read_text()
    assert log.count("\nabout to fail\n") == 2 and log.count("exit code 7") == 2
