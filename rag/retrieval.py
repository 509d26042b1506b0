"""Search: query → ranked papers (one row per paper, best first, higher score is better).

Hybrid by default: dense candidates (Chroma, best chunk per paper) and BM25 candidates
(rag/lexical.py) fused by a score-normalised weighted sum (the default: SciFact nDCG@10 0.733
against 0.719 for reciprocal rank) or by reciprocal rank; papers that
contain a rare coined name the query mentions ("SureLock", "ReST-KV") go first.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from rag.calibration import MINILM, Calibration
from rag.context import ms_since
from rag.errors import PaperchatError
from rag.lexical import LexicalIndex
from rag.records import Hit, Paper
from rag.store import ChunkStore

SearchMode = Literal["dense", "bm25", "hybrid"]
Fusion = Literal["rrf", "weighted"]
SEARCH_MODES: tuple[SearchMode, ...] = ("dense", "bm25", "hybrid")
FUSIONS: tuple[Fusion, ...] = ("rrf", "weighted")

# The usual RRF constant (Cormack et al. 2009): dampens the difference between ranks 1 and 2.
RRF_K = 60
MAX_QUERY_CHARS = 2000
NAMED_RELEVANCE = 1.0

PaperLookup = Callable[[Iterable[str]], Mapping[str, Paper]]


@dataclass(frozen=True)
class Across:
    """A question in another language than the index's, searched in the multilingual channel too."""

    question: str
    store: ChunkStore  # the multilingual channel
    weight: float  # the channel's share in the fusion (rag/calibration.py: multilingual_weight)


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: list[Hit]
    timings_ms: dict[str, float] = field(default_factory=dict)
    # The hits' relevance is the multilingual channel's cosine (a question in another language).
    crossed: bool = False


def clean_query(query: str) -> str:
    query = " ".join(query.split())
    if not query:
        raise PaperchatError("The query is empty; type a few words about what you are looking for.")
    if len(query) > MAX_QUERY_CHARS:
        raise PaperchatError(f"The query is {len(query):,} characters; keep it under {MAX_QUERY_CHARS:,}.")
    return query


def search(
    query: str,
    *,
    store: ChunkStore,
    lexical: LexicalIndex,
    lookup: PaperLookup,
    k: int = 10,
    mode: SearchMode = "hybrid",
    fusion: Fusion = "weighted",
    allowed: set[str] | None = None,
    cal: Calibration = MINILM,
    across: Across | None = None,
) -> SearchResult:
    """`allowed`: only these paper ids (metadata filters resolved by the caller); None: all.
    `across`: the question was asked in another language and `query` holds its English words
    (rag/crosslingual.py, may be empty) for BM25: the question itself is searched in the multilingual channel.
    Each side brings at least `cal.min_candidates` papers (2k for larger k) to the fusion, from
    `cal.chunks_per_paper` dense chunks a wanted paper (abstracts are ~2 chunks)."""
    if mode not in SEARCH_MODES:
        raise PaperchatError(f"Unknown search mode {mode!r}; use one of {', '.join(SEARCH_MODES)}.")
    if fusion not in FUSIONS:
        raise PaperchatError(f"Unknown fusion {fusion!r}; use one of {', '.join(FUSIONS)}.")
    # A question in another language may have no English words at all ("它是怎么工作的？").
    query = clean_query(query) if across is None else " ".join(query.split())
    timings: dict[str, float] = {}
    started = time.perf_counter()
    candidates = max(cal.min_candidates, 2 * k)

    dense: dict[str, tuple[float, str]] = {}  # paper_id -> (best chunk's cosine, its chunk id)
    side: tuple[ChunkStore, Sequence[float]] | None = None  # the store and vector relevance is read from
    # A question in another language: the multilingual channel is its dense side, and its English
    # words are read by BM25 alone. MiniLM reading those words too found the same papers (Chinese
    # dev set, iclr-zh single Recall@5 0.977 either way) and cost ~60 ms a question.
    if mode != "bm25" and query and across is None:
        vector = store.embeddings.embed_query(query)
        timings["embed"] = ms_since(started)
        mark = time.perf_counter()
        dense = _dense(store, vector, candidates, allowed, cal)
        timings["dense"] = ms_since(mark)
        side = (store, vector)

    lexical_hits: list[tuple[str, float]] = []
    named: list[str] = []
    if mode != "dense" and query:
        mark = time.perf_counter()
        lexical_hits = lexical.search(query, candidates, allowed)
        # Names only as the question wrote them: an English word found for a Chinese one may
        # happen to be some paper's name.
        named = [p for p in lexical.papers_named(across.question if across else query) if allowed is None or p in allowed]
        timings["bm25"] = ms_since(mark)

    mark = time.perf_counter()
    dense_ranked = sorted(dense, key=lambda p: dense[p][0], reverse=True)
    if mode == "dense":
        fused = {p: dense[p][0] for p in dense_ranked}
    elif mode == "bm25":
        fused = dict(lexical_hits)
    elif fusion == "rrf":
        fused = reciprocal_rank_fusion([dense_ranked, [p for p, _ in lexical_hits]])
    else:
        fused = weighted_fusion({p: s for p, (s, _) in dense.items()}, dict(lexical_hits), cal.dense_weight)
    relevance = {p: score for p, (score, _) in dense.items()}
    texts_of: dict[str, tuple[ChunkStore, str]] = {p: (store, chunk) for p, (_, chunk) in dense.items()}
    if across is not None:
        # The question itself, read by the multilingual channel, fused with what its English
        # words found; its cosine is what says whether a paper is about the question.
        mark = time.perf_counter()
        vector = across.store.embeddings.embed_query(across.question)
        crossing = _dense(across.store, vector, candidates, allowed, cal)
        fused = weighted_fusion({p: s for p, (s, _) in crossing.items()}, fused, across.weight)
        side = (across.store, vector)
        relevance = {p: score for p, (score, _) in crossing.items()}
        texts_of = {**texts_of, **{p: (across.store, chunk) for p, (_, chunk) in crossing.items()}}
        timings["multilingual"] = ms_since(mark)
    ranked = sorted(fused, key=lambda p: fused[p], reverse=True)
    if named:
        # Exact names first, in fused order; a named paper neither side retrieved still comes.
        first = sorted(named, key=lambda p: (fused.get(p, float("-inf")), p), reverse=True)
        ranked = first + [p for p in ranked if p not in set(first)]
    # Look up before cutting to k: a candidate the catalogue no longer has (removed since the
    # BM25 index or a chunk was written) must not cost the user a result.
    papers = lookup(ranked)
    top = [p for p in ranked if p in papers][:k]
    if side is not None and (missing := [p for p in top if p not in relevance and p not in named]):
        # A paper only BM25 found still needs its own cosine: relevance is what says whether a
        # paper is about the question, and at 0 a theme summary dropped "MoE" papers their
        # abstract words found (ICLR: 8 of 48 gold papers of "mixture-of-experts").
        looked, (side_store, side_vector) = time.perf_counter(), side
        found = _dense(side_store, side_vector, len(missing), set(missing), cal)
        relevance |= {p: score for p, (score, _) in found.items()}
        texts_of |= {p: (side_store, chunk) for p, (_, chunk) in found.items()}
        timings["cosines"] = ms_since(looked)
    texts = _chunk_texts([texts_of[p] for p in top if p in texts_of])
    hits = [
        Hit(
            papers[p],
            score,
            texts.get(texts_of[p][1], "") if p in texts_of else _first_sentence(papers[p].abstract),
            # A paper the query names is relevant whatever the embedding thinks.
            NAMED_RELEVANCE if p in named else relevance.get(p, 0.0),
        )
        for p, score in zip(top, _monotone([fused.get(p, 0.0) for p in top]), strict=True)
    ]
    timings["fuse"] = ms_since(mark)
    timings["total"] = ms_since(started)
    return SearchResult(query=query, hits=hits, timings_ms=timings, crossed=across is not None)


def _dense(store: ChunkStore, vector: Sequence[float], candidates: int, allowed: set[str] | None, cal: Calibration) -> dict[str, tuple[float, str]]:
    """paper_id -> (its best chunk's cosine, that chunk's id), for at least `candidates` papers
    when the store has them."""
    dense: dict[str, tuple[float, str]] = {}
    where = {"paper_id": {"$in": sorted(allowed)}} if allowed is not None else None
    fetch = candidates * cal.chunks_per_paper
    while allowed is None or allowed:
        chunk_hits = store.search_by_vector(vector, fetch, where, with_text=False)
        for hit in chunk_hits:
            if hit.paper_id not in dense or hit.score > dense[hit.paper_id][0]:
                dense[hit.paper_id] = (hit.score, hit.chunk_id)
        # Long abstracts (many chunks) can crowd the fetch: widen it until there are
        # enough distinct papers or the store has no more chunks to give.
        if len(dense) >= candidates or len(chunk_hits) < fetch:
            break
        fetch *= 4
    return dense


def _chunk_texts(wanted: Sequence[tuple[ChunkStore, str]]) -> dict[str, str]:
    """The texts of chunks, each read from the store that found it."""
    texts: dict[str, str] = {}
    for store in {id(s): s for s, _ in wanted}.values():
        texts |= store.texts([chunk for s, chunk in wanted if s is store])
    return texts


def filter_papers(papers: Iterable[Paper], where: Mapping[str, object]) -> set[str]:
    """Paper ids matching every condition: `source` matches a file name or path ending;
    other fields match case-insensitively (and `year` as a number). A condition's value may be a
    list or tuple of values, any of which matches ({"status": ["Oral", "Oral (conditional)"]})."""
    papers = list(papers)
    wanted = {key: {str(v).strip().lower() for v in (value if isinstance(value, list | tuple | set | frozenset) else [value])} for key, value in where.items()}
    known = {"source"} | {key for paper in papers for key in paper.metadata()}
    unknown = sorted(set(wanted) - known)
    if unknown:
        raise PaperchatError(f"No paper has the field {', '.join(unknown)}; filter on {', '.join(sorted(known))}.")
    return {paper.paper_id for paper in papers if all(_matches(paper, key, values) for key, values in wanted.items())}


def _matches(paper: Paper, key: str, values: set[str]) -> bool:
    if key == "source":
        return any(s.lower() == v or s.lower().endswith("/" + v.lstrip("/")) for s in paper.sources for v in values)
    actual = paper.metadata().get(key)
    return actual is not None and str(actual).strip().lower() in values


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, paper_id in enumerate(ranking, start=1):
            fused[paper_id] = fused.get(paper_id, 0.0) + 1.0 / (k + rank)
    return fused


def weighted_fusion(dense: Mapping[str, float], lexical: Mapping[str, float], dense_weight: float = MINILM.dense_weight) -> dict[str, float]:
    """Min-max normalise each side over its candidates, then a weighted sum (absent = 0)."""
    dense_n, lexical_n = _min_max(dense), _min_max(lexical)
    return {p: dense_weight * dense_n.get(p, 0.0) + (1 - dense_weight) * lexical_n.get(p, 0.0) for p in set(dense) | set(lexical)}


def _min_max(scores: Mapping[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    span = high - low
    return {p: (s - low) / span if span > 0 else 1.0 for p, s in scores.items()}


def _monotone(scores: list[float]) -> list[float]:
    """Shown scores must not rise down the list; a name-boosted paper ranked above papers
    with higher fused scores shows the best score below it."""
    for i in range(len(scores) - 2, -1, -1):
        scores[i] = max(scores[i], scores[i + 1])
    return scores


def _first_sentence(text: str) -> str:
    end = text.find(". ")
    return text[: end + 1] if end > 0 else text[:300]

