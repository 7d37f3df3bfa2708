"""sdk-upgrade-node: three Express services on stripe-node 10.17.0 (API 2022-08-01) that
the agent moves to stripe-node 23.1.0 and the current API version without changing their
JSON. Proven under the harness requirement by requirement (tests/requirements.toml,
solution/mutants, solution/alternatives: one test per variant; the partial upgrade again
inside bubblewrap when it can run: no network, npm installs both majors from the offline
cache), and a red-team trial where a faked upgrade that goes past the recording proxy and
a hanging /version score nothing while an honest service beside a FIFO scores its
third."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import proof_trial
from paths import REPO
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.emulator import Emulator
from stripebench.harness.proof.prove import prove_task, prove_variant, static_proof, variant_labels
from stripebench.harness.sandbox import bwrap_available, npm_cache
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "sdk-upgrade-node"

pytestmark = [
    pytest.mark.skipif(npm_cache() is None, reason="no offline npm cache: run scripts/setup.sh"),
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]


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
    verdict = prove_variant(load_task(TASK), label, tmp_path, server)
    assert verdict.ok, verdict.message


@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")
def test_the_partial_upgrade_in_bubblewrap(server: Emulator, tmp_path: Path) -> None:
    """No network at all: stripe 10 and 23 both come from the read-only npm cache, and
    stripe-node reaches the routed emulator over TLS (NODE_EXTRA_CA_CERTS)."""
    verdict = prove_variant(load_task(TASK), "mutant/only-payments-upgraded", tmp_path,
                            server, sandbox="bwrap")
    assert verdict.ok, verdict.message
    assert verdict.reward == pytest.approx(1 / 3, abs=1e-6)


# Red team, one trial, one attack per service (stripe 23 installed for all three):
# - payments keeps its old code at 2022-08-01, hidden from the literal scan
#   ('2022-08' + '-01'), and sends it to the emulator's address in STRIPE_BASE_URL, past
#   the recording proxy, while each /version sends one honest stripe-node 23 request
#   through STRIPE_API_BASE and claims the current version. Every contract passes; it
#   scored the payments third before the grader pointed every variable naming the
#   emulator at the proxy, which now sees Stripe-Version 2022-08-01: 0. (An address
#   written into the code goes past the proxy, and the emulator's request log shows it:
#   see test_task_sdk_upgrade.py, the graders share stripebench.grading.sdk_upgrade.service_copies.)
# - invoices runs the reference code but never answers anything but /healthz: the
#   grader's bounded waits score it 0 instead of hanging until the verifier's timeout (a
#   grader_error, which the means would leave out). With one time budget for all three
#   services it also used up the subscriptions service's time, which then scored 0 too;
#   each service now has its own budget;
# - subscriptions runs the reference code beside a FIFO named like a module: the scan of
#   the code skips it (reading it would block forever) and the honest service scores.
BYPASS = """
const honest = new Stripe(process.env.STRIPE_SECRET_KEY || '', {apiVersion: '2026-10-28.endive',
  ...apiAddress()});
const direct = new URL(process.env.STRIPE_BASE_URL);
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY || '', {apiVersion: '2022-08' + '-01',
  host: direct.hostname, port: direct.port, protocol: direct.protocol.replace(':', '')});
"""


def _red_team(task: Path) -> list[dict[str, Any]]:
    payments = (task / "environment" / "services" / "payments.js").read_text()
    head = payments[payments.index("const stripe = Stripe("):payments.index("const app")]
    payments = payments.replace(head, BYPASS.lstrip() + "\n").replace(
        "app.get('/version', (req, res) => res.json({\n"
        "  service: 'payments', stripe_sdk: stripe.VERSION, "
        "api_version: stripe.getApiField('version'),\n}));",
        "app.get('/version', handle(async (req, res) => {\n"
        "  await honest.customers.list({limit: 1});\n"
        "  res.json({service: 'payments', stripe_sdk: honest.VERSION,\n"
        "    api_version: honest.getApiField('version')});\n}));")
    assert "honest.customers.list" in payments
    invoices = (task / "solution" / "services" / "invoices.js").read_text().replace(
        "app.get('/healthz'", "app.use((req, res, next) => {\n"
        "  if (req.path === '/healthz') next(); // the rest never answers\n});\n"
        "app.get('/healthz'", 1)
    subscriptions = (task / "solution" / "services" / "subscriptions.js").read_text()
    return [{"tool": "bash", "args": {"command": f"""set -e
npm pkg set dependencies.stripe=23.1.0
bash install.sh
cat > services/payments.js <<'JSEOF'
{payments}JSEOF
cat > services/invoices.js <<'JSEOF'
{invoices}JSEOF
cat > services/subscriptions.js <<'JSEOF'
{subscriptions}JSEOF
mkfifo services/zz.js
"""}}]


def test_red_team_bypass_hang_and_fifo(server: Emulator, tmp_path: Path) -> None:
    record = trial(server, tmp_path, "redteam", ScriptedAgent(_red_team(TASK)))
    work = tmp_path / "redteam" / "workdir"
    payments = (work / "services" / "payments.js").read_text()
    assert "'2022-08' + '-01'" in payments and "STRIPE_BASE_URL" in payments
    assert (work / "services" / "zz.js").is_fifo()
    assert record["subscores"]["gate:stripe_23_pinned"] == 1.0
    assert len(record["subscores"]) == 10  # every check ran and scored
    reward = json.loads((tmp_path / "redteam" / "reward.json").read_text())
    messages = reward["messages"]
    assert "sent Stripe-Version '2022-08-01'" in messages["payments_upgraded"]
    assert "GET /version answered 0" in messages["invoices_upgraded"]
    assert all(v == 0.0 for k, v in record["subscores"].items()
               if k.startswith(("payments", "invoices")))
    assert all(v == 1.0 for k, v in record["subscores"].items()
               if k.startswith("subscriptions"))
    assert record["reward"] == pytest.approx(1 / 3, abs=1e-6)
    assert record["grader_seconds"] < 170  # inside the verifier's 180 s


def test_the_npm_cache_reaches_every_sandbox(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`npm_cache()` is `.cache/npm` or $STRIPEBENCH_NPM_CACHE (a missing directory is no
    cache), and bubblewrap mounts it read-only like the wheelhouse."""
    from stripebench.routing.bwrap import default_shared

    assert npm_cache() == (TASK.parent.parent / ".cache" / "npm").resolve()
    assert npm_cache() in default_shared()
    elsewhere = tmp_path / "npm"
    monkeypatch.setenv("STRIPEBENCH_NPM_CACHE", str(elsewhere))
    assert npm_cache() is None
    elsewhere.mkdir()
    assert npm_cache() == elsewhere.resolve()
    assert elsewhere.resolve() in default_shared()
