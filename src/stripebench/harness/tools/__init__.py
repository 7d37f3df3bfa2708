"""The agent's tools: one `Toolbox` used in-process by the built-in agents and served over
MCP (`stripebench mcp`) to external ones, so every agent gets exactly the same tools."""

from .base import ToolResult, ToolSpec
from .toolbox import Toolbox

__all__ = ["ToolResult", "ToolSpec", "Toolbox"]
