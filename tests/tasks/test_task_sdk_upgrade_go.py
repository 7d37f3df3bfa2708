"""sdk-upgrade-go: three net/http services on stripe-go v72 (API 2020-08-27) that the agent
moves to stripe-go v85 and its API version without changing their JSON. Proven under the
harness requirement by requirement (tests/requirements.toml, solution/mutants and
alternatives, one test per variant; the partial upgrade again inside bubblewrap
when it can run: no network, both majors build from the read-only module cache, with an
empty build cache), and a red-team trial where v72 code behind forged v85 headers, a
v85 service whose real requests go to STRIPE_BASE_URL at 2020-08-27, and an honest v85
service that reads the removed fields from the raw JSON score what they should.

The local trials build with the build cache `scripts/setup.sh` warmed (.cache/go-build,
through GOCACHE, which the task's goenv.sh honours): a cold build of stripe-go takes
minutes on a busy machine, and the bubblewrap trial proves the cold path."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import load_module, proof_trial
from paths import REPO
from stripebench.grading import launch
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.emulator import Emulator
from stripebench.harness.launch_server import LaunchServer
from stripebench.harness.proof.prove import prove_task, prove_variant, static_proof, variant_labels
from stripebench.harness.sandbox import bwrap_available, go_module_cache, make_sandbox
from stripebench.harness.side_rooms import SideRooms
from stripebench.harness.task import load_task
from stripebench.sandbox.limits import DEFAULT_LIMITS

ROOT = REPO
TASK = ROOT / "tasks" / "sdk-upgrade-go"
WARM_BUILD_CACHE = ROOT / ".cache" / "go-build"
grade = load_module(TASK / "tests" / "grade.py", "sdk_upgrade_go_grade")

pytestmark = [
    pytest.mark.skipif(go_module_cache() is None,
                       reason="no offline Go module cache: run scripts/setup.sh"),
    pytest.mark.skipif(shutil.which("go") is None, reason="Go is not installed"),
]


@pytest.fixture
def warm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Local trials inherit GOCACHE: the build cache setup.sh filled."""
    monkeypatch.setenv("GOCACHE", str(WARM_BUILD_CACHE))


def trial(server: Emulator, tmp_path: Path, name: str, agent: Any,
          sandbox: str = "local") -> dict[str, Any]:
    return proof_trial(TASK, server, tmp_path, name, agent, sandbox)


def test_the_requirement_table_and_variants_are_valid() -> None:
    assert static_proof(load_task(TASK)).problems == []


def test_oracle_noop_and_the_table_against_the_reward(server: Emulator, tmp_path: Path,
                                                      warm: None) -> None:
    proof = prove_task(load_task(TASK), tmp_path, server)
    assert (proof.problems, proof.oracle, proof.noop) == ([], 1.0, 0.0)


@pytest.mark.timeout(900)  # cold builds on a busy machine
@pytest.mark.parametrize("label", variant_labels(TASK))
def test_variant(label: str, server: Emulator, tmp_path: Path, warm: None) -> None:
    verdict = prove_variant(load_task(TASK), label, tmp_path, server)
    assert verdict.ok, verdict.message


@pytest.mark.timeout(900)  # cold builds on a busy machine
@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")
def test_the_partial_upgrade_in_bubblewrap(server: Emulator, tmp_path: Path, warm: None) -> None:
    """No network at all: v72 and v85 both build offline from the read-only
    module cache, and the services reach the routed emulator."""
    verdict = prove_variant(load_task(TASK), "mutant/only-payments-upgraded", tmp_path,
                            server, sandbox="bwrap")
    assert verdict.ok, verdict.message
    assert verdict.reward == pytest.approx(1 / 3, abs=1e-6)


def test_the_grader_pins_what_stripe_go_v85_sends() -> None:
    """The grader's current version is the one stripe-go v85 sends (its APIVersion)."""
    module = go_module_cache() / "github.com" / "stripe" / "stripe-go" / "v85@v85.0.0"  # type: ignore[operator]
    source = (module / "api_version.go").read_text()
    assert f'APIVersion      string = "{grade.API_VERSION}"' in source


def test_the_gate_reads_go_mod(tmp_path: Path) -> None:
    """go.mod requires v85 (beside v72 while a service still imports it); a comment, v72
    alone, v72 left over once no service imports it, or another module's v85 does not
    pass."""
    def gate(text: str) -> bool:
        (tmp_path / "go.mod").write_text(text)
        try:
            return grade.pinned_major(tmp_path)
        except ValueError:
            return False

    head = "module backoffice\n\ngo 1.23\n\n"
    assert gate(head + "require github.com/stripe/stripe-go/v85 v85.0.0\n")
    both = head + ("require (\n\tgithub.com/stripe/stripe-go/v72 v72.122.0\n"
                   "\tgithub.com/stripe/stripe-go/v85 v85.0.0\n)\n")
    assert not gate(both)  # no service imports v72 any more
    invoices = tmp_path / "services" / "invoices"
    invoices.mkdir(parents=True)
    (invoices / "main.go").write_text('package main\n\nimport (\n\tstripe '
                                      '"github.com/stripe/stripe-go/v72"\n)\n')
    assert gate(both)  # invoices still does
    assert not gate(head + "require github.com/stripe/stripe-go/v72 v72.122.0\n")
    assert not gate(head + "require github.com/stripe/stripe-go/v72 v72.122.0\n"
                    "// require github.com/stripe/stripe-go/v85 v85.0.0\n")
    assert not gate(head + "require example.com/github.com/stripe/stripe-go/v85 v85.0.0\n")
    (tmp_path / "go.mod").unlink()
    with pytest.raises(ValueError, match="no readable go.mod"):
        grade.pinned_major(tmp_path)


@pytest.fixture
def launcher(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
             monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The grading room's launcher over tmp_path (the grader's `go list` runs through it,
    in a side room of its own), at STRIPEBENCH_LAUNCH."""
    kind = "bwrap" if bwrap_available() else "local"
    box = make_sandbox(kind, tmp_path, {"PATH": os.environ["PATH"]}, clear_on_stop=False)
    rooms = SideRooms(box, {"PATH": os.environ["PATH"]}, DEFAULT_LIMITS)
    sealed = tmp_path_factory.mktemp("sealed")   # beside the submission, not in it
    server = LaunchServer(rooms, box.workdir, sealed / "launch.sock", log_dir=sealed)
    monkeypatch.setenv(launch.SOCKET_VARIABLE, str(sealed / "launch.sock"))
    try:
        yield
    finally:
        server.close()
        box.stop()
        rooms.close()


def test_the_dependency_check_follows_the_build(tmp_path: Path, launcher: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """`go list -deps` names each stripe-go major a service's package links, and a local
    module standing in for stripe-go v85 (a `replace`) is refused."""
    monkeypatch.setenv("STRIPEBENCH_GOMODCACHE", str(go_module_cache()))
    service = tmp_path / "services" / "payments"
    service.mkdir(parents=True)
    (service / "main.go").write_text(
        'package main\n\nimport "github.com/stripe/stripe-go/v85"\n\n'
        "func main() { println(stripe.APIVersion) }\n")
    go_mod = "module backoffice\n\ngo 1.23\n\nrequire github.com/stripe/stripe-go/v85 v85.0.0\n"
    (tmp_path / "go.mod").write_text(go_mod + "require github.com/stripe/stripe-go/v72 v72.122.0\n")
    (tmp_path / "go.sum").write_text((TASK / "solution" / "go.sum").read_text()
                                     + (TASK / "environment" / "go.sum").read_text())
    assert grade.sdk_majors(tmp_path, "payments") == {85}
    (service / "old.go").write_text('package main\n\nimport _ "github.com/stripe/stripe-go/v72"\n')
    assert grade.sdk_majors(tmp_path, "payments") == {72, 85}
    (service / "old.go").unlink()
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "go.mod").write_text("module github.com/stripe/stripe-go/v85\n\ngo 1.23\n")
    (fake / "stripe.go").write_text('package stripe\n\nconst APIVersion = "2026-03-25.dahlia"\n')
    (tmp_path / "go.mod").write_text(go_mod + "replace github.com/stripe/stripe-go/v85 => ./fake\n")
    with pytest.raises(ValueError, match="comes from .*fake, not the module cache"):
        grade.sdk_majors(tmp_path, "payments")


# Red team, one trial, one attack per service (go.mod requires v85; the build cache warm):
# - payments keeps its v72 code and forges stripe-go v85's headers onto every request (an
#   http.RoundTripper in the backend's HTTP client; stripe-go lets any request set any
#   header), reporting v85 on /version: the recording proxy sees only v85 requests at the
#   current version. The package still links v72 (`go list -deps`): 0.
# - invoices uses stripe-go v85 alone, but its real requests go to the emulator's address
#   in STRIPE_BASE_URL with Stripe-Version 2020-08-27 (written '2020-08' + '-27', out of
#   the literal scan's reach) and read the removed `paid` and `payment_intent` from the
#   raw JSON; /version sends one honest request through STRIPE_API_BASE. The grader's
#   copies see the proxy in every variable naming the emulator: the proxy records
#   2020-08-27: 0.
# - subscriptions is the reference but reads the billing period from the subscription's
#   raw JSON, where it no longer is (new headers, old shapes): upgraded, and its metrics
#   fail (only the missing subscription's 404 matches) while its summary passes. A FIFO
#   named services/zz.go sits beside it: the code scan skips it.
FORGED_HEADERS = """
// forged makes every request look like stripe-go v85's at its API version.
type forged struct{}

func (forged) RoundTrip(r *http.Request) (*http.Response, error) {
	r.Header.Set("Stripe-Version", current.APIVersion)
	r.Header.Set("User-Agent", "Stripe/v1 GoBindings/"+current.ClientVersion)
	return http.DefaultTransport.RoundTrip(r)
}

"""

BYPASS_INVOICES = """
// Red team: stripe-go v85 only, but every real request goes to STRIPE_BASE_URL at
// the old API version and the old fields are read from the raw JSON; /version makes
// one honest request through STRIPE_API_BASE.
package main

import (
	"context"
	"encoding/json"
	"log"
	"net/http"
	"os"

	"github.com/stripe/stripe-go/v85"
)

type oldVersion struct{}

func (oldVersion) RoundTrip(r *http.Request) (*http.Response, error) {
	r.Header.Set("Stripe-Version", "2020-08"+"-27")
	return http.DefaultTransport.RoundTrip(r)
}

func client(base string, transport http.RoundTripper) *stripe.Client {
	config := &stripe.BackendConfig{URL: stripe.String(base),
		HTTPClient: &http.Client{Transport: transport}}
	return stripe.NewClient(os.Getenv("STRIPE_SECRET_KEY"),
		stripe.WithBackends(stripe.NewBackendsWithConfig(config)))
}

var honest = client(os.Getenv("STRIPE_API_BASE"), http.DefaultTransport)
var sc = client(os.Getenv("STRIPE_BASE_URL"), oldVersion{})

type oldInvoice struct {
	ID                string  `json:"id"`
	Number            *string `json:"number"`
	Customer          *string `json:"customer"`
	Status            string  `json:"status"`
	Paid              bool    `json:"paid"`
	Currency          string  `json:"currency"`
	AmountDue         int64   `json:"amount_due"`
	AmountPaid        int64   `json:"amount_paid"`
	AmountRemaining   int64   `json:"amount_remaining"`
	StatusTransitions struct {
		PaidAt *int64 `json:"paid_at"`
	} `json:"status_transitions"`
	PaymentIntent *struct {
		ID             string `json:"id"`
		Status         string `json:"status"`
		Amount         int64  `json:"amount"`
		AmountReceived int64  `json:"amount_received"`
	} `json:"payment_intent"`
}

func view(raw []byte) map[string]any {
	var inv oldInvoice
	json.Unmarshal(raw, &inv)
	var payment any
	if pi := inv.PaymentIntent; pi != nil {
		payment = map[string]any{"payment_intent": pi.ID, "status": pi.Status,
			"amount": pi.Amount, "amount_received": pi.AmountReceived}
	}
	return map[string]any{"id": inv.ID, "number": inv.Number, "customer": inv.Customer,
		"status": inv.Status, "paid": inv.Paid, "currency": inv.Currency,
		"amount_due": inv.AmountDue, "amount_paid": inv.AmountPaid,
		"amount_remaining": inv.AmountRemaining, "paid_at": inv.StatusTransitions.PaidAt,
		"payment": payment}
}

func write(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		write(w, 200, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		params := &stripe.CustomerListParams{}
		params.Limit = stripe.Int64(1)
		params.Single = true
		honest.V1Customers.List(r.Context(), params)
		write(w, 200, map[string]string{"service": "invoices",
			"stripe_sdk": stripe.ClientVersion, "api_version": stripe.APIVersion})
	})
	status := func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		params := &stripe.InvoiceRetrieveParams{}
		params.AddExpand("payment_intent")
		inv, err := sc.V1Invoices.Retrieve(context.Background(), id, params)
		if err != nil {
			write(w, 404, map[string]string{"error": "not_found", "id": id})
			return
		}
		write(w, 200, view(inv.LastResponse.RawJSON))
	}
	mux.HandleFunc("GET /invoices/{id}/payment-status", status)
	mux.HandleFunc("GET /customers/{id}/invoices", func(w http.ResponseWriter, r *http.Request) {
		customer := r.PathValue("id")
		params := &stripe.InvoiceListParams{Customer: stripe.String(customer)}
		params.Limit = stripe.Int64(100)
		params.AddExpand("data.payment_intent")
		views := []map[string]any{}
		paid, unpaid, outstanding := 0, 0, int64(0)
		for inv, err := range sc.V1Invoices.List(r.Context(), params).All(r.Context()) {
			if err != nil {
				write(w, 500, map[string]string{"error": err.Error()})
				return
			}
			if inv.Status == "draft" {
				continue
			}
			v := view(inv.LastResponse.RawJSON)
			if v["paid"].(bool) {
				paid++
			} else {
				unpaid++
			}
			if inv.Status == "open" {
				outstanding += inv.AmountRemaining
			}
			views = append(views, v)
		}
		write(w, 200, map[string]any{"customer": customer, "paid": paid, "unpaid": unpaid,
			"outstanding": outstanding, "invoices": views})
	})
	log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), mux))
}
"""


def _red_team(task: Path) -> list[dict[str, Any]]:
    payments = (task / "environment" / "services" / "payments" / "main.go").read_text()
    payments = payments.replace(
        '\t"github.com/stripe/stripe-go/v72/client"\n',
        '\t"github.com/stripe/stripe-go/v72/client"\n'
        '\tcurrent "github.com/stripe/stripe-go/v85"\n').replace(
        "config := &stripe.BackendConfig{URL: stripe.String(base)}",
        "config := &stripe.BackendConfig{URL: stripe.String(base),\n"
        "\t\tHTTPClient: &http.Client{Transport: forged{}}}").replace(
        '"stripe_sdk": sdkVersion(), "api_version": stripe.APIVersion',
        '"stripe_sdk": current.ClientVersion, "api_version": current.APIVersion').replace(
        "var sc = newClient()\n", FORGED_HEADERS + "var sc = newClient()\n")
    assert payments.count("current.") == 4
    subscriptions = (task / "solution" / "services" / "subscriptions" / "main.go").read_text()
    reference_period = """\tstart, end := int64(math.MaxInt64), int64(math.MinInt64)
\tfor _, item := range subscription.Items.Data {
\t\tstart, end = min(start, item.CurrentPeriodStart), max(end, item.CurrentPeriodEnd)
\t}
"""
    assert reference_period in subscriptions
    subscriptions = subscriptions.replace(reference_period, """\tvar old struct {
\t\tStart int64 `json:"current_period_start"`
\t\tEnd   int64 `json:"current_period_end"`
\t}
\tjson.Unmarshal(subscription.LastResponse.RawJSON, &old)
\tstart, end := old.Start, old.End
""")
    return [{"tool": "bash", "args": {"timeout": 600, "command": f"""set -e
. ./goenv.sh
go get github.com/stripe/stripe-go/v85@v85.0.0
cat > services/payments/main.go <<'GOEOF'
{payments}GOEOF
cat > services/invoices/main.go <<'GOEOF'
{BYPASS_INVOICES.lstrip()}GOEOF
cat > services/subscriptions/main.go <<'GOEOF'
{subscriptions}GOEOF
go mod tidy
go vet ./services/...
mkfifo services/zz.go
"""}}]


def test_red_team_forgery_bypass_and_old_shapes(server: Emulator, tmp_path: Path,
                                                warm: None) -> None:
    record = trial(server, tmp_path, "redteam", ScriptedAgent(_red_team(TASK)))
    work = tmp_path / "redteam" / "workdir"
    assert "'2020-08' + '-27'" not in (work / "services" / "invoices" / "main.go").read_text()
    assert '"2020-08"+"-27"' in (work / "services" / "invoices" / "main.go").read_text()
    assert (work / "services" / "zz.go").is_fifo()
    scores = record["subscores"]
    assert scores["gate:stripe_85_pinned"] == 1.0
    assert len(scores) == 10, scores  # every check ran and scored
    messages = json.loads((tmp_path / "redteam" / "reward.json").read_text())["messages"]
    assert "depends on v72, v85, not stripe-go v85 alone" in messages["payments_upgraded"]
    assert "sent Stripe-Version '2020-08-27'" in messages["invoices_upgraded"]
    assert all(v == 0.0 for k, v in scores.items() if k.startswith(("payments", "invoices")))
    assert scores["subscriptions_upgraded"] == 1.0
    assert scores["subscriptions_summary"] == 1.0
    assert scores["subscriptions_metrics"] == pytest.approx(1 / 6)  # only the 404
    assert record["reward"] == pytest.approx((1 + 2 / 6 + 1) / 12, abs=1e-6)


def test_the_go_module_cache_reaches_every_sandbox(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`go_module_cache()` is `.cache/go` or $STRIPEBENCH_GOMODCACHE (a missing directory
    is no cache), bubblewrap mounts it read-only like the npm cache, and every trial's
    sandbox gets its path."""
    from stripebench.harness.trial import agent_env
    from stripebench.routing.bwrap import default_shared

    assert go_module_cache() == (ROOT / ".cache" / "go").resolve()
    assert go_module_cache() in default_shared()
    elsewhere = tmp_path / "go"
    monkeypatch.setenv("STRIPEBENCH_GOMODCACHE", str(elsewhere))
    assert go_module_cache() is None
    elsewhere.mkdir()
    assert go_module_cache() == elsewhere.resolve()
    assert elsewhere.resolve() in default_shared()

    class Account:
        secret_key, publishable_key = "sk_test_x", "pk_test_x"

    class Running:
        base = "http://127.0.0.1:1"

    env = agent_env(Account(), Running())  # type: ignore[arg-type]
    assert env["STRIPEBENCH_GOMODCACHE"] == str(elsewhere.resolve())
