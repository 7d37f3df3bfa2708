"""Wall 4 of issue 25: the recording proxy as a side channel.

The SDK-upgrade graders start a copy of each service behind a recording proxy of its
own and judge the copy by what its proxy saw; every request of the grading must carry
some proxy's stamp. When the copies, the task's services and the grader shared one
network, a copy could find the grader's own proxy (or another copy's) in /proc/net/tcp
and send its stale-SDK request through it: stamped, and seen by no proxy that judges it.
Now each piece of the agent's code runs in a side room with a network of its own that
holds the emulator and only the ports the grader handed it.

The trial below plays that attack with the real parts: a task whose service and whose
graded copies (the agent's `app.py`) scan for listening ports, try every one (and every
port the grader knows of, as a guesser would), directly and through a unix-socket relay
the service opens in the shared submission folder, then send the stale request straight
to Stripe's host. The grader (a real grader in the sealed room, with ServiceCopies)
reports what happened in its reward.json.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import RunningEmulator, start_emulator
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.emulator import Emulator
from stripebench.harness.sandbox import bwrap_available
from stripebench.harness.task import load_task
from stripebench.harness.trial import TrialConfig, run_trial

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")

STALE_AGENT = "Stripe/v1 PythonBindings/2.0.0"

TASK_TOML = """\
[metadata]
version = 1
id = "side-channel"
title = "Fixture: agent code that hunts for the grader's recording proxies"
category = "backend"

[agent]
timeout_sec = 60
max_turns = 5

[verifier]
timeout_sec = 180
command = "python tests/grade.py"

[environment]
services_timeout_sec = 30

[[services]]
name = "web"
command = "python3 app.py web"
port = 8000
ready_url = "http://127.0.0.1:{port}/health"
"""

# The agent's code: `web` (the task's service) and `copy NAME` (what run.sh starts for
# the grader's service copies). /attack?ports=... tries to reach Stripe through every
# listening port it finds and every port named, then goes straight to Stripe's host.
APP = r'''
import http.server, json, os, socket, ssl, sys, threading, urllib.parse, urllib.request

MODE = sys.argv[1]
PORT = int(os.environ["PORT"])
STALE = {"User-Agent": "Stripe/v1 PythonBindings/2.0.0", "Stripe-Version": "2019-02-19",
         "Authorization": "Bearer " + os.environ["STRIPE_SECRET_KEY"]}
RELAY = os.path.join(os.getcwd(), ".side.sock")
hooks = []


def own_recorder():
    base = urllib.parse.urlsplit(os.environ.get("STRIPE_API_BASE", ""))
    return base.port if base.hostname == "127.0.0.1" else None


def listening():
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A":   # LISTEN
                found.add(int(fields[1].rsplit(":", 1)[1], 16))
    return sorted(found)


def stale_request(sock):
    sock.sendall(("GET /v1/customers?limit=1 HTTP/1.1\r\nHost: api.stripe.com\r\n"
                  + "".join(f"{k}: {v}\r\n" for k, v in STALE.items())
                  + "Connection: close\r\n\r\n").encode())
    data = b""
    while len(data) < 65536:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head = data.split(b"\r\n", 1)[0].decode("latin-1")
    return "STRIPE" if b'"object": "list"' in data or b'"object":"list"' in data \
        else (head or "closed")


def through_port(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3) as sock:
            sock.settimeout(3)
            return stale_request(sock)
    except OSError as exc:
        return type(exc).__name__


def through_relay(port):
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(3)
            sock.connect(RELAY)
            sock.sendall(f"{port}\n".encode())
            return stale_request(sock)
    except OSError as exc:
        return type(exc).__name__


def direct():
    request = urllib.request.Request("https://api.stripe.com/v1/customers?limit=1",
                                     headers=STALE)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except Exception as exc:
        return repr(exc)


def own_recorder_request():
    """The honest way out for a copy: its own recorder (which judges what it sees)."""
    port = own_recorder()
    return through_port(port) if port else None


def attack(named):
    mine = {PORT, own_recorder()}
    seen = listening()
    targets = sorted((set(seen) | set(named)) - mine)
    return {"listening": seen, "through": {p: through_port(p) for p in targets},
            "via_relay": {p: through_relay(p) for p in targets},
            "own_recorder": own_recorder_request(), "direct": direct()}


def relay_for_others():
    """The service carries any connection on .side.sock to the port named first."""
    try:
        os.unlink(RELAY)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX)
    server.bind(RELAY)
    server.listen(16)

    def pipe(a, b):
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            try:
                b.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def serve(conn):
        line = b""
        while not line.endswith(b"\n"):
            line += conn.recv(1)
        try:
            out = socket.create_connection(("127.0.0.1", int(line)), timeout=3)
        except OSError:
            conn.close()
            return
        threading.Thread(target=pipe, args=(conn, out), daemon=True).start()
        pipe(out, conn)

    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


class Handler(http.server.BaseHTTPRequestHandler):
    def reply(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/health":
            self.reply({"mode": MODE})
        elif url.path == "/hooks":
            self.reply(hooks)
        elif url.path == "/attack":
            named = urllib.parse.parse_qs(url.query).get("ports", [""])[0]
            self.reply(attack([int(p) for p in named.split(",") if p]))
        else:
            self.send_error(404)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        hooks.append(json.loads(body).get("type"))
        self.reply({"received": True})

    def log_message(self, *args):
        pass


if MODE == "web":
    threading.Thread(target=relay_for_others, daemon=True).start()
http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
'''

# The grader: ServiceCopies as the SDK-upgrade graders use it, plus the attacks' report.
GRADER = r'''
import json, os, time, urllib.parse, urllib.request

from stripebench.grading import stripe_client, workdir
from stripebench.grading.sdk_upgrade.service_copies import ServiceCopies


def get(url):
    with urllib.request.urlopen(url, timeout=60) as response:
        return json.loads(response.read())


def port(url):
    return urllib.parse.urlsplit(url).port


work = workdir()
web = os.environ["WEB_URL"]
findings = {}
copies = ServiceCopies(work, ("a", "b"))
try:
    secret = {"grader_recorder": copies.grader.server.server_port,
              "a_recorder": copies.recorders["a"].server.server_port,
              "b_recorder": copies.recorders["b"].server.server_port,
              "a": port(copies.urls["a"]), "b": port(copies.urls["b"]), "web": port(web)}
    findings["secret"] = secret
    findings["grader_reaches"] = {"web": get(web + "/health"),
                                  "a": get(copies.urls["a"] + "/health"),
                                  "b": get(copies.urls["b"] + "/health")}
    named = ",".join(map(str, secret.values()))
    findings["copy_a"] = get(copies.urls["a"] + "/attack?ports=" + named)
    findings["web"] = get(web + "/attack?ports=" + named)
    findings["bypassing"] = copies.bypassing()
    findings["grader_recorder"] = [r["user_agent"] for r in copies.grader.requests]
    findings["a_recorder"] = [r["user_agent"] for r in copies.recorders["a"].requests]
    findings["a_problems"] = copies.recorders["a"].problems("PythonBindings", 16,
                                                            "2026-10-28.endive")
    # a webhook still reaches the service restarted for the grading
    client = stripe_client(api_base=copies.grader_base)
    client.v1.webhook_endpoints.create({"url": web + "/hook",
                                        "enabled_events": ["customer.created"]})
    client.v1.customers.create({"email": "hook@example.com"})
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and "customer.created" not in get(web + "/hooks"):
        time.sleep(0.2)
    findings["hooks"] = get(web + "/hooks")
finally:
    copies.stop()
with open(os.environ["STRIPEBENCH_REWARD_PATH"], "w") as out:
    json.dump({"total": 1.0, "subscores": {}, "findings": findings}, out)
'''


def side_channel_task(root: Path) -> Path:
    task = root / "side-channel"
    (task / "environment").mkdir(parents=True)
    (task / "tests").mkdir()
    (task / "task.toml").write_text(TASK_TOML)
    (task / "instruction.md").write_text("Nothing to do: the environment is the attack.\n")
    (task / "environment" / "app.py").write_text(APP)
    (task / "environment" / "run.sh").write_text('exec python3 app.py copy "$1"\n')
    (task / "tests" / "grade.py").write_text(textwrap.dedent(GRADER))
    return task


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    emulator = start_emulator()
    yield emulator
    emulator.stop()


@pytest.fixture(scope="module")
def findings(tmp_path_factory: pytest.TempPathFactory, emu: RunningEmulator
             ) -> dict[str, Any]:
    """One trial over the side-channel task, graded in the sealed room (bubblewrap)."""
    root = tmp_path_factory.mktemp("wall4")
    task = load_task(side_channel_task(root))
    trial_dir = root / "trial"
    record = run_trial(task, 1, trial_dir, ScriptedAgent([
        {"tool": "submit", "args": {"summary": "the environment does it"}}]),
        Emulator(emu.base), TrialConfig("wall4", "scripted", None, sandbox="bwrap"))
    assert record["status"] == "completed" and record["reward"] == 1.0, \
        (record, (trial_dir / "grader.log").read_text())
    found: dict[str, Any] = json.loads((trial_dir / "reward.json").read_text())["findings"]
    return found


def _reached_stripe(report: dict[str, Any]) -> list[str]:
    return [f"{way} {port}" for way in ("through", "via_relay")
            for port, outcome in report[way].items() if outcome == "STRIPE"]


def test_the_grader_still_reaches_the_service_and_the_copies(findings: dict[str, Any]
                                                             ) -> None:
    assert findings["grader_reaches"] == {"web": {"mode": "web"}, "a": {"mode": "copy"},
                                          "b": {"mode": "copy"}}


def test_a_copy_reaches_no_proxy_of_the_graders_but_its_own(findings: dict[str, Any]
                                                            ) -> None:
    """Copy a scans its network and tries every port the grader holds (its own
    recorder, b's recorder and port, the service's port): none carries its stale
    request to Stripe, directly or through the service's relay in the shared folder."""
    secret, attack = findings["secret"], findings["copy_a"]
    assert _reached_stripe(attack) == [], attack
    others = {secret[k] for k in ("grader_recorder", "b_recorder", "b", "web")}
    assert not others & set(attack["listening"]), (secret, attack["listening"])
    for port in others:
        assert attack["through"][str(port)] in ("ConnectionRefusedError", "closed"), attack


def test_the_stale_requests_are_caught(findings: dict[str, Any]) -> None:
    """What copy a sent went where the grader's checks see it: through its own
    recorder (which judges it), or straight to Stripe (no stamp: bypassing)."""
    assert findings["copy_a"]["own_recorder"] == "STRIPE"
    assert STALE_AGENT in findings["a_recorder"]
    assert any("2019-02-19" in problem for problem in findings["a_problems"]), findings
    assert findings["copy_a"]["direct"] == 200
    assert any(STALE_AGENT in request for request in findings["bypassing"]), findings
    assert STALE_AGENT not in findings["grader_recorder"]


def test_a_service_reaches_no_copy_or_recorder(findings: dict[str, Any]) -> None:
    secret, attack = findings["secret"], findings["web"]
    assert _reached_stripe(attack) == [], attack
    graders = {secret[k] for k in ("grader_recorder", "a_recorder", "b_recorder", "a", "b")}
    assert not graders & set(attack["listening"]), (secret, attack["listening"])
    assert attack["own_recorder"] is None   # a service has none


def test_webhooks_still_reach_the_service_in_grading(findings: dict[str, Any]) -> None:
    assert "customer.created" in findings["hooks"], findings["hooks"]
