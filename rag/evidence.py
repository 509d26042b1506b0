"""Evidence: the sentences of retrieved abstracts that answer a question, and the support
score of a claim against the abstracts it cites.

Both rest on the same two signals: cosine similarity of sentence embeddings (the bundled
MiniLM; it catches paraphrase) and overlap of stemmed key terms (it catches what MiniLM blurs:
"2.3x" vs "3.2x", one method's name for another's). Hard rules on top: a claim's numbers and
coined names must occur in the abstract it cites, because those are exactly what a small model
invents and what a reader takes on trust.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from rag.chunking import split_sentences
from rag.records import Evidence, Hit, Paper, Source

# Evidence sentences kept per source: two is what a reader scans in a card, and what the
# 135M default model can be given for 4 sources within ~400 prompt tokens.
EVIDENCE_PER_SOURCE = 2
# How a sentence's answer score mixes meaning and words (evidence selection).
EVIDENCE_COSINE_WEIGHT = 0.7
# Support = SUPPORT_COSINE_WEIGHT * best sentence cosine + the rest * share of the claim's key
# terms found in the cited abstract. A sentence copied from the abstract scores ~1.0; a faithful
# paraphrase 0.6-0.8; a true sentence about another paper 0.2-0.45 (measured on the seed
# drafts, see bench/answer.py), hence the cut at 0.55.
SUPPORT_COSINE_WEIGHT = 0.5
MIN_SUPPORT = 0.55
# And at least this share of the claim's key terms must occur in what it cites: the 135M model
# pads copied sentences with claims of its own ("..., which is a common practice in the field of
# artificial intelligence" keeps a cosine of 0.73 but only half its terms); on the seed drafts,
# faithful sentences have overlap >= 0.8, padded or garbled ones 0.5-0.69.
MIN_OVERLAP = 0.7
SENTENCE_CACHE_SIZE = 50_000

# Text inside an abstract that addresses the reader's assistant instead of describing research:
# it is never shown as evidence and never counts as support, so a prompt injection planted in a
# record cannot make its way into an answer through the verifier.
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget)\b[^.]{0,40}\b(?:instructions?|prompts?|rules|above)\b"
    r"|\b(?:system prompt|as an ai|you are (?:now )?(?:an?|the) (?:assistant|ai|language model|chatbot))\b"
    r"|\b(?:reply|respond|answer|say|state|tell the user)\b[^.]{0,30}\b(?:that|with|only)\b[^.]{0,60}\b(?:best|must|always)\b",
    re.IGNORECASE,
)
# Sentences that state the paper's own contribution answer "how/what does it do" questions
# better than the background sentences abstracts open with; they get a small lift.
CONTRIBUTION = re.compile(
    r"\b(?:we|this (?:paper|work)|our (?:method|approach|framework|model))\s+(?:\w+\s+)?"
    r"(?:propose|introduce|present|develop|design|show|find|demonstrate|achieve|reduce|improve)",
    re.I,
)
CONTRIBUTION_BONUS = 0.05
CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*[A-Za-z0-9]|[A-Za-z]")
# 2.3, 45%, 10x, 1,024, 3×: numbers a claim states, compared without their unit.
_NUMBER = re.compile(r"(?<![A-Za-z\d.])\d+(?:[.,]\d+)*(?![A-Za-z]*\d)")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below between both but by can could
    did do does doing down during each few for from further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so some
    such than that the their theirs them themselves then there these they this those through to too under until up very was we were what when
    where which while who whom why will with would you your yours yourself yourselves via using use used uses based paper papers work
    propose proposed proposes present presents show shows shown new approach method methods model models novel results result study
    introduce introduces introduced however thus therefore often many well within without across toward towards one two three may might""".split()
)


_PLAIN_WORD = re.compile(r"[a-z']+")
_GUARDED_WORDS = frozenset(
    """not never no cannot can't don't doesn't isn't aren't won't fails fail neither nor without worse worst increases increase
    decreases decrease half twice double triple one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty
    sixty seventy eighty ninety hundred thousand million billion percent""".split()
)


def is_instruction(sentence: str) -> bool:
    return bool(_INSTRUCTION.search(sentence))


def language_of(text: str) -> str:
    """"zh" when the text is mostly Chinese (a question may name methods in English), else "en"."""
    cjk = len(_CJK.findall(text))
    latin = len(_WORD.findall(text))
    return "zh" if cjk and cjk >= latin else "en"


def strip_citations(text: str) -> str:
    return " ".join(CITATION.sub(" ", text).split()).replace(" .", ".").replace(" ,", ",")


def citations(text: str) -> list[int]:
    return [int(n) for group in CITATION.findall(text) for n in re.split(r"[,;]", group)]


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


def key_terms(text: str) -> set[str]:
    # "LLMs" and "LLM" are one term; Snowball leaves acronyms' plural "s" on.
    words = [(w[:-1] if len(w) > 2 and w[:-1].isupper() and w.endswith("s") else w).lower() for w in _WORD.findall(text)]
    return set(_stemmer().stemWords([w for w in words if w not in STOPWORDS and len(w) > 2]))


def numbers(text: str) -> set[str]:
    """Numbers as stated ("1,024" → "1024"); years and list markers included, units dropped."""
    return {n.replace(",", "").rstrip(".") for n in _NUMBER.findall(strip_citations(text))}


def names(text: str) -> set[str]:
    """Coined names and acronyms (ReST-KV, 3DGS, GPT-4, LoRA): a capital after the first
    letter, or letters mixed with digits. Plain capitalised words are left out: "Transformer"
    at a sentence start is no claim."""
    found: set[str] = set()
    for token in re.findall(r"[A-Za-z0-9][A-Za-z0-9\-+.]*[A-Za-z0-9+]", strip_citations(text)):
        token = token.rstrip(".")
        letters = [c for c in token if c.isalpha()]
        coined = any(c.isupper() for c in token[1:]) or any(c.isdigit() for c in token)
        if len(token) >= 2 and letters and coined and not _NUMBER.fullmatch(token):
            found.add(token.lower())
    return found


# Grounding = GROUNDING_COSINE_WEIGHT * best-chunk cosine + the rest * share of the question's key
# terms the paper's title and abstract contain. Cosine alone confuses "about ML training" with
# "about this question": "How does DP-SGD guarantee differential privacy when training deep
# networks?" reaches 0.41 on a seed about training, as high as real questions (0.42); its words
# (DP-SGD, privacy) are nowhere in that abstract. Measured on bench/answer_dev.jsonl (seeds) and
# bench/iclr_dev.jsonl (5,358 papers), see bench/RESULTS.md.
GROUNDING_COSINE_WEIGHT = 0.7


def grounding(question: str, hit: Hit) -> float:
    terms = key_terms(question)
    coverage = len(terms & key_terms(f"{hit.paper.title} {hit.paper.abstract}")) / len(terms) if terms else 0.0
    return GROUNDING_COSINE_WEIGHT * hit.relevance + (1 - GROUNDING_COSINE_WEIGHT) * coverage


def sentences_of(paper: Paper) -> list[str]:
    """The abstract's sentences that can serve as evidence (instructions planted in a record
    excluded), without the abstract's own reference markers ("prior work [12]"): in an answer,
    every [n] must name one of its sources."""
    return [strip_citations(s) for s in split_sentences(paper.abstract) if not is_instruction(s) and strip_citations(s)]


class SentenceVectors:
    """Normalised sentence embeddings with a cache: the sentences scored for evidence are the
    ones a draft is verified against a second later, and a conversation revisits papers."""

    def __init__(self, embeddings: Embeddings, capacity: int = SENTENCE_CACHE_SIZE) -> None:
        self.embeddings = embeddings
        self.capacity = capacity
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        with self._lock:  # shared by the app's threads
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
            computed = dict(zip(missing, self.embeddings.embed_documents(missing), strict=True)) if missing else {}
            for text, vector in computed.items():
                array = np.asarray(vector, dtype=np.float32)
                self._cache[text] = array / (np.linalg.norm(array) or 1.0)
            rows = [self._cache[t] for t in texts]
            for text in texts:
                self._cache.move_to_end(text)
            # Evict only after this call's rows are taken: a full cache must not drop what it is returning.
            while len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
        return np.stack(rows)


def select(question: str, hits: Sequence[Hit], vectors: SentenceVectors, per_source: int = EVIDENCE_PER_SOURCE) -> tuple[list[Source], list[Evidence]]:
    """Number the hits [1], [2], ... and pick each one's sentences that best answer `question`.
    Returns the sources (evidence in abstract order, as a reader reads it) and every picked
    sentence with its score, best first."""
    per_paper = [sentences_of(hit.paper) for hit in hits]
    flat = [s for sentences in per_paper for s in sentences]
    if not flat:
        return [Source(i, hit.paper, hit.relevance) for i, hit in enumerate(hits, start=1)], []
    matrix = vectors([question, *flat])
    cosines = matrix[1:] @ matrix[0]
    question_terms = key_terms(question)
    sources: list[Source] = []
    evidence: list[Evidence] = []
    offset = 0
    for n, (hit, sentences) in enumerate(zip(hits, per_paper, strict=True), start=1):
        scored = []
        for i, sentence in enumerate(sentences):
            overlap = len(question_terms & key_terms(sentence)) / len(question_terms) if question_terms else 0.0
            score = EVIDENCE_COSINE_WEIGHT * float(cosines[offset + i]) + (1 - EVIDENCE_COSINE_WEIGHT) * overlap
            scored.append((score + (CONTRIBUTION_BONUS if CONTRIBUTION.search(sentence) else 0.0), i))
        offset += len(sentences)
        best = sorted(scored, reverse=True)[:per_source]
        chosen = sorted(i for _, i in best)
        sources.append(Source(n, hit.paper, hit.relevance, tuple(sentences[i] for i in chosen)))
        evidence.extend(Evidence(n, sentences[i], score) for score, i in best)
    evidence.sort(key=lambda e: e.score, reverse=True)
    return sources, evidence


@dataclass(frozen=True)
class Support:
    score: float  # higher is better; MIN_SUPPORT and above is supported, if nothing is missing
    missing: tuple[str, ...] = ()  # numbers and names the claim states that the abstract does not

    overlap: float = 0.0  # share of the claim's key terms that occur in the cited abstract(s)

    @property
    def ok(self) -> bool:
        return self.score >= MIN_SUPPORT and self.overlap >= MIN_OVERLAP and not self.missing


def support(claim: str, papers: Sequence[Paper], vectors: SentenceVectors) -> Support:
    """How well the abstracts of `papers` (together) support `claim` (citation markers ignored)."""
    claim = strip_citations(claim)
    sentences = [s for paper in papers for s in sentences_of(paper)]
    # Titles count as support for what a paper is called and about, not generated labels
    # (made of the abstract's own words, they add nothing).
    sentences += [paper.title for paper in papers if not paper.title_is_generated]
    if not claim or not sentences:
        return Support(0.0)
    text = " ".join(sentences)
    matrix = vectors([claim, *sentences])
    cosine = float(np.max(matrix[1:] @ matrix[0]))
    terms = key_terms(claim)
    overlap = len(terms & key_terms(text)) / len(terms) if terms else 0.0
    score = SUPPORT_COSINE_WEIGHT * cosine + (1 - SUPPORT_COSINE_WEIGHT) * overlap
    text_numbers = numbers(text)
    lowered = text.lower()
    missing = sorted(n for n in numbers(claim) if n not in text_numbers) + sorted(n for n in names(claim) if n not in lowered)
    # A negation or a spelled-out quantity turns a copied sentence into its opposite or into a
    # new number ("SureLock never reduces ...", "... by ninety percent"): it must be in the source.
    source_words = set(_PLAIN_WORD.findall(lowered))
    missing += sorted(w for w in set(_PLAIN_WORD.findall(claim.lower())) & _GUARDED_WORDS if w not in source_words)
    return Support(round(score, 4), tuple(missing), round(overlap, 4))
