"""A newcomer's first hour (issue 32), the commands that run trials: a model endpoint that
fails mid-run makes errors to redo, never scores of 0; a run records what it was
(run.json's provenance), shows its progress, ends on a one-screen summary and answers
`--json` for scripts, with exit codes that say whether every trial was measured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from paths import TESTS

STRIPEBENCH = str(Path(sys.executable).parent / "stripebench")
FIXTURES = TESTS / "fixtures" / "tasks"


class _Model(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint: lists its model; chat answers depend on `mode`."""

    mode = "drop"  # drop: close the connection unanswered; ok: a reply without tool calls

    def _json(self, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._json({"object": "list", "data": [{"id": "m", "object": "model"}]})

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("content-length") or 0))
        if type(self).mode == "drop":
            self.close_connection = True
            return
        self._json({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {
                        "role": "assistant", "content": "I will not do anything."}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                              "total_tokens": 15}})

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def model_endpoint() -> Iterator[str]:
    _Model.mode = "drop"
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_an_endpoint_failing_mid_run_makes_errors_to_redo_not_zeros(
        tmp_path: Path, model_endpoint: str) -> None:
    out = tmp_path / "run"
    command = [STRIPEBENCH, "run", "--agent", "openai", "--model", "m", "--base-url",
               model_endpoint, "--tasks-dir", str(FIXTURES), "--tasks", "fixture-shop",
               "--attempts", "2", "--agent-timeout", "4", "--out", str(out), "--sandbox",
               "local", "--allow-unsealed", "--no-report"]
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    record = json.loads((out / "trials" / "fixture-shop" / "1" / "result.json").read_text())
    assert record["status"] == "endpoint_unreachable", record
    assert record["error"].startswith(f"{model_endpoint}: APIConnectionError")
    # the run stopped rather than fail every later trial the same way
    assert not (out / "trials" / "fixture-shop" / "2" / "result.json").exists()
    said = done.stdout + done.stderr
    assert "the run stopped: fixture-shop #1 ended endpoint_unreachable" in said
    assert "stripebench run --resume --retry-errors --out" in said
    # an error, not a score: the task is left out of the means, listed
    report = json.loads(subprocess.run([STRIPEBENCH, "report", str(out), "--json"],
                                       capture_output=True, text=True, timeout=60).stdout)
    scores = report["runs"][0]
    assert scores["mean"] is None and scores["tasks"][0]["left_out"] is True
    assert scores["errors"] == [{"task": "fixture-shop", "attempt": 1,
                                 "status": "endpoint_unreachable"}]
    # the endpoint is back: --resume --retry-errors redoes the trial and does the rest
    _Model.mode = "ok"
    again = subprocess.run(command + ["--resume", "--retry-errors", "--json"],
                           capture_output=True, text=True, timeout=240, env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    facts = json.loads(again.stdout)  # stdout is the JSON alone; progress on stderr
    assert facts["statuses"] == {"completed": 2} and facts["failed"] == []
    assert facts["exit_code"] == 0 and facts["disk_bytes"] > 0 and facts["tokens"] == 2 * 45
    assert facts["scores"]["runs"][0]["tasks"][0]["best"] == 0.0  # it did nothing
    assert "Run finished in" in again.stderr and "statuses   2 completed" in again.stderr


def test_a_run_records_what_it_was_and_ends_on_a_summary(tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = {**os.environ, "STRIPEBENCH_GYM_SEED": "7", "COLUMNS": "200"}
    done = subprocess.run([STRIPEBENCH, "run", "--agent", "oracle", "--tasks-dir",
                           str(FIXTURES), "--tasks", "fixture-shop", "--out", str(out),
                           "--sandbox", "local", "--allow-unsealed", "--max-turns", "9"],
                          capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    meta = json.loads((out / "run.json").read_text())
    seen = meta["provenance"]
    assert seen["stripebench"] and len(seen["commit"]) == 40
    assert isinstance(seen["dirty"], bool)
    assert seen["tasks"]["fixture-shop"]["version"] == 1
    assert len(seen["tasks"]["fixture-shop"]["sha256"]) == 64
    assert seen["gym_seed"] == "7" and len(seen["docs_guides_sha256"]) == 64
    assert seen["emulator_api_version"] and seen["sdks"]["python:stripe"]
    assert seen["sandbox"] == "local" and seen["sealed"] is False
    assert set(seen["tools"]) >= {"chromium", "node", "java", "go"}
    assert seen["options"]["max_turns"] == 9 and seen["options"]["attempts"] == 1
    assert meta["agent"] == "oracle"
    # the guides' hash is of the packaged guides' files, at run time
    from stripebench.docs.guide_pages import corpus_hash
    assert seen["docs_guides_sha256"] == corpus_hash()
    lines = done.stdout.splitlines()
    at = lines.index(next(line for line in lines if line.startswith("Run finished in")))
    summary = "\n".join(lines[at:])
    assert "statuses   1 completed" in summary
    assert "scored     1, of which 1 at exactly 1.0" in summary
    assert f"report     {out}/report.md, {out}/report.html" in summary
    assert f" in {out}" in summary and "disk       " in summary
    assert any("0 running" in line and "left" in line for line in lines)  # the bar
