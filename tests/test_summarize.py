"""Summaries of a theme (every grounded paper, counted, grouped, one cited contribution line per
paper) and the overview of the whole corpus in topics."""

from __future__ import annotations

import re
from pathlib import Path

from rag.answer import _sentences
from rag.chunking import split_sentences
from rag.records import Paper
from rag.summarize import theme_of
from rag.topics import contribution_sentence, group
from tests.test_answer import ask, corpus, make  # noqa: F401 - corpus is a fixture


def test_theme_of_keeps_the_theme_and_drops_the_request() -> None:
    assert theme_of("Summarise what these papers say about efficient LLM inference") == "efficient LLM inference"
    assert theme_of("Summarize all the papers about 3D generation and reconstruction") == "3D generation and reconstruction"
    assert theme_of("What topics does this corpus cover?") == ""
    assert theme_of("这个语料库涵盖了哪些主题？") == ""


def test_a_theme_summary_counts_groups_and_cites_each_paper_in_its_own_words(corpus: Path) -> None:  # noqa: F811
    _, answer = ask(corpus, "Summarize the papers about KV cache eviction and attention in diffusion language models")
    assert answer.mode == "summarize" and not answer.abstained and len(answer.sources) >= 2
    count = int(re.match(r"(\d+) papers", answer.text).group(1))  # type: ignore[union-attr]
    assert count == len(answer.sources)
    assert answer.text.count("**") >= 2  # group headings
    lines = [line for line in answer.text.splitlines() if line.startswith("- ")]
    assert len(lines) == len(answer.sources)
    by_n = {s.n: s.paper for s in answer.sources}
    for line in lines:
        (n,) = map(int, re.findall(r"\[(\d+)\]", line))
        sentence = line[2:].rsplit(" [", 1)[0]
        assert any(sentence.rstrip(".") in s for s in split_sentences(by_n[n].abstract))


def test_a_theme_nothing_is_about_abstains(corpus: Path) -> None:  # noqa: F811
    _, answer = ask(corpus, "Summarize the papers about pizza dough recipes")
    assert answer.abstained and not answer.sources


def test_the_corpus_overview_lists_topics_with_sizes_that_add_up(corpus: Path) -> None:  # noqa: F811
    api = make(corpus, None)
    answer = api.ask("What topics does this corpus cover?")
    assert answer.mode == "summarize"
    sizes = [int(n) for n in re.findall(r"\((\d+) papers?\)", answer.text)]
    assert sum(sizes) == len(api.papers()) == 52 and len(sizes) >= 2
    assert all(f"[{s.n}]" in answer.text for s in answer.sources)
    assert api.topics() is api.topics()  # computed once per catalogue version


def test_contribution_sentence_and_grouping() -> None:
    paper = Paper("p", "Existing methods are slow. We propose Foo, which is fast. Foo wins.", "Foo", False)
    assert contribution_sentence(paper) == "We propose Foo, which is fast."
    topic = ["graphs"] * 4 + ["images"] * 4
    papers = [Paper(f"p{i}", f"We propose method {i} for {t} and more {t}.", "t", True) for i, t in enumerate(topic)]
    vectors = {p.paper_id: ([1.0, 0.0] if i < 4 else [0.0, 1.0]) for i, p in enumerate(papers)}
    groups = group(papers, vectors)
    assert sorted(g.size for g in groups) == [4, 4]
    assert {"graphs", "images"} == {g.label.split(", ")[0] for g in groups}
    assert all(_sentences(contribution_sentence(p)) for p in papers)


def test_summarize_them_summarizes_the_papers_of_the_previous_answer(corpus: Path) -> None:  # noqa: F811
    from rag.records import Turn

    api = make(corpus, None)
    ids = tuple(p.paper_id for p in api.papers()[:3])
    history = [Turn("papers on efficient inference", ids, ids, "efficient inference")]
    answer = api.ask("Summarize them", history)
    assert answer.mode == "summarize" and answer.text.startswith("The 3 papers you referred to")
    assert {s.paper.paper_id for s in answer.sources} == set(ids)
    answer = api.ask("summarise [1] and [3]", history)
    assert {s.paper.paper_id for s in answer.sources} == {ids[0], ids[2]}
    assert theme_of("Summarize papers similar to [2] on graphs") == "similar to graphs"
