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


def load_submission(path: Path) -> dict[str, Any]:
    """The submission as {number: params}; a list of {number, params} is accepted too."""
    data = json.loads(path.read_text())
    if isinstance(data, list):
        data = {str(i.get("number")): i.get("params") for i in data if isinstance(i, dict)}
    if not isinstance(data, dict):
        raise ValueError("submission.json must be an object keyed by challenge number")
    if isinstance(data.get("challenges"), dict):
        data = data["challenges"]
    return {str(k).strip(): v for k, v in data.items()}


def shipping_rates(client: Any) -> dict[str, dict[str, Any]]:
    return {r.id: r.to_dict() for r in
            client.v1.shipping_rates.list({"limit": 100}).auto_paging_iter()}


def answer_key() -> dict[str, Any]:
    import os

    path = os.environ.get("STRIPEBENCH_SETUP_OUTPUT")
    if not path:
        raise SystemExit("STRIPEBENCH_SETUP_OUTPUT is not set: the set-up step did not run")
    key: dict[str, Any] = json.loads(Path(path).read_text())
    return key


def grade(client: Any, submission_path: Path) -> dict[str, dict[str, float]]:
    """Scores per challenge number: precision, recall, f1."""
    truths = answer_key()["answers"]
    rates = shipping_rates(client)
    try:
        submission = load_submission(submission_path)
    except (OSError, ValueError) as exc:
        print(f"no usable submission: {exc}")
        submission = {}
    scores = {}
    for number, params in sorted(truths.items(), key=lambda kv: int(kv[0])):
        scores[number] = f1(leaves(params, rates), leaves(submission.get(number), rates))
    return scores


def main() -> None:
    from stripebench.grading import Grader, stripe_client, workdir

    scores = grade(stripe_client(), workdir() / "submission.json")
    grader = Grader()
    for number, score in scores.items():
        grader.check(f"challenge_{int(number):02d}", 1, score["f1"],
                     f"precision {score['precision']:.2f} recall {score['recall']:.2f}")
    grader.write()


if __name__ == "__main__":
    main()
