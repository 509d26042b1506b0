"""Evidence: which papers are about a question (grounding), and the sentences of their abstracts
that answer it, numbered as the sources [1..n] an answer cites.

Both rest on two signals: cosine similarity of sentence embeddings (the bundled MiniLM; it
catches paraphrase) and overlap of stemmed key terms (it catches what MiniLM blurs: "2.3x" vs
"3.2x", one method's name for another's). How they are weighed is in rag/calibration.py.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from rag.calibration import MINILM, Calibration
from rag.records import Evidence, Hit, Paper, Source
from rag.text import is_instruction, key_terms, split_sentences, strip_citations

# Evidence sentences kept per source: two is what a reader scans in a card, and what the
# 135M default model can be given for 4 sources within ~400 prompt tokens.
EVIDENCE_PER_SOURCE = 2
SENTENCE_CACHE_SIZE = 50_000

# Sentences that state the paper's own contribution answer "how/what does it do" questions
# better than the background sentences abstracts open with.
CONTRIBUTION = re.compile(
    r"\b(?:we|this (?:paper|work)|our (?:method|approach|framework|model))\s+(?:\w+\s+)?"
    r"(?:propose|introduce|present|develop|design|show|find|demonstrate|achieve|reduce|improve)",
    re.I,
)


def grounding(question: str, hit: Hit, cal: Calibration = MINILM) -> float:
    """How much a paper is about the question: its best chunk's cosine, and the share of the
    question's key terms its title and abstract contain (cosine alone confuses "about ML
    training" with "about this question")."""
    terms = key_terms(question)
    coverage = len(terms & key_terms(f"{hit.paper.title} {hit.paper.abstract}")) / len(terms) if terms else 0.0
    return cal.grounding_cosine_weight * hit.relevance + (1 - cal.grounding_cosine_weight) * coverage


def about_question(question: str, hits: Sequence[Hit], cal: Calibration = MINILM) -> list[Hit]:
    """The hits about the question: grounded enough, and near the best one (a distractor shown
    beside the right paper is what a small model then quotes)."""
    scores = [grounding(question, hit, cal) for hit in hits]
    floor = max(cal.min_grounding, max(scores, default=0.0) - cal.source_margin)
    return [hit for hit, score in zip(hits, scores, strict=True) if score >= floor]


def unit(vector: np.ndarray) -> np.ndarray:
    """`vector` scaled to length 1 (a zero vector as it is)."""
    return vector / (np.linalg.norm(vector) or 1.0)


def sentences_of(paper: Paper) -> list[str]:
    """The abstract's sentences that can serve as evidence (instructions planted in a record
    excluded), without the abstract's own reference markers ("prior work [12]"): in an answer,
    every [n] must name one of its sources."""
    return [strip_citations(s) for s in split_sentences(paper.abstract) if not is_instruction(s) and strip_citations(s)]


def contribution_sentence(paper: Paper) -> str:
    """The sentence in which the abstract states what the paper does."""
    sentences = sentences_of(paper)
    for sentence in sentences:
        if CONTRIBUTION.search(sentence):
            return sentence
    # No usable sentence (all of it instructions to an assistant, say): the title, never the raw text.
    return sentences[0] if sentences else (paper.quotable_title or paper.paper_id)


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
        wanted = list(dict.fromkeys(texts))
        with self._lock:  # the cache is shared by the app's threads; the model is not held under it
            known = {t: self._cache[t] for t in wanted if t in self._cache}
        missing = [t for t in wanted if t not in known]
        # Outside the lock: concurrent answers embed at once (every backend's encode is thread-safe:
        # an OpenVINO infer request per call, ONNX Runtime's session, torch checked with 8 threads).
        for text, vector in zip(missing, self.embeddings.embed_documents(missing) if missing else [], strict=True):
            array = np.asarray(vector, dtype=np.float32)
            known[text] = unit(array)
        with self._lock:
            for text in wanted:
                self._cache[text] = known[text]
                self._cache.move_to_end(text)
            while len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
        return np.stack([known[t] for t in texts])


def select(
    question: str,
    hits: Sequence[Hit],
    vectors: SentenceVectors,
    per_source: int = EVIDENCE_PER_SOURCE,
    cal: Calibration = MINILM,
    within: Mapping[str, Sequence[str]] | None = None,
) -> tuple[list[Source], list[Evidence]]:
    """Number the hits [1], [2], ... and pick each one's sentences that best answer `question`.
    Returns the sources (evidence in abstract order, as a reader reads it) and every picked
    sentence with its score, best first. `within`: for a paper id, the only sentences it may give
    (those that state the aspect a question asks about)."""
    per_paper = [list((within or {}).get(hit.paper.paper_id) or sentences_of(hit.paper)) for hit in hits]
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
            score = cal.evidence_cosine_weight * float(cosines[offset + i]) + (1 - cal.evidence_cosine_weight) * overlap
            scored.append((score + (cal.contribution_bonus if CONTRIBUTION.search(sentence) else 0.0), i))
        offset += len(sentences)
        best = sorted(scored, reverse=True)[:per_source]
        chosen = sorted(i for _, i in best)
        sources.append(Source(n, hit.paper, hit.relevance, tuple(sentences[i] for i in chosen)))
        evidence.extend(Evidence(n, sentences[i], score) for score, i in best)
    evidence.sort(key=lambda e: e.score, reverse=True)
    return sources, evidence
