"""Conversations with tool-calling models through the official SDKs.

Each provider keeps the conversation in its own API's native shape, so nothing is lost in
translation: `step()` sends it and returns the reply's text, tool calls and token usage;
`add_results()` appends tool results (screenshots included as images).
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass, field
from typing import Any

from ..tools.base import ToolResult, ToolSpec


@dataclass
class ToolCall:
    id: str
    name: str
    args: dict[str, Any]


@dataclass
class Reply:
    text: str
    calls: list[ToolCall] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    stop_reason: str = ""


def _png(data: bytes) -> str:
    return base64.b64encode(data).decode()


class OpenAIConversation:
    """Chat Completions with function tools: OpenAI, vLLM, Ollama, any compatible server."""

    provider = "openai"

    def __init__(self, model: str, system: str, prompt: str, tools: list[ToolSpec],
                 base_url: str | None = None, max_tokens: int | None = None) -> None:
        # each provider's SDK is slow to import: only the one the agent uses
        import openai

        # Local servers (Ollama, vLLM) take no key, but the SDK insists on one.
        key = os.environ.get("OPENAI_API_KEY") or ("unused" if base_url else None)
        self.client = openai.OpenAI(api_key=key, base_url=base_url, max_retries=0,
                                    timeout=600)
        self.model = model
        self.max_tokens = max_tokens
        self.tools = [{"type": "function", "function": {
            "name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in tools]
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system},
                                               {"role": "user", "content": prompt}]
        self.overhead_chars = len(json.dumps(self.tools))  # sent with every request

    def step(self) -> Reply:
        kwargs: dict[str, Any] = {}
        if self.max_tokens:
            kwargs["max_completion_tokens"] = self.max_tokens
        response = self.client.chat.completions.create(
            model=self.model, messages=self.messages, tools=self.tools,  # type: ignore[arg-type]
            **kwargs)
        message = response.choices[0].message
        calls = []
        for call in message.tool_calls or []:
            function = getattr(call, "function", None)
            if function is None:
                continue
            try:
                args = json.loads(function.arguments or "{}")
            except json.JSONDecodeError:
                args = {"_unparsed": function.arguments}
            calls.append(ToolCall(call.id, function.name, args if isinstance(args, dict)
                                  else {"_value": args}))
        entry: dict[str, Any] = {"role": "assistant", "content": message.content or ""}
        if calls:
            entry["tool_calls"] = [{"id": c.id, "type": "function", "function": {
                "name": c.name, "arguments": json.dumps(c.args)}} for c in calls]
        self.messages.append(entry)
        usage = response.usage
        return Reply(message.content or "", calls,
                     usage.prompt_tokens if usage else 0,
                     usage.completion_tokens if usage else 0,
                     response.choices[0].finish_reason or "")

    def add_results(self, results: list[tuple[ToolCall, ToolResult]]) -> None:
        images: list[dict[str, Any]] = []
        for call, result in results:
            text = ("ERROR: " if result.is_error else "") + result.text
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
            for png in result.images:
                images.append({"type": "image_url",
                               "image_url": {"url": f"data:image/png;base64,{_png(png)}"}})
        if images:  # tool messages carry text only; images follow as a user message
            self.messages.append({"role": "user", "content": [
                {"type": "text", "text": "Screenshot(s) returned by the tool calls above."},
                *images]})

    def nudge(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})


class AnthropicConversation:
    """The Messages API with tools."""

    provider = "anthropic"

    def __init__(self, model: str, system: str, prompt: str, tools: list[ToolSpec],
                 base_url: str | None = None, max_tokens: int | None = None) -> None:
        # each provider's SDK is slow to import: only the one the agent uses
        import anthropic

        key = os.environ.get("ANTHROPIC_API_KEY") or ("unused" if base_url else None)
        self.client = anthropic.Anthropic(api_key=key, base_url=base_url, max_retries=0,
                                          timeout=600)
        self.model = model
        self.system = system
        self.max_tokens = max_tokens or 8192
        self.tools = [{"name": t.name, "description": t.description,
                       "input_schema": t.parameters} for t in tools]
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        self.overhead_chars = len(system) + len(json.dumps(self.tools))

    def step(self) -> Reply:
        response = self.client.messages.create(
            model=self.model, system=self.system, messages=self.messages,  # type: ignore[arg-type]
            tools=self.tools, max_tokens=self.max_tokens)  # type: ignore[arg-type]
        blocks: list[dict[str, Any]] = []
        texts, calls = [], []
        for block in response.content:
            if block.type == "text":
                texts.append(block.text)
                blocks.append({"type": "text", "text": block.text})
            elif block.type == "tool_use":
                args = block.input if isinstance(block.input, dict) else {}
                calls.append(ToolCall(block.id, block.name, args))
                blocks.append({"type": "tool_use", "id": block.id, "name": block.name,
                               "input": args})
        self.messages.append({"role": "assistant", "content": blocks or
                              [{"type": "text", "text": "(no reply)"}]})
        usage = response.usage
        tokens_in = usage.input_tokens + (getattr(usage, "cache_read_input_tokens", 0) or 0) \
            + (getattr(usage, "cache_creation_input_tokens", 0) or 0)
        return Reply("\n".join(texts), calls, tokens_in, usage.output_tokens,
                     response.stop_reason or "")

    def add_results(self, results: list[tuple[ToolCall, ToolResult]]) -> None:
        content = []
        for call, result in results:
            parts: list[dict[str, Any]] = [{"type": "text", "text": result.text or "(empty)"}]
            parts += [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                   "data": _png(png)}} for png in result.images]
            content.append({"type": "tool_result", "tool_use_id": call.id, "content": parts,
                            "is_error": result.is_error})
        self.messages.append({"role": "user", "content": content})

    def nudge(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})


def retryable(exc: Exception) -> bool:
    """Transient API failures: connection problems, timeouts, rate limits, overload, 5xx."""
    name = type(exc).__name__
    if name in ("APIConnectionError", "APITimeoutError", "RateLimitError",
                "InternalServerError", "OverloadedError", "ServiceUnavailableError"):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in (408, 409, 429) or status >= 500)
