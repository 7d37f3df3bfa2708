"""A newcomer's first hour (issue 32): each command run as a user types it, through the
installed `stripebench` executable, its exit code and output checked. The runs that need
trials are in harness/test_first_hour_runs.py; the landing page in Chromium and its wall
in emulator/test_landing_page.py."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import stripe

from paths import REPO, TESTS
from stripebench import __version__
from stripebench.stripe_cli import trigger_events

STRIPEBENCH = str(Path(sys.executable).parent / "stripebench")
FIXTURE_RUN = TESTS / "fixtures" / "runs" / "schema0-oracle-local"


def sb(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
       timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([STRIPEBENCH, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=env)


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("STRIPEBENCH_TASKS", "ANTHROPIC_API_KEY", "OPENAI_API_KEY",
                        "STRIPEBENCH_MODEL")}
    return {**env, **extra}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ---------------------------------------------------------------------- small answers

def test_version_help_and_empty_docs_query() -> None:
    done = sb("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"stripebench {__version__}"
    helped = sb("--help")
    assert "Exit codes: 0 done; 1 failed trials" in helped.stdout
    for query in ("", "   "):
        empty = sb("docs", "search", query)
        assert empty.returncode == 2, empty.stdout
        assert "give words to look for" in empty.stderr and empty.stdout == ""


def test_trigger_help_lists_every_event_it_can_send() -> None:
    # the fixtures' own table, read by importing it (the CLI does not, to stay quick)
    from stripebench.stripe_cli.trigger import FIXTURES

    assert trigger_events() == sorted(FIXTURES)
    done = sb("emulator", "trigger", "--help", env={**os.environ, "COLUMNS": "400"})
    assert done.returncode == 0
    listed = done.stdout.split("Events:", 1)[1]
    for event in FIXTURES:
        assert event in listed, event


def test_tasks_list_finds_the_checkouts_tasks_from_any_folder(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = sb("tasks", "list", cwd=elsewhere, env=clean_env())
    assert done.returncode == 0, done.stderr
    ids = sorted(p.name for p in (REPO / "tasks").iterdir() if (p / "task.toml").is_file())
    assert [line.split()[0] for line in done.stdout.splitlines()] == ids
    assert f"in {REPO / 'tasks'} (the stripebench checkout)" in done.stderr
    as_json = json.loads(sb("tasks", "list", "--json", cwd=elsewhere, env=clean_env()).stdout)
    assert [t["id"] for t in as_json["tasks"]] == ids
    assert as_json["chosen_by"] == "the stripebench checkout"
    # pointed somewhere empty: where it looked, what chose it, how to point it
    empty = tmp_path / "empty"
    empty.mkdir()
    for args, env, why in ((["--tasks-dir", str(empty)], clean_env(), "--tasks-dir"),
                           ([], clean_env(STRIPEBENCH_TASKS=str(empty)), "STRIPEBENCH_TASKS")):
        none = sb("tasks", "list", *args, cwd=elsewhere, env=env)
        assert none.returncode == 2
        assert f"no tasks found in {empty} (chosen by {why})" in none.stderr
        assert "--tasks-dir or STRIPEBENCH_TASKS" in none.stderr
    shop = sb("tasks", "list", cwd=elsewhere,
              env=clean_env(STRIPEBENCH_TASKS=str(TESTS / "fixtures" / "tasks")))
    assert "fixture-shop" in shop.stdout


def test_doctor_says_what_is_missing_and_what_a_run_would_do(tmp_path: Path) -> None:
    done = sb("doctor", "--json", timeout=120)
    report = json.loads(done.stdout)
    names = [c["name"] for c in report["checks"]]
    for name in ("bubblewrap", "chromium", "postgres", "node", "java", "go", "disk space",
                 "offline cache: wheelhouse", "offline cache: npm"):
        assert name in names
    assert done.returncode == (0 if report["ok"] else 1)
    # a PATH without Chromium, Node, a JDK, Go or bubblewrap: each named, with its cost
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("git",):
        found = shutil.which(tool)
        if found:
            (bare / tool).symlink_to(found)
    missing = sb("doctor", env={**os.environ, "PATH": str(bare)}, timeout=120)
    assert missing.returncode == 1
    lines = missing.stdout.splitlines()
    for name, cost in (("bubblewrap", "--allow-unsealed"), ("chromium", "full-stack"),
                       ("node", "Node tasks"), ("java", "sdk-upgrade-java"),
                       ("go", "sdk-upgrade-go")):
        at = next(n for n, line in enumerate(lines) if line.split()[:2] == ["MISS", name])
        assert "without it:" in lines[at + 1] and cost in lines[at + 1], lines[at + 1]
    assert "make setup" in lines[-1]


# ---------------------------------------------------------------------- emulator serve

def test_serve_on_a_busy_port_says_so_in_one_line_and_fails() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        started = time.monotonic()
        done = sb("emulator", "serve", "--port", str(port), timeout=30)
    assert done.returncode == 1
    assert time.monotonic() - started < 20
    assert "listening" not in done.stdout.lower() and "secret key" not in done.stdout
    assert done.stderr.strip().splitlines() == [
        f"stripebench emulator serve: port {port} on 127.0.0.1 is already in use (another "
        f"emulator? `ss -ltnp 'sport = :{port}'` shows the process); stop it or choose "
        "another port with --port N"]


def _serve(*args: str) -> tuple[subprocess.Popen[str], str, list[str]]:
    port = free_port()
    proc = subprocess.Popen([STRIPEBENCH, "emulator", "serve", "--port", str(port), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while not lines or not lines[-1].startswith("Ready"):
        line = proc.stdout.readline()
        if not line:
            proc.wait(5)
            raise AssertionError(f"serve ended: {lines} {proc.stderr and proc.stderr.read()}")
        lines.append(line.rstrip("\n"))
        assert time.monotonic() < deadline
    base = f"http://127.0.0.1:{port}"
    import httpx
    while True:
        try:
            httpx.get(f"{base}/_emulator/health", timeout=2)
            break
        except httpx.HTTPError:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    return proc, base, lines


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


FIXTURES_FILE = {
    "_meta": {"template_version": 0},
    "fixtures": [
        {"name": "customer", "path": "/v1/customers", "method": "post",
         "params": {"email": "ada@example.com", "metadata": {"plan": "pro"}}},
        {"name": "product", "path": "/v1/products", "method": "post",
         "params": {"name": "Pro plan"}},
        {"name": "price", "path": "/v1/prices", "method": "post",
         "params": {"product": "${product:id}", "unit_amount": 1500, "currency": "usd",
                    "recurring": {"interval": "month"}}},
        {"name": "note", "path": "/v1/customers/${customer:id}", "method": "post",
         "params": {"description": "price ${price:id}"}},
    ],
}


def test_serve_with_fixed_keys_and_fixtures_keeps_an_apps_env_working(tmp_path: Path) -> None:
    secret, publishable = "sk_test_myapp0123456789", "pk_test_myapp0123456789"
    fixtures = tmp_path / "fixtures.json"
    fixtures.write_text(json.dumps(FIXTURES_FILE))
    data = tmp_path / "state"
    for round_ in (1, 2):  # the same keys after a restart (with and without --data)
        extra = ["--fixtures", str(fixtures)] if round_ == 1 else []
        proc, base, lines = _serve("--api-key", secret, "--publishable-key", publishable,
                                   "--data", str(data), *extra)
        try:
            assert f"  secret key       {secret}" in lines
            assert f"  publishable key  {publishable}" in lines
            client = stripe.StripeClient(secret, base_addresses={"api": base})
            customers = client.v1.customers.list().data
            assert [c.email for c in customers] == ["ada@example.com"]
            price = client.v1.prices.list().data[0]
            assert price.unit_amount == 1500 and customers[0].description == f"price {price.id}"
            if round_ == 1:
                assert f"  fixtures         {fixtures}: 4 request(s)" in lines
                assert any(line.strip().startswith("price: POST /v1/prices → price_")
                           for line in lines)
            with pytest.raises(stripe.AuthenticationError):
                stripe.StripeClient("sk_test_someotherkey123",
                                    base_addresses={"api": base}).v1.customers.list()
        finally:
            _stop(proc)
    bad = sb("emulator", "serve", "--port", str(free_port()), "--api-key", "pk_live_x")
    assert bad.returncode == 2 and "--api-key must look like sk_test_" in bad.stderr
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"fixtures": [{"name": "p", "path": "/v1/prices",
                                                "params": {"product": "${nope:id}"}}]}))
    refused = sb("emulator", "serve", "--port", str(free_port()), "--fixtures", str(broken))
    assert refused.returncode == 2 and "no earlier fixture named 'nope'" in refused.stderr
    assert "listening" not in refused.stdout


# ---------------------------------------------------------------------- model endpoints

class _Endpoint(BaseHTTPRequestHandler):
    answer = 401

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = json.dumps({"error": {"message": "Incorrect API key provided"}}).encode()
        self.send_response(self.answer)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def refusing_endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_an_unreachable_or_refusing_endpoint_stops_the_run_before_any_trial(
        tmp_path: Path, refusing_endpoint: str) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    for url, says in ((dead, f"cannot reach the model endpoint {dead}"),
                      (refusing_endpoint, f"the model endpoint {refusing_endpoint} refused "
                                          "the key in OPENAI_API_KEY (HTTP 401: Incorrect "
                                          "API key provided)")):
        out = tmp_path / "run"
        started = time.monotonic()
        done = sb("run", "--agent", "openai", "--model", "m", "--base-url", url,
                  "--tasks-dir", str(TESTS / "fixtures" / "tasks"), "--tasks", "fixture-shop",
                  "--out", str(out), "--sandbox", "local", "--allow-unsealed",
                  env=clean_env(OPENAI_API_KEY="sk-wrong"))
        assert time.monotonic() - started < 20
        assert done.returncode == 1
        assert done.stderr.strip().splitlines() == [f"stripebench run: {says}"] or \
            done.stderr.strip().startswith(f"stripebench run: {says}"), done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        assert not out.exists()  # no trial, no run folder


def test_run_says_which_variable_chose_the_agent(refusing_endpoint: str) -> None:
    common = ["run", "--base-url", refusing_endpoint, "--tasks-dir",
              str(TESTS / "fixtures" / "tasks"), "--sandbox", "local", "--allow-unsealed"]
    done = sb(*common, env=clean_env(OPENAI_API_KEY="sk-x"))
    assert done.stdout.splitlines()[0] == (
        "agent: openai, chosen because OPENAI_API_KEY is set; model gpt-5 (the default; "
        "STRIPEBENCH_MODEL=... or --model for another); --agent NAME for another agent")
    both = sb(*common, env=clean_env(OPENAI_API_KEY="sk-x", ANTHROPIC_API_KEY="sk-ant-x",
                                     STRIPEBENCH_MODEL="claude-x"))
    assert both.stdout.splitlines()[0].startswith(
        "agent: anthropic, chosen because ANTHROPIC_API_KEY is set; OPENAI_API_KEY is set "
        "too but ANTHROPIC_API_KEY comes first; model claude-x (STRIPEBENCH_MODEL)")


# ---------------------------------------------------------------------- reports

def _run_copy(where: Path, provenance: dict[str, Any] | None,
              rewards: tuple[float, ...] = ()) -> Path:
    shutil.copytree(FIXTURE_RUN, where)
    meta = json.loads((where / "run.json").read_text())
    if provenance is not None:
        meta["provenance"] = provenance
    if rewards:
        meta["attempts"] = len(rewards)
        template = json.loads((where / "trials" / "fixture-shop" / "1" / "result.json")
                              .read_text())
        for n, reward in enumerate(rewards, 1):
            folder = where / "trials" / "fixture-shop" / str(n)
            folder.mkdir(parents=True, exist_ok=True)
            record = {**template, "attempt": n, "reward": reward,
                      "subscores": {"stripe": reward}, "subproblems": {}, "cost_usd": 0.25 * n}
            (folder / "result.json").write_text(json.dumps(record))
    (where / "run.json").write_text(json.dumps(meta))
    return where


PROVENANCE = {"stripebench": "0.1.0", "commit": "a" * 40, "dirty": False,
              "tasks": {"fixture-shop": {"version": 1, "sha256": "1" * 64}},
              "gym_seed": "public", "docs_guides_sha256": "d" * 64,
              "emulator_api_version": "2026-10-28.endive",
              "sdks": {"python:stripe": "16.1.0"}, "sandbox": "bwrap", "sealed": True,
              "tools": {"chromium": "156.0", "node": "20.1.0"},
              "options": {"attempts": 2}}


def test_report_and_compare_warn_when_the_runs_differ(tmp_path: Path) -> None:
    a = _run_copy(tmp_path / "a", PROVENANCE)
    b = _run_copy(tmp_path / "b", {**PROVENANCE, "commit": "b" * 40, "dirty": True,
                                   "tools": {"chromium": "157.0", "node": "20.1.0"}})
    same = _run_copy(tmp_path / "same", PROVENANCE)
    old = _run_copy(tmp_path / "old", None)
    for command in (["report", str(a), str(b)], ["compare", str(a), str(b)]):
        done = sb(*command, env={**os.environ, "COLUMNS": "300"})
        assert done.returncode == 0, done.stderr
        assert "not the same benchmark: git commit differs: oracle (a) aaaaaaaaaaaa, " \
               "oracle (b) bbbbbbbbbbbb" in done.stdout, done.stdout
        assert "not the same benchmark: uncommitted changes differs" in done.stdout
        assert "not the same benchmark: chromium differs: oracle (a) 156.0, oracle (b) " \
            "157.0" in done.stdout
        assert "node differs" not in done.stdout
    quiet = sb("report", str(a), str(same), env={**os.environ, "COLUMNS": "300"})
    assert "not the same benchmark" not in quiet.stdout
    unknown = sb("report", str(a), str(old), env={**os.environ, "COLUMNS": "300"})
    assert "cannot check they are the same benchmark" in unknown.stdout
    md = tmp_path / "r.md"
    sb("report", str(a), str(b), "--markdown", str(md), "--quiet")
    assert "not the same benchmark: git commit differs" in md.read_text()


def test_report_gives_every_attempt_strict_rate_pass_at_k_and_a_trial_csv(
        tmp_path: Path) -> None:
    run = _run_copy(tmp_path / "r", PROVENANCE, rewards=(1.0, 0.8, 1.0))
    done = sb("report", str(run), "--json", "--trials-csv", str(tmp_path / "t.csv"))
    assert done.returncode == 0, done.stderr
    scores = json.loads(done.stdout)["runs"][0]
    task = scores["tasks"][0]
    assert task["best"] == 1.0
    every = task["every_attempt"]
    assert every["trials"] == 3 and every["mean"] == pytest.approx(2.8 / 3)
    # sample sd of (1, .8, 1) is 0.11547; / sqrt(3)
    assert every["se"] == pytest.approx(0.0666667, abs=1e-6)
    assert every["strict"] == pytest.approx(2 / 3)
    assert every["pass_at_k"] == {"1": pytest.approx(2 / 3), "3": 1.0}
    assert every["pass_hat_k"] == {"1": pytest.approx(2 / 3), "3": 0.0}
    rows = (tmp_path / "t.csv").read_text().splitlines()
    assert rows[0] == ("run,task,category,attempt,model,status,reward,subscores,turns,"
                       "input_tokens,output_tokens,cost_usd,wall_seconds")
    assert len(rows) == 4 and rows[2].startswith("oracle,fixture-shop,backend,2,oracle,"
                                                 "completed,0.8000,")
    table = sb("report", str(run), env={**os.environ, "COLUMNS": "200"}).stdout
    assert "Every attempt (strict: reward exactly 1.0)" in table
    row = next(line for line in table.splitlines() if "fixture-shop" in line and "±" in line)
    assert "93.3% ± 6.7" in row and "66.7%" in row and "100.0%" in row and "0.0%" in row


# ---------------------------------------------------------------------- set-up

def test_setup_installs_old_sdks_without_pips_resolver_errors(tmp_path: Path) -> None:
    """scripts/setup.sh's old-SDK step, run as the script runs it (offline, from the
    wheelhouse): one line saying what was installed, no "ERROR" from pip."""
    wheelhouse = REPO / ".cache" / "wheelhouse"
    if not any(wheelhouse.glob("stripe-5.*.whl")):
        wheelhouse = Path(os.environ.get("STRIPEBENCH_WHEELHOUSE", wheelhouse))
    assert any(wheelhouse.glob("stripe-5.*.whl")), "run make setup (the wheelhouse)"
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parent.parent)
    script = ('set -euo pipefail; eval "$(sed -n "/^old_py() {/,/^}/p" '
              f'{REPO / "scripts" / "setup.sh"})"; old_py stripe5 "stripe==5.*"; '
              'old_py stripe5 "stripe==5.*"')
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "PIP_NO_INDEX": "1",
                               "PIP_FIND_LINKS": str(wheelhouse)})
    assert done.returncode == 0, done.stderr
    assert "ERROR" not in done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        "setup: installed stripe 5.5.0 in .old-sdks/stripe5 (an old SDK for the "
        "API-version tests)"]
    assert (tmp_path / ".old-sdks" / "stripe5" / "stripe").is_dir()
