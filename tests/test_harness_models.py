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
from stripebench.harness.agents import make_agent
from stripebench.harness.emulator import Emulator
from stripebench.harness.runner import RunPlan, execute
from stripebench.harness.task import load_task

SHOP = load_task(Path(__file__).parent / "fixtures" / "tasks" / "fixture-shop")
SOLVE = ('curl -sf "$STRIPE_API_BASE/v1/customers" -u "$STRIPE_SECRET_KEY:" '
         '-d email=ada@example.com -d "name=Ada Lovelace" | python3 -c '
         '\'import json,sys; print(json.load(sys.stdin)["id"], end="")\' > customer.txt')
# each step: ("tool", name, args) or ("text", words)
STEPS: list[tuple[str, Any, Any]] = [("tool", "bash", {"command": SOLVE}),
                                     ("text", "All done, I think.", None),
                                     ("tool", "submit", {"summary": "created Ada"})]


class FakeModelServer:
    """Answers OpenAI chat completions and Anthropic messages from STEPS; 429 first."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.rate_limited = False
        app = Starlette(routes=[Route("/v1/chat/completions", self.openai, methods=["POST"]),
                                Route("/v1/messages", self.anthropic, methods=["POST"])])
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)

    def _next(self, body: dict[str, Any]) -> tuple[str, Any, Any] | None:
        if not self.rate_limited:
            self.rate_limited = True
            return None
        self.requests.append(body)
        return STEPS[min(len(self.requests) - 1, len(STEPS) - 1)]

    async def openai(self, request: Request) -> JSONResponse:
        step = self._next(await request.json())
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
                             "usage": {"prompt_tokens": 1000, "completion_tokens": 100,
                                       "total_tokens": 1100}})

    async def anthropic(self, request: Request) -> JSONResponse:
        step = self._next(await request.json())
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
                             "usage": {"input_tokens": 1000, "output_tokens": 100}})

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
