"""task.toml is read strictly: an unknown or misspelt key fails loading and `stripebench
tasks check`, naming the key and the file; [metadata] version is a required whole number
and every trial record carries it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from paths import REPO, TESTS
from stripebench.harness.task import KEYS, TaskError, discover, load_task

SHOP = TESTS / "fixtures" / "tasks" / "fixture-shop"


def _copy(tmp_path: Path, edit: tuple[str, str]) -> Path:
    target = tmp_path / "tasks" / "fixture-shop"
    shutil.copytree(SHOP, target)
    toml = target / "task.toml"
    text = toml.read_text()
    assert edit[0] in text
    toml.write_text(text.replace(edit[0], edit[1], 1))
    return target


@pytest.mark.parametrize(("edit", "key", "place"), [
    (("[agent]\n", "[agent]\nmax_turn = 5\n"), "max_turn", "[agent]"),
    (("[metadata]\n", "restart_before_grading = true\n[metadata]\n"),
     "restart_before_grading", "the top level"),
    (('port = 8000\n', 'port = 8000\nrestart_before_grading = true\n'),
     "restart_before_grading", "[services[0]]"),
    (("[stripe]\n", "[gym]\nseed = 1\n\n[stripe]\n"), "gym", "the top level"),
    (("[[subproblems]]\nname = \"stripe\"\n", "[[subproblems]]\nname = \"stripe\"\nweight = 2\n"),
     "weight", "[subproblems[0]]"),
])
def test_an_unknown_key_is_refused_with_its_name_and_file(tmp_path: Path, edit: tuple[str, str],
                                                           key: str, place: str) -> None:
    task = _copy(tmp_path, edit)
    with pytest.raises(TaskError) as caught:
        load_task(task)
    assert str(caught.value).startswith(f"{task / 'task.toml'}: unknown key {key!r} in {place}")


def test_tasks_check_fails_on_an_unknown_key_naming_it(tmp_path: Path) -> None:
    task = _copy(tmp_path, ("[verifier]\n", "[verifier]\ntimeout = 10\n"))
    done = subprocess.run([sys.executable, "-m", "stripebench.cli", "tasks", "check",
                           "--tasks-dir", str(task.parent), "--sandbox", "local"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert f"{task / 'task.toml'}: unknown key 'timeout' in [verifier]" in done.stderr


@pytest.mark.parametrize("version", ['"1.0"', "0", "true", None])
def test_the_task_version_is_a_required_whole_number(tmp_path: Path,
                                                      version: str | None) -> None:
    line = "version = 1  # raise it when the task changes: results record it\n"
    task = _copy(tmp_path, (line, "" if version is None else f"version = {version}\n"))
    with pytest.raises(TaskError, match="metadata.version must be a whole number >= 1"):
        load_task(task)


def test_every_task_declares_a_version_and_only_known_keys() -> None:
    """The benchmark's own tasks and the fixtures load under the strict reader (the dead
    restart_before_grading and the unread [gym] tables are gone)."""
    for root in (REPO / "tasks", TESTS / "fixtures" / "tasks"):
        tasks = discover(root)
        assert tasks and all(isinstance(t.version, int) and t.version >= 1 for t in tasks)
        for task in tasks:
            data = tomllib.loads((task.path / "task.toml").read_text())
            assert set(data) <= KEYS[""] and "gym" not in data
