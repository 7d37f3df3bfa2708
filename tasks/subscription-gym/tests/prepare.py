"""subscription-gym set-up: write the challenges for the agent and the key for the grader.

Runs before the agent, outside the sandbox. The seed is the public one unless
STRIPEBENCH_GYM_SEED names another. Writes STRIPEBENCH_WORKDIR/challenges.md (what the
agent reads) and challenges.json (the same as data: numbers, texts, request and response
shapes, and the seed); the full challenges with their grading parameters go to
STRIPEBENCH_SETUP_OUTPUT, which only the grader sees.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the generator beside this file
from generate import PUBLIC_SEED, generate, public_view  # noqa: E402


def markdown(seed: int, shown: list[dict[str, Any]]) -> str:
    out = [f"# Subscription gym: {len(shown)} billing challenges (set {seed})", ""]
    for c in shown:
        out += [f"## Challenge {c['number']}: {c['title']}", "", c["text"], "",
                f"`POST /challenges/{c['number']}` receives:", "",
                f"    {json.dumps(c['request'])}", "", "and answers:", "",
                f"    {json.dumps(c['response'])}", ""]
    return "\n".join(out)


def main() -> None:
    seed = int(os.environ.get("STRIPEBENCH_GYM_SEED") or PUBLIC_SEED)
    made = generate(seed)
    shown = public_view(made)
    workdir = Path(os.environ["STRIPEBENCH_WORKDIR"])
    (workdir / "challenges.json").write_text(json.dumps(
        {"seed": seed, "challenges": shown}, indent=2) + "\n")
    (workdir / "challenges.md").write_text(markdown(seed, shown))
    output = os.environ.get("STRIPEBENCH_SETUP_OUTPUT")
    if output:
        Path(output).write_text(json.dumps({"seed": seed, "challenges": made}, indent=2) + "\n")
    print(f"subscription-gym: {len(made)} challenges (seed {seed})")


if __name__ == "__main__":
    main()
