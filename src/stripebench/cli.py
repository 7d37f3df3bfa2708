"""The `stripebench` command line."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import typer

from . import __version__
from .emulator.request_record import DEFAULT_BUDGET
from .stripe_cli import trigger_events

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="An offline benchmark for AI agents that build Stripe integrations.\n\n"
                  "Exit codes: 0 done; 1 failed trials, checks or a server that could not "
                  "start; 2 a usage error (a bad option, nothing to do).")
emulator_app = typer.Typer(no_args_is_help=True, help="The local Stripe emulator.")
app.add_typer(emulator_app, name="emulator")

from .docs.cli import docs_app  # noqa: E402  (sub-apps are registered next to each other)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"stripebench {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """An offline benchmark for AI agents that build Stripe integrations."""

app.add_typer(docs_app, name="docs")


@emulator_app.command("serve")
def emulator_serve(
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(12111, help="Port to listen on."),
    seed: int = typer.Option(0, help="Seed for object ids (API keys are random unless "
                             "--api-key / --publishable-key)."),
    data: Path | None = typer.Option(None, help="Directory to persist state in (SQLite)."),
    control_token: str | None = typer.Option(None, envvar="STRIPEBENCH_CONTROL_TOKEN",
                                             help="Require this token on /_emulator/ calls."),
    https: bool = typer.Option(False, "--https", help="Also serve HTTPS with the local CA."),
    https_port: int = typer.Option(12443, help="Port for --https."),
    salt: str = typer.Option("", envvar="STRIPEBENCH_EMULATOR_SALT", show_default=False,
                             help="Secret mixed into the ids of accounts created without "
                                  "a salt of their own, so nobody can compute them from "
                                  "the seed (same seed + salt = same ids)."),
    request_budget: int = typer.Option(
        DEFAULT_BUDGET, min=0, help="Bytes of request-record entries kept per account; "
        "past it requests are still counted and the record says what it dropped."),
    api_key: str | None = typer.Option(None, "--api-key", help="The account's secret key "
                                       "(sk_test_...), the same across restarts so an "
                                       "app's .env keeps working."),
    publishable_key: str | None = typer.Option(None, "--publishable-key",
                                               help="The account's publishable key "
                                               "(pk_test_...)."),
    fixtures: Path | None = typer.Option(None, "--fixtures", help="A Stripe CLI fixture "
                                         "file (JSON) applied to the account at start."),
    landing: bool = typer.Option(True, "--landing/--no-landing", help="Serve a page at "
                                 "http://HOST:PORT/ listing accounts, keys, recent "
                                 "requests, objects and events."),
) -> None:
    """Serve the Stripe API, Stripe.js and hosted pages over HTTP (and HTTPS)."""

    # loaded when the command runs: `stripebench --help` stays quick
    from .emulator.errors import StripeError
    from .emulator.server import build, default_account, serve
    from .emulator.standalone import StandaloneError, bind, fix_keys, load_fixtures

    def stop(message: str, code: int = 1) -> typer.Exit:
        typer.echo(f"stripebench emulator serve: {message}", err=True)
        return typer.Exit(code)

    origin = f"http://{host}:{port}"
    try:
        sock = bind(host, port)
        if https:  # said now, not after claiming to listen
            bind(host, https_port, "--https-port").close()
    except StandaloneError as exc:
        raise stop(str(exc)) from None
    try:
        emulator = build(seed=seed, data=data, control_token=control_token, local_origin=origin,
                         salt=salt, request_budget=request_budget)
    except (OSError, sqlite3.Error, StripeError) as exc:  # a full or read-only data folder
        reason = exc.message if isinstance(exc, StripeError) else str(exc)
        raise stop(f"cannot keep state in {data}: {reason}") from None
    account = default_account(emulator)
    try:
        fix_keys(emulator, account, api_key, publishable_key)
        loaded = load_fixtures(emulator, account, fixtures) if fixtures else []
    except StandaloneError as exc:
        raise stop(str(exc), 2) from None
    typer.echo(f"Local Stripe listening on {origin}")
    typer.echo(f"  account          {account.id}")
    typer.echo(f"  secret key       {account.secret_key}")
    typer.echo(f"  publishable key  {account.publishable_key}")
    typer.echo(f"  Stripe.js        {origin}/js.stripe.com/v3/")
    if landing:
        typer.echo(f"  dashboard        {origin}/ (accounts, keys, requests, objects, events)")
    if fixtures:
        typer.echo(f"  fixtures         {fixtures}: {len(loaded)} request(s)")
        for line in loaded:
            typer.echo(f"    {line}")
    if https:
        # loaded when the command runs: `stripebench --help` stays quick
        from .routing.front import serve_https
        typer.echo(serve_https(host, https_port, port))
    typer.echo("Ready (Ctrl-C stops it).")
    serve(emulator, host, port, sock=sock, landing=landing)


def _keys(emulator: str, account: str | None, secret_key: str | None,
          control_token: str | None) -> str:
    # loaded when the command runs: `stripebench --help` stays quick
    from .routing import launch

    try:
        keys = launch.resolve_keys(emulator, account=account, secret_key=secret_key,
                                   publishable_key=None, control_token=control_token)
    except (launch.ExecError, ValueError) as exc:
        typer.echo(f"stripebench: {exc}", err=True)
        raise typer.Exit(2) from None
    if not keys.secret_key:
        typer.echo("stripebench: no secret key found; pass --secret-key or --account", err=True)
        raise typer.Exit(2)
    return keys.secret_key


@emulator_app.command("listen")
def emulator_listen(
    forward_to: str | None = typer.Option(None, help="POST the account's events here."),
    forward_connect_to: str | None = typer.Option(
        None, help="POST connected accounts' events here."),
    events: str = typer.Option("", help="Comma-separated event types (default: all)."),
    emulator: str = typer.Option("http://127.0.0.1:12111", envvar="STRIPEBENCH_EMULATOR"),
    account: str | None = typer.Option(None, help="Listen to this emulator account."),
    secret_key: str | None = typer.Option(None, envvar="STRIPE_SECRET_KEY"),
    control_token: str | None = typer.Option(None, envvar="STRIPEBENCH_CONTROL_TOKEN"),
    interval: float = typer.Option(0.25, help="Seconds between polls."),
) -> None:
    """Forward events to a local webhook URL, signed, as `stripe listen` does."""

    # loaded when the command runs: `stripebench --help` stays quick
    from .stripe_cli.listen import Listener, post

    if not forward_to and not forward_connect_to:
        typer.echo("stripebench emulator listen: give --forward-to and/or "
                   "--forward-connect-to", err=True)
        raise typer.Exit(2)
    key = _keys(emulator, account, secret_key, control_token)
    listener = Listener(emulator, key, forward_to, forward_connect_to,
                        {e.strip() for e in events.split(",") if e.strip()})
    listener.start()
    typer.echo(f"Ready! Your webhook signing secret is {listener.secret}")

    def send(url: str, payload: bytes, header: str) -> int | None:
        status = post(url, payload, header)
        event = payload[:200].decode(errors="replace").split('"type": "')[-1].split('"')[0]
        typer.echo(f"--> {event} [{status if status is not None else 'no response'}] {url}")
        return status
    try:
        while True:
            listener.poll(send)
            time.sleep(interval)
    except KeyboardInterrupt:
        pass


@emulator_app.command("trigger", epilog=f"Events: {', '.join(trigger_events())}.")
def emulator_trigger(
    event: str = typer.Argument(..., help="The event to cause, e.g. payment_intent.succeeded "
                                "(the list is below)."),
    emulator: str = typer.Option("http://127.0.0.1:12111", envvar="STRIPEBENCH_EMULATOR"),
    account: str | None = typer.Option(None, help="Act on this emulator account."),
    secret_key: str | None = typer.Option(None, envvar="STRIPE_SECRET_KEY"),
    stripe_account: str | None = typer.Option(None, help="Act on this connected account."),
    control_token: str | None = typer.Option(None, envvar="STRIPEBENCH_CONTROL_TOKEN"),
) -> None:
    """Make the API calls that cause EVENT, as `stripe trigger` does."""
    # the stripe SDK is slow to import: only `trigger` needs it
    import stripe

    # loaded when the command runs: `stripebench --help` stays quick
    from .stripe_cli.trigger import trigger

    key = _keys(emulator, account, secret_key, control_token)
    try:
        made = trigger(event, api_base=emulator, secret_key=key, stripe_account=stripe_account)
    except (ValueError, stripe.StripeError) as exc:
        typer.echo(f"stripebench emulator trigger: {exc}", err=True)
        raise typer.Exit(2) from None
    for kind, object_id in made.items():
        typer.echo(f"Running fixture: {kind} {object_id}")
    typer.echo("Trigger succeeded! Check the listener for the events.")


@app.command("exec", context_settings={"allow_extra_args": True,
                                       "ignore_unknown_options": True})
def exec_command(
    ctx: typer.Context,
    emulator: str = typer.Option("http://127.0.0.1:12111", envvar="STRIPEBENCH_EMULATOR",
                                 help="The emulator's plain HTTP address."),
    account: str | None = typer.Option(None, help="Use this emulator account's keys."),
    secret_key: str | None = typer.Option(None, help="Use this secret key."),
    publishable_key: str | None = typer.Option(None, help="Use this publishable key."),
    workdir: Path = typer.Option(Path("."), help="Directory the command may write."),
    share: list[Path] = typer.Option([], help="Extra directory visible read-only."),
    sandbox: bool = typer.Option(True, help="--no-sandbox: no routing, base-URL variables."),
    control_token: str | None = typer.Option(None, envvar="STRIPEBENCH_CONTROL_TOKEN"),
) -> None:
    """Run COMMAND with api.stripe.com, js.stripe.com & co. served by the emulator.

    stripebench exec [OPTIONS] -- COMMAND [ARGS]...  (see docs/routing.md)"""
    # loaded when the command runs: `stripebench --help` stays quick
    from .routing import launch

    try:
        keys = launch.resolve_keys(emulator, account=account, secret_key=secret_key,
                                   publishable_key=publishable_key, control_token=control_token)
        code = launch.run(ctx.args, emulator_url=emulator, keys=keys,
                          workdir=workdir.resolve(), share=share, sandbox=sandbox)
    except (launch.ExecError, ValueError) as exc:
        typer.echo(f"stripebench exec: {exc}", err=True)
        raise typer.Exit(2) from None
    raise typer.Exit(code)


from .harness import cli as harness_cli  # noqa: E402
from .results import cli as results_cli  # noqa: E402

harness_cli.write_reports = results_cli.write_reports  # the harness does not import results
harness_cli.run_summary = results_cli.run_summary
app.command("run", context_settings={"allow_extra_args": True})(harness_cli.run_command)
app.command("report")(results_cli.report_command)
app.command("compare")(results_cli.compare_command)
app.command("mcp")(harness_cli.mcp_command)
app.command("doctor")(harness_cli.doctor_command)
app.add_typer(harness_cli.tasks_app, name="tasks")

from .integrations.cli import export_app  # noqa: E402

app.add_typer(export_app, name="export")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
