"""Search: query → ranked papers (one row per paper, best first, higher score is better).

Dense retrieval over chunks, aggregated to papers by their best chunk. Hybrid dense + BM25
fusion comes with the retrieval issue and plugs in here.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rag.catalog import Catalog
from rag.errors import PaperchatError
from rag.records import Hit
from rag.store import ChunkStore

# Abstracts split into ~2 chunks; fetching 4 chunks a wanted paper leaves room for papers
# whose both chunks rank high without running short of distinct papers.
CHUNKS_PER_PAPER = 4
MAX_QUERY_CHARS = 2000


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: list[Hit]
    timings_ms: dict[str, float] = field(default_factory=dict)


def search(
    query: str, store: ChunkStore, catalog: Catalog, k: int = 10, where: Mapping[str, Any] | None = None
) -> SearchResult:
    query = " ".join(query.split())
    if not query:
        raise PaperchatError("The query is empty; type a few words about what you are looking for.")
    if len(query) > MAX_QUERY_CHARS:
        raise PaperchatError(f"The query is {len(query):,} characters; keep it under {MAX_QUERY_CHARS:,}.")
    started = time.perf_counter()
    vector = store.embeddings.embed_query(query)
    embedded = time.perf_counter()
    chunk_hits = store.search_by_vector(vector, k * CHUNKS_PER_PAPER, where)
    searched = time.perf_counter()
    best: dict[str, tuple[float, str]] = {}
    for hit in chunk_hits:
        if hit.paper_id not in best or hit.score > best[hit.paper_id][0]:
            best[hit.paper_id] = (hit.score, hit.text)
    ranked = sorted(best.items(), key=lambda item: item[1][0], reverse=True)[:k]
    papers = catalog.get(pid for pid, _ in ranked)
    hits = [Hit(papers[pid], score, text) for pid, (score, text) in ranked if pid in papers]
    done = time.perf_counter()
    return SearchResult(
        query=query,
        hits=hits,
        timings_ms={
            "embed": round((embedded - started) * 1000, 2),
            "dense": round((searched - embedded) * 1000, 2),
            "rank": round((done - searched) * 1000, 2),
            "total": round((done - started) * 1000, 2),
        },
    )
