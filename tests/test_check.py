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
