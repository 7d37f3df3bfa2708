"""Launchpad, the Next.js SaaS starter of the saas-* tasks: its own smoke test.

The app (Next.js App Router, React 19, drizzle on the trial's own PostgreSQL from Debian,
email+password accounts, teams, a pricing page, hosted Checkout with a 14-day trial, a
webhook route, the billing portal) is started as the harness starts a task's services:
the task's setup (npm packages from the offline cache, the webhook endpoint), then the
`db` service (unprivileged: PostgreSQL refuses root) and the `app` service (`next dev`).
A customer signs up from the pricing page in real Chromium, pays on hosted Checkout and
lands on the dashboard; the app's database, Stripe's objects and the webhook route
agree.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import stripe

from paths import REPO
from stripebench.harness.fixtures import seed
from stripebench.harness.sandbox import LocalSandbox, npm_cache
from stripebench.harness.task import Task, load_task
from stripebench.harness.trial import service_env, service_ports, start_services

TASKS = REPO / "tasks"
TASK = TASKS / "saas-embedded-checkout"
PSQL_BIN = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
SLOW_STEP_MS = 90_000  # room for `next dev`'s first compile of each route


def socket_dir(workdir: Path) -> str:
    """Where db/env.sh puts the app's PostgreSQL socket (a short path under /tmp)."""
    digest = hashlib.sha256(str(workdir.resolve()).encode()).hexdigest()[:12]
    return f"/tmp/launchpad-{digest}"


@dataclass
class Launchpad:
    url: str
    workdir: Path
    client: stripe.StripeClient
    env: dict[str, str]
    sandbox: LocalSandbox

    def sql(self, query: str) -> list[list[str]]:
        """Rows of the app's own database (through its Unix socket), as text."""
        done = subprocess.run(
            [str(PSQL_BIN[-1] / "psql"), "-qtAX", "-F", "\t", "-h", socket_dir(self.workdir),
             "-U", "launchpad", "-d", "launchpad",
             "-c", query], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return [line.split("\t") for line in done.stdout.splitlines() if line]


def trial_env(emulator: Any, account: dict[str, str], workdir: Path,
              ports: dict[str, int], task: Task) -> dict[str, str]:
    cache = npm_cache()
    assert cache is not None, "no offline npm cache: run scripts/setup.sh"
    return {"STRIPE_API_BASE": emulator.base, "STRIPE_BASE_URL": emulator.base,
            "STRIPE_SECRET_KEY": account["secret_key"],
            "STRIPE_PUBLISHABLE_KEY": account["publishable_key"],
            "STRIPEBENCH_NPM_CACHE": str(cache), "STRIPEBENCH_WORKDIR": str(workdir),
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
            **service_env(task, ports)}


@contextmanager
def launchpad(emulator: Any, account: dict[str, str], tmp_path: Path,
              task_dir: Path = TASK) -> Iterator[Launchpad]:
    """The task's environment set up and served as a trial does (local sandbox)."""
    task = load_task(task_dir)
    seed(emulator.base, account["secret_key"], task.fixtures)
    workdir = tmp_path / "work"
    shutil.copytree(task.environment, workdir, symlinks=True)
    ports = service_ports(task, "local")
    env = trial_env(emulator, account, workdir, ports, task)
    done = subprocess.run(task.setup_command or "", shell=True, cwd=task.path,
                          env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=task.setup_timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    sandbox = LocalSandbox(workdir, env)
    try:
        start_services(sandbox, task, ports)
        client = stripe.StripeClient(account["secret_key"],
                                     base_addresses={"api": emulator.base})
        yield Launchpad(f"http://127.0.0.1:{ports['app']}", workdir, client, env, sandbox)
    finally:
        sandbox.stop()


def fill_hosted_card(page: Any) -> None:
    """Stripe's hosted Checkout form, filled the way a customer does."""
    page.locator("#card-number").fill("4242 4242 4242 4242")
    page.locator("#card-expiry").fill("12 / 34")
    page.locator("#card-cvc").fill("123")
    page.locator("#card-name").fill("Robin Founder")
    page.locator("#billing-country").select_option("US")
    page.locator("#billing-postal_code").fill("94107")


def sign_up(page: Any, app: str, email: str, plan: str = "Base") -> None:
    page.goto(app + "/pricing")
    page.get_by_role("link", name=f"Subscribe to {plan}").click()
    page.wait_for_url(re.compile(r"/sign-up\?priceId=price_"))
    page.locator("input[name=email]").fill(email)
    page.locator("input[name=password]").fill("correct horse battery")
    page.get_by_role("button", name="Sign up").click()


def test_sign_up_subscribe_on_hosted_checkout_and_stay_in_step(
        emulator: Any, account: dict[str, str], tmp_path: Path, page: Any) -> None:
    page.set_default_timeout(SLOW_STEP_MS)
    with launchpad(emulator, account, tmp_path) as app:
        assert httpx.get(app.url + "/healthz", timeout=90).json() == {"ok": True}
        page.goto(app.url + "/pricing")
        assert page.locator("[data-plan]").all_inner_texts()[0].startswith("Base")
        assert "$8.00" in page.content() and "$12.00" in page.content()

        sign_up(page, app.url, "robin@example.com")
        page.wait_for_url(re.compile(r"checkout\.stripe\.com/c/pay/cs_"))
        assert "14 days free" in page.content()  # the hosted page shows the trial
        fill_hosted_card(page)
        page.locator("#submit").click()
        page.wait_for_url(re.compile(r"/dashboard$"))
        assert page.get_by_test_id("plan").inner_text() == "Base"
        assert page.get_by_test_id("status").inner_text() == "trialing"

        [[team_id, customer, subscription_id, product, plan, status]] = app.sql(
            "select id, stripe_customer_id, stripe_subscription_id, stripe_product_id, "
            "plan_name, subscription_status from teams")
        subscription = app.client.v1.subscriptions.retrieve(subscription_id)
        assert subscription.customer == customer and subscription.status == "trialing"
        assert (product, plan, status) == ("prod_launchpad_base", "Base", "trialing")
        assert subscription.trial_end is not None
        assert subscription.trial_end - subscription.trial_start == 14 * 86400
        assert app.sql("select email from users") == [["robin@example.com"]]
        assert app.sql("select team_id, role from team_members") == [[team_id, "owner"]]

        # The webhook route keeps the team in step with changes made at Stripe.
        app.client.v1.subscriptions.cancel(subscription_id)
        for _ in range(100):
            if app.sql("select subscription_status from teams") == [["canceled"]]:
                break
            page.wait_for_timeout(100)
        assert app.sql("select subscription_status, plan_name from teams") == [["canceled", ""]]

        # Signing out and in again; the billing portal for the team's customer.
        page.get_by_role("button", name="Sign out").click()
        page.wait_for_url(app.url + "/")
        page.goto(app.url + "/sign-in")
        page.locator("input[name=email]").fill("robin@example.com")
        page.locator("input[name=password]").fill("wrong password")
        page.get_by_role("button", name="Sign in").click()
        page.get_by_text("Wrong email or password.").wait_for()
        page.locator("input[name=password]").fill("correct horse battery")
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(re.compile(r"/dashboard$"))
        page.get_by_role("button", name="Manage subscription").click()
        page.wait_for_url(re.compile(r"billing\.stripe\.com/p/session/"))
        sessions = app.client.v1.billing_portal.sessions
        assert sessions is not None


def test_unsigned_webhooks_are_refused(emulator: Any, account: dict[str, str],
                                       tmp_path: Path) -> None:
    with launchpad(emulator, account, tmp_path) as app:
        response = httpx.post(app.url + "/api/stripe/webhook", timeout=90,
                              content=b'{"type": "customer.subscription.updated"}',
                              headers={"stripe-signature": "t=1,v1=00"})
        assert response.status_code == 400
        assert "signature" in response.json()["error"]


def test_the_prompt_gives_no_address_for_the_port_less_database() -> None:
    """The `db` service declares no port (a Unix socket only): the agent's prompt must not
    tell it the database listens on an HTTP address (it said so before)."""
    from stripebench.harness.prompt import task_prompt

    prompt = task_prompt(load_task(TASK), Path("/work"), {}, {"db": 5001, "app": 5002})
    assert "- `db`: `bash db/start.sh`\n" in prompt
    assert "- `app`: `bash run.sh` (listening on http://127.0.0.1:5002" in prompt
