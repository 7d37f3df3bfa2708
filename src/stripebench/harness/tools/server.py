"""`stripebench mcp`: the Toolbox served over MCP (stdio or streamable HTTP).

An external agent (goose, Claude Code, Codex) is configured with this server; given a
trial's mcp.json it works in that trial's workdir with that trial's keys and writes every
call into the trial's transcript, exactly like the built-in agents.

Standalone (`--workdir`, any MCP client on the user's own project) its commands run in a
bubblewrap sandbox like a trial's unless `--no-sandbox` says otherwise, and the HTTP
transport answers only requests bearing its token (`Authorization: Bearer ...`): a tool
that runs shell commands must not be open to whatever else reaches the port.
"""

from __future__ import annotations

import base64
import hmac
import json
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import Server

from ...routing.attach import AttachedSandbox
from ...rundir.transcript import Transcript
from ..sandbox import SandboxError, bwrap_available, make_sandbox
from .browser import launch_options
from .toolbox import Toolbox


def toolbox_from_config(config: Path | None, workdir: Path,
                        emulator: str | None = None, sandboxed: bool = True) -> Toolbox:
    if config is None:
        # Standalone (any MCP client on the user's own project): with an emulator, the
        # browser reaches it by Stripe's host names and commands get its address and the
        # caller's Stripe keys (a local sandbox keeps *KEY* variables out otherwise).
        env = {}
        if emulator:
            env = {"STRIPE_API_BASE": emulator, "STRIPE_BASE_URL": emulator}
            env |= {k: os.environ[k] for k in ("STRIPE_SECRET_KEY", "STRIPE_PUBLISHABLE_KEY")
                    if os.environ.get(k)}
        if sandboxed and not bwrap_available():
            raise SandboxError("bubblewrap cannot create namespaces here, so the tools "
                               "cannot be sandboxed; pass --no-sandbox to let their "
                               "commands run directly on this machine")
        # bubblewrap: the workdir read-write, the system read-only, loopback only (with
        # an emulator, Stripe's host names routed to it), like a trial's sandbox
        sandbox = make_sandbox("bwrap" if sandboxed else "local", workdir, env,
                               emulator_url=emulator)
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


class BearerAuth:
    """ASGI wrapper: every HTTP request needs `Authorization: Bearer <token>`, else 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = next((v for k, v in scope["headers"] if k.lower() == b"authorization"), b"")
            if not hmac.compare_digest(given, self.expected):
                body = json.dumps({"error": "unauthorized", "message": "this MCP server needs "
                                   "'Authorization: Bearer <token>' (printed by `stripebench "
                                   "mcp` at start, or given with --token)"}).encode()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="stripebench"'),
                    (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def serve(config: Path | None, workdir: Path, transport: str = "stdio",
          host: str = "127.0.0.1", port: int = 8765, emulator: str | None = None,
          sandboxed: bool = True, token: str | None = None) -> None:
    toolbox = toolbox_from_config(config, workdir, emulator, sandboxed)
    server = build_server(toolbox)
    try:
        if transport == "stdio":
            # only the chosen transport's server is loaded
            from mcp.server.stdio import stdio_server

            async def main() -> None:
                async with stdio_server() as (read, write):
                    await server.run(read, write, server.create_initialization_options())

            anyio.run(main)
        else:
            # only the chosen transport's server is loaded
            import uvicorn

            if not token:
                token = secrets.token_urlsafe(32)
                print(f"stripebench mcp: serving http://{host}:{port}/mcp; clients must send "
                      f"'Authorization: Bearer {token}'", file=sys.stderr, flush=True)
            app = BearerAuth(server.streamable_http_app(host=host), token)
            uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        toolbox.close()
        toolbox.sandbox.stop()
