"""`stripebench export inspect RUN --out DIR` (issue 32): a run's results open in
Inspect's log viewer. A run of the scripted agent on the fixture shop, two attempts, is
exported and read back with inspect_ai.log: one sample a trial, its prompt, messages and
tool calls, its score (reward, status, sub-scores) and metadata, and the run's metrics."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool

from paths import TESTS
from stripebench.integrations.inspect_log import messages

STRIPEBENCH = str(Path(sys.executable).parent / "stripebench")
SOLVE = ("curl -sf \"$STRIPE_API_BASE/v1/customers\" -u \"$STRIPE_SECRET_KEY:\" "
         "-d email=ada@example.com -d 'name=Ada Lovelace' | python3 -c 'import json, sys; "
         "print(json.load(sys.stdin)[\"id\"], end=\"\")' > customer.txt")
SCRIPT = [{"tool": "bash", "args": {"command": "echo looking around; ls"}},
          {"tool": "bash", "args": {"command": SOLVE}},
          {"tool": "bash", "args": {"command": "exit 3"}}]


def test_a_run_exports_to_an_inspect_eval_log(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    run = tmp_path / "run"
    made = subprocess.run(
        [STRIPEBENCH, "run", "--agent", "scripted", "--script", str(script), "--tasks-dir",
         str(TESTS / "fixtures" / "tasks"), "--tasks", "fixture-shop", "--attempts", "2",
         "--sandbox", "local", "--allow-unsealed", "--out", str(run), "--no-report"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert made.returncode == 0, made.stdout + made.stderr

    logs = tmp_path / "logs"
    done = subprocess.run([STRIPEBENCH, "export", "inspect", str(run), "--out", str(logs)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"inspect view --log-dir {logs}" in done.stdout
    found = list_eval_logs(str(logs))  # what `inspect view` lists
    assert len(found) == 1
    log = read_eval_log(found[0])
    assert log.status == "success"
    assert log.eval.model == "stripebench/scripted"
    assert log.eval.config.epochs == 2
    assert log.eval.metadata and log.eval.metadata["sandbox"] == "local"
    metrics = log.results.scores[0].metrics if log.results else {}
    assert metrics["best_of_n"].value == 1.0 and metrics["strict"].value == 1.0
    assert metrics["pass^2"].value == 1.0

    assert log.samples and [(s.id, s.epoch) for s in log.samples] == [
        ("fixture-shop", 1), ("fixture-shop", 2)]
    for sample in log.samples:
        prompt = (run / "trials" / "fixture-shop" / str(sample.epoch) / "prompt.md"
                  ).read_text()
        assert sample.input == prompt
        score = sample.scores["stripebench"] if sample.scores else None
        assert score is not None and score.answer == "completed"
        assert isinstance(score.value, dict)
        assert score.value["reward"] == 1.0 and score.value["status"] == "completed"
        assert score.value["customer_created"] == 1.0
        assert sample.metadata["turns"] == 3 and sample.metadata["sealed"] is False
        assert sample.metadata["status"] == "completed" and sample.error is None
        roles = [m.role for m in sample.messages]
        assert roles == ["user"] + ["assistant", "tool"] * 3
        assert sample.messages[0].text == prompt
        calls = [m.tool_calls[0] for m in sample.messages
                 if isinstance(m, ChatMessageAssistant) and m.tool_calls]
        assert [c.function for c in calls] == ["bash"] * 3
        assert calls[1].arguments == {"command": SOLVE}
        tools = [m for m in sample.messages if isinstance(m, ChatMessageTool)]
        assert [t.tool_call_id for t in tools] == [c.id for c in calls]
        assert "looking around" in tools[0].text and tools[0].error is None
        assert tools[2].error is not None and "exit code 3" in tools[2].text


def test_assistant_text_carries_the_tool_calls_that_follow_it() -> None:
    events = [{"type": "start", "prompt": "P"},
              {"type": "message", "role": "assistant", "text": "I will look.", "turn": 1},
              {"type": "tool_call", "id": "c1", "name": "bash", "args": {"command": "ls"}},
              {"type": "tool_call", "id": "c2", "name": "read", "args": {"path": "a"}},
              {"type": "tool_result", "id": "c1", "name": "bash", "text": "a"},
              {"type": "tool_result", "id": "c2", "name": "read", "text": "x",
               "images": ["screenshots/1.png"]},
              {"type": "docs_search", "query": "webhooks", "results": [1, 2]},
              {"type": "message", "role": "user", "text": "go on"},
              {"type": "message", "role": "assistant", "text": "Done."},
              {"type": "end", "status": "completed"}]
    out = messages(events, "P")
    assert [m.role for m in out] == ["user", "assistant", "tool", "tool", "system", "user",
                                     "assistant"]
    first = out[1]
    assert isinstance(first, ChatMessageAssistant) and first.text == "I will look."
    assert [c.id for c in first.tool_calls or []] == ["c1", "c2"]
    assert "1 screenshot(s)" in out[3].text
    assert isinstance(out[4], ChatMessageSystem) and "2 result(s)" in out[4].text
    assert out[6].text == "Done." and not out[6].tool_calls
