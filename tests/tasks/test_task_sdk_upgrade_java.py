"""sdk-upgrade-java: three Java services (one Maven project, the JDK's HTTP server) on
stripe-java 20.136.0 (API 2020-08-27) that the agent moves to stripe-java 33.3.0 and its
API version (2026-07-29.dahlia) without changing their JSON. Proven under the harness
requirement by requirement (tests/requirements.toml, solution/mutants and alternatives,
one test per variant; the partial upgrade again inside bubblewrap when it can run: no
network, Maven builds both majors offline from the read-only repository), and a red-team
trial where a service sending stripe-java 33's headers over the old shapes and
one going around the recording proxy score nothing while an honest one scores its third.
The starter itself answers every contract on the old SDK and version: the JSON to keep.

What changed between the versions: https://docs.stripe.com/changelog/2022-11-15
(PaymentIntent `charges` and a charge's `refunds` removed) and
https://docs.stripe.com/changelog/basil (invoice `paid` and `payment_intent` removed,
subscription periods moved to items, `include[]=total_count` gone)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import stripe

from conftest import free_port, load_module, proof_trial
from paths import REPO
from stripebench.grading.bounded import Budget
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.emulator import Emulator
from stripebench.harness.proof.prove import prove_task, prove_variant, static_proof, variant_labels
from stripebench.harness.sandbox import bwrap_available
from stripebench.harness.task import load_task
from stripebench.sandbox.base import maven_repository, url_ok

TASK = REPO / "tasks" / "sdk-upgrade-java"
CODE = "src/main/java/backoffice"
SERVICES = ("payments", "invoices", "subscriptions")
grade = load_module(TASK / "tests" / "grade.py", "sdk_upgrade_java_grade")

pytestmark = [
    pytest.mark.skipif(maven_repository() is None,
                       reason="no offline Maven repository: run scripts/setup.sh"),
    pytest.mark.skipif(not (shutil.which("mvn") and shutil.which("javac")),
                       reason="a JDK and Maven are needed"),
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
    """No network at all: both majors build offline from the read-only Maven
    repository, and the services reach the routed emulator."""
    verdict = prove_variant(load_task(TASK), "mutant/only-payments-upgraded", tmp_path,
                            server, sandbox="bwrap")
    assert verdict.ok, verdict.message
    assert verdict.reward == pytest.approx(1 / 3, abs=1e-6)


def test_the_starter_answers_every_contract(server: Emulator, tmp_path: Path) -> None:
    """The starter, built offline with stripe-java 20, answers each endpoint exactly as
    the grader's contracts (computed at the current version) say, for the grader's own
    data: the old shapes and the new compute the same JSON. All its requests go out at
    2020-08-27, stripe-java 20's own version."""
    work = tmp_path / "starter"
    shutil.copytree(TASK / "environment", work, ignore=shutil.ignore_patterns("target"))
    account = server.create_account("acct_javastarter")
    client = stripe.StripeClient(account.secret_key, stripe_version=grade.CURRENT_VERSION,
                                 base_addresses={"api": server.base}, max_network_retries=2)
    env = {**os.environ, "STRIPE_SECRET_KEY": account.secret_key,
           "STRIPE_API_BASE": server.base, "STRIPEBENCH_M2": str(maven_repository())}
    ports = {service: free_port() for service in SERVICES}
    procs = [subprocess.Popen(["bash", "run.sh", service], cwd=work,
                              env={**env, "PORT": str(port)}, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for service, port in ports.items()]
    try:
        deadline = time.monotonic() + 180  # one cold offline build, then three JVMs
        while not all(url_ok(f"http://127.0.0.1:{port}/healthz") for port in ports.values()):
            assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
            time.sleep(0.5)
        urls = {service: f"http://127.0.0.1:{port}" for service, port in ports.items()}
        cases = grade.contract_cases(client, urls)
        for service in SERVICES:
            budget = Budget(grade.SERVICE_BUDGET)
            status, version = budget.get(urls[service] + "/version")
            assert (status, version) == (200, {"service": service, "stripe_sdk": "20.136.0",
                                               "api_version": "2020-08-27"})
            for name, group in cases[service].items():
                budget.restart()
                assert budget.compare(group) == (1.0, ""), (service, name)
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    answered = {entry["version"] for entry in server.requests(account.id)["data"]
                if entry["path"].startswith("/v1/") and entry["method"] == "GET"}
    assert answered == {"2020-08-27", grade.CURRENT_VERSION}  # the services, the grader


# Red team, one trial, one attack per service (pom.xml on stripe-java 33.3.0 for all):
# - payments keeps reading the old shapes (charges embedded in the PaymentIntent, refunds
#   in the charge) from raw HTTP requests that carry stripe-java 33's User-Agent and two
#   Stripe-Version headers: the current one, then 2020-08-27 (written '2020-08' + '-27',
#   out of the literal scan's reach). The recording proxy read the first and forwarded
#   the last, so it saw only good requests while the emulator answered the old shapes,
#   and every contract passed: it scored the payments third. The proxy now records every
#   value (the request is flagged) and forwards only the first;
# - invoices runs on stripe-java 33 but sends its requests at 2020-08-27 (RequestOptions'
#   unsafe override) to the emulator's address in STRIPE_BASE_URL, with one honest
#   request through STRIPE_API_BASE at start: the grader's copies get the proxy in every
#   variable naming the emulator (sdk-upgrade-node's fix), so the proxy sees 2020-08-27;
# - subscriptions is the reference code and keeps its third.
RAW_PAYMENTS = r'''package backoffice;

import static backoffice.Api.object;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.stripe.Stripe;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Payments {
  static final HttpClient HTTP = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).build();
  static final String BASE = System.getenv("STRIPE_API_BASE").replaceAll("/+$", "");

  static JsonObject get(String path, String id) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(BASE + path))
        .header("Authorization", "Bearer " + System.getenv("STRIPE_SECRET_KEY"))
        .header("User-Agent", "Stripe/v1 JavaBindings/" + Stripe.VERSION)
        .header("Stripe-Version", Stripe.API_VERSION)
        .header("Stripe-Version", "2020-08" + "-27")
        .build();
    HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() == 404) {
      throw new Api.NotFound(id);
    }
    return JsonParser.parseString(response.body()).getAsJsonObject();
  }

  static Object v(JsonObject o, String key) {
    JsonElement e = o.get(key);
    if (e == null || e.isJsonNull()) {
      return null;
    }
    JsonPrimitive p = e.getAsJsonPrimitive();
    return p.isNumber() ? (Object) p.getAsLong()
        : p.isBoolean() ? (Object) p.getAsBoolean() : p.getAsString();
  }

  static Map<String, Object> fields(JsonObject o, String... keys) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String key : keys) {
      out.put(key, v(o, key));
    }
    return out;
  }

  static Map<String, Object> charge(JsonObject c) {
    if (c == null) {
      return null;
    }
    Map<String, Object> out = fields(c, "id", "amount", "amount_captured", "captured", "paid",
        "status", "receipt_url", "amount_refunded", "refunded");
    JsonElement details = c.get("payment_method_details");
    out.put("card", details != null && details.isJsonObject()
        && "card".equals(v(details.getAsJsonObject(), "type"))
        ? fields(details.getAsJsonObject().getAsJsonObject("card"),
            "brand", "last4", "exp_month", "exp_year", "funding") : null);
    List<Object> refunds = new ArrayList<>();
    for (JsonElement r : c.getAsJsonObject("refunds").getAsJsonArray("data")) {
      refunds.add(fields(r.getAsJsonObject(), "id", "amount", "status", "reason"));
    }
    out.put("refunds", refunds);
    return out;
  }

  static Map<String, Object> payment(JsonObject intent) {
    Map<String, Object> out = fields(intent, "id", "amount", "currency", "status", "customer",
        "description");
    JsonArray charges = intent.getAsJsonObject("charges").getAsJsonArray("data");
    out.put("charge", charge(charges.size() == 0 ? null : charges.get(0).getAsJsonObject()));
    return out;
  }

  public static void main(String[] args) throws Exception {
    Map<String, Api.Handler> routes = new LinkedHashMap<>();
    routes.put("/payments/([^/]+)", p -> payment(get("/v1/payment_intents/" + p.get(0),
        p.get(0))));
    routes.put("/customers/([^/]+)/payments", p -> {
      List<Map<String, Object>> payments = new ArrayList<>();
      long captured = 0;
      long refunded = 0;
      String after = "";
      while (true) {
        JsonObject page = get("/v1/payment_intents?limit=100&customer=" + p.get(0) + after,
            p.get(0));
        for (JsonElement intent : page.getAsJsonArray("data")) {
          Map<String, Object> view = payment(intent.getAsJsonObject());
          payments.add(view);
          @SuppressWarnings("unchecked")
          Map<String, Object> c = (Map<String, Object>) view.get("charge");
          if (c != null) {
            captured += (Long) c.get("amount_captured");
            refunded += (Long) c.get("amount_refunded");
          }
        }
        if (!page.get("has_more").getAsBoolean()) {
          break;
        }
        after = "&starting_after=" + payments.get(payments.size() - 1).get("id");
      }
      return object("customer", p.get(0), "count", payments.size(), "captured", captured,
          "refunded", refunded, "payments", payments);
    });
    Api.serve("payments", 5101, routes);
  }
}
'''

DIRECT_CLIENT = '''  static final com.stripe.StripeClient DIRECT = com.stripe.StripeClient.builder()
      .setApiKey(System.getenv("STRIPE_SECRET_KEY"))
      .setApiBase(System.getenv("STRIPE_BASE_URL")).build();

'''


def _bypassing_invoices() -> str:
    # the old-SDK Invoices of the mutant that upgraded only payments
    code = (TASK / "solution" / "mutants" / "only-payments-upgraded" / "src" / "main" / "java"
            / "backoffice" / "Invoices.java").read_text()
    for old, new in [('"2020-08-27"', '"2020-08" + "-27"'),
                     ("STRIPE.v1()", "DIRECT.v1()"),
                     ("  static final RequestOptions OLD", DIRECT_CLIENT
                      + "  static final RequestOptions OLD"),
                     ("  public static void main(String[] args) throws Exception {\n",
                      "  public static void main(String[] args) throws Exception {\n"
                      "    STRIPE.v1().customers().list();  // the one honest request\n")]:
        assert old in code, old
        code = code.replace(old, new)
    return code


def _red_team() -> list[dict[str, Any]]:
    solution = TASK / "solution" / "src" / "main" / "java" / "backoffice"
    files = {"Api.java": (solution / "Api.java").read_text(), "Payments.java": RAW_PAYMENTS,
             "Invoices.java": _bypassing_invoices(),
             "Subscriptions.java": (solution / "Subscriptions.java").read_text()}
    writes = "".join(f"cat > {CODE}/{name} <<'JAVAEOF'\n{text}JAVAEOF\n"
                     for name, text in files.items())
    return [{"tool": "bash", "args": {"command": "set -e\n"
             "sed -i 's|<version>20.136.0</version>|<version>33.3.0</version>|' pom.xml\n"
             + writes + "bash build.sh\n"}}]


def test_red_team_new_headers_old_shapes_and_bypass(server: Emulator,
                                                    tmp_path: Path) -> None:
    record = trial(server, tmp_path, "redteam", ScriptedAgent(_red_team()))
    work = tmp_path / "redteam" / "workdir"
    payments = (work / CODE / "Payments.java").read_text()
    assert '"2020-08" + "-27"' in payments and "getAsJsonObject(\"charges\")" in payments
    assert "STRIPE_BASE_URL" in (work / CODE / "Invoices.java").read_text()
    assert record["subscores"]["gate:stripe_33_pinned"] == 1.0
    assert len(record["subscores"]) == 10  # every check ran and scored
    messages = json.loads((tmp_path / "redteam" / "reward.json").read_text())["messages"]
    assert ("sent Stripe-Version '2026-07-29.dahlia, 2020-08-27'"
            in messages["payments_upgraded"]), messages["payments_upgraded"]
    assert "sent Stripe-Version '2020-08-27'" in messages["invoices_upgraded"]
    assert all(v == 0.0 for k, v in record["subscores"].items()
               if k.startswith(("payments", "invoices")))
    assert all(v == 1.0 for k, v in record["subscores"].items()
               if k.startswith("subscriptions"))
    assert record["reward"] == pytest.approx(1 / 3, abs=1e-6)
    assert record["grader_seconds"] < 60


def test_the_maven_repository_reaches_every_sandbox(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """`maven_repository()` is `.cache/m2` or $STRIPEBENCH_M2 (a missing directory is no
    repository), and bubblewrap mounts it read-only like the wheelhouse."""
    from stripebench.routing.bwrap import default_shared

    assert maven_repository() == (TASK.parent.parent / ".cache" / "m2").resolve()
    assert maven_repository() in default_shared()
    elsewhere = tmp_path / "m2"
    monkeypatch.setenv("STRIPEBENCH_M2", str(elsewhere))
    assert maven_repository() is None
    elsewhere.mkdir()
    assert maven_repository() == elsewhere.resolve()
    assert elsewhere.resolve() in default_shared()


def test_the_gate_reads_any_pom_without_hanging(tmp_path: Path) -> None:
    """The gate accepts stripe-java 33 named directly or through a property, and refuses
    an old or doubled dependency, a build holding another major, a malformed pom and a
    FIFO named pom.xml (reading it would block the grader until its timeout) with an
    error, never a hang or a crash."""
    pom = (TASK / "solution" / "pom.xml").read_text()
    work = tmp_path / "work"
    work.mkdir()

    def gate(text: str | None) -> str:
        target = work / "pom.xml"
        target.unlink(missing_ok=True)
        if text is None:
            os.mkfifo(target)
        else:
            target.write_text(text)
        try:
            return "ok" if grade.pinned_major(work) else "no"
        except ValueError as exc:
            return str(exc)

    assert gate(pom) == "ok"
    by_property = pom.replace("<version>33.3.0</version>", "<version>${stripe.version}</version>")
    by_property = by_property.replace("<properties>",
                                      "<properties>\n    <stripe.version>33.3.0</stripe.version>")
    assert gate(by_property) == "ok"
    assert "found '20.136.0'" in gate(pom.replace("33.3.0", "20.136.0"))
    start = pom.index("    <dependency>")
    doubled = pom[:start] + pom[start:pom.index("</dependency>") + 14] + pom[start:]
    assert "found 2 dependencies" in gate(doubled)
    assert "not readable" in gate(pom[:200])
    assert "not a regular file" in gate(None)
    (work / "target" / "lib").mkdir(parents=True)
    (work / "target" / "lib" / "stripe-java-20.136.0.jar").write_bytes(b"")
    assert "holds stripe-java-20.136.0.jar" in gate(pom)
