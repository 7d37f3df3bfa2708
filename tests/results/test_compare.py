"""`stripebench compare` on synthetic runs whose true effect is known: the exact test is
exact, the interval covers the effect, null pairs give false positives at no more than
the stated rate, the verdict refuses what is not significant, and the report shows how
documentation searches moved."""

from __future__ import annotations

import itertools
import json
import math
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from stripebench.results import load_run, stats
from stripebench.results.compare import compare_runs
from stripebench.results.compare_report import markdown, page

BASE = (0.3, 0.45, 0.6, 0.5)  # each task's chance that one check passes, in arm A
CHECKS = 4  # a reward is the share of 4 checks passed: 0, .25, .5, .75, 1
SEEDS = 200
ALPHA = 0.05


def binomial_upper(p: float, n: int, sds: float = 3.0) -> float:
    return p + sds * math.sqrt(p * (1 - p) / n)


def synthetic_pairs(seed: int, effect: float, attempts: int = 8
                    ) -> list[tuple[str, float, float]]:
    """Per task and attempt, A's and B's reward: each of 4 checks passes with the task's
    chance (plus `effect` in B), so B's expected score is A's plus exactly `effect`."""
    rng = random.Random(seed)

    def reward(chance: float) -> float:
        return sum(rng.random() < chance for _ in range(CHECKS)) / CHECKS

    return [(f"task-{t}", reward(p), reward(p + effect))
            for t, p in enumerate(BASE) for _ in range(attempts)]


def brute_force_p(diffs: dict[str, list[float]]) -> float:
    values = [d / (len(diffs) * len(v)) for _, v in sorted(diffs.items()) for d in v]
    observed = abs(sum(values))
    hits = sum(abs(sum(s * v for s, v in zip(signs, values, strict=True))) >= observed - 1e-12
               for signs in itertools.product((1, -1), repeat=len(values)))
    return hits / 2 ** len(values)


def test_the_sign_flip_test_is_exact() -> None:
    """Against enumeration of every sign pattern, with tasks of unequal size (so pairs
    weigh differently) and ties in the differences."""
    rng = random.Random(7)
    for _ in range(30):
        diffs = {f"t{t}": [rng.choice([-1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1])
                           for _ in range(rng.randint(1, 5))] for t in range(rng.randint(1, 3))}
        p, method = stats.sign_flip_test(diffs)
        assert p == pytest.approx(brute_force_p(diffs), abs=1e-9)
        assert method.startswith("exact") or method == "no pair differs"
    # successes only: the exact two-sided sign test (binomial) on discordant pairs
    p, _ = stats.sign_flip_test({"t": [1.0] * 9 + [-1.0] * 1 + [0.0] * 5})
    assert p == pytest.approx(2 * sum(math.comb(10, k) for k in (0, 1)) / 2 ** 10)


def test_too_many_distinct_differences_fall_back_to_seeded_monte_carlo() -> None:
    rng = random.Random(1)
    diffs = {"t": [rng.uniform(-1, 1) + 0.3 for _ in range(60)]}  # 2^60 sign patterns
    p1, method = stats.sign_flip_test(diffs, seed=3)
    assert "random flips" in method
    assert stats.sign_flip_test(diffs, seed=3)[0] == p1  # deterministic
    assert 0 < p1 < 0.01  # a clear shift is still found


def test_the_interval_covers_a_known_effect() -> None:
    """Over 200 seeds, the 95% interval holds the true +0.2 about 95% of the time (at
    least the binomial lower bound), and the difference is found in most of them."""
    covered = found = 0
    for seed in range(SEEDS):
        estimate = stats.paired(synthetic_pairs(seed, 0.2), 1 - ALPHA, resamples=1000,
                                seed=seed)
        assert estimate.low is not None and estimate.high is not None
        covered += estimate.low <= 0.2 <= estimate.high
        found += stats.significant(estimate, ALPHA) and (estimate.diff or 0) > 0
    assert covered / SEEDS >= 1 - binomial_upper(ALPHA, SEEDS)
    assert found / SEEDS > 0.8


def test_null_effect_false_positives_stay_within_alpha(tmp_path: Path) -> None:
    """200 seeds of pairs of run directories where A and B are the same agent: the share
    whose verdict calls a difference is within the binomial bound of alpha (the exact
    test cannot do worse than alpha)."""
    positives = 0
    for seed in range(SEEDS):
        pairs = synthetic_pairs(seed, 0.0)
        a = write_run(tmp_path / str(seed) / "a", arm(pairs, 0))
        b = write_run(tmp_path / str(seed) / "b", arm(pairs, 1))
        verdict = compare_runs(load_run(a), load_run(b), seed=seed, resamples=200).verdict[0]
        positives += "significant at" in verdict
        assert ("no significant difference" in verdict) != ("significant at" in verdict)
    assert positives / SEEDS <= binomial_upper(ALPHA, SEEDS)
    # and the raw test alone, the same way
    rejected = sum(stats.sign_flip_test({t: [b - a for task, a, b in synthetic_pairs(seed, 0)
                                             if task == t] for t in ("task-0", "task-1")}
                                        )[0] < ALPHA for seed in range(SEEDS))
    assert rejected / SEEDS <= binomial_upper(ALPHA, SEEDS)


def test_holm_adjustment() -> None:
    assert stats.holm([0.01, None, 0.04, 0.03]) == [0.03, None, 0.06, 0.06]


# ---------------------------------------------------------------------- run directories


def write_run(path: Path, trials: list[dict[str, Any]], label: str | None = None,
              searches: dict[tuple[str, int], list[dict[str, Any]]] | None = None,
              **meta: Any) -> Path:
    path.mkdir(parents=True)
    tasks = sorted({t["task"] for t in trials})
    (path / "run.json").write_text(json.dumps({
        "run_id": path.name, "name": path.name, "agent": "scripted", "model": None,
        "tasks": tasks, "attempts": max(t["attempt"] for t in trials),
        **({"label": label} if label else {}), **meta}))
    for trial in trials:
        folder = path / "trials" / trial["task"] / str(trial["attempt"])
        folder.mkdir(parents=True)
        record = {"category": "backend", "turns": 5, "input_tokens": 1000,
                  "output_tokens": 100, "cost_usd": 0.01, "status": "completed", **trial}
        (folder / "result.json").write_text(json.dumps(record))
        events = (searches or {}).get((trial["task"], trial["attempt"]), [])
        (folder / "transcript.jsonl").write_text(
            "".join(json.dumps({"type": "docs_search", **e}) + "\n" for e in events))
    return path


def arm(pairs: list[tuple[str, float, float]], side: int) -> list[dict[str, Any]]:
    attempts: dict[str, int] = {}
    out = []
    for task, a, b in pairs:
        attempts[task] = attempts.get(task, 0) + 1
        out.append({"task": task, "attempt": attempts[task], "reward": (a, b)[side],
                    "turns": 10 - 4 * side})
    return out


def hit(query: str, helpful: bool) -> dict[str, Any]:
    return {"query": query, "results": [{"doc_id": "guide/x", "title": "X", "score": 3.0}],
            "top_score": 3.0, "coverage": 1.0 if helpful else 0.2}


def test_compare_runs_reports_a_known_effect(tmp_path: Path) -> None:
    pairs = synthetic_pairs(11, 0.35)
    searches_a = {("task-0", 1): [hit("embedded checkout return url", False),
                                  hit("webhook signature", True),
                                  hit("qwxzv plorbic", False)]}
    searches_b = {("task-0", 1): [hit("embedded checkout return url", True),
                                  hit("webhook signature", False),
                                  hit("qwxzv plorbic", False)],
                  ("task-1", 2): [hit("only asked in b", False)]}
    a = write_run(tmp_path / "a", arm(pairs, 0), "baseline", searches_a)
    b = write_run(tmp_path / "b", arm(pairs, 1), "new-guide", searches_b,
                  interventions={"tools": ["bash", "view", "submit"]})
    c = compare_runs(load_run(a), load_run(b), seed=5, resamples=2000)
    score = c.metrics["score"]
    assert score.diff == pytest.approx(sum(y - x for _, x, y in pairs) / len(pairs))
    assert score.pairs == 32 and score.tasks == 4
    assert c.verdict[0].startswith("mean score: new-guide is better, significant at α = 0.05")
    assert c.metrics["turns"].diff == pytest.approx(-4.0)
    assert c.metrics["turns"].p_value is None  # only score and success are tested
    assert any(line.startswith("tools: default → without browser_*, create, str_replace, "
                               "insert, search_stripe_documentation") for line in c.changed)
    assert c.docs.fixed == ["embedded checkout return url"]
    assert c.docs.broken == ["webhook signature"]
    assert c.docs.still == ["qwxzv plorbic"]
    assert c.docs.only_b == ["only asked in b"]
    text = markdown([c])
    assert "| mean score |" in text and "### By task (score)" in text
    assert "unhelpful in A, helpful in B (1): `embedded checkout return url`" in text
    html = page([c])
    assert "<svg" in html and "Score difference B − A" in html and "<script" not in html
    # the same seed gives the same numbers; the seed is what moves the interval
    again = compare_runs(load_run(a), load_run(b), seed=5, resamples=2000)
    assert again.metrics["score"] == score and markdown([again]) == text
    other = compare_runs(load_run(a), load_run(b), seed=6, resamples=2000)
    assert (other.metrics["score"].low, other.metrics["score"].high) != (score.low, score.high)


def test_a_docs_arm_is_asked_the_queries_the_baseline_found_nothing_for(tmp_path: Path
                                                                        ) -> None:
    """B's agent never asked A's failed query, but B's corpus (its copy of --docs) is in
    its run directory: compare searches it there and reports the query answered."""
    rare = "qwxzv plorbic frobnication"
    pairs = [("t", 1.0, 1.0)]
    a = write_run(tmp_path / "a", arm(pairs, 0), searches={("t", 1): [hit(rare, False)]})
    b = write_run(tmp_path / "b", arm(pairs, 1), interventions={"docs": {
        "dir": "/elsewhere/guides", "mode": "overlay", "sha256": "0" * 16, "replaced": [],
        "added": ["testing.frobnication.md"]}})
    (b / "interventions" / "docs").mkdir(parents=True)
    (b / "interventions" / "docs" / "testing.frobnication.md").write_text(
        f"# Frobnication\n\nThe {rare} of a test customer.\n")
    c = compare_runs(load_run(a), load_run(b), resamples=200)
    assert c.docs.only_a == [rare] and c.docs.fixed == []
    assert c.docs.replayed == ([rare], [])
    assert f"A's unhelpful queries searched in B's docs: now helpful (1): `{rare}`" in \
        markdown([c])
    # nothing to replay when A made no unhelpful search, or both arms share a corpus
    assert compare_runs(load_run(b), load_run(a), resamples=200).docs.replayed is None
    again = write_run(tmp_path / "a2", arm(pairs, 0), searches={("t", 1): [hit(rare, False)]})
    assert compare_runs(load_run(a), load_run(again), resamples=200).docs.replayed is None


def test_the_verdict_refuses_what_is_not_significant(tmp_path: Path) -> None:
    """Few pairs: even a large observed gain is not called significant, and the verdict
    says why; identical arms are no difference."""
    few = [("t", 0.0, 1.0), ("t", 0.0, 1.0), ("t", 0.5, 0.5)]
    a = write_run(tmp_path / "a", arm(few, 0))
    b = write_run(tmp_path / "b", arm(few, 1))
    c = compare_runs(load_run(a), load_run(b))
    assert c.metrics["score"].diff == pytest.approx(2 / 3)
    assert c.metrics["score"].p_value == pytest.approx(0.5)
    assert "no significant difference" in c.verdict[0]
    assert "With 2 differing pair(s) the test cannot go below p = 0.5" in c.verdict[0]
    same = compare_runs(load_run(a), load_run(a))
    assert same.metrics["score"].diff == 0 and same.metrics["score"].p_value == 1.0
    assert "no significant difference" in same.verdict[0]


def test_harness_errors_drop_the_pair_and_agent_failures_score_zero(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", [
        {"task": "t", "attempt": 1, "reward": 1.0},
        {"task": "t", "attempt": 2, "reward": 1.0},
        {"task": "t", "attempt": 3, "reward": None, "status": "grader_error"},
        {"task": "u", "attempt": 1, "reward": 0.5}])
    b = write_run(tmp_path / "b", [
        {"task": "t", "attempt": 1, "reward": 0.8, "status": "agent_timeout"},
        {"task": "t", "attempt": 2, "reward": None, "status": "agent_error"},
        {"task": "t", "attempt": 3, "reward": 1.0}])
    c = compare_runs(load_run(a), load_run(b))
    assert c.metrics["score"].pairs == 2  # t#1 and t#2, both failures of B's agent: 0
    assert c.metrics["score"].diff == pytest.approx(-1.0)
    assert c.dropped == ["t #3: A grader_error"]
    assert c.unmatched == ["u #1 (only in A)"]
    assert "u #1 (only in A)" in markdown([c])


def test_compare_command(tmp_path: Path) -> None:
    pairs = synthetic_pairs(3, 0.0, attempts=3)
    a = write_run(tmp_path / "a", arm(pairs, 0), "A-arm")
    b = write_run(tmp_path / "b", arm(pairs, 1), "B-arm")
    cli = [sys.executable, "-m", "stripebench.cli", "compare"]
    done = subprocess.run(cli + [str(a), str(b), str(b), "--markdown", str(tmp_path / "c.md"),
                                 "--html", str(tmp_path / "c.html"), "--resamples", "500"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("B-arm vs A-arm") == 2
    assert "mean score: " in done.stdout
    assert (tmp_path / "c.md").read_text().count("## B-arm vs A-arm") == 2
    assert "<svg" in (tmp_path / "c.html").read_text()
    lonely = subprocess.run(cli + [str(a)], capture_output=True, text=True, timeout=60)
    assert lonely.returncode == 2 and "needs two runs or more" in lonely.stderr
    missing = subprocess.run(cli + [str(a), str(tmp_path / "nope")], capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode == 2 and "is not a run directory" in missing.stderr
    assert "Traceback" not in missing.stderr
