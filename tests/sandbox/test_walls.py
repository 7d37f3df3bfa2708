"""The trial's walls: each test is an agent trying to climb one (issue 13).

Every test here plays the adversary from inside a sandbox (or from the workdir the
harness later reads) and asserts the attempt fails. They never change the host: kernel
knobs are only *opened* for writing (never written), the module named for unloading
does not exist, and the device node asked for would be /dev/null's.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import stripe

from conftest import RunningEmulator, start_emulator
from paths import TESTS
from stripebench.emulator.ids import IdGenerator
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.emulator import Emulator, trial_account_id
from stripebench.harness.runner import RunPlan, execute
from stripebench.harness.sandbox import SandboxError, bwrap_available, make_sandbox
from stripebench.harness.task import load_task
from stripebench.routing.attach import AttachedSandbox
from stripebench.routing.bwrap import BubblewrapSandbox

SHOP = load_task(TESTS / "fixtures" / "tasks" / "fixture-shop")
CREATE_CUSTOMER = ('curl -sf "$STRIPE_API_BASE/v1/customers" -u "$STRIPE_SECRET_KEY:" '
                   '-d email=ada@example.com -d "name=Ada Lovelace"')
STRIPEBENCH = str(Path(sys.executable).parent / "stripebench")
needs_bwrap = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")

# ---------------------------------------------------------------------- kernel and host

# What a root-without-capabilities process inside tries. Files are opened, never
# written: an open that succeeds is already the failure we look for.
KERNEL_PROBE = r'''
import ctypes, errno, json, os, stat
libc = ctypes.CDLL(None, use_errno=True)
seen = {}
def call(name, result):
    seen[name] = "ALLOWED" if result == 0 else errno.errorcode.get(ctypes.get_errno(), "?")
for path in ("/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe",
             "/proc/sys/vm/drop_caches", "/proc/sys/kernel/hostname",
             "/proc/sysrq-trigger", "/proc/sys/fs/binfmt_misc/register",
             "/sys/kernel/uevent_helper"):
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as exc:
        seen[path] = errno.errorcode.get(exc.errno, "?")
    else:
        os.close(fd)   # opened only; nothing was written
        seen[path] = "WRITABLE"
os.makedirs("/tmp/m", exist_ok=True)
call("mount", libc.mount(b"none", b"/tmp/m", b"tmpfs", 0, None))
call("remount_proc_sys_rw", libc.mount(None, b"/proc/sys", None, 32 | 4096, None))
call("delete_module", libc.delete_module(b"stripebench_no_such_module", 0))
init = open("/proc/1/cmdline", "rb").read().replace(b"\0", b" ").decode()
if "relay.py" in init:   # the sandbox's own init (a hidden service's pid 1 is itself)
    call("ptrace_init", libc.ptrace(16, 1, None, None))   # PTRACE_ATTACH
try:
    os.mknod("/tmp/null-copy", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    seen["mknod"] = "ALLOWED"
except OSError as exc:
    seen["mknod"] = errno.errorcode.get(exc.errno, "?")
fd = os.open("/proc/1/ns/mnt", os.O_RDONLY) if os.path.exists("/proc/1/ns/mnt") else -1
call("setns_pid1_mnt", libc.setns(fd, 0) if fd >= 0 else -1)
seen["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
seen["devices"] = sorted(os.listdir("/dev"))
print(json.dumps(seen))
'''
MARKER_SLEEP = "sleep 4747.5"


def _refused(seen: dict[str, object]) -> None:
    """Every attempt in a KERNEL_PROBE report failed."""
    for name, outcome in seen.items():
        if name in ("pids", "devices"):
            continue
        assert outcome not in ("WRITABLE", "ALLOWED"), (name, seen)
    assert seen["/proc/sys/kernel/core_pattern"] in ("EROFS", "EACCES", "EPERM"), seen
    assert seen["mount"] == "EPERM", seen
    # ENOSYS: a kernel built without modules (this machine's); EPERM: no CAP_SYS_MODULE
    assert seen["delete_module"] in ("EPERM", "ENOSYS"), seen
    assert seen.get("ptrace_init", "EPERM") == "EPERM", seen
    # only safe pseudo-devices: no disks, memory or kernel log
    assert not {"mem", "kmem", "port", "kmsg", "sda", "vda", "nvme0", "loop0"} \
        & set(seen["devices"]), seen  # type: ignore[arg-type]


@pytest.fixture()
def probe_box(tmp_path: Path) -> Iterator[BubblewrapSandbox]:
    work = tmp_path / "work"
    work.mkdir()
    (work / "probe.py").write_text(KERNEL_PROBE)
    with BubblewrapSandbox(work) as box:
        yield box


@needs_bwrap
def test_kernel_knobs_modules_devices_and_ptrace_are_out_of_reach(
        probe_box: BubblewrapSandbox) -> None:
    """kernel.core_pattern set to `|<workdir>/x` by uid 0 runs x as host root on the next
    crash: no command in the sandbox may open a sysctl for writing, mount, unload a
    module, make a device node or trace the sandbox's init."""
    host = subprocess.Popen(MARKER_SLEEP.split())
    try:
        result = probe_box.exec(["python3", "probe.py"])
        assert result.ok, result
        seen = json.loads(result.stdout)
        _refused(seen)
        assert "ptrace_init" in seen
        # host processes are invisible (own pid namespace), so none can be traced
        assert probe_box.exec(f"pgrep -f '{MARKER_SLEEP}'").exit_code != 0
        # an own user namespace does not give the knobs back either
        nested = probe_box.exec("unshare -Um python3 probe.py")
        if nested.ok:
            _refused(json.loads(nested.stdout))
        assert probe_box.exec("unshare -Umpf --mount-proc true").exit_code != 0
        assert probe_box.exec("mount -o remount,rw /proc/sys").exit_code != 0
    finally:
        host.kill()
        host.wait()


@needs_bwrap
def test_services_and_attached_commands_meet_the_same_walls(
        probe_box: BubblewrapSandbox) -> None:
    """A service the grader restarts beside itself gets a /proc of its own (pid
    namespace); the MCP server of an external CLI joins the sandbox from outside. Both
    are as walled in as a plain command."""
    work = probe_box.workdir
    probe_box.start_service("plain", "python3 probe.py > plain.json; sleep 600")
    probe_box.start_service("hidden", "python3 probe.py > hidden.json; sleep 600",
                            hide=(str(work / ".stripebench"),))
    attached = AttachedSandbox(probe_box.attach_info())
    try:
        via_attach = attached.exec(["python3", "probe.py"])
    finally:
        attached.stop()
    assert via_attach.ok, via_attach
    _refused(json.loads(via_attach.stdout))
    import time
    for name in ("plain.json", "hidden.json"):
        path = work / name
        deadline = time.monotonic() + 20
        while not (path.exists() and path.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.1)
        _refused(json.loads(path.read_text()))


# ---------------------------------------------------------------------- host-side files

@pytest.fixture()
def host_dir(tmp_path: Path) -> Path:
    """A host folder the agent must never get the harness to write into."""
    target = tmp_path / "host-only"
    target.mkdir()
    (target / "keep.txt").write_text("untouched\n")
    return target


@pytest.mark.parametrize("kind", ["local", pytest.param("bwrap", marks=needs_bwrap)])
def test_a_planted_log_symlink_is_refused_not_followed(kind: str, tmp_path: Path,
                                                       host_dir: Path) -> None:
    """The harness opens `.stripebench/logs/<service>.log` on the host as root: neither a
    symlinked logs folder nor a symlinked log file may take that write outside."""
    work = tmp_path / "work"
    (work / ".stripebench").mkdir(parents=True)
    (work / ".stripebench" / "logs").symlink_to(host_dir)
    with make_sandbox(kind, work) as box:  # type: ignore[attr-defined]
        with pytest.raises(SandboxError, match="plain folder"):
            box.start_service("web", "echo planted-output")
        (work / ".stripebench" / "logs").unlink()
        (work / ".stripebench" / "logs").mkdir()
        (work / ".stripebench" / "logs" / "web.log").symlink_to(host_dir / "web.log")
        with pytest.raises(SandboxError, match="plain folder"):
            box.start_service("web", "echo planted-output")
    assert sorted(p.name for p in host_dir.iterdir()) == ["keep.txt"]
    assert (host_dir / "keep.txt").read_text() == "untouched\n"


@pytest.mark.parametrize("kind", ["local", pytest.param("bwrap", marks=needs_bwrap)])
def test_file_tools_stay_inside_the_workdir(kind: str, tmp_path: Path, host_dir: Path) -> None:
    """`create` / `view` run on the host: a symlink inside the workdir works, one
    leading out (or a FIFO that would block the harness) is refused."""
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "app.py").write_text("print('hi')\n")
    (work / "alias.py").symlink_to("src/app.py")
    (work / "out").symlink_to(host_dir)
    (work / "secret.txt").symlink_to(host_dir / "keep.txt")
    os.mkfifo(work / "pipe")
    with make_sandbox(kind, work) as box:  # type: ignore[attr-defined]
        assert box.read_file("alias.py") == b"print('hi')\n"
        box.write_file("alias.py", "print('edited')\n")
        assert (work / "src" / "app.py").read_text() == "print('edited')\n"
        for attempt in (lambda: box.write_file("out/planted.txt", "x"),
                        lambda: box.write_file("secret.txt", "x"),
                        lambda: box.write_file(str(work / "out" / "deep" / "p.txt"), "x"),
                        lambda: box.read_file("secret.txt"),
                        lambda: box.read_file("pipe")):
            with pytest.raises(SandboxError):
                attempt()
    assert sorted(p.name for p in host_dir.iterdir()) == ["keep.txt"]
    assert (host_dir / "keep.txt").read_text() == "untouched\n"


def test_submission_hashing_streams_and_skips_what_is_not_a_file(tmp_path: Path,
                                                                 host_dir: Path) -> None:
    """A 2 GB sparse file once took the harness's memory to its size; symlinks, FIFOs
    and devices in the workdir are listed neither by content nor by opening them."""
    script = (
        "import os, resource, sys, json\n"
        "from pathlib import Path\n"
        "from stripebench.harness.trial import submission_changes\n"
        "env, work = Path(sys.argv[1]), Path(sys.argv[2])\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "changes = submission_changes(env, work)\n"
        "grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before\n"
        "print(json.dumps({'changes': changes, 'grew_kb': grew}))\n")
    env, work = tmp_path / "environment", tmp_path / "work"
    env.mkdir()
    work.mkdir()
    (env / "app.py").write_text("v1\n")
    (work / "app.py").write_text("v2\n")
    with open(work / "huge.bin", "wb") as handle:
        handle.truncate(2 * 1024**3)  # sparse: no disk used
    os.mkfifo(work / "pipe")
    (work / "outside").symlink_to(host_dir / "keep.txt")
    (work / "dir-link").symlink_to(host_dir)
    done = subprocess.run([sys.executable, "-c", script, str(env), str(work)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["changes"] == {"added": ["huge.bin"], "modified": ["app.py"], "deleted": []}
    assert report["grew_kb"] < 200 * 1024, report  # far below the file's 2 GB


@pytest.mark.parametrize("kind", ["local", pytest.param("bwrap", marks=needs_bwrap)])
def test_grading_ignores_what_the_agent_planted_in_stripebench(
        kind: str, tmp_path: Path, host_dir: Path, emulator: RunningEmulator) -> None:
    """The agent replaces `.stripebench/logs` and `.stripebench/grader` with symlinks to
    a host folder; grading (service restart, tests copied in, reward read) must write
    nothing there and still grade the work. Root in the sandbox also owns what it
    creates, so it can leave setuid binaries behind: the workdir outlives the trial on
    the host, so those bits are cleared at teardown."""
    plant = (f"rm -rf .stripebench/logs && ln -s {host_dir} .stripebench/logs && "
             f"ln -s {host_dir} .stripebench/grader && "
             # a setuid-root binary left on the host for any local user
             "cp /bin/true sneaky && chmod 4755 sneaky && mkdir -p d && cp /bin/true d/g "
             "&& chmod 2755 d/g")
    steps = [{"tool": "bash", "args": {"command": CREATE_CUSTOMER}},
             {"tool": "bash", "args": {"command": plant}},
             {"tool": "submit", "args": {"summary": "done"}}]
    results = execute(RunPlan(out=tmp_path / "run", tasks=[SHOP], agent_name="scripted",
                              model=None, sandbox=kind),
                      lambda: ScriptedAgent(steps), emulator=Emulator(emulator.base))
    assert results[0]["status"] == "completed", results[0]["error"]
    assert results[0]["subscores"]["customer_created"] == 1.0
    assert sorted(p.name for p in host_dir.iterdir()) == ["keep.txt"]
    assert (host_dir / "keep.txt").read_text() == "untouched\n"
    workdir = tmp_path / "run" / "trials" / "fixture-shop" / "1" / "workdir"
    for name in ("sneaky", "d/g"):
        mode = (workdir / name).stat().st_mode
        assert not mode & (stat.S_ISUID | stat.S_ISGID), (name, oct(mode))
        assert mode & 0o755 == 0o755  # the rest of the mode is kept


# ---------------------------------------------------------------------- control plane

# Inside `stripebench exec`: every spelling of the control plane through Stripe's host
# names, plus two raw-socket tricks (a pipelined request, a body that an upstream
# parser could read as a second request).
CONTROL_PROBE = r'''
import json, socket, ssl, subprocess, sys
seen = {}
for name, args in {
    "host_localhost": ["-H", "Host: localhost", "https://api.stripe.com/_emulator/accounts"],
    "encoded": ["https://api.stripe.com/%5Femulator/accounts"],
    "double_slash": ["-H", "Host: 127.0.0.1", "https://api.stripe.com//_emulator/accounts"],
    "absolute_form": ["--request-target", "http://localhost/_emulator/accounts",
                      "https://api.stripe.com/"],
    "reset": ["-X", "POST", "-H", "Host: localhost", "https://api.stripe.com/_emulator/reset"],
}.items():
    out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", *args],
                         capture_output=True, text=True)
    seen[name] = out.stdout
context = ssl.create_default_context()
def raw(payload):
    with socket.create_connection(("api.stripe.com", 443), timeout=10) as plain:
        with context.wrap_socket(plain, server_hostname="api.stripe.com") as tls:
            tls.sendall(payload)
            data = b""
            while True:
                try:
                    chunk = tls.recv(65536)
                except (ssl.SSLError, OSError):
                    break
                if not chunk:
                    break
                data += chunk
            return data.decode("latin-1")
sneak = b"POST /_emulator/reset HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n"
seen["pipelined"] = raw(b"GET /v1/balance HTTP/1.1\r\nHost: api.stripe.com\r\n\r\n" + sneak)
seen["smuggled"] = raw(b"POST /v1/customers HTTP/1.1\r\nHost: api.stripe.com\r\n"
                       b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                       % (len(sneak) + 5) + sneak)
print(json.dumps(seen))
'''


@needs_bwrap
def test_exec_cannot_reach_the_control_plane_of_a_tokenless_emulator(tmp_path: Path) -> None:
    """`emulator serve` without a token answers /_emulator/ to anyone on its port; code
    under `stripebench exec` reaches that port only through the TLS front, which
    refuses the control plane however it is spelled."""
    emulator = start_emulator()  # its own: a reset must not wipe the shared one
    try:
        account = emulator.new_account()
        (tmp_path / "probe.py").write_text(CONTROL_PROBE)
        done = subprocess.run([STRIPEBENCH, "exec", "--emulator", emulator.base, "--account",
                               account["id"], "--workdir", str(tmp_path), "--",
                               "python3", "probe.py"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        seen = json.loads(done.stdout)
        for name in ("host_localhost", "encoded", "double_slash", "reset"):
            assert seen[name] == "403", (name, seen)
        assert seen["absolute_form"] in ("400", "403"), seen
        assert "_emulator" not in seen["pipelined"] or "403 " in seen["pipelined"], seen
        assert '"reset": true' not in seen["pipelined"] + seen["smuggled"], seen
        # the account is still there, with its keys
        left = httpx.get(f"{emulator.base}/_emulator/accounts").json()["data"]
        assert account["id"] in [a["id"] for a in left]
        # and Stripe's own traffic still flows through the same front
        listed = run_in_exec(emulator, account, tmp_path, 'curl -sf -u "$STRIPE_SECRET_KEY:" '
                             "https://api.stripe.com/v1/customers")
        assert json.loads(listed)["object"] == "list"
    finally:
        emulator.stop()


def run_in_exec(emulator: RunningEmulator, account: dict[str, str], workdir: Path,
                command: str) -> str:
    done = subprocess.run([STRIPEBENCH, "exec", "--emulator", emulator.base, "--account",
                           account["id"], "--workdir", str(workdir), "--", "bash", "-c",
                           command], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


# ---------------------------------------------------------------------- other trials

def test_a_trial_cannot_compute_another_trials_account_or_keys(
        emulator: RunningEmulator) -> None:
    """Keys were seeded from seed 0 and sha256(task:attempt), both known to every trial,
    so one trial could compute a parallel trial's secret key. Now the account id mixes
    in a salt of the run's emulator handle and keys are random, while the account's
    objects stay seeded: a redone trial gets the same ids."""
    emu = Emulator(emulator.base)
    account_id = emu.trial_account_id("fixture-shop", 2)
    assert account_id != trial_account_id("fixture-shop", 2)  # what a trial can compute
    assert account_id != Emulator(emulator.base).trial_account_id("fixture-shop", 2)
    first = emu.create_account(account_id)
    guessed = IdGenerator(f"0:{first.id}")  # even knowing the id and the seed
    assert first.secret_key != guessed.new("sk_test")
    assert first.publishable_key != guessed.new("pk_test")
    client = stripe.StripeClient(first.secret_key, base_addresses={"api": emulator.base})
    customer = client.v1.customers.create({"email": "redo@example.com"})
    again = emu.create_account(account_id)  # the trial, redone
    assert again.id == first.id and again.secret_key != first.secret_key
    client = stripe.StripeClient(again.secret_key, base_addresses={"api": emulator.base})
    assert client.v1.customers.create({"email": "redo@example.com"}).id == customer.id
    with pytest.raises(stripe.AuthenticationError):  # the old key died with the account
        stripe.StripeClient(first.secret_key, base_addresses={"api": emulator.base}
                            ).v1.customers.list()
    emu.delete_account(account_id)


# ---------------------------------------------------------------------- webhooks

RECEIVER = r'''
import http.server, sys
class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with open(sys.argv[2], "ab") as out:
            out.write(body + b"\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Hook).serve_forever()
'''


def _host_receiver(port: int, hits: list[bytes]) -> Any:
    import http.server
    import threading

    class Hook(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            hits.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", port), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _settled(base: str, account: str, count: int) -> list[dict[str, Any]]:
    import time

    deadline = time.monotonic() + 30
    while True:
        log = httpx.get(f"{base}/_emulator/accounts/{account}/webhook_deliveries").json()["data"]
        if len(log) >= count and all(d["attempts"] for d in log):
            return list(log)
        assert time.monotonic() < deadline, log
        time.sleep(0.1)


@needs_bwrap
def test_webhooks_reach_only_the_trials_own_services(tmp_path: Path) -> None:
    """Deliveries leave from the emulator on the host. A trial's account reaches its
    declared service port *inside its sandbox* -- not the host's port of the same number
    -- and nothing else: another port or an outside address is refused, and the delivery
    record says why. An account without routes (no trial) reaches loopback only."""
    from conftest import free_port

    port = free_port()
    host_hits: list[bytes] = []
    host = _host_receiver(port, host_hits)   # the host's 127.0.0.1:port, same number
    emulator = start_emulator()
    work = tmp_path / "work"
    work.mkdir()
    (work / "receiver.py").write_text(RECEIVER)
    try:
        with BubblewrapSandbox(work) as box:
            box.start_service("hooks", f"python3 receiver.py {port} hits.log", ready_port=port)
            emu = Emulator(emulator.base)
            trial = emu.create_account(emu.trial_account_id("walls", 1))
            emu.route_webhooks(trial.id, {port: box.service_address(port)})
            client = stripe.StripeClient(trial.secret_key, base_addresses={"api": emulator.base})
            for url in (f"http://127.0.0.1:{port}/hook", f"http://localhost:{port + 1}/hook",
                        "http://93.184.216.34/hook", "https://example.com/hook"):
                client.v1.webhook_endpoints.create({"url": url,
                                                    "enabled_events": ["customer.created"]})
            client.v1.customers.create({"email": "hook@example.com"})
            log = {d["url"]: d for d in _settled(emulator.base, trial.id, 4)}
            assert log[f"http://127.0.0.1:{port}/hook"]["state"] == "delivered", log
            assert b"customer.created" in (work / "hits.log").read_bytes()
            assert host_hits == []  # the host's port of that number heard nothing
            other_port = log[f"http://localhost:{port + 1}/hook"]
            assert "not one of this trial's services" in other_port["attempts"][0]["error"]
            for outside in ("http://93.184.216.34/hook", "https://example.com/hook"):
                assert log[outside]["state"] == "failed"
                assert "only to loopback" in log[outside]["attempts"][0]["error"], log[outside]
                assert len(log[outside]["attempts"]) == 1  # refused, never retried
        # no trial behind the account: loopback only, the host's own -- but never the
        # emulator itself (a POST to its control plane would reset every account)
        plain = emulator.new_account()
        client = stripe.StripeClient(plain["secret_key"], base_addresses={"api": emulator.base})
        itself = (f"{emulator.base}/_emulator/reset",
                  emulator.base.replace("127.0.0.1", "localhost") + "/v1/customers")
        for url in (f"http://127.0.0.1:{port}/hook", "http://93.184.216.34/hook", *itself):
            client.v1.webhook_endpoints.create({"url": url,
                                                "enabled_events": ["customer.created"]})
        client.v1.customers.create({"email": "plain@example.com"})
        log = {d["url"]: d for d in _settled(emulator.base, plain["id"], 4)}
        assert log[f"http://127.0.0.1:{port}/hook"]["state"] == "delivered"
        assert "only to loopback" in log["http://93.184.216.34/hook"]["attempts"][0]["error"]
        for url in itself:
            assert "the Stripe emulator itself" in log[url]["attempts"][0]["error"], log[url]
        assert len(host_hits) == 1
        assert trial.id in [a["id"] for a in
                            httpx.get(f"{emulator.base}/_emulator/accounts").json()["data"]]
    finally:
        emulator.stop()
        host.shutdown()


# ---------------------------------------------------------------------- stripebench mcp

def _mcp_bash(workdir: Path, command: str, *extra: str) -> str:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "stripebench.cli", "mcp", "--workdir", str(workdir), *extra])

    async def main() -> str:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("bash", {"command": command})
            return str(result.content[0].text)

    import anyio
    return anyio.run(main)


@needs_bwrap
def test_standalone_mcp_commands_are_sandboxed_unless_told_otherwise(
        tmp_path: Path, host_dir: Path) -> None:
    """`stripebench mcp --workdir DIR` ran its bash tool straight on the host. Now it is
    a sandbox like a trial's: only the workdir, no host files, read-only kernel knobs;
    `--no-sandbox` is the explicit way back."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "probe.py").write_text(KERNEL_PROBE)
    peek = f"cat {host_dir / 'keep.txt'}; python3 probe.py"
    inside = _mcp_bash(work, peek)
    assert "untouched" not in inside and "No such file" in inside, inside
    _refused(json.loads(next(line for line in inside.splitlines() if line.startswith("{"))))
    outside = _mcp_bash(work, f"cat {host_dir / 'keep.txt'}", "--no-sandbox")
    assert "untouched" in outside


def test_mcp_over_http_needs_the_bearer_token(tmp_path: Path) -> None:
    """The HTTP transport served a shell to anyone who reached its port. Now every
    request needs `Authorization: Bearer <token>` (401 otherwise): the official client
    with the printed token works, without it or with another it is refused."""
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    from conftest import free_port

    port = free_port()
    proc = subprocess.Popen([STRIPEBENCH, "mcp", "--transport", "http", "--port", str(port),
                             "--workdir", str(tmp_path), "--no-sandbox"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        banner = proc.stderr.readline()
        token = banner.split("Bearer ")[1].strip().rstrip("'")
        url = f"http://127.0.0.1:{port}/mcp"
        import socket
        import time
        deadline = time.monotonic() + 30
        while True:  # the banner comes just before the server listens
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.1)
        for headers in ({}, {"Authorization": "Bearer wrong"},
                        {"Authorization": f"Basic {token}"}):
            refused = httpx.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 1,
                                                             "method": "tools/list"})
            assert refused.status_code == 401, (headers, refused.text)
            assert refused.headers["www-authenticate"].startswith("Bearer")

        async def call(headers: dict[str, str]) -> str:
            client = create_mcp_http_client(headers=headers)
            async with streamable_http_client(url, http_client=client) as streams, \
                    ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                result = await session.call_tool("bash", {"command": "echo over-http"})
                return str(result.content[0].text)

        assert "over-http" in anyio.run(call, {"Authorization": f"Bearer {token}"})
        with pytest.raises(BaseException):  # noqa: B017 - the client's own error type
            anyio.run(call, {})
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@needs_bwrap
def test_a_symlink_planted_over_a_port_socket_is_not_followed(tmp_path: Path) -> None:
    """The sockets that carry webhooks into a sandbox live in a folder the sandbox can
    write. The agent swaps one for a symlink to a host socket (think /run/docker.sock):
    the emulator must not connect there."""
    import socket
    import threading

    from conftest import free_port

    host_socket = tmp_path / "host-service.sock"
    touched: list[bytes] = []
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(host_socket))
    listener.listen()

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            touched.append(conn.recv(65536))
            conn.close()

    threading.Thread(target=accept, daemon=True).start()
    port = free_port()
    emulator = start_emulator()
    work = tmp_path / "work"
    work.mkdir()
    (work / "receiver.py").write_text(RECEIVER)
    try:
        with BubblewrapSandbox(work) as box:
            box.start_service("hooks", f"python3 receiver.py {port} hits.log", ready_port=port)
            emu = Emulator(emulator.base)
            trial = emu.create_account(emu.trial_account_id("walls", 3))
            emu.route_webhooks(trial.id, {port: box.service_address(port)})
            swapped = box.exec(f"ln -sf {host_socket} /run/stripebench/sock/port-{port}.sock")
            assert swapped.ok, swapped
            client = stripe.StripeClient(trial.secret_key, base_addresses={"api": emulator.base})
            client.v1.webhook_endpoints.create({"url": f"http://127.0.0.1:{port}/hook",
                                                "enabled_events": ["customer.created"]})
            client.v1.customers.create({"email": "swap@example.com"})
            (delivery,) = _settled(emulator.base, trial.id, 1)
            assert delivery["state"] != "delivered"
            assert "not a unix socket" in delivery["attempts"][0]["error"], delivery
            # the host side of a port exposed to the harness refuses it too
            with pytest.raises(httpx.HTTPError):
                httpx.get(f"http://127.0.0.1:{box.expose_port(port)}/", timeout=5)
    finally:
        emulator.stop()
        listener.close()
    assert touched == []
