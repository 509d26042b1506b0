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
from rag.aspects import AUTHORS, CODE, GENERAL, LINK_ASKED, MESSAGES, RESULTS, aspect_asked, own_part, stating
from rag.calibration import Calibration
from rag.context import Context, Request, ms_since
from rag.conversation import Resolved, condense, names_something, resolve, resolve_as_followup
from rag.errors import PaperchatError
from rag.evidence import EVIDENCE_PER_SOURCE, about_question, contribution_sentence, grounding, select, sentences_of
from rag.language import question_language
from rag.records import Answer, AnswerEvent, Evidence, Hit, Paper, Source
from rag.summarize import theme_summary_events
from rag.text import citations, cite, key_terms, names, plain
from rag.theme_request import CORPUS_QUESTION, sole_theme
from rag.verify import Draft, Verifier, draft_messages, translation

# A drafted sentence joins the evidence when it brings at least this many key terms the evidence
# and the question lack, and at most this many such sentences: the rest rewords the evidence.
MIN_NEW_TERMS = 2
MAX_ADDED_SENTENCES = 2


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
    relevant = (list(hits) if pinned else about_question(query or question, hits, about))[: ctx.max_sources]
    # A question searched in another language has only a guess at its theme's English phrase:
    # answered about the corpus only when it asks about the corpus ("…方面的论文主要在解决什么问题"),
    # not when nothing answers it ("大模型生成文本的水印怎么做才能扛住改写攻击？" on the seeds).
    asked = request.asked or question
    about_corpus = about is ctx.calibration or CORPUS_QUESTION.search(asked)
    # A theme read off a question that asks more than a theme would find papers for part of it.
    if not relevant and not pinned and about_corpus and (theme := sole_theme(asked)):
        # Nothing answers it as a question about one paper; maybe it asks about the corpus in
        # other words ("What problem do most papers about 3D reconstruction try to solve?").
        *events, final = theme_summary_events(request, theme, ctx, timings, asked)
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
    subject = _about_one_paper(request, relevant, pinned, ctx)
    aspect = aspect_asked(request.asked or question) if subject else None
    # The best paper answers an English question from its own part of the abstract, not the
    # background it opens with ("However, they still recompute ..."; a Chinese question's English
    # words are a guess at the problem it describes, which the background states). An aspect is
    # answered from the sentences that state it, most plainly first; "What does SureLock do?" with
    # what it does and what it reports.
    within = {p.paper_id: own_part(sentences_of(p), contribution_sentence(p)) for p in [relevant[0].paper] if language == "en"}
    stated = stating(aspect, sentences_of(subject))[: ctx.max_sentences] if subject and aspect else []
    if subject and stated:
        within[subject.paper_id] = stated
    elif subject and not aspect and GENERAL.search(request.asked or question):
        own = own_part(sentences_of(subject), contribution_sentence(subject))
        within[subject.paper_id] = list(dict.fromkeys([contribution_sentence(subject), *stating(RESULTS, own)[:1]]))
    # About one paper: as many of its sentences as an answer holds, not the two a card shows.
    per_source = ctx.max_sentences if subject else EVIDENCE_PER_SOURCE
    sources, evidence = select(english, relevant, ctx.vectors, per_source, cal, within)
    timings["evidence"] = ms_since(mark)
    timings["first_visible"] = request.elapsed_ms()
    yield AnswerEvent("sources", sources=tuple(sources))

    verifier = Verifier(sources, ctx.vectors, question, cal, language)
    # Only a capable backend drafts an answer: the bundled 135M model's sentences that passed the
    # checker and added to the evidence were wrong in 5 of 7 answers read by hand (issue 14), and
    # its drafts alone held fewer of the expected answers' words than the evidence (0.500 vs 0.625).
    drafter = ctx.chat if ctx.capable else None
    draft = Draft(drafter, draft_messages(english, sources, ctx.max_sentences), verifier, ctx.max_sentences)
    mark = time.perf_counter()
    for sentence in draft:
        timings.setdefault("first_sentence", request.elapsed_ms())
        yield AnswerEvent("sentence", text=sentence)
    if drafter is not None:
        timings["draft"] = ms_since(mark)
    if draft.failure:
        instead = prompts.say("ANSWER_INSTEAD" if not draft.kept else "PARTIAL_INSTEAD", language)
        notes.append(prompts.say("BACKEND_FAILED", language, failure=draft.failure, instead=instead))
    # The evidence answers; the model's sentences join it only where they add to it.
    from_evidence = extractive_answer(evidence, sources, ctx.max_sentences, cal, language, per_source)
    added = _adding(draft.kept, from_evidence, question, ctx, cal)
    text = " ".join([from_evidence, *added]) if from_evidence else " ".join(draft.kept)
    extractive = not added and bool(from_evidence)
    if extractive and pinned and len(sources) == 1 and evidence and evidence[0].score < cal.not_stated_below and not aspect:
        # Said beside the answer, not in it: the answer's text holds only checked, cited sentences.
        notes.append(prompts.say("NOT_STATED", language, n=evidence[0].n))
    if drafter is not None and not draft.kept and not draft.failure:
        notes.append(prompts.say("DRAFT_UNSUPPORTED", language))
    if (subject := subject or _only_cited(text, sources)) is not None:
        text = _lead(subject, aspect, bool(stated), sources, text, language, request.asked or question)

    if language == "zh":
        mark = time.perf_counter()
        translated = translation(ctx.chat, text) if ctx.chat is not None and ctx.capable else None
        if translated:
            text = translated
        else:
            notes.append(prompts.ENGLISH_ONLY)
            if added or evidence:
                # The sentences stay English (a model that cannot write Chinese must not try), under a
                # heading in the reader's language: the checker's own rule, a line ending in a colon
                # states nothing, so the answer still holds only checked, cited sentences.
                text = prompts.say("LEAD_DRAFT" if added else "LEAD_EVIDENCE", language) + "\n\n" + text
        timings["translate"] = ms_since(mark)
    timings["total"] = request.elapsed_ms()
    answer = replace(base, text=text, sources=tuple(sources), dropped=tuple(verifier.dropped), extractive=extractive, notes=tuple(notes), timings_ms=timings)
    yield AnswerEvent("final", answer=answer)


def _about_one_paper(request: Request, relevant: Sequence[Hit], pinned: bool, ctx: Context) -> Paper | None:
    """The paper a question is about when it is about one: the one it names, or the only one it refers to."""
    if not relevant:
        return None
    top, asked = relevant[0].paper, request.asked or request.question
    # Named: by the corpus's index of names, or by a coined name the question and the abstract share
    # (the index holds the names an abstract gives itself plainly, not "\textsc{SureLock}").
    said = names(asked) & names(plain(f"{top.title} {top.abstract}"))
    if top.paper_id in ctx.corpus.papers_named(asked) or said or (pinned and len(relevant) == 1):
        return top
    return None


def _only_cited(text: str, sources: Sequence[Source]) -> Paper | None:
    """The one paper an answer cites, when it cites one."""
    cited = set(citations(text))
    return next((s.paper for s in sources if s.n in cited), None) if len(cited) == 1 else None


def _adding(drafted: Sequence[str], base: str, question: str, ctx: Context, cal: Calibration) -> list[str]:
    """The drafted sentences that say what the evidence does not: new key terms, not a rewording."""
    if not drafted or not base:
        return []
    known = key_terms(base) | key_terms(question)
    kept: list[str] = []
    for sentence in drafted:
        new = key_terms(sentence) - known
        vectors = ctx.vectors([sentence, base])
        if len(new) >= MIN_NEW_TERMS and float(vectors[1] @ vectors[0]) < cal.repeat_cosine:
            kept.append(sentence)
            known |= new
    return kept[:MAX_ADDED_SENTENCES]


def _lead(paper: Paper, aspect: str | None, stated: bool, sources: Sequence[Source], text: str, language: str, question: str) -> str:
    """The answer about one paper under a line that names it; for a link or authors question, the
    record's own field; for an aspect its abstract does not state, a line that says so."""
    n = next((s.n for s in sources if s.paper.paper_id == paper.paper_id), 1)
    name = paper.name
    if aspect == AUTHORS:
        line = prompts.say("RECORD_AUTHORS", language, paper=name, n=n, authors=", ".join(paper.authors)) if paper.authors else None
        return f"{line}\n\n{text}" if line else prompts.say("RECORD_NO_AUTHORS", language, paper=name, n=n) + "\n\n" + text
    if aspect == CODE and LINK_ASKED.search(question):
        if paper.url:
            return prompts.say("RECORD_LINK", language, paper=name, n=n, url=paper.url) + ("\n\n" + text if stated else "")
        if not stated:
            return prompts.say("RECORD_NO_LINK", language, paper=name, n=n) + "\n\n" + text
    if aspect and not stated:
        return prompts.say("ASPECT_NOT_STATED", language, paper=name, n=n, aspect=prompts.say(MESSAGES[aspect], language)) + "\n\n" + text
    if name.lower() in text.lower():
        return text
    return prompts.say("ABOUT_PAPER", language, paper=name, n=n) + "\n\n" + text


def extractive_answer(
    evidence: Sequence[Evidence], sources: Sequence[Source], max_sentences: int, cal: Calibration, language: str = "en", from_best: int = 2
) -> str:
    """The best evidence sentences, each cited. True by construction: they are the abstracts'
    own sentences. The best source gives up to `from_best`; another source's sentence joins only when
    it answers nearly as well, so a question about one paper is not padded with others. `from_best`:
    how many the best source may give (a question about that one paper: as many as the answer holds)."""
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
            if sum(p.n == best.n for p in picked) < from_best or len(sources) == 1:
                picked.append(item)
        elif item.score >= best.score - cal.extractive_margin and all(p.n != item.n for p in picked):
            picked.append(item)
    return " ".join(cite(item.sentence, [item.n]) for item in picked)
