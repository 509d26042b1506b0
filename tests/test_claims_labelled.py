"""The checker graded by hand labels, not by itself: bench/claims.jsonl's claims about ICLR 2026
papers (paraphrases, syntheses and near copies; minimal edits of numbers, ranges and hedges,
subjects, directions, negations, overclaims; another paper's facts; Chinese claims), each checked
against its own paper's abstract with the real models, as `paperchat check --paper` does.

The floors are what bench/check.py measured (bench/RESULTS.md, issue 14), a little below: this
test keeps the checker from getting worse; the figures themselves are the bench's."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from rag.config import Settings
from rag.records import Paper
from rag.seams import Seams
from rag.support import support
from tests.conftest import ICLR, ROOT

pytestmark = pytest.mark.integration

CLAIMS = ROOT / "bench" / "claims.jsonl"
# Measured (English, kept / caught): dev 0.967 / 0.914; held-out 0.915 / 0.829; batch 3 0.771 / 0.814;
# batch 4 0.817 / 0.683; batch 6 0.917 / 0.833; batch 8 0.867 / 0.800 (bench/RESULTS.md, issue 14).
FLOORS = {
    ("dev", "kept"): 0.95, ("dev", "caught"): 0.89, ("heldout", "kept"): 0.88, ("heldout", "caught"): 0.8,
    ("heldout3", "kept"): 0.74, ("heldout3", "caught"): 0.78, ("heldout4", "kept"): 0.78, ("heldout4", "caught"): 0.66,
    ("heldout6", "kept"): 0.88, ("heldout6", "caught"): 0.8, ("heldout8", "kept"): 0.83, ("heldout8", "caught"): 0.77,
}  # fmt: skip
# Kinds of edit the rules catch every time on the tuned part: a regression there is a bug.
ALWAYS_CAUGHT = ("number", "other_paper")


@pytest.fixture(scope="module")
def verdicts() -> list[tuple[dict[str, str], bool]]:
    if not ICLR.is_file():
        pytest.skip(f"{ICLR} is missing: the labelled claims are about its papers")
    claims = [json.loads(line) for line in CLAIMS.read_text(encoding="utf-8").splitlines() if line.strip()]
    wanted = {c["paper_id"] for c in claims}
    papers = {}
    for line in ICLR.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["id"] in wanted:
            papers[record["id"]] = Paper(record["id"], record["abstract"], record["title"], False)
    seams = Seams(Settings(_env_file=None))  # type: ignore[call-arg]
    from rag.multilingual import encode

    encoder = seams.multilingual
    assert encoder is not None, seams.multilingual_problem

    def multilingual(texts: list[str]) -> object:
        return encode(encoder, texts)

    return [(c, support(c["claim"], [papers[c["paper_id"]]], seams.vectors, seams.calibration, multilingual).ok) for c in claims]  # type: ignore[arg-type]


def test_the_set_is_what_the_issue_asks_for() -> None:
    claims = [json.loads(line) for line in CLAIMS.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(claims) >= 300
    assert sum(c["split"].startswith("heldout") for c in claims) >= len(claims) / 3
    assert 0.4 <= sum(c["label"] == "supported" for c in claims) / len(claims) <= 0.6
    assert all(c["reason"] and c["kind"] and c["lang"] in ("en", "zh") for c in claims)
    kinds = Counter(c["kind"] for c in claims if c["label"] == "unsupported")
    assert set(kinds) == {"number", "range_hedge", "subject", "direction", "negation", "overclaim", "other_paper"}
    assert any(c["lang"] == "zh" for c in claims)


@pytest.mark.parametrize(("split", "measure"), list(FLOORS))
def test_the_checker_keeps_true_claims_and_catches_edited_ones(verdicts: list[tuple[dict[str, str], bool]], split: str, measure: str) -> None:
    label = "supported" if measure == "kept" else "unsupported"
    rows = [(c, ok) for c, ok in verdicts if c["split"] == split and c["lang"] == "en" and c["label"] == label]
    right = sum(ok == (label == "supported") for _, ok in rows)
    wrong = [c["claim"] for c, ok in rows if ok != (label == "supported")]
    assert right / len(rows) >= FLOORS[(split, measure)], f"{right}/{len(rows)}; misjudged: {wrong[:5]}"


@pytest.mark.parametrize("kind", ALWAYS_CAUGHT)
def test_a_changed_number_and_another_papers_fact_are_always_caught(verdicts: list[tuple[dict[str, str], bool]], kind: str) -> None:
    """In English, on the tuned part. (Batch 4, written later, has two English number edits the
    rules pass: bench/RESULTS.md, issue 14. A Chinese count is caught only when the abstract holds neither its
    digit nor its English word anywhere: 9 of 10 Chinese number edits, bench/RESULTS.md issue 14.)"""
    missed = [c["claim"] for c, ok in verdicts if c["split"] == "dev" and c["kind"] == kind and c["label"] == "unsupported" and c["lang"] == "en" and ok]
    assert not missed
