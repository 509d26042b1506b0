"""The checker every mode relies on, and the one draft → verify loop they all run.

    LLM draft (streamed) ──▶ sentences as they complete
      ▼ Verifier.check, one sentence at a time:
          a citation must name a shown source; the sentence must be supported by what it cites
          (`support`: meaning + key terms, and every number and coined name present); a
          supported sentence citing nothing, or the wrong paper, is cited to the source that
          supports it; anything else is dropped, kept aside with its reason
      ▼ stop at the sentence limit, or after MAX_DROPS_IN_A_ROW drops (the model is lost)
      ▼ the mode's fallback when nothing survived (the evidence itself, the table, the lines)

What a reader sees is therefore supported and cited whatever the model does; the model only
decides how it is worded. Answers, comparisons and summaries' overview paragraphs all draft
through `Draft`; a translation is checked whole against the verified text (`translation`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Generator, Iterator, Sequence
from contextlib import closing
from typing import TYPE_CHECKING

from rag import prompts
from rag.calibration import MINILM, Calibration
from rag.evidence import SentenceVectors
from rag.llm import describe_failure
from rag.records import Paper, Source
from rag.support import Support, support
from rag.text import LEADING_CITATIONS, citations, cite, key_terms, language_of, names, numbers, split_sentences, strip_citations

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

log = logging.getLogger(__name__)

# Stop drafting after this many dropped sentences in a row: the model is looping or lost.
MAX_DROPS_IN_A_ROW = 3
# A draft sentence shorter than this is a fragment ("Answer:", "[1]"), not a claim.
MIN_CLAIM_WORDS = 4
# What small models put before an answer ("The answer is: ..."): not part of the claim.
_PREAMBLE = re.compile(r"^(?:[\s:;,.\-–—]+|(?:the\s+)?answer(?:\s+to\s+(?:the|your)\s+question)?(?:\s+is)?\s*:|based on the sources,?)\s*", re.I)
# A sentence ending on one of these was cut off mid-way (the model stopped, or copied half).
_DANGLING = frozenset("a an the and or of with to in for by from on as that which than at its their whose".split())
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

    def __init__(self, sources: Sequence[Source], vectors: SentenceVectors, question: str = "", cal: Calibration = MINILM, language: str = "en") -> None:
        self.by_n = {s.n: s for s in sources}
        self.language = language  # of the reasons for what it drops: the answer's
        self.vectors = vectors
        self.cal = cal
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
            self._drop(sentence, prompts.say("DROP_UNFINISHED", self.language))
            return None
        if language_of(claim) != "en":
            self._drop(sentence, prompts.say("DROP_NOT_ENGLISH", self.language))
            return None
        if self._repeats(claim):
            return None  # the small model repeats itself ("This work also introduces ..."); once is enough
        unknown = [n for n in cited if n not in self.by_n]
        valid = [n for n in cited if n in self.by_n]
        supporting = [n for n in valid if self._support(claim, [self.by_n[n].paper]).ok]
        if not supporting:
            # Cited nothing, or the wrong paper: cite the source that supports it, if one does.
            scored = [(self._support(claim, [s.paper]), n) for n, s in self.by_n.items() if n not in valid]
            best = max(scored, key=lambda pair: pair[0].score, default=None)
            if best is not None and best[0].ok:
                supporting = [best[1]]
        if not supporting:
            if unknown and not valid:
                self._drop(sentence, prompts.say("DROP_UNKNOWN_SOURCE", self.language, cited=", ".join(map(str, unknown)), count=len(self.by_n)))
                return None
            self._drop(sentence, self._why_unsupported(claim, valid))
            return None
        if _looks_like_title(claim):
            # "FLy: Training-Free Loosely Speculative Decoding [8]", "Scalable Time Series Forecasting
            # via ... [5]": the small model lists (and garbles) titles; a title states nothing.
            self._drop(sentence, prompts.say("DROP_TITLE", self.language))
            return None
        said = key_terms(claim) - self._asked
        if not said or any(said <= titled for titled in self._titles):
            # "ReST-KV evicts KV cache entries [1]" to "How does ReST-KV evict KV cache entries?", or a
            # paper's title as a sentence (the small model lists titles, even under another paper's
            # number): no answer. Dropped, so the evidence can answer.
            self._drop(sentence, prompts.say("DROP_NOTHING_NEW", self.language))
            return None
        self._kept.append(claim)
        return cite(claim, supporting)

    def _support(self, claim: str, papers: Sequence[Paper]) -> Support:
        return support(claim, papers, self.vectors, self.cal)

    def _repeats(self, claim: str) -> bool:
        if not self._kept:
            return False
        vectors = self.vectors([claim, *self._kept])
        return bool(max(vectors[1:] @ vectors[0]) >= self.cal.repeat_cosine)

    def _why_unsupported(self, claim: str, valid: list[int]) -> str:
        result = self._support(claim, [self.by_n[n].paper for n in valid] or [s.paper for s in self.by_n.values()])
        where = f"[{', '.join(map(str, valid))}]" if valid else prompts.say("DROP_ANY_SOURCE", self.language)
        if result.missing:
            return prompts.say("DROP_MISSING", self.language, missing=", ".join(result.missing), where=where)
        return prompts.say("DROP_UNSUPPORTED", self.language, where=where, score=result.score)

    def _drop(self, sentence: str, reason: str) -> None:
        self.dropped.append((sentence, reason))


def draft_messages(question: str, sources: Sequence[Source], max_sentences: int, template: str = prompts.ANSWER_USER) -> list[tuple[str, str]]:
    """The drafting prompt: each source's evidence lines, then the request (rag/prompts.py says why)."""
    blocks = [
        prompts.SOURCE_BLOCK.format(
            n=s.n,
            title=s.paper.quotable_title or s.paper.paper_id,  # a title that instructs the assistant is no title
            evidence="\n".join(prompts.EVIDENCE_LINE.format(n=s.n, sentence=e) for e in s.evidence),
        )
        for s in sources
    ]
    user = template.format(sources="\n\n".join(blocks), question=question, max_sentences=max_sentences)
    return [("system", prompts.ANSWER_SYSTEM), ("human", user)]


class Draft:
    """One draft → verify pass. Iterating yields each verified sentence as the model writes it;
    afterwards `kept` holds them and `failure` says why the model stopped early, if it failed.
    Only the model's stream is guarded: an error of the checker itself is a bug and propagates."""

    def __init__(self, chat: BaseChatModel | None, messages: list[tuple[str, str]], verifier: Verifier, max_sentences: int) -> None:
        self.chat = chat
        self.messages = messages
        self.verifier = verifier
        self.max_sentences = max_sentences
        self.kept: list[str] = []
        self.failure: str | None = None

    def __iter__(self) -> Iterator[str]:
        if self.chat is None:
            return
        drops = 0
        with closing(stream_sentences(self.chat, self.messages)) as drafted:  # leaving early stops the model generating
            while len(self.kept) < self.max_sentences and drops < MAX_DROPS_IN_A_ROW:
                try:
                    sentence = next(drafted, None)
                except Exception as exc:  # the backend: unreachable, timed out, refused, out of context
                    self.failure = describe_failure(exc)
                    log.warning("The LLM backend failed while drafting: %s", self.failure)
                    return
                if sentence is None:
                    return
                dropped_before = len(self.verifier.dropped)
                checked = self.verifier.check(sentence)
                if checked:
                    self.kept.append(checked)
                    drops = 0
                    yield checked
                elif len(self.verifier.dropped) > dropped_before:
                    drops += 1


def draft_sentences(text: str) -> list[str]:
    """Sentences of draft text; a citation written after the full stop ("... tokens. [2]")
    belongs to the sentence before it, not to the next one."""
    merged: list[str] = []
    for piece in (p for line in text.split("\n") for p in split_sentences(line)):
        match = LEADING_CITATIONS.match(piece)
        if match and merged:
            merged[-1] = f"{merged[-1]} {match.group(1).strip()}"
            piece = piece[match.end() :]
        if piece.strip():
            merged.append(piece.strip())
    return merged


def stream_sentences(chat: BaseChatModel, messages: list[tuple[str, str]]) -> Generator[str, None, None]:
    """Complete sentences of the draft as they arrive (the last one when the stream ends)."""
    buffer = ""
    for chunk in chat.stream(messages):
        buffer += chunk.content if isinstance(chunk.content, str) else ""
        pieces = draft_sentences(buffer)
        # All but the last piece are complete, unless the last is only the start of a
        # citation that may still belong to the one before it.
        if len(pieces) > 1 and len(strip_citations(pieces[-1]).split()) >= 2:
            yield from pieces[:-1]
            buffer = pieces[-1]
    pieces = draft_sentences(buffer)
    yield from pieces[:-1]
    # The draft's last words, cut off by the token limit, end without a full stop: not a claim.
    if pieces and strip_citations(pieces[-1]).rstrip().endswith((".", "!", "。", ")", '"')):
        yield pieces[-1]


def translation(chat: BaseChatModel, text: str) -> str | None:
    """The verified answer in Chinese, or None when the model failed or its translation lost or
    added a citation, a number or a name (a translation may add nothing, both ways)."""
    try:
        translated = str(chat.invoke(prompts.TRANSLATE_ANSWER.format(answer=text)).content).strip()
    except Exception as exc:  # the backend: an English answer is better than none
        log.warning("The LLM backend failed while translating: %s", describe_failure(exc))
        return None
    if sorted(citations(translated)) != sorted(citations(text)) or numbers(text) != numbers(translated) or language_of(translated) != "zh":
        log.info("Translation refused: it changed a citation or a number, or is not Chinese")
        return None
    if names(text) != names(translated):
        log.info("Translation refused: it changed a name")
        return None
    return translated
