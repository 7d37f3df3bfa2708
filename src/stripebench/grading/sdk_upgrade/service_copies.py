"""Grading the agent's services by what they really do: copies behind recording proxies.

An SDK-upgrade grader starts its own copy of each service from the workdir, on a free
port, with every variable naming the emulator pointed at a recording proxy of its own,
then calls the copies and checks what they answered and what they sent Stripe (the
Stripe-Version and User-Agent of each request). A copy could still go around its proxy
(an address written into its code): each proxy stamps what it forwards with a secret of
the grader's, the grader's own requests go through a stamped proxy too, and afterwards
every request the account received during the grading must carry one of those stamps
(`ServiceCopies.bypassing`). The account's request record (emulator/request_record.py)
is append-only and counts every request, so no request can be pushed out of it by
sending more; a record that could not keep them all makes the check fail. The copies
are the agent's code: they run through the grading room's launcher
(stripebench.grading.launch), each in a sandbox of its own without sight of the grader,
and die whole at `stop()`. A copy's network holds its own recorder (at the recorder's
port) and the emulator, nothing else of the grader's: not the grader's own recorder, not
another copy or its recorder, so no copy can have its requests stamped by a proxy that
does not judge them.

    copies = ServiceCopies(work, ("payments", "invoices"))  # each in a room of its own
    client = stripe_client(api_base=copies.grader_base)
    ...  # make data with client, call copies.urls[...], check copies.recorders[...]
    copies.stop()
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...emulator.request_log import READ_PATH, STAMP_HEADER
from .. import launch
from ..bounded import Budget
from ..environment import _env

if TYPE_CHECKING:
    from ..checks import Grader

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host",
              "content-encoding", "accept-encoding", "proxy-connection", "upgrade", "te"}


class Recorder:
    """A recording HTTP proxy in front of the emulator, stamping what it forwards."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.stamp = secrets.token_hex(16)
        self.requests: list[dict[str, str]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                # Every value of each header is recorded, and the emulator gets only the
                # first: with two Stripe-Version headers a proxy that recorded one saw the
                # current version while the emulator answered the other (red team in
                # tests/tasks/test_task_sdk_upgrade_java.py).
                versions = self.headers.get_all("Stripe-Version") or []
                agents = self.headers.get_all("User-Agent") or []
                recorder.requests.append({
                    "method": self.command, "path": self.path.split("?")[0],
                    "stripe_version": ", ".join(versions), "user_agent": ", ".join(agents)})
                single = {"stripe-version", "user-agent", STAMP_HEADER}
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in HOP_BY_HOP and k.lower() not in single}
                headers.update({name: values[0] for name, values in
                                (("Stripe-Version", versions), ("User-Agent", agents)) if values})
                request = urllib.request.Request(
                    recorder.upstream + self.path, data=body, method=self.command,
                    headers={**headers, STAMP_HEADER: recorder.stamp})
                try:
                    with urllib.request.urlopen(request, timeout=60) as response:
                        status, got, data = response.status, response.headers, response.read()
                except urllib.error.HTTPError as exc:
                    status, got, data = exc.code, exc.headers, exc.read()
                self.send_response(status)
                for key, value in got.items():
                    if key.lower() not in HOP_BY_HOP:
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = forward  # noqa: N815 - http.server's names

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def problems(self, sdk: str, major: int, version: str) -> list[str]:
        """Requests not made by SDK `sdk` at `major` (one User-Agent, `Stripe/v1
        <sdk>/<version>`, e.g. PythonBindings), or not at API `version` (exactly one
        Stripe-Version header)."""
        if not self.requests:
            return ["it made no Stripe request through STRIPE_API_BASE"]
        bad = []
        for r in self.requests:
            # one User-Agent (values are joined with ", "), app info after a space allowed
            found = re.fullmatch(rf"Stripe/v1 {re.escape(sdk)}/v?([^\s,]+)(?: [^,]*)?",
                                 r["user_agent"])
            if r["stripe_version"] != version:
                bad.append(f"{r['method']} {r['path']} sent Stripe-Version "
                           f"{r['stripe_version']!r}")
            elif not found or not found.group(1).startswith(f"{major}."):
                bad.append(f"{r['method']} {r['path']} came from {r['user_agent']!r}")
        return sorted(set(bad))[:5]


def free_ports(count: int) -> list[int]:
    """`count` different ports free on 127.0.0.1 now (all held until all are found)."""
    held = []
    try:
        for _ in range(count):
            sock = socket.socket()
            held.append(sock)
            sock.bind(("127.0.0.1", 0))
        return [int(sock.getsockname()[1]) for sock in held]
    finally:
        for sock in held:
            sock.close()


def _start(request: dict[str, Any]) -> launch.Started:
    return launch.start(request.pop("argv"), **request)


def request_record(after: int = 0, limit: int | None = None) -> dict[str, Any]:
    """One read of the trial account's request record (emulator/request_log.py): its
    counters, and up to `limit` held entries with seq > `after`."""
    params = {"after": after, **({"limit": limit} if limit is not None else {})}
    request = urllib.request.Request(
        _env("STRIPE_API_BASE").rstrip("/") + READ_PATH + "?" + urllib.parse.urlencode(params),
        headers={"Authorization": f"Bearer {_env('STRIPE_SECRET_KEY')}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        page: dict[str, Any] = json.loads(response.read())
    return page


def request_log(after: int = 0) -> Iterator[dict[str, Any]]:
    """The record's held entries with seq > `after`, oldest first, page by page."""
    while True:
        page = request_record(after)
        yield from page["data"]
        if not page["has_more"] or not page["data"]:
            return
        after = page["data"][-1]["seq"]


def _bypassing(record: dict[str, Any], watermark: int, stamps: set[str],
               entries: Callable[[], Iterator[dict[str, Any]]]) -> list[str]:
    """`ServiceCopies.bypassing` on a read of the record (`limit=0`: counters only):
    requests after seq `watermark` carrying none of `stamps` (SHA-256 hashes), at most
    five, described. `entries()` walks the held entries after the watermark.

    Fails closed: a record that overflowed its budget, or that began anew since the
    watermark, is itself a finding (first in the list), even when its counters show
    every request of the grading stamped."""
    total = record["total"]
    if total < watermark or record["began"] == "restarted":
        why = "began at an emulator restart" if record["began"] == "restarted" \
            else "began anew"
        return [f"the emulator's request record does not cover the whole grading (it "
                f"{why}; {total} requests now, {watermark} when the grading began): the "
                "grading's requests cannot all be checked"]
    found = []
    if record["dropped"]:  # from seq kept + 1 on: the grading's requests are among them
        found.append(f"the emulator's request record overflowed: {record['dropped']} "
                     f"requests (from seq {record['kept'] + 1} on) were counted but not "
                     f"kept ({record['budget_bytes']} bytes a record), so the grading's "
                     "requests cannot all be checked")
    # Exact whatever was dropped: the grader's stamps are fresh secrets, so every
    # request that carried one came after the watermark.
    stamped = sum(record["stamps"].get(stamp, 0) for stamp in stamps)
    if total - watermark - stamped == 0:
        return found
    for entry in entries():
        if len(found) >= 5:
            break
        if entry.get("recorded_by") not in stamps:
            found.append(f"{entry['method']} {entry['path']} "
                         f"({entry.get('user_agent') or 'no User-Agent'})")
    return found


class ServiceCopies:
    """The grader's copies of `services`, each started as `command(service)` in `work`
    with PORT and every emulator-naming variable set, behind its own Recorder."""

    def __init__(self, work: Path, services: Sequence[str], *,
                 command: Callable[[str], list[str]] = lambda s: ["bash", "run.sh", s],
                 ready_path: str = "/healthz", start_seconds: float = 60) -> None:
        upstream = _env("STRIPE_API_BASE")
        # The seq of the last request before the grading: every later one must carry
        # one of the stamps below (see `bypassing`).
        self.watermark: int = request_record(limit=0)["total"]
        self.grader = Recorder(upstream)
        self.grader_base = self.grader.url
        self.recorders: dict[str, Recorder] = {}
        self.urls: dict[str, str] = {}
        self.procs: dict[str, launch.Started] = {}
        requests = {}
        for service in services:   # the recorders hold their ports before any is picked
            self.recorders[service] = Recorder(upstream)
        for service, port in zip(services, free_ports(len(services)), strict=True):
            recorder = self.recorders[service]
            # Every variable naming the emulator names the proxy instead: a service that
            # reached the emulator through STRIPE_BASE_URL would go past the recording.
            env = {k: recorder.url for k, v in os.environ.items()
                   if v.rstrip("/") == upstream.rstrip("/")}
            proxy = recorder.server.server_port   # the copy reaches it at the same port
            requests[service] = dict(
                argv=command(service), cwd=work, log=f"{service}-copy", serve=port,
                reach={proxy: proxy},
                env={**env, "PORT": str(port), "STRIPE_API_BASE": recorder.url})
            self.urls[service] = f"http://127.0.0.1:{port}"
        # each copy's room takes a moment to make: all of them at once
        with ThreadPoolExecutor(max(1, len(requests))) as pool:
            started = {service: pool.submit(_start, request)
                       for service, request in requests.items()}
        for service, future in started.items():
            if future.exception() is None:
                self.procs[service] = future.result()
        failed = [future.exception() for future in started.values() if future.exception()]
        if failed:
            self.stop()
            raise failed[0]  # type: ignore[misc]
        deadline = time.monotonic() + start_seconds
        for service in self.procs:
            while time.monotonic() < deadline:
                try:
                    with urllib.request.urlopen(self.urls[service] + ready_path, timeout=2):
                        break
                except OSError:
                    time.sleep(0.1)

    def bypassing(self) -> list[str]:
        """The grading's requests that reached the emulator without going through one of
        the grader's proxies (at most five, described). When the account's request
        record cannot show every request since the grading began (its budget ran out,
        or it began anew), that comes first: a check that relies on this fails closed."""
        stamps = {hashlib.sha256(r.stamp.encode()).hexdigest()
                  for r in [self.grader, *self.recorders.values()]}
        return _bypassing(request_record(limit=0), self.watermark, stamps,
                          partial(request_log, self.watermark))

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.stop()
        for recorder in [self.grader, *self.recorders.values()]:
            recorder.server.shutdown()


def grade_upgrades(grader: Grader, copies: ServiceCopies,
                   cases: dict[str, dict[str, list[tuple[str, Callable[[], Any], int]]]],
                   upgraded: Callable[[str, list[str]], bool], budget_seconds: float) -> None:
    """The SDK-upgrade graders' scoring: per service, `<service>_upgraded` (weight 1;
    `upgraded(service, bypassing)` raises why not) and each group of contract cases
    (the first weight 2, the rest 1), which count only for an upgraded service: its old
    code would still answer correctly through the old SDK and version.

    The contracts run first (each service with its own `budget_seconds`, so one that
    hangs cannot starve the others): the recorders must have seen what they caused."""
    budget = Budget(budget_seconds)
    results = {}
    for service, groups in cases.items():
        budget.restart()
        results[service] = [(name, budget.compare(group)) for name, group in groups.items()]
    bypassing = copies.bypassing()
    for service, scored in results.items():
        ok = grader.check(f"{service}_upgraded", 1, partial(upgraded, service, bypassing))
        for n, (name, (score, miss)) in enumerate(scored):
            weight = 2 if n == 0 else 1
            if ok < 1.0:
                grader.check(f"{service}_{name}", weight, 0.0, "the service is not upgraded")
            else:
                grader.check(f"{service}_{name}", weight, score, miss)
