"""What the grading room's side rooms cost (issue 25, wall 4): opening and stopping one
(a bubblewrap sandbox routed to Stripe's hosts, one reached port, one served port), and
an HTTP request's round trip across the walls -- the grader calling a copy at its served
port, a copy calling its recorder at its reached port -- against the same request within
one network (what the grading did before side rooms).

    .venv/bin/python benchmarks/side_rooms.py [--runs 10] [--requests 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from stripebench.harness.side_rooms import SideRooms
from stripebench.routing.bwrap import BubblewrapSandbox, Routing
from stripebench.sandbox.limits import DEFAULT_LIMITS

SERVE = """
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "2")
        self.end_headers(); self.wfile.write(b"ok")
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""
# n requests, each on a fresh connection (as urllib makes them): median and p95 in ms
CLIENT = """
import json, statistics, sys, time, urllib.request
url, n = sys.argv[1], int(sys.argv[2])
for _ in range(100):   # until it answers
    try:
        urllib.request.urlopen(url, timeout=2).read(); break
    except OSError:
        time.sleep(0.05)
took = []
for _ in range(n):
    start = time.perf_counter()
    urllib.request.urlopen(url, timeout=10).read()
    took.append((time.perf_counter() - start) * 1000)
took.sort()
print(json.dumps([statistics.median(took), took[int(len(took) * 0.95)]]))
"""


def client(box: BubblewrapSandbox, port: int, requests: int) -> str:
    """`requests` GETs of 127.0.0.1:port from inside `box`, timed there."""
    done = box.exec(["python3", "client.py", f"http://127.0.0.1:{port}/", str(requests)],
                    timeout=300)
    median, p95 = json.loads(done.stdout)
    return f"median {median:6.2f} ms   p95 {p95:6.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        (work / "serve.py").write_text(SERVE)
        (work / "client.py").write_text(CLIENT)
        # routed to a port nobody serves: the relays are set up, never used here
        grading = BubblewrapSandbox(work, routing=Routing("http://127.0.0.1:9"),
                                    share_package=True, clear_on_stop=False)
        rooms = SideRooms(grading, {}, DEFAULT_LIMITS)
        try:
            grading.start_service("recorder", "python3 serve.py 6001", ready_port=6001)
            took = []
            for _ in range(args.runs):
                start = time.perf_counter()
                rooms.open(serve=[6100], reach={6001: 6001}).stop()
                took.append(time.perf_counter() - start)
            print(f"side room, open + stop (1 reached, 1 served port): median "
                  f"{statistics.median(took) * 1000:7.1f} ms   max {max(took) * 1000:7.1f} ms")

            copy = rooms.open(serve=[6100], reach={6001: 6001})
            try:
                copy.sandbox.start_service("copy", "python3 serve.py 6100", ready_port=6100)
                print(f"grader -> its helper, one network:     "
                      f"{client(grading, 6001, args.requests)}")
                print(f"grader -> copy at its served port:     "
                      f"{client(grading, 6100, args.requests)}")
                assert isinstance(copy.sandbox, BubblewrapSandbox)
                print(f"copy -> its recorder at a reached port: "
                      f"{client(copy.sandbox, 6001, args.requests)}")
            finally:
                copy.stop()
        finally:
            grading.stop()
            rooms.close()


if __name__ == "__main__":
    main()
