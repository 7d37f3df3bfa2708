"""The proof framework (stripebench.harness.proof): the requirement table validated
against the instruction and the oracle's reward, variants built from the reference, the
verdicts on crafted rewards, and real variant trials of the fixture shop."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paths import TESTS
from stripebench.cli import app
from stripebench.harness.agents.simple import OracleAgent
from stripebench.harness.emulator import Emulator
from stripebench.harness.proof import (
    build_solution,
    judge,
    load_requirements,
    load_variants,
    validate_requirements,
    validate_variants,
)
from stripebench.harness.proof.markdown import strip_markdown
from stripebench.harness.proof.prove import (
    prove_task,
    prove_variant,
    static_proof,
    variant_labels,
)
from stripebench.harness.proof.runs import run_variants
from stripebench.harness.proof.variants import Variant
from stripebench.harness.proof.verdicts import same_scores
from stripebench.harness.task import load_task
from stripebench.harness.trial import TrialConfig, run_trial

SHOP_DIR = TESTS / "fixtures" / "tasks" / "fixture-shop"
SUBSCORES = ["gate:stripe_untouched", "customer_created", "customer_file",
             "app_reports_customer"]


@pytest.fixture()
def shop(tmp_path: Path) -> Path:
    """A copy of the fixture shop to break."""
    target = tmp_path / "fixture-shop"
    shutil.copytree(SHOP_DIR, target)
    return target


def problems_of(task_dir: Path, subscores: list[str] | None = SUBSCORES) -> list[str]:
    return validate_requirements(load_requirements(task_dir),
                                 (task_dir / "instruction.md").read_text(), subscores)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


def test_markdown_is_stripped_to_the_words_a_reader_sees() -> None:
    source = ("# Title\n\n1. Register a **webhook endpoint** for `<SHOP_URL>/webhook`.\n"
              "- see [the docs](https://x.test/y) and _this_ `snake_case_name`\n"
              "> quoted\n\n| a | b |\n|---|---|\n| c | d |\n\n```\ncode  line\n```\n")
    assert strip_markdown(source) == (
        "Title Register a webhook endpoint for <SHOP_URL>/webhook. see the docs and this "
        "snake_case_name quoted a b c d code line")


def test_the_fixture_table_is_valid() -> None:
    assert problems_of(SHOP_DIR) == []
    table = load_requirements(SHOP_DIR)
    assert validate_variants(table, load_variants(SHOP_DIR)) == []


def test_a_misquoted_sentence_is_caught(shop: Path) -> None:
    edit(shop / "tests" / "requirements.toml", "the name `Ada Lovelace`", "the name Ada")
    found = problems_of(shop)
    assert any("requirement create-customer: text is not in instruction.md" in p
               for p in found), found
    # and the words it no longer quotes are left uncovered
    assert any("words no requirement or context covers" in p and "Lovelace" in p
               for p in found), found


def test_an_uncovered_sentence_is_caught(shop: Path) -> None:
    edit(shop / "instruction.md", "Do not change the existing products or coupons.",
         "Do not change the existing products or coupons. Keep the prices as they are.")
    assert problems_of(shop) == ["instruction.md words no requirement or context covers: "
                                 "'Keep the prices as they are.'"]


def test_a_requirement_may_quote_several_passages(shop: Path) -> None:
    edit(shop / "tests" / "requirements.toml",
         'text = "Do not change the existing products or coupons."',
         'text = ["Do not change the existing products", "or coupons."]')
    assert problems_of(shop) == []
    edit(shop / "tests" / "requirements.toml", '"or coupons."', '"or prices."')
    assert problems_of(shop) == [
        "requirement catalog-untouched: text is not in instruction.md (after stripping "
        "Markdown): 'or prices.'",
        "instruction.md words no requirement or context covers: 'or coupons.'"]


def test_an_unknown_check_is_caught(shop: Path) -> None:
    edit(shop / "tests" / "requirements.toml", '"app_reports_customer"]',
         '"app_reports_customer", "customer_emailed"]')
    assert problems_of(shop) == ["requirement record-customer-id: check 'customer_emailed' "
                                 "is not a subscore of the oracle's reward"]


def test_an_unmapped_subscore_is_caught(shop: Path) -> None:
    assert problems_of(shop, [*SUBSCORES, "customer_metadata"]) == [
        "subscore 'customer_metadata' of the oracle's reward belongs to no requirement"]


def test_a_check_claimed_twice_and_malformed_entries_are_caught(shop: Path) -> None:
    with (shop / "tests" / "requirements.toml").open("a") as handle:
        handle.write('\n[[requirement]]\nid = "Twice"\ntext = "Do not change"\n'
                     'checks = ["customer_file"]\n\n[[context]]\ntext = "x"\n')
    found = problems_of(shop)
    assert "check 'customer_file' belongs to more than one requirement" in found
    assert "requirement 4 (Twice): id must be kebab-case" in found
    assert any("requirement 4 (Twice): `weights`" in p for p in found), found
    assert "context 2: needs a text and a why" in found


def test_manifests_are_validated(shop: Path) -> None:
    mutants = shop / "solution" / "mutants"
    edit(mutants / "wrong-name" / "mutant.toml", '"customer_created"', '"customer_file"')
    shutil.rmtree(mutants / "deletes-coupon")
    shutil.rmtree(shop / "solution" / "alternatives" / "urllib")
    (mutants / "bare").mkdir()
    found = validate_variants(load_requirements(shop), load_variants(shop))
    assert found == ["mutants/bare: no mutant.toml",
                     "mutant/wrong-name: loses 'customer_file', which is not a check of "
                     "requirement create-customer",
                     "requirement catalog-untouched has no mutant",
                     "1 alternative(s): a task needs at least two"]


def test_a_variant_is_the_reference_less_delete_plus_overlay(tmp_path: Path) -> None:
    variants = {v.name: v for v in load_variants(SHOP_DIR)}
    built = build_solution(variants["python-sdk"], SHOP_DIR / "solution", tmp_path / "a")
    assert sorted(p.name for p in built.iterdir()) == ["create_customer.py", "solve.sh"]
    assert "create_customer.py" in (built / "solve.sh").read_text()
    mutant = build_solution(variants["deletes-coupon"], SHOP_DIR / "solution", tmp_path / "b")
    assert sorted(p.name for p in mutant.iterdir()) == ["cleanup.sh", "solve.sh"]
    missing = Variant("mutant", "gone", variants["wrong-name"].path, "x", delete=("nope",))
    with pytest.raises(ValueError, match="delete 'nope': no such file"):
        build_solution(missing, SHOP_DIR / "solution", tmp_path / "c")


MUTANT = Variant("mutant", "m", Path("."), "why", requirement="r",
                 loses=("customer_file", "app_reports_customer"))
ALTERNATIVE = Variant("alternative", "a", Path("."), "why")


@pytest.mark.parametrize(("reward", "subscores", "ok", "message"), [
    (0.5, {"customer_created": 1, "customer_file": 0, "app_reports_customer": 0}, True,
     "0.500, loses customer_file 0.00, app_reports_customer 0.00"),
    (0.9, {"customer_created": 1, "customer_file": 0.8, "app_reports_customer": 0.5}, True,
     "0.900, loses customer_file 0.80, app_reports_customer 0.50"),  # a fraction counts
    (1.0, {"customer_created": 1, "customer_file": 1, "app_reports_customer": 1}, False,
     "1.000: scores 1.0; keeps full marks on customer_file, app_reports_customer"),
    (0.75, {"customer_created": 1, "customer_file": 0, "app_reports_customer": 1}, False,
     "0.750: keeps full marks on app_reports_customer"),
    (0.25, {"customer_created": 0.5, "customer_file": 0, "app_reports_customer": 0}, False,
     "0.250: also loses customer_created 0.50"),
    (0.0, {"customer_file": 0}, False,  # a grader that stopped early: the rest is lost
     "0.000: also loses customer_created 0.00"),
])
def test_mutant_verdicts(reward: float, subscores: dict[str, float], ok: bool,
                         message: str) -> None:
    verdict = judge(MUTANT, reward, subscores, "completed",
                    checks=["customer_created", "customer_file", "app_reports_customer"])
    assert (verdict.ok, verdict.message) == (ok, message)


def test_a_grader_may_stop_at_the_gate_a_mutant_breaks() -> None:
    gate = Variant("mutant", "g", Path("."), "why", requirement="r",
                   loses=("gate:stack_kept",))
    checks = ["gate:stack_kept", "a", "b"]
    assert judge(gate, 0.0, {"gate:stack_kept": 0.0}, checks=checks).ok
    ran = judge(gate, 0.0, {"gate:stack_kept": 0.0, "a": 0.5}, checks=checks)
    assert (ran.ok, ran.message) == (False, "0.000: also loses a 0.50")
    # another mutant's missing checks still count 0
    assert not judge(MUTANT, 0.5, {"customer_file": 0, "app_reports_customer": 0},
                     checks=["customer_created", "customer_file", "app_reports_customer"]).ok


def test_alternative_and_failed_trial_verdicts() -> None:
    assert judge(ALTERNATIVE, 1.0, {"a": 1.0, "b": 1.0}).ok
    low = judge(ALTERNATIVE, 0.95, {"a": 1.0, "b": 0.9})
    assert (low.ok, low.message) == (False, "scores 0.950, below 1.0: b 0.90")
    assert not judge(ALTERNATIVE, 1.0, {"a": 1.0}, checks=["a", "b"]).ok  # b left out
    errored = judge(MUTANT, None, {}, "grader_error")
    assert (errored.ok, errored.message) == (False, "trial grader_error, no score")
    assert same_scores([(0.5, {"a": 1.0}), (0.5, {"a": 1.0})]) == ""
    assert same_scores([(0.5, {"a": 1.0}), (0.4, {"a": 0.8})]) == \
        "run 2 differs from run 1 (total 0.5 vs 0.4; a)"


@pytest.fixture(scope="module")
def harness(server: Emulator) -> Emulator:
    return server


def test_the_oracle_never_carries_variants_into_the_workdir(shop: Path, tmp_path: Path,
                                                            harness: Emulator) -> None:
    edit(shop / "solution" / "solve.sh", "set -euo pipefail\n",
         "set -euo pipefail\nfind .stripebench/solution | sort > listing.txt\n")
    record = run_trial(load_task(shop), 1, tmp_path / "trial", OracleAgent(), harness,
                       TrialConfig("proof", "oracle", None))
    assert record["reward"] == 1.0, record["error"]
    listing = (tmp_path / "trial" / "workdir" / "listing.txt").read_text().split()
    assert listing == [".stripebench/solution", ".stripebench/solution/solve.sh"]


def test_real_variants_get_their_verdicts(tmp_path: Path, harness: Emulator) -> None:
    """One mutant and one alternative of the fixture shop, each one oracle trial."""
    task = load_task(SHOP_DIR)
    chosen = [v for v in load_variants(SHOP_DIR) if v.name in ("id-with-label", "python-sdk")]
    runs = run_variants(task, chosen, tmp_path, harness, "local")
    mutant = runs["mutant/id-with-label"].first
    assert mutant["status"] == "completed"
    assert mutant["subscores"] == {"gate:stripe_untouched": 1.0, "customer_created": 1.0,
                                   "customer_file": 0.0, "app_reports_customer": 0.0}
    assert judge(chosen[0], mutant["reward"], mutant["subscores"]).ok
    alternative = runs["alternative/python-sdk"].first
    assert (alternative["status"], alternative["reward"]) == ("completed", 1.0)
    # the solution each trial ran was the variant's own folder, overlay and all
    assert (tmp_path / "alternative" / "python-sdk" / "solution" / "create_customer.py"
            ).is_file()


def test_prove_variant_is_what_task_modules_parametrize(tmp_path: Path,
                                                        harness: Emulator) -> None:
    labels = variant_labels(SHOP_DIR)
    assert labels == ["mutant/deletes-coupon", "mutant/id-with-label", "mutant/wrong-name",
                      "alternative/python-sdk", "alternative/urllib"]
    verdict = prove_variant(load_task(SHOP_DIR), "mutant/deletes-coupon", tmp_path, harness)
    assert (verdict.ok, verdict.message) == (True, "0.000, loses gate:stripe_untouched 0.00")


def test_a_task_whose_mutant_scores_full_marks_fails_the_check(shop: Path, tmp_path: Path,
                                                               harness: Emulator) -> None:
    """A 'mutant' that is really the reference: the grader cannot tell, the proof fails
    with the reason; the table names it."""
    mutant = shop / "solution" / "mutants" / "wrong-name"
    (mutant / "solve.sh").write_bytes((shop / "solution" / "solve.sh").read_bytes())
    for other in ("id-with-label", "deletes-coupon"):  # one trial is enough here
        shutil.rmtree(shop / "solution" / "mutants" / other)
    for other in ("python-sdk", "urllib"):
        shutil.rmtree(shop / "solution" / "alternatives" / other)
    proof = prove_task(load_task(shop), tmp_path / "out", harness, variants=True)
    assert not proof.ok
    verdict = proof.verdicts["mutant/wrong-name"]
    assert (verdict.ok, verdict.message) == (
        False, "1.000: scores 1.0; keeps full marks on customer_created")
    assert "requirement record-customer-id has no mutant" in proof.problems


def test_tasks_check_prints_the_table_and_fails_on_a_problem(shop: Path,
                                                             tmp_path: Path) -> None:
    edit(shop / "instruction.md", "Do not change", "Please do not change")
    assert static_proof(load_task(shop)).problems == [
        "requirement catalog-untouched: text is not in instruction.md (after stripping "
        "Markdown): 'Do not change the existing products or coupons.'",
        "instruction.md words no requirement or context covers: 'Please do not change the "
        "existing products or coupons.'"]
    result = CliRunner().invoke(app, ["tasks", "check", "--tasks-dir", str(shop.parent),
                                      "--sandbox", "local", "--out", str(tmp_path / "o")])
    assert result.exit_code == 1, result.output
    assert "create-customer\n    checks: customer_created (2)" in result.output
    assert "mutant wrong-name: not run (--variants)" in result.output
    assert "problem: instruction.md words no requirement or context covers: 'Please do" \
        in result.output
    assert "FAIL fixture-shop: oracle 1.0, noop 0.0" in result.output
