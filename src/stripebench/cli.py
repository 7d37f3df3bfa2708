"""The `stripebench` command line."""

from __future__ import annotations

from pathlib import Path

import typer

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="An offline benchmark for AI agents that build Stripe integrations.")
emulator_app = typer.Typer(no_args_is_help=True, help="The local Stripe emulator.")
app.add_typer(emulator_app, name="emulator")


@emulator_app.command("serve")
def emulator_serve(
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(12111, help="Port to listen on."),
    seed: int = typer.Option(0, help="Seed for ids and secrets."),
    data: Path | None = typer.Option(None, help="Directory to persist state in (SQLite)."),
    control_token: str | None = typer.Option(None, envvar="STRIPEBENCH_CONTROL_TOKEN",
                                             help="Require this token on /_emulator/ calls."),
) -> None:
    """Serve the Stripe API, Stripe.js and hosted pages over HTTP."""
    from .emulator.server import build, default_account, serve

    origin = f"http://{host}:{port}"
    emulator = build(seed=seed, data=data, control_token=control_token, local_origin=origin)
    account = default_account(emulator)
    typer.echo(f"Local Stripe listening on {origin}")
    typer.echo(f"  account          {account.id}")
    typer.echo(f"  secret key       {account.secret_key}")
    typer.echo(f"  publishable key  {account.publishable_key}")
    typer.echo(f"  Stripe.js        {origin}/js.stripe.com/v3/")
    serve(emulator, host, port)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
