"""Comparisons: the right papers lined up, each cell an excerpt of that paper's own abstract
(or "not stated"), exported as Markdown and CSV, the paragraph verified like an answer."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from rag import prompts
from rag.compare import ASPECTS, aspect_cells
from rag.records import NOT_STATED, Answer, Paper, Source, Turn
from rag.text import split_sentences
from tests.test_answer import SURELOCK_FLOPS, ask, assert_verified, corpus  # noqa: F401 - corpus is a fixture


def assert_cells_are_excerpts(answer: Answer) -> None:
    assert answer.comparison is not None and answer.mode == "compare"
    by_n = {s.n: s.paper for s in answer.sources}
    for n, title, cells in answer.comparison.rows:
        assert title == by_n[n].title and len(cells) == len(ASPECTS)
        sentences = split_sentences(by_n[n].abstract)
        assert all(cell == NOT_STATED or cell in sentences for cell in cells)
        assert len({c for c in cells if c != NOT_STATED}) == sum(c != NOT_STATED for c in cells)  # a sentence serves one aspect


def test_compare_two_named_papers_in_the_order_named(corpus: Path) -> None:  # noqa: F811
    _, answer = ask(corpus, "Compare SureLock and ReST-KV")
    assert answer.comparison is not None
    assert ["SureLock" in s.paper.abstract for s in answer.sources] == [True, False]
    assert "ReST-KV" in answer.sources[1].paper.abstract
    assert_cells_are_excerpts(answer)
    # ReST-KV's abstract states its benchmarks and results; SureLock's its FLOPs.
    restkv = answer.comparison.rows[1][2]
    assert "LongBench" in " ".join(restkv) and any("FLOPs" in c for c in answer.comparison.rows[0][2])


def test_exports_carry_every_cell_and_citation(corpus: Path) -> None:  # noqa: F811
    _, answer = ask(corpus, "What are the differences between SureLock and ReST-KV?")
    table = answer.comparison
    assert table is not None
    markdown = table.to_markdown().splitlines()
    assert markdown[0].startswith("| paper | problem | approach") and len(markdown) == 2 + len(table.rows)
    assert "[1]" in markdown[2] and "[2]" in markdown[3]
    rows = list(csv.reader(io.StringIO(table.to_csv())))
    assert rows[0] == ["n", "paper", *ASPECTS] and len(rows) == 3
    assert rows[1][2:] == list(table.rows[0][2])


def test_compare_sources_of_an_earlier_answer(corpus: Path) -> None:  # noqa: F811
    from tests.test_answer import make

    ids = tuple(p.paper_id for p in make(corpus, None).papers()[:3])
    history = [Turn("papers on efficient inference", ids, ids[:1], "efficient inference")]
    _, answer = ask(corpus, "compare [2] and [1]", history=history)
    assert [s.paper.paper_id for s in answer.sources] == [ids[1], ids[0]]
    assert_cells_are_excerpts(answer)


def test_a_compare_request_naming_fewer_than_two_papers_is_answered_and_says_how_to_compare(corpus: Path) -> None:  # noqa: F811
    _, answer = ask(corpus, "Compare SureLock")
    assert answer.mode == "answer" and prompts.COMPARE_NEEDS_TWO in answer.notes


def test_the_paragraph_is_verified_like_an_answer(corpus: Path) -> None:  # noqa: F811
    draft = f"Both papers are the best ever written [1][2]. {SURELOCK_FLOPS} [2]. ReST-KV is 99x faster than everything [2]."
    _, answer = ask(corpus, "Compare SureLock and ReST-KV", draft)
    assert "best ever" not in answer.text and "99x" not in answer.text
    assert "FLOPs" in answer.text and "[1]" in answer.text  # re-cited to SureLock, source [1]
    assert_verified(answer)


def test_unmatched_aspects_say_not_stated() -> None:
    paper = Paper("p", "We propose Foo, a method for bar. Foo is evaluated on the BazBench benchmark.", "Foo", False)
    cells = dict(zip(ASPECTS, aspect_cells(Source(1, paper, 1.0)), strict=True))
    assert cells["approach"].startswith("We propose Foo") and "BazBench" in cells["data or benchmarks"]
    assert cells["stated limitations"] == NOT_STATED and cells["efficiency or cost"] == NOT_STATED


@pytest.mark.parametrize("mode", ["compare", "answer"])
def test_an_explicit_mode_wins_over_the_wording(corpus: Path, mode: str) -> None:  # noqa: F811
    from tests.test_answer import make

    answer = make(corpus, None).ask("What about SureLock and ReST-KV?", mode=mode)
    assert answer.mode == mode
