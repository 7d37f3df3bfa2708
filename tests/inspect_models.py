"""A scripted Inspect model for the Inspect integration's tests, registered with Inspect's
`@modelapi` as `stripebench-scripted/<name>`: it replays tool calls (`script`: [[tool,
arguments], ...]) one per reply, then answers in text, and records the tool names it was
offered. Deterministic and local: no provider, no network."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo


class ScriptedModel(ModelAPI):
    offered: list[list[str]] = []

    def __init__(self, model_name: str, base_url: str | None = None,
                 api_key: str | None = None, config: GenerateConfig = GenerateConfig(),
                 **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.script: list[list[Any]] = list(model_args.get("script", []))

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo],
                       tool_choice: ToolChoice, config: GenerateConfig) -> ModelOutput:
        ScriptedModel.offered.append([t.name for t in tools])
        replies = sum(1 for m in input if m.role == "assistant")
        if replies < len(self.script):
            name, arguments = self.script[replies]
            output = ModelOutput.for_tool_call("scripted", name, arguments)
        else:
            output = ModelOutput.from_content("scripted", "Done.")
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return output


@modelapi(name="stripebench-scripted")
def scripted_provider() -> type[ModelAPI]:
    return ScriptedModel
