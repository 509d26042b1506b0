"""The compare mode: the papers a request names, lined up aspect by aspect in a table, then a
paragraph of similarities and differences drafted from the table's cells and verified.

Each cell is one sentence of that paper's own abstract, chosen for the aspect by the words that
signal it ("we propose" for the approach, "dataset"/"benchmark" for the data, "x faster"/"memory"
for the cost, ...) and cited, or "not stated in the abstract". Cells are excerpts, never
paraphrases, so a table is true by construction; what can go wrong is the choice of sentence,
which is why the cue words are strict and an unmatched aspect says so instead of guessing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace

from rag import prompts
from rag.aspects import APPROACH, COST, CUES, DATA, LIMITATIONS, PROBLEM, RESULTS, TABLE_ASPECT_MESSAGES, TABLE_ASPECTS
from rag.context import Context, Request, ms_since
from rag.conversation import referenced
from rag.evidence import grounding, sentences_of
from rag.language import question_language
from rag.records import NOT_STATED, Answer, AnswerEvent, Comparison, Hit, Source
from rag.routing import Mode
from rag.text import cite
from rag.verify import Draft, Verifier, draft_messages

ASPECTS = TABLE_ASPECTS  # the table's columns, in order (rag/aspects.py)
# Most papers a table lines up: beyond six, rows stop fitting a screen and a summary serves better.
MAX_PAPERS = 6


def compare(sources: Sequence[Source], language: str = "en") -> Comparison:
    """The table of `sources`, its header and empty cells in the answer's language (the cells are excerpts: English)."""
    header = tuple(prompts.say(name, language) for name in ("TABLE_PAPER", *TABLE_ASPECT_MESSAGES))
    rows = tuple((s.n, s.paper.title, aspect_cells(s)) for s in sources[:MAX_PAPERS])
    return Comparison(TABLE_ASPECTS, rows, header, prompts.say("TABLE_NOT_STATED", language))


def aspect_cells(source: Source) -> tuple[str, ...]:
    """For each aspect, the abstract sentence that states it best, or NOT_STATED. A sentence
    serves one aspect only, given to the aspect whose cues it matches most plainly."""
    sentences = sentences_of(source.paper)
    taken: set[int] = set()
    cells: dict[str, str] = {}
    # Rarest aspects pick first, so that the one sentence with a dataset and a speed-up is not
    # spent on "results" when it is the only one that says anything about cost.
    for aspect in (LIMITATIONS, COST, DATA, PROBLEM, APPROACH, RESULTS):
        scored = []
        for i, sentence in enumerate(sentences):
            hits = len(CUES[aspect].findall(sentence))
            if not hits or i in taken:
                continue
            # The problem is stated early, the results (and the method's own costs) late: position breaks ties.
            position = i / max(1, len(sentences) - 1)
            prior = {PROBLEM: 1 - position, RESULTS: position, COST: position}.get(aspect, 0.0)
            scored.append((hits + 0.5 * prior, -i, i))
        if scored:
            best = max(scored)[2]
            taken.add(best)
            cells[aspect] = sentences[best]
    return tuple(cells.get(aspect, NOT_STATED) for aspect in TABLE_ASPECTS)


# Where a comparison request separates the things it compares.
_SEPARATORS = re.compile(r"\s*(?:,|;|:|\band\b|\bwith\b|\bvs\.?|\bversus\b|\bor\b|\bfrom\b|\bto\b|和|与|跟|及|、|，)\s*", re.I)
_REQUEST_WORDS = re.compile(
    r"\b(?:compare|comparing|contrast|differences?|differ|between|how|do|does|what|which|are|is|the|their|approaches?|faster|better|"
    r"more|less|papers?|paper's|s)\b|比较|对比|一下|有什么|区别|不同|哪个|更快|更好|[?？]",
    re.I,
)


def comparison_parts(question: str) -> list[str]:
    """The phrases of a comparison request that each describe one paper: "Contrast MICLIP with
    the Circuit Insights paper" → ["MICLIP", "Circuit Insights"]."""
    parts = [" ".join(_REQUEST_WORDS.sub(" ", part).split()) for part in _SEPARATORS.split(question)]
    return [part for part in parts if len(part) >= 3]


def papers_to_compare(request: Request, ctx: Context) -> list[Hit]:
    """The papers a comparison request means, in its order: sources of an earlier answer it
    refers to ("[1] and [3]", "them"), papers it names, papers its phrases describe ("the
    Circuit Insights paper"), else the papers of a theme ("the Gaussian Splatting papers")."""
    question, corpus = request.asked or request.question, ctx.corpus
    papers = corpus.papers_by_id()
    chosen: dict[str, Hit] = {}
    for paper_id in [*referenced(question, request.history), *corpus.papers_named(question)]:
        if paper_id in papers:
            chosen.setdefault(paper_id, Hit(papers[paper_id], 1.0, relevance=1.0))
    parts = comparison_parts(question)
    if len(chosen) < 2 and len(parts) >= 2:
        for part in (p for p in parts if not corpus.papers_named(p)):
            found = corpus.search(part, 1, where=request.where)
            # A part in Chinese was searched in the multilingual channel: its own thresholds, its English words.
            about = ctx.calibration_for(found)
            if found.hits and grounding(found.query or part, found.hits[0], about) >= about.min_grounding:
                chosen.setdefault(found.hits[0].paper.paper_id, found.hits[0])
    if len(chosen) < 2:
        theme = " ".join(parts) or question
        found = corpus.search(theme, MAX_PAPERS, where=request.where)
        about = ctx.calibration_for(found)
        for hit in found.hits:
            if grounding(found.query or theme, hit, about) >= about.min_grounding:
                chosen.setdefault(hit.paper.paper_id, hit)
    return list(chosen.values())[:MAX_PAPERS]


def compare_events(request: Request, hits: Sequence[Hit], ctx: Context) -> Iterator[AnswerEvent]:
    """Compare the papers of `hits` (in the order the request named them): the table first
    (excerpts, true by construction), then the verified paragraph."""
    timings = {"retrieve": request.elapsed_ms()}
    question = request.question
    language = question_language(question)
    papers = [Source(n, hit.paper, hit.relevance) for n, hit in enumerate(hits, start=1)]
    table = compare(papers, language)
    stated = {n: tuple(c for c in cells if c != NOT_STATED) for n, _, cells in table.rows}
    sources = [replace(s, evidence=stated.get(s.n, ())) for s in papers[: len(table.rows)]]
    timings["evidence"] = request.elapsed_ms()
    timings["first_visible"] = request.elapsed_ms()
    yield AnswerEvent("sources", sources=tuple(sources))
    verifier = Verifier(sources, ctx.vectors, question, ctx.calibration, language)
    # One sentence more than an answer: a comparison has a paper more to speak of.
    limit = ctx.max_sentences + 1
    draft = Draft(ctx.chat, draft_messages(question, sources, limit, prompts.COMPARE_USER), verifier, limit)
    mark = time.perf_counter()
    for sentence in draft:
        yield AnswerEvent("sentence", text=sentence)
    if ctx.chat is not None:
        timings["draft"] = ms_since(mark)
    instead = prompts.say("COMPARE_INSTEAD", language)
    notes = [prompts.say("BACKEND_FAILED", language, failure=draft.failure, instead=instead)] if draft.failure else []
    # Without a (surviving) draft, the paragraph states each paper's approach in its own words.
    approaches = [cite(cells[1], [n]) for n, _, cells in table.rows if cells[1] != NOT_STATED]
    text = " ".join(draft.kept) if draft.kept else " ".join(approaches)
    if language == "zh":
        notes.append(prompts.ENGLISH_ONLY)
        if text:
            # The paragraph is English (verified, or the abstracts' own): a Chinese line says what it is.
            text = prompts.say("LEAD_DRAFT" if draft.kept else "LEAD_APPROACHES", language) + "\n\n" + text
    text = text or prompts.say("COMPARE_NOTHING_STATED", language)
    timings["total"] = request.elapsed_ms()
    answer = Answer(
        question=question,
        text=text,
        mode=Mode.COMPARE,
        sources=tuple(sources),
        dropped=tuple(verifier.dropped),
        backend=ctx.backend,
        language=language,
        extractive=not draft.kept,
        notes=tuple(notes),
        query=question,
        timings_ms=timings,
        comparison=table,
    )
    yield AnswerEvent("final", answer=answer)
