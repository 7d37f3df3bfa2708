"""The official stripe-go against the emulator: the current major (v85, pinned to
2026-03-25.dahlia) and an old one (v72, pinned to 2020-08-27), each a real Go program in
tests/sdk_programs/go/ built offline from the module cache that `scripts/setup.sh` fills
(`.cache/go`, GOPROXY=off), run against the emulator's plain HTTP address, and under
`stripebench exec` with the SDK's default host (https://api.stripe.com, trusted through
SSL_CERT_FILE).

Shapes per version: https://docs.stripe.com/changelog/2022-11-15 (PaymentIntent `charges`
replaced by `latest_charge`) and https://docs.stripe.com/changelog/basil (invoice
`payment_intent` replaced by `payments`, subscription periods moved to items).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import stripe

from compiled_sdks import Program, build_both, build_go, check_flows, copy_into, ident, run_program
from conftest import RunningEmulator, run_exec
from stripebench.harness.sandbox import bwrap_available


@pytest.fixture(scope="session")
def go_programs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Program]]:
    """Both programs, built once per test session."""
    out = tmp_path_factory.mktemp("go-programs")
    yield build_both(build_go, out)


def test_current_stripe_go(emulator: RunningEmulator, account: dict[str, str],
                           client: stripe.StripeClient, go_programs: dict[str, Program]) -> None:
    out = run_program(go_programs["current"], account["secret_key"], emulator.base)
    assert out["sdk"] == "85.0.0" and out["api_version"] == "2026-03-25.dahlia"
    check_flows(out, "go")
    charge = out["intent"]["latest_charge"]  # expanded
    assert charge["id"].startswith("ch_") and charge["paid"] is True
    assert charge["amount"] == 2000 and ident(charge["payment_intent"]) == out["intent"]["id"]
    assert ident(out["refund"]["charge"]) == charge["id"]
    # dahlia: the invoice's payment is an InvoicePayment; periods live on the items.
    invoice = out["paid"]["latest_invoice"]
    [payment] = invoice["payments"]["data"]
    assert payment["status"] == "paid" and payment["amount_paid"] == 900
    paid_intent = client.v1.payment_intents.retrieve(ident(payment["payment"]["payment_intent"]))
    assert paid_intent.status == "succeeded" and paid_intent.amount == 900
    item = out["paid"]["items"]["data"][0]
    assert item["current_period_end"] > item["current_period_start"] > 0


def test_old_stripe_go(emulator: RunningEmulator, account: dict[str, str],
                       client: stripe.StripeClient, go_programs: dict[str, Program]) -> None:
    out = run_program(go_programs["old"], account["secret_key"], emulator.base)
    assert out["api_version"] == "2020-08-27"
    check_flows(out, "go-old")
    # 2020-08-27: the charge is embedded in the PaymentIntent; the current SDK reads the
    # same payment through latest_charge.
    [charge] = out["intent"]["charges"]["data"]
    assert charge["paid"] is True and charge["amount"] == 2000
    assert ident(out["refund"]["charge"]) == charge["id"]
    assert client.v1.payment_intents.retrieve(out["intent"]["id"]).latest_charge == charge["id"]
    # Pre-basil invoice: paid flag, payment_intent (expanded) and charge on the invoice.
    invoice = out["paid"]["latest_invoice"]
    assert invoice["paid"] is True and invoice["payment_intent"]["status"] == "succeeded"
    assert ident(invoice["charge"]).startswith("ch_")
    assert ident(invoice["subscription"]) == out["paid"]["id"]
    paid: dict[str, Any] = out["paid"]
    assert paid["current_period_end"] > paid["current_period_start"] > 0


@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")
@pytest.mark.parametrize("variant", ["current", "old"])
def test_stripe_go_default_host_under_exec(emulator: RunningEmulator, account: dict[str, str],
                                           client: stripe.StripeClient,
                                           go_programs: dict[str, Program], tmp_path: Path,
                                           variant: str) -> None:
    """No API base set: the SDK calls https://api.stripe.com, which the sandbox routes to
    the emulator; Go's crypto/x509 trusts our CA through SSL_CERT_FILE."""
    command = copy_into(go_programs[variant], tmp_path)
    done = run_exec(emulator, account, tmp_path, *command, "routed")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["default_base"] == "https://api.stripe.com"
    suffix = "" if variant == "current" else "-old"
    assert client.v1.customers.retrieve(out["customer"]).email == f"routed-go{suffix}@example.com"
