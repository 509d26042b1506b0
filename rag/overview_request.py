"""Whether a request asks for an overview of one theme ("conformal prediction, anything new?",
"Where does embodied AI stand?") rather than a question about it ("How does FlashAttention reduce
memory?"): the router's test for the summarize mode (rag/routing.py), on rag/theme_request.py's
reading of the request."""

from __future__ import annotations

import re

from rag.request_words import CONNECTORS, OVERVIEW_WORDS
from rag.text import is_coined
from rag.theme_request import _FIELD_PHRASES, SUMMARY_VERBS_ZH, _asked, _read, _Reading, theme_clause

_OVERVIEW_PHRASES = re.compile(rf"\b(?:{_FIELD_PHRASES})\b|\bwhere\s+(?:does|do|is|are)\b.*\bstands?\b(?!\s+for)", re.I)
_OVERVIEW_ZH = re.compile(
    r"最近|最新|进展|论文|研究|工作|文章|新方法|新东西|在做|有哪些|代表性|汇总|过一遍|讲讲|趋势|方向|方面|领域|入门|开放问题|" + SUMMARY_VERBS_ZH
)


_FIELD_VERBS = frozenset({"stand", "stands", "say", "show", "cover", "look"})


def _asked_to_act(reading: _Reading, run: tuple[float, int, int]) -> bool:
    """After "does", the run is a subject, and the verb that follows asks what it does: "What papers
    does ReST-KV compare against?", "How does the objective in MICLIP work?". Only a verb asking
    where a field stands or what it says keeps it an overview ("Where does X stand?")."""
    _, start, end = run
    before = [t[2].lower() for t in reading.tokens[:start] if t[2].lower() not in {"the", "a", "an", "this", "these"}]
    after = [t[2].lower() for t in reading.tokens[end:] if t[2].lower() not in CONNECTORS]
    return bool(before) and before[-1] in {"do", "does", "did"} and not (after and after[0] in _FIELD_VERBS)


# A question for one fact ("Who proposed FlashAttention?", "When was SureLock published?", "Which
# paper proposed GRPO?"), however it names its subject.
_FACT_ASKED = re.compile(r"^\W*(?:who|when|what\s+year|which\s+(?:paper|one|method|model|work|group|lab)\b(?!s))", re.I)
# Overview words that, said of one coined name, ask for that paper's facts, not a field's news.
_PAPER_FACTS = frozenset({"findings", "contributions", "proposed", "published", "done", "found"})


def asks_for_overview(request: str) -> bool:
    """Whether a request names one theme and, besides, only asks what the papers on it say or what
    is new in it. A second span of content ("What does the LoRA paper report on GLUE?", "How does
    FlashAttention reduce memory?") makes it a question, not a request for an overview."""
    # The theme is read in its own clause ("image restoration papers? deblurring, deraining, ..."), the
    # overview words in the whole request ("Causal discovery — which papers should I read?").
    asked = _asked(request)
    reading = _read(theme_clause(asked))
    runs = [run for run in reading.runs if run[0] >= 1]
    if len(runs) != 1 or _asked_to_act(reading, runs[0]) or _FACT_ASKED.search(request):
        return False
    words = {token.lower() for _, _, token in _read(asked).tokens} & OVERVIEW_WORDS
    _, start, end = runs[0]
    if end - start == 1 and is_coined(reading.tokens[start][2]) and words <= _PAPER_FACTS:
        return False  # "What are the key findings of FlashWorld?": one paper's findings
    return bool(words or _OVERVIEW_PHRASES.search(request) or _OVERVIEW_ZH.search(request))
