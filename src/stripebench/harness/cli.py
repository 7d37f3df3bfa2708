"""`stripebench run`, `tasks` and `mcp` (registered in stripebench/cli.py).

The harness does not import results: the report `run` prints at the end is written by
`write_reports`, which stripebench/cli.py sets to results.cli.write_reports.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

tasks_app = typer.Typer(no_args_is_help=True, help="List and check tasks.")
DEFAULT_TASKS = Path("tasks")
# Prints a run's report and writes report.md and report.html into it (set by the cli).
write_reports: Callable[[Path], None] | None = None
# A finished run's scores as `report --json` gives them (set by the cli).
run_summary: Callable[[Path], dict[str, Any]] | None = None


# The checkout's own tasks/ (an editable install: src/stripebench/harness/cli.py).
CHECKOUT_TASKS = Path(__file__).resolve().parents[3] / "tasks"


def tasks_root(root: Path | None) -> tuple[Path, str]:
    """Where tasks are looked for, and what chose it: --tasks-dir, then STRIPEBENCH_TASKS,
    then tasks/ in the current folder, then the checkout's tasks/ (from any folder)."""
    if root is not None:
        return root, "--tasks-dir"
    if os.environ.get("STRIPEBENCH_TASKS"):
        return Path(os.environ["STRIPEBENCH_TASKS"]), "STRIPEBENCH_TASKS"
    if any(DEFAULT_TASKS.glob("*/task.toml")) or not CHECKOUT_TASKS.is_dir():
        return DEFAULT_TASKS, "the current folder"
    return CHECKOUT_TASKS, "the stripebench checkout"


def _tasks_root(root: Path | None) -> Path:
    return tasks_root(root)[0]


def no_tasks(root: Path | None) -> str:
    where, why = tasks_root(root)
    return (f"no tasks found in {where.absolute()} (chosen by {why}); a task is a folder "
            f"with a task.toml: point --tasks-dir or STRIPEBENCH_TASKS at the folder that "
            f"holds them (the checkout's: {CHECKOUT_TASKS})")


def _fail(message: str) -> typer.Exit:
    typer.echo(f"stripebench: {message}", err=True)
    return typer.Exit(2)


def run_command(
    ctx: typer.Context,
    agent: str | None = typer.Option(None, help="oracle, noop, scripted, openai, anthropic, "
                                     "or an agent CLI (claude-code, codex, goose: one "
                                     "adapter each in harness/agents/clis/; default: a "
                                     "model when ANTHROPIC_API_KEY/OPENAI_API_KEY is set, "
                                     "else oracle)."),
    model: str | None = typer.Option(None, help="Model name for model-backed agents."),
    tasks: list[str] = typer.Option([], "--tasks", "-t", help="Task ids (default: all): "
                                    "--tasks a b, --tasks a,b or --tasks a --tasks b."),
    category: str | None = typer.Option(None, help="backend, full-stack or gym."),
    attempts: int = typer.Option(1, min=1, help="Trials per task (best-of-N in reports)."),
    parallel: int | None = typer.Option(None, min=1, help="Trials at once (default 1; "
                                        "with --executor ray: as many as the cluster "
                                        "has resources for)."),
    executor: str = typer.Option("local", help="local (threads in this process) or ray "
                                 "(each trial a Ray task; see docs/harness.md)."),
    ray_address: str | None = typer.Option(None, help="With --executor ray: the cluster to "
                                           "join (default: start one on this machine)."),
    out: Path | None = typer.Option(None, help="Run directory (default runs/<agent>-<time>)."),
    resume: bool = typer.Option(False, help="Finish the run in --out (kill -9 safe)."),
    retry_errors: bool = typer.Option(False, help="With --resume, redo errored trials."),
    tasks_dir: Path | None = typer.Option(None, help="Where tasks live (default tasks/)."),
    sandbox: str = typer.Option("auto", help="bwrap (the agent sees only its workdir), "
                                "local, or auto: bwrap where it works, else local."),
    allow_unsealed: bool = typer.Option(False, "--allow-unsealed", help="Run even where the "
                                        "trials cannot be sealed (a local sandbox isolates "
                                        "nothing: the scores are marked not comparable)."),
    script: Path | None = typer.Option(None, help="Tool calls for the scripted agent."),
    base_url: str | None = typer.Option(None, help="OpenAI-compatible base URL (vLLM, "
                                        "Ollama...)."),
    agent_timeout: float | None = typer.Option(None, help="Override each task's time limit."),
    max_turns: int | None = typer.Option(None, help="Override each task's turn limit."),
    context_budget: int = typer.Option(
        150_000, min=0, help="openai/anthropic agents: estimated input tokens per model "
        "call; past it the oldest tool outputs and screenshots are replaced by short "
        "placeholders (0: send the whole conversation)."),
    report: bool = typer.Option(True, help="Print the report at the end."),
    as_json: bool = typer.Option(False, "--json", help="Print the run's outcome as JSON on "
                                 "stdout (progress and report on stderr)."),
    label: str | None = typer.Option(None, help="Name of this arm of an experiment "
                                      "(reports and compare show it)."),
    system_prompt: Path | None = typer.Option(None, help="openai/anthropic agents: this "
                                              "file replaces the system prompt."),
    system_prompt_addendum: Path | None = typer.Option(
        None, help="openai/anthropic agents: this file is appended to the system prompt."),
    skills: Path | None = typer.Option(None, help="A directory copied into each trial's "
                                       "workdir as .skills/ and named in the prompt."),
    tools: str | None = typer.Option(None, help="The agent's tools: bash,view,submit (only "
                                     "those), -browser* (all but those); patterns allowed."),
    docs: Path | None = typer.Option(None, help="Guides (*.md) the docs search uses on top "
                                     "of the packaged ones (see --docs-mode)."),
    docs_mode: str = typer.Option("overlay", help="overlay: --docs guides replace same-named "
                                  "packaged ones and add new ones; replace: only --docs "
                                  "guides."),
) -> None:
    """Run an agent over tasks: every trial graded and recorded under --out.

    Exit codes: 0 every trial measured; 1 some trials ended in an error (listed; redo
    them with --resume --retry-errors) or the model endpoint failed; 2 a usage error."""
    # loaded when the command runs: `stripebench --help` stays quick
    from rich.console import Console

    # loaded when the command runs: `stripebench --help` stays quick
    from ..rundir import describe
    from . import provenance
    from .agents import BUILTIN, Agent, AgentError, default_agent_why, make_agent, preflight
    from .interventions import InterventionError, Interventions
    from .progress import RunProgress, summary
    from .prompt import system_prompt as arm_system_prompt
    from .runner import RunError, RunPlan, RunStopped, execute, pending
    from .task import TaskError, discover, select

    if ctx.args and not tasks:
        raise _fail(f"unexpected argument(s): {' '.join(ctx.args)}")
    if executor not in ("local", "ray"):
        raise _fail("--executor must be local or ray")
    if ray_address and executor != "ray":
        raise _fail("--ray-address needs --executor ray")
    tasks = [t for value in [*tasks, *ctx.args] for t in value.split(",") if t]
    if agent is None:
        agent, default_model, chosen_why = default_agent_why()
        model = model or default_model
        typer.echo(f"agent: {agent}, {chosen_why}", err=as_json)
    options: dict[str, object] = {"context_budget": context_budget} if agent in BUILTIN else {}
    try:
        arm = Interventions.from_options(label, system_prompt, system_prompt_addendum, skills,
                                         tools, docs, docs_mode)
    except InterventionError as exc:
        raise _fail(str(exc)) from None
    if arm.touches_system_prompt and agent not in BUILTIN:
        raise _fail(f"--system-prompt and --system-prompt-addendum apply to the "
                    f"{' and '.join(BUILTIN)} agents; {agent} has no system prompt of ours")
    agent_options = dict(options)
    if agent in BUILTIN and (arm.touches_system_prompt or arm.restricted_tools):
        agent_options["system_prompt"] = arm_system_prompt(arm)
    try:
        chosen = select(discover(_tasks_root(tasks_dir)), tasks or None, category)
        # fail fast on bad options
        make_agent(agent, model, script=script, base_url=base_url, options=agent_options)
    except (TaskError, AgentError) as exc:
        raise _fail(str(exc)) from None
    if not chosen:
        raise _fail(no_tasks(tasks_dir) if not (tasks or category) else
                    f"no {category} tasks in {_tasks_root(tasks_dir)}")
    out = out or Path("runs") / f"{agent}-{time.strftime('%Y%m%d-%H%M%S')}"
    if sandbox == "auto":
        # loaded when the command runs: `stripebench --help` stays quick
        from .sandbox import bwrap_available
        sandbox = "bwrap" if bwrap_available() else "local"
    if sandbox == "local" and not allow_unsealed:
        raise _fail("the trials would run unsealed (a local sandbox: the agent's code runs "
                    "on this machine beside the grader, and scores are not comparable); "
                    "install bubblewrap (scripts/setup.sh) or pass --allow-unsealed")
    if agent in BUILTIN and not resume_nothing_left(resume, out, chosen, attempts,
                                                   retry_errors):
        # one cheap request before the first trial: a dead endpoint or a refused key is
        # one line now, not minutes of retries in every trial
        verdict = preflight.check(agent, model, base_url)
        if not verdict.ok:
            typer.echo(f"stripebench run: {verdict.message}", err=True)
            raise typer.Exit(1)
        if verdict.message.startswith("note:"):
            typer.echo(f"stripebench run: {verdict.message}", err=True)
    run_options = {"attempts": attempts, "parallel": parallel or 1, "executor": executor,
                   "agent_timeout": agent_timeout, "max_turns": max_turns,
                   "base_url": base_url, **options}
    plan = RunPlan(out=out, tasks=chosen, agent_name=agent, model=model, attempts=attempts,
                   parallel=parallel or 1, sandbox=sandbox, resume=resume,
                   retry_errors=retry_errors, agent_timeout=agent_timeout,
                   max_turns=max_turns, extra=dict(options), interventions=arm,
                   provenance=provenance.collect(chosen, sandbox, run_options))
    console = Console(stderr=as_json)
    try:
        _, done = pending(plan) if resume else (None, 0)
    except Exception:  # noqa: BLE001 - progress only
        done = 0
    total = len(chosen) * attempts
    started = time.monotonic()
    console.print(f"[b]{agent}[/b]{' ' + model if model else ''}"
                  f"{f' ({label})' if label else ''}: {total} trial(s) of "
                  f"{len(chosen)} task(s) in {sandbox} sandboxes → {out}"
                  + (f" ({done} already done)" if done else ""))
    for name, what in describe({"interventions": arm.record()}).items():
        console.print(f"  {name}: {what}", markup=False)
    if arm.tools is not None and "submit" not in arm.tools:
        console.print("  note: without `submit` an agent ends only by stopping or at its "
                      "limits", markup=False)

    def new_agent() -> Agent:
        return make_agent(agent, model, script=script, base_url=base_url, options=agent_options)

    stopped: str | None = None
    with RunProgress(console, total, done) as progress:
        try:
            if executor == "ray":
                # loaded when the command runs: `stripebench --help` stays quick
                from .ray_executor import execute_ray
                execute_ray(plan, new_agent, on_result=progress.finished, address=ray_address,
                            max_in_flight=parallel)
            else:
                execute(plan, new_agent, on_result=progress.finished,
                        on_start=progress.started)
        except RunStopped as exc:
            stopped = str(exc)
        except RunError as exc:
            raise _fail(str(exc)) from None
    reports: list[Path] = []
    if report and write_reports is not None:
        if as_json:  # the tables go to stderr: stdout is the JSON
            with contextlib.redirect_stdout(sys.stderr):
                write_reports(out)
        else:
            write_reports(out)
        reports = [out / "report.md", out / "report.html"]
    lines, facts = summary(plan.out, started, sandbox, reports)
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    if stopped:
        console.print(f"stripebench run: {stopped}", markup=False, style="red")
    failed = bool(facts["failed"]) or stopped is not None
    if as_json:
        scores = run_summary(out) if run_summary is not None else {}
        typer.echo(json.dumps({**facts, "stopped": stopped, "exit_code": int(failed),
                               "scores": scores}, indent=2))
    if failed:  # some trials measured nothing: say so to scripts and make
        raise typer.Exit(1)


def resume_nothing_left(resume: bool, out: Path, chosen: list[Any], attempts: int,
                        retry_errors: bool) -> bool:
    """A resumed run with no trial left to do needs no model endpoint."""
    if not resume:
        return False
    # loaded when the command runs: `stripebench --help` stays quick
    from ..rundir import load_result, needs_retry, trial_dir
    for task in chosen:
        for attempt in range(1, attempts + 1):
            record = load_result(trial_dir(out, task.id, attempt))
            if record is None or (retry_errors and needs_retry(record)):
                return False
    return True


@tasks_app.command("list")
def tasks_list(tasks_dir: Path | None = typer.Option(None, help="Where tasks live (default: "
                                                     "$STRIPEBENCH_TASKS, ./tasks, else "
                                                     "the checkout's tasks/)."),
               as_json: bool = typer.Option(False, "--json", help="One JSON object: where "
                                            "the tasks are and each task.")) -> None:
    """Every task with its category and limits."""
    # loaded when the command runs: `stripebench --help` stays quick
    from .task import TaskError, discover

    where, why = tasks_root(tasks_dir)
    try:
        found = discover(where)
    except TaskError as exc:
        raise _fail(str(exc)) from None
    if not found:
        raise _fail(no_tasks(tasks_dir))
    if as_json:
        typer.echo(json.dumps({"tasks_dir": str(where.absolute()), "chosen_by": why, "tasks": [
            {"id": t.id, "category": t.category, "title": t.title,
             "agent_timeout": t.agent_timeout, "max_turns": t.max_turns,
             "path": str(t.path)} for t in found]}, indent=2))
        return
    for task in found:
        typer.echo(f"{task.id:32} {task.category:10} {int(task.agent_timeout):>5}s "
                   f"{task.max_turns:>4} turns  {task.title}")
    typer.echo(f"{len(found)} task(s) in {where} ({why})", err=True)


@tasks_app.command("check")
def tasks_check(
    ids: list[str] = typer.Argument(None, help="Task ids (default: all)."),
    tasks_dir: Path | None = typer.Option(None, help="Where tasks live."),
    out: Path | None = typer.Option(None, help="Keep the check runs here."),
    sandbox: str = typer.Option("auto", help="bwrap, local, or auto (as `run`: bwrap "
                                "where it works)."),
    variants: bool = typer.Option(False, "--variants", help="Also run every mutant (must "
                                  "lose exactly its checks) and alternative (must score "
                                  "1.0), one oracle trial each."),
    repeat: int = typer.Option(1, min=1, help="Run the oracle and each mutant this many "
                               "times; their subscores must be identical (make proof: 3)."),
    parallel: int = typer.Option(1, "--parallel", "-j", min=1,
                                 help="Variants of a task run at once."),
) -> None:
    """Validate tasks and their requirement tables, then prove each grader: oracle 1.0,
    noop 0.0 and, with --variants, every mutant and alternative (docs/tasks.md, "Proof")."""

    # loaded when the command runs: `stripebench --help` stays quick
    from .check import check_tasks
    from .task import TaskError, discover, select

    try:
        chosen = select(discover(_tasks_root(tasks_dir)), ids or None)
    except TaskError as exc:
        raise _fail(str(exc)) from None
    if sandbox == "auto":  # prove tasks the way `run` will run them
        # loaded when the command runs: `stripebench --help` stays quick
        from .sandbox import bwrap_available
        sandbox = "bwrap" if bwrap_available() else "local"
    base = out or Path(tempfile.mkdtemp(prefix="stripebench-check-"))
    failures = check_tasks(chosen, base, sandbox=sandbox, echo=typer.echo,
                           variants=variants, repeat=repeat, parallel=parallel)
    if failures:
        typer.echo(f"{len(failures)} task(s) failed the check: {', '.join(failures)}", err=True)
        raise typer.Exit(1)
    typer.echo(f"all {len(chosen)} task(s) pass (runs in {base})")


def mcp_command(
    config: Path | None = typer.Option(None, help="A trial's mcp.json (workdir, env, "
                                       "transcript)."),
    workdir: Path = typer.Option(Path("."), help="Working directory when no --config."),
    transport: str = typer.Option("stdio", help="stdio or http (streamable HTTP)."),
    host: str = typer.Option("127.0.0.1"),
    port: int = typer.Option(8765),
    emulator: str | None = typer.Option(None, envvar="STRIPEBENCH_EMULATOR",
                                        help="Without --config: an emulator's plain HTTP "
                                        "address; the browser reaches it as Stripe's hosts."),
    no_sandbox: bool = typer.Option(False, "--no-sandbox",
                                    help="Without --config: run the tools' commands directly "
                                    "on this machine instead of in a bubblewrap sandbox."),
    token: str | None = typer.Option(None, envvar="STRIPEBENCH_MCP_TOKEN",
                                     help="HTTP transport: the bearer token clients must "
                                     "send (default: a random one, printed at start)."),
) -> None:
    """Serve the agent tools (bash, files, browser, docs search, submit) over MCP."""
    # loaded when the command runs: `stripebench --help` stays quick
    from .sandbox import SandboxError
    from .tools.server import serve

    if transport not in ("stdio", "http"):
        raise _fail("transport must be stdio or http")
    try:
        serve(config=config, workdir=workdir, transport=transport, host=host, port=port,
              emulator=emulator, sandboxed=not no_sandbox, token=token)
    except SandboxError as exc:
        raise _fail(str(exc)) from None


def doctor_command(
    runs: Path = typer.Option(Path("runs"), help="Where runs will be written (its disk is "
                              "checked)."),
    as_json: bool = typer.Option(False, "--json", help="The checks as JSON."),
) -> None:
    """Check this machine for a run: bubblewrap and user namespaces, Chromium, PostgreSQL,
    Node, JDK, Go, disk space and the tasks' offline caches; say what is missing and what
    a run would do without it. Exit 1 when something is missing."""
    # loaded when the command runs: `stripebench --help` stays quick
    from .doctor import as_dicts, checks, lines

    found = checks(runs)
    if as_json:
        typer.echo(json.dumps({"ok": all(c.ok for c in found), "checks": as_dicts(found)},
                              indent=2))
    else:
        for line in lines(found):
            typer.echo(line)
    if not all(c.ok for c in found):
        raise typer.Exit(1)
