"""Tool arguments are checked before use, and what a trial makes the harness keep on the
host is capped in bytes (issue 25, "Limits").

Each test is an agent's call (or a page's output) that would once have hung a command
forever (a NaN timeout never expires), fed a huge string to a search or the file system,
or grown a transcript, a screenshot folder or the console log without bound. Each must
end in a clear tool error or a clipped record, never a traceback.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from stripebench.harness.sandbox import SandboxError, make_sandbox, run_captured
from stripebench.harness.tools import Toolbox
from stripebench.harness.tools.browser import LINE_LIMIT, LOG_LIMIT, BrowserSession
from stripebench.rundir import transcript as transcript_mod
from stripebench.rundir.transcript import TEXT_LIMIT, Transcript


@pytest.fixture()
def toolbox(tmp_path: Path) -> Toolbox:
    box = make_sandbox("local", tmp_path / "work", {})
    tools = Toolbox(box, Transcript(tmp_path / "transcript.jsonl"))
    yield tools  # type: ignore[misc]
    tools.close()
    box.stop()


def error_of(toolbox: Toolbox, name: str, args: dict[str, object]) -> str:
    result = toolbox.call(name, args)
    assert result.is_error, result.text
    assert "Traceback" not in result.text
    return result.text


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_timeout_that_is_not_a_finite_number_is_refused(toolbox: Toolbox,
                                                          bad: float) -> None:
    started = time.monotonic()
    text = error_of(toolbox, "bash", {"command": "sleep 30", "timeout": bad})
    assert "'timeout' must be a number" in text
    assert time.monotonic() - started < 5   # refused, not run
    text = error_of(toolbox, "browser_wait_for", {"seconds": bad})
    assert "'seconds' must be a number" in text


def test_a_nan_deadline_never_reaches_a_command(tmp_path: Path) -> None:
    """Below the tools too: run_captured refuses what would never time out."""
    for bad in (math.nan, math.inf, 0.0, -1.0):
        with pytest.raises(SandboxError, match="timeout must be a positive number"):
            run_captured(["sleep", "30"], env={}, cwd=tmp_path, timeout=bad,
                         output_limit=100)


def test_a_wait_is_bounded(toolbox: Toolbox) -> None:
    text = error_of(toolbox, "browser_wait_for", {"seconds": 1e9})
    assert "between 0 and 120" in text


def test_huge_query_path_and_ref_are_refused_with_their_limit(toolbox: Toolbox) -> None:
    text = error_of(toolbox, "search_stripe_documentation", {"query": "refund " * 50_000})
    assert "'query' is too long" in text and "at most 2,000 bytes" in text
    text = error_of(toolbox, "view", {"path": "a/" * 5000})
    assert "'path' is too long" in text
    text = error_of(toolbox, "create", {"path": "x" * 10_000, "file_text": "hi"})
    assert "'path' is too long" in text
    text = error_of(toolbox, "browser_click", {"ref": "e" * 10_000})
    assert "'ref' is too long" in text
    text = error_of(toolbox, "browser_select_option", {"ref": "e1", "values": ["a"] * 10_000})
    assert "'values' has 10000 items" in text


def test_a_nul_in_a_path_is_a_tool_error(toolbox: Toolbox) -> None:
    text = error_of(toolbox, "view", {"path": "app\0.py"})
    assert "NUL" in text


def test_out_of_range_integers_are_tool_errors(toolbox: Toolbox) -> None:
    toolbox.call("create", {"path": "f.txt", "file_text": "one\n"})
    assert "between 0 and" in error_of(toolbox, "insert", {
        "path": "f.txt", "insert_line": -5, "insert_text": "x"})
    assert "between 1 and 20" in error_of(toolbox, "search_stripe_documentation", {
        "query": "refunds", "limit": 10**30})
    assert "'view_range' has 3 items" in error_of(toolbox, "view", {
        "path": "f.txt", "view_range": [1, 2, 3]})
    # within range the same tools work
    assert not toolbox.call("insert", {"path": "f.txt", "insert_line": 1,
                                       "insert_text": "two"}).is_error


def test_the_transcript_keeps_a_clip_of_huge_arguments(toolbox: Toolbox,
                                                       tmp_path: Path) -> None:
    """A 5 MB file_text reaches the file but only its first TEXT_LIMIT characters the
    transcript."""
    big = "x" * 5_000_000
    assert not toolbox.call("create", {"path": "big.txt", "file_text": big}).is_error
    assert (tmp_path / "work" / "big.txt").stat().st_size == 5_000_000
    events = [json.loads(line) for line in
              (tmp_path / "transcript.jsonl").read_text().splitlines()]
    kept = events[-2]["args"]["file_text"]
    assert len(kept) < TEXT_LIMIT + 100 and kept.startswith("xxx")
    assert (tmp_path / "transcript.jsonl").stat().st_size < 3 * TEXT_LIMIT


def test_the_transcript_stops_at_its_byte_limit(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transcript_mod, "TRANSCRIPT_LIMIT", 50_000)
    log = Transcript(tmp_path / "t.jsonl")
    for n in range(200):
        log.add("tool_result", n=n, text="y" * 1000)
    lines = (tmp_path / "t.jsonl").read_text().splitlines()
    assert (tmp_path / "t.jsonl").stat().st_size <= 50_000 + 200
    assert [json.loads(line)["type"] for line in lines].count("transcript_full") == 1
    assert json.loads(lines[-1])["type"] == "transcript_full"


def test_screenshots_are_capped_each_and_together(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    log = Transcript(tmp_path / "t.jsonl")
    assert log.save_image(b"\x89PNG" + b"0" * transcript_mod.IMAGE_LIMIT) is None
    monkeypatch.setattr(transcript_mod, "SCREENSHOTS_LIMIT", 10_000)
    saved = [log.save_image(b"\x89PNG" + b"1" * 3000) for _ in range(5)]
    assert saved[:3] == ["screenshots/" + p.name for p in
                         sorted((tmp_path / "screenshots").iterdir())]
    assert saved[3:] == [None, None]


def test_console_lines_are_clipped_and_few(tmp_path: Path) -> None:
    """A page that logs megabytes (or a million lines) leaves the harness a bounded log."""
    log: list[str] = []
    BrowserSession._log(log, "z" * 3_000_000)
    assert len(log[0]) < LINE_LIMIT + 100 and "more characters" in log[0]
    for n in range(5000):
        BrowserSession._log(log, f"line {n}")
    assert len(log) == LOG_LIMIT and log[-1] == "line 4999"
