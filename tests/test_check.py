"""The check mode (rag/check.py): `paperchat check`, the app's /check and "Is it true that ...?" in
the chat, on the seeds with the fake embedder (the checker's accuracy is graded by labels in
tests/test_claims_labelled.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rag import cli
from rag.api import Paperchat
from rag.check import claim_of
from rag.errors import PaperchatError
from rag.routing import Mode, route
from tests.conftest import write_jsonl

runner = CliRunner()
# The seeds' SureLock abstract says: "On LLaDA-8B, SureLock reduces algorithmic FLOPs by 30--50\% relative to
# the same sampler without locking, while maintaining comparable generation quality."
TRUE = "On LLaDA-8B, SureLock reduces algorithmic FLOPs by 30--50% relative to the same sampler without locking"
NARROWED = "On LLaDA-8B, SureLock reduces algorithmic FLOPs by 30% relative to the same sampler without locking"
OFF_TOPIC = "Gaussian splatting renders black holes in real time"


def surelock(api: Paperchat) -> str:
    return next(p.paper_id for p in api.papers() if "SureLock" in p.abstract and "LLaDA-8B" in p.abstract)


@pytest.mark.parametrize(
    ("asked", "claim"),
    [
        ("Is it true that SureLock cuts FLOPs by 60-80%?", "SureLock cuts FLOPs by 60-80%"),
        ("Fact-check: ReST-KV reduces latency 10x.", "ReST-KV reduces latency 10x."),
        ("SureLock reduces FLOPs by 30%, right?", "SureLock reduces FLOPs by 30%"),
        ("SureLock 把 FLOPs 减少了 60–80%，这是真的吗？", "SureLock 把 FLOPs 减少了 60–80%"),
        ("请核实：FastVGGT 需要训练", "FastVGGT 需要训练"),
    ],
)
def test_a_request_to_check_is_routed_to_check_and_its_claim_taken_out(asked: str, claim: str) -> None:
    assert route(asked) is Mode.CHECK
    assert claim_of(asked) == claim


@pytest.mark.parametrize("question", ["What does SureLock do?", "Check the FlashWorld paper's link.", "Which papers use LoRA?"])
def test_questions_are_not_checks(question: str) -> None:
    assert route(question) is not Mode.CHECK


def test_a_true_claim_is_supported_and_a_narrowed_range_is_not(seeded: Paperchat) -> None:
    paper = surelock(seeded)
    supported = seeded.check(TRUE, paper)
    assert supported.verdict == "supported" and supported.papers[0].paper_id == paper and supported.papers[0].evidence
    narrowed = seeded.check(NARROWED, paper)
    assert narrowed.verdict == "unsupported"
    assert any("30–50" in reason for reason in narrowed.reasons), narrowed.reasons


def test_without_a_paper_the_papers_that_bear_on_the_claim_are_checked(seeded: Paperchat) -> None:
    checked = seeded.check(f"Is it true that {NARROWED}?")
    assert checked.claim == NARROWED and checked.verdict == "unsupported"
    assert checked.papers[0].paper_id == surelock(seeded)
    assert seeded.check(OFF_TOPIC).verdict == "no_evidence"


def test_an_unknown_paper_or_an_empty_claim_is_refused_with_what_to_do(seeded: Paperchat) -> None:
    with pytest.raises(PaperchatError, match="paperchat papers"):
        seeded.check(TRUE, "no-such-id")
    with pytest.raises(PaperchatError, match="claim to check"):
        seeded.check("Is it true that?")


def test_in_the_chat_a_check_answers_with_the_verdict_over_cited_abstract_sentences(seeded: Paperchat) -> None:
    answer = seeded.ask(f"Is it true that {NARROWED}?")
    assert answer.mode is Mode.CHECK and answer.check is not None and answer.check.verdict == "unsupported"
    heading, _, evidence = answer.text.partition("\n\n")
    assert heading.endswith(":") and "[1]" in evidence
    assert any("30–50" in note for note in answer.notes)
    assert answer.to_json()["check"]["verdict"] == "unsupported"  # type: ignore[index]


def test_the_cli_checks_one_claim_or_a_batch_in_order(seeded: Paperchat, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(cli, "_api", lambda: seeded)
    paper = surelock(seeded)
    result = runner.invoke(cli.app, ["check", NARROWED, "--paper", paper, "--json"])
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert set(document) == {"claim", "verdict", "papers", "reasons"} and document["verdict"] == "unsupported"
    assert set(document["papers"][0]) == {"paper_id", "title", "evidence", "support", "supported"}
    batch = write_jsonl(tmp_path / "claims.jsonl", [{"claim": TRUE, "paper_id": paper}, {"claim": TRUE, "paper_id": "nope"}, {"claim": OFF_TOPIC}])
    result = runner.invoke(cli.app, ["check", "--claims", str(batch), "--json"])
    rows = json.loads(result.stdout)
    assert [r.get("verdict") for r in rows] == ["supported", None, "no_evidence"]
    assert "paperchat papers" in rows[1]["error"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"q": "not a claim"}\n', encoding="utf-8")
    result = runner.invoke(cli.app, ["check", "--claims", str(bad), "--json"])
    assert result.exit_code == 1 and '"claim"' in json.loads(result.stdout)["error"]


def test_a_chinese_claims_count_in_chinese_words_must_match_the_abstract() -> None:
    """A count written in Chinese ("七种", "两个") is compared with the abstract's digits and English
    number words; the encoders are fakes that find every sentence the same, so only the count decides."""
    import numpy as np

    from rag.calibration import MINILM
    from rag.records import Paper
    from rag.support import support

    def same(texts: list[str]) -> np.ndarray:
        return np.full((len(texts), 4), 0.5, dtype=np.float32)

    paper = Paper("p", "EditForge is an automated pipeline spanning four edit types. It balances 3 competing objectives.", "EditForge", False)
    assert support("EditForge 是一个涵盖四种编辑类型的自动化流程。", [paper], same, MINILM, same).ok
    assert support("EditForge 需要平衡三个相互竞争的目标。", [paper], same, MINILM, same).ok
    wrong = support("EditForge 是一个涵盖七种编辑类型的自动化流程。", [paper], same, MINILM, same)
    assert not wrong.ok and "七" in wrong.missing
    assert "两" in support("EditForge 需要平衡两个相互竞争的目标。", [paper], same, MINILM, same).missing


def test_a_complexity_bound_is_compared_whole() -> None:
    """"Θ(n²)" is not stated by an abstract that gives the method Θ(n log n) and prior work Ω(n^2),
    though it holds every digit; the bound it does state passes."""
    import numpy as np

    from rag.calibration import MINILM
    from rag.records import Paper
    from rag.support import support

    def same(texts: list[str]) -> np.ndarray:
        return np.full((len(texts), 4), 0.5, dtype=np.float32)

    abstract = "Prior kernels compare all pairs, costing $\\Omega(n^2)$. The Merge Kernel gives a compact $\\Theta(n \\log n)$ representation."
    paper = Paper("p", abstract, "Merge", False)
    assert "Θ(n2)" in support("The Merge Kernel gives a compact Θ(n²) representation.", [paper], same, MINILM, same).missing
    assert not support("The Merge Kernel gives a compact Θ(n log n) representation.", [paper], same, MINILM, same).missing
    greek = Paper("q", "Manifold information is $\\Theta(\\sigma^{-2})$ stronger, and $O(\\sqrt{n})$ memory suffices.", "Noise", False)
    assert not support("Manifold information is Θ(σ^-2) stronger, and O(√n) memory suffices.", [greek], same, MINILM, same).missing
