"""No task's hidden tests/ (grader, set-up, generators) imports from or reads its
solution/: the reference is one way to solve the task, never a part of grading it (both
gyms' prepare.py once put solution/ on sys.path for their generators)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from paths import REPO

TASKS = sorted(p for p in (REPO / "tasks").iterdir() if (p / "task.toml").is_file())
CODE = (".py", ".sh", ".js", ".mjs", ".ts", ".go", ".java")
# A path naming solution/ in a string: "solution", "../solution/x.py", ".stripebench/solution"
SOLUTION_PATH = re.compile(r"""["'](?:[^"'\n]*/)?solution(?:["']|/)""")


def offences(task: Path) -> list[str]:
    tests, solution = task / "tests", task / "solution"
    own = {p.stem for p in tests.rglob("*.py")}
    reference = {p.stem for p in solution.rglob("*.py")} - own
    found = []
    for path in sorted(p for p in tests.rglob("*") if p.is_file() and p.suffix in CODE):
        text = path.read_text(errors="replace")
        where = path.relative_to(task)
        found += [f"{where}:{n}: {line.strip()}" for n, line in
                  enumerate(text.splitlines(), 1) if SOLUTION_PATH.search(line)]
        if path.suffix != ".py":
            continue
        for node in ast.walk(ast.parse(text)):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{where}:{node.lineno}: imports {name} from solution/"
                      for name in names if name.split(".")[0] in reference]
    return found


@pytest.mark.parametrize("task", TASKS, ids=[t.name for t in TASKS])
def test_the_hidden_tests_never_touch_the_solution(task: Path) -> None:
    assert offences(task) == []


def test_the_check_catches_both_ways_in(tmp_path: Path) -> None:
    task = tmp_path / "task"
    (task / "tests").mkdir(parents=True)
    (task / "solution").mkdir()
    (task / "solution" / "generate.py").write_text("def generate(): ...\n")
    (task / "tests" / "prepare.py").write_text(
        "import sys\nfrom pathlib import Path\n"
        "sys.path.insert(0, str(Path(__file__).parent.parent / 'solution'))\n"
        "from generate import generate\n")
    (task / "tests" / "grade.py").write_text(
        'ANSWERS = open(".stripebench/solution/answers.json").read()\n')
    assert offences(task) == [
        "tests/grade.py:1: ANSWERS = open(\".stripebench/solution/answers.json\").read()",
        "tests/prepare.py:3: sys.path.insert(0, str(Path(__file__).parent.parent / "
        "'solution'))",
        "tests/prepare.py:4: imports generate from solution/"]
