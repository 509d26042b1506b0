"""The list mode: every paper of the corpus that meets a criterion said in words (rag/criteria.py),
counted and listed page by page, each with the sentence of its abstract that shows it; or, for
"the best reported X", the numbers those papers state, largest first.

No language model writes a list: every line is a paper's own sentence, cited, so a list is true by
construction, and its count is the whole count, not a top k. The papers are all read (a scan of
5,358 abstracts takes milliseconds), not searched for, so a paper that names the thing is never
missed for ranking low.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from rag import prompts
from rag.context import Context, Request
from rag.criteria import Criterion, criterion_of
from rag.evidence import contribution_sentence, sentences_of
from rag.quantities import SUPERLATIVE, Quantity, quantity_asked
from rag.records import Answer, AnswerEvent, Page, Paper, Source
from rag.retrieval import filter_papers
from rag.routing import Mode
from rag.text import cite, language_of

# Papers a page lists: a screen of lines, and what a reader scans before asking for more.
PAGE_SIZE = 20
# The most numbers an extreme's answer lists: the largest few say it; the sources hold them all.
MAX_VALUES = 20


# An extreme's topic follows its quantity ("the best speedup reported for speculative decoding")
# or comes before it ("the highest KV cache compression ratio reported"), among these words.
_TOPIC_AFTER = re.compile(r"^\W*(?:\w+\s+){0,2}?(?:for|on|in|of|among|across|by|with)\s+(.+)$", re.I)
_EXTREME_WORDS = re.compile(r"\b(?:what|which|is|are|was|were|the|a|an|reported|stated|achieved|claimed|any)\b|[?？.!]", re.I)


def _topic(question: str, quantity: Quantity) -> str:
    asked = quantity.asked.search(question)
    assert asked is not None  # quantity_asked found it
    if after := _TOPIC_AFTER.match(question[asked.end() :]):
        return after.group(1)
    before = SUPERLATIVE.sub(" ", question[: asked.start()])
    return " ".join(_EXTREME_WORDS.sub(" ", before).split())


def list_events(request: Request, ctx: Context, page: int = 1) -> Iterator[AnswerEvent]:
    """The papers that meet the question's criterion, one page of them (or the numbers they state)."""
    timings = {"retrieve": 0.0}
    question = request.asked or request.question
    papers = ctx.corpus.papers_by_id()
    allowed = filter_papers(papers.values(), request.where) if request.where else set(papers)
    pool = [p for p in papers.values() if p.paper_id in allowed]
    quantity = quantity_asked(question)
    texts = [_words(p) for p in papers.values()]
    criterion = criterion_of(f"papers on {_topic(question, quantity)}" if quantity else question, texts)
    meeting = [p for p in pool if criterion.meets(_words(p))]
    timings["retrieve"] = request.elapsed_ms()
    # `query` is the question as asked, filter words included: "more" asks it again for the next page.
    base = Answer(question=request.question, text="", mode=Mode.LIST, backend=ctx.backend, language=language_of(request.question), query=request.question)
    if quantity is not None and meeting:
        answer = _extreme(base, quantity, criterion, meeting, request)
    else:
        answer = _page(base, criterion, meeting, request, papers, page)
    yield AnswerEvent("sources", sources=answer.sources)
    notes = [*answer.notes, *([prompts.ENGLISH_ONLY] if answer.language == "zh" else [])]
    timings["total"] = request.elapsed_ms()
    yield AnswerEvent("final", answer=replace(answer, notes=tuple(notes), timings_ms=timings))


def _page(base: Answer, criterion: Criterion, meeting: list[Paper], request: Request, papers: dict[str, Paper], page: int) -> Answer:
    if not meeting:
        return replace(base, text=_nothing(criterion, request, papers), page=Page(1, PAGE_SIZE, 0))
    ordered = sorted(meeting, key=lambda p: -_mentions(p, criterion))
    pages = Page(1, PAGE_SIZE, len(ordered))
    number = min(max(1, page), pages.pages)
    shown = ordered[(number - 1) * PAGE_SIZE : number * PAGE_SIZE]
    sources = [Source(n, p, 1.0, _evidence(p, criterion)) for n, p in enumerate(shown, start=1)]
    what = criterion.describe() or "in the corpus"
    what = re.sub(r"^mention\b", "mentions", what) if len(ordered) == 1 else what
    head = prompts.LIST_COUNT.format(papers=_called(request, len(ordered)), what=what)
    lines = [head, ""]
    for s in sources:
        shown_why = cite(" ".join(s.evidence), [s.n]) if s.evidence else prompts.LIST_IN_TITLE.format(n=s.n)
        lines.append(f"{s.n}. **{s.paper.title}**: {shown_why}")
    first, last = (number - 1) * PAGE_SIZE + 1, (number - 1) * PAGE_SIZE + len(shown)
    if pages.pages > 1:
        lines += ["", prompts.LIST_PAGE.format(first=first, last=last, total=len(ordered), more=min(PAGE_SIZE, len(ordered) - last))]
    return replace(base, text="\n".join(lines).rstrip(), sources=tuple(sources), page=Page(number, PAGE_SIZE, len(ordered)))


def _extreme(base: Answer, quantity: Quantity, criterion: Criterion, meeting: list[Paper], request: Request) -> Answer:
    """The largest value of `quantity` each paper states, largest first, each in its own sentence."""
    found: list[tuple[float, str, Paper, str]] = []
    for paper in meeting:
        best = max(
            ((float(m.group(1)), m.group(1), s) for s in sentences_of(paper) if quantity.cue.search(s) for m in quantity.number.finditer(s)),
            default=None,
        )
        if best is not None:
            found.append((best[0], best[1], paper, best[2]))
    found.sort(key=lambda f: -f[0])
    if not found:
        text = prompts.EXTREME_NONE.format(papers=_called(request, len(meeting)), what=criterion.describe(), quantity=quantity.name)
        return replace(base, text=text, page=Page(1, PAGE_SIZE, 0))
    shown = found[:MAX_VALUES]
    sources = [Source(n, paper, 1.0, (sentence,)) for n, (_, _, paper, sentence) in enumerate(shown, start=1)]
    value = f"{shown[0][1]}{quantity.unit}"
    papers = _called(request, len(meeting))
    head = prompts.EXTREME_HEAD.format(quantity=quantity.name, papers=papers, what=criterion.describe(), value=value, stating=len(found))
    lines = [cite(head, [1]), "", prompts.EXTREME_CAVEAT, ""]
    lines += [f"{n}. **{value}{quantity.unit}**: {cite(sentence, [n])}" for n, (_, value, _, sentence) in enumerate(shown, start=1)]
    return replace(base, text="\n".join(lines), sources=tuple(sources), page=Page(1, PAGE_SIZE, len(found)))


def _nothing(criterion: Criterion, request: Request, papers: dict[str, Paper]) -> str:
    """Why nothing is listed: no abstract names an idea at all, the ideas never meet, or the filter leaves none."""
    every = list(papers.values())
    counts = [sum(bool(i.pattern.search(_words(p))) for p in every) for i in criterion.ideas]
    absent = [i.said for i, c in zip(criterion.ideas, counts, strict=True) if c == 0]
    if absent:
        return prompts.LIST_NONE_MENTION.format(papers=f"{len(every):,}", what=", ".join(f"“{a}”" for a in absent))
    together = sum(criterion.meets(_words(p)) for p in every)
    if together and request.filters:
        return prompts.LIST_NONE_FILTERED.format(papers=_called(request, "no"), what=criterion.describe(), outside=together)
    separately = "; ".join(f"{c} mention “{i.said}”" for i, c in zip(criterion.ideas, counts, strict=True))
    return prompts.LIST_NONE_TOGETHER.format(separately=separately)


def _called(request: Request, count: int | str) -> str:
    """How many papers, and which once filtered: "13 oral papers in the “reinforcement learning” area"."""
    kinds = [f.values[0].split()[0].lower() if f.field == "status" else f.values[0] for f in request.filters if f.field in ("status", "venue", "year")]
    areas = [f.values[0] for f in request.filters if f.field == "primary_area"]
    words = " ".join([str(count), *kinds, "paper" if count == 1 else "papers"])
    return words + (f" in the “{areas[0]}” area" if areas else "")


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

