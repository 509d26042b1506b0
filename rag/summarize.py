"""Summaries: every paper of the corpus about a theme (not a fixed top k), counted, grouped into
sub-themes, one cited line per paper in its own words; and the overview of a whole corpus.

Like a comparison table, the lines are the abstracts' own contribution sentences, so the summary
is true by construction; a capable backend adds an overview paragraph on top, verified sentence
by sentence like an answer (rag/answer.py).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import replace
from typing import TYPE_CHECKING

from rag import prompts
from rag.answer import AnswerEvent, AnswerOptions, Verifier, _draft_messages, _ms, _stream_sentences, cite
from rag.evidence import GROUNDING_COSINE_WEIGHT, SentenceVectors, key_terms, language_of, sentences_of, strip_citations
from rag.records import Answer, Hit, Paper, Source
from rag.topics import REPRESENTATIVES, Group, contribution_sentence, group

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

# Candidates a theme is gathered from before the grounding cut: more than any theme in the ICLR
# dev set has (48 gold papers), and the cut, not this number, decides what is in.
THEME_CANDIDATES = 150

# The words that make a request a summary request; what is left is the theme. Not inside a
# hyphenated name: "mixture-of-experts" keeps its "of", "state-of-the-art" its "the".
_REQUEST = re.compile(
    r"(?<![\w-])(?:please|can|could|you|give|me|summari[sz]e|summary|summaries|overview|survey|digest|tl;?dr|trends?|main|what|does|do|did|"
    r"the|these|this|that|corpus|collection|conference|papers?|abstracts?|say|says|said|about|on|of|in|here|all|every|everything|"
    r"works?|research|studies|short|a|an|now|overall|is|are|there|set|list|find|written)(?![\w-])|总结|概述|综述|概括|整理|一下|关于|的|论文|这些|所有|相关|研究|工作|要点|帮我|请|和|有|[?？,.!:;。，]",
    re.I,
)
_WHOLE_CORPUS = re.compile(
    r"\b(?:topics|themes|areas)\b.*\b(?:corpus|collection|conference|cover|covers)\b|\bwhole (?:corpus|collection)\b|涵盖|哪些主题|什么主题|整个", re.I
)


def theme_of(question: str) -> str:
    """What a summary request is about ("" for the whole corpus)."""
    if _WHOLE_CORPUS.search(question):
        return ""
    return " ".join(_REQUEST.sub(" ", strip_citations(question)).split())


# A theme's core terms are those of its key terms that at most this share of the corpus uses
# ("splat" in "3D Gaussian Splatting", not "3d"); a paper in the summary must be about one of them.
CORE_TERM_MAX_SHARE = 0.05
# About, not merely mentioning: a paper is in a summary when its title names a core term or at
# least this many sentences of its abstract do. Off-theme papers name a theme once, in passing
# ("inspired by speculative decoding", "unlike watermarks", "e.g. via SAEs"); measured on 20 ICLR
# themes by reading 400+ included papers (bench/summarize_judged.jsonl, bench/RESULTS.md).
MIN_CORE_SENTENCES = 2


def core_terms(theme: str, document_frequency: Mapping[str, int], papers: int) -> tuple[set[str], bool]:
    """The theme's rare terms, and whether they must occur together: a theme without a rare
    term ("diffusion language models") is its two least common terms, in one sentence."""
    terms = {t for t in key_terms(theme) if document_frequency.get(t, 0) > 0}
    core = {t for t in terms if document_frequency[t] <= CORE_TERM_MAX_SHARE * papers}
    if core:
        return core, False
    return set(sorted(terms, key=lambda t: (document_frequency[t], t))[:2]), True


def _compound(term: str) -> re.Pattern[str] | None:
    """A hyphenated term as it is also written, with spaces: "mixture-of-expert" in "mixture of experts"."""
    parts = [p for p in term.split("-") if p]
    return re.compile(r"\b" + r"[\s-]+".join(map(re.escape, parts)), re.I) if len(parts) > 1 else None


def mentioned(terms: set[str], text: str) -> set[str]:
    """Those of `terms` (stemmed key terms) that `text` uses."""
    found = terms & key_terms(text)
    return found | {t for t in terms - found if (pattern := _compound(t)) and pattern.search(text)}


def theme_grounding(theme_weights: Mapping[str, float], hit: Hit) -> float:
    """evidence.grounding with each theme term weighted by its rarity (idf): "EEG" is what makes
    "machine learning on EEG signals" a theme, and a paper on EEG need not say "machine learning"."""
    total = sum(theme_weights.values())
    found = mentioned(set(theme_weights), f"{hit.paper.title} {hit.paper.abstract}")
    coverage = sum(theme_weights[t] for t in found) / total if total else 0.0
    return GROUNDING_COSINE_WEIGHT * hit.relevance + (1 - GROUNDING_COSINE_WEIGHT) * coverage


def is_about(paper: Paper, core: set[str], together: bool = False) -> bool:
    """The title names the theme's core, or at least MIN_CORE_SENTENCES sentences of the abstract do."""

    def names(text: str) -> bool:
        found = mentioned(core, text)
        return found == core if together else bool(found)

    if not core:
        return True
    if not paper.title_is_generated and names(paper.title):
        return True
    return sum(names(s) for s in sentences_of(paper)) >= MIN_CORE_SENTENCES


def about_theme(theme: str, hits: Sequence[Hit], document_frequency: Mapping[str, int], papers: int, min_grounding: float) -> list[Hit]:
    """The hits a summary of `theme` includes, in their order."""
    core, together = core_terms(theme, document_frequency, papers)
    weights = {t: math.log((papers + 1) / (document_frequency.get(t, 0) + 1)) for t in key_terms(theme)}
    return [h for h in hits if theme_grounding(weights, h) >= min_grounding and is_about(h.paper, core, together)]


def summarize_events(
    question: str,
    theme: str,
    hits: Sequence[Hit],
    *,
    paper_vectors: Callable[[Sequence[str]], Mapping[str, Sequence[float]]],
    corpus: Sequence[Paper],
    document_frequency: Mapping[str, int],
    chat: BaseChatModel | None,
    vectors: SentenceVectors,
    options: AnswerOptions,
    started: float,
    timings_ms: dict[str, float],
    pinned: bool = False,
) -> Iterator[AnswerEvent]:
    """`pinned`: `hits` are the papers the request refers to ("summarize them"), all of them in."""
    timings = dict(timings_ms)
    language = language_of(question)
    relevant = list(hits) if pinned else about_theme(theme, hits, document_frequency, len(corpus), options.min_grounding)
    base = Answer(question=question, text="", mode="summarize", backend=options.backend, language=language, query=theme)
    if not relevant:
        timings["total"] = _ms(started)
        text = prompts.ABSTAIN[language].format(papers=f"{options.corpus_papers:,}")
        yield AnswerEvent("final", answer=replace(base, text=text, abstained=True, related=tuple(hits[:3]), timings_ms=timings))
        return
    mark = time.perf_counter()
    by_id = {h.paper.paper_id: h for h in relevant}
    groups = group([h.paper for h in relevant], paper_vectors(list(by_id)), background=corpus)
    timings["group"] = _ms(mark)
    sources: list[Source] = []
    grouped = sum(g.size for g in groups)
    # Gathering stops at THEME_CANDIDATES; a theme that fills them has more papers than counted.
    count = f"At least {grouped}" if len(hits) >= THEME_CANDIDATES and grouped >= len(relevant) == len(hits) else str(grouped)
    lines = [(prompts.SUMMARY_PINNED if pinned else prompts.SUMMARY_COUNT).format(count=count, theme=theme, groups=len(groups))]
    for g in groups:
        lines.append(f"\n**{g.label}** ({g.size} {'paper' if g.size == 1 else 'papers'})")
        for paper_id in g.paper_ids:
            n = len(sources) + 1
            sentence = contribution_sentence(by_id[paper_id].paper)
            sources.append(Source(n, by_id[paper_id].paper, by_id[paper_id].relevance, (sentence,)))
            lines.append(f"- {cite(sentence, [n])}")
    timings["first_visible"] = _ms(started)
    yield AnswerEvent("sources", sources=tuple(sources))
    overview, dropped = _overview_paragraph(question, sources, chat, vectors, options) if options.capable and chat is not None else ([], [])
    notes = [prompts.ENGLISH_ONLY] if language == "zh" else []
    timings["total"] = _ms(started)
    text = (" ".join(overview) + "\n\n" if overview else "") + "\n".join(lines)
    answer = replace(base, text=text, sources=tuple(sources), dropped=tuple(dropped), notes=tuple(notes), timings_ms=timings)
    yield AnswerEvent("final", answer=answer, groups=tuple(groups))


def overview_events(
    question: str, papers: Sequence[Paper], groups: Sequence[Group], *, options: AnswerOptions, started: float, timings_ms: dict[str, float]
) -> Iterator[AnswerEvent]:
    """The whole corpus in topics: sizes, labels, representative papers (closest to each centre)."""
    by_id = {p.paper_id: p for p in papers}
    sources: list[Source] = []
    lines = [prompts.OVERVIEW_COUNT.format(papers=len(papers), groups=len(groups))]
    for g in groups:
        shown = []
        for paper_id in g.paper_ids[:REPRESENTATIVES]:
            n = len(sources) + 1
            sources.append(Source(n, by_id[paper_id], 1.0, (contribution_sentence(by_id[paper_id]),)))
            shown.append(f"[{n}] {by_id[paper_id].title}")
        lines.append(f"- **{g.label}** ({g.size} {'paper' if g.size == 1 else 'papers'}): " + "; ".join(shown))
    timings = {**timings_ms, "first_visible": _ms(started), "total": _ms(started)}
    yield AnswerEvent("sources", sources=tuple(sources))
    text = "\n".join(lines)
    answer = Answer(question, text, "summarize", sources=tuple(sources), backend=options.backend, language=language_of(question), timings_ms=timings)
    yield AnswerEvent("final", answer=answer, groups=tuple(groups))


def _overview_paragraph(
    question: str, sources: Sequence[Source], chat: BaseChatModel, vectors: SentenceVectors, options: AnswerOptions
) -> tuple[list[str], list[tuple[str, str]]]:
    verifier = Verifier(sources, vectors)
    kept: list[str] = []
    try:
        with closing(_stream_sentences(chat, _draft_messages(question, sources[:12], options, prompts.SUMMARY_USER))) as drafted:
            for sentence in drafted:
                if checked := verifier.check(sentence):
                    kept.append(checked)
                if len(kept) >= options.max_sentences:
                    break
    except Exception:  # the grouped lines stand on their own
        return [], verifier.dropped
    return kept, verifier.dropped

