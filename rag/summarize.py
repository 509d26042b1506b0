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
from collections import Counter
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
# In a small corpus a share is too few papers to go by (5 % of the 51 seeds is 2.5): a term at
# most this many papers use is rare too.
CORE_TERM_MAX_PAPERS = 10
# About, not merely mentioning: a paper is in a summary when its title names a core term or at
# least this many sentences of its abstract do. Off-theme papers name a theme once, in passing
# ("inspired by speculative decoding", "unlike watermarks", "e.g. via SAEs"); measured on 20 ICLR
# themes by reading 396 included papers (bench/summarize_judged.jsonl, bench/RESULTS.md).
MIN_CORE_SENTENCES = 2
# And it uses every term of the theme's subject: the core terms that at least SUBJECT_SHARE of
# the SUBJECT_TOP best-ranked candidates use (privacy papers without "differential" are not
# about differential privacy, robot-policy papers without "vision-language-action" not about
# VLA models). Pseudo-relevance feedback; needs SUBJECT_TOP candidates.
SUBJECT_TOP = 20
SUBJECT_SHARE = 0.8


def core_terms(theme: str, document_frequency: Mapping[str, int], papers: int) -> tuple[set[str], bool]:
    """The theme's rare terms, and whether they must occur together: a theme without a rare
    term ("diffusion language models") is its two least common terms, in one sentence."""
    terms = {t for t in key_terms(theme) if document_frequency.get(t, 0) > 0}
    core = {t for t in terms if document_frequency[t] <= max(CORE_TERM_MAX_SHARE * papers, CORE_TERM_MAX_PAPERS)}
    if core:
        return core, False
    return set(sorted(terms, key=lambda t: (document_frequency[t], t))[:2]), True


def _compound(term: str) -> re.Pattern[str] | None:
    """A hyphenated term as it is also written, with spaces: "mixture-of-expert" in "mixture of experts"."""
    parts = [p for p in term.split("-") if p]
    return re.compile(r"\b" + r"[\s-]+".join(map(re.escape, parts)), re.I) if len(parts) > 1 else None


def mentioned(terms: set[str], text: str, text_terms: set[str] | None = None) -> set[str]:
    """Those of `terms` (stemmed key terms) that `text` uses; `text_terms`: its key terms, if known."""
    if not terms:
        return set()
    found = terms & (key_terms(text) if text_terms is None else text_terms)
    return found | {t for t in terms - found if (pattern := _compound(t)) and pattern.search(text)}


def theme_grounding(theme_weights: Mapping[str, float], hit: Hit, text_terms: set[str] | None = None) -> float:
    """evidence.grounding with each theme term weighted by its rarity (idf): "EEG" is what makes
    "machine learning on EEG signals" a theme, and a paper on EEG need not say "machine learning"."""
    total = sum(theme_weights.values())
    found = mentioned(set(theme_weights), f"{hit.paper.title} {hit.paper.abstract}", text_terms)
    coverage = sum(theme_weights[t] for t in found) / total if total else 0.0
    return GROUNDING_COSINE_WEIGHT * hit.relevance + (1 - GROUNDING_COSINE_WEIGHT) * coverage


# An acronym an abstract defines, "Mixture-of-Experts (MoE)", "sparse autoencoders (SAEs)":
# the (up to 6) words before the parenthesis name what it stands for.
_ACRONYM = re.compile(r"\(\s*([A-Z0-9][A-Za-z0-9]*[A-Z][A-Za-z0-9]*?)s?\s*[);,]")
_DEFINITION_WORDS = 6


def _acronyms(sentences: Sequence[str], core: set[str]) -> dict[str, set[str]]:
    """The acronyms the sentences define for core terms, with the terms each stands for."""
    defined: dict[str, set[str]] = {}
    for sentence in sentences:
        for match in _ACRONYM.finditer(sentence) if "(" in sentence else ():
            if found := mentioned(core, " ".join(sentence[: match.start()].split()[-_DEFINITION_WORDS:])):
                defined[match.group(1)] = found
    return defined


def is_about(paper: Paper, core: set[str], together: bool = False) -> bool:
    """The title names the theme's core, or at least MIN_CORE_SENTENCES sentences of the abstract
    do, in words or by an acronym the abstract defines for them ("MoE" once "Mixture-of-Experts (MoE)")."""
    if not core:
        return True
    sentences = sentences_of(paper)
    texts = ([] if paper.title_is_generated else [paper.title]) + sentences
    found = [mentioned(core, text) for text in texts]

    def enough() -> bool:
        names = [f == core if together else bool(f) for f in found]
        return (not paper.title_is_generated and names[0]) or sum(names[len(texts) - len(sentences) :]) >= MIN_CORE_SENTENCES

    if enough():
        return True
    if not (acronyms := _acronyms(sentences, core)):
        return False
    for short, stands_for in acronyms.items():
        uses = re.compile(rf"\b{re.escape(short)}s?\b")
        found = [f | stands_for if uses.search(text) else f for f, text in zip(found, texts, strict=True)]
    return enough()


def subject_terms(core: set[str], hits: Sequence[Hit], terms_of: Callable[[Hit], set[str]] | None = None) -> set[str]:
    """The core terms nearly all of the best-ranked candidates use: the theme's subject, as
    opposed to its qualifiers. For "differential privacy in machine learning" both "differential"
    and "privacy"; for "KV cache ...: compression, eviction, retrieval and reuse" only "cache"."""
    head = hits[:SUBJECT_TOP]
    if len(head) < SUBJECT_TOP:
        return set()
    uses = Counter(t for h in head for t in mentioned(core, _text(h), terms_of(h) if terms_of else None))
    return {t for t in core if uses[t] >= SUBJECT_SHARE * len(head)}


def _text(hit: Hit) -> str:
    return f"{hit.paper.title} {hit.paper.abstract}"


def about_theme(theme: str, hits: Sequence[Hit], document_frequency: Mapping[str, int], papers: int, min_grounding: float) -> list[Hit]:
    """The hits (ranked candidates) a summary of `theme` includes, in their order."""
    core, together = core_terms(theme, document_frequency, papers)
    weights = {t: math.log((papers + 1) / (document_frequency.get(t, 0) + 1)) for t in key_terms(theme)}
    terms: dict[str, set[str]] = {}

    def terms_of(hit: Hit) -> set[str]:
        if hit.paper.paper_id not in terms:
            terms[hit.paper.paper_id] = key_terms(_text(hit))
        return terms[hit.paper.paper_id]

    subject = subject_terms(core, hits, terms_of)
    return [
        h
        for h in hits
        if theme_grounding(weights, h, terms_of(h)) >= min_grounding
        and mentioned(subject, _text(h), terms_of(h)) == subject
        and is_about(h.paper, core, together)
    ]


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
        for paper_id in [p for p in g.paper_ids if p in by_id][:REPRESENTATIVES]:
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
    verifier = Verifier(sources, vectors, question)
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
