"""Keeps the chunk store in step with the corpus; reports added / updated / unchanged / removed.

Incremental and restartable:
- a paper is re-embedded only when what goes into its chunks changed (its content hash);
- a file read without errors is the whole truth about its papers: a paper that left it loses
  that source, and a paper with no sources left is removed;
- `prune=True` also drops sources whose files no longer exist (papers left with none go);
- store writes happen before the catalogue commits them, store deletions after the catalogue
  forgets them, and chunk ids are stable, so a killed ingest leaves only chunks without a
  catalogue row (deleted next time) or rows whose chunks are missing (re-embedded next time);
- every store gets the chunks it holds (the MiniLM one all of them, the multilingual channel each
  paper's first; `ChunkStore.first_chunks`): a chunk is committed only once all of them hold it,
  and a store that lacks some of a committed paper's chunks (the channel turned on for an existing
  index, a store wiped by hand) gets them alone, embedded by its own model only.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rag.catalog import Catalog, Entry
from rag.chunking import CHUNKER_VERSION, TokenCounter, chunk_paper
from rag.corpus import merge_papers
from rag.encoders import bulk_encoding
from rag.errors import IdClashError
from rag.lexical import LexicalIndex
from rag.records import Chunk, IngestReport, LoadResult, Paper
from rag.store import ChunkStore


@dataclass(frozen=True)
class ChunkPlan:
    """How papers become chunks; part of every content hash."""

    count_tokens: TokenCounter
    max_tokens: int
    model: str
    windows: str = "all"  # "first": one chunk a paper (rag/chunking.py)


def content_hash(paper: Paper, plan: ChunkPlan) -> str:
    """Of what goes into the embeddings. Metadata (status, year, ...) is left out: a changed
    field updates the chunks' metadata in place instead of embedding them again."""
    payload = json.dumps(
        # "all" adds nothing, so an index built before the setting existed keeps its hashes.
        [CHUNKER_VERSION, plan.model, plan.max_tokens, paper.title, paper.abstract] + ([plan.windows] if plan.windows != "all" else []),
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def sync(
    loaded: LoadResult,
    store: ChunkStore,
    catalog: Catalog,
    lexical: LexicalIndex,
    plan: ChunkPlan,
    *,
    more_stores: Sequence[ChunkStore] = (),
    batch_chunks: int = 512,
    prune: bool = False,
    progress: bool = False,
) -> IngestReport:
    """`store` (holding every chunk) first, then `more_stores`, each getting the chunks it holds."""
    existing = catalog.entries()
    changes = _plan_changes(loaded, existing, prune)
    stores = [store, *more_stores]
    ids_of = [s.chunk_ids() for s in stores]
    store_ids = ids_of[0]
    # Repair: a committed paper whose chunks are not all in the store (killed ingest,
    # a store wiped by hand, a new server) is written again.
    gone = set(changes.removed) | set(changes.replaced.values())
    for paper_id, entry in existing.items():
        if paper_id not in gone and not set(entry.chunk_ids()) <= store_ids:
            changes.final.setdefault(paper_id, entry.paper)
            changes.kinds[paper_id] = "updated"
            changes.dirty.add(paper_id)

    to_embed: list[tuple[Paper, str]] = []
    metadata_only: list[Entry] = []
    for paper_id, paper in changes.final.items():
        digest = content_hash(paper, plan)
        old = existing.get(changes.replaced.get(paper_id, paper_id))
        if old is None or old.content_hash != digest or paper_id in changes.dirty or old.paper.paper_id != paper_id:
            to_embed.append((paper, digest))
        elif old.paper != paper:
            metadata_only.append(Entry(paper, digest, old.n_chunks))
            if old.paper.metadata() != paper.metadata():
                # Store first, catalogue second: a kill in between is redone next time.
                # Chroma merges metadata on update; None deletes a key, so a removed field goes.
                cleared = {key: None for key in old.paper.metadata()}
                for each, held in zip(stores, ids_of, strict=True):
                    each.update_metadata({cid: {**cleared, **paper.metadata()} for cid in old.chunk_ids() if cid in held})

    if changes.removed:
        with catalog.transaction() as writer:
            writer.delete(changes.removed)
    if metadata_only:
        with catalog.transaction() as writer:
            writer.put(metadata_only)
    with bulk_encoding():  # the encoder's throughput path (rag/encoders.py), for this thread only
        embedded = _write(to_embed, changes.replaced, stores, catalog, plan, batch_chunks, progress)

    committed = catalog.entries()
    for each, held in list(zip(stores, ids_of, strict=True))[1:]:
        _backfill(each, held | embedded.written_ids, committed, plan, batch_chunks, progress)
    # Everything a store holds that the catalogue does not name for it: chunks of removed or
    # renamed papers, tails of papers that now have fewer chunks, leftovers of a killed run,
    # chunks past a store's `first_chunks` (an index built when the channel held every chunk).
    for each, held in zip(stores, ids_of, strict=True):
        expected = {cid for entry in committed.values() for cid in _held_by(each, entry)}
        each.delete(sorted((held | embedded.written_ids) - expected))
    # Last, so that a kill before this point leaves a lexical index the next sync mends
    # (it compares content hashes with the catalogue and tokenises only the difference).
    lexical.sync({pid: (entry.paper, entry.content_hash) for pid, entry in committed.items()})

    kinds = list(changes.kinds.values())
    return IngestReport(
        added=kinds.count("added"),
        updated=kinds.count("updated"),
        unchanged=kinds.count("unchanged"),
        removed=len(changes.removed),
        papers=catalog.count(),
        chunks=catalog.chunk_count(),
        embedded=embedded.count,
        errors=loaded.errors,
    )


def refuse_id_clashes(loaded: LoadResult, existing: Mapping[str, Entry]) -> None:
    """For an ingest that may only add papers (an upload): a record reusing the id of an indexed
    paper with a different abstract would rewrite that paper, so the whole ingest is refused."""
    clashes = [p for p in loaded.papers if (old := existing.get(p.paper_id)) is not None and old.paper.abstract_key != p.abstract_key]
    if clashes:
        listed = "; ".join(f"{p.paper_id} ({p.title[:60]})" for p in clashes[:10])
        raise IdClashError(
            f"{len(clashes)} record(s) reuse the id of a paper already in the corpus with a different abstract: {listed}. "
            "Nothing was added. Give them new ids, or change the original with `paperchat ingest FILE`."
        )


@dataclass
class _Changes:
    final: dict[str, Paper]  # paper_id -> the paper as it should now be indexed
    kinds: dict[str, str]  # paper_id -> added | updated | unchanged
    replaced: dict[str, str]  # new paper_id -> the old id it replaces (a record id beat a hash id)
    removed: list[str]
    dirty: set[str]


def _plan_changes(loaded: LoadResult, existing: dict[str, Entry], prune: bool) -> _Changes:
    authoritative = set(loaded.files)

    def kept_sources(paper: Paper) -> tuple[str, ...]:
        return tuple(s for s in paper.sources if s not in authoritative and not (prune and not Path(s).exists()))

    by_key = {entry.paper.abstract_key: entry for entry in existing.values()}
    changes = _Changes(final={}, kinds={}, replaced={}, removed=[], dirty=set())
    matched: set[str] = set()
    # Match by record id first (an edited abstract keeps its paper), then by abstract (the
    # same text from another file): in that order, whatever order the files came in.
    pairs: dict[int, Entry] = {}
    for index, paper in enumerate(loaded.papers):
        old = existing.get(paper.paper_id)
        if old is not None and old.paper.paper_id not in matched:
            pairs[index] = old
            matched.add(old.paper.paper_id)
    for index, paper in enumerate(loaded.papers):
        old = by_key.get(paper.abstract_key)
        if index not in pairs and old is not None and old.paper.paper_id not in matched:
            pairs[index] = old
            matched.add(old.paper.paper_id)

    for index, paper in enumerate(loaded.papers):
        old = pairs.get(index)
        if old is None or paper.paper_id in changes.final:
            changes.final[paper.paper_id] = paper
            changes.kinds[paper.paper_id] = "added"
            continue
        kept = kept_sources(old.paper)
        # With no other file still vouching for the old copy, the copy just read is the whole
        # truth (a field removed from the record goes); otherwise the copies are merged.
        merged = merge_papers(paper, replace(old.paper, sources=kept)) if kept else paper
        merged = replace(merged, sources=_ordered_sources(old.paper.sources, kept, paper.sources))
        if merged.paper_id in changes.final:  # another loaded paper already took that id
            changes.final[paper.paper_id] = paper
            changes.kinds[paper.paper_id] = "added"
            continue
        if merged.paper_id != old.paper.paper_id:
            changes.replaced[merged.paper_id] = old.paper.paper_id
        changes.final[merged.paper_id] = merged
        changes.kinds[merged.paper_id] = "unchanged" if merged == old.paper else "updated"

    for paper_id, entry in existing.items():
        if paper_id in matched:
            continue
        kept = kept_sources(entry.paper)
        if kept == entry.paper.sources:
            continue
        if kept:
            changes.final[paper_id] = replace(entry.paper, sources=kept)
            changes.kinds[paper_id] = "updated"
        else:
            changes.removed.append(paper_id)
    return changes


def _ordered_sources(old: tuple[str, ...], kept: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
    """Sources in first-seen order, so that re-reading a file does not reorder them."""
    current = set(kept) | set(new)
    return tuple(dict.fromkeys([s for s in old if s in current] + list(new)))


@dataclass
class _Written:
    count: int
    written_ids: set[str]


def _write(
    to_embed: Sequence[tuple[Paper, str]],
    replaced: dict[str, str],
    stores: Sequence[ChunkStore],
    catalog: Catalog,
    plan: ChunkPlan,
    batch_chunks: int,
    progress: bool,
) -> _Written:
    written = _Written(0, set())
    if not to_embed:
        return written
    from tqdm import tqdm

    batches = list(_batches(to_embed, plan, batch_chunks))
    total = sum(len(chunks) for chunks, _ in batches)
    bar = tqdm(total=total, unit="chunk", desc="embedding", file=sys.stderr, disable=not progress, mininterval=1.0)
    try:
        for chunks, entries in batches:
            for store in stores:
                store.upsert(chunks, {e.paper.paper_id: e.paper.metadata() for e in entries})
            written.written_ids.update(c.chunk_id for c in chunks)
            with catalog.transaction() as writer:
                writer.put(entries)
                writer.delete([replaced[e.paper.paper_id] for e in entries if e.paper.paper_id in replaced])
            written.count += len(chunks)
            bar.update(len(chunks))
    finally:
        bar.close()
    return written


def _backfill(store: ChunkStore, held: set[str], committed: Mapping[str, Entry], plan: ChunkPlan, batch_chunks: int, progress: bool) -> None:
    """Committed papers whose chunks this store lacks, chunked again (ids are stable) and embedded
    by this store's model alone."""
    lacking = [(entry.paper, entry.content_hash) for entry in committed.values() if not set(_held_by(store, entry)) <= held]
    if not lacking:
        return
    from tqdm import tqdm

    batches = list(_batches(lacking, plan, batch_chunks))
    with tqdm(total=sum(len(c) for c, _ in batches), unit="chunk", desc="multilingual", file=sys.stderr, disable=not progress, mininterval=1.0) as bar:
        for chunks, entries in batches:
            store.upsert([c for c in chunks if c.chunk_id not in held], {e.paper.paper_id: e.paper.metadata() for e in entries})
            bar.update(len(chunks))


def _held_by(store: ChunkStore, entry: Entry) -> list[str]:
    """The ids of the committed paper's chunks that `store` keeps."""
    return [cid for cid in entry.chunk_ids() if store.holds(cid)]


def _batches(to_embed: Sequence[tuple[Paper, str]], plan: ChunkPlan, batch_chunks: int) -> Iterator[tuple[list[Chunk], list[Entry]]]:
    chunks: list[Chunk] = []
    entries: list[Entry] = []
    for paper, digest in to_embed:
        paper_chunks = chunk_paper(paper, plan.count_tokens, plan.max_tokens, plan.windows)
        chunks.extend(paper_chunks)
        entries.append(Entry(paper, digest, len(paper_chunks)))
        if len(chunks) >= batch_chunks:
            yield chunks, entries
            chunks, entries = [], []
    if chunks:
        yield chunks, entries
