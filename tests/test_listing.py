"""Questions about the set of papers: lists (every paper that names a thing, counted and paged),
counts, extremes, filters said in words, and corpus questions in other words. Over the seeds and a
small corpus whose records carry status and primary area, with the fake embedder; the same on all
5,358 ICLR 2026 papers is bench/corpus.py."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from rag import prompts
from rag.criteria import criterion_of
from rag.filters import filters_in
from rag.records import Answer, Turn
from rag.routing import Mode
from tests.conftest import SEEDS, write_jsonl
from tests.test_answer import make

FOO = "We evaluate our method, {name}, on FooBench and report strong results across all of its tasks."
BAR = "{name} builds on BarNet, a recurrent architecture for long documents, and keeps its memory constant."
SPEED = "Our {name} sampler for speculative decoding achieves {value} speedup over autoregressive decoding on a single GPU."


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """25 papers that evaluate on FooBench (4 of them orals, 3 in robotics), 5 on BarNet (2 of
    them also on FooBench), 4 speculative-decoding samplers stating speedups, and the seeds."""
    folder = tmp_path_factory.mktemp("listing")
    records = []
    for i in range(25):
        area = "applications to robotics, autonomy, planning" if i < 3 else "reinforcement learning"
        text = FOO.format(name=f"Method{i}A") + (" " + BAR.format(name=f"Method{i}A") if i < 2 else "") + f" We also study case number {i} in detail."
        status = "Oral" if i < 4 else "Poster"
        records.append({"id": f"foo{i}", "title": f"FooBench study {i}", "abstract": text, "status": status, "primary_area": area})
    for i in range(3):
        abstract = BAR.format(name=f"Bar{i}Model") + f" Case {i}."
        records.append({"id": f"bar{i}", "title": f"BarNet study {i}", "abstract": abstract, "status": "Poster", "primary_area": "optimization"})
    # A size ("512$\times$512") is not a speedup; "$\mathbf{7.4\times}$" is.
    for i, value in enumerate(["2.1x", r"$\mathbf{7.4\times}$", "3$\\times$", r"1.5$\times$ at 512$\times$512 resolution, a"]):
        abstract = SPEED.format(name=f"Spec{i}", value=value)
        records.append({"id": f"spec{i}", "title": f"Sampler {i}", "abstract": abstract, "status": "Poster", "primary_area": "generative models"})
    extra = write_jsonl(folder / "records.jsonl", records)
    make(folder / "data", None).ingest([SEEDS, extra])
    return folder / "data"


def ask(corpus: Path, question: str, history: list[Turn] | None = None, **options: object) -> Answer:
    return make(corpus, None).ask(question, history or [], **options)


def turn(question: str, answer: Answer) -> Turn:
    return Turn(question, tuple(s.paper.paper_id for s in answer.sources), (), answer.query, str(answer.mode), answer.page)


def listed(answer: Answer) -> set[str]:
    return {s.paper.paper_id for s in answer.sources}


def test_a_list_names_every_paper_that_names_the_thing_with_its_sentence(corpus: Path) -> None:
    answer = ask(corpus, "Which papers evaluate on LongBench?")
    seeds_naming = {p for p in (make(corpus, None).papers()) if "LongBench" in p.abstract}
    assert answer.mode == Mode.LIST and answer.page is not None and answer.page.total == len(seeds_naming) >= 1
    assert listed(answer) == {p.paper_id for p in seeds_naming}
    for source in answer.sources:
        assert any("LongBench" in e for e in source.evidence) and f"[{source.n}]" in answer.text
    assert answer.text.startswith(f"**{len(seeds_naming)} paper")


def test_a_long_list_is_paged_and_more_gives_the_next_page(corpus: Path) -> None:
    first = ask(corpus, "Which papers evaluate on FooBench?")
    assert first.page is not None and (first.page.total, first.page.number, first.page.pages) == (25, 1, 2)
    assert len(first.sources) == 20 and "ask “more”" in first.text
    second = ask(corpus, "more", [turn("Which papers evaluate on FooBench?", first)])
    assert second.mode == Mode.LIST and second.page is not None and second.page.number == 2 and len(second.sources) == 5
    assert not listed(first) & listed(second) and len(listed(first) | listed(second)) == 25
    assert second.question == "more" and [s.n for s in second.sources] == [1, 2, 3, 4, 5]  # each page cites its own sources
    assert "\n21. **" in second.text and "[1]" in second.text and prompts.LIST_LAST.format(first=21, last=25, total=25) in second.text
    # After the last page, "more" says so (and shows it again) rather than answering something else.
    again = ask(corpus, "more please", [turn("Which papers evaluate on FooBench?", first), turn("more", second)])
    assert again.mode == Mode.LIST and prompts.LIST_LAST_AGAIN.format(first=21, last=25, total=25) in again.text


def test_two_ideas_combined_means_both_present(corpus: Path) -> None:
    answer = ask(corpus, "Are there papers that combine FooBench with BarNet?")
    assert listed(answer) == {"foo0", "foo1"} and "both" in answer.text


def test_how_many_gives_the_whole_count(corpus: Path) -> None:
    answer = ask(corpus, "How many papers build on BarNet?")
    assert answer.page is not None and answer.page.total == 5 and answer.text.startswith("**5 papers**")


def test_a_name_no_abstract_mentions_is_said_so(corpus: Path) -> None:
    answer = ask(corpus, "Which papers evaluate on ZetaBench?")
    assert not answer.sources and not answer.abstained
    assert answer.text == prompts.LIST_NONE_MENTION.format(papers=f"{len(make(corpus, None).papers()):,}", what="“ZetaBench”")


def test_filters_said_in_words_are_applied_and_reported(corpus: Path) -> None:
    oral = ask(corpus, "Which oral papers evaluate on FooBench?")
    assert listed(oral) == {"foo0", "foo1", "foo2", "foo3"} and oral.text.startswith("**4 oral papers**")
    assert [f.to_json() for f in oral.filters] == [{"field": "status", "values": ["Oral"], "said": "oral"}]
    assert oral.to_json()["filters"] == [{"field": "status", "values": ["Oral"], "said": "oral"}]
    assert any(note.startswith("Only papers with status Oral") for note in oral.notes)
    robotics = ask(corpus, "Which papers in the robotics area evaluate on FooBench?")
    assert listed(robotics) == {"foo0", "foo1", "foo2"} and robotics.filters[0].field == "primary_area"
    chinese = ask(corpus, "有多少篇口头报告论文使用了 FooBench？")
    assert chinese.page is not None and chinese.page.total == 4 and chinese.filters[0].values == ("Oral",)
    # `--where` joins the words; for its own field it wins.
    where = ask(corpus, "Which oral papers evaluate on FooBench?", where={"status": "Poster"})
    assert where.page is not None and where.page.total == 21 and {f.said for f in where.filters} == {"--where"}


def test_a_summary_of_what_a_filter_keeps(corpus: Path) -> None:
    summary = ask(corpus, "Summarise the oral papers")
    assert summary.mode == Mode.SUMMARIZE and listed(summary) == {"foo0", "foo1", "foo2", "foo3"}
    assert summary.text.startswith("The 4 oral papers, in ")


def test_filters_reach_every_mode(corpus: Path) -> None:
    summary = ask(corpus, "Summarise the oral papers on FooBench")
    assert summary.mode == Mode.SUMMARIZE and summary.filters and listed(summary) <= {"foo0", "foo1", "foo2", "foo3"}
    answer = ask(corpus, "What do the oral papers report on FooBench?", mode="answer")
    assert answer.filters and listed(answer) <= {"foo0", "foo1", "foo2", "foo3"}


def test_filter_words_for_a_field_the_corpus_lacks_are_ignored_with_a_note(tmp_path: Path) -> None:
    api = make(tmp_path / "seeds", None)
    api.ingest([SEEDS])
    answer = api.ask("Which oral papers evaluate on LongBench?")
    assert not answer.filters and answer.page is not None and answer.page.total >= 1
    assert prompts.FILTER_IGNORED.format(said="oral") in answer.notes


def test_the_largest_reported_value_heads_an_extreme_and_every_number_is_in_a_cited_sentence(corpus: Path) -> None:
    answer = ask(corpus, "What is the best reported speedup for speculative decoding?")
    assert answer.mode == Mode.LIST and answer.sources[0].paper.paper_id == "spec1"
    head = answer.text.split("\n", 1)[0]
    assert "7.4×" in head and head.endswith("[1].") and prompts.EXTREME_CAVEAT in answer.text
    assert "**1.5×**" in answer.text and "**512×**" not in answer.text  # 512×512 is a size, not a speedup
    for line in [line for line in answer.text.splitlines() if re.match(r"\d+\. ", line)]:
        value = re.search(r"\*\*([\d.]+)×\*\*", line)
        n = int(re.findall(r"\[(\d+)\]", line)[-1])
        assert value and value.group(1) in answer.sources[n - 1].evidence[0]


def test_a_corpus_question_in_other_words_is_summarized_not_abstained(corpus: Path) -> None:
    answer = ask(corpus, "What problem do most papers about FooBench try to solve?")
    assert answer.mode == Mode.SUMMARIZE and not answer.abstained and listed(answer) <= {f"foo{i}" for i in range(25)}


def test_an_abstaining_answer_is_tried_as_a_corpus_question_first(corpus: Path) -> None:
    # No single paper is about it enough to answer (the fake embedder's cosines are low), but 25 are about FooBench.
    answer = ask(corpus, "Overall, what is said of FooBench?", mode="answer")
    assert answer.mode == Mode.SUMMARIZE and not answer.abstained and listed(answer) <= {f"foo{i}" for i in range(25)}
    assert answer.notes[0] == prompts.AS_CORPUS_QUESTION.format(theme="FooBench")


def test_criteria_read_names_phrases_and_their_acronyms() -> None:
    texts = ["We use retrieval-augmented generation (RAG) with reinforcement learning (RL).", "Masked diffusion language models (MDLMs) are studied."]
    ideas = criterion_of("Are there papers that combine RL with retrieval augmented generation?", texts).ideas
    assert [i.said for i in ideas] == ["RL", "retrieval augmented generation"]
    assert ideas[0].pattern.search("uses reinforcement-learning to train") and not ideas[0].pattern.search("an RLHF pipeline")
    assert ideas[1].pattern.search("a RAG system") and ideas[1].pattern.search("Retrieval-Augmented Generation")
    dlm = criterion_of("Which papers are about diffusion language models?", texts).ideas[0]
    assert dlm.pattern.search("a diffusion language model") and not dlm.pattern.search("an MDLM")  # MDLM is not its acronym
    name = criterion_of("Which papers use the LIBERO benchmark?", texts).ideas
    assert [i.said for i in name] == ["LIBERO"] and not name[0].pattern.search("libero arbitrio")
    assert criterion_of("Which papers evaluate on SWE-bench?", texts).ideas[0].pattern.search("on SWE-Bench Verified")
    assert not criterion_of("Which papers evaluate on LongBench?", texts).ideas[0].pattern.search("ExpertLongBench")


def test_filters_are_only_the_corpus_own_values() -> None:
    fields = {"status": Counter({"Oral": 2, "Oral (conditional)": 1, "Poster": 9}), "primary_area": Counter({"reinforcement learning": 3, "optimization": 2})}
    said = filters_in("Which oral papers in the RL area use LoRA?", fields)
    assert [(f.field, f.values) for f in said.applied] == [("status", ("Oral", "Oral (conditional)")), ("primary_area", ("reinforcement learning",))]
    assert said.question == "Which papers use LoRA?"
    assert filters_in("Which papers combine reinforcement learning with RAG?", fields).applied == ()  # a topic, not an area said as one
    assert filters_in("Which spotlight papers use LoRA?", fields).unmatched == ("spotlight",)
    assert filters_in("Which spotlight papers use LoRA?", {}).ignored == ("spotlight",)
    assert filters_in("Which optimization papers use LoRA?", fields).applied[0].values == ("optimization",)


def test_venue_and_year_filters_when_the_records_carry_them() -> None:
    fields = {"venue": Counter({"ICLR 2024": 5, "NeurIPS 2023": 4}), "year": Counter({"2023": 4, "2024": 5})}
    said = filters_in("Which NeurIPS papers from 2023 use LoRA?", fields)
    assert [(f.field, f.values) for f in said.applied] == [("venue", ("NeurIPS 2023",)), ("year", ("2023",))]
    assert said.question == "Which papers use LoRA?"
    assert filters_in("Which papers from 2022 use LoRA?", fields).unmatched == ("from 2022",)  # no such year: said, not guessed
    assert filters_in("Which papers from 2022 use LoRA?", {}).ignored == ("from 2022",)


def test_a_list_question_that_names_nothing_to_look_for_is_not_the_whole_corpus(corpus: Path) -> None:
    answer = ask(corpus, "有没有关于模型合并的论文？")
    assert answer.mode == Mode.SUMMARIZE and answer.notes[0] == prompts.say("LIST_NOTHING_NAMED", "zh") and answer.page is None


def test_questions_read_as_a_researcher_writes_them() -> None:
    texts = ["Graph neural networks (GNNs) meet large language models.", "We study in-context learning and chain-of-context learning."]

    def ideas(question: str) -> list[str]:
        return [i.said for i in criterion_of(question, texts).ideas]

    assert ideas("Which papers investigate grokking?") == ["grokking"]  # any verb ends the request
    assert ideas("Which papers about causal reasoning use LLMs?") == ["causal reasoning", "LLMs"]
    assert ideas("Which NLP papers use GRPO?") == ["NLP", "GRPO"]  # words before "papers" are asked for too
    assert ideas("Which papers study in-context learning?") == ["in-context learning"]  # a hyphenated phrase stays whole
    assert ideas("Which papers study quantization of the KV cache?") == ["quantization", "KV cache"]
    assert ideas('Which papers mention "question answering and retrieval"?') == ["question answering and retrieval"]
    gnn = criterion_of("Which papers use GNNs?", texts).ideas[0]
    assert gnn.pattern.search("a GNN encoder") and gnn.pattern.search("graph neural networks") and not gnn.pattern.search("gnns of")
    icl = criterion_of("Which papers study in-context learning?", texts).ideas[0]
    assert icl.pattern.search("in context learning") and not icl.pattern.search("chain-of-context learning")


def test_a_status_or_area_word_is_a_filter_only_when_said_as_one() -> None:
    areas = Counter({"applications to computer vision, audio, language": 5, "reinforcement learning": 3})
    fields = {"status": Counter({"Oral": 2, "Poster": 9}), "primary_area": areas}
    assert filters_in("Which papers generate scientific posters?", fields).applied == ()
    assert filters_in("有没有生成海报的论文？", fields).applied == ()
    assert filters_in("How many audio papers are there?", fields).applied == ()  # one topic of a broad area, not the area
    assert filters_in("Which papers in the audio area use Whisper?", fields).applied[0].field == "primary_area"  # said as an area
    assert filters_in("Which reinforcement learning papers use LoRA?", fields).applied[0].field == "primary_area"  # "<area> papers"
    for asked in ("Summarise reinforcement learning papers", "List the newest reinforcement learning papers", "Top-5 reinforcement learning papers?"):
        assert [f.field for f in filters_in(asked, fields).applied] == ["primary_area"], asked
    # The area's name ends a longer term: papers on that term, not the area.
    said = filters_in("Give me the inverse reinforcement learning papers", fields)
    assert said.applied == () and said.question == "Give me the inverse reinforcement learning papers"
    said = filters_in("Which papers in the RL area from 2024 use LoRA?", {"primary_area": fields["primary_area"]})
    assert said.question == "Which papers use LoRA?" and said.ignored == ("from 2024",)  # unapplied filter words are taken out too


def test_an_extreme_counts_only_values_of_the_quantity_asked() -> None:
    from rag.quantities import QUANTITIES, quantity_asked, values

    speedup = QUANTITIES[0]
    assert [v for v, _, _ in values(speedup, "It is 50× smaller in parameter size and 10× faster than the baseline.")] == [10.0]
    assert [v for v, _, _ in values(speedup, "It delivers up to 4.72x speedup and 6.4x memory reduction.")] == [4.72]
    assert [v for v, _, _ in values(speedup, "Speedup ratios range from 2.24x to 4.32x.")] == [2.24, 4.32]
    assert not values(speedup, "Editing a 512$\\times$512 image takes 1.2 seconds.")
    memory = quantity_asked("What is the largest memory reduction reported for KV cache compression?")
    assert memory is not None and memory.name == "memory reduction"
    assert quantity_asked("Which papers use top-k sparse attention to reduce memory?") is None
