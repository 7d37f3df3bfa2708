"""sdk-upgrade-go grader.

Gate: go.mod requires stripe-go v85 (the current major). Then, per service (payments,
invoices, subscriptions):

- `<service>_upgraded`: the service reports (GET /version) the stripe-go release it was
  built with at major 85 and the API version stripe-go v85 sends, its package depends on
  stripe-go v85 and no other major (`go list -deps`), its code names no older API
  version, and what it reports is what it does: the grader starts its own copy of each
  service from the workdir (`bash run.sh <service>`, which builds it) with
  `STRIPE_API_BASE` pointing at a recording proxy in front of the emulator, grades that
  copy, and requires every Stripe request it made to carry exactly one `Stripe-Version`,
  the current one, and exactly one User-Agent, stripe-go v85's (a service that reports
  v85 while its requests come from v72 at 2020-08-27 is not upgraded);
- contract checks: the grader makes fresh test data through the API (payments refunded,
  uncaptured and unpaid; invoices paid, open, paid out of band, void and draft;
  subscriptions with several items, intervals and states), computes each endpoint's JSON
  itself from the current API (contracts.py), and compares it with what the service
  answers. A service that is not upgraded scores 0 on its contracts: its old code would
  still answer correctly through the old SDK and version.

Each service weighs the same (4), so each is a third of the total. The contracts and
the test data are sdk-upgrade-python's: the three services answer the same JSON.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contracts  # noqa: E402
import scenario  # noqa: E402

SERVICES = ("payments", "invoices", "subscriptions")
MAJOR = 85
# The API version stripe-go v85 is pinned to (its stripe.APIVersion): every request it
# makes carries it, and no client option changes it.
API_VERSION = "2026-03-25.dahlia"
MODULE = "github.com/stripe/stripe-go/v"
# A requirement of stripe-go in go.mod: `require <module> <version>` or a line of a
# require block.
REQUIREMENT = re.compile(r"^\s*(?:require\s+)?github\.com/stripe/stripe-go/v(\d+)\s+"
                         r"v(\d+)\.\d+\.\d+\S*", re.MULTILINE)
# Go string literals: interpreted ("...") and raw (`...`).
VERSION_LITERAL = re.compile(r"""["`](\d{4}-\d{2}-\d{2}(?:\.[a-z]+)?)["`]""")


def current_version() -> str:
    return API_VERSION


def _small_file(path: Path, limit: int = 1_000_000) -> str:
    """A regular file's text; anything else (a FIFO would hang the read) is an error."""
    import stat

    info = path.stat()
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        raise ValueError(f"{path.name} is not a regular file of sane size")
    return path.read_text(errors="replace")


def pinned_major(work: Path) -> bool:
    """go.mod requires stripe-go at the current major (v85.x.y); the old major may stay
    for services not upgraded yet, which then score nothing of their own."""
    try:
        text = _small_file(work / "go.mod")
    except (OSError, ValueError) as exc:
        raise ValueError(f"no readable go.mod: {exc}") from None
    code = "\n".join(line.split("//")[0] for line in text.splitlines())
    found = [(int(path), int(version)) for path, version in REQUIREMENT.findall(code)]
    if (MAJOR, MAJOR) not in found:
        listed = ", ".join(f"v{p} v{v}" for p, v in found) or "none"
        raise ValueError(f"go.mod must require {MODULE}{MAJOR} v{MAJOR}.x.y "
                         f"(stripe-go requirements found: {listed})")
    return True


# The services are the agent's code: however they misbehave (hang, reset, garbage), the
# grader must finish and score them 0, never time out or crash (a grader_error leaves the
# task out of every mean, which would reward breaking what one cannot fix). Each request
# waits at most REQUEST_TIMEOUT seconds, and all of one service's SERVICE_BUDGET: each
# service has its own, so one that hangs cannot starve the others of their share.
REQUEST_TIMEOUT = 10.0
SERVICE_BUDGET = 20.0
_budget = {"deadline": 0.0}


def start_budget() -> None:
    """The next service's requests get SERVICE_BUDGET seconds from now."""
    _budget["deadline"] = time.monotonic() + SERVICE_BUDGET


def get(url: str) -> tuple[int, Any]:
    """(status, JSON body or text tail) of a GET to a service; status 0 when the service
    did not answer (timeout, reset, refused, out of the grading budget)."""
    if not _budget["deadline"]:
        start_budget()
    left = _budget["deadline"] - time.monotonic()
    if left <= 0:
        return 0, "the service used up its share of the grader's time"
    try:
        with urllib.request.urlopen(url, timeout=min(REQUEST_TIMEOUT, left)) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status = exc.code
        try:
            body = exc.read()
        except OSError:
            body = b""
    except (OSError, ValueError, http.client.HTTPException) as exc:
        return 0, f"no answer: {type(exc).__name__}: {exc}"
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body.decode("utf-8", "replace")[-300:]


def stale_versions(work: Path, service: str) -> list[str]:
    """Older API versions named in the service's Go code (its package and shared ones;
    not the other services' packages, nor hidden folders such as the build cache)."""
    from stripebench.emulator.versions import KNOWN_VERSIONS

    others = {work / "services" / s for s in SERVICES if s != service}
    found = []
    for folder, dirs, names in os.walk(work):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "vendor"
                         and Path(folder) / d not in others)
        for path in (Path(folder) / n for n in sorted(names) if n.endswith(".go")):
            if not path.is_file() or path.stat().st_size > 2_000_000:  # FIFOs hang a read
                continue
            found += [f"{path.relative_to(work)}: {literal}"
                      for literal in VERSION_LITERAL.findall(path.read_text(errors="replace"))
                      if literal in KNOWN_VERSIONS and literal != current_version()]
    return found


def sdk_majors(work: Path, service: str) -> set[int]:
    """The stripe-go majors the service's package depends on, as its build resolves them
    (`go list -deps`, offline, nothing compiled or run): a service that keeps its v72 code
    and forges v85's headers onto its requests (stripe-go lets a request set any header)
    still links v72. Each must be the real module from the module cache, not a local
    copy standing in for it (a `replace` in go.mod or go.work)."""
    cache = Path(os.environ.get("STRIPEBENCH_GOMODCACHE", "/nonexistent")).resolve()
    env = {**os.environ, "GOMODCACHE": str(cache), "GOPROXY": "off", "GOSUMDB": "off",
           "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local", "GOENV": "off",
           "GOCACHE": str(work / ".go" / "cache")}
    listing = ("{{if not .Standard}}{{with .Module}}{{.Path}}\t{{.Dir}}{{end}}\n{{end}}")
    try:
        done = subprocess.run(["go", "list", "-deps", "-f", listing, f"./services/{service}"],
                              cwd=work, env=env, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ValueError(f"go list of the service's package failed: {exc}") from None
    if done.returncode != 0:
        raise ValueError("go list of the service's package failed: " + done.stderr[-500:])
    majors = set()
    for line in done.stdout.splitlines():
        module, _, folder = line.partition("\t")
        found = re.fullmatch(r"github\.com/stripe/stripe-go/v(\d+)", module)
        if not found:
            continue
        if cache not in Path(folder).resolve().parents:
            raise ValueError(f"{module} comes from {folder}, not the module cache")
        majors.add(int(found.group(1)))
    return majors


def upgraded(work: Path, service: str, url: str, recorder: Recorder | None = None) -> bool:
    status, info = get(url + "/version")
    if status != 200 or not isinstance(info, dict):
        raise ValueError(f"GET /version answered {status}: {str(info)[:200]}")
    sdk = str(info.get("stripe_sdk", ""))
    if sdk.removeprefix("v").split(".")[0] != str(MAJOR):
        raise ValueError(f"the service runs stripe-go {sdk!r}, not {MAJOR}.x")
    if info.get("api_version") != current_version():
        raise ValueError(f"the service uses API version {info.get('api_version')!r}, "
                         f"not {current_version()}")
    majors = sdk_majors(work, service)
    if majors != {MAJOR}:
        found = ", ".join(f"v{m}" for m in sorted(majors)) or "no stripe-go"
        raise ValueError(f"the service's package depends on {found}, not stripe-go v{MAJOR} "
                         "alone")
    stale = stale_versions(work, service)
    if stale:
        raise ValueError("older API versions still in the code: " + ", ".join(stale))
    if recorder is not None and recorder.problems():
        raise ValueError(f"its Stripe requests are not stripe-go v{MAJOR} at the current API "
                         "version: " + "; ".join(recorder.problems()))
    return True


HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host",
              "content-encoding", "accept-encoding", "proxy-connection", "upgrade", "te"}


class Recorder:
    """A recording HTTP proxy in front of the emulator: what a service really sends."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.requests: list[dict[str, str]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                # Every value of each header: a request carrying two Stripe-Versions
                # (a hand-made request can send two) is not one version.
                recorder.requests.append({
                    "method": self.command, "path": self.path.split("?")[0],
                    "stripe_version": " | ".join(self.headers.get_all("Stripe-Version", [])),
                    "user_agent": " | ".join(self.headers.get_all("User-Agent", []))})
                request = urllib.request.Request(
                    recorder.upstream + self.path, data=body, method=self.command,
                    headers={k: v for k, v in self.headers.items()
                             if k.lower() not in HOP_BY_HOP})
                try:
                    with urllib.request.urlopen(request, timeout=60) as response:
                        status, headers, data = response.status, response.headers, \
                            response.read()
                except urllib.error.HTTPError as exc:
                    status, headers, data = exc.code, exc.headers, exc.read()
                self.send_response(status)
                for key, value in headers.items():
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

    def problems(self) -> list[str]:
        """Requests not made by stripe-go v85 at the current API version."""
        if not self.requests:
            return ["it made no Stripe request through STRIPE_API_BASE"]
        bad = []
        for r in self.requests:
            sdk = re.fullmatch(r"Stripe/v1 GoBindings/(\S+)(?: [^|]*)?", r["user_agent"])
            if r["stripe_version"] != current_version():
                bad.append(f"{r['method']} {r['path']} sent Stripe-Version "
                           f"{r['stripe_version']!r}")
            elif not sdk or not sdk.group(1).startswith(f"{MAJOR}."):
                bad.append(f"{r['method']} {r['path']} came from {r['user_agent']!r}")
        return sorted(set(bad))[:5]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_copies(work: Path) -> dict[str, tuple[str, Recorder, subprocess.Popen[bytes]]]:
    """Each service started again from the workdir, as run.sh starts it (building it, one
    at a time, from the build cache the services' restart left warm), on a free port and
    with STRIPE_API_BASE pointing at its own recording proxy."""
    upstream = os.environ["STRIPE_API_BASE"]
    copies = {}
    for service in SERVICES:
        recorder = Recorder(upstream)
        port = free_port()
        log = open(Path(__file__).resolve().parent.parent / f"{service}-copy.log", "wb")  # noqa: SIM115
        # Every variable naming the emulator names the proxy instead: a service that
        # reached the emulator through STRIPE_BASE_URL would go past the recording.
        env = {k: recorder.url if v.rstrip("/") == upstream.rstrip("/") else v
               for k, v in os.environ.items()}
        proc = subprocess.Popen(["bash", "run.sh", service], cwd=work, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                env={**env, "PORT": str(port), "STRIPE_API_BASE": recorder.url})
        copies[service] = (f"http://127.0.0.1:{port}", recorder, proc)
    deadline = time.monotonic() + 120
    for url, _, proc in copies.values():
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=2):
                    break
            except OSError:
                time.sleep(0.1)
    return copies


def harden() -> None:
    """The grader runs the agent's code (its copies of the services) beside itself: make
    this process off limits to them (no ptrace, no /proc/<pid>/mem, fd or environ)."""
    import ctypes

    try:
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass


def kill_strays() -> None:
    """In a bubblewrap sandbox (a pid namespace of its own) every process but this one,
    its ancestors and the namespace's init is the agent's code by now (the service
    copies and anything they left behind): stop them before the reward is written."""
    import signal

    if os.environ.get("STRIPEBENCH_SANDBOX") != "bwrap":
        return
    keep, pid = {1}, os.getpid()
    while pid > 1:
        keep.add(pid)
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) not in keep:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass


def stop_copies(copies: dict[str, tuple[str, Recorder, subprocess.Popen[bytes]]]) -> None:
    import signal

    for _, recorder, proc in copies.values():
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        recorder.server.shutdown()


def compare(cases: list[tuple[str, Callable[[], Any], int]]) -> tuple[float, str]:
    """Fraction of (path, expected, status) cases the service answers exactly."""
    good, first_miss = 0, ""
    for url, expected, want_status in cases:
        status, body = get(url)
        wanted = expected()
        if status == want_status and body == wanted:
            good += 1
        elif not first_miss:
            first_miss = (f"{url.split('/', 3)[-1]}: got {status} "
                          f"{json.dumps(body, sort_keys=True)[:600]}; expected {want_status} "
                          f"{json.dumps(wanted, sort_keys=True)[:600]}")
    return good / len(cases), first_miss


def sanity(value: bool, what: str) -> None:
    """The grader's own expectations about the data it made (an emulator drift shows here
    as a grader error, never as a score)."""
    if not value:
        raise RuntimeError(f"grader data is not what it should be: {what}")


def contract_cases(client: Any, urls: dict[str, str]
                   ) -> dict[str, dict[str, list[tuple[str, Any, int]]]]:
    pay, inv, sub = (scenario.payments(client), scenario.invoices(client),
                     scenario.subscriptions(client))
    twice = contracts.payment(client, pay["refunded_twice"])
    sanity(twice["charge"]["amount_refunded"] == 1500 and len(twice["charge"]["refunds"]) == 2,
           "a payment refunded twice")
    sanity(contracts.payment(client, pay["unpaid"])["charge"] is None, "an unpaid payment")
    paid = contracts.invoice_status(client, inv["paid"])
    sanity(paid["paid"] and paid["payment"]["status"] == "succeeded", "a paid invoice")
    sanity(contracts.subscription_metrics(client, sub["annual"])["period_days"] in (365, 366),
           "a yearly subscription")
    sanity(contracts.subscription_summary(client, sub["customers"][0])["total"] == 4,
           "a customer with four subscriptions")

    def case(service: str, path: str, fn: Callable[..., Any], *args: Any,
             status: int = 200) -> tuple[str, Any, int]:
        return (urls[service] + path, lambda: fn(client, *args), status)

    def missing(service: str, path: str, object_id: str) -> tuple[str, Any, int]:
        return (urls[service] + path, lambda: {"error": "not_found", "id": object_id}, 404)

    return {
        "payments": {
            "details": [case("payments", f"/payments/{i}", contracts.payment, i)
                        for i in pay["intents"]]
            + [missing("payments", "/payments/pi_missing", "pi_missing")],
            "customer_list": [case("payments", f"/customers/{c}/payments",
                                   contracts.customer_payments, c) for c in pay["customers"]],
        },
        "invoices": {
            "status": [case("invoices", f"/invoices/{i}/payment-status",
                            contracts.invoice_status, i) for i in inv["invoices"]]
            + [missing("invoices", "/invoices/in_missing/payment-status", "in_missing")],
            "customer_list": [case("invoices", f"/customers/{c}/invoices",
                                   contracts.customer_invoices, c) for c in inv["customers"]],
        },
        "subscriptions": {
            "metrics": [case("subscriptions", f"/subscriptions/{s}/metrics",
                             contracts.subscription_metrics, s)
                        for s in [*sub["subscriptions"], sub["canceled"]]]
            + [missing("subscriptions", "/subscriptions/sub_missing/metrics", "sub_missing")],
            "summary": [case("subscriptions", f"/customers/{c}/subscriptions/summary",
                             contracts.subscription_summary, c) for c in sub["customers"]],
        },
    }


def main() -> None:
    from stripebench.grading import Grader, stripe_client, workdir

    work = workdir()
    grader = Grader()
    if not grader.gate(f"stripe_{MAJOR}_pinned", lambda: pinned_major(work)):
        grader.write()
        return
    client = stripe_client()
    harden()
    copies = start_copies(work)
    try:
        cases = contract_cases(client, {s: copies[s][0] for s in SERVICES})
        for service in SERVICES:
            url, recorder, _ = copies[service]
            start_budget()
            # The contracts first: the recorder must see the requests they cause.
            results = [(name, compare(group)) for name, group in cases[service].items()]
            ok = grader.check(f"{service}_upgraded", 1,
                              partial(upgraded, work, service, url, recorder))
            for n, (name, (score, miss)) in enumerate(results):
                weight = 2 if n == 0 else 1
                if ok < 1.0:
                    grader.check(f"{service}_{name}", weight, 0.0, "the service is not upgraded")
                    continue
                grader.check(f"{service}_{name}", weight, score, miss)
    finally:
        stop_copies(copies)
        kill_strays()
    grader.write()


if __name__ == "__main__":
    main()
