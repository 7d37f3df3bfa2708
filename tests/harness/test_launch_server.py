"""The grading room's launcher: requests checked strictly, and each launched command in a
side room whose network holds only the ports it was handed (issue 25, wall 4).

The launcher is driven here from the host with the graders' own client
(`stripebench.grading.launch`), over a bubblewrap sandbox standing for the grading room.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stripebench.grading import launch
from stripebench.harness.launch_server import BadRequest, LaunchServer, parse_request
from stripebench.harness.sandbox import bwrap_available
from stripebench.harness.side_rooms import SideRooms
from stripebench.routing.bwrap import BubblewrapSandbox
from stripebench.sandbox.limits import DEFAULT_LIMITS

WORK = Path("/srv/submission")


def request(**fields: Any) -> bytes:
    return json.dumps({"argv": ["true"], "cwd": str(WORK), **fields}).encode()


@pytest.mark.parametrize("fields, why", [
    ({"reach": {"7001": True}}, "reach"),
    ({"reach": {"7001": 80}}, "reach"),
    ({"reach": {"7001": 70000}}, "reach"),
    ({"reach": {"7001": "6001"}}, "reach"),
    ({"reach": {"443": 6001}}, "reach"),
    ({"reach": {"07001": 6001}}, "reach"),
    ({"reach": {"７００１": 6001}}, "reach"),          # digits, but not ASCII ones
    ({"reach": {"abc": 6001}}, "reach"),
    ({"reach": [[7001, 6001]]}, "reach"),
    ({"reach": {str(p): 6001 for p in range(7001, 7006)}}, "at most 4"),
    ({"serve": 6100}, "serve is for a started command"),
    ({"mode": "start", "serve": 6100.0}, "serve"),
    ({"mode": "start", "serve": 1023}, "serve"),
    ({"mode": "start", "serve": 7001, "reach": {"7001": 6001}}, "both served and reached"),
])
def test_ports_in_a_request_are_checked(fields: dict[str, Any], why: str) -> None:
    with pytest.raises(BadRequest, match=why):
        parse_request(request(**fields), WORK)


def test_a_good_request_names_its_ports_as_numbers() -> None:
    parsed = parse_request(request(mode="start", serve=6100, reach={"7001": 6001}), WORK)
    assert parsed["serve"] == 6100 and parsed["reach"] == {7001: 6001}
    plain = parse_request(request(), WORK)
    assert plain["serve"] is None and plain["reach"] == {}


# ---------------------------------------------------------------------- side rooms

SERVE = """
import http.server, sys
port, name = int(sys.argv[1]), sys.argv[2].encode()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", str(len(name)))
        self.end_headers(); self.wfile.write(name)
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
"""
# what answers at each port named: its name, or the error
PROBE = """
import json, socket, sys
seen = {}
for port in sys.argv[1:]:
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=3) as s:
            s.settimeout(3)
            s.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")
            data = b""
            while chunk := s.recv(4096):
                data += chunk
        seen[port] = data.split(b"\\r\\n\\r\\n", 1)[-1].decode() or "closed"
    except OSError as exc:
        seen[port] = type(exc).__name__
print(json.dumps(seen))
"""
MARK = "sleep 4848.5"


@pytest.fixture()
def grading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[BubblewrapSandbox]:
    """A sandbox standing for the grading room, with two helpers of the grader's
    listening in it (6001, handed to the commands below; 6002, never) and its
    launcher at STRIPEBENCH_LAUNCH."""
    if not bwrap_available():
        pytest.skip("bubblewrap cannot run here")
    work = tmp_path / "work"
    work.mkdir()
    (work / "serve.py").write_text(SERVE)
    (work / "probe.py").write_text(PROBE)
    box = BubblewrapSandbox(work, clear_on_stop=False)
    rooms = SideRooms(box, {}, DEFAULT_LIMITS)
    (tmp_path / "logs").mkdir()
    server = LaunchServer(rooms, box.workdir, tmp_path / "launch.sock",
                          log_dir=tmp_path / "logs")
    monkeypatch.setenv(launch.SOCKET_VARIABLE, str(tmp_path / "launch.sock"))
    try:
        box.start_service("handed", "python3 serve.py 6001 handed", ready_port=6001)
        box.start_service("other", "python3 serve.py 6002 other", ready_port=6002)
        yield box
    finally:
        server.close()
        box.stop()
        rooms.close()


def probe_in(box: BubblewrapSandbox, *ports: int) -> dict[str, str]:
    done = box.exec(["python3", "probe.py", *map(str, ports)], timeout=30)
    assert done.exit_code == 0, done
    seen: dict[str, str] = json.loads(done.stdout)
    return seen


def leftovers() -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and MARK.encode() in (entry / "cmdline").read_bytes():
                found.append(entry.name)
        except OSError:
            pass
    return found


def test_a_command_reaches_the_ports_it_was_handed_and_nothing_else(
        grading: BubblewrapSandbox) -> None:
    work = grading.workdir
    done = launch.run(["python3", "probe.py", "7001", "6001", "6002"], cwd=work,
                      reach={7001: 6001})
    assert json.loads(done.stdout) == {"7001": "handed", "6001": "ConnectionRefusedError",
                                       "6002": "ConnectionRefusedError"}, done
    # a reached port may keep its number; the unhanded one stays out of reach
    done = launch.run(["python3", "probe.py", "6001", "6002"], cwd=work, reach={6001: 6001})
    assert json.loads(done.stdout) == {"6001": "handed", "6002": "ConnectionRefusedError"}
    # the room dies whole with the command: what it left running is gone
    launch.run(["sh", "-c", f"({MARK} &) ; echo left"], cwd=work)
    assert leftovers() == []


def test_the_grader_reaches_a_started_command_at_the_port_it_serves(
        grading: BubblewrapSandbox) -> None:
    work = grading.workdir
    with launch.start(["python3", "serve.py", "6100", "copy"], cwd=work, serve=6100,
                      reach={6001: 6001}, log="copy"):
        deadline = time.monotonic() + 20
        while probe_in(grading, 6100)["6100"] != "copy" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert probe_in(grading, 6100) == {"6100": "copy"}
        # a second command: its own room, which holds neither the copy nor 6002
        done = launch.run(["python3", "probe.py", "6100", "6001", "6002"], cwd=work)
        assert set(json.loads(done.stdout).values()) == {"ConnectionRefusedError"}
    # stopped: the port is closed in the grading room again, nothing of it runs
    assert probe_in(grading, 6100)["6100"] == "ConnectionRefusedError"


def test_a_refused_request_runs_nothing(grading: BubblewrapSandbox) -> None:
    with pytest.raises(launch.LaunchError, match="ports are whole numbers"):
        launch.start(["python3", "serve.py", "6100", "copy"], cwd=grading.workdir,
                     reach={80: 6001})
    with pytest.raises(launch.LaunchError, match="could not forward port.* 6001"):
        launch.start(["python3", "serve.py", "6001", "copy"], cwd=grading.workdir,
                     serve=6001)   # taken in the grading room: by the grader's helper
