"""checkout-gym: the generator (the task's hidden set-up, tests/generate.py), the grader,
proven requirement by requirement (tests/requirements.toml, solution/mutants and
alternatives: one test per variant), and the set-up."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import stripe

from conftest import free_port
from paths import REPO
from stripebench.harness.fixtures import seed
from stripebench.harness.proof.prove import prove_task, prove_variant, static_proof, variant_labels
from stripebench.harness.task import load_task

TASK = REPO / "tasks" / "checkout-gym"
sys.path.insert(0, str(TASK / "tests"))
import canonical  # noqa: E402
import generate  # noqa: E402


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, env={**os.environ, **env}, cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture()
def trial(emulator: Any, account: dict[str, str], tmp_path: Path) -> dict[str, Any]:
    """A trial account with the task's fixtures, a workdir, and the grader's environment."""
    task = load_task(TASK)
    seed(emulator.base, account["secret_key"], task.fixtures)
    workdir = tmp_path / "work"
    workdir.mkdir()
    env = {"STRIPE_API_BASE": emulator.base, "STRIPE_SECRET_KEY": account["secret_key"],
           "STRIPE_PUBLISHABLE_KEY": account["publishable_key"],
           "STRIPEBENCH_WORKDIR": str(workdir), "PYTHON": sys.executable,
           "STRIPEBENCH_REWARD_PATH": str(tmp_path / "reward.json"),
           "STRIPEBENCH_SETUP_OUTPUT": str(tmp_path / "setup.json")}
    return {"env": env, "workdir": workdir, "reward": tmp_path / "reward.json",
            "account": account, "emulator": emulator, "setup": tmp_path / "setup.json"}


def prepare(trial: dict[str, Any], **env: str) -> dict[str, Any]:
    """The task's [setup] step, as the harness runs it: from the task directory."""
    run([sys.executable, str(TASK / "tests" / "prepare.py")], {**trial["env"], **env}, TASK)
    key: dict[str, Any] = json.loads(trial["setup"].read_text())
    return key


def grade(trial: dict[str, Any]) -> dict[str, Any]:
    # As the harness does: the hidden tests arrive in the workdir only for grading.
    grader_dir = trial["workdir"] / ".stripebench" / "grader"
    shutil.copytree(TASK / "tests", grader_dir / "tests", dirs_exist_ok=True)
    run([sys.executable, "tests/grade.py"], trial["env"], grader_dir)
    shutil.rmtree(grader_dir)
    reward: dict[str, Any] = json.loads(trial["reward"].read_text())
    return reward


# ------------------------------------------------------------------ generator

def test_same_seed_same_challenges_other_seed_fresh_set() -> None:
    public = generate.generate(generate.PUBLIC_SEED)
    assert public == generate.generate(generate.PUBLIC_SEED)
    assert len(public) == 20
    other = generate.generate(7)
    assert [c["params"] for c in other] != [c["params"] for c in public]


def _paths(value: Any, prefix: str = "") -> set[str]:
    out = {prefix} if prefix else set()
    if isinstance(value, dict):
        for k, v in value.items():
            out |= _paths(v, f"{prefix}.{k}" if prefix else k)
    elif isinstance(value, list):
        for v in value:
            out |= _paths(v, prefix)
    return out


def test_generator_covers_the_checkout_parameter_space() -> None:
    challenges = [c for s in range(10) for c in generate.generate(s)]
    paths = set().union(*(_paths(c["params"]) for c in challenges))
    for wanted in ["line_items.adjustable_quantity.minimum", "optional_items.price",
                   "shipping_address_collection.allowed_countries",
                   "shipping_options.shipping_rate", "shipping_options.shipping_rate_data",
                   "custom_fields.dropdown.default_value", "custom_fields.text.maximum_length",
                   "custom_fields.numeric.minimum_length", "custom_fields.optional",
                   "custom_text.submit.message", "custom_text.after_submit.message",
                   "custom_text.shipping_address.message",
                   "custom_text.terms_of_service_acceptance.message",
                   "automatic_tax.enabled", "tax_id_collection.enabled",
                   "phone_number_collection.enabled", "consent_collection.promotions",
                   "consent_collection.terms_of_service", "billing_address_collection",
                   "subscription_data.trial_period_days",
                   "subscription_data.billing_cycle_anchor", "allow_promotion_codes",
                   "locale", "currency", "submit_type"]:
        assert wanted in paths, wanted
    modes = {c["params"]["mode"] for c in challenges}
    assert modes == {"payment", "subscription", "setup"}
    assert {c["difficulty"] for c in challenges} == {"easy", "medium", "hard"}
    cat = generate.catalog()
    mixed = [c for c in challenges if c["params"]["mode"] == "subscription"
             and any("recurring" not in cat["prices"][i["price"]["lookup_key"]]
                     for i in c["params"]["line_items"])]
    assert mixed, "some subscriptions mix recurring and one-time items"
    ids = {k: f"price_{k}" for k in cat["prices"]}, {k: f"shr_{k}" for k in cat["rates"]}
    sizes = {d: [len(canonical.leaves(generate.resolve(c["params"], *ids), {}))
                 for c in challenges
                 if c["difficulty"] == d] for d in ("easy", "hard")}
    assert sum(sizes["hard"]) / len(sizes["hard"]) > 2 * sum(sizes["easy"]) / len(sizes["easy"])


# ------------------------------------------------------------------ canonical leaves

RATES = {"shr_std": {"display_name": "Standard shipping",
                     "fixed_amount": {"amount": 599, "currency": "usd",
                                      "currency_options": {"eur": {"amount": 550}}},
                     "delivery_estimate": {"minimum": {"unit": "business_day", "value": 5},
                                           "maximum": {"unit": "business_day", "value": 7}}}}
TRUTH = {"mode": "payment",
         "line_items": [{"price": "price_a", "quantity": 2,
                         "adjustable_quantity": {"enabled": True, "maximum": 10}},
                        {"price": "price_b", "quantity": 1}],
         "shipping_address_collection": {"allowed_countries": ["US", "CA"]},
         "shipping_options": [{"shipping_rate": "shr_std"}],
         "custom_fields": [{"key": "size", "type": "dropdown",
                            "label": {"type": "custom", "custom": "Size"},
                            "dropdown": {"options": [{"label": "S", "value": "s"},
                                                     {"label": "M", "value": "m"}],
                                         "default_value": "m"}}],
         "allow_promotion_codes": True}


def score(answer: Any, truth: Any = TRUTH) -> float:
    return canonical.f1(canonical.leaves(truth, RATES), canonical.leaves(answer, RATES))["f1"]


def test_exact_answer_scores_one_and_empty_scores_zero() -> None:
    assert score(copy.deepcopy(TRUTH)) == 1.0
    assert score({}) == 0.0
    assert score(None) == 0.0


def test_order_keys_and_defaults_do_not_matter() -> None:
    answer = copy.deepcopy(TRUTH)
    answer["line_items"].reverse()
    answer["shipping_address_collection"]["allowed_countries"] = ["CA", "US"]
    answer["custom_fields"][0]["key"] = "whatever"
    for option, value in zip(answer["custom_fields"][0]["dropdown"]["options"], ["x", "y"],
                             strict=True):
        option["value"] = value
    answer["custom_fields"][0]["dropdown"]["default_value"] = "y"
    answer.update(locale="auto", submit_type="pay", billing_address_collection="auto",
                  ui_mode="embedded", return_url="https://x.test/{CHECKOUT_SESSION_ID}",
                  phone_number_collection={"enabled": False})
    answer["line_items"][0]["adjustable_quantity"] = {"enabled": False}  # price_b, now first
    assert score(answer) == 1.0


def test_inline_data_copying_a_catalog_rate_costs_one_leaf() -> None:
    """The instruction asks for the catalog's id wherever the catalog has the rate: inline
    data showing the same option is the form it forbids (it scored 1.0 once)."""
    answer = copy.deepcopy(TRUTH)
    answer["shipping_options"] = [{"shipping_rate_data": {
        "display_name": "Standard shipping", "type": "fixed_amount",
        "fixed_amount": {"amount": 599, "currency": "usd"},
        "delivery_estimate": {"minimum": {"unit": "business_day", "value": 5},
                              "maximum": {"unit": "business_day", "value": 7}}}}]
    assert 0.9 < score(answer) < 1.0


def test_partial_and_padded_answers_score_below_one() -> None:
    missing = copy.deepcopy(TRUTH)
    del missing["custom_fields"]
    padded = copy.deepcopy(TRUTH)
    padded.update(phone_number_collection={"enabled": True}, locale="fr",
                  tax_id_collection={"enabled": True})
    wrong = copy.deepcopy(TRUTH)
    wrong["line_items"][0]["quantity"] = 3
    for answer in (missing, padded, wrong):
        assert 0.0 < score(answer) < 1.0
    # Precision and recall both count: padding hurts precision, missing hurts recall.
    truth_leaves = canonical.leaves(TRUTH, RATES)
    assert canonical.f1(truth_leaves, canonical.leaves(padded, RATES))["recall"] == 1.0
    assert canonical.f1(truth_leaves, canonical.leaves(missing, RATES))["precision"] == 1.0


def test_the_mode_alone_earns_nothing_and_a_wrong_mode_zeroes_the_page() -> None:
    """Red team: `{"mode": "payment"}` on every page, written without opening one, took
    11% of the public seed (the mode was a leaf like any other: 1 hit of 3 to 29), and
    the right mode on every page 22%. The mode is now a gate: it earns nothing alone,
    and a page answered in the wrong mode scores 0 however much else matches."""
    assert score({"mode": "payment"}) == 0.0
    assert score({"mode": "payment", "line_items": []}) == 0.0
    wrong_mode = copy.deepcopy(TRUTH)
    wrong_mode["mode"] = "subscription"
    assert score(wrong_mode) == 0.0
    no_mode = copy.deepcopy(TRUTH)
    del no_mode["mode"]  # the API's old default
    assert score(no_mode) == 1.0
    truth = {"mode": "setup", "currency": "eur"}
    assert score({"mode": "setup"}, truth) == 0.0
    assert score({"mode": "setup", "currency": "eur"}, truth) == 1.0
    assert score({"mode": "payment", "currency": "eur"}, truth) == 0.0
    # Over the public seed's answer key: blind constant answers score nothing.
    challenges = generate.generate(generate.PUBLIC_SEED)
    for blind in ({"mode": "payment"}, {"mode": "subscription"}, {"mode": "setup"}):
        assert sum(score(blind, c["params"]) for c in challenges) == 0.0
    assert sum(score({"mode": c["params"]["mode"]}, c["params"]) for c in challenges) == 0.0


def test_padding_every_yes_no_option_costs_more_than_it_earns() -> None:
    """Red team: the line items read honestly, then every yes/no option of a Checkout
    page switched on everywhere, hoping to catch the pages that have them. Precision
    punishes it: over the public seed and ten others it scores well below the honest
    items alone (averaged over many pages, so the margin does not hang on one seed)."""
    pad = {"allow_promotion_codes": True, "automatic_tax": {"enabled": True},
           "tax_id_collection": {"enabled": True, "required": "if_supported"},
           "phone_number_collection": {"enabled": True},
           "billing_address_collection": "required",
           "consent_collection": {"promotions": "auto", "terms_of_service": "required"},
           "payment_intent_data": {"setup_future_usage": "off_session"}}

    def items(params: dict[str, Any]) -> dict[str, Any]:
        return {key: params[key] for key in ("mode", "currency", "line_items") if key in params}

    challenges = [c["params"] for s in [generate.PUBLIC_SEED, *range(10)]
                  for c in generate.generate(s)]
    honest = sum(score(items(c), c) for c in challenges) / len(challenges)
    padded = sum(score({**items(c), **pad}, c) for c in challenges) / len(challenges)
    assert 0.3 < honest < 0.8
    assert padded < honest - 0.1
    for key, value in pad.items():  # each option alone costs too
        assert sum(score({**items(c), key: value}, c) for c in challenges) < honest * len(
            challenges)


# ------------------------------------------------------------------ grader end to end

def test_noop_scores_zero(trial: dict[str, Any]) -> None:
    prepare(trial)
    reward = grade(trial)
    assert reward["total"] == 0.0
    (trial["workdir"] / "submission.json").write_text("not json")
    assert grade(trial)["total"] == 0.0


def test_the_oracle_knows_the_public_seed_answers() -> None:
    """solution/answers.json is the generator's public set, catalog objects named
    symbolically (the oracle resolves them with the agent's key)."""
    symbolic = json.loads((TASK / "solution" / "answers.json").read_text())
    assert symbolic == {str(c["number"]): c["params"] for c in generate.generate()}




def test_unreadable_submissions_score_zero_not_a_grader_error(trial: dict[str, Any]) -> None:
    """Red team: a submission.json nested 200 000 deep crashed the grader (RecursionError);
    a FIFO would have blocked its read until the verifier timed out. Either way a
    grader_error, which reports leave out of every mean: better for an agent than a 0 on
    a task it cannot solve. Now each scores 0, as does an oversized file."""
    prepare(trial)
    submission = trial["workdir"] / "submission.json"
    submission.write_text("[" * 200_000)
    assert grade(trial)["total"] == 0.0
    # Written as text: json.dumps itself may hit the test process's recursion limit.
    deep = '{"x": ' * 950 + "{}" + "}" * 950
    submission.write_text("{" + ", ".join(f'"{n}": {{"mode": "payment", "custom": {deep}}}'
                                          for n in range(1, 21)) + "}")
    assert grade(trial)["total"] == 0.0
    submission.write_text(" " * 2_500_000 + "{}")
    assert grade(trial)["total"] == 0.0
    submission.unlink()
    os.mkfifo(submission)
    assert grade(trial)["total"] == 0.0

# ------------------------------------------------------------------ set-up and the app

def test_setup_hides_the_sessions_and_the_app_serves_them(trial: dict[str, Any]) -> None:
    key = prepare(trial, STRIPEBENCH_GYM_COUNT="4", STRIPEBENCH_GYM_SEED="99")
    data = json.loads((trial["workdir"] / "challenges.json").read_text())
    assert len(data["challenges"]) == 4
    assert key["seed"] == 99 and sorted(key["answers"]) == ["1", "2", "3", "4"]
    assert "answers" not in data and "seed" not in data  # the agent sees client secrets only
    assert data["publishable_key"] != trial["account"]["publishable_key"]
    base = trial["emulator"].base
    agent = stripe.StripeClient(trial["account"]["secret_key"],
                                base_addresses={"api": base})
    # The agent's key sees its catalog but none of the challenge sessions.
    assert agent.v1.checkout.sessions.list().data == []
    session_id = data["challenges"][0]["client_secret"].split("_secret_")[0]
    with pytest.raises(stripe.InvalidRequestError):
        agent.v1.checkout.sessions.retrieve(session_id)
    # Nor can it act on the hidden account: it is no connected account of the agent's.
    hidden_account = key["hidden_account"]
    with pytest.raises(stripe.PermissionError):
        agent.v1.checkout.sessions.list(options={"stripe_account": hidden_account})
    # The publishable key the page gets cannot list them either.
    listed = httpx.get(f"{base}/v1/checkout/sessions",
                       headers={"Authorization": "Bearer " + data["publishable_key"]})
    assert listed.status_code == 401
    # The hidden sessions use the very price ids the agent can list.
    agent_prices = {p.id for p in agent.v1.prices.list({"limit": 100}).data}
    hidden = httpx.get(f"{base}/v1/checkout/sessions/{session_id}/line_items",
                       headers={"Authorization": "Bearer " + _hidden_key(base, data)})
    assert hidden.status_code == 200, hidden.text
    assert {i["price"]["id"] for i in hidden.json()["data"]} <= agent_prices


def _hidden_key(base: str, data: dict[str, Any]) -> str:
    accounts = httpx.get(f"{base}/_emulator/accounts").json()["data"]
    return next(a["secret_key"] for a in accounts
                if a["publishable_key"] == data["publishable_key"])


def test_app_serves_every_challenge_page(tmp_path: Path) -> None:
    challenges = {"publishable_key": "pk_test_gymexample",
                  "challenges": [{"number": n, "client_secret": f"cs_test_{n}_secret_x"}
                                 for n in (1, 2, 3)]}
    path = tmp_path / "challenges.json"
    path.write_text(json.dumps(challenges))
    port = free_port()
    env = {**os.environ, "PORT": str(port), "CHALLENGES_FILE": str(path),
           "STRIPE_JS_URL": "http://127.0.0.1:1/js.stripe.com/v3/"}
    app = subprocess.Popen([sys.executable, str(TASK / "environment" / "app.py")], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        origin = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                if httpx.get(f"{origin}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        index = httpx.get(origin + "/").text
        assert all(f"/challenges/{n}" in index for n in (1, 2, 3))
        page = httpx.get(f"{origin}/challenges/2").text
        assert "initEmbeddedCheckout" in page and "pk_test_gymexample" in page
        assert 'src="http://127.0.0.1:1/js.stripe.com/v3/"' in page
        secret = httpx.get(f"{origin}/api/challenges/2/client_secret").json()
        assert secret == {"client_secret": "cs_test_2_secret_x"}
        assert httpx.get(f"{origin}/challenges/9").status_code == 404
    finally:
        app.terminate()
        app.wait(timeout=10)


def test_generator_catalog_matches_the_fixtures() -> None:
    """The oracle carries its own copy of the catalog: it must be the one fixtures seed."""
    calls = load_task(TASK).fixtures
    refs = {c["ref"]: c["params"] for c in calls}
    prices = {}
    for call in calls:
        params = call["params"]
        if call["path"] == "/v1/prices":
            product = params["product"].removeprefix("${").split(".")[0]
            prices[params["lookup_key"]] = (product,
                                            (params.get("recurring") or {}).get("interval"))
            assert product in refs
    rates = {c["params"]["metadata"]["lookup"] for c in calls
             if c["path"] == "/v1/shipping_rates"}
    assert prices == generate.PRICES
    assert rates == set(generate.RATES)


def _visible_texts(params: dict[str, Any], names: dict[str, str],
                   rates: dict[str, str]) -> list[str]:
    """Strings a page must show for its parameters to be recoverable from it."""
    texts = [names[i["price"]] for key in ("line_items", "optional_items")
             for i in params.get(key, [])]
    for field in params.get("custom_fields", []):
        texts.append(field["label"]["custom"])
        texts += [o["label"] for o in field.get("dropdown", {}).get("options", [])]
    texts += [block["message"] for block in params.get("custom_text", {}).values()]
    for option in params.get("shipping_options", []):
        texts.append(option["shipping_rate_data"]["display_name"]
                     if "shipping_rate_data" in option else rates[option["shipping_rate"]])
    return texts


# Seed 116's first 8 pages hold what the public seed lacks: an anchor in a localized
# date, optional items with quantity ranges, setup mode, a trial, inline shipping rates.
@pytest.mark.parametrize(("seed", "count"), [(generate.PUBLIC_SEED, 20), (116, 8), (276, 8)])
def test_pages_alone_solve_the_gym(trial: dict[str, Any], seed: int, count: int) -> None:
    """Solvability: each public-seed page, drawn in Chromium through the gym app, shows
    its products, custom fields and options, custom text and shipping options; and a
    solver that reads only the pages (gym_page_solver) scores high with the real grader.
    Seed 276 adds pre-endive `payment_method_types` tabs and pages in locales translated
    only in part (cs, fil) with shipping estimates and an anchor date."""
    from playwright.sync_api import sync_playwright

    from gym_page_solver import READ_PAGE, solve_page

    key = prepare(trial, STRIPEBENCH_GYM_SEED=str(seed), STRIPEBENCH_GYM_COUNT=str(count))
    base = trial["emulator"].base
    agent = stripe.StripeClient(trial["account"]["secret_key"], base_addresses={"api": base})
    names = {p.id: p.product.name for p in agent.v1.prices.list(
        {"limit": 100, "expand": ["data.product"]}).data}
    rates = {r.id: r.display_name for r in agent.v1.shipping_rates.list({"limit": 100}).data}
    catalog = [json.loads(str(p)) for p in agent.v1.prices.list(
        {"limit": 100, "expand": ["data.product"]}).data]
    answers: dict[str, Any] = {}
    port = free_port()
    env = {**os.environ, "PORT": str(port),
           "CHALLENGES_FILE": str(trial["workdir"] / "challenges.json"),
           "STRIPE_JS_URL": f"{base}/js.stripe.com/v3/"}
    app = subprocess.Popen([sys.executable, str(TASK / "environment" / "app.py")], env=env)
    missing: dict[str, list[str]] = {}
    try:
        origin = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                httpx.get(f"{origin}/healthz")
                break
            except httpx.TransportError:
                time.sleep(0.05)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking"])
            page = browser.new_page()
            for number, params in key["answers"].items():
                page.goto(f"{origin}/challenges/{number}")
                page.wait_for_selector("#checkout iframe", timeout=15_000)
                frame = page.query_selector("#checkout iframe").content_frame()  # type: ignore[union-attr]
                assert frame is not None
                frame.wait_for_selector("#submit", timeout=15_000)
                shown = frame.evaluate(
                    "document.body.innerText + '\\n' + [...document.querySelectorAll('option')]"
                    ".map(o => o.textContent).join('\\n')")
                lost = [t for t in _visible_texts(params, names, rates) if t not in shown]
                if lost:
                    missing[number] = lost
                answers[number] = solve_page(frame.evaluate(READ_PAGE), catalog, set(rates))
            browser.close()
    finally:
        app.terminate()
        app.wait(timeout=10)
    assert not missing, missing
    (trial["workdir"] / "submission.json").write_text(json.dumps(answers))
    reward = grade(trial)
    print({k: round(v, 2) for k, v in reward["subscores"].items()}, reward["total"])
    assert reward["total"] >= 0.95, reward["messages"]


def test_the_requirement_table_and_variants_are_valid() -> None:
    assert static_proof(load_task(TASK)).problems == []


def test_proven_under_the_harness(tmp_path: Path) -> None:
    """The real trial loop (setup step, sandbox, services, hidden grader): oracle 1.0,
    noop 0.0, the table against the reward; teardown removes the trial's account and the
    setup's hidden one; and the report's Sub-problems column names all 20 pages from the
    records the trial loop wrote (it was empty before the task declared them)."""
    from stripebench.harness.emulator import Emulator
    from stripebench.results.aggregate import score_task

    task = load_task(TASK)
    server = Emulator.start()
    before = server.http.get("/_emulator/accounts").json()["data"]
    try:
        proof = prove_task(task, tmp_path, server)
        assert server.http.get("/_emulator/accounts").json()["data"] == before
    finally:
        server.stop()
    assert (proof.problems, proof.oracle, proof.noop) == ([], 1.0, 0.0)
    record = json.loads(next((tmp_path / "oracle").rglob("result.json")).read_text())
    scored = score_task(task.id, [record])
    assert list(scored.parts) == [f"challenge_{n:02d}" for n in range(1, 21)]
    assert scored.parts["challenge_20"] == 1.0


@pytest.mark.parametrize("label", variant_labels(TASK))
def test_variant(label: str, server: Any, tmp_path: Path) -> None:
    """Each mutant gets one page wrong (a price or a catalog rate passed inline, an
    option missed or invented, half the pages left out); each alternative (defaults
    spelled out, equivalent forms) scores 1.0."""
    verdict = prove_variant(load_task(TASK), label, tmp_path, server)
    assert verdict.ok, verdict.message


# Red team: the gym app is the agent's to change, and the harness restarts it for
# grading. This one plants a thread that watches for the hidden grader (where the old
# harness copied it, .stripebench/grader/, and the sealed room's /grader) to rewrite it
# with a grade.py that writes total 1.0. Under the old grading sandbox the service shared
# the grader's files and scored 1.0 on every task; in the sealed room it never sees them,
# and the real grader scores the empty submission 0.
TAMPER = r'''set -e
python - <<'PY'
from pathlib import Path
hook = """
import threading as _t, time as _time
def _plant():
    targets = [HERE / ".stripebench" / "grader" / "tests" / "grade.py",
               Path("/grader/tests/grade.py")]
    fake = ("import json, os\\n"
            "open(os.environ['STRIPEBENCH_REWARD_PATH'], 'w').write(json.dumps("
            "{'total': 1.0, 'subscores': {'planted': 1.0}}))\\n")
    (HERE / "tamper.log").write_text("watching\\n")
    while True:
        for target in targets:
            try:
                if target.exists() and target.read_text() != fake:
                    target.write_text(fake)
                    (HERE / "tamper.log").write_text(f"rewrote {target}\\n")
            except OSError as exc:
                (HERE / "tamper.log").write_text(f"{target}: {exc}\\n")
        _time.sleep(0.001)
_t.Thread(target=_plant, daemon=True).start()
"""
app = Path("app.py")
marker = "HERE = Path(__file__).resolve().parent\n"
app.write_text(app.read_text().replace(marker, marker + hook, 1))
PY
echo '{}' > submission.json
'''


def test_a_service_cannot_rewrite_the_grader(tmp_path: Path) -> None:
    from stripebench.harness.agents.simple import ScriptedAgent
    from stripebench.harness.emulator import Emulator
    from stripebench.harness.trial import TrialConfig, run_trial

    server = Emulator.start()
    try:
        record = run_trial(load_task(TASK), 0, tmp_path / "tamper",
                           ScriptedAgent([{"tool": "bash", "args": {"command": TAMPER}}]),
                           server, TrialConfig("proof", "tamper", None, sandbox="bwrap"))
    finally:
        server.stop()
    assert record["status"] == "completed", record["error"]
    work = tmp_path / "tamper" / "workdir"
    assert "_plant" in (work / "app.py").read_text()
    # the service ran during grading and reached none of the grader's files
    log = (work / "tamper.log").read_text()
    assert log == "watching\n" or "Permission denied" in log, log
    assert record["reward"] == 0.0
    assert "planted" not in record["subscores"]
    assert len(record["subscores"]) == 20
