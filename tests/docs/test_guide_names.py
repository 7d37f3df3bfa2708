"""Every backticked API name in the guides and docs/fidelity.md resolves (issue 28):
parameters, fields, enum values and object names against the pinned SDK's spec (the
schema the emulator is generated from), event types against its event list, error and
decline codes and test card ids against the emulator's own tables. A name of an older API
version is listed in the guide's `old_names` front matter and must exist in the old SDK
of that version; what is plainly not an API name is left alone by pattern or named in the
short allow-list of guide_names.py.
"""

from __future__ import annotations

import pytest
from guide_names import OLD_SDKS, candidates, old_names, resolves

from paths import REPO
from stripebench.docs import guide_check, guide_pages

DOCS = [guide_check.load(p) for p in guide_pages.guide_files()]
FIDELITY = REPO / "docs" / "fidelity.md"


def _unresolved(guide: guide_check.Guide) -> list[str]:
    old = guide.old_names()
    missing = []
    for _, span in guide_check.backticked(guide.body):
        for name in candidates(span):
            if name in old:
                continue
            if not resolves(name):
                missing.append(name)
    return sorted(set(missing))


@pytest.mark.parametrize("guide", DOCS, ids=lambda g: g.name)
def test_every_backticked_name_resolves(guide: guide_check.Guide) -> None:
    assert _unresolved(guide) == []


@pytest.mark.parametrize("guide", DOCS, ids=lambda g: g.name)
def test_old_names_exist_in_their_version(guide: guide_check.Guide) -> None:
    for name, version in guide.old_names().items():
        assert version in OLD_SDKS, f"{name}: no old SDK describes {version}"
        if not OLD_SDKS[version].exists():
            pytest.skip("the old SDKs are installed by scripts/setup.sh")
        for part in name.replace("[]", "").split("."):
            assert part in old_names(version), f"{name} is not in the {version} SDK"


def test_fidelity_names_resolve() -> None:
    fidelity = guide_check.load(FIDELITY)
    assert _unresolved(fidelity) == []


def test_every_guide_cites_its_stripe_pages() -> None:
    for guide in DOCS:
        sources = guide.front.get("sources") or []
        assert sources, f"{guide.name}: no sources in its front matter"
        for url in sources:
            assert url.startswith("https://docs.stripe.com/"), f"{guide.name}: {url}"


def test_markup_for_checks_is_hidden_from_agents() -> None:
    for section in guide_pages.guide_sections():
        assert "snippet:" not in section.text and "old_names" not in section.text, \
            section.doc_id
        assert not section.text.startswith("---"), section.doc_id


def test_corpus_hash_follows_the_guides() -> None:
    first = guide_pages.corpus_hash()
    assert first == guide_pages.corpus_hash() and len(first) == 64


def test_a_run_records_the_guide_corpus() -> None:
    """What a run records of itself (run.json's provenance) names this guide corpus."""
    from stripebench.harness.provenance import collect

    assert collect([], "bwrap", {})["docs_guides_sha256"] == guide_pages.corpus_hash()
