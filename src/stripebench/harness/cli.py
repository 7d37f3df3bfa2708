"""`stripebench run`, `tasks` and `mcp` (registered in stripebench/cli.py).

The harness does not import results: the report `run` prints at the end is written by
`write_reports`, which stripebench/cli.py sets to results.cli.write_reports.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import typer

tasks_app = typer.Typer(no_args_is_help=True, help="List and check tasks.")
DEFAULT_TASKS = Path("tasks")
# Prints a run's report and writes report.md and report.html into it (set by the cli).
write_reports: Callable[[Path], None] | None = None


def _tasks_root(root: Path | None) -> Path:
    return root or Path(os.environ.get("STRIPEBENCH_TASKS", DEFAULT_TASKS))


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
    """Run an agent over tasks: every trial graded and recorded under --out."""
    # loaded when the command runs: `stripebench --help` stays quick
    from rich.console import Console

    # loaded when the command runs: `stripebench --help` stays quick
    from ..rundir import SCORED, describe
    from .agents import BUILTIN, Agent, AgentError, default_agent, make_agent
    from .interventions import InterventionError, Interventions
    from .prompt import system_prompt as arm_system_prompt
    from .runner import RunError, RunPlan, execute, pending
    from .task import TaskError, discover, select

    if ctx.args and not tasks:
        raise _fail(f"unexpected argument(s): {' '.join(ctx.args)}")
    if executor not in ("local", "ray"):
        raise _fail("--executor must be local or ray")
    if ray_address and executor != "ray":
        raise _fail("--ray-address needs --executor ray")
    tasks = [t for value in [*tasks, *ctx.args] for t in value.split(",") if t]
    if agent is None:
        agent, default_model = default_agent()
        model = model or default_model
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
        raise _fail(f"no tasks found under {_tasks_root(tasks_dir)}")
    out = out or Path("runs") / f"{agent}-{time.strftime('%Y%m%d-%H%M%S')}"
    if sandbox == "auto":
        # loaded when the command runs: `stripebench --help` stays quick
        from .sandbox import bwrap_available
        sandbox = "bwrap" if bwrap_available() else "local"
    if sandbox == "local" and not allow_unsealed:
        raise _fail("the trials would run unsealed (a local sandbox: the agent's code runs "
                    "on this machine beside the grader, and scores are not comparable); "
                    "install bubblewrap (scripts/setup.sh) or pass --allow-unsealed")
    plan = RunPlan(out=out, tasks=chosen, agent_name=agent, model=model, attempts=attempts,
                   parallel=parallel or 1, sandbox=sandbox, resume=resume,
                   retry_errors=retry_errors, agent_timeout=agent_timeout,
                   max_turns=max_turns, extra=dict(options), interventions=arm)
    console = Console()
    try:
        todo, done = pending(plan) if resume else (None, 0)
    except Exception:  # noqa: BLE001 - progress only
        todo, done = None, 0
    total = len(chosen) * attempts
    console.print(f"[b]{agent}[/b]{' ' + model if model else ''}"
                  f"{f' ({label})' if label else ''}: {total} trial(s) of "
                  f"{len(chosen)} task(s) in {sandbox} sandboxes → {out}"
                  + (f" ({done} already done)" if done else ""))
    for name, what in describe({"interventions": arm.record()}).items():
        console.print(f"  {name}: {what}", markup=False)
    if arm.tools is not None and "submit" not in arm.tools:
        console.print("  note: without `submit` an agent ends only by stopping or at its "
                      "limits", markup=False)
    # loaded when the command runs: `stripebench --help` stays quick
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=console) as progress:
        bar = progress.add_task("trials", total=total, completed=done)

        def on_result(result: dict[str, object]) -> None:
            reward = result.get("reward")
            shown = "—" if reward is None else f"{float(reward):.2f}"  # type: ignore[arg-type]
            if reward is not None and result["status"] not in SCORED:
                shown += " (not scored)"  # e.g. graded after a timeout, for information
            progress.console.print(f"  {result['task']} #{result['attempt']}: "
                                   f"{result['status']} reward {shown} turns "
                                   f"{result['turns']} ({result['wall_seconds']}s)")
            progress.advance(bar)

        def new_agent() -> Agent:
            return make_agent(agent, model, script=script, base_url=base_url,
                              options=agent_options)

        try:
            if executor == "ray":
                # loaded when the command runs: `stripebench --help` stays quick
                from .ray_executor import execute_ray
                execute_ray(plan, new_agent, on_result=on_result, address=ray_address,
                            max_in_flight=parallel)
            else:
                execute(plan, new_agent, on_result=on_result)
        except RunError as exc:
            raise _fail(str(exc)) from None
    del todo
    if report and write_reports is not None:
        write_reports(out)
        console.print(f"Reports: {out}/report.md, {out}/report.html "
                      f"(side by side: stripebench report RUN...; paired, with a verdict: "
                      f"stripebench compare RUN_A RUN_B)")


@tasks_app.command("list")
def tasks_list(tasks_dir: Path | None = typer.Option(None, help="Where tasks live.")) -> None:
    """Every task with its category and limits."""
    # loaded when the command runs: `stripebench --help` stays quick
    from .task import TaskError, discover

    try:
        found = discover(_tasks_root(tasks_dir))
    except TaskError as exc:
        raise _fail(str(exc)) from None
    for task in found:
        typer.echo(f"{task.id:32} {task.category:10} {int(task.agent_timeout):>5}s "
                   f"{task.max_turns:>4} turns  {task.title}")
    if not found:
        typer.echo(f"no tasks under {_tasks_root(tasks_dir)}")


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
