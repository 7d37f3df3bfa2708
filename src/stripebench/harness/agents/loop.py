"""The built-in tool-calling agent: one loop, OpenAI-compatible or Anthropic models."""

from __future__ import annotations

import random
import time
from typing import Any

from ..prompt import system_prompt
from .base import AgentContext, AgentOutcome
from .context import ContextBudget
from .preflight import endpoint, failure_status
from .pricing import cost
from .providers import AnthropicConversation, OpenAIConversation, Reply, retryable

MAX_RETRIES = 8
DEFAULT_CONTEXT_BUDGET = 150_000  # estimated input tokens per model call
NUDGE = ("You stopped without calling a tool. If the task is finished and verified, call "
         "`submit`; otherwise continue working with the tools.")


class ModelAgent:
    def __init__(self, provider: str, model: str, base_url: str | None = None,
                 max_tokens: int | None = None, max_nudges: int = 2,
                 backoff_base: float = 1.0,
                 context_budget: int = DEFAULT_CONTEXT_BUDGET, keep_turns: int = 3,
                 keep_images: int = 3, system_prompt: str | None = None) -> None:
        if provider not in ("openai", "anthropic"):
            raise ValueError(f"unknown provider {provider!r}")
        self.name = provider
        self.model: str | None = model
        self.base_url = base_url
        self.max_tokens = max_tokens
        self.max_nudges = max_nudges
        self.backoff_base = backoff_base
        if context_budget < 0:
            raise ValueError("the context budget is a number of tokens, or 0 for none")
        self.context_budget = context_budget
        self.keep_turns = keep_turns
        self.keep_images = keep_images
        self.system_prompt = system_prompt  # an experiment's own (run --system-prompt...)

    def _conversation(self, ctx: AgentContext) -> Any:
        cls = OpenAIConversation if self.name == "openai" else AnthropicConversation
        system = system_prompt() if self.system_prompt is None else self.system_prompt
        return cls(str(self.model), system, ctx.prompt, ctx.toolbox.specs,
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

    def _fit(self, budget: ContextBudget, conversation: Any, ctx: AgentContext,
             outcome: AgentOutcome) -> None:
        """Elide old tool output if the next request would pass the budget; record it."""
        elided = budget.fit(conversation.provider, conversation.messages,
                            conversation.overhead_chars)
        if elided is None:
            return
        fields = {"tool_results": elided.tool_results, "images": elided.images,
                  "arguments": elided.arguments, "chars": elided.chars}
        ctx.transcript.add("context_elided", turn=outcome.turns + 1, budget=budget.budget,
                           estimated_tokens=[elided.before, elided.after], **fields)
        total = outcome.extra.setdefault("context_elided", {
            "budget": budget.budget, "times": 0, "tool_results": 0, "images": 0,
            "arguments": 0, "chars": 0})
        total["times"] += 1
        for key, value in fields.items():
            total[key] += value

    def run(self, ctx: AgentContext) -> AgentOutcome:
        outcome = AgentOutcome()
        conversation = self._conversation(ctx)
        budget = ContextBudget(self.context_budget, self.keep_turns, self.keep_images) \
            if self.context_budget else None
        nudges = 0
        while True:
            if ctx.time_left() <= 0:
                outcome.status = "timeout"
                break
            if outcome.turns >= ctx.max_turns:
                outcome.status = "turn_limit"
                break
            if budget is not None:
                self._fit(budget, conversation, ctx, outcome)
                sent = budget.raw(conversation.messages, conversation.overhead_chars)
            try:
                reply = self._step(conversation, ctx, outcome)
            except Exception as exc:
                status = failure_status(exc)
                if status is None:
                    raise  # the agent's own failure: agent_error
                # the endpoint's: an error to redo (--resume --retry-errors), not a score
                outcome.status = status
                outcome.error = (f"{endpoint(self.name, self.base_url)}: "
                                 f"{type(exc).__name__}: {exc}")[:1000]
                break
            if budget is not None:
                budget.calibrate(sent, reply.input_tokens)
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
