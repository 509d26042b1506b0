"""The one draft → verify loop every mode runs (rag/verify.py): its stop rules, and what it
guards. The checker's own rules are tested through answers in tests/test_answer.py."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from rag import prompts
from rag.evidence import SentenceVectors
from rag.records import Paper, Source
from rag.verify import MAX_DROPS_IN_A_ROW, Draft, Verifier, draft_messages, translation
from tests.fakes import HashingEmbeddings, ScriptedChat
from tests.test_answer import RESTKV_SENTENCE, SURELOCK_FLOPS, ask, corpus  # noqa: F401 - corpus is a fixture

ABSTRACT = (
    "We propose SureLock, a sampler for masked diffusion language models. "
    "SureLock locks positions whose posterior has converged. "
    "On LLaDA-8B, SureLock reduces algorithmic FLOPs by 30% relative to the same sampler. "
    "It keeps generation quality on GSM8K and HumanEval."
)
TRUE = [
    "SureLock locks positions whose posterior has converged [1].",
    "On LLaDA-8B, SureLock reduces algorithmic FLOPs by 30% relative to the same sampler [1].",
    "It keeps generation quality on GSM8K and HumanEval [1].",
]
UNTRUE = "SureLock reduces the FLOPs of every sampler by 95% on ImageNet [1]."


def draft(*responses: str, fail: bool = False, max_sentences: int = 3, verifier: Verifier | None = None) -> Draft:
    sources = [Source(1, Paper("p1", ABSTRACT, "SureLock: converged positions locked", True), 1.0, (ABSTRACT,))]
    verifier = verifier or Verifier(sources, SentenceVectors(HashingEmbeddings()), "What does SureLock do?")
    chat = ScriptedChat(responses=list(responses), fail=fail)
    return Draft(chat, draft_messages("What does SureLock do?", sources, max_sentences), verifier, max_sentences)


def test_the_loop_yields_checked_sentences_up_to_the_limit() -> None:
    run = draft(" ".join(TRUE), max_sentences=2)
    assert list(run) == run.kept and len(run.kept) == 2 and run.failure is None


def test_the_loop_stops_after_drops_in_a_row() -> None:
    # The true sentence after the run of drops is never read: the model was lost.
    run = draft(" ".join([UNTRUE] * MAX_DROPS_IN_A_ROW + [TRUE[0]]))
    assert list(run) == [] and len(run.verifier.dropped) == MAX_DROPS_IN_A_ROW and run.failure is None


def test_a_failing_backend_is_reported_and_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    run = draft("unused", fail=True)
    with caplog.at_level(logging.WARNING, logger="rag.verify"):
        assert list(run) == []
    assert run.failure and run.failure.startswith("ConnectionError") and "LLM backend failed" in caplog.text


class BrokenVerifier(Verifier):
    def check(self, sentence: str) -> str | None:
        raise ZeroDivisionError("a bug in the checker")


def test_a_bug_in_the_checker_is_not_taken_for_a_backend_failure() -> None:
    run = draft(TRUE[0], verifier=BrokenVerifier([], SentenceVectors(HashingEmbeddings())))
    with pytest.raises(ZeroDivisionError):
        list(run)


def test_no_chat_model_drafts_nothing() -> None:
    run = Draft(None, [], Verifier([], SentenceVectors(HashingEmbeddings())), 3)
    assert list(run) == [] and run.failure is None


def test_a_translation_must_keep_citations_numbers_and_names(caplog: pytest.LogCaptureFixture) -> None:
    text = "SureLock reduces FLOPs by 30% [1]."
    assert translation(ScriptedChat(responses=["SureLock 将 FLOPs 减少了 30% [1]。"]), text) == "SureLock 将 FLOPs 减少了 30% [1]。"
    assert translation(ScriptedChat(responses=["SureLock 将 FLOPs 减少了 50% [1]。"]), text) is None
    with caplog.at_level(logging.WARNING, logger="rag.verify"):
        assert translation(ScriptedChat(responses=["x"], fail=True), text) is None
    assert "translating" in caplog.text


def test_every_mode_says_when_the_backend_failed(corpus: Path) -> None:  # noqa: F811
    _, compared = ask(corpus, "Compare SureLock and ReST-KV", fail=True)
    assert compared.mode == "compare" and any(prompts.COMPARE_INSTEAD in note for note in compared.notes)
    # The overview paragraph is drafted only by a capable backend; failing, the summary says so.
    _, summary = ask(corpus, "Summarise the papers on KV cache eviction", fail=True, capable=True)
    assert summary.mode == "summarize" and not summary.abstained
    assert any(prompts.SUMMARY_INSTEAD in note for note in summary.notes)
    _, answer = ask(corpus, "What does SureLock do?", SURELOCK_FLOPS + " [1].", capable=True)
    assert not answer.notes


def test_a_backend_that_fails_half_way_keeps_what_was_checked_and_says_so(corpus: Path) -> None:  # noqa: F811
    draft = f"{SURELOCK_FLOPS} [1]. SureLock locks positions whose posterior has converged [1]. Trailing words [1]."
    _, answer = ask(corpus, "What does SureLock do?", draft, cut_off=True)
    assert "[1]" in answer.text
    assert any(prompts.PARTIAL_INSTEAD in note for note in answer.notes)
    # A summary's overview paragraph is all or nothing: half of one would read as the whole.
    request = "Summarise the papers on KV cache eviction"
    overview = f"{RESTKV_SENTENCE} [1]. Trailing words [1]."
    _, whole = ask(corpus, request, overview, capable=True)
    assert RESTKV_SENTENCE in whole.text.split("\n", 1)[0]  # what this draft gives when the connection holds
    _, cut = ask(corpus, request, overview, cut_off=True, capable=True)
    assert not cut.abstained and re.match(r"\d+ papers? in the corpus (?:is|are) about ", cut.text.split("\n", 1)[0])
    assert any(prompts.SUMMARY_INSTEAD in note for note in cut.notes)


def test_with_no_index_no_model_is_asked(tmp_path: Path) -> None:
    from rag.errors import NoIndexError
    from tests.test_answer import make

    chat = ScriptedChat(responses=["SureLock 能减少计算。"])
    api = make(tmp_path / "empty", chat, capable=True)
    with pytest.raises(NoIndexError, match="paperchat ingest"):
        api.ask("SureLock 能减少多少计算？")  # a capable backend would first be asked to rewrite this
    assert chat.prompts == [] and not (tmp_path / "empty" / "catalog.sqlite3").exists()
