"""Tool results and specs, independent of any model API or transport."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ToolResult:
    text: str
    images: list[bytes] = field(default_factory=list)  # PNG bytes
    is_error: bool = False
    done: bool = False  # the agent declared the task finished (submit)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]  # JSON Schema of the arguments


def schema(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or [],
            "additionalProperties": False}


def string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def integer(description: str) -> dict[str, Any]:
    return {"type": "integer", "description": description}
