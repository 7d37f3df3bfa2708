"""Write scripted_partial.json: a scripted-agent replay that solves the first 6 challenges.

    python make_partial.py      # regenerates solution/scripted_partial.json

The replay is one `bash` call running a stdlib-only Python program that writes the
reference handlers (generate.py, gym_solution.py with ONLY = 6) into the workdir and
wires them into app.py. Graded, it scores 6/13: full marks on the challenges it answers
(whatever their families under the seed), 501 and zero on the rest.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ANSWERED = 6

PROGRAM = r'''
import json
from pathlib import Path
for name, text in json.loads(FILES).items():
    Path(name).write_text(text)
app = Path("app.py")
marker = "HANDLERS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}\n"
hook = "from gym_solution import install  # noqa: E402\ninstall(HANDLERS, stripe_client)\n"
app.write_text(app.read_text().replace(marker, marker + hook, 1))
print("wired", len(json.loads(FILES)), "files")
'''


def replay() -> list[dict[str, object]]:
    solution = (HERE / "gym_solution.py").read_text()
    limited = solution.replace("ONLY: int | None = None", f"ONLY: int | None = {ANSWERED}")
    assert limited != solution
    files = {"generate.py": (HERE / "generate.py").read_text(), "gym_solution.py": limited}
    program = f"FILES = {json.dumps(json.dumps(files))}\n" + PROGRAM.lstrip()
    return [{"tool": "bash", "args": {"command": f"python3 - <<'PY'\n{program}PY\n",
                                      "timeout": 60}}]


def main() -> None:
    (HERE / "scripted_partial.json").write_text(json.dumps(replay(), indent=2) + "\n")


if __name__ == "__main__":
    main()
