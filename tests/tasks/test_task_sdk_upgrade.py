"""sdk-upgrade-python: three Flask services on stripe-python 5.5.0 (API 2022-08-01) that
the agent moves to stripe-python 16.1.0 and the current API version without changing
their JSON. Proven under the harness requirement by requirement (tests/requirements.toml,
solution/mutants, solution/alternatives: one test per variant), then red-teamed: a faked
upgrade, hanging services, a FIFO in the code and requests going around the recording
proxy score nothing; and the old SDK installs and answers offline inside bubblewrap."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import proof_trial
from paths import REPO
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.emulator import Emulator
from stripebench.harness.fixtures import seed
from stripebench.harness.proof.prove import prove_task, prove_variant, static_proof, variant_labels
from stripebench.harness.sandbox import bwrap_available, wheelhouse
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "sdk-upgrade-python"

pytestmark = pytest.mark.skipif(wheelhouse() is None,
                                reason="no offline wheelhouse: run scripts/setup.sh")


def trial(server: Emulator, tmp_path: Path, name: str, agent: Any,
          sandbox: str = "local") -> dict[str, Any]:
    return proof_trial(TASK, server, tmp_path, name, agent, sandbox)


def test_the_requirement_table_and_variants_are_valid() -> None:
    assert static_proof(load_task(TASK)).problems == []


def test_oracle_noop_and_the_table_against_the_reward(server: Emulator,
                                                      tmp_path: Path) -> None:
    proof = prove_task(load_task(TASK), tmp_path, server)
    assert (proof.problems, proof.oracle, proof.noop) == ([], 1.0, 0.0)


@pytest.mark.parametrize("label", variant_labels(TASK))
def test_variant(label: str, server: Emulator, tmp_path: Path) -> None:
    """Each mutant loses exactly its checks; each alternative scores 1.0 (among them a
    developer tool under tools/ quoting the old version, which once scored 0.0)."""
    verdict = prove_variant(load_task(TASK), label, tmp_path, server)
    assert verdict.ok, verdict.message


# Red team: the SDK bumped, /version made to report stripe 16 and the current API
# version, and the old version string hidden from the literal scan — the old code on the
# old API version answers every contract exactly. It scored 1.0 before the grader
# recorded what the services send.
FAKE_UPGRADE = [{"tool": "bash", "args": {"command": """set -e
printf 'stripe==16.1.0\\n' > requirements.txt
bash install.sh
sed -i -e 's/stripe.api_version = "2022-08-01"/stripe.api_version = "2022-08" + "-01"/' \\
  -e 's/stripe.version.VERSION/stripe.VERSION/' \\
  -e 's/"api_version": stripe.api_version/"api_version": "2026-10-28.endive"/' services/*.py
"""}}]


def test_a_faked_upgrade_scores_nothing(server: Emulator, tmp_path: Path) -> None:
    """The grader starts its own copy of each service behind a recording proxy: every
    request still says Stripe-Version 2022-08-01, so no service counts as upgraded,
    though /version claims it and the contracts would all pass."""
    record = trial(server, tmp_path, "fake", ScriptedAgent(FAKE_UPGRADE))
    work = tmp_path / "fake" / "workdir"
    assert '"2022-08" + "-01"' in (work / "services" / "payments.py").read_text()
    assert record["reward"] == 0.0
    assert record["subscores"]["gate:stripe_16_pinned"] == 1.0
    reward = json.loads((tmp_path / "fake" / "reward.json").read_text())
    for service in ("payments", "invoices", "subscriptions"):
        assert "sent Stripe-Version '2022-08-01'" in reward["messages"][f"{service}_upgraded"]


# Red team: pin stripe 16, then make every endpoint but /healthz hang. The grader's first
# request timed out, the grader crashed, and the trial became a grader_error — which
# reports leave out of every mean, so breaking a task one cannot solve beat scoring 0 on
# it. The grader now bounds each request and all of them together and scores it 0.
STALL = (r"\n\n\n@app.before_request\ndef _stall():\n    from flask import request as _r\n"
         r'    import time as _t\n    if _r.path != "\/healthz":\n        _t.sleep(3600)')
HANG = [{"tool": "bash", "args": {"command": "set -e\n"
         "printf 'stripe==16.1.0\\n' > requirements.txt\n"
         "bash install.sh\n"
         f"sed -i 's/^app = Flask(__name__)$/app = Flask(__name__){STALL}/' services/*.py\n"}}]


def test_hanging_services_score_zero_not_a_grader_error(server: Emulator,
                                                         tmp_path: Path) -> None:
    record = trial(server, tmp_path, "hang", ScriptedAgent(HANG))
    assert "_stall" in (tmp_path / "hang" / "workdir" / "services" / "payments.py").read_text()
    assert record["status"] == "completed" and record["reward"] == 0.0
    assert record["subscores"]["gate:stripe_16_pinned"] == 1.0
    assert len(record["subscores"]) == 10  # every check ran and scored
    assert record["grader_seconds"] < 170  # inside the verifier's 180 s
    reward = json.loads((tmp_path / "hang" / "reward.json").read_text())
    assert "GET /version answered 0" in reward["messages"]["payments_upgraded"]


def test_a_fifo_in_the_code_scores_zero_not_a_grader_error(server: Emulator,
                                                           tmp_path: Path) -> None:
    """Red team: a FIFO named like a module blocked the grader's scan of the code for old
    API versions until the verifier timed out (a grader_error, left out of the means)."""
    fifo = [{"tool": "bash", "args": {"command": "printf 'stripe==16.1.0\\n' > "
             "requirements.txt && bash install.sh && mkfifo services/zz.py"}}]
    record = trial(server, tmp_path, "fifo", ScriptedAgent(fifo))
    assert (tmp_path / "fifo" / "workdir" / "services" / "zz.py").is_fifo()
    assert record["status"] == "completed" and record["reward"] == 0.0
    assert record["subscores"]["gate:stripe_16_pinned"] == 1.0


# What the starter payments service answers for the seeded customer, recorded in the trial
# (the old SDK, installed from the wheelhouse, run in the sandbox).
RECORD = r"""
import json, os, urllib.parse, urllib.request
base = os.environ["STRIPE_API_BASE"].rstrip("/")
query = urllib.parse.urlencode({"email": "katherine@example.com"})
request = urllib.request.Request(f"{base}/v1/customers?{query}", headers={
    "Authorization": "Bearer " + os.environ["STRIPE_SECRET_KEY"]})
customer = json.load(urllib.request.urlopen(request))["data"][0]["id"]
service = os.environ["PAYMENTS_URL"]
body = json.load(urllib.request.urlopen(f"{service}/customers/{customer}/payments"))
with open("before.json", "w") as out:
    json.dump(body, out, indent=2, sort_keys=True)
"""


@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")
def test_the_old_sdk_answers_in_bubblewrap(server: Emulator, tmp_path: Path) -> None:
    """Inside bubblewrap (no network, Stripe's hosts routed over TLS to the emulator) the
    wheelhouse is reachable, stripe 5 installs and answers through the routed TLS; nothing
    upgraded scores 0."""
    replay = [{"tool": "bash", "args": {"command": f"python - <<'PYEOF'\n{RECORD}PYEOF\n"}}]
    record = trial(server, tmp_path, "bwrap", ScriptedAgent(replay), "bwrap")
    assert record["reward"] == 0.0
    before = json.loads((tmp_path / "bwrap" / "workdir" / "before.json").read_text())
    assert before["count"] == 3 and before["refunded"] == 900
    assert before["captured"] == 5400  # the held payment is not captured
    cards = {p["description"]: (p["charge"] or {}).get("card") for p in before["payments"]}
    assert cards["Telescope mount"]["last4"] == "4242"
    assert cards["Tripod (held, not captured)"]["brand"] == "mastercard"


def test_fixture_paths_take_references(server: Emulator) -> None:
    """The task's fixtures pay an invoice by a path naming an earlier response's id."""
    account = server.create_account("acct_sdkfixtures", None)
    refs = seed(server.base, account.secret_key, load_task(TASK).fixtures)
    invoice = httpx.get(f"{server.base}/v1/invoices/{refs['invoice']['id']}",
                        headers={"Authorization": f"Bearer {account.secret_key}"}).json()
    assert invoice["status"] == "paid" and invoice["amount_paid"] == 8800
    server.delete_account(account.id)


# Red team: pin stripe 16, make one honest current-version request through
# STRIPE_API_BASE (the recording proxy), and send everything else at 2022-08-01 through
# STRIPE_BASE_URL, which named the emulator itself: the proxy saw only the honest request
# and the old payments code scored as upgraded. The grader's copies now get the proxy in
# every variable that names the emulator.
# The old payments code, its version hidden from the literal scan, claiming the upgrade in
# /version, and one honest request through STRIPE_API_BASE before `stripe.api_base` is set
# to NEW_BASE (Python source run by the edit script in the trial).
BYPASS_EDIT = r'''
import os
from pathlib import Path
path = Path("services/payments.py")
source = path.read_text()
source = source.replace('stripe.api_version = "2022-08-01"',
                        'stripe.api_version = "2022-08" + "-01"')
source = source.replace('stripe.version.VERSION', 'stripe.VERSION')
source = source.replace('"api_version": stripe.api_version', '"api_version": "2026-10-28.endive"')
source = source.replace(
    '    stripe.api_base = os.environ["STRIPE_API_BASE"].rstrip("/")',
    '    stripe.StripeClient(stripe.api_key, base_addresses={"api": os.environ["STRIPE_API_BASE"]})'
    '.v1.customers.list({"limit": 1})\n'
    '    stripe.api_base = ' + NEW_BASE)
path.write_text(source)
'''


def bypass(new_base: str) -> list[dict[str, Any]]:
    edit = BYPASS_EDIT.replace("NEW_BASE", new_base)
    return [{"tool": "bash", "args": {"command": "set -e\n"
             "printf 'stripe==16.1.0\\n' > requirements.txt\nbash install.sh\n"
             f"python3 - <<'PY'\n{edit}\nPY\n"}}]


# STRIPE_BASE_URL named the emulator itself
BYPASS = bypass("""'(os.environ.get("STRIPE_BASE_URL") or os.environ["STRIPE_API_BASE"])'"""
                """'.rstrip("/")'""")


def test_a_service_going_around_the_proxy_is_caught(server: Emulator, tmp_path: Path) -> None:
    record = trial(server, tmp_path, "bypass", ScriptedAgent(BYPASS))
    payments = (tmp_path / "bypass" / "workdir" / "services" / "payments.py").read_text()
    assert "STRIPE_BASE_URL" in payments and "v1.customers.list" in payments
    assert record["subscores"]["gate:stripe_16_pinned"] == 1.0
    reward = json.loads((tmp_path / "bypass" / "reward.json").read_text())
    assert "sent Stripe-Version '2022-08-01'" in reward["messages"]["payments_upgraded"]
    assert record["subscores"]["payments_upgraded"] == 0.0


# Red team, next step: the emulator's address read during the agent's session and written
# into the code as a literal, so no variable the grader rewrites names it. Only the one
# honest request passes the recording proxy; the emulator's own request log shows the
# rest arriving without the proxy's stamp (stripebench.grading.sdk_upgrade.service_copies).
# the address as it was during the agent's session, written in as a literal
HARDCODED = bypass('repr(os.environ["STRIPE_API_BASE"].rstrip("/"))')


def test_a_service_with_the_emulator_address_written_in_is_caught(server: Emulator,
                                                                   tmp_path: Path) -> None:
    record = trial(server, tmp_path, "hardcoded", ScriptedAgent(HARDCODED))
    payments = (tmp_path / "hardcoded" / "workdir" / "services" / "payments.py").read_text()
    assert f"stripe.api_base = '{server.base}'" in payments
    assert "STRIPE_BASE_URL" not in payments
    reward = json.loads((tmp_path / "hardcoded" / "reward.json").read_text())
    assert "went around the grader's recording proxies" in reward["messages"][
        "payments_upgraded"]
    assert record["subscores"]["payments_upgraded"] == 0.0
    assert record["reward"] == 0.0  # one bypass: no service counts as upgraded
