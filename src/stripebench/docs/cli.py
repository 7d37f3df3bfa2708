"""`stripebench docs ...`: search, show and build the documentation index."""

from __future__ import annotations

import json
from pathlib import Path

import typer

docs_app = typer.Typer(no_args_is_help=True, help="Offline Stripe documentation search.")


@docs_app.command("search")
def search_cmd(
    query: str = typer.Argument(..., help="What to look for."),
    limit: int = typer.Option(5, "--limit", "-n", min=1, max=50, help="How many results."),
    as_json: bool = typer.Option(False, "--json", help="Print results as JSON."),
) -> None:
    """Search the API reference and guides."""
    if not query.strip():
        typer.echo("stripebench docs search: give words to look for, e.g. "
                   "stripebench docs search \"checkout session webhook\"", err=True)
        raise typer.Exit(2)
    # loaded when the command runs: `stripebench --help` stays quick
    from .index import get_index
    from .tool import format_hits

    hits = get_index().search(query, limit)
    if as_json:
        typer.echo(json.dumps([{"doc_id": h.doc_id, "title": h.title, "score": h.score,
                                "url": h.url, "text": h.text} for h in hits], indent=2))
    else:
        typer.echo(format_hits(query, hits))


@docs_app.command("show")
def show_cmd(doc_id: str = typer.Argument(..., help="A doc id from search results.")) -> None:
    """Print one document by id."""
    # loaded when the command runs: `stripebench --help` stays quick
    from .index import get_index

    index = get_index()
    hit = index.show(doc_id)
    if hit is None:
        near = index.similar_ids(doc_id)
        typer.echo(f"No document with id {doc_id!r}." +
                   (f" Similar: {', '.join(near)}" if near else ""), err=True)
        raise typer.Exit(1)
    typer.echo(f"{hit.title}\ndoc id: {hit.doc_id}" + (f"\n{hit.url}" if hit.url else "") +
               f"\n\n{hit.text}")


@docs_app.command("build")
def build_cmd(force: bool = typer.Option(False, "--force", help="Rebuild even if cached.")
              ) -> None:
    """Build (or reuse) the index in the user's cache."""
    # loaded when the command runs: `stripebench --help` stays quick
    from .index import build

    info = build(force=force)
    state = "reused" if info.reused else f"built in {info.seconds:.1f} s"
    typer.echo(f"{info.path} ({info.sections} sections, {state})")


@docs_app.command("unhelpful")
def unhelpful_cmd(
    logs: list[Path] = typer.Argument(..., help="Query log files (JSONL)."),
    min_coverage: float = typer.Option(0.5, help="Below this share of query words: weak."),
) -> None:
    """List logged queries that found nothing useful."""
    # loaded when the command runs: `stripebench --help` stays quick
    from .log import read_log, unhelpful_queries

    records = [r for p in logs for r in read_log(p)]
    bad = unhelpful_queries(records, min_coverage=min_coverage)
    for u in bad:
        typer.echo(f"{u.count:3d}x  {u.reason:10s}  cov={u.coverage:.2f}  {u.query!r}"
                   + (f"  (top: {u.top_doc_id})" if u.top_doc_id else ""))
    typer.echo(f"{len(bad)} of {len({r.get('query') for r in records})} distinct queries "
               "found nothing useful.")
