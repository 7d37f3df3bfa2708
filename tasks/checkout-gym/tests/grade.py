"""checkout-gym grader: per challenge, F1 of precision and recall over canonical leaves.

The truth is the answer key the set-up step wrote (STRIPEBENCH_SETUP_OUTPUT: every
hidden session's create parameters, with the catalog's real ids); the answer is
STRIPEBENCH_WORKDIR/submission.json, an object mapping each
challenge number ("1".."N") to the create parameters the agent reconstructed. One
sub-score per challenge (weight 1 each), so the total is the mean F1: a partial answer
cannot reach 1.0 and an empty one scores 0.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from canonical import f1, leaves  # noqa: E402

# The submission is the agent's: whatever it holds, the grader scores it (0 for what it
# cannot read) and never crashes or runs out of time — a grader_error would leave the
# task out of every mean, which would reward sabotaging a task one cannot solve.
MAX_SUBMISSION_BYTES = 2_000_000


def load_submission(path: Path) -> dict[str, Any]:
    """The submission as {number: params}; a list of {number, params} is accepted too."""
    import stat

    if not stat.S_ISREG(path.stat().st_mode):  # a FIFO or device would block the read
        raise ValueError("submission.json is not a regular file")
    if path.stat().st_size > MAX_SUBMISSION_BYTES:
        raise ValueError(f"submission.json is over {MAX_SUBMISSION_BYTES} bytes")
    try:
        data = json.loads(path.read_text())
    except RecursionError:
        raise ValueError("submission.json is nested too deeply") from None
    if isinstance(data, list):
        data = {str(i.get("number")): i.get("params") for i in data if isinstance(i, dict)}
    if not isinstance(data, dict):
        raise ValueError("submission.json must be an object keyed by challenge number")
    if isinstance(data.get("challenges"), dict):
        data = data["challenges"]
    # "7" and "07" (or 7 in a list) name the same page
    return {str(int(k)) if str(k).strip().isdigit() else str(k).strip(): v
            for k, v in data.items()}


def shipping_rates() -> dict[str, dict[str, Any]]:
    """The account's shipping rates as plain JSON (the SDK's objects keep nested maps
    such as currency_options as SDK objects, which canonical.py does not read)."""
    import os
    import urllib.request

    base = os.environ["STRIPE_API_BASE"].rstrip("/")
    request = urllib.request.Request(f"{base}/v1/shipping_rates?limit=100", headers={
        "Authorization": f"Bearer {os.environ['STRIPE_SECRET_KEY']}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return {r["id"]: r for r in json.load(response)["data"]}


def answer_key() -> dict[str, Any]:
    import os

    path = os.environ.get("STRIPEBENCH_SETUP_OUTPUT")
    if not path:
        raise SystemExit("STRIPEBENCH_SETUP_OUTPUT is not set: the set-up step did not run")
    key: dict[str, Any] = json.loads(Path(path).read_text())
    return key


def grade(submission_path: Path) -> dict[str, dict[str, float]]:
    """Scores per challenge number: precision, recall, f1."""
    truths = answer_key()["answers"]
    rates = shipping_rates()
    try:
        submission = load_submission(submission_path)
    except (OSError, ValueError) as exc:
        print(f"no usable submission: {exc}")
        submission = {}
    scores = {}
    for number, params in sorted(truths.items(), key=lambda kv: int(kv[0])):
        try:
            scores[number] = f1(leaves(params, rates), leaves(submission.get(number), rates))
        except RecursionError:  # an answer nested too deeply to read
            scores[number] = {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    return scores


def main() -> None:
    from stripebench.grading import Grader, workdir

    scores = grade(workdir() / "submission.json")
    grader = Grader()
    for number, score in scores.items():
        grader.check(f"challenge_{int(number):02d}", 1, score["f1"],
                     f"precision {score['precision']:.2f} recall {score['recall']:.2f}")
    grader.write()


if __name__ == "__main__":
    main()
