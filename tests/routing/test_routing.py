"""Unmodified code reaches the local Stripe: `stripebench exec` against a real emulator.

Every script here uses Stripe's defaults (no base URL, no CA option): the python SDK, the
node SDK, curl, OpenSSL's default trust (what Ruby uses; Ruby itself when installed),
Java's HttpClient and Chromium reach api.stripe.com / js.stripe.com over HTTPS, and what
they see are the emulator's objects.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import stripe

from conftest import STRIPEBENCH, RunningEmulator, run_exec
from stripebench.emulator.tls import ensure_certificates
from stripebench.emulator.web import STRIPE_HOSTS
from stripebench.harness.sandbox import bwrap_available, make_sandbox
from stripebench.routing import launch_options
from stripebench.routing.chromium import BASE_ARGS, chromium_args

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")


def test_python_sdk_with_default_api_base(emulator: RunningEmulator, account: dict[str, str],
                                          client: stripe.StripeClient, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(
        "import os, stripe\n"
        "assert stripe.api_base == 'https://api.stripe.com'\n"
        "stripe.api_key = os.environ['STRIPE_SECRET_KEY']\n"
        "customer = stripe.Customer.create(email='routed-python@example.com')\n"
        "print(customer.id)\n")
    done = run_exec(emulator, account, tmp_path, "python", "app.py")
    assert done.returncode == 0, done.stderr
    customer = client.v1.customers.retrieve(done.stdout.strip())
    assert customer.email == "routed-python@example.com"


def test_python_http_libraries_trust_the_ca_by_default(emulator: RunningEmulator,
                                                       account: dict[str, str],
                                                       tmp_path: Path) -> None:
    """urllib, httpx and requests as hand-written integrations use them: no CA option."""
    (tmp_path / "hit.py").write_text(
        "import base64, json, os, urllib.request, httpx, requests\n"
        "url = 'https://api.stripe.com/v1/customers'\n"
        "key = os.environ['STRIPE_SECRET_KEY']\n"
        "token = base64.b64encode((key + ':').encode()).decode()\n"
        "req = urllib.request.Request(url, headers={'Authorization': 'Basic ' + token})\n"
        "seen = [json.load(urllib.request.urlopen(req))['object'],\n"
        "        httpx.get(url, auth=(key, '')).json()['object'],\n"
        "        requests.get(url, auth=(key, '')).json()['object']]\n"
        "print(' '.join(seen))\n")
    done = run_exec(emulator, account, tmp_path, "python", "hit.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["list", "list", "list"]


def test_node_sdk_with_default_host(emulator: RunningEmulator, account: dict[str, str],
                                    client: stripe.StripeClient, tmp_path: Path) -> None:
    (tmp_path / "app.js").write_text(
        "const stripe = require('stripe')(process.env.STRIPE_SECRET_KEY);\n"
        "stripe.customers.create({email: 'routed-node@example.com'})\n"
        "  .then(c => console.log(c.id), e => { console.error(e); process.exit(1); });\n")
    done = run_exec(emulator, account, tmp_path, "node", "app.js")
    assert done.returncode == 0, done.stderr
    assert client.v1.customers.retrieve(done.stdout.strip()).email == "routed-node@example.com"


def test_curl_to_api_stripe_com(emulator: RunningEmulator, account: dict[str, str],
                                client: stripe.StripeClient, tmp_path: Path) -> None:
    made = client.v1.customers.create({"email": "seen-by-curl@example.com"})
    done = run_exec(emulator, account, tmp_path, "sh", "-c",
                    'curl -sS --fail-with-body https://api.stripe.com/v1/customers '
                    '-u "$STRIPE_SECRET_KEY:"')
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert [c["id"] for c in listed["data"]] == [made.id]


def test_every_stripe_host_presents_a_trusted_certificate(
        emulator: RunningEmulator, account: dict[str, str], tmp_path: Path) -> None:
    script = ";".join(f"curl -sS -o /dev/null -w '{host} %{{http_code}}\\n' https://{host}/"
                      for host in STRIPE_HOSTS)
    done = run_exec(emulator, account, tmp_path, "sh", "-c", script)
    assert done.returncode == 0, done.stderr
    answered = dict(line.split() for line in done.stdout.splitlines())
    assert set(answered) == set(STRIPE_HOSTS)  # each TLS handshake verified against the CA


def test_exit_code_and_keys_come_through(emulator: RunningEmulator, account: dict[str, str],
                                         tmp_path: Path) -> None:
    done = run_exec(emulator, account, tmp_path, "sh", "-c",
                    'echo "$STRIPE_SECRET_KEY $STRIPE_PUBLISHABLE_KEY"; exit 5')
    assert done.returncode == 5
    assert done.stdout.split() == [account["secret_key"], account["publishable_key"]]


def test_openssl_default_trust_verifies_api_stripe_com(emulator: RunningEmulator,
                                                       account: dict[str, str],
                                                       tmp_path: Path) -> None:
    """OpenSSL's default verify paths (no CA option given): what Ruby's net/http, PHP
    and other OpenSSL users rely on. Ruby itself is not installed on this machine."""
    done = run_exec(emulator, account, tmp_path, "sh", "-c",
                    "echo | openssl s_client -connect api.stripe.com:443 -servername "
                    "api.stripe.com -verify_hostname api.stripe.com -verify_return_error "
                    "2>&1")
    assert done.returncode == 0, done.stdout
    assert "Verify return code: 0 (ok)" in done.stdout
    # and a name the certificate does not carry is refused: the check is real
    bad = run_exec(emulator, account, tmp_path, "sh", "-c",
                   "echo | openssl s_client -connect api.stripe.com:443 -servername "
                   "api.stripe.com -verify_hostname example.com -verify_return_error 2>&1")
    assert bad.returncode != 0 and "Verify return code: 0 (ok)" not in bad.stdout


def test_ruby_net_http_with_defaults(emulator: RunningEmulator, account: dict[str, str],
                                     client: stripe.StripeClient, tmp_path: Path) -> None:
    made = client.v1.customers.create({"email": "seen-by-ruby@example.com"})
    script = ("require 'net/http'; require 'json'; "
              f"uri = URI('https://api.stripe.com/v1/customers/{made.id}'); "
              "req = Net::HTTP::Get.new(uri); req.basic_auth(ENV['STRIPE_SECRET_KEY'], ''); "
              "res = Net::HTTP.start(uri.host, uri.port, use_ssl: true) { |h| h.request(req) }; "
              "puts JSON.parse(res.body)['email']")
    done = run_exec(emulator, account, tmp_path, "ruby", "-e", script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "seen-by-ruby@example.com"


@pytest.mark.skipif(shutil.which("java") is None, reason="no JDK installed")
def test_java_trusts_the_generated_truststore(emulator: RunningEmulator,
                                              account: dict[str, str],
                                              client: stripe.StripeClient,
                                              tmp_path: Path) -> None:
    made = client.v1.customers.create({"email": "seen-by-java@example.com"})
    (tmp_path / "Hit.java").write_text(
        "import java.net.URI; import java.net.http.*;\n"
        "public class Hit { public static void main(String[] a) throws Exception {\n"
        "  var request = HttpRequest.newBuilder(URI.create(\"https://api.stripe.com/v1/"
        f"customers/{made.id}\"))\n"
        "    .header(\"Authorization\", \"Bearer \" + System.getenv(\"STRIPE_SECRET_KEY\"))"
        ".build();\n"
        "  var response = HttpClient.newHttpClient().send(request, "
        "HttpResponse.BodyHandlers.ofString());\n"
        "  System.out.println(response.statusCode() + \" \" + response.body()); } }\n")
    done = run_exec(emulator, account, tmp_path, "java", "Hit.java")
    assert done.returncode == 0, done.stderr
    status, body = done.stdout.split(" ", 1)
    assert status == "200" and json.loads(body)["email"] == "seen-by-java@example.com"


PAGE_SCRIPT = """
import json, sys
from playwright.sync_api import sync_playwright
args = json.loads(sys.argv[1])
out = {}
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
    page = browser.new_page()
    api = page.goto("https://api.stripe.com/v1/customers")
    out["api"] = [api.status, api.json()]
    js = page.goto("https://js.stripe.com/v3/")
    out["js"] = [js.status, js.text()[:300]]
    page.set_content('<html><body><script src="https://js.stripe.com/v3/"></script>'
                     '</body></html>')
    out["typeof_Stripe"] = page.evaluate("typeof Stripe")
    browser.close()
print(json.dumps(out))
"""


def test_chromium_inside_loads_js_stripe_com(emulator: RunningEmulator,
                                             account: dict[str, str], tmp_path: Path) -> None:
    """Unmodified: the script launches Chromium with only the usual headless flags; the
    sandbox's /etc/chromium.d makes it accept our certificates."""
    (tmp_path / "page.py").write_text(PAGE_SCRIPT)
    done = run_exec(emulator, account, tmp_path, "python", "page.py", json.dumps(BASE_ARGS))
    assert done.returncode == 0, done.stderr
    _assert_browser_reached_emulator(json.loads(done.stdout))


def test_chromium_args_work_for_a_browser_launched_directly(
        emulator: RunningEmulator, account: dict[str, str], tmp_path: Path) -> None:
    """Calling the browser binary itself (not Debian's launcher) needs chromium_args()."""
    (tmp_path / "page.py").write_text(PAGE_SCRIPT.replace("/usr/bin/chromium",
                                                          "/usr/lib/chromium/chromium"))
    args = [*BASE_ARGS, *chromium_args(spki=list(ensure_certificates().spki))]
    done = run_exec(emulator, account, tmp_path, "python", "page.py", json.dumps(args))
    assert done.returncode == 0, done.stderr
    _assert_browser_reached_emulator(json.loads(done.stdout))


def test_chromium_outside_with_the_https_front(emulator: RunningEmulator) -> None:
    """The harness's own Chromium: host-resolver rules send Stripe hosts to a TLS front."""
    from playwright.sync_api import sync_playwright

    options = launch_options(emulator_url=emulator.base)
    assert options["executable_path"] == "/usr/bin/chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(**options)  # type: ignore[arg-type]
        page = browser.new_page()
        api = page.goto("https://api.stripe.com/v1/customers")
        assert api is not None
        seen = {"api": [api.status, api.json()]}
        js = page.goto("https://js.stripe.com/v3/")
        assert js is not None
        seen["js"] = [js.status, js.text()[:300]]
        page.set_content('<script src="https://js.stripe.com/v3/"></script>')
        seen["typeof_Stripe"] = page.evaluate("typeof Stripe")
        browser.close()
    _assert_browser_reached_emulator(seen)


APP_PAGE = """<html><body>
<script src="https://js.stripe.com/v3/"></script>
<script>
Stripe("PUBLISHABLE_KEY").retrievePaymentIntent("CLIENT_SECRET").then(result => {
  document.title = "got:" + JSON.stringify(result.paymentIntent || result.error);
});
</script></body></html>"""

INTENT_SCRIPT = """
import os, stripe
stripe.api_key = os.environ["STRIPE_SECRET_KEY"]
intent = stripe.PaymentIntent.create(amount=4321, currency="usd")
print(intent.client_secret)
"""


def test_harness_browser_runs_inside_the_sandbox(emulator: RunningEmulator,
                                                 account: dict[str, str],
                                                 tmp_path: Path) -> None:
    """Docs-style app: the server side (python SDK, defaults) makes a PaymentIntent, the
    page loads Stripe.js from js.stripe.com and reads it back with the publishable key.
    Playwright runs here, Chromium in the sandbox, so it sees the agent's localhost app
    and Stripe's hosts exactly as the agent's code does."""
    from playwright.sync_api import sync_playwright

    env = {"STRIPE_SECRET_KEY": account["secret_key"],
           "STRIPE_PUBLISHABLE_KEY": account["publishable_key"]}
    box = make_sandbox("bwrap", tmp_path, env, emulator_url=emulator.base)
    try:
        (tmp_path / "intent.py").write_text(INTENT_SCRIPT)
        made = box.exec(["python", "intent.py"])
        assert made.ok, made.stderr
        page_html = APP_PAGE.replace("PUBLISHABLE_KEY", account["publishable_key"])
        (tmp_path / "index.html").write_text(page_html.replace("CLIENT_SECRET",
                                                                made.stdout.strip()))
        box.start_service("app", "python3 -m http.server 8000", ready_port=8000)
        options = launch_options(box)
        assert options["executable_path"] != "/usr/bin/chromium"
        with sync_playwright() as p:
            browser = p.chromium.launch(**options)  # type: ignore[arg-type]
            page = browser.new_page()
            page.goto("http://127.0.0.1:8000/index.html")  # only exists inside the sandbox
            page.wait_for_function("document.title.startsWith('got:')")
            intent = json.loads(page.title()[4:])
            browser.close()
        assert intent["object"] == "payment_intent", intent
        assert intent["amount"] == 4321 and intent["client_secret"] == made.stdout.strip()
    finally:
        box.stop()


def _assert_browser_reached_emulator(seen: dict[str, list[object] | object]) -> None:
    status, body = seen["api"]  # type: ignore[misc]
    # the emulator's own authentication error, over a TLS connection Chromium accepted
    assert status == 401
    assert "You did not provide an API key" in body["error"]["message"]  # type: ignore[index]
    js_status, js_text = seen["js"]  # type: ignore[misc]
    assert js_status == 200 and "stripebench" in str(js_text)  # our Stripe.js
    assert seen["typeof_Stripe"] == "function"


def test_without_namespaces_the_fallback_variables_point_at_the_emulator(
        emulator: RunningEmulator, account: dict[str, str], client: stripe.StripeClient,
        tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(
        "import os, stripe\n"
        "stripe.api_key = os.environ['STRIPE_SECRET_KEY']\n"
        "stripe.api_base = os.environ['STRIPE_API_BASE']\n"
        "print(stripe.Customer.create(email='fallback@example.com').id)\n")
    done = subprocess.run([STRIPEBENCH, "exec", "--no-sandbox", "--emulator", emulator.base,
                           "--account", account["id"], "--workdir", str(tmp_path), "--",
                           sys.executable, "app.py"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert client.v1.customers.retrieve(done.stdout.strip()).email == "fallback@example.com"


def test_unknown_account_is_a_clear_error(emulator: RunningEmulator, tmp_path: Path) -> None:
    done = subprocess.run([STRIPEBENCH, "exec", "--emulator", emulator.base, "--account",
                           "acct_doesnotexist", "--", "true"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert "no account acct_doesnotexist" in done.stderr and "Traceback" not in done.stderr


def test_emulator_serve_https_answers_for_stripe_hosts(tmp_path: Path) -> None:
    from conftest import free_port

    http_port, https_port = free_port(), free_port()
    server = subprocess.Popen([STRIPEBENCH, "emulator", "serve", "--port", str(http_port),
                               "--https", "--https-port", str(https_port)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None
        banner = ""
        while "Chromium flags" not in banner:
            line = server.stdout.readline()
            assert line, banner
            banner += line
        secret = banner.split("secret key")[1].split()[0]
        ca = ensure_certificates().ca_cert
        _wait_for(f"http://127.0.0.1:{http_port}/_emulator/health")
        done = subprocess.run(
            ["curl", "-sS", "--cacert", str(ca),
             "--resolve", f"api.stripe.com:{https_port}:127.0.0.1",
             f"https://api.stripe.com:{https_port}/v1/customers", "-u", f"{secret}:"],
            capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["object"] == "list"
        assert f"https://127.0.0.1:{https_port}" in banner and str(ca) in banner
        assert _idle_keep_alive_is_closed(https_port, ca), \
            "an idle keep-alive TLS connection the emulator dropped was left open"
    finally:
        server.terminate()
        server.wait(timeout=10)


def _idle_keep_alive_is_closed(port: int, ca: Path) -> bool:
    """An idle keep-alive connection is closed after a few seconds (the front's gate
    does it as the emulator would; a TLS stream cannot half-close), so an HTTP client
    reconnects instead of writing its next request into a dead one."""
    import socket
    import ssl

    context = ssl.create_default_context(cafile=str(ca))
    with socket.create_connection(("127.0.0.1", port), timeout=30) as raw, \
            context.wrap_socket(raw, server_hostname="api.stripe.com") as tls:
        tls.sendall(b"GET /v1/balance HTTP/1.1\r\nHost: api.stripe.com\r\n\r\n")
        received = b""
        while b"\r\n\r\n" not in received:
            received += tls.recv(65536)
        try:
            while tls.recv(65536):  # the rest of the body, then the close
                pass
        except (TimeoutError, ssl.SSLError):
            return False
        except ConnectionError:
            return True
    return True


def _wait_for(url: str, timeout: float = 20) -> None:
    import time

    import httpx

    deadline = time.monotonic() + timeout
    while True:
        try:
            httpx.get(url, timeout=1).raise_for_status()
            return
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_trial_sandbox_routes_to_the_emulator_named_in_its_env(
        emulator: RunningEmulator, account: dict[str, str], client: stripe.StripeClient,
        tmp_path: Path) -> None:
    """What the harness does: a bwrap sandbox given STRIPE_API_BASE and the keys."""
    made = client.v1.customers.create({"email": "trial@example.com"})
    env = {"STRIPE_SECRET_KEY": account["secret_key"], "STRIPE_API_BASE": emulator.base}
    box = make_sandbox("bwrap", tmp_path, env)
    try:
        seen = box.exec('echo "$STRIPE_API_BASE"; curl -sS --fail-with-body '
                        'https://api.stripe.com/v1/customers/' + made.id +
                        ' -u "$STRIPE_SECRET_KEY:"')
        base, _, body = seen.stdout.partition("\n")
        assert seen.ok, seen.stderr
        assert base == "https://api.stripe.com"  # the plain address is unreachable inside
        assert json.loads(body)["email"] == "trial@example.com"
        direct = box.exec(f"curl -sS -m 3 {emulator.base}/_emulator/health")
        assert direct.exit_code != 0  # nor is the control plane
        # an agent clearing out processes cannot take routing down with them
        box.exec("pkill -9 python3; pkill -f relay; kill -INT 1; kill -9 -1", timeout=10)
        again = box.exec("curl -sS --fail-with-body https://api.stripe.com/v1/customers/"
                         + made.id + ' -u "$STRIPE_SECRET_KEY:"')
        assert again.ok and json.loads(again.stdout)["id"] == made.id
    finally:
        box.stop()


CHECKOUT_SCRIPT = """
import os, stripe
stripe.api_key = os.environ["STRIPE_SECRET_KEY"]
session = stripe.checkout.Session.create(
    mode="payment", success_url="http://127.0.0.1:8000/done",
    line_items=[{"quantity": 1, "price_data": {"currency": "usd", "unit_amount": 1234,
                                               "product_data": {"name": "Routed Mug"}}}])
print(session.url)
"""


def test_checkout_redirect_reaches_the_hosted_page(emulator: RunningEmulator,
                                                   account: dict[str, str],
                                                   tmp_path: Path) -> None:
    """Docs-style Checkout: the SDK (defaults) returns a checkout.stripe.com URL, and the
    browser the harness drives opens it from inside the sandbox."""
    from playwright.sync_api import sync_playwright

    (tmp_path / "checkout.py").write_text(CHECKOUT_SCRIPT)
    env = {"STRIPE_SECRET_KEY": account["secret_key"], "STRIPE_API_BASE": emulator.base}
    box = make_sandbox("bwrap", tmp_path, env)
    try:
        made = box.exec(["python", "checkout.py"])
        assert made.ok, made.stderr
        url = made.stdout.strip()
        assert url.startswith("https://checkout.stripe.com/c/pay/cs_test_")
        with sync_playwright() as p:
            browser = p.chromium.launch(**launch_options(box))  # type: ignore[arg-type]
            page = browser.new_page()
            response = page.goto(url)
            assert response is not None and response.status == 200
            text = page.inner_text("body")
            browser.close()
        assert "Routed Mug" in text and "$12.34" in text
    finally:
        box.stop()


def test_stopping_relays_ends_open_connections_quietly(caplog: Any) -> None:
    """A relay thread stopped with a connection still open cancels that connection's task
    and closes its loop: the task used to be reported as destroyed while pending when the
    loop was collected, in the middle of a benchmark run's output."""
    import gc
    import logging
    import socket as socket_mod
    import threading as threading_mod

    from stripebench.routing.front import RelayThread

    target = socket_mod.socket()
    target.bind(("127.0.0.1", 0))
    target.listen()
    accepted: list[socket_mod.socket] = []
    threading_mod.Thread(target=lambda: accepted.append(target.accept()[0]), daemon=True).start()
    relays = RelayThread()
    bound = relays.add("tcp:127.0.0.1:0", f"tcp:127.0.0.1:{target.getsockname()[1]}")
    client = socket_mod.create_connection(("127.0.0.1", int(bound.rsplit(":", 1)[1])))
    client.sendall(b"hello")
    for _ in range(100):
        if accepted:
            break
        time.sleep(0.02)
    assert accepted, "the relay never reached its target"
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        relays.stop()
        loop = relays.loop
        del relays
        gc.collect()
    assert loop.is_closed()
    assert not [r for r in caplog.records if "destroyed but it is pending" in r.getMessage()]
    client.close()
    accepted[0].close()
    target.close()


def test_a_relay_cancelled_with_connections_open_logs_no_traceback(caplog: Any) -> None:
    """At teardown a relay's loop cancels the handlers of connections still open (the
    gated front waiting for a request's next bytes). Python 3.11's stream callback used to
    log each cancelled handler as "Exception in callback ... CancelledError", dozens of
    tracebacks at the end of `tasks check` or `make run`."""
    import asyncio
    import logging

    from stripebench.routing import relay

    async def waits_forever(reader: Any, writer: Any, connect: Any) -> None:
        await asyncio.sleep(3600)

    async def main() -> None:
        server = await relay.listen("tcp:127.0.0.1:0", relay.connector("tcp:127.0.0.1:9"),
                                    serve_one=waits_forever)
        port = server.sockets[0].getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.sleep(0.2)
        for task in asyncio.all_tasks() - {asyncio.current_task()}:
            task.cancel()
        await asyncio.sleep(0.2)
        writer.close()
        server.close()

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        asyncio.run(main())
    assert not [r for r in caplog.records if "Exception in callback" in r.getMessage()]
