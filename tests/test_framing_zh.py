"""A Chinese question about English abstracts: the evidence stays the abstracts' English sentences,
cited, and everything said around it (lead line, notes, headings, the table's header, the app's
words) is Chinese from one catalogue (rag/prompts.py). The local 135M model never writes Chinese:
whatever it drafts, the only Chinese a reader sees is the catalogue's."""

from __future__ import annotations

import re
import string

import pytest

from rag import aspects, compare, prompts
from rag.api import Paperchat
from rag.chunking import approx_token_counts
from rag.config import Settings
from rag.filters import papers_called
from rag.records import NOT_STATED, Answer, AppliedFilter, Comparison, Hit, Paper, Source
from rag.routing import Mode
from rag.text import chinese_runs, citations
from rag.verify import draft_sentences
from tests.fakes import HashingEmbeddings, ScriptedChat
from ui import render

SURELOCK_QUESTION = "SureLock 是怎么减少计算量的？"
# Every Chinese text the app may say on its own: the catalogue.
CATALOGUE = [*prompts.ZH.values(), prompts.ENGLISH_ONLY, prompts.ABSTAIN["zh"]]


def over(seeded: Paperchat, chat: ScriptedChat | None = None, capable: bool = False, min_grounding: float | None = None) -> Paperchat:
    """Another Paperchat over `seeded`'s index: with a scripted chat model, or the hashing
    embedder's grounding cut (0.3 plays the real 0.45: its cosines run lower, as in test_answer)."""
    settings = Settings(data_dir=seeded.settings.data_dir, ingest_batch_chunks=16, min_grounding=min_grounding, _env_file=None)  # type: ignore[call-arg]
    fakes = {"embeddings": HashingEmbeddings(), "model": "hashing-512", "count_tokens": approx_token_counts, "max_tokens": 256}
    return Paperchat(settings, **fakes, chat=chat, capable=capable)


def fields(message: str) -> set[tuple[str, str]]:
    return {(name, spec or "") for _, name, spec, _ in string.Formatter().parse(message) if name is not None}


def chinese_only_from_the_catalogue(text: str) -> None:
    for run in chinese_runs(text):
        assert any(run in message for message in CATALOGUE), f"Chinese not from the catalogue: {run!r} in {text!r}"


def english_cited(text: str) -> None:
    """The abstracts' own English sentences, each cited: no Chinese among them."""
    sentences = draft_sentences(text)
    assert sentences
    for sentence in sentences:
        assert citations(sentence) and not chinese_runs(sentence), sentence


# -- the catalogue ---------------------------------------------------------------------------


def test_every_chinese_message_names_an_english_constant_with_the_same_fields() -> None:
    for name, chinese in prompts.ZH.items():
        english = getattr(prompts, name, None)
        assert isinstance(english, str), f"ZH[{name!r}] names no English message of rag/prompts.py"
        assert fields(chinese) == fields(english), name
        assert chinese != english, f"ZH[{name!r}] is the English"
        assert citations(chinese) == citations(english), name
    for name in ("NOT_STATED", "BACKEND_FAILED", "DRAFT_UNSUPPORTED", "COMPARE_NEEDS_TWO", "AS_CORPUS_QUESTION", "SUMMARY_COUNT", "LIST_COUNT", "EXTREME_HEAD"):
        assert name in prompts.ZH
    assert prompts.say("NOT_STATED", "zh", n=2).startswith("[2] 的摘要")
    # Any other language reads the English, unchanged.
    assert prompts.say("NOT_STATED", "other", n=2) == prompts.say("NOT_STATED", "en", n=2) == prompts.NOT_STATED.format(n=2)
    assert prompts.in_language(prompts.COMPARE_NEEDS_TWO, "zh") == prompts.ZH["COMPARE_NEEDS_TWO"]
    assert prompts.in_language(prompts.COMPARE_NEEDS_TWO, "en") == prompts.COMPARE_NEEDS_TWO
    # The table's aspects are the catalogue's English, and each has its cue words.
    assert compare.ASPECTS == ("problem", "approach", "data or benchmarks", "reported results", "efficiency or cost", "stated limitations")
    assert set(compare.ASPECTS) <= set(aspects.CUES)


def test_filtered_papers_are_called_in_chinese_and_in_english_as_before() -> None:
    oral = AppliedFilter("status", ("Oral", "Oral (conditional)"), "oral")
    area = AppliedFilter("primary_area", ("reinforcement learning",), "in the RL area")
    assert papers_called((oral, area), 13, "zh") == "13 篇 oral 论文（“reinforcement learning”领域）"
    assert papers_called((), 1234, "zh") == "1,234 篇论文"
    assert papers_called((oral, area), 13, "en") == papers_called((oral, area), 13) == "13 oral papers in the “reinforcement learning” area"
    assert papers_called((oral,), 1) == "1 oral paper" and papers_called((), "At least 40") == "At least 40 papers"


# -- answers ---------------------------------------------------------------------------------


def test_a_chinese_question_answered_from_the_evidence_has_a_chinese_lead_english_sentences_and_chinese_notes(seeded: Paperchat) -> None:
    answer = seeded.ask(SURELOCK_QUESTION)
    assert answer.language == "zh" and answer.mode == "answer" and not answer.abstained and answer.extractive
    lead, english = answer.text.split("\n\n", 1)
    assert lead == prompts.ZH["LEAD_EVIDENCE"]
    english_cited(english)
    assert "SureLock" in english
    assert prompts.ENGLISH_ONLY in answer.notes and all(chinese_runs(note) for note in answer.notes)

    # A backend that fails: its note is Chinese too (the failure itself is the library's words).
    failed = over(seeded, ScriptedChat(responses=[""], fail=True), capable=True).ask(SURELOCK_QUESTION)
    said = prompts.say("BACKEND_FAILED", "zh", failure="", instead=prompts.ZH["ANSWER_INSTEAD"])
    assert any(note.startswith(said.split("（")[0]) and note.endswith(prompts.ZH["ANSWER_INSTEAD"] + "。") for note in failed.notes), failed.notes
    assert failed.text.split("\n\n", 1)[0] == prompts.ZH["LEAD_EVIDENCE"]

    # The same question in English: no lead line, English notes, as before.
    english_answer = seeded.ask("How does SureLock reduce computation?")
    assert english_answer.language == "en" and not chinese_runs(english_answer.text) and not english_answer.notes


def test_a_chinese_question_about_nothing_abstains_in_chinese(seeded: Paperchat) -> None:
    answer = seeded.ask("量子计算机的 FooBar 是什么？")
    assert answer.abstained and answer.language == "zh"
    assert answer.text == prompts.abstain("zh", 51)
    shown = render.render_answer(answer)
    assert prompts.ZH["RELATED_HEAD"] in shown and "（相关度 " in shown and "Possibly related" not in shown


def test_a_chinese_compare_request_naming_one_paper_says_how_to_compare_in_chinese(seeded: Paperchat) -> None:
    answer = seeded.ask("比较 SureLock")
    assert answer.mode == "answer" and prompts.ZH["COMPARE_NEEDS_TWO"] in answer.notes and prompts.COMPARE_NEEDS_TWO not in answer.notes


# -- summaries and comparisons -----------------------------------------------------------------


def test_a_chinese_summary_request_has_chinese_headings_and_english_lines(seeded: Paperchat) -> None:
    answer = over(seeded, min_grounding=0.3).ask("总结一下关于 diffusion 的论文")
    assert answer.mode == "summarize" and answer.language == "zh" and not answer.abstained
    head, *rest = answer.text.split("\n")
    count = re.fullmatch(r"语料库中(?:至少)?有 (\d+) 篇论文与“diffusion”相关，按内容分为 (\d+) 组：", head)
    assert count and int(count.group(1)) == len(answer.sources) >= 2, head
    groups = [line for line in rest if line.startswith("**")]
    assert len(groups) == int(count.group(2)) and all(re.fullmatch(r"\*\*[^*]+\*\*（\d+ 篇论文）", g) for g in groups), groups
    lines = [line[2:] for line in rest if line.startswith("- ")]
    assert len(lines) == len(answer.sources)
    english_cited("\n".join(lines))
    assert answer.notes == (prompts.ENGLISH_ONLY,)

    # A capable backend's overview paragraph is English, verified: under the Chinese lead line.
    rewrite, drafted = "Summarize the papers about diffusion", answer.sources[0].evidence[0] + " [1]."
    capable = over(seeded, ScriptedChat(responses=[rewrite, drafted]), capable=True, min_grounding=0.3).ask("总结一下关于 diffusion 的论文")
    lead, paragraph, head, _ = capable.text.split("\n\n", 3)
    assert lead == prompts.ZH["LEAD_DRAFT"] and head.startswith("语料库中有 ")
    english_cited(paragraph)

    overview = seeded.ask("这个语料库涵盖了哪些主题？")
    assert overview.mode == "summarize" and overview.text.startswith("语料库共有 51 篇论文，按内容可分为 ")
    assert all(re.match(r"- \*\*[^*]+\*\*（\d+ 篇论文）：\[1?\d\] ", line) for line in overview.text.split("\n")[1:])


def test_a_chinese_comparison_has_a_chinese_header_row_english_cells_and_the_json_keys_unchanged(seeded: Paperchat) -> None:
    answer = seeded.ask("比较 SureLock 和 ReST-KV")
    assert answer.mode == "compare" and answer.language == "zh" and answer.comparison is not None
    table = answer.comparison
    header = ("论文", "问题", "方法", "数据或基准", "报告的结果", "效率或开销", "自述的局限")
    assert table.shown_header() == header
    markdown = table.to_markdown()
    assert markdown.split("\n")[0] == "| " + " | ".join(header) + " |"
    assert table.to_csv().splitlines()[0] == "n," + ",".join(header)
    # The cells are the abstracts' English; an empty one says so in Chinese where it is shown.
    cells = [c for _, _, row in table.rows for c in row]
    assert all(not chinese_runs(c) for c in cells)
    if NOT_STATED in cells:
        assert prompts.ZH["TABLE_NOT_STATED"] in markdown and NOT_STATED not in markdown
    document = answer.to_json()
    assert document["comparison"]["aspects"] == list(compare.ASPECTS)  # type: ignore[index]
    assert document["table_markdown"] == markdown
    lead, english = answer.text.split("\n\n", 1)
    assert lead == prompts.ZH["LEAD_APPROACHES"]
    english_cited(english)
    shown = render.render_answer(answer)
    assert "| 论文 | 问题 |" in shown and "\n|---|---|" in shown and "<sub>比较 · " in shown and " 秒</sub>" in shown


def test_an_english_table_is_shown_with_its_english_header_and_a_delimiter_row_markdown_reads() -> None:
    table = compare.compare([Source(1, Paper("a", "We propose Foo. Foo is 3x faster.", "Foo: fast", False), 1.0)])
    assert table.to_markdown().split("\n")[:2] == ["| paper | " + " | ".join(compare.ASPECTS) + " |", "|---" * 7 + "|"]
    assert table.to_csv().splitlines()[0] == "n,paper," + ",".join(compare.ASPECTS)
    shown = render.render_answer(Answer("compare", "Foo [1].", mode=Mode.COMPARE, comparison=table))
    assert "\n|---|---|---|---|---|---|---|\n" in shown


# -- the local model never writes Chinese ------------------------------------------------------

GARBLED = [
    # Broken Chinese inside English words, with a true number and a citation: passes the language rule.
    "SureLock 减少了 algorithmic FLOPs by 30--50% relative to the same sampler without locking [1].",
    "SureLock 是一种采样器，通过锁定已经稳定的位置来减少计算，从而减少了 30--50% 的计算量 [1]。",
    "锁定 锁定 锁定 SureLock SureLock 的的的 FLOPs FLOPs 30--50% [1]. 这是一个很好的方法 [2]。",
    "SureLock reduces algorithmic FLOPs by 30--50% relative to the same sampler without locking [1]. 它的效果很好，计算量减少了很多 [1]。",
]


@pytest.mark.parametrize("draft", GARBLED)
def test_whatever_the_local_model_drafts_a_chinese_answer_shows_no_chinese_but_the_catalogues(seeded: Paperchat, draft: str) -> None:
    api = over(seeded, ScriptedChat(responses=[draft]))
    for question in (SURELOCK_QUESTION, "比较 SureLock 和 ReST-KV"):
        answer = api.ask(question)
        assert answer.language == "zh" and not answer.abstained
        chinese_only_from_the_catalogue(answer.text)
        for note in answer.notes:
            chinese_only_from_the_catalogue(note)
        lead, english = answer.text.split("\n\n", 1)
        assert lead in (prompts.ZH["LEAD_EVIDENCE"], prompts.ZH["LEAD_DRAFT"], prompts.ZH["LEAD_APPROACHES"])
        english_cited(english)
        # What it wrote in Chinese is shown only as removed, with the checker's reason in Chinese
        # (which may quote the words it removed).
        for sentence, reason in answer.dropped:
            chinese_only_from_the_catalogue(" ".join(run for run in chinese_runs(reason) if run not in sentence))
            assert chinese_runs(reason)
        shown = render.render_answer(answer)
        if answer.dropped:
            assert prompts.say("DROPPED_HEAD", "zh", count=len(answer.dropped)) in shown


# -- the app -----------------------------------------------------------------------------------


def paper(title: str = "SureLock: locking", generated: bool = False) -> Paper:
    return Paper("p1", "We propose SureLock. It saves FLOPs.", title, generated, url="https://x.org/1")


def test_the_app_says_its_words_around_a_chinese_turn_in_chinese_and_an_english_turn_as_before() -> None:
    table = Comparison(("approach",), ((1, "A", ("We do a.",)), (2, "B", (NOT_STATED,))))
    oral = AppliedFilter("status", ("Oral",), "oral")
    common = {
        "question": "compare",
        "text": "A does a [1].",
        "mode": "compare",
        "comparison": table,
        "dropped": (("B is best [7].", "cites [7], but there are only 2 sources"),),
        "backend": "local SmolLM2",
        "timings_ms": {"total": 1234.0},
        "filters": (oral,),
    }
    english = render.render_answer(Answer(**common))  # type: ignore[arg-type]
    assert "1 draft sentence(s) removed by the checker" in english and "- “B is best [7].” (cites [7]" in english
    assert "<sub>comparison · local SmolLM2 · 1.2 s</sub>" in english and 'title="said as “oral”"' in english
    assert "| paper | approach |" in english and "not stated in the abstract" in english and not chinese_runs(english)
    chinese = render.render_answer(Answer(**common, language="zh"))  # type: ignore[arg-type]
    assert "核查时删去了草稿中的 1 句" in chinese and "<sub>比较 · local SmolLM2 · 1.2 秒</sub>" in chinese
    assert 'title="原话：“oral”"' in chinese and "status: Oral" in chinese

    hit = Hit(paper("Near"), 0.5, relevance=0.5)
    abstained = {"question": "q", "text": "Nothing.", "abstained": True, "related": (hit,)}
    assert "**Possibly related** (not about your question, so nothing is claimed from them):" in render.render_answer(Answer(**abstained))  # type: ignore[arg-type]
    assert "(relevance 0.50)" in render.render_answer(Answer(**abstained))  # type: ignore[arg-type]
    extractive = render.render_answer(Answer("q", "A [1].", extractive=True, language="zh"))
    assert "<sub>回答 · 摘要原句 · 0.0 秒</sub>" in extractive
    assert "<sub>answer · the abstracts' own sentences · 0.0 s</sub>" in render.render_answer(Answer("q", "A [1].", extractive=True))

    sources = [Source(1, paper(generated=True), 0.81, ("We propose SureLock.",))]
    cards = render.render_sources(sources, (hit,), turn=2, language="zh")
    assert "相关度 0.81 · p1" in cards and ">生成的标题</span>" in cards and "可能相关：" in cards and "relevance" not in cards
    english_cards = render.render_sources(sources, (hit,), turn=2)
    assert "relevance 0.81 · p1" in english_cards and ">generated title</span>" in english_cards and "possibly related: <b>" in english_cards
    assert render.render_draft([], [], language="zh") == "*正在检索摘要……*"
    assert render.render_draft([], sources, language="zh").startswith("*已找到 1 个来源")
    assert render.render_draft([], []) == "*Searching the abstracts …*"
    assert render.render_draft([], sources) == "*Found 1 source (beside the chat); writing the answer …*"


def test_the_export_and_the_sources_panel_label_each_turn_in_its_language() -> None:
    from ui.handlers import _panel

    zh = Answer("问题", "A [1].", sources=(Source(1, paper(generated=True), 0.8),), language="zh", filters=(AppliedFilter("status", ("Oral",), "oral"),))
    en = Answer("question", "A [1].", sources=(Source(1, paper(generated=True), 0.8),))
    exported = render.export_markdown([{"q": "question", "result": en.to_json()}, {"q": "问题", "result": zh.to_json()}])
    first, second = exported.split("## 2.")
    assert "References:" in first and "(generated title)" in first and not chinese_runs(first.replace("问题", ""))
    assert "参考文献：" in second and "（生成的标题）" in second and "> 筛选条件：status: Oral" in second
    panel = _panel(["<p>one</p>", "<p>two</p>"], ["en", "zh"])
    assert "<summary>Sources of question 1</summary>" in panel and "<summary>第 2 个问题的来源</summary>" in panel


def test_the_chinese_messages_use_chinese_punctuation() -> None:
    # No ASCII stop, comma or colon right after a Chinese character.
    for name, message in prompts.ZH.items():
        assert not re.search(r"[\u4e00-\u9fff][.,;:!?](?:\s|$)", message), name
