"""Keeping a long conversation inside a context budget.

Before each model call the built-in loop estimates the size of the request (messages,
system prompt, tool schemas) in tokens. When the estimate passes the budget, the oldest
material is replaced in place by short placeholders until the estimate is back under
`TARGET` of the budget (so elision happens in occasional batches, and the request prefix
stays stable between them, which keeps providers' prompt caches useful):

1. screenshots older than the last `keep_images`, oldest first (outside the latest turns);
2. then, turn by turn from the oldest, tool results (text and any images left) and long
   string arguments of tool calls (a file written with `create`, say).

Never touched: the system prompt, the instruction, the model's own words, and the latest
`keep_turns` turns (a turn is one assistant message and the tool results that answer it).
Messages are edited, never removed, so every tool call keeps its result right after it
(OpenAI `tool` messages after their assistant `tool_calls`; Anthropic `tool_result` blocks
after their `tool_use`).

The estimate is characters / 4 plus a flat `IMAGE_TOKENS` per image, scaled by the ratio
of the provider's reported input tokens to the estimate of the request that produced them
(calibrated after every reply that reports a plausible usage).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1_600  # about what a 1280x720 screenshot costs on either API
MIN_SCALE, MAX_SCALE = 0.5, 3.0  # plausible reported/estimated token ratios
TARGET = 0.75  # elide down to this share of the budget
MIN_RESULT_CHARS = 200  # shorter tool results are not worth a placeholder
MIN_ARGUMENT_CHARS = 1_000
PREFIX = "[tool output of "
IMAGE_PLACEHOLDER = ("[screenshot elided to fit the context; take a new screenshot if you "
                     "need it]")
HINTS = {
    "bash": "re-run the command if you need it",
    "view": "view the file again if you need it",
    "search_stripe_documentation": "search again if you need it",
    "browser_snapshot": "take a new snapshot if you need it",
}


def result_placeholder(chars: int, tool: str | None) -> str:
    hint = HINTS.get(tool or "") or ("call the browser tool again (browser_snapshot shows "
                                     "the page now) if you need it"
                                     if (tool or "").startswith("browser_")
                                     else "call the tool again if you need it")
    return f"{PREFIX}{chars:,} characters elided to fit the context; {hint}]"


def argument_placeholder(chars: int) -> str:
    return (f"[argument of {chars:,} characters elided to fit the context; the call was "
            "made with the full value]")


def _is_image(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in ("image", "image_url")


def measure(value: Any) -> tuple[int, int]:
    """(characters, images) in a JSON-like value; image payloads count as images only."""
    if isinstance(value, str):
        return len(value), 0
    if isinstance(value, dict):
        if _is_image(value):
            return 0, 1
        chars = images = 0
        for key, item in value.items():
            c, i = measure(item)
            chars, images = chars + len(key) + c, images + i
        return chars, images
    if isinstance(value, list):
        chars = images = 0
        for item in value:
            c, i = measure(item)
            chars, images = chars + c, images + i
        return chars, images
    return len(str(value)), 0


def raw_tokens(value: Any, extra_chars: int = 0) -> int:
    chars, images = measure(value)
    return (chars + extra_chars) // CHARS_PER_TOKEN + images * IMAGE_TOKENS


@dataclass
class Elision:
    """What one `fit` elided."""

    before: int = 0  # estimated tokens
    after: int = 0
    tool_results: int = 0
    images: int = 0
    arguments: int = 0
    chars: int = 0  # characters of text replaced (images not included)

    @property
    def count(self) -> int:
        return self.tool_results + self.images + self.arguments


@dataclass
class _Slot:
    """One thing that can be elided: `target[key]` in the conversation's messages."""

    turn: int
    kind: str  # image | result | arguments
    target: Any
    key: Any
    tool: str | None = None


class ContextBudget:
    def __init__(self, budget: int, keep_turns: int = 3, keep_images: int = 3) -> None:
        if budget <= 0:
            raise ValueError("a context budget must be positive (0 disables it elsewhere)")
        self.budget = budget
        self.keep_turns = max(1, keep_turns)
        self.keep_images = max(0, keep_images)
        self.scale = 1.0

    # ------------------------------------------------------------------ estimate

    def raw(self, messages: list[dict[str, Any]], overhead_chars: int = 0) -> int:
        return raw_tokens(messages, overhead_chars)

    def estimate(self, messages: list[dict[str, Any]], overhead_chars: int = 0) -> int:
        return round(self.raw(messages, overhead_chars) * self.scale)

    def calibrate(self, raw: int, reported: int) -> None:
        """Scale estimates by what the provider counted for a request estimated at `raw`.

        A ratio far from 1 is not a tokenizer's difference but a count of something else
        (a local server counting only the prompt tokens it did not have cached, a fixed
        dummy number): such replies leave the scale as it was."""
        if raw > 0 and reported > 0 and MIN_SCALE <= reported / raw <= MAX_SCALE:
            self.scale = reported / raw

    # ------------------------------------------------------------------ elide

    def fit(self, provider: str, messages: list[dict[str, Any]],
            overhead_chars: int = 0) -> Elision | None:
        """Elide in place until the estimate is under TARGET of the budget; None if the
        conversation already fits."""
        raw = self.raw(messages, overhead_chars)
        if raw * self.scale <= self.budget:
            return None
        goal = self.budget * TARGET / self.scale
        slots, turns = (_openai_slots if provider == "openai" else _anthropic_slots)(messages)
        done = Elision(before=round(raw * self.scale))
        recent = turns - self.keep_turns  # later turns are kept whole
        images = [s for s in slots if s.kind == "image"]
        old_images = [s for s in images[:max(0, len(images) - self.keep_images)]
                      if s.turn <= recent]
        # then whole turns, oldest first: arguments, results, any screenshots left
        order = {"arguments": 0, "result": 1, "image": 2}
        old = {id(s) for s in old_images}
        rest = sorted((s for s in slots if s.turn <= recent and id(s) not in old),
                      key=lambda s: (s.turn, order[s.kind]))
        for slot in [*old_images, *rest]:
            if raw <= goal:
                break
            raw -= _elide(provider, slot, done)
        done.after = round(raw * self.scale)
        return done if done.count else None


def _tool_names(message: dict[str, Any], provider: str) -> dict[str, str]:
    if provider == "openai":
        return {c["id"]: c["function"]["name"] for c in message.get("tool_calls") or []}
    return {b["id"]: b["name"] for b in message.get("content") or []
            if isinstance(b, dict) and b.get("type") == "tool_use"}


def _openai_slots(messages: list[dict[str, Any]]) -> tuple[list[_Slot], int]:
    slots: list[_Slot] = []
    turn, names = 0, {}
    for message in messages[2:]:  # system prompt and instruction stay
        role = message.get("role")
        if role == "assistant":
            turn += 1
            names = _tool_names(message, "openai")
            for call in message.get("tool_calls") or []:
                slots.append(_Slot(turn, "arguments", call["function"], "arguments"))
        elif role == "tool":
            slots.append(_Slot(turn, "result", message, "content",
                               names.get(message.get("tool_call_id", ""))))
        elif role == "user" and isinstance(message.get("content"), list):
            for i, part in enumerate(message["content"]):
                if _is_image(part):
                    slots.append(_Slot(turn, "image", message["content"], i))
    return slots, turn


def _anthropic_slots(messages: list[dict[str, Any]]) -> tuple[list[_Slot], int]:
    slots: list[_Slot] = []
    turn, names = 0, {}
    for message in messages[1:]:  # the instruction stays
        content = message.get("content")
        if not isinstance(content, list):
            continue
        if message.get("role") == "assistant":
            turn += 1
            names = _tool_names(message, "anthropic")
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    slots.append(_Slot(turn, "arguments", block, "input"))
            continue
        for block in content:
            if not (isinstance(block, dict) and block.get("type") == "tool_result"):
                continue
            parts = block.get("content")
            if isinstance(parts, list):
                for i, part in enumerate(parts):
                    if _is_image(part):
                        slots.append(_Slot(turn, "image", parts, i))
            slots.append(_Slot(turn, "result", block, "content",
                               names.get(block.get("tool_use_id", ""))))
    return slots, turn


def _elide(provider: str, slot: _Slot, done: Elision) -> int:
    """Elide one slot; the estimated raw tokens saved."""
    before = raw_tokens(slot.target)
    if slot.kind == "image":
        if slot.key >= len(slot.target) or not _is_image(slot.target[slot.key]):
            return 0  # gone with its whole tool result
        slot.target[slot.key] = {"type": "text", "text": IMAGE_PLACEHOLDER}
        done.images += 1
    elif slot.kind == "result":
        value = slot.target[slot.key]
        parts = [{"type": "text", "text": value}] if isinstance(value, str) else value
        texts = [p.get("text", "") for p in parts
                 if isinstance(p, dict) and p.get("type") == "text"]
        if texts and texts[0].removeprefix("ERROR: ").startswith(PREFIX):
            return 0  # elided before
        images = sum(1 for p in parts if _is_image(p))
        chars = sum(len(t) for t in texts if t != IMAGE_PLACEHOLDER)
        if chars < MIN_RESULT_CHARS and not images:
            return 0
        text = result_placeholder(chars, slot.tool)
        if isinstance(value, str):
            slot.target[slot.key] = ("ERROR: " if value.startswith("ERROR: ") else "") + text
        else:
            value[:] = [{"type": "text", "text": text}]  # in place: image slots see it
        done.tool_results += 1
        done.images += images
        done.chars += chars
    else:
        args = slot.target[slot.key]
        if provider == "openai":
            try:
                args = json.loads(args)
            except (TypeError, json.JSONDecodeError):
                return 0
        if not isinstance(args, dict):
            return 0
        changed = False
        for name, value in args.items():
            if isinstance(value, str) and len(value) >= MIN_ARGUMENT_CHARS:
                args[name] = argument_placeholder(len(value))
                done.arguments += 1
                done.chars += len(value)
                changed = True
        if not changed:
            return 0
        slot.target[slot.key] = json.dumps(args) if provider == "openai" else args
    return before - raw_tokens(slot.target)
