"""The trial's walls: each test is an agent trying to climb one (issue 13).

Every test here plays the adversary from inside a sandbox (or from the workdir the
harness later reads) and asserts the attempt fails. They never change the host: kernel
knobs are only *opened* for writing (never written), the module named for unloading
does not exist, and the device node asked for would be /dev/null's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from stripebench.harness.sandbox import bwrap_available
from stripebench.routing.attach import AttachedSandbox
from stripebench.routing.bwrap import BubblewrapSandbox

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
    import subprocess

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
