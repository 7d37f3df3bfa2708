"""Offline documentation search: the real SDK-derived corpus, a real SQLite FTS5 index."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from paths import REPO
from stripebench.docs import guide_pages, tokens
from stripebench.docs import index as docs_index
from stripebench.docs.index import DocsIndex, build, fingerprint
from stripebench.docs.log import QueryLog, logged_search, read_log, unhelpful_queries

ROOT = REPO
QUERIES = json.loads((ROOT / "benchmarks" / "docs_queries.json").read_text())


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh cache per test session, shared by its xdist workers (the build lock makes
    one of them build while the other waits)."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "docs-cache"
    shared.mkdir(exist_ok=True)
    old = os.environ.get("STRIPEBENCH_CACHE_DIR")
    os.environ["STRIPEBENCH_CACHE_DIR"] = str(shared)
    docs_index._default.clear()
    yield shared
    docs_index._default.clear()
    if old is None:
        os.environ.pop("STRIPEBENCH_CACHE_DIR", None)
    else:
        os.environ["STRIPEBENCH_CACHE_DIR"] = old


@pytest.fixture(scope="module")
def index(cache_dir: Path) -> DocsIndex:
    return docs_index.get_index()


def _rank(ix: DocsIndex, query: str, expected: list[str]) -> int:
    for i, hit in enumerate(ix.search(query, 5), 1):
        if any(hit.doc_id == e or hit.doc_id.startswith(e + "#") for e in expected):
            return i
    return 0


def test_index_is_built_in_the_cache_with_sdk_version_and_hash(index: DocsIndex,
                                                              cache_dir: Path) -> None:
    import stripe

    assert index.path.parent == cache_dir
    assert index.path.name == f"docs-{stripe.VERSION}-{fingerprint()}.sqlite"
    ids = index.ids()
    assert len(ids) > 2000
    assert len(ids) == len(set(ids))


def test_api_reference_has_checkout_create_with_nested_params(index: DocsIndex) -> None:
    page = index.show("api/checkout.sessions/create")
    assert page is not None
    assert page.text.startswith("POST /v1/checkout/sessions")
    assert "client.v1.checkout.sessions.create" in page.text
    assert "stripe.checkout.sessions.create" in page.text
    # enum values of the pinned API version, with the SDK's own description
    ui_mode = next(line for line in page.text.splitlines() if line.startswith("- `ui_mode`"))
    for value in ("hosted_page", "embedded_page", "elements"):
        assert f"`{value}`" in ui_mode
    assert "Sections:" in page.text and "api/checkout.sessions/create#custom_fields" in page.text

    fields = index.show("api/checkout.sessions/create#custom_fields")
    assert fields is not None
    text = fields.text
    assert "Up to 3 fields are supported" in text  # docstring read from the installed SDK
    assert "- `custom_fields.type` (enum, required)" in text
    assert "One of: `dropdown`, `numeric`, `text`" in text
    assert "`custom_fields.dropdown.options.value` (string, required)" in text
    assert "`custom_fields.optional` (boolean, optional)" in text


def test_object_pages_and_resource_overview(index: DocsIndex) -> None:
    nested = index.show("api/checkout.sessions.line_items/list")
    assert nested is not None  # node's own name for the nested list, read from stripe-node
    assert "`stripe.checkout.sessions.listLineItems(session, {...})`" in nested.text
    assert "`client.v1.checkout.sessions.line_items.list(session, params={...})`" in nested.text
    obj = index.show("api/payment_intent/object")
    assert obj is not None and "`latest_charge` (expandable id of Charge" in obj.text
    overview = index.show("api/invoices")
    assert overview is not None
    assert "POST /v1/invoices/{invoice}/attach_payment" in overview.text
    assert "api/invoices/attach_payment" in overview.text


def test_benchmark_queries_reach_recall_target(index: DocsIndex) -> None:
    ranks = [_rank(index, c["q"], c["expect"]) for c in QUERIES]
    recall5 = sum(r > 0 for r in ranks) / len(ranks)
    assert len(QUERIES) >= 60
    assert recall5 >= 0.9, [c["q"] for c, r in zip(QUERIES, ranks, strict=True) if not r]


@pytest.mark.parametrize("query,expected", [
    ("payment intent charges removed", "guide/upgrade/2022-11-15"),
    ("embedded checkout return_url", "guide/checkout/embedded"),
    ("invoice partial payment attach", "guide/billing/invoice-payments"),
    ("custom field dropdown", "guide/checkout/custom-fields#dropdown"),
    ("trial subscription checkout", "guide/checkout/subscriptions"),
    ("promotion code coupon clover", "guide/upgrade/2025-09-30-clover"),
    ("ui_mode embedded_page", "guide/upgrade/2026-10-28-endive"),
    ("test card 3d secure", "guide/testing/cards#3d-secure-authentication"),
    ("4000000000009995", "guide/testing/cards#declines"),
    ("POST /v1/checkout/sessions", "api/checkout.sessions/create"),
])
def test_known_queries_find_the_right_doc(index: DocsIndex, query: str, expected: str) -> None:
    assert _rank(index, query, [expected]) > 0, [h.doc_id for h in index.search(query, 5)]


def test_objects_named_in_a_query_come_first(index: DocsIndex) -> None:
    assert index.search("checkout session object", 3)[0].doc_id == "api/checkout.session/object"
    first = index.search("PaymentIntent object latest_charge", 3)[0]
    assert first.doc_id == "api/payment_intent/object" and "`latest_charge`" in first.text
    assert not any(h.doc_id.endswith("/object") for h in index.search("checkout session", 5))


def test_action_endpoints_belong_to_their_resource(index: DocsIndex) -> None:
    page = index.show("api/invoices/finalize_invoice")
    assert page is not None and page.text.startswith("POST /v1/invoices/{invoice}/finalize")
    assert "stripe.invoices.finalizeInvoice(invoice, {...})" in page.text


def test_endpoint_paths_with_real_ids_resolve_to_the_method(index: DocsIndex) -> None:
    first = index.search("POST /v1/invoices/in_123abc/attach_payment", 3)[0]
    assert first.doc_id == "api/invoices/attach_payment"
    assert index.search("GET /v1/invoice_payments", 1)[0].doc_id == "api/invoice_payments/list"


def test_show_guide_page_joins_its_sections_and_unknown_ids_get_suggestions(
        index: DocsIndex) -> None:
    page = index.show("guide/checkout/custom-fields")
    assert page is not None and page.kind == "guide"
    assert "[guide/checkout/custom-fields#dropdown]" in page.text
    assert "default_value" in page.text
    section = index.show("guide/checkout/custom-fields#dropdown")
    assert section is not None and "[guide/" not in section.text
    assert index.show("guide/checkout/custom-feilds") is None
    assert "guide/checkout/custom-fields" in index.similar_ids("guide/checkout/custom-feilds")


def test_mcp_tool_text_has_titles_ids_and_passages(index: DocsIndex) -> None:
    from stripebench.docs import search_stripe_documentation, show_stripe_documentation

    out = search_stripe_documentation("webhook signature verification raw body", limit=3)
    assert out.startswith("3 result(s)")
    assert "doc id: guide/webhooks#verifying-the-signature" in out
    assert "construct_event" in out
    assert "No documentation matched" in search_stripe_documentation("the of and", 5)
    assert "No document with id" in show_stripe_documentation("api/nothing/here")
    assert show_stripe_documentation("guide/api/idempotency").startswith("Idempotent requests")


def test_tokens_split_api_compounds_and_join_card_numbers() -> None:
    t = tokens.terms("subscription_data.trial_period_days initEmbeddedCheckout 4000 0000 0000 9995")
    for term in ("subscription_data", "trial_period_days", "trial", "period", "days",
                 "initembeddedcheckout", "embedded", "4000000000009995"):
        assert term in t
    assert "3d" in tokens.query_terms("3ds card")


def test_cache_is_reused_and_rebuilt_when_a_guide_changes(
        index: DocsIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    again = build(index.path)
    assert again.reused and again.path == index.path and again.seconds == 0.0
    assert docs_index.get_index() is index

    before = fingerprint()
    copy = tmp_path / "guides"
    shutil.copytree(guide_pages.GUIDES_DIR, copy)
    monkeypatch.setattr(guide_pages, "GUIDES_DIR", copy)
    assert fingerprint() == before  # same content, same index
    (copy / "api.idempotency.md").write_text("# Idempotent requests\n\nChanged.\n")
    assert fingerprint() != before


def test_write_index_from_guides_only_is_searchable(tmp_path: Path) -> None:
    target = tmp_path / "mini.sqlite"
    count = docs_index.write_index(target, guide_pages.guide_sections())
    mini = DocsIndex(target)
    try:
        assert count == len(mini.ids())
        assert mini.search("idempotency key retry", 1)[0].doc_id.startswith("guide/api/idempotency")
    finally:
        mini.close()


def test_query_log_records_results_and_lists_unhelpful_queries(
        index: DocsIndex, tmp_path: Path) -> None:
    log = QueryLog(tmp_path / "trial" / "docs_queries.jsonl")
    tool = logged_search(log, trial="t1")
    assert "doc id:" in tool("custom field dropdown", 3)
    tool("zzqxv flibbertigibbet", 5)
    tool("zzqxv flibbertigibbet", 5)
    records = read_log(log.path)
    assert len(records) == 3
    assert records[0]["trial"] == "t1" and records[0]["results"][0]["doc_id"]
    assert records[0]["coverage"] == 1.0 and records[0]["top_score"] > 0
    bad = unhelpful_queries(records)
    assert [(u.query, u.reason, u.count) for u in bad] == [
        ("zzqxv flibbertigibbet", "no results", 2)]
    weak = unhelpful_queries([{"query": "refund a dispute on mars", "coverage": 0.25,
                               "top_score": 3.0, "results": [{"doc_id": "x"}]}])
    assert weak[0].reason == "weak match" and weak[0].top_doc_id == "x"


def test_cli_search_show_build(index: DocsIndex, cache_dir: Path, tmp_path: Path) -> None:
    env = {**os.environ, "STRIPEBENCH_CACHE_DIR": str(cache_dir)}
    exe = [sys.executable, "-m", "stripebench.cli"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*exe, "docs", *args], env=env, capture_output=True, text=True,
                              timeout=120)

    out = run("search", "custom field dropdown", "--limit", "2", "--json")
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)
    assert len(hits) == 2 and hits[0]["doc_id"] == "guide/checkout/custom-fields#dropdown"
    shown = run("show", "api/invoices/attach_payment")
    assert shown.returncode == 0 and "POST /v1/invoices/{invoice}/attach_payment" in shown.stdout
    missing = run("show", "api/nope")
    assert missing.returncode == 1 and "No document" in missing.stderr
    built = run("build")
    assert built.returncode == 0 and "reused" in built.stdout and str(index.path) in built.stdout
    log = tmp_path / "q.jsonl"
    log.write_text(json.dumps({"query": "zzqxv", "results": [], "coverage": 0,
                               "top_score": 0}) + "\n")
    unhelpful = run("unhelpful", str(log))
    assert unhelpful.returncode == 0 and "'zzqxv'" in unhelpful.stdout


def test_search_and_record_and_transcript_style_records(index: DocsIndex) -> None:
    from stripebench.docs.log import search_and_record

    text, record = search_and_record("embedded checkout return_url", 2, trial="t2")
    assert "doc id: guide/checkout/embedded" in text
    assert record["trial"] == "t2" and len(record["results"]) == 2
    assert record["results"][0]["doc_id"].startswith("guide/checkout/embedded")
    # a transcript that only counted results still yields the empty ones
    bad = unhelpful_queries([{"query": "a", "results": 0}, {"query": "b", "results": 3}])
    assert [(u.query, u.reason) for u in bad] == [("a", "no results")]


def test_fidelity_notes_are_indexed_when_present(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    notes = tmp_path / "fidelity.md"
    notes.write_text("# Emulator fidelity\n\nIntro.\n\n## Not supported\n\nSEPA debit flows.\n")
    monkeypatch.setattr(guide_pages, "REPO_FIDELITY", notes)
    before = fingerprint()
    sections = {s.doc_id: s for s in guide_pages.guide_sections()}
    assert sections["emulator/fidelity#not-supported"].kind == "emulator"
    assert "SEPA debit" in sections["emulator/fidelity#not-supported"].text
    notes.write_text("# Emulator fidelity\n\nChanged.\n")
    assert fingerprint() != before


def test_sdk_calls_in_guides_exist_in_the_installed_sdks() -> None:
    """Every `client.v1...(` and legacy `stripe.Resource.method(` in the guides is a real
    python SDK callable, and every `stripe.resource.method(` a real stripe-node one."""
    import stripe

    text = "\n".join(p.read_text() for p in guide_pages.guide_files())
    client = stripe.StripeClient("sk_test_docs")
    python_calls = set(re.findall(r"\bclient\.(v1(?:\.\w+)+)\(", text))
    dotted = set(re.findall(r"\bstripe((?:\.\w+){2,})\(", text))
    legacy = {d for d in dotted if any(p[:1].isupper() for p in d.split(".") if p)}
    node_calls = sorted(f"stripe{d}" for d in dotted - legacy)
    assert len(python_calls) > 20 and len(node_calls) > 20

    def resolve(root: object, path: str) -> object:
        for part in path.strip(".").split("."):
            root = getattr(root, part, None)
        return root

    assert [c for c in python_calls if not callable(resolve(client, c))] == []
    assert [c for c in legacy if not callable(resolve(stripe, c))] == []
    check = ("const S = require('stripe'); const s = new S('sk_test_docs');"
             "console.log(JSON.stringify(JSON.parse(process.argv[1]).filter(c => {"
             "let o = s; for (const p of c.split('.').slice(1)) o = o == null ? o : o[p];"
             "return typeof o !== 'function'; })));")
    out = subprocess.run(["node", "-e", check, json.dumps(node_calls)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(out.stdout) == []


def _call_name(node: ast.expr) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _unknown_keys(value: ast.expr, spec: dict, path: str) -> list[str]:
    """Dict keys in a params literal that the SDK's schema does not declare."""
    if "anyOf" in spec:
        kind = "object" if isinstance(value, ast.Dict) else "array"
        spec = next((s for s in spec["anyOf"] if s.get("type") == kind), {})
    if isinstance(value, ast.Dict) and "properties" in spec:
        bad = []
        for key, sub in zip(value.keys, value.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                if key.value not in spec["properties"]:
                    bad.append(f"{path}.{key.value}")
                else:
                    bad += _unknown_keys(sub, spec["properties"][key.value], f"{path}.{key.value}")
        return bad
    if isinstance(value, ast.List) and "items" in spec:
        return [b for e in value.elts for b in _unknown_keys(e, spec["items"], path + "[]")]
    return []


def test_python_snippets_in_guides_use_parameters_the_sdk_declares(index: DocsIndex) -> None:
    from stripebench.emulator import schema

    endpoints = {}  # python accessor -> (verb, path), from the generated reference
    for doc_id in index.ids():
        page = index.show(doc_id) if doc_id.startswith("api/") and "#" not in doc_id else None
        lines = page.text.splitlines() if page else []
        found = re.search(r"Python: `(client\.[\w.]+)\(", lines[1]) if len(lines) > 1 else None
        if found:
            verb, path = lines[0].split(" ", 1)
            endpoints[found.group(1)] = (verb, path)

    def problems(code: str, default: str) -> list[str]:
        try:
            tree = ast.parse(code)
        except SyntaxError:  # a fragment of session params: `"key": value,` lines
            fragment = ast.parse("{" + code + "}", mode="eval").body
            return _unknown_keys(fragment, schema.endpoint(*endpoints[default])["params"],
                                 default)
        bad = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _call_name(node.func) in endpoints:
                name = _call_name(node.func)
                for kw in node.keywords:
                    if kw.arg == "params":
                        spec = schema.endpoint(*endpoints[name])["params"]
                        bad += _unknown_keys(kw.value, spec, name)
        return bad

    checkout = "client.v1.checkout.sessions.create"
    assert problems('client.v1.checkout.sessions.create(params={"ui_mod": "x"})', checkout) \
        == [f"{checkout}.ui_mod"]  # the check itself can fail
    checked = 0
    for page in guide_pages.guide_files():
        for code in re.findall(r"```python\n(.*?)```", page.read_text(), re.S):
            checked += 1
            assert problems(code, checkout) == [], (page.name, code)
    assert checked > 30


def test_unwritable_cache_falls_back_to_the_temp_dir(tmp_path: Path, cache_dir: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    env = {**os.environ, "STRIPEBENCH_CACHE_DIR": str(blocker / "cache"),
           "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    code = ("from stripebench.docs import get_index, search\n"
            "print(get_index().path)\nprint(search('idempotency key retry', 1)[0].doc_id)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=180)
    assert out.returncode == 0, out.stderr
    path, first = out.stdout.split()
    assert path.startswith(str(tmp_path / "tmp" / "stripebench"))
    assert first.startswith("guide/api/idempotency")


# Every guide topic issue 8 names, and the page that covers it.
ISSUE_TOPICS = {
    "Checkout hosted": "guide/checkout/hosted", "Checkout embedded": "guide/checkout/embedded",
    "Checkout session options": "guide/checkout/session-options",
    "Elements and Stripe.js": "guide/elements/stripe-js",
    "PaymentIntents": "guide/payments/payment-intents", "declines": "guide/payments/declines",
    "test cards and test ids": "guide/testing/cards",
    "SetupIntents": "guide/payments/setup-intents",
    "subscriptions": "guide/billing/subscriptions", "trials": "guide/billing/trials",
    "proration": "guide/billing/proration", "schedules": "guide/billing/schedules",
    "test clocks": "guide/billing/test-clocks", "invoices": "guide/billing/invoices",
    "invoice payments": "guide/billing/invoice-payments", "meters": "guide/billing/meters",
    "webhooks and signatures": "guide/webhooks", "Connect": "guide/connect/overview",
    "Connect embedded components": "guide/connect/embedded-components",
    "errors": "guide/api/errors", "idempotency": "guide/api/idempotency",
    "pagination and expand": "guide/api/pagination-expand",
    "what the emulator does not support": "guide/emulator/limits",
}
UPGRADES = {"2022-11-15": "guide/upgrade/2022-11-15",
            "2025-03-31.basil": "guide/upgrade/2025-03-31-basil",
            "2025-09-30.clover": "guide/upgrade/2025-09-30-clover"}


def test_guides_cover_every_topic_of_the_issue(index: DocsIndex) -> None:
    missing = [topic for topic, doc_id in ISSUE_TOPICS.items() if index.show(doc_id) is None]
    assert not missing


def test_upgrade_guides_for_each_breaking_version_with_python_and_node_code(
        index: DocsIndex) -> None:
    import stripe

    current = stripe.api_version  # the installed SDK's version needs a guide of its own
    pages = {**UPGRADES, current: None}
    for path in guide_pages.guide_files():
        if path.stem.startswith("upgrade.") and current.split(".")[0] in path.stem:
            pages[current] = guide_pages.guide_id(path)
    assert pages[current], f"no upgrade guide names the SDK's version {current}"
    for version, doc_id in pages.items():
        page = index.show(str(doc_id))
        assert page is not None, version
        text = page.text
        assert re.search(r"\bBefore\b", text) and re.search(r"\bAfter\b", text), version
        assert text.count("```python") >= 2, version  # before and after
        assert len(re.findall(r"```(?:js|javascript|node)", text)) >= 2, version


def test_every_checkout_session_create_parameter_is_in_a_checkout_guide() -> None:
    from stripebench.docs.sdk_model import read_sdk

    (create,) = [m for m in read_sdk().methods
                 if m.http_method.upper() == "POST" and m.path == "/v1/checkout/sessions"]
    text = "\n".join(p.read_text() for p in guide_pages.guide_files()
                     if p.stem.startswith("checkout."))
    assert [f.name for f in create.params if f.name not in text] == []


def test_every_sdk_endpoint_and_object_has_a_page(index: DocsIndex) -> None:
    """Completeness, read from the installed SDK's source independently of sdk_model:
    every (verb, path) a service method requests and every object class."""
    import stripe

    sdk = Path(stripe.__file__).parent
    request = re.compile(r'self\._request\(\s*"(get|post|delete)",\s*"([^"]+)"')
    object_name = re.compile(r'OBJECT_NAME: ClassVar\[\s*Literal\["([^"]+)"\]\s*\]')
    endpoints, objects = set(), set()
    for path in sdk.rglob("_*.py"):
        source = path.read_text()
        endpoints |= {(verb.upper(), url) for verb, url in request.findall(source)}
        objects |= set(object_name.findall(source))
    assert len(endpoints) > 500 and len(objects) > 150  # the pattern still reads the SDK
    ids = set(index.ids())
    overviews = "\n".join(page.text for page in (index.show(i) for i in sorted(ids)
                                                 if re.fullmatch(r"api/[^/#]+", i)) if page)
    assert sorted(e for e in endpoints if f"{e[0]} {e[1]}" not in overviews) == []
    assert sorted(o for o in objects if f"api/{o}/object" not in ids) == []


def test_a_fresh_build_is_fast_and_gives_the_same_doc_ids_and_ranking(
        index: DocsIndex, tmp_path: Path) -> None:
    """Doc ids are stable (agents and logged queries cite them) and the build takes
    seconds, not minutes."""
    info = build(tmp_path / "again.sqlite", force=True)
    assert not info.reused and info.seconds < 60
    again = DocsIndex(info.path)
    try:
        assert again.ids() == index.ids()
        for query in ("payment intent charges removed", "custom field dropdown"):
            assert [h.doc_id for h in again.search(query, 5)] == \
                [h.doc_id for h in index.search(query, 5)]
    finally:
        again.close()
