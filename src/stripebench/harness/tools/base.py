"""Tool results and specs, independent of any model API or transport."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ToolResult:
    text: str
    images: list[bytes] = field(default_factory=list)  # PNG bytes
    is_error: bool = False
    done: bool = False  # the agent declared the task finished (submit)


@dataclass(frozen=True)
class Hints:
    """MCP tool annotations: what a client may assume before calling the tool (Codex and
    Claude Code decide approvals and parallelism from them)."""

    read_only: bool = False
    destructive: bool = False  # may overwrite or delete (only meaningful if not read-only)
    idempotent: bool = False  # calling twice with the same arguments does no more
    open_world: bool = False  # reaches beyond the working directory (network, web pages)

    def as_mcp(self) -> dict[str, bool]:
        return {"readOnlyHint": self.read_only, "destructiveHint": self.destructive,
                "idempotentHint": self.idempotent, "openWorldHint": self.open_world}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]  # JSON Schema of the arguments
    hints: Hints = Hints()

    @property
    def title(self) -> str:
        return self.name.replace("_", " ").capitalize()


def schema(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or [],
            "additionalProperties": False}


# Longest arguments the tools take (bytes of UTF-8 text, checked before any use): a path
# is never longer than Linux allows, a search query or an element ref is short, a file's
# content may be as big as the file tools read back (sandbox.READ_LIMIT).
PATH_LENGTH = 4096
SHORT_TEXT = 2000
LONG_TEXT = 1_000_000
FILE_TEXT = 16 * 1024 * 1024


def string(description: str, max_length: int = SHORT_TEXT) -> dict[str, Any]:
    return {"type": "string", "description": description, "maxLength": max_length}


def integer(description: str, minimum: int = -1_000_000_000,
            maximum: int = 1_000_000_000) -> dict[str, Any]:
    return {"type": "integer", "description": description, "minimum": minimum,
            "maximum": maximum}


def number(description: str, minimum: float, maximum: float) -> dict[str, Any]:
    return {"type": "number", "description": description, "minimum": minimum,
            "maximum": maximum}


class ArgumentError(ValueError):
    """Arguments that do not match a tool's input schema."""


_TYPES = {"string": "a string", "integer": "an integer", "number": "a number",
          "boolean": "true or false", "array": "an array", "object": "an object"}


def check_arguments(spec: ToolSpec, args: dict[str, Any]) -> None:
    """Enforce the input schema we advertise (the subset our specs use): required and
    unknown arguments, types, enums, array items, nested objects. Raises ArgumentError
    naming the argument, so the model can correct its call."""
    _check_object(spec.parameters, args, "", spec.name)


def _check_object(schema_: dict[str, Any], value: dict[str, Any], path: str,
                  tool: str) -> None:
    properties: dict[str, Any] = schema_.get("properties") or {}
    for name in schema_.get("required") or []:
        if value.get(name) is None:
            raise ArgumentError(f"missing required argument {path + name!r}")
    if schema_.get("additionalProperties") is False:
        extra = sorted(set(value) - set(properties))
        if extra:
            takes = ", ".join(properties) or "no arguments"
            raise ArgumentError(f"unknown argument {path + extra[0]!r} ({tool} takes: "
                                f"{takes})")
    for name, item in value.items():
        if name in properties and item is not None:
            _check_value(properties[name], item, path + name, tool)


def _check_value(schema_: dict[str, Any], value: Any, path: str, tool: str) -> None:
    kinds = schema_.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if not any(_is(kind, value) for kind in kinds):
        names = [_TYPES.get(str(kind), str(kind)) for kind in kinds]
        wanted = names[0] if len(names) == 1 else f"{', '.join(names[:-1])}, or {names[-1]}"
        raise ArgumentError(f"argument {path!r} must be {wanted}, not {_shown(value)}")
    kind = kinds[0] if len(kinds) == 1 else None
    if isinstance(value, str):
        if "maxLength" in schema_ and len(value.encode("utf-8", "surrogatepass")) > \
                schema_["maxLength"]:
            raise ArgumentError(f"argument {path!r} is too long ({len(value):,} characters; "
                                f"at most {schema_['maxLength']:,} bytes)")
        if "\0" in value and schema_.get("maxLength", FILE_TEXT) <= PATH_LENGTH:
            raise ArgumentError(f"argument {path!r} contains a NUL character")
    if _is("number", value):
        if "minimum" in schema_ and value < schema_["minimum"] or \
                "maximum" in schema_ and value > schema_["maximum"]:
            raise ArgumentError(f"argument {path!r} must be between {schema_['minimum']:g} "
                                f"and {schema_['maximum']:g}, not {_shown(value)}")
    if isinstance(value, list) and "maxItems" in schema_ and len(value) > schema_["maxItems"]:
        raise ArgumentError(f"argument {path!r} has {len(value)} items; at most "
                            f"{schema_['maxItems']}")
    if "enum" in schema_ and value not in schema_["enum"]:
        raise ArgumentError(f"argument {path!r} must be one of "
                            f"{', '.join(map(str, schema_['enum']))}, not {_shown(value)}")
    if kind == "array" and isinstance(schema_.get("items"), dict):
        for n, item in enumerate(value):
            _check_value(schema_["items"], item, f"{path}[{n}]", tool)
    if kind == "object":
        _check_object(schema_, value, f"{path}.", tool)


def _is(kind: Any, value: Any) -> bool:
    return {"string": isinstance(value, str),
            "integer": (isinstance(value, int) and not isinstance(value, bool)) or (
                isinstance(value, float) and value.is_integer()),
            # NaN and the infinities are no numbers a tool can use (a NaN timeout never
            # expires); JSON has none, but Python's json reads them
            "number": isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value),
            "boolean": isinstance(value, bool),
            "array": isinstance(value, list),
            "object": isinstance(value, dict)}.get(str(kind), True)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
