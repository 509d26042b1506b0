"""The check mode: a claim a researcher read ("SureLock cuts FLOPs by 60–80%") checked against
the abstracts by the same checker every answer sentence goes through (rag/support.py).

    claim ──▶ with a paper: that paper's abstract alone
      │       without one: the papers that bear on it (hybrid search, a named paper first, grounding)
      ▼ support(claim, [paper]) for each ──▶ CheckedPaper (evidence: the nearest sentences, reasons)
    ──▶ Check: supported (a paper supports it) | unsupported (those that bear on it do not) | no_evidence

`paperchat check`, the app's /check and "Is it true that ...?" in the chat (as an Answer whose text
is the verdict line over the abstracts' own cited sentences) all come here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Literal

from rag import prompts
from rag.context import Context, Request
from rag.errors import PaperchatError
from rag.evidence import about_question
from rag.language import question_language
from rag.records import Answer, AnswerEvent, Check, CheckedPaper, Paper, Source
from rag.routing import CHECK_CLOSING, CHECK_CLOSING_ZH, CHECK_OPENING, CHECK_OPENING_ZH, Mode
from rag.support import Support, support
from rag.text import cite

# Papers a claim without a paper is checked against: the few that bear on it most.
MAX_CHECKED_PAPERS = 3
# Sentences of each paper shown as what its abstract says nearest the claim.
EVIDENCE_SENTENCES = 2
# The words that ask for a check (rag/routing.py's), taken off the claim ("Is it true that X?" → "X").
_FRAME = re.compile(
    rf"^\W*{CHECK_OPENING}\s*|[,;:\s]*{CHECK_CLOSING}\s*$|[，,。\s]*{CHECK_CLOSING_ZH}\s*$|^\W*{CHECK_OPENING_ZH}\s*", re.I
)


def claim_of(text: str) -> str:
    """The claim without the words asking to check it, and without a closing question mark."""
    claim = _FRAME.sub("", text.strip()).strip()
    return re.sub(r"^\W+$|\s*[?？]+$", "", claim).strip()


def check_claim(claim: str, ctx: Context, paper_id: str | None = None) -> Check:
    """`claim` checked against the abstract of `paper_id`, or against the papers that bear on it."""
    claim = claim_of(claim)
    if not claim:
        raise PaperchatError(prompts.CHECK_EMPTY)
    papers = ctx.corpus.papers_by_id()
    if paper_id is not None:
        if paper_id not in papers:
            raise PaperchatError(f"No paper with id {paper_id!r} in the corpus; `paperchat papers` lists the ids.")
        candidates = [papers[paper_id]]
    else:
        candidates = _bearing_on(claim, ctx)
    if not candidates:
        return Check(claim, "no_evidence", reasons=(prompts.say("CHECK_NO_EVIDENCE", "en", count=len(papers)),))
    checked = [_checked(claim, paper, ctx) for paper in candidates]
    # The paper that supports it, else the one that comes closest, first.
    checked.sort(key=lambda c: (not c.supported, -c.support))
    verdict: Literal["supported", "unsupported"] = "supported" if checked[0].supported else "unsupported"
    reasons = () if verdict == "supported" else tuple(prompts.CHECK_REASON_PAPER.format(title=c.title, reason=r) for c in checked[:1] for r in c.reasons)
    return Check(claim, verdict, tuple(checked), reasons)


def _bearing_on(claim: str, ctx: Context) -> list[Paper]:
    """The papers a claim is about: those it names, else those grounded enough in it."""
    corpus = ctx.corpus
    named = corpus.papers_named(claim)
    if named:
        papers = corpus.papers_by_id()
        return [papers[p] for p in named[:MAX_CHECKED_PAPERS] if p in papers]
    found = corpus.search(claim, ctx.max_sources)
    return [hit.paper for hit in about_question(found.query or claim, found.hits, ctx.calibration_for(found))][:MAX_CHECKED_PAPERS]


def _checked(claim: str, paper: Paper, ctx: Context) -> CheckedPaper:
    result = support(claim, [paper], ctx.vectors, ctx.calibration, ctx.multilingual)
    return CheckedPaper(paper.paper_id, paper.title, result.evidence[:EVIDENCE_SENTENCES], result.score, result.ok, _reasons(result, ctx))


def _reasons(result: Support, ctx: Context) -> tuple[str, ...]:
    """Why a paper does not support the claim, in a reader's words: what it states that the abstract
    does not, what the rules object to, or how far it is from anything the abstract says."""
    if result.ok:
        return ()
    reasons = [prompts.CHECK_REASON_MISSING.format(missing=", ".join(result.missing))] if result.missing else []
    reasons += [f.detail for f in result.findings]
    return tuple(reasons) or (prompts.CHECK_REASON_WEAK.format(score=result.score),)


def check_events(request: Request, ctx: Context) -> Iterator[AnswerEvent]:
    """"Is it true that ...?" in the chat: the verdict line over the nearest sentences of the
    papers checked, each cited; the reasons as notes."""
    question = request.asked or request.question
    language = question_language(question)
    result = check_claim(question, ctx)
    papers = ctx.corpus.papers_by_id()
    sources = tuple(Source(n, papers[c.paper_id], c.support, c.evidence) for n, c in enumerate(result.papers, start=1))
    if sources:
        yield AnswerEvent("sources", sources=sources)
    if result.verdict == "no_evidence":
        text = prompts.say("CHECK_NO_EVIDENCE", language, count=len(papers))
    else:
        shown = sources[:1] if result.verdict == "supported" else sources
        lines = [cite(sentence, [s.n]) for s in shown for sentence in s.evidence]
        text = prompts.say("CHECK_SUPPORTED" if result.verdict == "supported" else "CHECK_UNSUPPORTED", language) + "\n\n" + " ".join(lines)
    answer = Answer(
        question=request.question, text=text, mode=Mode.CHECK, abstained=result.verdict == "no_evidence", sources=sources,
        backend=ctx.backend, language=language, extractive=True, notes=result.reasons, query=result.claim, check=result,
        timings_ms={"total": request.elapsed_ms()},
    )  # fmt: skip
    yield AnswerEvent("final", answer=answer)
