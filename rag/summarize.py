"""The summarize mode: every paper of the corpus about a theme (not a fixed top k), counted,
grouped into sub-themes, one cited line per paper (its name, then its contribution sentence); or the overview of the whole
corpus in topics; or the papers of an earlier answer ("summarize them").

Like a comparison table, the lines are the abstracts' own contribution sentences, so a summary is
true by construction; a capable backend adds an overview paragraph on top, drafted and verified
sentence by sentence like an answer (rag/verify.py). Which papers a theme is about: rag/themes.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace

from rag import prompts
from rag.context import Context, Request, ms_since
from rag.conversation import condense, referenced
from rag.evidence import contribution_sentence
from rag.filters import papers_called
from rag.language import question_language
from rag.records import Answer, AnswerEvent, Hit, Paper, Source
from rag.retrieval import filter_papers
from rag.routing import Mode
from rag.text import CJK, cite, says_phrase
from rag.theme_examples import theme_examples
from rag.theme_exclusions import exclusions
from rag.theme_parts import english_list
from rag.theme_request import theme_of
from rag.theme_spelling import respelled
from rag.themes import about_theme_by, examples_adding, kept_in_order, left_out
from rag.topics import REPRESENTATIVES, group
from rag.verify import Draft, Verifier, draft_messages

# Sources the overview paragraph is drafted from: 12 contribution sentences fill ~600 prompt
# tokens, what a small model still reads; the grouped lines below it name every paper anyway.
OVERVIEW_SOURCES = 12


def summarize_events(request: Request, ctx: Context) -> Iterator[AnswerEvent]:
    timings = {"retrieve": request.elapsed_ms()}
    question, history = request.asked or request.question, request.history
    papers = ctx.corpus.papers_by_id()
    pinned = [papers[p] for p in referenced(question, history) if p in papers]
    if pinned:
        # "Summarize them", "summarise [1] and [3]": the papers of the earlier answer, not a search.
        theme = history[-1].query or history[-1].question
        yield from _theme_summary(request, theme, [Hit(p, 1.0, relevance=1.0) for p in pinned], "SUMMARY_PINNED", ctx, timings)
        return
    asked = condense(ctx.chat, ctx.capable, question, (), question)
    theme = theme_of(asked)
    if not theme and request.filters:
        # "Summarise the oral papers": every paper the filter keeps.
        allowed = filter_papers(papers.values(), request.where or {})
        kept = [Hit(p, 1.0, relevance=1.0) for p in papers.values() if p.paper_id in allowed]
        said = ", ".join(f.said for f in request.filters)
        yield from _theme_summary(request, said, kept, "SUMMARY_FILTERED", ctx, timings)
    elif not theme:
        yield from _corpus_overview(request, papers, ctx, timings)
    else:
        yield from theme_summary_events(request, theme, ctx, timings, asked)


def theme_summary_events(request: Request, theme: str, ctx: Context, timings: dict[str, float] | None, asked: str) -> Iterator[AnswerEvent]:
    """Every paper about `theme` (not a fixed top k), grouped and cited; an abstention when none is.
    `asked`: the request `theme` was read from; the papers of the examples it gives of the theme
    (rag/theme_examples.py) are found and included too, those of what it leaves out
    (rag/theme_exclusions.py) are not."""
    timings = dict(timings or {})
    examples = theme_examples(asked, theme)
    # A theme asked in Chinese is gathered by the English phrase of the corpus it names ("机器遗忘" →
    # "machine unlearning"): which papers are about a theme is decided by their English words.
    # A short English phrase can read as another language to the detector ("multi-objective
    # optimization"): an English question's theme needs no English phrase, unless it is Chinese
    # ("Summarise the papers on 知识蒸馏").
    language = question_language(request.question)
    english = theme if language == "en" and not CJK.search(theme) else english_list(theme, ctx.corpus.english_theme)

    def candidates(english: str) -> list[Hit]:
        # The examples join the search: papers on "TTS" need not say "audio generation".
        searched = " ".join([english, *(e for e in examples if not says_phrase(english, e))])
        return ctx.corpus.search(searched, ctx.calibration.theme_candidates, where=request.where).hits

    hits = candidates(english)
    shown = theme if english == theme else f"{theme}（{english}）" if language == "zh" else f"{theme} ({english})"
    # A misspelt word no paper uses ("protoype learning") is read as the candidates spell it, and searched again.
    respelt = respelled(english, ctx.corpus.document_frequency(), [f"{h.paper.title} {h.paper.abstract}" for h in hits])
    if respelt != english:
        shown, english = prompts.say("THEME_RESPELLED", language, theme=shown, respelt=respelt), respelt
        hits = candidates(english)
    timings["retrieve"] = request.elapsed_ms()
    yield from _theme_summary(request, english, hits, None, ctx, timings, shown, examples, exclusions(asked))


def _theme_summary(
    request: Request, theme: str, hits: Sequence[Hit], head: str | None, ctx: Context, timings: dict[str, float], shown: str = "",
    examples: Sequence[str] = (), excluded: Sequence[str] = (),
) -> Iterator[AnswerEvent]:
    """`head` (a message of rag/prompts.py): `hits` are papers the request refers to (or its filter
    keeps), all of them in, counted with this line; None: the candidates of a theme, kept when they are about it.
    `shown`: the theme as the answer names it, when not `theme` itself (the words asked, with the English searched).
    `examples`, `excluded`: terms whose papers are in as well, and terms whose papers are left out."""
    pinned = head is not None
    question, corpus, cal = request.question, ctx.corpus, ctx.calibration
    language = question_language(question)
    papers = corpus.papers_by_id()
    frequency = corpus.document_frequency()
    found = {} if pinned else about_theme_by(theme, hits, frequency, len(papers), cal, examples)
    relevant = list(hits) if pinned else kept_in_order(hits, found)
    dropped_by = left_out(excluded, theme, relevant, frequency, cal)
    dropped_ids = {h.paper.paper_id for each in dropped_by.values() for h in each}
    if kept := [h for h in relevant if h.paper.paper_id not in dropped_ids]:
        relevant = kept
    else:
        dropped_by = {}  # a leave-out that would leave nothing was not meant of the theme ("Not an expert here, ...")
    # Papers in only by an example the request gave: the count's line says so, naming those examples.
    if used := examples_adding(found):
        shown = prompts.say("THEME_WITH_EXAMPLES", language, theme=shown or theme, examples=", ".join(used))
    base = Answer(question=question, text="", mode=Mode.SUMMARIZE, backend=ctx.backend, language=language, query=theme)
    if not relevant:
        timings["total"] = request.elapsed_ms()
        within = filter_papers(papers.values(), request.where) if request.where else papers
        text = prompts.abstain(language, len(within))
        yield AnswerEvent("final", answer=replace(base, text=text, abstained=True, related=tuple(hits[:3]), timings_ms=timings))
        return
    mark = time.perf_counter()
    by_id = {h.paper.paper_id: h for h in relevant}
    groups = group([h.paper for h in relevant], corpus.paper_vectors(list(by_id)), background=corpus.label_background(), embed=ctx.vectors)
    timings["group"] = ms_since(mark)
    sources: list[Source] = []
    grouped = sum(g.size for g in groups)
    # Gathering a theme stops at theme_candidates; a theme that fills them has more papers than counted.
    full = head is None and len(hits) >= cal.theme_candidates and grouped >= len(relevant) == len(hits)
    called = papers_called(request.filters, prompts.say("AT_LEAST", language, count=grouped) if full else grouped, language)
    are = prompts.say("COUNT_VERB_AT_LEAST" if full else "COUNT_VERB_ONE" if grouped == 1 else "COUNT_VERB", language)
    in_groups = prompts.say("GROUPS_ONE" if len(groups) == 1 else "GROUPS", language, count=len(groups))
    lines = [prompts.say(head or "SUMMARY_COUNT", language, papers=called, are=are, theme=shown or theme, groups=in_groups)]
    if dropped_by:
        left = [prompts.say("LEFT_OUT_TERM", language, papers=_papers(len(each), language), term=term) for term, each in dropped_by.items()]
        lines.append(prompts.say("LEFT_OUT", language, left=prompts.say("LIST_SEPARATOR", language).join(left)))
    for g in groups:
        lines.append("\n" + prompts.say("GROUP_HEAD", language, label=g.label, size=_papers(g.size, language)))
        for paper_id in g.paper_ids:
            n = len(sources) + 1
            sentence = contribution_sentence(by_id[paper_id].paper)
            sources.append(Source(n, by_id[paper_id].paper, by_id[paper_id].relevance, (sentence,)))
            lines.append(f"- {summary_line(by_id[paper_id].paper, sentence, n)}")
    timings["first_visible"] = request.elapsed_ms()
    yield AnswerEvent("sources", sources=tuple(sources))
    notes = [prompts.ENGLISH_ONLY] if language == "zh" else []
    overview, dropped = [], []
    if ctx.capable and ctx.chat is not None:
        verifier = Verifier(sources, ctx.vectors, question, cal, language)
        messages = draft_messages(question, sources[:OVERVIEW_SOURCES], ctx.max_sentences, prompts.SUMMARY_USER)
        draft = Draft(ctx.chat, messages, verifier, ctx.max_sentences)
        overview, dropped = list(draft), verifier.dropped
        if draft.failure:
            # Half a paragraph reads as a whole one: the grouped lines stand on their own instead.
            overview = []
            notes.append(prompts.say("BACKEND_FAILED", language, failure=draft.failure, instead=prompts.say("SUMMARY_INSTEAD", language)))
    timings["total"] = request.elapsed_ms()
    paragraph = " ".join(overview)
    if paragraph and language == "zh":
        # The paragraph is the model's English, verified: a Chinese line says so (as in an answer).
        paragraph = prompts.say("LEAD_DRAFT", language) + "\n\n" + paragraph
    text = (paragraph + "\n\n" if paragraph else "") + "\n".join(lines)
    answer = replace(base, text=text, sources=tuple(sources), dropped=tuple(dropped), notes=tuple(notes), timings_ms=timings)
    yield AnswerEvent("final", answer=answer, groups=tuple(groups))


def _corpus_overview(request: Request, papers: Mapping[str, Paper], ctx: Context, timings: dict[str, float]) -> Iterator[AnswerEvent]:
    """The whole corpus in topics: sizes, labels, representative papers (closest to each centre)."""
    groups = ctx.corpus.topics()
    language = question_language(request.question)
    sources: list[Source] = []
    lines = [prompts.say("OVERVIEW_COUNT", language, papers=len(papers), groups=len(groups))]
    for g in groups:
        shown = []
        for paper_id in [p for p in g.paper_ids if p in papers][:REPRESENTATIVES]:
            n = len(sources) + 1
            sources.append(Source(n, papers[paper_id], 1.0, (contribution_sentence(papers[paper_id]),)))
            shown.append(f"[{n}] {papers[paper_id].title}")
        lines.append(prompts.say("OVERVIEW_TOPIC", language, label=g.label, size=_papers(g.size, language), papers="; ".join(shown)))
    timings = {**timings, "first_visible": request.elapsed_ms(), "total": request.elapsed_ms()}
    yield AnswerEvent("sources", sources=tuple(sources))
    answer = Answer(request.question, "\n".join(lines), Mode.SUMMARIZE, sources=tuple(sources), backend=ctx.backend, language=language, timings_ms=timings)
    yield AnswerEvent("final", answer=answer, groups=tuple(groups))


def summary_line(paper: Paper, sentence: str, n: int) -> str:
    """A paper named, then its contribution in its own cited sentence: "**SureLock**: We propose ...
    [1]". The name is the coined one its title shows, else the title: a line that opens "To address
    this gap, we propose ..." does not say which paper it is."""
    return f"**{paper.name}**: {cite(sentence, [n])}"


def _papers(count: int, language: str) -> str:
    return prompts.say("PAPERS_ONE" if count == 1 else "PAPERS", language, count=count)
