"""The built-in tool-calling agent: one loop, OpenAI-compatible or Anthropic models."""

from __future__ import annotations

import random
import time
from typing import Any

from ..prompt import system_prompt
from .base import AgentContext, AgentOutcome
from .pricing import cost
from .providers import AnthropicConversation, OpenAIConversation, Reply, retryable

MAX_RETRIES = 8
NUDGE = ("You stopped without calling a tool. If the task is finished and verified, call "
         "`submit`; otherwise continue working with the tools.")


class ModelAgent:
    def __init__(self, provider: str, model: str, base_url: str | None = None,
                 max_tokens: int | None = None, max_nudges: int = 2,
                 backoff_base: float = 1.0) -> None:
        if provider not in ("openai", "anthropic"):
            raise ValueError(f"unknown provider {provider!r}")
        self.name = provider
        self.model: str | None = model
        self.base_url = base_url
        self.max_tokens = max_tokens
        self.max_nudges = max_nudges
        self.backoff_base = backoff_base

    def _conversation(self, ctx: AgentContext) -> Any:
        cls = OpenAIConversation if self.name == "openai" else AnthropicConversation
        return cls(str(self.model), system_prompt(), ctx.prompt, ctx.toolbox.specs,
                   base_url=self.base_url, max_tokens=self.max_tokens)

    def _step(self, conversation: Any, ctx: AgentContext, outcome: AgentOutcome) -> Reply:
        """One model call, retried with exponential backoff and jitter on transient errors."""
        for attempt in range(MAX_RETRIES + 1):
            try:
                reply: Reply = conversation.step()
                return reply
            except Exception as exc:
                if not retryable(exc) or attempt == MAX_RETRIES:
                    raise
                wait = min(60.0, self.backoff_base * 2 ** attempt) * (0.5 + random.random())
                if ctx.time_left() < wait:
                    raise
                outcome.extra["retries"] = outcome.extra.get("retries", 0) + 1
                ctx.transcript.add("retry", error=f"{type(exc).__name__}: {exc}"[:500],
                                   wait=round(wait, 2))
                time.sleep(wait)
        raise AssertionError("unreachable")

    def run(self, ctx: AgentContext) -> AgentOutcome:
        outcome = AgentOutcome()
        conversation = self._conversation(ctx)
        nudges = 0
        while True:
            if ctx.time_left() <= 0:
                outcome.status = "timeout"
                break
            if outcome.turns >= ctx.max_turns:
                outcome.status = "turn_limit"
                break
            reply = self._step(conversation, ctx, outcome)
            outcome.turns += 1
            outcome.input_tokens += reply.input_tokens
            outcome.output_tokens += reply.output_tokens
            ctx.transcript.add("message", role="assistant", text=reply.text, turn=outcome.turns,
                               tokens=[reply.input_tokens, reply.output_tokens],
                               stop=reply.stop_reason)
            if not reply.calls:
                if nudges >= self.max_nudges:
                    break  # the model is done talking: a normal end
                nudges += 1
                conversation.nudge(NUDGE)
                ctx.transcript.add("message", role="user", text=NUDGE)
                continue
            results = [(call, ctx.toolbox.call(call.name, call.args, call_id=call.id))
                       for call in reply.calls]
            conversation.add_results(results)
            if any(result.done for _, result in results):
                break
        outcome.cost_usd = cost(str(self.model), outcome.input_tokens, outcome.output_tokens)
        return outcome
