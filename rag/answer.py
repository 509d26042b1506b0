"""The answer mode: a question about the papers, answered from the sentences of the abstracts
that answer it.

    question ──find_sources──▶ hits   (follow-ups resolved, a named paper first, a capable
      │                                backend's standalone rewrite)
      ├─ no paper about it ──▶ "nothing in the corpus is about this" + possibly related papers
      ▼ evidence.select        sources [1..n], each with the sentences that answer: shown at once
      ▼ verify.Draft           the LLM's draft, each sentence checked as it streams
      ▼ nothing survived? ──▶ an extractive answer made of the evidence sentences themselves
      ▼ a Chinese question and a capable backend ──▶ verify.translation; else the English
                               sentences under a Chinese line saying what they are

Everything said around the evidence (notes, the lead line, the abstention) is in the question's
language (rag/prompts.py `say`); the evidence is the abstracts' English, cited.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import replace

from rag import prompts
from rag.calibration import Calibration
from rag.context import Context, Request, ms_since
from rag.conversation import Resolved, condense, names_something, resolve, resolve_as_followup
from rag.errors import PaperchatError
from rag.evidence import grounding, select
from rag.language import question_language
from rag.records import Answer, AnswerEvent, Evidence, Hit, Source
from rag.routing import CORPUS_QUESTION
from rag.summarize import theme_summary_events
from rag.text import cite
from rag.themes import theme_of
from rag.verify import Draft, Verifier, draft_messages, translation


def answer_events(request: Request, ctx: Context, notes: Sequence[str] = ()) -> Iterator[AnswerEvent]:
    """The sources with their evidence as soon as retrieval is done, each verified sentence as
    the LLM writes it, then the final `Answer`. `notes`: said with the answer (why it is an
    answer when something else was asked)."""
    hits, query, pinned, about = find_sources(request, ctx)
    yield from _answer(request, hits, query, pinned, about, ctx, list(notes), {"retrieve": request.elapsed_ms()})


def find_sources(request: Request, ctx: Context) -> tuple[list[Hit], str, bool, Calibration]:
    """The papers a question is about, the query that found them, whether they are papers the
    question refers to (an earlier answer's, or chosen in the explorer: never abstained on), and
    the thresholds their relevance is judged by."""
    question, history, corpus = request.asked or request.question, request.history, ctx.corpus
    resolved = resolve(question, history, corpus.papers_named)
    if request.about:
        papers = corpus.papers_by_id()
        asked_about = tuple(p for p in request.about if p in papers)
        if not asked_about:
            raise PaperchatError("The paper asked about is no longer in the corpus; pick it again in the explorer.")
        resolved = Resolved(" ".join([question, *(papers[p].title for p in asked_about)]), asked_about)
    query = condense(ctx.chat, ctx.capable, question, history, resolved.query)
    named = corpus.papers_named(query)
    found = corpus.search(query, ctx.max_sources, where=request.where, paper_ids=resolved.pinned or None)
    hits, cal = found.hits, ctx.calibration_for(found)
    # A question in another language is scored by the English words it was searched with.
    query = found.query or query
    if history and not resolved.pinned and not names_something(question) and not any(grounding(query, h, cal) >= cal.min_grounding for h in hits):
        # In a conversation, a question that is about nothing in the corpus on its own
        # ("What turned out to be the bottleneck?") is about what the last turn was about.
        resolved = resolve_as_followup(question, history)
        found = corpus.search(resolved.query, ctx.max_sources, where=request.where, paper_ids=resolved.pinned or None)
        hits, query, cal = found.hits, found.query or resolved.query, ctx.calibration_for(found)
    if resolved.pinned:
        # The papers referred to, in the order the question or the earlier answer gave them.
        order = {p: i for i, p in enumerate(resolved.pinned)}
        hits = sorted(hits, key=lambda h: order.get(h.paper.paper_id, len(order)))
    elif named:
        # A question naming a paper is about that paper: its name outranks looser matches.
        hits = [h for h in hits if h.paper.paper_id in named] or hits
    return hits, query, bool(resolved.pinned), cal


def _answer(
    request: Request,
    hits: Sequence[Hit],
    query: str,
    pinned: bool,
    about: Calibration,
    ctx: Context,
    notes: list[str],
    timings: dict[str, float],
) -> Iterator[AnswerEvent]:
    """`about`: the thresholds for whether a hit is about the question (find_sources')."""
    question, cal = request.question, ctx.calibration
    language = question_language(question)
    # Notes a caller made in English (rag/api.py's COMPARE_NEEDS_TWO), said in the reader's language.
    notes = [prompts.in_language(note, language) for note in notes]
    base = Answer(question=question, text="", backend=ctx.backend, language=language, query=query or question)
    scores = [grounding(query or question, h, about) for h in hits]
    floor = max(about.min_grounding, max(scores, default=0.0) - about.source_margin)
    relevant = [h for h, score in zip(hits, scores, strict=True) if pinned or score >= floor][: ctx.max_sources]
    # A question searched in another language has only a guess at its theme's English phrase:
    # answered about the corpus only when it asks about the corpus ("…方面的论文主要在解决什么问题"),
    # not when nothing answers it ("大模型生成文本的水印怎么做才能扛住改写攻击？" on the seeds).
    about_corpus = about is ctx.calibration or CORPUS_QUESTION.search(request.asked or question)
    if not relevant and not pinned and about_corpus and (theme := theme_of(request.asked or question)):
        # Nothing answers it as a question about one paper; maybe it asks about the corpus in
        # other words ("What problem do most papers about 3D reconstruction try to solve?").
        *events, final = theme_summary_events(request, theme, ctx, timings)
        if final.answer is not None and not final.answer.abstained:
            yield from events
            notes = [prompts.say("AS_CORPUS_QUESTION", language, theme=theme), *notes, *final.answer.notes]
            yield replace(final, answer=replace(final.answer, notes=tuple(notes)))
            return
    if not relevant:
        text = prompts.abstain(language, len(ctx.corpus.papers_by_id()))
        timings["total"] = request.elapsed_ms()
        yield AnswerEvent("final", answer=replace(base, text=text, abstained=True, related=tuple(hits[:3]), notes=tuple(notes), timings_ms=timings))
        return

    mark = time.perf_counter()
    # Evidence is scored in English: a question in another language by its English words. (The
    # multilingual encoder reading the question itself picked the right paper's sentences less
    # often: 12 of 13 Chinese dev questions against 13 of 13, the same answer terms.)
    english = question if language == "en" else (query or question)
    sources, evidence = select(english, relevant, ctx.vectors, cal=cal)
    timings["evidence"] = ms_since(mark)
    timings["first_visible"] = request.elapsed_ms()
    yield AnswerEvent("sources", sources=tuple(sources))

    verifier = Verifier(sources, ctx.vectors, question, cal, language)
    draft = Draft(ctx.chat, draft_messages(english, sources, ctx.max_sentences), verifier, ctx.max_sentences)
    mark = time.perf_counter()
    for sentence in draft:
        timings.setdefault("first_sentence", request.elapsed_ms())
        yield AnswerEvent("sentence", text=sentence)
    if ctx.chat is not None:
        timings["draft"] = ms_since(mark)
    extractive = not draft.kept
    if draft.failure:
        instead = prompts.say("ANSWER_INSTEAD" if extractive else "PARTIAL_INSTEAD", language)
        notes.append(prompts.say("BACKEND_FAILED", language, failure=draft.failure, instead=instead))
    text = " ".join(draft.kept) if draft.kept else extractive_answer(evidence, sources, ctx.max_sentences, cal, language)
    if extractive and pinned and len(sources) == 1 and evidence and evidence[0].score < cal.not_stated_below:
        # Said beside the answer, not in it: the answer's text holds only checked, cited sentences.
        notes.append(prompts.say("NOT_STATED", language, n=evidence[0].n))
    if ctx.chat is not None and extractive and not draft.failure:
        notes.append(prompts.say("DRAFT_UNSUPPORTED", language))

    if language == "zh":
        mark = time.perf_counter()
        translated = translation(ctx.chat, text) if ctx.chat is not None and ctx.capable else None
        if translated:
            text = translated
        else:
            notes.append(prompts.ENGLISH_ONLY)
            if draft.kept or evidence:
                # The sentences stay English (a model that cannot write Chinese must not try), under a
                # heading in the reader's language: the checker's own rule, a line ending in a colon
                # states nothing, so the answer still holds only checked, cited sentences.
                text = prompts.say("LEAD_DRAFT" if draft.kept else "LEAD_EVIDENCE", language) + "\n\n" + text
        timings["translate"] = ms_since(mark)
    timings["total"] = request.elapsed_ms()
    answer = replace(base, text=text, sources=tuple(sources), dropped=tuple(verifier.dropped), extractive=extractive, notes=tuple(notes), timings_ms=timings)
    yield AnswerEvent("final", answer=answer)


def extractive_answer(evidence: Sequence[Evidence], sources: Sequence[Source], max_sentences: int, cal: Calibration, language: str = "en") -> str:
    """The best evidence sentences, each cited. True by construction: they are the abstracts'
    own sentences. The best source gives up to two; another source's sentence joins only when
    it answers nearly as well, so a question about one paper is not padded with others."""
    if not evidence:
        # Abstracts with no usable sentence (all instructions, say): point at the sources. The title
        # loses its final stop as `cite` would take it, so the citation ends the sentence.
        return " ".join(prompts.say("SEE_ABSTRACT", language, title=s.paper.title.rstrip().rstrip(".;,: "), n=s.n) for s in sources[:max_sentences])
    best = evidence[0]
    picked = [best]
    for item in evidence[1:]:
        if len(picked) >= max_sentences:
            break
        if item.n == best.n:
            if sum(p.n == best.n for p in picked) < 2 or len(sources) == 1:
                picked.append(item)
        elif item.score >= best.score - cal.extractive_margin and all(p.n != item.n for p in picked):
            picked.append(item)
    return " ".join(cite(item.sentence, [item.n]) for item in picked)
