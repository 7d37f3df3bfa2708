"""Browser tools: Playwright (python, sync API) driving Debian's Chromium.

Playwright's sync objects belong to the thread that created them, and the tools are
called from agent threads and from the MCP server's event loop alike, so one dedicated
thread owns the browser and every call is handed to it.
"""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...routing import launch_options as routed
from .base import ToolResult

CHROMIUM = "/usr/bin/chromium"
BASE_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SNAPSHOT_JS = (Path(__file__).parent / "snapshot.js").read_text()
LOG_LIMIT = 300              # console and network lines kept (the latest)
LINE_LIMIT = 2000            # characters kept of each (a page may log megabytes at once)


def launch_options(sandbox: object = None, emulator_url: str | None = None) -> dict[str, Any]:
    """Playwright launch options inside the routing: Chromium in a bubblewrap sandbox, or
    here with Stripe's host names mapped to a TLS front for the trial's emulator."""
    return routed(sandbox, emulator_url, chromium=CHROMIUM)


class BrowserSession:
    def __init__(self, launch: dict[str, Any] | None = None, timeout_ms: int = 15_000) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="browser")
        self.launch = launch or {"executable_path": CHROMIUM, "args": list(BASE_ARGS)}
        self.timeout_ms = timeout_ms
        self._pw: Any = None
        self._browser: Any = None
        self._context: Any = None
        self.pages: list[Any] = []
        self.current = 0
        self.console: list[str] = []
        self.network: list[str] = []
        # page -> (url asked for, error, url the page had then): Chromium can keep
        # reporting the previous URL after a failed navigation while it shows its error page
        self._failed: dict[Any, tuple[str, str, str]] = {}

    # ----------------------------------------------------------------- plumbing

    def call(self, fn: Callable[..., ToolResult], *args: Any, **kwargs: Any) -> ToolResult:
        return self._pool.submit(self._guarded, fn, *args, **kwargs).result()

    def _guarded(self, fn: Callable[..., ToolResult], *args: Any, **kwargs: Any) -> ToolResult:
        try:
            self._ensure()
            return fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - a browser error is a tool error
            message = str(exc).split("\nCall log:")[0]
            return ToolResult(f"Browser error: {message}", is_error=True)

    def _ensure(self) -> None:
        if self._browser is not None:
            return
        # optional dependency, slow to import: only a trial that opens the browser
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(**self.launch)
        self._context = self._browser.new_context(viewport={"width": 1280, "height": 900},
                                                  ignore_https_errors=False)
        self._context.set_default_timeout(self.timeout_ms)
        self._context.on("page", self._track)
        self._context.new_page()

    def _track(self, page: Any) -> None:
        self.pages.append(page)
        self.current = len(self.pages) - 1
        index = len(self.pages)
        page.on("console", lambda m: self._log(self.console, f"[tab {index}] [{m.type}] "
                                                             f"{m.text}"))
        page.on("pageerror", lambda e: self._log(self.console, f"[tab {index}] [pageerror] "
                                                               f"{e}"))
        page.on("requestfinished", lambda r: self._log(self.network, _describe(r)))
        page.on("requestfailed", lambda r: self._log(
            self.network, f"{r.method} {r.url} FAILED {r.failure or ''}"))
        page.on("close", lambda p: self._closed(p))

    def _closed(self, page: Any) -> None:
        if page in self.pages:
            self.pages.remove(page)
            self.current = max(0, min(self.current, len(self.pages) - 1))

    @staticmethod
    def _log(log: list[str], line: str) -> None:
        if len(line) > LINE_LIMIT:
            line = line[:LINE_LIMIT] + f" [... {len(line) - LINE_LIMIT} more characters]"
        log.append(line)
        del log[:-LOG_LIMIT]

    @property
    def page(self) -> Any:
        if not self.pages:
            self._context.new_page()
        return self.pages[self.current]

    def close(self) -> None:
        def shut() -> None:
            if self._browser is not None:
                try:
                    self._browser.close()
                finally:
                    self._pw.stop()
                    self._browser = None
        try:
            self._pool.submit(shut).result(timeout=20)
        except Exception:  # noqa: BLE001 - closing is best effort
            pass
        self._pool.shutdown(wait=False)

    # ----------------------------------------------------------------- helpers

    def _frames(self) -> list[Any]:
        return [f for f in self.page.frames if not f.is_detached()]

    def _locate(self, ref: str) -> Any:
        frame_no = 0
        if ref.startswith("f") and "e" in ref:
            frame_no = int(ref[1:ref.index("e")])
        frames = self._frames()
        if frame_no >= len(frames):
            raise ValueError(f"ref {ref!r} is stale: take a new browser_snapshot")
        locator = frames[frame_no].locator(f'[data-sb-ref="{ref}"]')
        if locator.count() == 0:
            raise ValueError(f"no element with ref {ref!r}: take a new browser_snapshot")
        return locator.first

    def _outline(self) -> str:
        parts = []
        for n, frame in enumerate(self._frames()):
            prefix = "" if n == 0 else f"f{n}"
            try:
                body = frame.evaluate(SNAPSHOT_JS, prefix)
            except Exception as exc:  # noqa: BLE001 - cross-origin or navigating frame
                body = f"(unreadable: {str(exc).splitlines()[0]})"
            if n == 0:
                parts.append(body)
            elif body.strip():
                parts.append(f"\n### frame f{n} ({frame.url}):\n{body}")
        return "\n".join(parts)

    def _where(self, page: Any) -> str:
        """The page's URL, or the one whose navigation failed while the tab shows the
        browser's error page (page.url may still name the page before it)."""
        failed = self._failed.get(page)
        if failed and (page.url == failed[2] or page.url.startswith("chrome-error:")):
            return f"{failed[0]} (navigation failed: {failed[1]})"
        self._failed.pop(page, None)
        return str(page.url)

    def _state(self, note: str = "", snapshot: bool = True) -> ToolResult:
        page = self.page
        head = f"{note}\nTab {self.current + 1}/{len(self.pages)}: {page.title()!r} " \
               f"at {self._where(page)}".strip()
        if not snapshot:
            return ToolResult(head)
        return ToolResult(f"{head}\n\n{self._outline()}")

    # ----------------------------------------------------------------- tools

    def navigate(self, url: str) -> ToolResult:
        page = self.page
        before = page.url
        self._failed.pop(page, None)
        try:
            response = page.goto(url, wait_until="load")
        except Exception as exc:
            reason = str(exc).split("\n")[0].removeprefix("Page.goto: ").split(" at ")[0]
            self._failed[page] = (url, reason, before)
            raise
        status = f"HTTP {response.status}" if response is not None else "no response"
        return self._state(f"Navigated to {url} ({status}).")

    def snapshot(self) -> ToolResult:
        return self._state()

    def click(self, ref: str, double: bool = False) -> ToolResult:
        target = self._locate(ref)
        target.dblclick() if double else target.click()
        self._settle()
        return self._state(f"Clicked {ref}.")

    def type(self, ref: str, text: str, submit: bool = False, slowly: bool = False) -> ToolResult:
        target = self._locate(ref)
        if slowly:
            target.click()
            target.press_sequentially(text, delay=20)
        else:
            target.fill(text)
        if submit:
            target.press("Enter")
            self._settle()
        return self._state(f"Typed into {ref}.")

    def fill_form(self, fields: list[dict[str, Any]]) -> ToolResult:
        done = []
        for item in fields:
            ref, value = str(item["ref"]), item.get("value", "")
            target = self._locate(ref)
            kind = target.evaluate("e => e.tagName + ':' + (e.type || '')").lower()
            if kind.startswith("select"):
                target.select_option(label=str(value)) if not _selects_by_value(target, value) \
                    else target.select_option(value=str(value))
            elif kind.endswith(":checkbox") or kind.endswith(":radio"):
                target.set_checked(str(value).lower() in ("true", "1", "yes", "on", "checked"))
            else:
                target.fill(str(value))
            done.append(ref)
        return self._state(f"Filled {', '.join(done)}.")

    def select_option(self, ref: str, values: list[str]) -> ToolResult:
        """Each value names an option by value or, failing that, by visible label; one
        that names none is an error at once (listing the options), not a wait."""
        target = self._locate(ref)
        options = target.evaluate("e => e.options ? [...e.options].map(o => "
                                  "[o.value, o.label.trim()]) : null")
        if options is None:
            raise ValueError(f"{ref} is not a select element")
        chosen = []
        for wanted in values:
            match = [v for v, _ in options if v == wanted] or \
                [v for v, label in options if label == wanted.strip()]
            if not match:
                listed = ", ".join(f"{label!r} (value {v!r})" for v, label in options)
                raise ValueError(f"{ref} has no option {wanted!r}; its options: {listed}")
            chosen.append(match[0])
        target.select_option(value=chosen)
        return self._state(f"Selected {values} in {ref}.")

    def press_key(self, key: str) -> ToolResult:
        self.page.keyboard.press(key)
        self._settle()
        return self._state(f"Pressed {key}.")

    def screenshot(self, full_page: bool = False) -> ToolResult:
        png = self.page.screenshot(full_page=full_page)
        result = self._state("Screenshot taken.", snapshot=False)
        result.images.append(png)
        return result

    def console_messages(self) -> ToolResult:
        return ToolResult("\n".join(self.console[-100:]) or "(no console messages)")

    def network_requests(self) -> ToolResult:
        return ToolResult("\n".join(self.network[-100:]) or "(no requests)")

    def tabs(self, action: str = "list", index: int | None = None,
             url: str | None = None) -> ToolResult:
        if action == "new":
            page = self._context.new_page()
            if url:
                page.goto(url, wait_until="load")
        elif action in ("select", "close"):
            if index is None or not 1 <= index <= len(self.pages):
                return ToolResult(f"index must be 1..{len(self.pages)}", is_error=True)
            if action == "select":
                self.current = index - 1
                self.pages[self.current].bring_to_front()
            else:
                self.pages[index - 1].close()
        elif action != "list":
            return ToolResult("action must be list, new, select or close", is_error=True)
        listing = "\n".join(f"{'*' if n == self.current else ' '} {n + 1}. {p.title()!r} "
                            f"{self._where(p)}" for n, p in enumerate(self.pages))
        return ToolResult(listing or "(no tabs)")

    def wait_for(self, text: str | None = None, text_gone: str | None = None,
                 seconds: float | None = None) -> ToolResult:
        timeout = (seconds or 10) * 1000
        if text:
            self._any_frame_text(text, "visible", timeout)
        elif text_gone:
            self._any_frame_text(text_gone, "hidden", timeout)
        else:
            time.sleep(min(float(seconds or 1), 30))
        return self._state("Waited.")

    def _any_frame_text(self, text: str, state: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout / 1000
        while True:
            found = [f.get_by_text(text).first.is_visible() for f in self._frames()
                     if f.get_by_text(text).count()]
            if (state == "visible" and any(found)) or (state == "hidden" and not any(found)):
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"text {text!r} still {'absent' if state == 'visible' else 'present'} after {timeout / 1000:g}s")  # noqa: E501
            self.page.wait_for_timeout(200)

    def _settle(self) -> None:
        try:
            self.page.wait_for_load_state("load", timeout=5000)
        except Exception:  # noqa: BLE001 - a click need not navigate
            pass


def _describe(request: Any) -> str:
    try:
        response = request.response()
        status = response.status if response is not None else "-"
    except Exception:  # noqa: BLE001
        status = "?"
    return f"{request.method} {request.url} -> {status}"


def _selects_by_value(target: Any, value: Any) -> bool:
    values = target.evaluate("e => [...e.options].map(o => o.value)")
    return str(value) in values
