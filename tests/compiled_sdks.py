"""Builds and runs the stripe-java and stripe-go programs in tests/sdk_programs/ offline.

`scripts/setup.sh` fills `.cache/m2` (Maven) and `.cache/go` (Go modules) with the SDKs,
and `.cache/go-build` with their compiled packages; here Maven runs with `-o` and Go with
`GOPROXY=off`, so a test never reaches a registry. Each program reads the secret key from
$STRIPE_SECRET_KEY and the API base from $API_BASE (empty: the SDK's default host) and
prints one JSON document. `check_flows` holds the assertions the Java and Go programs
share (they print the same keys).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "sdk_programs"
M2 = ROOT / ".cache" / "m2"
GOMODCACHE = ROOT / ".cache" / "go"
GOCACHE = ROOT / ".cache" / "go-build"  # setup.sh compiles the SDKs into it once
SETUP_HINT = "run scripts/setup.sh (make setup) to fetch the SDKs into .cache/"


@dataclass
class Program:
    """A built SDK program: the command that runs it and the files it needs at run time."""
    command: list[str]
    files: list[Path]


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 300) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, (f"{command[0]} failed ({SETUP_HINT}):\n"
                                  f"{done.stdout}\n{done.stderr}")
    return done.stdout


def build_java(variant: str, out: Path) -> Program:
    """Asks Maven (offline) for the classpath of tests/sdk_programs/java/<variant> and
    compiles its Flows.java with javac."""
    assert shutil.which("mvn") and shutil.which("javac"), "a JDK and Maven are needed"
    source = PROGRAMS / "java" / variant
    classpath_file = out / f"{variant}.classpath"
    _run(["mvn", "-o", "-B", "-q", f"-Dmaven.repo.local={M2}", "-f", str(source / "pom.xml"),
          "dependency:build-classpath", f"-Dmdep.outputFile={classpath_file}"], source)
    jars = [Path(p) for p in classpath_file.read_text().strip().split(os.pathsep)]
    classes = out / f"{variant}-classes"
    _run(["javac", "-d", str(classes), "-cp", os.pathsep.join(map(str, jars)),
          str(source / "Flows.java")], source)
    return Program(["java", "-cp", os.pathsep.join(map(str, [classes, *jars])), "Flows"],
                   [classes, *jars])


def go_env() -> dict[str, str]:
    """The environment of an offline Go build: modules only from .cache/go."""
    return {**os.environ, "GOMODCACHE": str(GOMODCACHE), "GOCACHE": str(GOCACHE),
            "GOPROXY": "off", "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}


def build_go(variant: str, out: Path) -> Program:
    """Builds tests/sdk_programs/go/<variant> into one static binary."""
    assert shutil.which("go"), "Go is needed for the stripe-go tests"
    binary = out / f"go-{variant}"
    _run(["go", "build", "-o", str(binary), "."], PROGRAMS / "go" / variant, go_env())
    return Program([str(binary)], [binary])


def build_both(build: Callable[[str, Path], Program], out: Path) -> dict[str, Program]:
    """The current and the old major side by side (each build waits mostly on its tool's
    start-up, so two at once take little longer than one)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {variant: pool.submit(build, variant, out) for variant in ("current", "old")}
        return {variant: future.result() for variant, future in futures.items()}


def run_program(program: Program, key: str, base: str, *args: str) -> Any:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "STRIPE_SECRET_KEY": key,
           "API_BASE": base}
    done = subprocess.run([*program.command, *args], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def copy_into(program: Program, workdir: Path) -> list[str]:
    """Copies a built program into `workdir` (all a sandbox sees of the host's files) and
    answers its command there."""
    moved: dict[str, str] = {}
    for path in program.files:
        target = workdir / path.name
        if path.is_dir():
            shutil.copytree(path, target)
        else:
            shutil.copy2(path, target)
        moved[str(path)] = str(target)
    command = []
    for part in program.command:
        for old, new in moved.items():
            part = part.replace(old, new)
        command.append(part)
    return command


def ident(value: Any) -> Any:
    """An id however the SDK prints a reference: stripe-java as a string, stripe-go as a
    struct holding only its id."""
    return value["id"] if isinstance(value, dict) else value


def check_flows(out: dict[str, Any], sdk: str) -> None:
    """What both the current and the old majors of either SDK must have seen."""
    customer = out["customer"]
    assert customer["id"].startswith("cus_") and customer["email"] == f"{sdk}@example.com"
    assert customer["metadata"] == {"sdk": sdk}
    # Four customers on a fresh account, paged two at a time, newest first.
    assert len(out["listed"]) == 4 == len(set(out["listed"]))
    assert out["listed"][-1] == customer["id"]
    assert out["searched"] == [customer["id"]]
    assert out["updated"]["name"].endswith(" II")
    assert out["updated"]["metadata"] == {"sdk": sdk, "tier": "gold"}

    intent = out["intent"]
    assert intent["id"].startswith("pi_") and intent["status"] == "succeeded"
    assert intent["amount_received"] == 2000 and ident(intent["customer"]) == customer["id"]
    declined = out["declined"]
    assert declined["type"] == "card_error" and declined["code"] == "card_declined"
    assert declined["decline_code"] == "insufficient_funds" and declined["status"] == 402
    refund = out["refund"]
    assert refund["id"].startswith("re_") and refund["status"] == "succeeded"
    assert refund["amount"] == 500 and ident(refund["payment_intent"]) == intent["id"]

    session = out["session"]
    assert session["id"].startswith("cs_test_") and session["mode"] == "payment"
    assert session["status"] == "open" and session["payment_status"] == "unpaid"
    assert session["amount_total"] == 4500 and "/c/pay/" + session["id"] in session["url"]
    [item] = out["line_items"]
    assert item["quantity"] == 3 and item["amount_total"] == 4500
    assert item["price"]["unit_amount"] == 1500

    trial = out["trial"]
    assert trial["status"] == "trialing"
    assert trial["trial_end"] - trial["trial_start"] == 14 * 86400
    assert trial["latest_invoice"]["amount_due"] == 0
    assert trial["latest_invoice"]["billing_reason"] == "subscription_create"
    paid = out["paid"]
    assert paid["status"] == "active" and paid["latest_invoice"]["status"] == "paid"
    assert paid["latest_invoice"]["amount_paid"] == 900

    first, replay, replayed = out["idempotent"]
    assert first == replay and first.startswith("cus_") and replayed == "true"
    missing = out["missing"]
    assert missing["type"] == "invalid_request_error" and missing["status"] == 404
    assert missing["code"] == "resource_missing" and missing["param"] == "id"
    assert missing["request_id"].startswith("req_")
    assert out["auth"]["type"] == "invalid_request_error" and out["auth"]["status"] == 401
    # A webhook delivery to an endpoint at the SDK's version verifies with the SDK, its
    # object deserializes, and a tampered body does not verify.
    hook = out["webhook"]
    assert "error" not in hook, hook
    assert hook["type"] == "customer.created" and hook["api_version"] == out["api_version"]
    assert hook["object"] == hook["expected"] and hook["object"].startswith("cus_")
    assert hook["tampered"] in ("webhook had no valid signature",  # stripe-go
                                "SignatureVerificationException")  # stripe-java
    assert out["deleted"] is True
