"""Every server-side snippet of every guide runs as written against the emulator with the
pinned SDKs (issue 28): Python snippets in order, one namespace and one account per guide;
JavaScript snippets all in one node process, each in its own function. Ids and keys a
snippet names but does not create come from the lazy fixture in guide_world.py. A
snippet marked `skip=<reason>` is not run (the reason is checked to be given).
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import stripe
from guide_world import (
    JS_NAMES,
    PY_NAMES,
    App,
    Lazy,
    Recorder,
    Request,
    Response,
    World,
    compile_snippet,
    signed,
    wrap_js,
    wrap_python,
)

from conftest import RunningEmulator
from stripebench.docs import guide_check, guide_pages

GUIDES = [guide_check.load(p) for p in guide_pages.guide_files()]
SNIPPETS = [s for g in GUIDES for s in guide_check.snippets(g)]
WHSEC = "whsec_guides_test"
NODE_SDK = Path(__file__).resolve().parents[2] / "node_modules" / "stripe"


PINNED = stripe.api_version


def _client(emulator: RunningEmulator, key: str, version: str | None = None
            ) -> stripe.StripeClient:
    return stripe.StripeClient(key, stripe_version=version or PINNED,
                               base_addresses={"api": emulator.base, "files": emulator.base,
                                               "meter_events": emulator.base})


def test_every_snippet_is_run_or_says_why_not() -> None:
    langs = {s.lang for s in SNIPPETS}
    assert langs <= {"python", "js", "jsx", "html", "json"}, langs
    for snippet in SNIPPETS:
        if "skip" in snippet.marker:
            assert len(snippet.marker["skip"]) > 15, f"{snippet.id}: give the reason"
        unknown = set(snippet.marker) - {"skip", "wrap", "version", "given", "runtime",
                                         "fresh"}
        assert not unknown, f"{snippet.id}: unknown marker keys {unknown}"
        assert runner(snippet), f"{snippet.id}: no check runs a {snippet.lang} snippet"
    json_snippets = [s for s in SNIPPETS if s.lang == "json"]
    for snippet in json_snippets:
        json.loads(snippet.code)


def runner(snippet: guide_check.Snippet) -> str:
    """Which check runs the snippet: python and node here, browser in
    test_guide_browser_snippets.py (HTML, JSX, `runtime=browser`), json is parsed."""
    if "skip" in snippet.marker:
        return "skipped"
    if snippet.lang == "js":
        return "browser" if snippet.marker.get("runtime") == "browser" else "node"
    return {"python": "python", "json": "json", "html": "browser", "jsx": "browser"}.get(
        snippet.lang, "")


def test_browser_snippets_are_the_browser_modules() -> None:
    """The browser module runs exactly the snippets `runner` gives it."""
    from test_guide_browser_snippets import SNIPPETS as BROWSER
    assert [s.id for s in BROWSER] == [s.id for s in SNIPPETS if runner(s) == "browser"]


def _guide_names(guide: str, names: dict[str, str]) -> dict[str, str]:
    """Checkout guides sell one-time prices (payment mode) unless about subscriptions."""
    if guide.startswith(("checkout.", "upgrade.2026")) and guide != "checkout.subscriptions.md":
        return {n: "one_time_price_id" for n, f in names.items() if f == "price_id"}
    return {}


def _python_guides() -> list[guide_check.Guide]:
    return [g for g in GUIDES if any(s.lang == "python" for s in guide_check.snippets(g))]


@pytest.mark.parametrize("guide", _python_guides(), ids=lambda g: g.name)
def test_python_snippets_run(guide: guide_check.Guide, emulator: RunningEmulator) -> None:
    account = emulator.new_account()
    client = _client(emulator, account["secret_key"])
    world = World(client)
    app, helpers = App(), Recorder()
    names = {**PY_NAMES, **_guide_names(guide.name, PY_NAMES)}
    scope: dict[str, Any] = {
        "client": client, "stripe": stripe, "time": time, "app": app, "Response": Response,
        "WHSEC": WHSEC, "redirect": helpers.redirect, "mark_order_paid": helpers.paid,
        "already_fulfilled": helpers.already, "ship": helpers.ship,
        "record_fulfilled": helpers.record, "fulfill": helpers.fulfill}
    local = Lazy(world, names)
    saved = (stripe.api_key, stripe.api_base, stripe.api_version)
    try:
        for snippet in guide_check.snippets(guide):
            if snippet.lang != "python" or "skip" in snippet.marker:
                continue
            if "fresh" in snippet.marker:
                account = emulator.new_account()
                client = _client(emulator, account["secret_key"])
                world = World(client)
                local = Lazy(world, names)
            version = snippet.marker.get("version")
            scope["client"] = _client(emulator, account["secret_key"], version) \
                if version else client
            stripe.api_key, stripe.api_base = account["secret_key"], emulator.base
            stripe.api_version = version or PINNED
            for name, fixture in snippet.given().items():
                local[name] = world.get(fixture)
            code = compile_snippet(wrap_python(snippet), snippet.id)
            try:
                exec(code, scope, local)  # noqa: S102 - the guide's own snippet
            except Exception as exc:
                pytest.fail(f"{snippet.id} failed: {type(exc).__name__}: {exc}")
    finally:
        stripe.api_key, stripe.api_base, stripe.api_version = saved
    if "/webhook" in app.routes:
        _check_webhook_handler(app.routes["/webhook"])


def _check_webhook_handler(handler: Any) -> None:
    event = {"id": "evt_1", "object": "event", "type": "checkout.session.completed",
             "data": {"object": {"id": "cs_test_1", "object": "checkout.session"}}}
    body, header = signed(event, WHSEC)
    ok = asyncio.run(handler(Request(body, {"stripe-signature": header})))
    assert ok.status_code == 200
    forged = asyncio.run(handler(Request(body, {"stripe-signature": header + "0"})))
    assert forged.status_code == 400


# ------------------------------------------------------------------ node

NODE_PRELUDE = r"""
const Stripe = require(process.env.STRIPE_NODE);
const input = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
const out = {};
const AsyncFunction = (async () => {}).constructor;
const makeRes = (seen) => ({
  json: (v) => { seen.json = v; }, redirect: (s, u) => { seen.redirect = [s, u]; },
  status: (s) => { seen.status = s; return {send: (t) => { seen.sent = t; }}; },
});
(async () => {
  for (const job of input) {
    const seen = {};
    const stripe = Stripe(job.key, {host: '127.0.0.1', port: Number(job.port),
      protocol: 'http', maxNetworkRetries: 1, ...(job.version ? {apiVersion: job.version} : {})});
    const app = {routes: {}, post(path, ...fns) { this.routes[path] = fns[fns.length - 1]; }};
    const express = {raw: () => null};
    const res = makeRes(seen);
    const req = {query: {session_id: job.values.__cs}};
    const handle = () => { seen.handled = true; };
    try {
      const run = new AsyncFunction('stripe', 'values', 'env', job.body);
      await run(stripe, job.values, {app, express, res, req, handle, seen, whsec: job.whsec});
      if (app.routes['/webhook']) {
        const hook = {};
        app.routes['/webhook']({body: Buffer.from(job.hook.body),
          headers: {'stripe-signature': job.hook.header}}, makeRes(hook));
        if (!hook.json || !hook.json.received) {
          throw new Error('webhook handler refused a signed event: ' + JSON.stringify(hook));
        }
      }
      out[job.id] = {ok: true};
    } catch (err) {
      out[job.id] = {ok: false, error: String(err && (err.stack || err.message) || err)};
    }
  }
  console.log(JSON.stringify(out));
})();
"""


def _node_snippets() -> list[guide_check.Snippet]:
    return [s for s in SNIPPETS if s.lang == "js" and "skip" not in s.marker
            and s.marker.get("runtime") != "browser"]


def _js_body(snippet: guide_check.Snippet, names: list[str]) -> str:
    """The body of the snippet's function: fixture names declared, then the snippet in a
    block of its own (so its `const`s may shadow them). Compiled by node at run time, so a
    syntax error fails that snippet alone."""
    declared = "".join(f"let {n} = values[{json.dumps(n)}];\n" for n in names)
    return ("const {app, express, res, req, handle, whsec} = env;\n"
            f"{declared}{{\n{wrap_js(snippet)}}}\n")


def _jsonable(value: Any) -> Any:
    if isinstance(value, stripe.StripeObject):
        return value.to_dict()
    if hasattr(value, "__dict__") and not isinstance(value, (str, int)):
        return vars(value)
    return value


@pytest.fixture(scope="module")
def node_results(emulator: RunningEmulator, tmp_path_factory: pytest.TempPathFactory
                 ) -> dict[str, Any]:
    assert shutil.which("node"), "node is needed for the guide snippet checks"
    jobs = []
    accounts: dict[str, tuple[dict[str, str], World]] = {}
    event = {"id": "evt_1", "object": "event", "type": "payment_intent.succeeded",
             "data": {"object": {"id": "pi_1", "object": "payment_intent"}}}
    body, header = signed(event, WHSEC)
    for snippet in _node_snippets():
        if snippet.guide not in accounts or "fresh" in snippet.marker:
            account = emulator.new_account()
            accounts[snippet.guide] = (account, World(_client(emulator, account["secret_key"])))
        account, world = accounts[snippet.guide]
        code = wrap_js(snippet)
        mapping = {**JS_NAMES, **_guide_names(snippet.guide, JS_NAMES), **snippet.given()}
        used = [n for n in mapping if n in snippet.given() or (n == "__cs" and "req." in code)
                or re.search(rf"(?<![\w.]){n}\b", code)]
        values = {n: _jsonable(world.get(mapping[n])) for n in used}
        jobs.append({"id": snippet.id, "body": _js_body(snippet, used),
                     "key": account["secret_key"],
                     "port": emulator.base.rsplit(":", 1)[1], "values": values,
                     "version": snippet.marker.get("version"), "whsec": WHSEC,
                     "hook": {"body": body.decode(), "header": header}})
    folder = tmp_path_factory.mktemp("guide-node")
    script = folder / "snippets.js"
    script.write_text(NODE_PRELUDE)
    (folder / "jobs.json").write_text(json.dumps(jobs))
    run = subprocess.run(["node", str(script), str(folder / "jobs.json")], capture_output=True,
                         text=True, timeout=300,
                         env={"PATH": "/usr/local/bin:/usr/bin:/bin",
                              "STRIPE_NODE": str(NODE_SDK)})
    assert run.returncode == 0, run.stderr[-3000:]
    results: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return results


@pytest.mark.parametrize("snippet", _node_snippets(), ids=lambda s: s.id)
def test_node_snippet_runs(snippet: guide_check.Snippet, node_results: dict[str, Any]) -> None:
    result = node_results[snippet.id]
    assert result["ok"], f"{snippet.id}: {result.get('error')}"


def test_snippet_sources_stay_as_written() -> None:
    """The checks read the guide files the docs tool serves: no second copy to drift."""
    for guide in GUIDES:
        assert Path(guide.path).parent == guide_pages.GUIDES_DIR
