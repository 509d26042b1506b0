"""The list mode: every paper of the corpus that meets a criterion said in words (rag/criteria.py),
counted and listed page by page, each with the sentence of its abstract that shows it; or, for
"the best reported X", the values those papers state, largest first.

No language model writes a list: every line is a paper's own sentence, cited, so a list is true by
construction, and its count is the whole count, not a top k. The papers are all read (a scan of
5,358 abstracts takes milliseconds), not searched for, so a paper that names the thing is never
missed for ranking low.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace

from rag import prompts
from rag.answer import answer_events
from rag.context import Context, Request
from rag.criteria import Criterion, criterion_of
from rag.evidence import contribution_sentence, sentences_of
from rag.filters import papers_called
from rag.language import question_language
from rag.quantities import SUPERLATIVE, Quantity, values
from rag.records import Answer, AnswerEvent, Page, Paper, Source
from rag.retrieval import filter_papers
from rag.routing import Mode, extreme_asked
from rag.summarize import summarize_events
from rag.text import cite

# Papers a page lists (and values an extreme's page shows): a screen of lines, and what a reader
# scans before asking for more.
PAGE_SIZE = 20
# An extreme's topic follows its quantity ("the best speedup reported for speculative decoding")
# or comes before it ("the highest KV cache compression ratio reported"), among these words.
_TOPIC_AFTER = re.compile(r"^\W*(?:[\w\-]+\s+){0,2}?(?:for|on|in|of|among|across|by|with)\s+(.+)$", re.I)
_EXTREME_WORDS = re.compile(
    r"\b(?:what|which|is|are|was|were|the|a|an|reported|stated|achieved|claimed|any|among|across|papers?|corpus|ratios?)\b|'s|[?？.!,]", re.I
)
_HOW_MANY = re.compile(r"\bhow\s+many\b|多少", re.I)
# A Chinese list question that names a theme rather than describing an idea.
_NAMES_A_THEME_ZH = re.compile(r"关于|有关|方面|方向|领域|相关")


def list_events(request: Request, ctx: Context, page: int = 1) -> Iterator[AnswerEvent]:
    """The papers that meet the question's criterion, one page of them (or the values they state)."""
    question = request.asked or request.question
    papers = ctx.corpus.papers_by_id()
    allowed = filter_papers(papers.values(), request.where) if request.where else set(papers)
    quantity = extreme_asked(question)
    texts = [_words(p) for p in papers.values()]
    criterion = criterion_of(f"papers on {_topic(question, quantity)}" if quantity else question, texts)
    if not criterion.ideas and not request.filters and not quantity and not _HOW_MANY.search(question):
        # Nothing to look for in the papers' words (no English term in "有没有关于模型合并的论文？").
        # A question that names a theme ("关于 X", "X 方面") gets a summary of it; one that describes
        # an idea ("有没有用扩散模型直接生成蛋白质动力学轨迹的工作？") is answered as a question. Each
        # falls back on the other when it finds nothing; when neither does, the first one abstains.
        language = question_language(request.question)
        # Generators: neither runs before it is tried.
        summary = _noted(summarize_events(request, ctx), prompts.say("LIST_NOTHING_NAMED", language))
        answer = answer_events(request, ctx)
        tries = (summary, answer) if language == "en" or _NAMES_A_THEME_ZH.search(question) else (answer, summary)
        abstention = None
        for events in tries:
            first = next(events)
            if first.answer is not None and first.answer.abstained:  # an abstention comes alone, as the final event
                abstention = abstention or first
                continue
            yield first
            yield from events
            return
        yield abstention  # type: ignore[misc]
        return
    meeting = [p for p in papers.values() if p.paper_id in allowed and criterion.meets(_words(p))]
    timings = {"retrieve": request.elapsed_ms()}
    # `query` is the question as asked, filter words included: "more" asks it again for the next page.
    base = Answer(question=request.question, text="", mode=Mode.LIST, backend=ctx.backend, language=question_language(request.question), query=request.question)
    if quantity is not None and meeting:
        listed = _extreme(base, quantity, criterion, meeting, request, page)
    elif meeting:
        listed = _page(base, criterion, sorted(meeting, key=lambda p: -_mentions(p, criterion)), request, page)
    else:
        listed = replace(base, text=_nothing(criterion, request, papers, base.language), page=Page(1, PAGE_SIZE, 0))
    yield AnswerEvent("sources", sources=listed.sources)
    timings["total"] = request.elapsed_ms()
    yield AnswerEvent("final", answer=replace(listed, notes=(*listed.notes, *([prompts.ENGLISH_ONLY] if listed.language == "zh" else [])), timings_ms=timings))


def _topic(question: str, quantity: Quantity) -> str:
    """What an extreme asks about: after its quantity ("... speedup for speculative decoding"),
    else between its superlative and its quantity ("the highest KV cache compression ratio")."""
    named = list(quantity.asked.finditer(question))
    if after := _TOPIC_AFTER.match(question[named[-1].end() :]):
        return after.group(1)
    superlative = SUPERLATIVE.search(question)
    between = question[superlative.end() if superlative else 0 : named[-1].start()]
    return " ".join(_EXTREME_WORDS.sub(" ", SUPERLATIVE.sub(" ", between)).split())


def _noted(events: Iterator[AnswerEvent], note: str) -> Iterator[AnswerEvent]:
    for event in events:
        yield replace(event, answer=replace(event.answer, notes=(note, *event.answer.notes))) if event.answer is not None else event


def _paged(items: Sequence[object], page: int) -> tuple[Page, int]:
    """The page to show (the last one when asked for one beyond it) and its first item's index."""
    pages = Page(1, PAGE_SIZE, len(items))
    number = min(max(1, page), pages.pages)
    return Page(number, PAGE_SIZE, len(items)), (number - 1) * PAGE_SIZE


def _footer(page: Page, first: int, shown: int, asked: int, language: str) -> list[str]:
    """Where this page is in the list, and how to see more (or that this was the last page)."""
    if page.pages == 1:
        return []
    last = first + shown
    if page.number < page.pages:
        return ["", prompts.say("LIST_PAGE", language, first=first + 1, last=last, total=page.total, more=min(PAGE_SIZE, page.total - last))]
    return ["", prompts.say("LIST_LAST_AGAIN" if asked > page.number else "LIST_LAST", language, first=first + 1, last=last, total=page.total)]


def _page(base: Answer, criterion: Criterion, ordered: list[Paper], request: Request, asked: int) -> Answer:
    page, first = _paged(ordered, asked)
    shown = ordered[first : first + PAGE_SIZE]
    sources = [Source(n, p, 1.0, _evidence(p, criterion)) for n, p in enumerate(shown, start=1)]
    language = base.language
    what = criterion.describe(language) or prompts.say("LIST_EVERY", language)
    what = re.sub(r"^mention\b", "mentions", what) if len(ordered) == 1 else what
    lines = [prompts.say("LIST_COUNT", language, papers=papers_called(request.filters, len(ordered), language), what=what), ""]
    for rank, s in enumerate(sources, start=first + 1):
        shown_why = cite(" ".join(s.evidence), [s.n]) if s.evidence else prompts.say("LIST_IN_TITLE", language, n=s.n)
        lines.append(f"{rank}. **{s.paper.title}**: {shown_why}")
    lines += _footer(page, first, len(shown), asked, language)
    return replace(base, text="\n".join(lines), sources=tuple(sources), page=page)


def _extreme(base: Answer, quantity: Quantity, criterion: Criterion, meeting: list[Paper], request: Request, asked: int) -> Answer:
    """The largest value of `quantity` each paper states next to its words, largest first, each in its sentence."""
    found: list[tuple[float, str, str, Paper, str]] = []
    for paper in meeting:
        stated = [(value, written, unit, sentence) for sentence in sentences_of(paper) for value, written, unit in values(quantity, sentence)]
        # One unit per answer: the quantity's first unit any paper states ("×" before "%" for memory).
        if stated:
            value, written, unit, sentence = max(stated, key=lambda v: (quantity.units.index(v[2]) == 0, v[0]))
            found.append((value, written, unit, paper, sentence))
    units = [u for u in quantity.units if any(f[2] == u for f in found)]
    found = sorted((f for f in found if units and f[2] == units[0]), key=lambda f: -f[0])
    language = base.language
    what = prompts.say("THAT", language, what=criterion.describe(language)) if criterion.ideas else prompts.say("LIST_EVERY", language)
    called = papers_called(request.filters, len(meeting), language)
    name = quantity.name_zh if language == "zh" and quantity.name_zh else quantity.name
    if not found:
        return replace(base, text=prompts.say("EXTREME_NONE", language, papers=called, what=what, quantity=name), page=Page(1, PAGE_SIZE, 0))
    page, first = _paged(found, asked)
    shown = found[first : first + PAGE_SIZE]
    sources = [Source(n, paper, 1.0, (sentence,)) for n, (_, _, _, paper, sentence) in enumerate(shown, start=1)]
    largest = found[0]
    head = prompts.say("EXTREME_HEAD", language, quantity=name, papers=called, what=what, value=f"{largest[1]}{largest[2]}", stating=len(found))
    lines = [cite(head, [1]) if first == 0 else head + prompts.say("FULL_STOP", language), "", prompts.say("EXTREME_CAVEAT", language), ""]
    for n, (_, written, unit, _, sentence) in enumerate(shown, start=1):
        lines.append(f"{first + n}. **{written}{unit}**: {cite(sentence, [n])}")
    lines += _footer(page, first, len(shown), asked, language)
    return replace(base, text="\n".join(lines), sources=tuple(sources), page=page)


def _nothing(criterion: Criterion, request: Request, papers: dict[str, Paper], language: str) -> str:
    """Why nothing is listed: no abstract names an idea at all, the ideas never meet, or the filter leaves none."""
    every = list(papers.values())
    counts = [sum(bool(i.pattern.search(_words(p))) for p in every) for i in criterion.ideas]
    absent = [i.said for i, c in zip(criterion.ideas, counts, strict=True) if c == 0]
    if absent:
        listed = prompts.say("LIST_SEPARATOR", language).join(f"“{a}”" for a in absent)
        return prompts.say("LIST_NONE_MENTION", language, papers=f"{len(every):,}", what=listed)
    together = sum(criterion.meets(_words(p)) for p in every)
    if request.filters:
        what = prompts.say("THAT", language, what=criterion.describe(language)) if criterion.ideas else prompts.say("LIST_EVERY", language)
        called = papers_called(request.filters, prompts.say("NO_COUNT", language), language)
        return prompts.say("LIST_NONE_FILTERED", language, papers=called, what=what, outside=together)
    separately = "; ".join(prompts.say("MENTIONED_BY", language, count=c, what=f"“{i.said}”") for i, c in zip(criterion.ideas, counts, strict=True))
    return prompts.say("LIST_NONE_TOGETHER", language, separately=separately)


def _words(paper: Paper) -> str:
    return f"{paper.title} {paper.abstract}"


def _mentions(paper: Paper, criterion: Criterion) -> int:
    """How much a paper is about the criterion: its title naming it counts most, then its sentences."""
    if not criterion.ideas:
        return 0
    title = 3 if not paper.title_is_generated and criterion.meets(paper.title) else 0
    return title + sum(any(i.pattern.search(s) for i in criterion.ideas) for s in sentences_of(paper))


def _evidence(paper: Paper, criterion: Criterion) -> tuple[str, ...]:
    """The sentence that names the most of the ideas; with ideas in different sentences, one each."""
    if not criterion.ideas:
        return (contribution_sentence(paper),)
    sentences = sentences_of(paper)
    named = [(sum(bool(i.pattern.search(s)) for i in criterion.ideas), -k, s) for k, s in enumerate(sentences)]
    best = max(named, default=(0, 0, ""))
    if best[0] == len(criterion.ideas) or best[0] == 0:
        return (best[2],) if best[0] else ()
    chosen: list[str] = []
    for idea in criterion.ideas:
        sentence = next((s for s in sentences if idea.pattern.search(s)), "")
        if sentence and sentence not in chosen:
            chosen.append(sentence)
    return tuple(chosen[:2])
