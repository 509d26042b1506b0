"""Answers: evidence first, then the LLM's draft, checked sentence by sentence.

    hits ──abstain?──▶ "nothing in the corpus is about this" + possibly related papers
      │
      ▼ evidence.select            sources [1..n], each with the sentences that answer
      ▼ LLM draft (streamed)       from the numbered evidence (rag/prompts.py)
      ▼ verify, sentence by sentence as the draft streams:
          a citation must name a shown source; the sentence must be supported by what it
          cites (rag/evidence.support: meaning + key terms, every number and coined name
          present); a supported sentence citing nothing, or the wrong paper, is cited to the
          source that supports it; anything else is dropped (kept aside with its reason)
      ▼ nothing survived? → an extractive answer made of the evidence sentences themselves

What the user reads as the answer is therefore supported and cited whatever the model does;
the model only decides how it is worded. Events stream out as soon as each is known: the
sources with their evidence (before the LLM starts), each verified sentence, the final answer.
"""

from __future__ import annotations

import re
import time
from collections.abc import Generator, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from rag import prompts
from rag.chunking import split_sentences
from rag.evidence import SentenceVectors, citations, grounding, key_terms, language_of, names, numbers, select, strip_citations, support
from rag.records import NOT_STATED, Answer, Evidence, Hit, Source

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from rag.topics import Group

# What small models put before an answer ("The answer is: ..."): not part of the claim.
_PREAMBLE = re.compile(r"^(?:[\s:;,.\-–—]+|(?:the\s+)?answer(?:\s+to\s+(?:the|your)\s+question)?(?:\s+is)?\s*:|based on the sources,?)\s*", re.I)
# A sentence ending on one of these was cut off mid-way (the model stopped, or copied half).
_DANGLING = frozenset("a an the and or of with to in for by from on as that which than at its their whose".split())
# A source must come within this much of the best source's grounding: on the seeds' single-paper
# questions the right paper leads the next one by 0.11-0.45 (median 0.3), and a distractor shown
# beside it is what the 135M model then quotes instead. Papers that are about the question alike
# (grounding within 0.12) are all shown.
SOURCE_MARGIN = 0.12
# A kept sentence this close in meaning to an earlier one says it again (measured: "This work also
# introduces Meerkat, ..." vs "This work introduces Meerkat, ...": 0.97; two different claims
# about one paper: below 0.85).
REPEAT_COSINE = 0.92
# Stop drafting after this many dropped sentences in a row: the model is looping or lost.
MAX_DROPS_IN_A_ROW = 3
# A draft sentence shorter than this is a fragment ("Answer:", "[1]"), not a claim.
MIN_CLAIM_WORDS = 4
# Below this evidence score, a question about one named paper gets the NOT_STATED lead-in:
# its abstract has nothing close (on the seeds, on-topic evidence scores 0.45-0.8).
NOT_STATED_BELOW = 0.3
# Another paper's evidence joins an extractive answer only within this much of the best
# sentence's score (scores are 0.7 cosine + 0.3 term overlap; 0.08 ~ one rank of closeness).
EXTRACTIVE_MARGIN = 0.08


@dataclass(frozen=True)
class AnswerOptions:
    min_grounding: float = 0.45  # evidence.grounding below which a paper is not about the question
    max_sources: int = 4
    max_sentences: int = 3
    # The backend can rewrite questions and write Chinese (a chosen model, not the 135M default).
    capable: bool = False
    backend: str = "none"
    corpus_papers: int = 0


@dataclass(frozen=True)
class AnswerEvent:
    kind: Literal["sources", "sentence", "final"]
    sources: tuple[Source, ...] = ()
    text: str = ""  # "sentence": one verified sentence with its citation
    answer: Answer | None = None  # "final"
    groups: tuple[Group, ...] = ()  # "final" of a summary: its sub-themes, for grouped display


def answer_events(
    question: str,
    hits: Sequence[Hit],
    *,
    chat: BaseChatModel | None,
    vectors: SentenceVectors,
    options: AnswerOptions,
    query: str = "",
    pinned: bool = False,
    started: float | None = None,
    timings_ms: dict[str, float] | None = None,
    notes: Sequence[str] = (),
) -> Iterator[AnswerEvent]:
    """`pinned`: the hits are papers the question refers to (a follow-up or a name); never abstain on them.
    `notes`: said with the answer (why it is an answer when something else was asked)."""
    started = started or time.perf_counter()
    timings = dict(timings_ms or {})
    given_notes = list(notes)
    language = language_of(question)
    base = Answer(question=question, text="", backend=options.backend, language=language, query=query or question)
    scores = [grounding(query or question, h) for h in hits]
    floor = max(options.min_grounding, max(scores, default=0.0) - SOURCE_MARGIN)
    relevant = [h for h, score in zip(hits, scores, strict=True) if pinned or score >= floor][: options.max_sources]
    if not relevant:
        text = prompts.ABSTAIN[language].format(papers=f"{options.corpus_papers:,}")
        timings["total"] = _ms(started)
        yield AnswerEvent("final", answer=replace(base, text=text, abstained=True, related=tuple(hits[:3]), notes=tuple(given_notes), timings_ms=timings))
        return

    mark = time.perf_counter()
    # Evidence is scored against English text: the embedding model reads only English, and a
    # Chinese question's search query is its English rewrite (or its English names).
    sources, evidence = select(question if language == "en" else (query or question), relevant, vectors)
    timings["evidence"] = _ms(mark)
    timings["first_visible"] = _ms(started)
    yield AnswerEvent("sources", sources=tuple(sources))

    notes = given_notes
    failed = False
    verifier = Verifier(sources, vectors, question)
    kept: list[str] = []
    if chat is not None:
        mark = time.perf_counter()
        try:
            drafted = _stream_sentences(chat, _draft_messages(question if language == "en" else (query or question), sources, options))
            with closing(drafted):  # leaving early stops the model generating
                drops = 0
                for sentence in drafted:
                    dropped_before = len(verifier.dropped)
                    checked = verifier.check(sentence)
                    if checked:
                        kept.append(checked)
                        drops = 0
                        timings.setdefault("first_sentence", _ms(started))
                        yield AnswerEvent("sentence", text=checked)
                    elif len(verifier.dropped) > dropped_before:
                        drops += 1
                    if len(kept) >= options.max_sentences or drops >= MAX_DROPS_IN_A_ROW:
                        break
        except Exception as exc:  # any backend failure: answer from the evidence instead
            failed = True
            notes.append(f"The LLM backend failed ({_failure(exc)}); this answer is built from the abstracts' own sentences.")
        timings["draft"] = _ms(mark)
    extractive = not kept
    text = " ".join(kept) if kept else extractive_answer(evidence, sources, options.max_sentences, pinned)
    if not kept and pinned and len(sources) == 1 and evidence and evidence[0].score < NOT_STATED_BELOW:
        # Said beside the answer, not in it: the answer's text holds only checked, cited sentences.
        notes.append(prompts.NOT_STATED.format(n=evidence[0].n))
    if chat is not None and extractive and not failed:
        notes.append("No sentence of the model's draft was supported by the sources; this answer is built from the abstracts' own sentences.")

    if language == "zh":
        mark = time.perf_counter()
        translated = translate(chat, text) if chat is not None and options.capable else None
        if translated:
            text = translated
        else:
            notes.append(prompts.ENGLISH_ONLY)
        timings["translate"] = _ms(mark)
    timings["total"] = _ms(started)
    yield AnswerEvent(
        "final",
        answer=replace(
            base,
            text=text,
            sources=tuple(sources),
            dropped=tuple(verifier.dropped),
            extractive=extractive,
            notes=tuple(notes),
            timings_ms=timings,
        ),
    )


_KEY_LIKE = re.compile(r"\b(?:sk|pk|key|token)[-_][A-Za-z0-9_\-*.]{4,}", re.I)


def _failure(exc: Exception) -> str:
    """What went wrong, for the user: the error's kind and message, never a key it may quote
    (an OpenAI 401 repeats part of the key)."""
    return f"{type(exc).__name__}: {_KEY_LIKE.sub('[key hidden]', str(exc))[:200]}"


_TITLE_OPENING = re.compile(r"^[^\s:]+(?:\s+[^\s:]+){0,3}:\s")


def _looks_like_title(claim: str) -> bool:
    """"Name: what it is" at the start, or most longer words capitalised: a title, not a sentence."""
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z\-]*", claim) if len(w) > 3]
    if len(words) < 3:
        return False
    capitalised = sum(w[0].isupper() for w in words) / len(words)
    return bool(_TITLE_OPENING.match(claim)) or capitalised >= 0.7


class Verifier:
    """Checks draft sentences one at a time against the shown sources."""

    def __init__(self, sources: Sequence[Source], vectors: SentenceVectors, question: str = "") -> None:
        self.by_n = {s.n: s for s in sources}
        self.vectors = vectors
        self._asked = key_terms(question)
        self._titles = [key_terms(s.paper.title) for s in sources]
        self.dropped: list[tuple[str, str]] = []
        self._kept: list[str] = []

    def check(self, sentence: str) -> str | None:
        """The sentence as the answer shows it (with its corrected citation), or None if dropped."""
        sentence = _PREAMBLE.sub("", sentence.strip())
        claim = _PREAMBLE.sub("", strip_citations(sentence).strip())  # "[1]: Sparse ..." leaves ": Sparse ..."
        cited = list(dict.fromkeys(citations(sentence)))
        if not claim or len(claim.split()) < MIN_CLAIM_WORDS or claim.endswith(("?", ":")):
            return None  # a fragment, a heading or the question echoed: not a claim, nothing to report
        if claim.rstrip(".,;").rsplit(" ", 1)[-1].lower() in _DANGLING or claim.count("(") != claim.count(")"):
            self._drop(sentence, "an unfinished sentence")
            return None
        if language_of(claim) != "en":
            self._drop(sentence, "not in English, so it cannot be checked against the abstracts")
            return None
        if self._repeats(claim):
            return None  # the small model repeats itself ("This work also introduces ..."); once is enough
        unknown = [n for n in cited if n not in self.by_n]
        valid = [n for n in cited if n in self.by_n]
        supporting = [n for n in valid if support(claim, [self.by_n[n].paper], self.vectors).ok]
        if not supporting:
            # Cited nothing, or the wrong paper: cite the source that supports it, if one does.
            scored = [(support(claim, [s.paper], self.vectors), n) for n, s in self.by_n.items() if n not in valid]
            best = max(scored, key=lambda pair: pair[0].score, default=None)
            if best is not None and best[0].ok:
                supporting = [best[1]]
        if not supporting:
            if unknown and not valid:
                reason = f"cites [{', '.join(map(str, unknown))}], but there are only {len(self.by_n)} sources"
            else:
                reason = self._why_unsupported(claim, valid)
            self._drop(sentence, reason)
            return None
        if _looks_like_title(claim):
            # "FLy: Training-Free Loosely Speculative Decoding [8]", "Scalable Time Series Forecasting
            # via ... [5]": the small model lists (and garbles) titles; a title states nothing.
            self._drop(sentence, "a title, not a statement")
            return None
        said = key_terms(claim) - self._asked
        if not said or any(said <= titled for titled in self._titles):
            # "ReST-KV evicts KV cache entries [1]" to "How does ReST-KV evict KV cache entries?", or a
            # paper's title as a sentence (the small model lists titles, even under another paper's
            # number): no answer. Dropped, so the evidence can answer.
            self._drop(sentence, "says nothing the question and the paper's title do not already say")
            return None
        self._kept.append(claim)
        return cite(claim, supporting)

    def _repeats(self, claim: str) -> bool:
        if not self._kept:
            return False
        vectors = self.vectors([claim, *self._kept])
        return bool(max(vectors[1:] @ vectors[0]) >= REPEAT_COSINE)

    def _why_unsupported(self, claim: str, valid: list[int]) -> str:
        papers = [self.by_n[n].paper for n in valid] or [s.paper for s in self.by_n.values()]
        result = support(claim, papers, self.vectors)
        where = f"[{', '.join(map(str, valid))}]" if valid else "any source"
        if result.missing:
            return f"states {', '.join(result.missing)}, which {where} does not"
        return f"not supported by {where} (support {result.score:.2f})"

    def _drop(self, sentence: str, reason: str) -> None:
        self.dropped.append((sentence, reason))


def compare_events(
    question: str,
    hits: Sequence[Hit],
    *,
    chat: BaseChatModel | None,
    vectors: SentenceVectors,
    options: AnswerOptions,
    started: float | None = None,
    timings_ms: dict[str, float] | None = None,
) -> Iterator[AnswerEvent]:
    """Compare the papers of `hits` (already resolved, in the order the request named them):
    the table first (excerpts, true by construction), then a paragraph of similarities and
    differences drafted from the table's cells and verified like an answer's sentences."""
    from rag.compare import compare

    started = started or time.perf_counter()
    timings = dict(timings_ms or {})
    language = language_of(question)
    papers = [Source(n, hit.paper, hit.relevance) for n, hit in enumerate(hits, start=1)]
    table = compare(papers)
    stated = {n: tuple(c for c in cells if c != NOT_STATED) for n, _, cells in table.rows}
    sources = [replace(s, evidence=stated.get(s.n, ())) for s in papers[: len(table.rows)]]
    timings["evidence"] = _ms(started)
    timings["first_visible"] = _ms(started)
    yield AnswerEvent("sources", sources=tuple(sources))
    verifier = Verifier(sources, vectors, question)
    kept: list[str] = []
    notes: list[str] = []
    if chat is not None:
        mark = time.perf_counter()
        messages = _draft_messages(question, sources, replace(options, max_sentences=options.max_sentences + 1), prompts.COMPARE_USER)
        try:
            with closing(_stream_sentences(chat, messages)) as drafted:
                for sentence in drafted:
                    checked = verifier.check(sentence)
                    if checked:
                        kept.append(checked)
                        yield AnswerEvent("sentence", text=checked)
                    if len(kept) > options.max_sentences:
                        break
        except Exception as exc:  # any backend failure: the table still stands
            notes.append(f"The LLM backend failed ({_failure(exc)}); the comparison is the table of the abstracts' own sentences.")
        timings["draft"] = _ms(mark)
    # Without a (surviving) draft, the paragraph states each paper's approach in its own words.
    extractive = not kept
    approaches = [cite(cells[1], [n]) for n, _, cells in table.rows if cells[1] != NOT_STATED]
    text = " ".join(kept) if kept else " ".join(approaches) or "The abstracts state none of the compared aspects; see the table."
    if language == "zh":
        notes.append(prompts.ENGLISH_ONLY)
    timings["total"] = _ms(started)
    yield AnswerEvent(
        "final",
        answer=Answer(
            question=question,
            text=text,
            mode="compare",
            sources=tuple(sources),
            dropped=tuple(verifier.dropped),
            backend=options.backend,
            language=language,
            extractive=extractive,
            notes=tuple(notes),
            query=question,
            timings_ms=timings,
            comparison=table,
        ),
    )


def cite(claim: str, ns: Sequence[int]) -> str:
    claim = claim.rstrip().rstrip(".;,: ")
    return f"{claim} {''.join(f'[{n}]' for n in ns)}."


def extractive_answer(evidence: Sequence[Evidence], sources: Sequence[Source], max_sentences: int, pinned: bool) -> str:
    """The best evidence sentences, each cited. True by construction: they are the abstracts'
    own sentences. The best source gives up to two; another source's sentence joins only when
    it answers nearly as well, so a question about one paper is not padded with others."""
    if not evidence:
        # Abstracts with no usable sentence (all instructions, say): point at the sources.
        return " ".join(cite(f"See the abstract of {s.paper.title}", [s.n]) for s in sources[:max_sentences])
    best = evidence[0]
    picked = [best]
    for item in evidence[1:]:
        if len(picked) >= max_sentences:
            break
        if item.n == best.n:
            if sum(p.n == best.n for p in picked) < 2 or len(sources) == 1:
                picked.append(item)
        elif item.score >= best.score - EXTRACTIVE_MARGIN and all(p.n != item.n for p in picked):
            picked.append(item)
    return " ".join(cite(item.sentence, [item.n]) for item in picked)


def translate(chat: BaseChatModel, text: str) -> str | None:
    """The answer in Chinese, or None when the translation lost a citation or a number."""
    try:
        translated = str(chat.invoke(prompts.TRANSLATE_ANSWER.format(answer=text)).content).strip()
    except Exception:  # an English answer is better than none
        return None
    # Same citations, same numbers, same names, both ways: a translation may add nothing.
    if sorted(citations(translated)) != sorted(citations(text)) or numbers(text) != numbers(translated) or language_of(translated) != "zh":
        return None
    if names(text) != names(translated):
        return None
    return translated


def _draft_messages(question: str, sources: Sequence[Source], options: AnswerOptions, template: str = prompts.ANSWER_USER) -> list[tuple[str, str]]:
    blocks = [
        prompts.SOURCE_BLOCK.format(n=s.n, title=s.paper.title, evidence="\n".join(prompts.EVIDENCE_LINE.format(n=s.n, sentence=e) for e in s.evidence))
        for s in sources
    ]
    user = template.format(sources="\n\n".join(blocks), question=question, max_sentences=options.max_sentences)
    return [("system", prompts.ANSWER_SYSTEM), ("human", user)]


_LEADING_CITATIONS = re.compile(r"^((?:\s*\[\d+(?:\s*[,;]\s*\d+)*\])+)\s*")


def _sentences(text: str) -> list[str]:
    """Sentences of draft text; a citation written after the full stop ("... tokens. [2]")
    belongs to the sentence before it, not to the next one."""
    merged: list[str] = []
    for piece in (p for line in text.split("\n") for p in split_sentences(line)):
        match = _LEADING_CITATIONS.match(piece)
        if match and merged:
            merged[-1] = f"{merged[-1]} {match.group(1).strip()}"
            piece = piece[match.end() :]
        if piece.strip():
            merged.append(piece.strip())
    return merged


def _stream_sentences(chat: BaseChatModel, messages: list[tuple[str, str]]) -> Generator[str, None, None]:
    """Complete sentences of the draft as they arrive (the last one when the stream ends)."""
    buffer = ""
    for chunk in chat.stream(messages):
        buffer += chunk.content if isinstance(chunk.content, str) else ""
        pieces = _sentences(buffer)
        # All but the last piece are complete, unless the last is only the start of a
        # citation that may still belong to the one before it.
        if len(pieces) > 1 and len(strip_citations(pieces[-1]).split()) >= 2:
            yield from pieces[:-1]
            buffer = pieces[-1]
    pieces = _sentences(buffer)
    yield from pieces[:-1]
    # The draft's last words, cut off by the token limit, end without a full stop: not a claim.
    if pieces and strip_citations(pieces[-1]).rstrip().endswith((".", "!", "。", ")", '"')):
        yield pieces[-1]


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 1)
