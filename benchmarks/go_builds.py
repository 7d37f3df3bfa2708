"""How long the sdk-upgrade-go services take to build in a bubblewrap sandbox: prints
figures, asserts nothing.

    .venv/bin/python benchmarks/go_builds.py

A trial's workdir starts with an empty build cache (.go/cache), so its first service
build compiles the standard library's part the services use and stripe-go v72; the next
two reuse them. After the upgrade the first build compiles stripe-go v85. Measured as
run.sh does it (goenv.sh, one `go build` per service, in order), offline, with the
read-only module cache, no network, inside the sandbox.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from stripebench.harness.sandbox import Sandbox, bwrap_available, go_module_cache, make_sandbox

TASK = Path(__file__).resolve().parents[1] / "tasks" / "sdk-upgrade-go"
SERVICES = ("payments", "invoices", "subscriptions")


def build_each(sandbox: Sandbox, label: str) -> None:
    for service in SERVICES:
        started = time.perf_counter()
        done = sandbox.exec(
            f". ./goenv.sh && go build -o .go/bin/{service} ./services/{service}", timeout=900)
        seconds = time.perf_counter() - started
        status = "ok" if done.exit_code == 0 else f"FAILED: {done.stderr[-300:]}"
        print(f"{label:<8} {service:<14} {seconds:7.1f} s  {status}")


def main() -> None:
    cache = go_module_cache()
    if not bwrap_available() or cache is None:
        print("needs bubblewrap and the Go module cache (scripts/setup.sh); nothing to measure")
        return
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch) / "workdir"
        shutil.copytree(TASK / "environment", work)
        env = {"STRIPEBENCH_GOMODCACHE": str(cache),
               "PATH": f"{Path(shutil.which('go') or '/usr/local/go/bin/go').parent}:"
                       "/usr/local/bin:/usr/bin:/bin"}
        sandbox = make_sandbox("bwrap", work, env)
        try:
            build_each(sandbox, "v72")
            for service in SERVICES:
                shutil.copy(TASK / "solution" / "services" / service / "main.go",
                            work / "services" / service / "main.go")
            for name in ("go.mod", "go.sum"):
                shutil.copy(TASK / "solution" / name, work / name)
            build_each(sandbox, "v85")
        finally:
            sandbox.stop()


if __name__ == "__main__":
    main()
