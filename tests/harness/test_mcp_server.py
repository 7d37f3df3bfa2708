"""`stripebench mcp` through the official `mcp` client over stdio (and streamable HTTP):
the tool list, bash, file editing, images, docs search, and the trial transcript."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from stripebench.harness.tools.toolbox import SPEC_BY_NAME


async def _session_calls(params: StdioServerParameters, calls: list[tuple[str, dict[str, Any]]]
                         ) -> tuple[list[str], list[Any]]:
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            results = [await session.call_tool(name, args) for name, args in calls]
            return [t.name for t in tools.tools], results


def test_stdio_tools_work_in_the_trial_workdir(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "app.py").write_text("print('hello')\n")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"workdir": str(workdir), "sandbox": "local",
                                  "env": {"STRIPE_SECRET_KEY": "sk_test_fromconfig"},
                                  "transcript": str(tmp_path / "transcript.jsonl")}))
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "stripebench.cli", "mcp", "--config", str(config)])
    html = "<html><body><h1>Local page</h1><button>Go</button></body></html>"
    (workdir / "page.html").write_text(html)
    names, results = anyio.run(_session_calls, params, [
        ("bash", {"command": "echo $STRIPE_SECRET_KEY; python3 app.py"}),
        ("str_replace", {"path": "app.py", "old_str": "hello", "new_str": "bonjour"}),
        ("view", {"path": "app.py"}),
        ("insert", {"path": "app.py", "insert_line": 0, "insert_text": "# top"}),
        ("bash", {"command": "sleep 5", "timeout": 1}),
        ("str_replace", {"path": "app.py", "old_str": "absent", "new_str": "x"}),
        ("browser_navigate", {"url": (workdir / "page.html").as_uri()}),
        ("browser_take_screenshot", {}),
        ("bash", {"command": "head -c 200000 /dev/zero | tr '\\0' x"}),
        ("submit", {"summary": "all done"}),
    ])
    assert set(names) == set(SPEC_BY_NAME)
    bash, replace, view, insert, slow, missing, page, shot, flood, submit = results
    # output is capped at 30 kB per stream, and says so
    assert 30_000 <= len(flood.content[0].text) < 31_000
    assert "x" * 1000 in flood.content[0].text and "output truncated" in flood.content[0].text
    assert "sk_test_fromconfig" in bash.content[0].text and "hello" in bash.content[0].text
    assert not replace.is_error and "bonjour" in view.content[0].text
    assert (workdir / "app.py").read_text() == "# top\nprint('bonjour')\n"
    assert slow.is_error and "timed out" in slow.content[0].text
    assert missing.is_error and "not found" in missing.content[0].text
    assert 'heading "Local page"' in page.content[0].text and 'button "Go"' in page.content[0].text
    images = [c for c in shot.content if c.type == "image"]
    assert images and images[0].mime_type == "image/png"
    assert "Submitted" in submit.content[0].text
    events = [json.loads(line) for line in (tmp_path / "transcript.jsonl").read_text()
              .splitlines()]
    calls = [e["name"] for e in events if e["type"] == "tool_call"]
    assert calls == ["bash", "str_replace", "view", "insert", "bash", "str_replace",
                     "browser_navigate", "browser_take_screenshot", "bash", "submit"]
    assert any(e.get("images") for e in events if e["type"] == "tool_result")


def test_docs_search_is_served_and_logged(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    (tmp_path / "w").mkdir()
    config.write_text(json.dumps({"workdir": str(tmp_path / "w"),
                                  "transcript": str(tmp_path / "t.jsonl")}))
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "stripebench.cli", "mcp", "--config", str(config)])
    _, (found,) = anyio.run(_session_calls, params, [
        ("search_stripe_documentation", {"query": "checkout session promotion codes",
                                         "limit": 3})])
    text = found.content[0].text
    events = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    searches = [e for e in events if e["type"] == "docs_search"]
    assert searches and searches[0]["query"] == "checkout session promotion codes"
    assert not found.is_error, text
    assert searches[0]["results"] and searches[0]["coverage"] > 0 and "[1]" in text


def test_streamable_http_transport(tmp_path: Path) -> None:
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "stripebench.cli", "mcp", "--transport",
                             "http", "--port", str(port), "--workdir", str(tmp_path),
                             "--token", "test-token"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.1)

        async def main() -> tuple[list[str], str, Any]:
            auth = create_mcp_http_client(headers={"Authorization": "Bearer test-token"})
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp",
                                              http_client=auth) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    tools = await session.list_tools()
                    result = await session.call_tool("bash", {"command": "echo over-http"})
                    made = await session.call_tool("create", {"path": "h.txt",
                                                              "file_text": "via http"})
                    return [t.name for t in tools.tools], str(result.content[0].text), made

        names, text, made = anyio.run(main)
        assert set(names) == set(SPEC_BY_NAME) and "over-http" in text
        assert not made.is_error and (tmp_path / "h.txt").read_text() == "via http"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_standalone_server_routes_the_browser_to_an_emulator(tmp_path: Path, emulator: Any,
                                                             account: dict[str, str]) -> None:
    """`stripebench mcp --emulator URL` for any MCP client on the user's own project: the
    browser reaches the emulator as js.stripe.com, commands get its address and keys."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "stripebench.cli", "mcp", "--workdir", str(tmp_path), "--emulator",
              emulator.base],
        env={"PATH": "/usr/bin:/bin", "STRIPE_SECRET_KEY": account["secret_key"]})
    _, (listed, page) = anyio.run(_session_calls, params, [
        ("bash", {"command": 'curl -s "$STRIPE_API_BASE/v1/customers" -u "$STRIPE_SECRET_KEY:"'}),
        ("browser_navigate", {"url": "https://js.stripe.com/v3/"})])
    assert '"object": "list"' in listed.content[0].text, listed.content[0].text
    assert not page.is_error and "(HTTP 200)" in page.content[0].text, page.content[0].text


async def _listed_and_called(params: StdioServerParameters,
                             calls: list[tuple[str, dict[str, Any], dict[str, Any] | None]]
                             ) -> tuple[list[Any], list[Any]]:
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            results = [await session.call_tool(name, args, meta=meta)  # type: ignore[arg-type]
                       for name, args, meta in calls]
            return tools, results


def _trial_server(tmp_path: Path) -> StdioServerParameters:
    (tmp_path / "w").mkdir()
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"workdir": str(tmp_path / "w"),
                                  "transcript": str(tmp_path / "t.jsonl")}))
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "stripebench.cli", "mcp", "--config", str(config)])


def test_every_tool_is_annotated_for_clients_that_decide_approvals_from_hints(
        tmp_path: Path) -> None:
    """MCP tool annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint):
    Codex and Claude Code read them; a tool without them counts as destructive and
    open-world. Reading tools say so, and what runs commands or acts on pages says so."""
    tools, _ = anyio.run(_listed_and_called, _trial_server(tmp_path), [])
    hints = {t.name: t.annotations.model_dump(by_alias=True, exclude_none=True)
             for t in tools}
    assert set(hints) == set(SPEC_BY_NAME)
    for name, given in hints.items():
        assert {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint",
                "title"} <= set(given), name
    read_only = {n for n, h in hints.items() if h["readOnlyHint"]}
    assert read_only == {"view", "browser_snapshot", "browser_take_screenshot",
                         "browser_console_messages", "browser_network_requests",
                         "browser_wait_for", "search_stripe_documentation"}
    assert hints["bash"]["destructiveHint"] and hints["bash"]["openWorldHint"]
    assert hints["create"]["destructiveHint"] and not hints["create"]["openWorldHint"]
    assert hints["browser_click"]["openWorldHint"] and not hints["view"]["openWorldHint"]


def test_arguments_are_checked_against_the_tools_input_schema(tmp_path: Path) -> None:
    """Wrongly typed, unknown, missing or out-of-enum arguments are an error naming the
    argument (not a Python conversion error), and nothing runs."""
    _, results = anyio.run(_listed_and_called, _trial_server(tmp_path), [
        ("bash", {"command": "touch ran-1", "timeout": "abc"}, None),
        ("bash", {"command": "touch ran-2", "cwd": "/"}, None),
        ("bash", {"timeout": 5}, None),
        ("browser_wait_for", {"seconds": "abc"}, None),
        ("browser_tabs", {"action": "open"}, None),
        ("browser_fill_form", {"fields": [{"ref": "e1", "value": "x", "force": True}]}, None),
        ("view", {"path": ".", "view_range": [1, "end"]}, None),
        ("browser_fill_form", {"fields": [{"ref": "e1", "value": None}]}, None),
        ("browser_fill_form", {"fields": [{"ref": "e1", "value": ["x"]}]}, None),
        ("bash", {"command": "touch ran-3", "timeout": 5}, None),
    ])
    texts = [r.content[0].text for r in results]
    assert [r.is_error for r in results] == [True] * 9 + [False], texts
    assert texts[:9] == [
        "Error: argument 'timeout' must be a number, not 'abc'",
        "Error: unknown argument 'cwd' (bash takes: command, timeout)",
        "Error: missing required argument 'command'",
        "Error: argument 'seconds' must be a number, not 'abc'",
        "Error: argument 'action' must be one of list, new, select, close, not 'open'",
        "Error: unknown argument 'fields[0].force' (browser_fill_form takes: ref, value)",
        "Error: argument 'view_range[1]' must be an integer, not 'end'",
        "Error: missing required argument 'fields[0].value'",
        "Error: argument 'fields[0].value' must be a string, true or false, or a number, "
        "not ['x']"]
    assert sorted(p.name for p in (tmp_path / "w").iterdir()) == ["ran-3"]


def test_the_clients_call_id_is_recorded_with_each_call(tmp_path: Path) -> None:
    """Claude Code sends its tool-use id as `claudecode/toolUseId` in the call's _meta,
    Codex its `callId`: the transcript keeps them, so each call matches the CLI's log."""
    anyio.run(_listed_and_called, _trial_server(tmp_path), [
        ("bash", {"command": "true"}, {"claudecode/toolUseId": "toolu_07"}),
        ("view", {"path": "."}, {"callId": "call_08"}),
        ("submit", {}, None)])
    events = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert [(e["type"], e["id"]) for e in events] == [
        ("tool_call", "toolu_07"), ("tool_result", "toolu_07"), ("tool_call", "call_08"),
        ("tool_result", "call_08"), ("tool_call", None), ("tool_result", None)]


def test_a_missing_option_fails_at_once_and_a_failed_navigation_shows_its_url(
        tmp_path: Path) -> None:
    """browser_select_option with a value no option has answers with the options there
    are (it used to wait out two 15 s timeouts and then report one); after a navigation
    that fails, the snapshot names the URL that failed, not the page before it."""
    page = tmp_path / "w" / "plans.html"
    params = _trial_server(tmp_path)
    page.write_text('<title>Plans</title><select aria-label="Plan"><option value="basic">'
                    'Basic plan</option><option value="pro">Pro plan</option></select>')
    _, (opened, gold, pro, failed, snap, tabs) = anyio.run(_listed_and_called, params, [
        ("browser_navigate", {"url": page.as_uri()}, None),
        ("browser_select_option", {"ref": "e1", "values": ["Gold"]}, None),
        ("browser_select_option", {"ref": "e1", "values": ["Pro plan"]}, None),
        ("browser_navigate", {"url": "http://127.0.0.1:9/checkout"}, None),
        ("browser_snapshot", {}, None),
        ("browser_tabs", {"action": "list"}, None)])
    assert 'combobox "Plan" [ref=e1]' in opened.content[0].text
    assert gold.is_error and gold.content[0].text == (
        "Browser error: e1 has no option 'Gold'; its options: 'Basic plan' (value 'basic'), "
        "'Pro plan' (value 'pro')")
    assert not pro.is_error and 'value="pro"' in pro.content[0].text
    assert failed.is_error and "ERR_UNSAFE_PORT" in failed.content[0].text
    head = snap.content[0].text.splitlines()[0]
    assert head.endswith("at http://127.0.0.1:9/checkout (navigation failed: "
                         "net::ERR_UNSAFE_PORT)"), head
    assert "plans.html" not in tabs.content[0].text


def test_a_trial_can_offer_a_subset_of_the_tools(tmp_path: Path) -> None:
    """`"tools": [...]` in the trial's mcp.json (a run's tool choice) is what the server
    lists and serves, to every MCP client alike; `submit` always stays."""
    (tmp_path / "w").mkdir()
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"workdir": str(tmp_path / "w"), "tools": ["bash", "view"],
                                  "transcript": str(tmp_path / "t.jsonl")}))
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "stripebench.cli", "mcp", "--config", str(config)])
    tools, (made, ran) = anyio.run(_listed_and_called, params, [
        ("create", {"path": "x.txt", "file_text": "no"}, None),
        ("bash", {"command": "echo yes > y.txt"}, None)])
    assert sorted(t.name for t in tools) == ["bash", "submit", "view"]
    assert made.is_error and made.content[0].text == (
        "Unknown tool 'create'. Tools: bash, view, submit")
    assert not ran.is_error
    assert sorted(p.name for p in (tmp_path / "w").iterdir()) == ["y.txt"]
