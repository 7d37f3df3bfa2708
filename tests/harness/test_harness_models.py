"""The built-in model agent through the official openai and anthropic SDKs, against small
local servers that speak each API and replay a recorded conversation (no real model)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from conftest import free_port
from paths import TESTS
from stripebench.harness.agents import make_agent
from stripebench.harness.emulator import Emulator
from stripebench.harness.runner import RunPlan, execute
from stripebench.harness.task import load_task

SHOP = load_task(TESTS / "fixtures" / "tasks" / "fixture-shop")
SOLVE = ('curl -sf "$STRIPE_API_BASE/v1/customers" -u "$STRIPE_SECRET_KEY:" '
         '-d email=ada@example.com -d "name=Ada Lovelace" | python3 -c '
         '\'import json,sys; print(json.load(sys.stdin)["id"], end="")\' > customer.txt')
# each step: ("tool", name, args) or ("text", words)
STEPS: list[tuple[str, Any, Any]] = [("tool", "bash", {"command": SOLVE}),
                                     ("text", "All done, I think.", None),
                                     ("tool", "submit", {"summary": "created Ada"})]


class FakeModelServer:
    """Answers OpenAI chat completions and Anthropic messages from `steps`; 429 first
    unless `rate_limit` is False. Input tokens: 1000 per call, or with `measure`, a
    quarter of the request body's length (as a real tokenizer roughly would)."""

    def __init__(self, steps: list[tuple[str, Any, Any]] | None = None,
                 rate_limit: bool = True, measure: bool = False) -> None:
        self.steps = steps or STEPS
        self.requests: list[dict[str, Any]] = []
        self.sizes: list[int] = []
        self.measure = measure
        self.rate_limited = not rate_limit
        app = Starlette(routes=[Route("/v1/chat/completions", self.openai, methods=["POST"]),
                                Route("/v1/messages", self.anthropic, methods=["POST"])])
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)

    def _next(self, raw: bytes) -> tuple[str, Any, Any] | None:
        if not self.rate_limited:
            self.rate_limited = True
            return None
        self.requests.append(json.loads(raw))
        self.sizes.append(len(raw) // 4 if self.measure else 1000)
        return self.steps[min(len(self.requests) - 1, len(self.steps) - 1)]

    async def openai(self, request: Request) -> JSONResponse:
        step = self._next(await request.body())
        if step is None:
            return JSONResponse({"error": {"message": "slow down", "type": "rate_limit"}}, 429)
        n = len(self.requests)
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if step[0] == "tool":
            message["tool_calls"] = [{"id": f"call_{n}", "type": "function", "function": {
                "name": step[1], "arguments": json.dumps(step[2])}}]
        else:
            message["content"] = step[1]
        return JSONResponse({"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0,
                             "model": "gpt-5", "choices": [{
                                 "index": 0, "message": message,
                                 "finish_reason": "tool_calls" if step[0] == "tool" else "stop"}],
                             "usage": {"prompt_tokens": self.sizes[-1],
                                       "completion_tokens": 100,
                                       "total_tokens": self.sizes[-1] + 100}})

    async def anthropic(self, request: Request) -> JSONResponse:
        step = self._next(await request.body())
        if step is None:
            return JSONResponse({"type": "error", "error": {"type": "rate_limit_error",
                                                            "message": "slow down"}}, 429)
        n = len(self.requests)
        block = {"type": "tool_use", "id": f"toolu_{n}", "name": step[1], "input": step[2]} \
            if step[0] == "tool" else {"type": "text", "text": step[1]}
        return JSONResponse({"id": f"msg_{n}", "type": "message", "role": "assistant",
                             "model": "claude-sonnet-4-5", "content": [block],
                             "stop_reason": "tool_use" if step[0] == "tool" else "end_turn",
                             "stop_sequence": None,
                             "usage": {"input_tokens": self.sizes[-1],
                                       "output_tokens": 100}})

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(5)


@pytest.fixture()
def fake() -> Iterator[FakeModelServer]:
    server = FakeModelServer()
    yield server
    server.stop()


@pytest.mark.parametrize("provider,model", [("openai", "gpt-5"),
                                            ("anthropic", "claude-sonnet-4-5")])
def test_model_agent_solves_the_fixture_task(provider: str, model: str, fake: FakeModelServer,
                                             tmp_path: Path, emulator: Any,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake")
    base = f"http://127.0.0.1:{fake.port}" + ("/v1" if provider == "openai" else "")
    results = execute(RunPlan(out=tmp_path, tasks=[SHOP], agent_name=provider, model=model),
                      lambda: make_agent(provider, model, base_url=base,
                                         options={"backoff_base": 0.01}),
                      emulator=Emulator(emulator.base))
    (result,) = results
    assert result["status"] == "completed", result["error"]
    assert result["reward"] == 1.0
    assert result["turns"] == 3
    assert (result["input_tokens"], result["output_tokens"]) == (3000, 300)
    assert result["cost_usd"] == pytest.approx(3000 * 1.25e-6 + 300 * 10e-6
                                               if provider == "openai"
                                               else 3000 * 3e-6 + 300 * 15e-6)
    assert result["agent_extra"]["retries"] == 1
    first, second, third = fake.requests
    tools = [t["function"]["name"] if provider == "openai" else t["name"]
             for t in first["tools"]]
    assert "bash" in tools and "browser_navigate" in tools and "submit" in tools
    if provider == "openai":
        assert first["messages"][0]["role"] == "system"
        tool_reply = second["messages"][-1]
        assert tool_reply["role"] == "tool" and tool_reply["tool_call_id"] == "call_1"
        assert tool_reply["content"].startswith("exit code 0")
    else:
        assert "Stripe integration task" in first["system"]
        result_block = second["messages"][-1]["content"][0]
        assert result_block["type"] == "tool_result" and result_block["tool_use_id"] == "toolu_1"
        assert result_block["content"][0]["text"].startswith("exit code 0")
    last = third["messages"][-1]
    assert last["role"] == "user" and "submit" in json.dumps(last["content"])  # the nudge
    events = [json.loads(line) for line in (tmp_path / "trials" / "fixture-shop" / "1" /
                                            "transcript.jsonl").read_text().splitlines()]
    assert [e["type"] for e in events].count("message") == 4  # 3 replies + 1 nudge
    assert any(e["type"] == "retry" for e in events)


def test_a_local_server_needs_no_key_and_a_missing_key_fails_fast(
        fake: FakeModelServer, tmp_path: Path, emulator: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Ollama / vLLM take no API key; without --base-url a missing key is a clear error
    before any trial starts, not an agent_error in every trial."""
    from stripebench.harness.agents import AgentError

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    for provider in ("openai", "anthropic"):
        with pytest.raises(AgentError, match=f"{provider.upper()}_API_KEY"):
            make_agent(provider, "some-model")
    (result,) = execute(RunPlan(out=tmp_path, tasks=[SHOP], agent_name="openai",
                                model="llama3"),
                        lambda: make_agent("openai", "llama3",
                                           base_url=f"http://127.0.0.1:{fake.port}/v1",
                                           options={"backoff_base": 0.01}),
                        emulator=Emulator(emulator.base))
    assert result["status"] == "completed", result["error"]
    assert result["reward"] == 1.0


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_model_agent_stops_at_the_turn_limit(provider: str, fake: FakeModelServer,
                                             tmp_path: Path, emulator: Any,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake")
    base = f"http://127.0.0.1:{fake.port}" + ("/v1" if provider == "openai" else "")
    (result,) = execute(RunPlan(out=tmp_path, tasks=[SHOP], agent_name=provider,
                                model="m", max_turns=1),
                        lambda: make_agent(provider, "m", base_url=base,
                                           options={"backoff_base": 0.01}),
                        emulator=Emulator(emulator.base))
    assert result["status"] == "turn_limit" and result["turns"] == 1
    assert len(fake.requests) == 1  # no model call after the limit
    assert (result["input_tokens"], result["output_tokens"]) == (1000, 100)
    assert result["cost_usd"] is None  # an unknown model has no list price
    assert result["reward"] == 1.0  # the one turn solved it: a turn limit is still scored


# ---------------------------------------------------------------- context budget

BIG = 6000  # characters each of the first tool outputs prints
CHATTY: list[tuple[str, Any, Any]] = [
    *[("tool", "bash", {"command": f"python3 -c \"print('{letter}' * {BIG})\""})
      for letter in "ABCDEF"],
    ("tool", "bash", {"command": SOLVE}),
    ("tool", "submit", {"summary": "created Ada"})]


def _results(provider: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """(call id, text) of every tool result in a request, checking each follows its call:
    OpenAI `tool` messages right after the assistant message with their `tool_calls`,
    Anthropic `tool_result` blocks in the user message right after their `tool_use`."""
    messages, found = body["messages"], []
    for i, message in enumerate(messages):
        if provider == "openai":
            if message["role"] == "assistant" and message.get("tool_calls"):
                ids = [c["id"] for c in message["tool_calls"]]
                answers = messages[i + 1:i + 1 + len(ids)]
                assert [(m["role"], m["tool_call_id"]) for m in answers] == \
                    [("tool", x) for x in ids]
                found += [(m["tool_call_id"], m["content"]) for m in answers]
            elif message["role"] == "tool":
                assert messages[i - 1]["role"] in ("assistant", "tool")
        else:
            content = message["content"]
            if message["role"] == "assistant":
                ids = [b["id"] for b in content if b["type"] == "tool_use"]
                if ids:
                    answer = messages[i + 1]
                    assert answer["role"] == "user"
                    assert [b["tool_use_id"] for b in answer["content"]] == ids
                    found += [(b["tool_use_id"], "".join(p.get("text", "")
                                                         for p in b["content"]))
                              for b in answer["content"]]
            elif isinstance(content, list) and any(b["type"] == "tool_result"
                                                   for b in content):
                previous = messages[i - 1]
                assert previous["role"] == "assistant" and any(
                    b["type"] == "tool_use" for b in previous["content"])
    return found


def _run_chatty(provider: str, budget: int, tmp_path: Path, emulator: Any,
                monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], FakeModelServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake")
    server = FakeModelServer(CHATTY, rate_limit=False, measure=True)
    try:
        base = f"http://127.0.0.1:{server.port}" + ("/v1" if provider == "openai" else "")
        (result,) = execute(RunPlan(out=tmp_path, tasks=[SHOP], agent_name=provider,
                                    model="m"),
                            lambda: make_agent(provider, "m", base_url=base, options={
                                "backoff_base": 0.01, "context_budget": budget}),
                            emulator=Emulator(emulator.base))
    finally:
        server.stop()
    return result, server


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_old_tool_outputs_are_elided_to_fit_the_context_budget(
        provider: str, tmp_path: Path, emulator: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    budget = 9000
    result, server = _run_chatty(provider, budget, tmp_path, emulator, monkeypatch)
    assert result["status"] == "completed", result["error"]
    assert result["reward"] == 1.0 and result["turns"] == len(CHATTY)
    assert len(server.requests) == len(CHATTY)
    full: dict[str, str] = {}  # each output as first sent
    for body in server.requests:
        for call_id, text in _results(provider, body):
            full.setdefault(call_id, text)
    assert all(len(full[f"{'call' if provider == 'openai' else 'toolu'}_{n}"]) > BIG
               for n in range(1, 7))
    # the provider's count of every request, calibrated from the one before, stays near
    # the budget (the first request is small, so needs no calibration)
    assert max(server.sizes) <= budget * 1.1
    last = _results(provider, server.requests[-1])
    assert len(last) == len(CHATTY) - 1
    elided = [(call_id, text) for call_id, text in last if text != full[call_id]]
    assert len(elided) >= 2
    # the oldest go first, each replaced by a placeholder that says what to do
    assert [call_id for call_id, _ in elided] == [call_id for call_id, _ in last[:len(elided)]]
    for call_id, text in elided:
        assert text == (f"[tool output of {len(full[call_id]):,} characters elided to fit "
                        "the context; re-run the command if you need it]")
    # the latest three turns are intact
    assert [text for _, text in last[-3:]] == [full[call_id] for call_id, _ in last[-3:]]
    assert full[last[-2][0]].count("F") == BIG
    # the system prompt and the instruction are never touched
    first, final = server.requests[0], server.requests[-1]
    if provider == "openai":
        assert final["messages"][:2] == first["messages"][:2]
    else:
        assert final["system"] == first["system"]
        assert final["messages"][0] == first["messages"][0]
    # recorded in the result and the transcript
    record = result["agent_extra"]["context_elided"]
    assert record["budget"] == budget and record["tool_results"] == len(elided)
    assert record["chars"] == sum(len(full[call_id]) for call_id, _ in elided)
    events = [json.loads(line) for line in (tmp_path / "trials" / "fixture-shop" / "1" /
                                            "transcript.jsonl").read_text().splitlines()]
    logged = [e for e in events if e["type"] == "context_elided"]
    assert len(logged) == record["times"] >= 1
    assert sum(e["tool_results"] for e in logged) == len(elided)
    assert all(e["estimated_tokens"][1] < e["estimated_tokens"][0] for e in logged)
    # and shown in the HTML report's trial details and transcript
    from stripebench.results import load_run, summarize
    from stripebench.results.html import page

    html = page([summarize(load_run(tmp_path))])
    assert (f"context budget 9,000 tokens: {record['times']} elision(s), {len(elided)} tool "
            f"output(s), 0 screenshot(s), 0 argument(s), {record['chars']:,} characters"
            ) in html
    assert html.count("context budget: elided") == record["times"]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_zero_context_budget_sends_everything(provider: str, tmp_path: Path,
                                                emulator: Any,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    result, server = _run_chatty(provider, 0, tmp_path, emulator, monkeypatch)
    assert result["status"] == "completed", result["error"]
    assert result["reward"] == 1.0
    assert "context_elided" not in result["agent_extra"]
    last = _results(provider, server.requests[-1])
    assert len(last) == len(CHATTY) - 1
    assert [text.count(letter) for (_, text), letter in zip(last, "ABCDEF", strict=False)] \
        == [BIG] * 6
    assert max(server.sizes) > 9000  # what the budgeted run had to cut


def _shots(provider: str, turns: int) -> list[dict[str, Any]]:
    """A conversation of `turns` screenshot calls, each answered by a line and an image,
    in the provider's own shape (as the conversations in providers.py build them)."""
    png = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                       "data": "iVBORw0KGgo="}}
    url = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    messages: list[dict[str, Any]] = [{"role": "user", "content": "the instruction"}]
    if provider == "openai":
        messages.insert(0, {"role": "system", "content": "the system prompt"})
    for n in range(1, turns + 1):
        line = f"screenshot {n} of the checkout page " + "." * 300
        if provider == "openai":
            messages += [{"role": "assistant", "content": "", "tool_calls": [{
                "id": f"c{n}", "type": "function", "function": {
                    "name": "browser_take_screenshot", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": f"c{n}", "content": line},
                {"role": "user", "content": [{"type": "text", "text": "Screenshot(s)"}, url]}]
        else:
            messages += [{"role": "assistant", "content": [{
                "type": "tool_use", "id": f"t{n}", "name": "browser_take_screenshot",
                "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}",
                                              "content": [{"type": "text", "text": line},
                                                          dict(png)], "is_error": False}]}]
    return messages


def _kept(provider: str, messages: list[dict[str, Any]]) -> tuple[list[bool], list[str]]:
    """Per turn: does its image survive; what text does its tool result say."""
    images, texts = [], []
    for message in messages:
        content = message["content"]
        if provider == "openai":
            if message["role"] == "tool":
                texts.append(content)
            elif message["role"] == "user" and isinstance(content, list):
                images.append(content[1]["type"] == "image_url")
        elif message["role"] == "user" and isinstance(content, list):
            parts = content[0]["content"]
            texts.append(parts[0]["text"])
            images.append(len(parts) > 1 and parts[1]["type"] == "image")
    return images, texts


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_old_screenshots_go_first_then_whole_old_turns(provider: str) -> None:
    from stripebench.harness.agents.context import IMAGE_PLACEHOLDER, ContextBudget

    messages = _shots(provider, 6)  # six images of 1,600 tokens, ~100 tokens of text each
    budget = ContextBudget(10_000, keep_turns=3, keep_images=3)
    assert budget.fit(provider, messages) is not None
    images, texts = _kept(provider, messages)
    # 10,250 estimated -> under 7,500: two of the three old screenshots suffice
    assert images == [False, False, True, True, True, True]
    assert all(text.startswith(f"screenshot {n + 1} ") for n, text in enumerate(texts))
    assert IMAGE_PLACEHOLDER in json.dumps(messages)
    assert budget.fit(provider, messages) is None  # fits now: nothing more to do
    tight = ContextBudget(4_000, keep_turns=3, keep_images=3)
    elided = tight.fit(provider, messages)
    assert elided is not None and elided.images >= 1 and elided.tool_results >= 1
    images, texts = _kept(provider, messages)
    # the last three screenshots are kept while old turns remain; then the oldest turns'
    # results go whole, the latest three turns never
    assert images[-3:] == [True, True, True] and not any(images[:3])
    assert texts[0] == ("[tool output of 334 characters elided to fit the context; call "
                        "the browser tool again (browser_snapshot shows the page now) if "
                        "you need it]")
    assert all(text.startswith(f"screenshot {n + 4} ") for n, text in enumerate(texts[3:]))
    assert messages[0 if provider == "anthropic" else 1]["content"] == "the instruction"


def test_long_arguments_of_old_calls_are_elided_and_calibration_ignores_odd_counts() -> None:
    from stripebench.harness.agents.context import ContextBudget

    big = "x = 1\n" * 2000  # 12,000 characters written to a file
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s"},
                                      {"role": "user", "content": "the instruction"}]
    for n in range(1, 5):
        args = {"path": f"f{n}.py", "file_text": big}
        messages += [{"role": "assistant", "content": "", "tool_calls": [{
            "id": f"c{n}", "type": "function", "function": {
                "name": "create", "arguments": json.dumps(args)}}]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": f"created f{n}.py"}]
    budget = ContextBudget(10_000, keep_turns=3)
    raw = budget.raw(messages)
    budget.calibrate(raw, 1000)  # a dummy count: ignored
    assert budget.scale == 1.0
    budget.calibrate(raw, round(raw * 1.2))  # a tokenizer's difference: taken
    assert budget.scale == pytest.approx(1.2, rel=0.01)
    elided = budget.fit("openai", messages)
    assert elided is not None and (elided.arguments, elided.chars) == (1, len(big))
    first = json.loads(messages[2]["tool_calls"][0]["function"]["arguments"])
    assert first == {"path": "f1.py", "file_text": "[argument of 12,000 characters elided to "
                     "fit the context; the call was made with the full value]"}
    assert messages[3]["content"] == "created f1.py"  # too short to be worth eliding
    assert all(json.loads(m["tool_calls"][0]["function"]["arguments"])["file_text"] == big
               for m in messages[4::2])


def test_the_cli_passes_the_context_budget_to_the_model_agent(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    server = FakeModelServer(CHATTY, rate_limit=False, measure=True)
    out = tmp_path / "run"
    try:
        done = subprocess.run(
            [sys.executable, "-m", "stripebench.cli", "run", "--agent", "openai", "--model",
             "m", "--base-url", f"http://127.0.0.1:{server.port}/v1", "--tasks-dir",
             str(SHOP.path.parent), "--tasks", "fixture-shop", "--sandbox", "local",
             "--allow-unsealed", "--context-budget", "9000", "--out", str(out), "--no-report"],
            capture_output=True, text=True, timeout=180,
            env={k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"})
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "run.json").read_text())["context_budget"] == 9000
    result = json.loads((out / "trials" / "fixture-shop" / "1" / "result.json").read_text())
    assert result["reward"] == 1.0
    assert result["agent_extra"]["context_elided"]["budget"] == 9000
    assert "[tool output of " in json.dumps(server.requests[-1])


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_screenshots_of_the_latest_turns_are_kept(provider: str) -> None:
    from stripebench.harness.agents.context import ContextBudget

    messages = _shots(provider, 6)
    # keep only the last screenshot, but the latest three turns stay whole
    assert ContextBudget(3_000, keep_turns=3, keep_images=1).fit(provider, messages)
    images, texts = _kept(provider, messages)
    assert images == [False, False, False, True, True, True]
    assert all(text.startswith(f"screenshot {n + 4} ") for n, text in enumerate(texts[3:]))
