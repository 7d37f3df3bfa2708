"""A local model server that streams scripted replies in the wire formats the real agent
CLIs speak: Anthropic Messages server-sent events (Claude Code) and the OpenAI Responses
API's streaming events (Codex). No real model: every reply comes from `steps`.

The "agent loop" requests are those that offer tools; each one gets the next step. Side
requests a CLI makes on its own (titles, summaries, quota probes: no tools offered) get a
short text reply and are kept apart in `side_requests`, so a test can assert on both.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from conftest import free_port

# ("tool", name, args): call a tool, by our name ("bash", matched to whatever name the
# client offered it under: "mcp__stripebench__bash", "mcp__stripebench.bash" in a Codex
# namespace) or, if none matches, verbatim ("Bash");
# ("text", words): a plain reply, which ends a turn; ("sleep", seconds): answer that late
# (a model that hangs).
Step = tuple[str, Any, Any]
INPUT_TOKENS = 1000
OUTPUT_TOKENS = 50


class ScriptedModelServer:
    def __init__(self, steps: list[Step]) -> None:
        self.steps = steps
        self.requests: list[dict[str, Any]] = []  # agent-loop requests, in order
        self.side_requests: list[dict[str, Any]] = []
        self.other: list[str] = []  # paths nobody scripted (recorded, answered 404)
        app = Starlette(routes=[
            Route("/v1/messages", self.anthropic, methods=["POST"]),
            Route("/v1/messages/count_tokens", self.count_tokens, methods=["POST"]),
            Route("/v1/responses", self.openai, methods=["POST"]),
            Route("/{rest:path}", self.unknown, methods=["GET", "POST", "HEAD"]),
        ])
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(5)

    # ----------------------------------------------------------------- script

    def _step(self, body: dict[str, Any], offered: list[str]) -> Step | None:
        if not offered:
            self.side_requests.append(body)
            return None
        self.requests.append(body)
        return self.steps[min(len(self.requests) - 1, len(self.steps) - 1)]

    @staticmethod
    def _name(name: str, offered: list[str]) -> str:
        for candidate in offered:
            if candidate == name or candidate.endswith((f"__{name}", f".{name}")):
                return candidate
        return name

    async def unknown(self, request: Request) -> Response:
        self.other.append(f"{request.method} {request.url.path}")
        return JSONResponse({"error": {"message": f"not scripted: {request.url.path}"}}, 404)

    async def count_tokens(self, request: Request) -> Response:
        return JSONResponse({"input_tokens": INPUT_TOKENS})

    # ----------------------------------------------------------------- Anthropic

    async def anthropic(self, request: Request) -> Response:
        body = json.loads(await request.body())
        offered = [str(t.get("name")) for t in body.get("tools") or []]
        step = await _after_sleep(self._step(body, offered))
        n = len(self.requests) + len(self.side_requests)
        if step[0] == "tool":
            block: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{n:02d}",
                                     "name": self._name(step[1], offered), "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(step[2])}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": step[1]}
            stop = "end_turn"
        model = str(body.get("model") or "claude-test")
        message = {"id": f"msg_{n:02d}", "type": "message", "role": "assistant", "model": model,
                   "content": [], "stop_reason": None, "stop_sequence": None,
                   "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": 1}}
        events = [("message_start", {"type": "message_start", "message": message}),
                  ("content_block_start", {"type": "content_block_start", "index": 0,
                                           "content_block": block}),
                  ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                           "delta": delta}),
                  ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                  ("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": OUTPUT_TOKENS}}),
                  ("message_stop", {"type": "message_stop"})]
        if not body.get("stream"):
            done = {**message, "content": [{**block, "input": step[2]} if step[0] == "tool"
                                           else {"type": "text", "text": step[1]}],
                    "stop_reason": stop,
                    "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": OUTPUT_TOKENS}}
            return JSONResponse(done)
        return StreamingResponse(_sse(events), media_type="text/event-stream")

    # ----------------------------------------------------------------- OpenAI Responses

    async def openai(self, request: Request) -> Response:
        body = json.loads(await request.body())
        tools = [*(body.get("tools") or []), *(t for item in body.get("input") or []
                                               if item.get("type") == "additional_tools"
                                               for t in item.get("tools") or [])]
        offered = [name for t in tools for name in _tool_names(t)]
        step = await _after_sleep(self._step(body, offered))
        n = len(self.requests) + len(self.side_requests)
        if step[0] == "tool":
            item: dict[str, Any] = {"type": "function_call", "id": f"fc_{n:02d}",
                                    "call_id": f"call_{n:02d}", "status": "completed",
                                    "name": self._name(step[1], offered),
                                    "arguments": json.dumps(step[2])}
            if "." in item["name"]:  # a tool inside a namespace
                item["namespace"], item["name"] = item["name"].split(".", 1)
        elif step[0] == "custom":  # a freeform tool's input (Codex's `exec` of JavaScript)
            item = {"type": "custom_tool_call", "id": f"ctc_{n:02d}", "call_id": f"call_{n:02d}",
                    "status": "completed", "name": step[1], "input": step[2]}
        else:
            item = {"type": "message", "id": f"msg_{n:02d}", "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": step[1], "annotations": []}]}
        model = str(body.get("model") or "gpt-test")
        response: dict[str, Any] = {"id": f"resp_{n:02d}", "object": "response",
                                    "created_at": 0, "status": "in_progress", "model": model,
                                    "output": []}
        usage = {"input_tokens": INPUT_TOKENS, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": OUTPUT_TOKENS,
                 "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS}
        events = [("response.created", {"type": "response.created", "response": response}),
                  ("response.output_item.added", {"type": "response.output_item.added",
                                                  "output_index": 0, "item": item}),
                  ("response.output_item.done", {"type": "response.output_item.done",
                                                 "output_index": 0, "item": item}),
                  ("response.completed", {"type": "response.completed", "response": {
                      **response, "status": "completed", "output": [item], "usage": usage}})]
        for seq, (_, data) in enumerate(events):
            data["sequence_number"] = seq
        return StreamingResponse(_sse(events), media_type="text/event-stream")


async def _after_sleep(step: Step | None) -> Step:
    if step is None:  # a side request
        return ("text", "ok", None)
    if step[0] == "sleep":
        await anyio.sleep(float(step[1]))
        return ("text", "late", None)
    return step


def _tool_names(tool: dict[str, Any]) -> list[str]:
    """A Responses API tool's callable names: a namespace's tools as `namespace.tool`
    (Codex offers an MCP server's tools so, and expects `namespace` in the call)."""
    if tool.get("type") == "namespace":
        return [f"{tool.get('name')}.{sub.get('name')}" for sub in tool.get("tools") or []]
    return [str(tool.get("name") or tool.get("type"))]


def _sse(events: list[tuple[str, dict[str, Any]]]) -> Iterator[bytes]:
    for kind, data in events:
        yield f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()
