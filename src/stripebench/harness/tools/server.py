"""`stripebench mcp`: the Toolbox served over MCP (stdio or streamable HTTP).

An external agent (goose, Claude Code, Codex) is configured with this server; given a
trial's mcp.json it works in that trial's workdir with that trial's keys and writes every
call into the trial's transcript, exactly like the built-in agents.
"""

from __future__ import annotations

import base64
import json
import os
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import Server

from ..sandbox import make_sandbox
from ..transcript import Transcript
from .browser import launch_options
from .toolbox import Toolbox


def toolbox_from_config(config: Path | None, workdir: Path,
                        emulator: str | None = None) -> Toolbox:
    if config is None:
        # Standalone (any MCP client on the user's own project): with an emulator, the
        # browser reaches it by Stripe's host names and commands get its address and the
        # caller's Stripe keys (a local sandbox keeps *KEY* variables out otherwise).
        env = {}
        if emulator:
            env = {"STRIPE_API_BASE": emulator, "STRIPE_BASE_URL": emulator}
            env |= {k: os.environ[k] for k in ("STRIPE_SECRET_KEY", "STRIPE_PUBLISHABLE_KEY")
                    if os.environ.get(k)}
        sandbox = make_sandbox("local", workdir, env)
        return Toolbox(sandbox, browser_launch=_launch(sandbox, emulator) if emulator
                       else None)
    data = json.loads(Path(config).read_text())
    sandbox = _join(data.get("attach")) or make_sandbox(
        data.get("sandbox", "local"), Path(data["workdir"]), data.get("env") or {})
    deadline = None
    if data.get("deadline_unix"):
        deadline = time.monotonic() + float(data["deadline_unix"]) - time.time()
    emulator = (data.get("env") or {}).get("STRIPE_API_BASE")
    return Toolbox(sandbox, Transcript(Path(data["transcript"]) if data.get("transcript")
                                       else None),
                   browser_launch=_launch(sandbox, emulator), deadline=deadline,
                   tools=data.get("tools"), docs_index=data.get("docs_index"))


def _join(info: dict[str, Any] | None) -> Any:
    """The trial's own bubblewrap sandbox, while it runs (same loopback as its
    services); None when there is none to join (then a sandbox of our own)."""
    if not info:
        return None
    from ...routing.attach import AttachedSandbox
    from ..sandbox import SandboxError

    try:
        return AttachedSandbox(info)
    except SandboxError:
        return None


def _launch(sandbox: Any, emulator_url: str | None) -> dict[str, Any] | None:
    try:
        return launch_options(sandbox, emulator_url)
    except Exception:  # noqa: BLE001 - no certificates yet etc.: plain Chromium
        return None


def client_call_id(meta: Any) -> str | None:
    """The id the MCP client gave this call in the model's conversation, so our transcript
    entry matches the CLI's own record: Claude Code sends `claudecode/toolUseId`, Codex
    `callId` (both in the request's `_meta`)."""
    if not isinstance(meta, dict):
        meta = getattr(meta, "model_extra", None) or {}
    for key in ("claudecode/toolUseId", "callId", "toolUseId", "tool_call_id"):
        if isinstance(meta.get(key), str) and meta[key]:
            return str(meta[key])
    return None


def build_server(toolbox: Toolbox) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=s.name, title=s.title, description=s.description,
                       input_schema=s.parameters,
                       annotations=types.ToolAnnotations(
                           title=s.title, read_only_hint=s.hints.read_only,
                           destructive_hint=s.hints.destructive,
                           idempotent_hint=s.hints.idempotent,
                           open_world_hint=s.hints.open_world))
            for s in toolbox.specs])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        result = await anyio.to_thread.run_sync(toolbox.call, params.name,
                                                dict(params.arguments or {}),
                                                client_call_id(params.meta))
        content: list[Any] = [types.TextContent(type="text", text=result.text)]
        content += [types.ImageContent(type="image", data=base64.b64encode(png).decode(),
                                       mime_type="image/png") for png in result.images]
        return types.CallToolResult(content=content, is_error=result.is_error)

    return Server("stripebench", version="0.1.0",
                  instructions="Tools for one stripebench trial: bash and files in the "
                               "working directory, a browser, Stripe documentation search.",
                  on_list_tools=list_tools, on_call_tool=call_tool)


def serve(config: Path | None, workdir: Path, transport: str = "stdio",
          host: str = "127.0.0.1", port: int = 8765, emulator: str | None = None) -> None:
    toolbox = toolbox_from_config(config, workdir, emulator)
    server = build_server(toolbox)
    try:
        if transport == "stdio":
            from mcp.server.stdio import stdio_server

            async def main() -> None:
                async with stdio_server() as (read, write):
                    await server.run(read, write, server.create_initialization_options())

            anyio.run(main)
        else:
            import uvicorn

            app = server.streamable_http_app(host=host)
            uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        toolbox.close()
        toolbox.sandbox.stop()
