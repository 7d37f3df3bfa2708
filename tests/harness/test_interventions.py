"""`stripebench run` interventions, one thing at a time: a label, a replaced or extended
system prompt, skills in the workdir, a subset of the tools (built-in loop, scripted agent,
external CLI through our MCP server), a patched documentation corpus; each recorded in
run.json, refused when malformed, and held fixed across --resume. Ends with two real runs
compared end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters

from paths import TESTS
from stripebench.harness.agents import make_agent
from stripebench.harness.agents.simple import ScriptedAgent
from stripebench.harness.emulator import Emulator
from stripebench.harness.interventions import (
    ALL_TOOLS,
    InterventionError,
    Interventions,
    parse_tools,
    system_text,
)
from stripebench.harness.runner import RunError, RunPlan, execute
from stripebench.harness.task import load_task

FIXTURES = TESTS / "fixtures"
SHOP = load_task(FIXTURES / "tasks" / "fixture-shop")
SOLVE = ('curl -sf "$STRIPE_API_BASE/v1/customers" -u "$STRIPE_SECRET_KEY:" '
         '-d email=ada@example.com -d "name=Ada Lovelace" | python3 -c '
         '\'import json,sys; print(json.load(sys.stdin)["id"], end="")\' > customer.txt')
PASS = [{"tool": "bash", "args": {"command": SOLVE}}, {"tool": "submit", "args": {}}]
NO_BROWSER = tuple(t for t in ALL_TOOLS if not t.startswith("browser_"))
RARE = "qwxzv plorbic frobnication"  # words no packaged document holds
CLI = [sys.executable, "-m", "stripebench.cli"]


@pytest.fixture(scope="module")
def emu(emulator: Any) -> Emulator:
    return Emulator(emulator.base)


def events(trial: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (trial / "transcript.jsonl").read_text().splitlines()]


def test_tool_subsets_are_parsed_strictly() -> None:
    assert parse_tools("bash,view,submit") == ("bash", "view", "submit")
    assert parse_tools("-browser*") == NO_BROWSER
    assert parse_tools("bash, browser_*, -browser_tabs")[:2] == ("bash", "browser_navigate")
    assert "browser_tabs" not in parse_tools("bash,browser_*,-browser_tabs")
    for bad, message in (("bash,brwoser_click", "no tool matches 'brwoser_click'"),
                         ("", "needs tool names"), ("-*", "leaves no tool")):
        with pytest.raises(InterventionError, match=message):
            parse_tools(bad)


def test_system_prompt_replaced_extended_and_told_about_missing_tools() -> None:
    default = "Default prompt.\n"
    assert system_text(default, Interventions()) == default
    assert system_text(default, Interventions(system_prompt="Mine.")) == "Mine."
    both = system_text(default, Interventions(addendum="Read the skills first.\n",
                                              tools=("bash", "submit")))
    assert both.startswith("Default prompt.\n\nIn this run you have only these tools: "
                           "`bash`, `submit`.")
    assert both.endswith("\n\nRead the skills first.\n")
    # every tool is no restriction: nothing added
    assert system_text(default, Interventions(tools=ALL_TOOLS)) == default


def test_tool_subset_refuses_the_others_in_a_trial(tmp_path: Path, emu: Emulator) -> None:
    """An agent calling a tool its arm does not have gets an error, not the tool."""
    steps = [{"tool": "browser_navigate", "args": {"url": "about:blank"}}, *PASS]
    (result,) = execute(RunPlan(out=tmp_path, tasks=[SHOP], agent_name="scripted", model=None,
                                interventions=Interventions(label="no-browser",
                                                            tools=NO_BROWSER)),
                        lambda: ScriptedAgent(steps), emulator=emu)
    assert result["reward"] == 1.0
    trial = tmp_path / "trials" / "fixture-shop" / "1"
    refused = next(e for e in events(trial) if e["type"] == "tool_result")
    assert refused["name"] == "browser_navigate" and refused["is_error"]
    assert refused["text"].startswith("Unknown tool 'browser_navigate'. Tools: bash, view")
    meta = json.loads((tmp_path / "run.json").read_text())
    assert meta["label"] == "no-browser" and meta["interventions"]["tools"] == list(NO_BROWSER)
    assert json.loads((trial / "mcp.json").read_text())["tools"] == list(NO_BROWSER)
    from stripebench.results import load_run, summarize
    from stripebench.results.html import page
    from stripebench.results.report import markdown

    summary = summarize(load_run(tmp_path))
    assert "## Interventions\n\n- no-browser: tools: without browser_*\n" in markdown([summary])
    assert "<li>no-browser: tools: without browser_*</li>" in page([summary])
    assert "| no-browser | fixture-shop |" in markdown([summary])  # the label names the run


def test_external_cli_sees_only_the_subset_through_mcp(tmp_path: Path, emu: Emulator) -> None:
    """The trial's mcp.json carries the subset: the MCP server lists only those tools
    and refuses the rest, for any CLI configured with it (the real Claude Code here,
    driven by a scripted model server)."""
    from test_mcp_server import _session_calls

    from scripted_models import ScriptedModelServer

    server = ScriptedModelServer([
        ("tool", "mcp__stripebench__bash", {"command": SOLVE}),
        ("tool", "mcp__stripebench__submit", {"summary": "done"}), ("text", "Done.", None)])
    try:
        (result,) = execute(
            RunPlan(out=tmp_path, tasks=[SHOP], agent_name="claude-code", model=None,
                    interventions=Interventions(tools=("bash", "view", "submit"))),
            lambda: make_agent("claude-code", None, base_url=server.url), emulator=emu)
    finally:
        server.stop()
    assert result["status"] == "completed" and result["reward"] == 1.0, result["error"]
    offered = [sorted(t["name"] for t in r["tools"]) for r in server.requests]
    assert offered and all(names == ["mcp__stripebench__bash", "mcp__stripebench__submit",
                                     "mcp__stripebench__view"] for names in offered)
    trial = tmp_path / "trials" / "fixture-shop" / "1"
    config = json.loads((trial / "mcp.json").read_text())
    config.pop("attach", None)  # the trial's sandbox is gone: the server makes its own
    (tmp_path / "again.json").write_text(json.dumps(config))
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "stripebench.cli", "mcp", "--config", str(tmp_path / "again.json")])
    names, (refused_again,) = anyio.run(_session_calls, params, [("browser_tabs", {})])
    assert names == ["bash", "view", "submit"] and refused_again.is_error


def test_skills_are_in_the_workdir_and_named_in_the_prompt(tmp_path: Path,
                                                           emu: Emulator) -> None:
    skills = tmp_path / "skills"
    (skills / "stripe").mkdir(parents=True)
    (skills / "customers.md").write_text("# Creating customers with curl\n\nUse -d.\n")
    (skills / "stripe" / "SKILL.md").write_text(
        "---\nname: stripe\ndescription: How to verify a Stripe integration\n---\nBody.\n")
    steps = [{"tool": "view", "args": {"path": ".skills/customers.md"}},
             {"tool": "bash", "args": {"command": "echo tampered > .skills/customers.md"}},
             *PASS]
    out = tmp_path / "run"
    (result,) = execute(RunPlan(out=out, tasks=[SHOP], agent_name="scripted", model=None,
                                interventions=Interventions.from_options(skills=skills)),
                        lambda: ScriptedAgent(steps), emulator=emu)
    assert result["reward"] == 1.0
    trial = out / "trials" / "fixture-shop" / "1"
    prompt = (trial / "prompt.md").read_text()
    assert "Skills: reference material" in prompt
    assert "- `.skills/customers.md`: Creating customers with curl" in prompt
    assert "- `.skills/stripe/SKILL.md`: How to verify a Stripe integration" in prompt
    viewed = [e for e in events(trial) if e["type"] == "tool_result"]
    assert "Use -d." in viewed[0]["text"] and not viewed[0]["is_error"]
    # the skills are the arm's, not the agent's work: not in the submission's changes
    assert result["submission"]["added"] == ["customer.txt"]
    meta = json.loads((out / "run.json").read_text())
    assert meta["interventions"]["skills"]["files"] == ["customers.md", "stripe/SKILL.md"]
    # the agent overwrote its copy (root ignores the read-only bits); the run's is intact
    assert (trial / "workdir" / ".skills" / "customers.md").read_text() == "tampered\n"
    assert (out / "interventions" / "skills" / "customers.md").read_text().startswith("# Cr")


def test_resume_must_ask_for_the_same_interventions(tmp_path: Path, emu: Emulator) -> None:
    arm = Interventions(label="a", tools=NO_BROWSER)
    plan = RunPlan(out=tmp_path, tasks=[SHOP], agent_name="noop", model=None, attempts=1,
                   interventions=arm)
    execute(plan, lambda: make_agent("noop"), emulator=emu)
    more = dict(out=tmp_path, tasks=[SHOP], agent_name="noop", model=None, attempts=2,
                resume=True)
    for other in (Interventions(label="a"), Interventions(label="b", tools=NO_BROWSER)):
        with pytest.raises(RunError, match="started with other interventions"):
            execute(RunPlan(**more, interventions=other),  # type: ignore[arg-type]
                    lambda: make_agent("noop"), emulator=emu)
    (second,) = execute(RunPlan(**more, interventions=Interventions(  # type: ignore[arg-type]
        label="a", tools=NO_BROWSER)), lambda: make_agent("noop"), emulator=emu)
    assert second["attempt"] == 2


def test_system_prompt_options_reach_the_model(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Through `stripebench run`: the request the model receives carries the addendum,
    the reduced tool list and a note saying so; run.json records the file's hash."""
    from test_harness_models import FakeModelServer

    fake = FakeModelServer([("tool", "bash", {"command": SOLVE}),
                            ("tool", "submit", {"summary": "done"})], rate_limit=False)
    addendum = tmp_path / "addendum.md"
    addendum.write_text("Always double-check the customer's email.\n")
    try:
        done = subprocess.run(CLI + [
            "run", "--agent", "openai", "--model", "gpt-5", "--base-url",
            f"http://127.0.0.1:{fake.port}/v1", "--tasks-dir", str(FIXTURES / "tasks"),
            "--tasks", "fixture-shop", "--out", str(tmp_path / "run"), "--no-report",
            "--system-prompt-addendum", str(addendum), "--tools", "-browser*",
            "--label", "careful"], capture_output=True, text=True, timeout=180,
            env={**__import__("os").environ, "OPENAI_API_KEY": "sk-fake"})
    finally:
        fake.stop()
    assert done.returncode == 0, done.stderr
    assert "openai gpt-5 (careful)" in done.stdout
    assert "  tools: without browser_*\n" in done.stdout
    assert "  system prompt addendum: addendum.md (" in done.stdout
    first = fake.requests[0]
    system = first["messages"][0]["content"]
    assert system.startswith("You are an expert software engineer")
    assert "In this run you have only these tools: `bash`" in system
    assert system.endswith("Always double-check the customer's email.\n")
    assert [t["function"]["name"] for t in first["tools"]] == list(NO_BROWSER)
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    record = meta["interventions"]["system_prompt_addendum"]
    assert record["file"] == str(addendum) and len(record["sha256"]) == 16
    result = json.loads((tmp_path / "run" / "trials" / "fixture-shop" / "1" /
                         "result.json").read_text())
    assert result["reward"] == 1.0


def test_bad_intervention_options_fail_loudly(tmp_path: Path) -> None:
    base = CLI + ["run", "--tasks-dir", str(FIXTURES / "tasks"), "--tasks", "fixture-shop",
                  "--no-report"]
    prompt = tmp_path / "p.md"
    prompt.write_text("x")
    (tmp_path / "empty").mkdir()
    for args, message in (
            (["--agent", "noop", "--system-prompt", str(prompt)],
             "--system-prompt and --system-prompt-addendum apply to the openai and anthropic"),
            (["--agent", "noop", "--tools", "bash,nope"], "no tool matches 'nope'"),
            (["--agent", "noop", "--skills", str(prompt)], "not a directory"),
            (["--agent", "noop", "--skills", str(tmp_path / "empty")], "holds no files"),
            (["--agent", "noop", "--docs", str(tmp_path / "empty")], "not a directory of guide"),
            (["--agent", "noop", "--docs", str(tmp_path), "--docs-mode", "merge"],
             "--docs-mode must be one of overlay, replace"),
            (["--agent", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9",
              "--system-prompt", str(tmp_path / "missing.md")], "--system-prompt")):
        done = subprocess.run(base + ["--out", str(tmp_path / "never")] + args,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "never").exists()


def test_docs_corpus_overlay_and_replace(tmp_path: Path) -> None:
    """--docs: a same-named guide replaces the packaged one, a new one is added (overlay),
    or only the given guides remain (replace); the API reference stays; the default index
    is untouched; the MCP server of an external agent searches the trial's corpus."""
    from test_mcp_server import _session_calls

    from stripebench.docs.index import DocsIndex, get_index
    from stripebench.harness.interventions import docs_index

    guides = tmp_path / "guides"
    guides.mkdir()
    (guides / "api.errors.md").write_text(f"# Errors, rewritten\n\nNow with {RARE}.\n")
    (guides / "testing.frobnication.md").write_text("# Frobnication\n\nSomething new.\n")
    overlay = DocsIndex(docs_index(guides, "overlay"))
    assert overlay.show("guide/api/errors") is not None
    assert RARE in overlay.show("guide/api/errors").text  # type: ignore[union-attr]
    assert overlay.search(RARE, 1)[0].doc_id == "guide/api/errors"
    assert overlay.show("guide/testing/frobnication") is not None
    assert overlay.show("guide/webhooks") is not None  # the other packaged guides stay
    only = DocsIndex(docs_index(guides, "replace"))
    assert sorted(i for i in only.ids() if i.startswith("guide/") and "#" not in i) == [
        "guide/api/errors", "guide/testing/frobnication"]
    assert any(i.startswith("api/checkout.sessions") for i in only.ids())
    assert not any(h.doc_id.startswith("guide/api/errors") for h in get_index().search(RARE))
    (tmp_path / "w").mkdir()
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"workdir": str(tmp_path / "w"), "docs_index": str(
        overlay.path), "transcript": str(tmp_path / "t.jsonl")}))
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "stripebench.cli", "mcp", "--config", str(config)])
    _, (found,) = anyio.run(_session_calls, params, [
        ("search_stripe_documentation", {"query": RARE, "limit": 1})])
    assert "doc id: guide/api/errors" in found.content[0].text


def _script(path: Path) -> Path:
    path.write_text(json.dumps([
        {"tool": "search_stripe_documentation", "args": {"query": RARE}},
        {"tool": "browser_navigate", "args": {"url": "about:blank"}}, *PASS]))
    return path


def test_two_real_arms_compared_end_to_end(tmp_path: Path) -> None:
    """Three `stripebench run`s of one scripted agent on the fixture task: the baseline,
    an arm without the browser, an arm whose docs gained a guide; then `compare`."""
    guides = tmp_path / "guides"
    guides.mkdir()
    (guides / "testing.frobnication.md").write_text(
        f"# Frobnication\n\nThe {RARE} of a test customer: create it with the API.\n")
    script = _script(tmp_path / "script.json")
    common = CLI + ["run", "--agent", "scripted", "--script", str(script), "--tasks-dir",
                    str(FIXTURES / "tasks"), "--tasks", "fixture-shop", "--attempts", "2",
                    "--no-report"]
    arms = {"baseline": [], "no-browser": ["--tools", "-browser*"],
            "new-guide": ["--docs", str(guides)]}
    for label, extra in arms.items():
        done = subprocess.run(common + ["--out", str(tmp_path / label), "--label", label,
                                        *extra], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    navigations = {label: [e for e in events(tmp_path / label / "trials" / "fixture-shop" /
                                             "1") if e["type"] == "tool_result"
                           and e["name"] == "browser_navigate"][0]["is_error"]
                   for label in arms}
    assert navigations == {"baseline": False, "no-browser": True, "new-guide": False}
    report = tmp_path / "compare.md"
    done = subprocess.run(CLI + ["compare", *(str(tmp_path / label) for label in arms),
                                 "--markdown", str(report), "--html",
                                 str(tmp_path / "compare.html")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    text = report.read_text()
    no_browser, new_guide = text.split("## new-guide vs baseline")
    assert "## no-browser vs baseline" in no_browser
    assert "changed: tools: default → without browser_*" in no_browser
    assert "mean score: no significant difference between baseline and no-browser" in no_browser
    assert "| mean score | 100.0% | 100.0% | 0.0 pts |" in no_browser
    assert "changed: docs: default → guides/ (overlay: testing.frobnication.md)" in new_guide
    # the rare words found nothing in the packaged docs and the new guide in B's
    assert f"unhelpful in A, helpful in B (1): `{RARE}`" in new_guide
    assert f"A's unhelpful queries searched in B's docs: now helpful (1): `{RARE}`" in new_guide
    assert "searched in B's docs" not in no_browser  # same corpus: nothing to replay
    assert f"unhelpful in both (1): `{RARE}`" in no_browser
    assert "<svg" in (tmp_path / "compare.html").read_text()


def test_oracle_against_noop_is_refused_with_too_few_attempts(tmp_path: Path) -> None:
    """A 100-point drop over two attempts of one task: real, but the exact test cannot
    reach 0.05 with two pairs, and the verdict says so instead of calling it."""
    common = CLI + ["run", "--tasks-dir", str(FIXTURES / "tasks"), "--tasks", "fixture-shop",
                    "--attempts", "2", "--no-report"]
    for agent in ("oracle", "noop"):
        done = subprocess.run(common + ["--agent", agent, "--out", str(tmp_path / agent)],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    done = subprocess.run(CLI + ["compare", str(tmp_path / "oracle"), str(tmp_path / "noop")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "B−A  -100.0 pts" in done.stdout
    assert "mean score: no significant difference between oracle and noop" in done.stdout
    assert "With 2 differing pair(s) the test cannot go below p = 0.5" in done.stdout
