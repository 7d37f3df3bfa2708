"""The agent's tools over one trial's sandbox, with every call recorded."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ...docs.log import search_and_record
from ...rundir.transcript import Transcript, clip
from ..sandbox import Sandbox, SandboxError
from . import files
from .base import (
    FILE_TEXT,
    LONG_TEXT,
    PATH_LENGTH,
    ArgumentError,
    Hints,
    ToolResult,
    ToolSpec,
    check_arguments,
    integer,
    number,
    schema,
    string,
)
from .browser import BrowserSession

BASH_OUTPUT_LIMIT = 30_000
REF = string("Element ref from the latest browser_snapshot, e.g. e12 or f1e4 (in a frame).",
             100)
# Text a tool returns to the model (a page outline, a console log) is cut at this length.
RESULT_TEXT_LIMIT = 100_000
MANY = 200    # items in a form or a multiple select
# MCP annotations (see Hints): what each kind of tool may do
READS = Hints(read_only=True, idempotent=True)  # the working directory or our docs index
WRITES = Hints(destructive=True, idempotent=True)  # overwrites a file
EDITS = Hints(destructive=True)
ADDS = Hints()
RUNS = Hints(destructive=True, open_world=True)  # any command: network, services, files
LOOKS = Hints(read_only=True, idempotent=True, open_world=True)  # reads the browser's pages
ACTS = Hints(open_world=True)  # acts on a page (a click may pay, a form may submit)

SPECS = [
    ToolSpec("bash", "Run a bash command in the working directory and return its exit code "
             "and output. Each call is a fresh shell (cd does not persist). Long-running "
             "servers must be started in the background (`cmd > log 2>&1 &`).",
             schema({"command": string("The command.", LONG_TEXT),
                     "timeout": {"type": "number", "description": "Seconds before the "
                                 "command is killed (default 120, max 600)."}},
                    ["command"]), RUNS),
    ToolSpec("view", "Show a text file with line numbers (optionally a [start, end] line "
             "range; end -1 = to the end) or list a directory two levels deep.",
             schema({"path": string("File or directory, relative to the working directory.",
                                    PATH_LENGTH),
                     "view_range": {"type": "array", "items": integer("A line."),
                                    "maxItems": 2,
                                    "description": "[start, end] lines, 1-based."}},
                    ["path"]), READS),
    ToolSpec("create", "Create or overwrite a file with the given content.",
             schema({"path": string("File path.", PATH_LENGTH),
                     "file_text": string("Full content.", FILE_TEXT)},
                    ["path", "file_text"]), WRITES),
    ToolSpec("str_replace", "Replace the one exact occurrence of old_str in a file with "
             "new_str (old_str must match exactly, whitespace included, and be unique).",
             schema({"path": string("File path.", PATH_LENGTH),
                     "old_str": string("Exact text to replace.", FILE_TEXT),
                     "new_str": string("Replacement (empty to delete).", FILE_TEXT)},
                    ["path", "old_str"]), EDITS),
    ToolSpec("insert", "Insert text after the given line of a file (0 = at the top).",
             schema({"path": string("File path.", PATH_LENGTH),
                     "insert_line": integer("Line number.", 0),
                     "insert_text": string("Text to insert.", FILE_TEXT)},
                    ["path", "insert_line", "insert_text"]), ADDS),
    ToolSpec("browser_navigate", "Open a URL in the browser's current tab.",
             schema({"url": string("The URL.", 2 * PATH_LENGTH)}, ["url"]), ACTS),
    ToolSpec("browser_snapshot", "The page (and its frames) as an accessibility outline; "
             "elements you can act on carry refs.", schema({}), LOOKS),
    ToolSpec("browser_click", "Click an element.",
             schema({"ref": REF, "double": {"type": "boolean"}}, ["ref"]), ACTS),
    ToolSpec("browser_type", "Type text into a field (replacing its content); submit=true "
             "presses Enter after; slowly=true types key by key.",
             schema({"ref": REF, "text": string("Text.", 20_000),
                     "submit": {"type": "boolean"},
                     "slowly": {"type": "boolean"}}, ["ref", "text"]), ACTS),
    ToolSpec("browser_fill_form", "Fill several fields at once: text fields, selects "
             "(value or label) and checkboxes (true/false).",
             schema({"fields": {"type": "array", "maxItems": MANY, "items": {
                 "type": "object", "properties": {"ref": REF, "value": {
                     "type": ["string", "boolean", "number"],
                     "description": "Text, an option's value or label, or true/false."}},
                 "required": ["ref", "value"], "additionalProperties": False}}},
                    ["fields"]), ACTS),
    ToolSpec("browser_select_option", "Choose option(s) of a select element.",
             schema({"ref": REF, "values": {"type": "array", "maxItems": MANY,
                                            "items": string("A value or label.")}},
                    ["ref", "values"]), ACTS),
    ToolSpec("browser_press_key", "Press a key (Enter, Tab, Escape, ArrowDown, a, ...).",
             schema({"key": string("Key name.", 100)}, ["key"]), ACTS),
    ToolSpec("browser_take_screenshot", "A PNG screenshot of the current tab.",
             schema({"full_page": {"type": "boolean"}}), LOOKS),
    ToolSpec("browser_console_messages", "The browser console log (latest 100).",
             schema({}), LOOKS),
    ToolSpec("browser_network_requests", "Requests the pages made (latest 100).", schema({}),
             LOOKS),
    ToolSpec("browser_tabs", "List, open (optionally at url), select or close tabs.",
             schema({"action": {"type": "string", "enum": ["list", "new", "select", "close"]},
                     "index": integer("1-based tab index for select/close.", 1, 1000),
                     "url": string("URL for a new tab.", 2 * PATH_LENGTH)}, ["action"]), ACTS),
    ToolSpec("browser_wait_for", "Wait until text appears or disappears (any frame), or "
             "for a number of seconds.",
             schema({"text": string("Text to wait for."),
                     "text_gone": string("Text to wait to disappear."),
                     "seconds": number("Seconds to wait (at most 120).", 0, 120)}), LOOKS),
    ToolSpec("search_stripe_documentation", "Search Stripe's documentation (API reference, "
             "guides, upgrade notes). Returns ranked passages with their doc ids.",
             schema({"query": string("What to look for."),
                     "limit": integer("Number of results (default 5).", 1, 20)}, ["query"]),
             READS),
    ToolSpec("submit", "Declare the task finished. Call it once, when you are done; "
             "optionally with a short summary of what you did.",
             schema({"summary": string("What you did.", 20_000)}), ADDS),
]
SPEC_BY_NAME = {s.name: s for s in SPECS}
FILE_TOOLS = {"view", "create", "str_replace", "insert"}


class Toolbox:
    """Dispatches tool calls to the sandbox, the browser and the docs search."""

    def __init__(self, sandbox: Sandbox, transcript: Transcript | None = None,
                 browser_launch: dict[str, Any] | None = None,
                 deadline: float | None = None, tools: list[str] | None = None,
                 docs_index: str | None = None) -> None:
        unknown = sorted(set(tools or []) - set(SPEC_BY_NAME))
        if unknown:
            raise ValueError(f"unknown tool {unknown[0]!r}; tools: {', '.join(SPEC_BY_NAME)}")
        # the tools offered (None: all); `submit` always, so an agent can say it is done
        self.enabled = None if tools is None else {*tools, "submit"}
        # an experiment's arm may also search its own documentation index
        # (see harness/interventions.py)
        self.docs_index = docs_index
        self.sandbox = sandbox
        self.transcript = transcript or Transcript(None)
        self.browser_launch = browser_launch  # Playwright launch options (see browser.py)
        self.deadline = deadline  # time.monotonic() by which every command must end
        self._browser: BrowserSession | None = None
        self.calls = 0
        self.submitted: str | None = None

    @property
    def specs(self) -> list[ToolSpec]:
        return [s for s in SPECS if self.enabled is None or s.name in self.enabled]

    @property
    def browser(self) -> BrowserSession:
        if self._browser is None:
            self._browser = BrowserSession(self.browser_launch)
        return self._browser

    def call(self, name: str, args: dict[str, Any] | None = None,
             call_id: str | None = None) -> ToolResult:
        args = dict(args or {})
        self.calls += 1
        started = time.monotonic()
        self.transcript.add("tool_call", id=call_id, name=name, args=args)
        try:
            if name in SPEC_BY_NAME and (self.enabled is None or name in self.enabled):
                check_arguments(SPEC_BY_NAME[name], args)
            result = self._dispatch(name, args)
        except ArgumentError as exc:
            result = ToolResult(f"Error: {exc}", is_error=True)
        except (SandboxError, KeyError, ValueError, TypeError, OverflowError) as exc:
            missing = f"missing argument {exc}" if isinstance(exc, KeyError) else str(exc)
            result = ToolResult(f"Error: {missing}", is_error=True)
        if len(result.text) > RESULT_TEXT_LIMIT:
            result.text = clip(result.text, RESULT_TEXT_LIMIT)
        images = [p for p in (self.transcript.save_image(png) for png in result.images) if p]
        self.transcript.add("tool_result", id=call_id, name=name, is_error=result.is_error,
                            text=clip(result.text), images=images,
                            seconds=round(time.monotonic() - started, 3))
        return result

    def _time_left(self, wanted: float) -> float:
        if self.deadline is None:
            return wanted
        return max(1.0, min(wanted, self.deadline - time.monotonic()))

    def _dispatch(self, name: str, args: dict[str, Any]) -> ToolResult:
        if name not in SPEC_BY_NAME or (self.enabled is not None and name not in self.enabled):
            offered = ", ".join(s.name for s in self.specs)
            return ToolResult(f"Unknown tool {name!r}. Tools: {offered}", is_error=True)
        if name == "bash":
            return self.bash(str(args["command"]), float(args.get("timeout") or 120))
        if name in FILE_TOOLS:
            return files.run(self.sandbox, name, args)
        if name == "search_stripe_documentation":
            return self.search_docs(str(args["query"]), int(args.get("limit") or 5))
        if name == "submit":
            self.submitted = str(args.get("summary", ""))
            return ToolResult("Submitted. The task is over; stop now.", done=True)
        return self._browse(name, args)

    def bash(self, command: str, timeout: float = 120) -> ToolResult:
        limit = self._time_left(min(max(timeout, 1), 600))
        result = self.sandbox.exec(command, timeout=limit, output_limit=BASH_OUTPUT_LIMIT)
        parts = [f"exit code {result.exit_code}" + (" (timed out)" if result.timed_out else "")]
        if result.stdout:
            parts.append(f"stdout:\n{result.stdout}")
        if result.stderr:
            parts.append(f"stderr:\n{result.stderr}")
        return ToolResult("\n".join(parts), is_error=result.exit_code != 0)

    def search_docs(self, query: str, limit: int) -> ToolResult:
        """Stripe docs search; each query and its hits go into the transcript."""
        try:
            text, record = search_and_record(query, max(1, min(limit, 20)), index=Path(
                self.docs_index) if self.docs_index else None)
        except Exception as exc:  # noqa: BLE001 - report, do not crash the agent
            self.transcript.add("docs_search", query=query, results=0, error=str(exc))
            return ToolResult(f"Documentation search failed: {exc}", is_error=True)
        self.transcript.add("docs_search", **record)
        return ToolResult(text)

    def _browse(self, name: str, args: dict[str, Any]) -> ToolResult:
        b = self.browser
        handlers: dict[str, Any] = {
            "browser_navigate": lambda: b.call(b.navigate, args["url"]),
            "browser_snapshot": lambda: b.call(b.snapshot),
            "browser_click": lambda: b.call(b.click, args["ref"], bool(args.get("double"))),
            "browser_type": lambda: b.call(b.type, args["ref"], args["text"],
                                           bool(args.get("submit")), bool(args.get("slowly"))),
            "browser_fill_form": lambda: b.call(b.fill_form, list(args["fields"])),
            "browser_select_option": lambda: b.call(b.select_option, args["ref"],
                                                    list(args["values"])),
            "browser_press_key": lambda: b.call(b.press_key, args["key"]),
            "browser_take_screenshot": lambda: b.call(b.screenshot,
                                                      bool(args.get("full_page"))),
            "browser_console_messages": lambda: b.call(b.console_messages),
            "browser_network_requests": lambda: b.call(b.network_requests),
            "browser_tabs": lambda: b.call(b.tabs, args.get("action", "list"),
                                           args.get("index"), args.get("url")),
            "browser_wait_for": lambda: b.call(b.wait_for, args.get("text"),
                                               args.get("text_gone"), args.get("seconds")),
        }
        return handlers[name]()  # type: ignore[no-any-return]

    def close(self) -> None:
        if self._browser is not None:
            self._browser.close()
            self._browser = None
