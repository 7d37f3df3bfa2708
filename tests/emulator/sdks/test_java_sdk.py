"""The official stripe-java against the emulator: the current major (33.x, pinned to
2026-07-29.dahlia) and an old one (20.x, pinned to 2020-08-27), each a real Java program in
tests/sdk_programs/java/ whose classpath Maven resolves offline (`mvn -o`) from the
repository `scripts/setup.sh` fills (`.cache/m2`), compiled with javac and run against the
emulator's plain HTTP address, and under `stripebench exec` with the SDK's default host
(https://api.stripe.com, trusted through the truststore in JAVA_TOOL_OPTIONS).

Shapes per version: https://docs.stripe.com/changelog/2022-11-15 (PaymentIntent `charges`
replaced by `latest_charge`) and https://docs.stripe.com/changelog/basil (invoice
`payment_intent` replaced by `payments`, subscription periods moved to items). Errors
arrive as the SDK's exception classes: https://docs.stripe.com/error-handling?lang=java
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import stripe

from compiled_sdks import Program, build_both, build_java, check_flows, copy_into, run_program
from conftest import RunningEmulator, run_exec
from stripebench.harness.sandbox import bwrap_available

ERROR_CLASSES = {"declined": "CardException", "missing": "InvalidRequestException",
                 "auth": "AuthenticationException"}


@pytest.fixture(scope="session")
def java_programs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Program]]:
    """Both programs, compiled once per test session."""
    out = tmp_path_factory.mktemp("java-programs")
    yield build_both(build_java, out)


def test_current_stripe_java(emulator: RunningEmulator, account: dict[str, str],
                             client: stripe.StripeClient,
                             java_programs: dict[str, Program]) -> None:
    out = run_program(java_programs["current"], account["secret_key"], emulator.base)
    assert out["sdk"] == "33.3.0" and out["api_version"] == "2026-07-29.dahlia"
    check_flows(out, "java")
    assert {key: out[key]["class"] for key in ERROR_CLASSES} == ERROR_CLASSES
    charge = out["intent"]["latest_charge"]  # expanded, and typed by the SDK
    assert charge["id"].startswith("ch_") and out["latest_charge_paid"] is True
    assert charge["amount"] == 2000 and charge["payment_intent"] == out["intent"]["id"]
    assert out["refund"]["charge"] == charge["id"]
    invoice = out["paid"]["latest_invoice"]
    [payment] = invoice["payments"]["data"]
    assert payment["status"] == "paid" and payment["invoice"] == invoice["id"]
    paid_intent = client.v1.payment_intents.retrieve(payment["payment"]["payment_intent"])
    assert paid_intent.status == "succeeded" and paid_intent.amount == 900
    item = out["paid"]["items"]["data"][0]
    assert item["current_period_end"] > item["current_period_start"] > 0


def test_old_stripe_java(emulator: RunningEmulator, account: dict[str, str],
                         client: stripe.StripeClient,
                         java_programs: dict[str, Program]) -> None:
    out = run_program(java_programs["old"], account["secret_key"], emulator.base)
    assert out["sdk"] == "20.136.0" and out["api_version"] == "2020-08-27"
    check_flows(out, "java-old")
    assert {key: out[key]["class"] for key in ERROR_CLASSES} == ERROR_CLASSES
    # 2020-08-27: the charge is embedded in the PaymentIntent; the current SDK reads the
    # same payment through latest_charge.
    [charge] = out["intent"]["charges"]["data"]
    assert out["embedded_charge_paid"] is True and charge["amount"] == 2000
    assert out["refund"]["charge"] == charge["id"]
    assert client.v1.payment_intents.retrieve(out["intent"]["id"]).latest_charge == charge["id"]
    # Pre-basil invoice: paid flag, payment_intent (expanded) and charge on the invoice.
    invoice = out["paid"]["latest_invoice"]
    assert invoice["paid"] is True and out["paid_intent_status"] == "succeeded"
    assert invoice["payment_intent"]["invoice"] == invoice["id"]
    assert invoice["charge"].startswith("ch_") and invoice["subscription"] == out["paid"]["id"]
    assert out["paid"]["current_period_end"] > out["paid"]["current_period_start"] > 0


@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")
@pytest.mark.parametrize("variant", ["current", "old"])
def test_stripe_java_default_host_under_exec(emulator: RunningEmulator,
                                             account: dict[str, str],
                                             client: stripe.StripeClient,
                                             java_programs: dict[str, Program],
                                             tmp_path: Path, variant: str) -> None:
    """No API base set: the SDK calls https://api.stripe.com, which the sandbox routes to
    the emulator; the JVM trusts our CA through the truststore in JAVA_TOOL_OPTIONS."""
    command = copy_into(java_programs[variant], tmp_path)
    done = run_exec(emulator, account, tmp_path, *command, "routed")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["default_base"] == "https://api.stripe.com"
    suffix = "" if variant == "current" else "-old"
    customer = client.v1.customers.retrieve(out["customer"])
    assert customer.email == f"routed-java{suffix}@example.com"
