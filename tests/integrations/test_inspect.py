"""stripebench inside Inspect AI: the `stripebench` Inspect task on the fixture shop.

Inspect's own mockllm model answers without calling a tool: the sample is set up (in its
sandbox, our bubblewrap trial room), the model is offered our MCP tools, and our grader
scores the untouched workdir 0. A scripted model of our own (tests/inspect_models.py,
registered with Inspect's `@modelapi`) calls our `bash` tool over MCP, attached to the
trial's room, to run the reference solution: the grader gives it 1.0, once per epoch
(attempt). Every log is read back with Inspect's log reader. The sandbox provider itself
is tested in test_inspect_sandbox.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from paths import TESTS

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import EvalLog, read_eval_log  # noqa: E402
from inspect_ai.model import get_model  # noqa: E402

from inspect_models import ScriptedModel  # noqa: E402
from stripebench.harness.prompt import system_prompt  # noqa: E402
from stripebench.harness.task import TaskError  # noqa: E402
from stripebench.integrations.inspect_eval import stripebench  # noqa: E402

FIXTURES = TESTS / "fixtures" / "tasks"
# the reference solution's text: its file is on the host, out of the trial room's sight
SHOP_SOLUTION = (FIXTURES / "fixture-shop" / "solution" / "solve.sh").read_text()
HIDDEN = FIXTURES / "fixture-shop" / "tests" / "grade.py"


def run(tmp_path: Path, model: Any, epochs: int = 1) -> EvalLog:
    task = stripebench(tasks="fixture-shop", tasks_dir=str(FIXTURES),
                       trials_dir=str(tmp_path / "trials"))
    logs = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none",
                        epochs=epochs)
    assert len(logs) == 1
    # what a user opens afterwards: the log file, through Inspect's reader
    return read_eval_log(logs[0].location)


def test_mockllm_sample_is_set_up_offered_our_tools_and_scored(tmp_path: Path) -> None:
    log = run(tmp_path, "mockllm/model")
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 1
    sample = log.samples[0]
    assert sample.id == "fixture-shop" and sample.error is None
    score = sample.scores["stripebench_grader"]  # type: ignore[index]
    assert score.value == 0.0
    assert score.metadata["status"] == "completed"
    assert score.metadata["subscores"] == {"gate:stripe_untouched": 1.0,
                                           "customer_created": 0.0, "customer_file": 0.0,
                                           "app_reports_customer": 0.0}
    # The model saw our system prompt, the trial's prompt (keys and the service's URL)
    # and our MCP tools.
    assert sample.messages[0].role == "system"
    assert sample.messages[0].text == system_prompt()
    prompt = sample.messages[1].text
    assert "STRIPE_SECRET_KEY" in prompt and "WEB_URL" in prompt
    offered = {tool.name for event in sample.events if event.event == "model"
               for tool in event.tools}  # type: ignore[union-attr]
    assert {"bash", "view", "search_stripe_documentation", "submit"} <= offered
    assert log.results is not None
    assert log.results.scores[0].metrics["mean"].value == 0.0
    # The trial is recorded as a harness trial is, and torn down.
    trial_dir = Path(score.metadata["trial_dir"])
    result = json.loads((trial_dir / "result.json").read_text())
    assert result["status"] == "completed" and result["reward"] == 0.0
    assert (trial_dir / "grader.log").is_file()
    # the default room is bubblewrap: the record and the score say the trial was sealed
    assert result["sealed"] is True and result["schema"] == 1 and result["agent"] == "inspect"
    assert score.metadata["sealed"] is True and score.metadata["sandbox"] == "bwrap"
    assert sample.metadata["sealed"] is True


def test_scripted_model_runs_the_oracle_through_our_bash_tool(tmp_path: Path) -> None:
    ScriptedModel.offered.clear()
    model = get_model("stripebench-scripted/oracle", script=[
        ["bash", {"command": SHOP_SOLUTION}],
        ["bash", {"command": "cat customer.txt"}],
        ["bash", {"command": f"cat {HIDDEN}"}],
        ["submit", {"summary": "customer created"}],
        ["bash", {"command": "rm customer.txt"}]])  # never runs: submit ends the agent
    log = run(tmp_path, model, epochs=2)
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 2  # one per epoch
    customers = set()
    for sample in log.samples:
        score = sample.scores["stripebench_grader"]  # type: ignore[index]
        assert score.value == 1.0, score.explanation
        assert score.metadata["subscores"] == {"gate:stripe_untouched": 1.0,
                                               "customer_created": 1.0, "customer_file": 1.0,
                                               "app_reports_customer": 1.0}
        # the tool really ran in the trial: its result is in the conversation
        results = [m.text for m in sample.messages if m.role == "tool"]
        customer = results[1].strip().splitlines()[-1]
        assert results[1].startswith("exit code 0") and customer.startswith("cus_")
        customers.add(customer)
        # our MCP server attached to the trial's room: the task's grader is not there
        refused = [m for m in sample.messages if m.role == "tool"][2]
        assert refused.error is not None and "g.gate(" not in refused.text  # type: ignore[union-attr]
        assert "No such file or directory" in refused.error.message  # type: ignore[union-attr]
        assert sum(1 for m in sample.messages if m.role == "assistant") == 4
        transcript = Path(score.metadata["trial_dir"]) / "transcript.jsonl"
        assert '"tool_call"' in transcript.read_text()  # our server logged the calls
    # Each epoch is an attempt of its own: its own account, its own customer.
    assert len(customers) == 2
    assert all("bash" in names for names in ScriptedModel.offered)


def test_tasks_and_category_filter_the_samples() -> None:
    both = stripebench(tasks="fixture-shop,fixture-bad-grader", tasks_dir=str(FIXTURES))
    assert [s.id for s in both.dataset] == ["fixture-shop", "fixture-bad-grader"]
    listed = stripebench(tasks=["fixture-shop"], tasks_dir=str(FIXTURES))
    assert [s.id for s in listed.dataset] == ["fixture-shop"]
    backend = stripebench(category="backend", tasks_dir=str(FIXTURES))
    assert "fixture-shop" in [s.id for s in backend.dataset]
    with pytest.raises(ValueError, match="no stripebench tasks"):
        stripebench(category="full-stack", tasks_dir=str(FIXTURES))
    with pytest.raises(TaskError, match="unknown task"):
        stripebench(tasks="nope", tasks_dir=str(FIXTURES))


def test_running_out_of_turns_is_scored_as_turn_limit(tmp_path: Path) -> None:
    """As in `stripebench run`: the message limit ends the agent, the work is graded and
    the score counts (status turn_limit)."""
    model = get_model("stripebench-scripted/busy", script=[
        ["bash", {"command": SHOP_SOLUTION}]] + [["bash", {"command": "true"}]] * 5)
    task = stripebench(tasks="fixture-shop", tasks_dir=str(FIXTURES),
                       trials_dir=str(tmp_path / "trials"), max_messages=4)
    log = read_eval_log(inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"),
                                     display="none")[0].location)
    assert log.samples is not None
    sample = log.samples[0]
    score = sample.scores["stripebench_grader"]  # type: ignore[index]
    assert score.metadata["status"] == "turn_limit"
    assert score.value == 1.0  # the solution ran in the first turn
    assert sum(1 for m in sample.messages if m.role == "assistant") <= 3
