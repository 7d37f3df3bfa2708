"""A `stripebench run` as an Inspect eval log, so `inspect view` opens it.

One sample a trial: the sample's id is the task and its epoch the attempt; its input the
prompt the agent got; its messages the transcript's (the prompt, each assistant message
with the tool calls that followed it, each tool result; other events, such as docs
searches, become short system notes); its score `stripebench`, whose value holds the
reward, the status and every sub-score; its metadata the trial's turns, tokens, cost,
tool calls, wall time, sealed flag, set-up retries and notes. A trial that did not end
scored carries its error as the sample's error. The log's results give the run's
best-of-N mean and the every-attempt statistics (results/reliability.py); its metadata
is run.json.

Screenshots are not carried over (the tool messages say how many there were).
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalMetric,
    EvalPlan,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ModelUsage,
)
from inspect_ai.scorer import Score
from inspect_ai.tool import ToolCall, ToolCallError

from ..results import reliability as rel
from ..results.aggregate import summarize
from ..results.store import Run, load_run
from ..rundir import counts
from ..rundir.transcript import read

SCORER = "stripebench"
TOOL_TEXT = 20_000  # characters of a tool result kept in the log


def _iso(unix: float | None) -> str:
    return datetime.fromtimestamp(unix or 0, UTC).isoformat()


def _model(meta: dict[str, Any]) -> str:
    """Inspect names a model provider/name; an agent without a model is stripebench's."""
    model = meta.get("model")
    if model:
        return str(model) if "/" in str(model) else f"{meta.get('agent', 'agent')}/{model}"
    return f"stripebench/{meta.get('agent', 'agent')}"


def messages(events: list[dict[str, Any]], prompt: str) -> list[ChatMessage]:
    """The transcript as chat messages: tool calls join the assistant message before
    them (or one of their own when the agent said nothing, e.g. the oracle)."""
    out: list[ChatMessage] = [ChatMessageUser(content=prompt)] if prompt else []
    open_turn: ChatMessageAssistant | None = None  # the last assistant, no results yet
    for event in events:
        kind = event.get("type")
        if kind == "message":
            text = str(event.get("text") or "")
            if event.get("role") == "assistant":
                open_turn = ChatMessageAssistant(content=text, tool_calls=[],
                                                 metadata={k: event[k] for k in
                                                           ("turn", "tokens", "stop")
                                                           if k in event} or None)
                out.append(open_turn)
            else:
                open_turn = None
                out.append(ChatMessageUser(content=text))
        elif kind == "tool_call":
            args = event.get("args")
            call = ToolCall(id=str(event.get("id") or f"call{len(out)}"),
                            function=str(event.get("name")),
                            arguments=args if isinstance(args, dict) else {"args": args})
            if open_turn is None:
                open_turn = ChatMessageAssistant(content="", tool_calls=[])
                out.append(open_turn)
            assert open_turn.tool_calls is not None
            open_turn.tool_calls.append(call)
        elif kind == "tool_result":
            open_turn = None
            text = str(event.get("text") or "")
            images = event.get("images") or []
            if images:
                text += f"\n[{len(images)} screenshot(s) in the trial folder]"
            out.append(ChatMessageTool(
                content=text[:TOOL_TEXT], tool_call_id=str(event.get("id") or ""),
                function=str(event.get("name")),
                error=ToolCallError("unknown", text[:2000]) if event.get("is_error")
                else None))
        elif kind == "docs_search":
            hits = event.get("results")
            count = len(hits) if isinstance(hits, list) else hits
            out.append(ChatMessageSystem(content=f"docs search {event.get('query')!r}: "
                                                 f"{count or 0} result(s)"))
        elif kind == "context_elided":
            out.append(ChatMessageSystem(content=f"context budget: old tool output elided "
                                                 f"before turn {event.get('turn')}"))
    return out


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def sample(run: Run, trial: dict[str, Any]) -> EvalSample:
    folder = run.trial_dir(trial)
    events = read(folder / "transcript.jsonl")
    start = next((e for e in events if e.get("type") == "start"), {})
    prompt = str(start.get("prompt") or "")
    if not prompt and (folder / "prompt.md").exists():
        prompt = (folder / "prompt.md").read_text(errors="replace")
    reward = _number(trial.get("reward"))
    subscores = {str(k): v for k, v in (trial.get("subscores") or {}).items()
                 if _number(v) is not None}
    status = str(trial.get("status"))
    value: dict[str, str | int | float | bool | None] = {
        "reward": reward, "status": status, **{k: float(v) for k, v in subscores.items()}}
    error = str(trial.get("error") or "")
    score = Score(value=value, answer=status,
                  explanation=error.splitlines()[0][:500] if error else None,
                  metadata={"counts": counts(trial), "subscores": subscores})
    model = trial.get("model") or run.meta.get("model")
    usage = {str(model): ModelUsage(
        input_tokens=int(trial.get("input_tokens") or 0),
        output_tokens=int(trial.get("output_tokens") or 0),
        total_tokens=int(trial.get("input_tokens") or 0) + int(trial.get("output_tokens") or 0),
        total_cost=_number(trial.get("cost_usd")))} if model else {}
    metadata = {key: trial.get(key) for key in (
        "category", "task_version", "status", "turns", "input_tokens", "output_tokens",
        "cost_usd", "tool_calls", "wall_seconds", "sealed", "setup_retries", "notes",
        "agent", "model", "account")}
    started, finished = _number(trial.get("started")), _number(trial.get("finished"))
    return EvalSample(
        id=str(trial["task"]), epoch=int(trial["attempt"]), input=prompt, target="",
        messages=messages(events, prompt), scores={SCORER: score}, metadata=metadata,
        model_usage=usage, started_at=_iso(started) if started else None,
        completed_at=_iso(finished) if finished else None,
        total_time=_number(trial.get("wall_seconds")),
        error=None if counts(trial) or not error else EvalError(
            message=f"{status}: {error.splitlines()[0][:500]}", traceback=error,
            traceback_ansi=error),
        turn_count=int(trial.get("turns") or 0) or None)


def eval_log(run_path: Path) -> EvalLog:
    """The run at `run_path` as an Inspect EvalLog (not yet written)."""
    run = load_run(run_path)
    summary = summarize(run)
    trials = sorted(run.trials, key=lambda t: (str(t["task"]), int(t["attempt"])))
    samples = [sample(run, t) for t in trials]
    _, groups = rel.reliability(summary)
    overall = groups[-1]
    metrics = {"best_of_n": EvalMetric(name="best_of_n", value=summary.mean or 0.0),
               "mean": EvalMetric(name="mean", value=overall.mean or 0.0),
               "stderr": EvalMetric(name="stderr", value=overall.se or 0.0),
               "strict": EvalMetric(name="strict", value=overall.strict or 0.0)}
    for k, value in overall.pass_at.items():
        if k > 1:
            metrics[f"pass@{k}"] = EvalMetric(name=f"pass@{k}", value=value)
            metrics[f"pass^{k}"] = EvalMetric(name=f"pass^{k}", value=overall.pass_all[k])
    scored = sum(1 for t in trials if counts(t))
    meta = run.meta
    created = _number(meta.get("created")) or min(
        (_number(t.get("started")) or 0.0 for t in trials), default=0.0)
    finished = max((_number(t.get("finished")) or 0.0 for t in trials), default=created)
    usage: dict[str, ModelUsage] = {}
    for s in samples:
        for name, u in s.model_usage.items():
            total = usage.setdefault(name, ModelUsage())
            total.input_tokens += u.input_tokens
            total.output_tokens += u.output_tokens
            total.total_tokens += u.total_tokens
            if u.total_cost is not None:
                total.total_cost = (total.total_cost or 0.0) + u.total_cost
    task_name = f"stripebench/{meta.get('name') or run.path.name}"
    spec = EvalSpec(
        run_id=run.run_id, eval_id=re.sub(r"[^A-Za-z0-9]", "", run.run_id)[:22] or "run",
        created=_iso(created), task=task_name, task_id=run.run_id,
        dataset=EvalDataset(name="stripebench tasks", samples=len(meta.get("tasks") or []),
                            sample_ids=list(meta.get("tasks") or [])),
        model=_model(meta), config=EvalConfig(epochs=int(meta.get("attempts") or 1)),
        metadata=json.loads(json.dumps(meta, default=str)),
        task_args={"agent": meta.get("agent"), "sandbox": meta.get("sandbox")})
    return EvalLog(
        version=2, status="success" if not run.unfinished else "cancelled", eval=spec,
        plan=EvalPlan(name=str(meta.get("agent") or "agent")),
        results=EvalResults(total_samples=len(samples), completed_samples=len(samples),
                            scores=[EvalScore(name="reward", scorer=SCORER,
                                              scored_samples=scored,
                                              unscored_samples=len(samples) - scored,
                                              metrics=metrics)]),
        stats=EvalStats(started_at=_iso(created), completed_at=_iso(finished),
                        model_usage=usage),
        samples=samples)


def export_run(run_path: Path, out: Path) -> Path:
    """Write the run's eval log into `out` (a folder `inspect view --log-dir` opens)."""
    log = eval_log(run_path)
    out.mkdir(parents=True, exist_ok=True)
    stamp = log.eval.created[:19].replace(":", "-")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(run_path).resolve().name)
    location = out / f"{stamp}_stripebench-{name}_{log.eval.eval_id}.eval"
    write_eval_log(log, location)
    return location
