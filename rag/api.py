"""The public entry points the CLI and the UI call. Builds each seam once from Settings
(or takes one injected, as tests do) and composes corpus → chunking → index → retrieval."""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from rag.catalog import Catalog
from rag.config import Settings
from rag.corpus import load_papers
from rag.errors import NoIndexError, PaperchatError
from rag.lexical import LexicalIndex
from rag.records import IngestReport, Paper

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

    from rag.chunking import TokenCounter
    from rag.index import ChunkPlan
    from rag.retrieval import Fusion, Mode, SearchResult
    from rag.store import ChunkStore


class Paperchat:
    def __init__(
        self,
        settings: Settings | None = None,
        *,
        embeddings: Embeddings | None = None,
        model: str | None = None,
        count_tokens: TokenCounter | None = None,
        max_tokens: int | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self._embeddings = embeddings
        self._model = model
        self._count_tokens = count_tokens
        self._max_tokens = max_tokens
        self._thread_lock = threading.RLock()
        self._store: ChunkStore | None = None
        # Caches of the corpus for search, dropped when the catalogue file changes.
        self._papers: dict[str, Paper] | None = None
        self._lexical_checked = False
        self._catalog_stamp: int | None = None

    # -- seams, built lazily so that `paperchat papers` never loads a model -------------

    @cached_property
    def embeddings(self) -> Embeddings:
        if self._embeddings is None:
            from rag.embeddings import make_embeddings

            self._embeddings = make_embeddings(self.settings)
        return self._embeddings

    @cached_property
    def model(self) -> str:
        if self._model is None:
            from rag.embeddings import model_name

            self._model = model_name(self.settings)
        return self._model

    @cached_property
    def plan(self) -> ChunkPlan:
        from rag.index import ChunkPlan

        if self._count_tokens is None or self._max_tokens is None:
            from rag.embeddings import make_token_counter

            counter, window = make_token_counter(self.settings)
            self._count_tokens = self._count_tokens or counter
            self._max_tokens = self._max_tokens or window
        return ChunkPlan(self._count_tokens, self._max_tokens, self.model)

    def store(self, create: bool = False) -> ChunkStore:
        from rag.store import make_store

        if self._store is None:
            catalog_id = self.catalog.catalog_id if create or self.settings.catalog_path.exists() else None
            self._store = make_store(self.settings, self.embeddings, self.model, create=create, catalog_id=catalog_id)
        return self._store

    @cached_property
    def catalog(self) -> Catalog:
        return Catalog(self.settings.catalog_path)

    @cached_property
    def lexical(self) -> LexicalIndex:
        return LexicalIndex(self.settings.lexical_dir)

    def _lexical_for_search(self) -> LexicalIndex:
        """The lexical index as the catalogue says it should be. A missing or stale one
        (deleted by hand, an ingest killed before its last step) is rebuilt here once,
        under the same lock as an ingest, so two first searches never write it together."""
        self._refresh_if_catalogue_changed()
        with self._thread_lock:
            if not self._lexical_checked:
                with self._ingest_lock():
                    entries = self.catalog.entries()
                    if not self.lexical.load() or self.lexical.fingerprint() != {p: e.content_hash for p, e in entries.items()}:
                        self.lexical.sync({p: (e.paper, e.content_hash) for p, e in entries.items()})
                self._lexical_checked = True
        return self.lexical

    def _papers_by_id(self) -> dict[str, Paper]:
        self._refresh_if_catalogue_changed()
        with self._thread_lock:
            if self._papers is None:
                self._papers = {p.paper_id: p for p in self._existing_catalog().papers()}
            return self._papers

    def _refresh_if_catalogue_changed(self) -> None:
        # A long-running app must see what a CLI ingest in another process changed.
        path = self.settings.catalog_path
        stamp = path.stat().st_mtime_ns if path.exists() else 0
        if self._catalog_stamp != stamp:
            self._forget_cached_corpus()
            self._catalog_stamp = stamp

    def _existing_catalog(self) -> Catalog:
        if not self.settings.catalog_path.exists():
            raise NoIndexError(str(self.settings.data_dir))
        return self.catalog

    def _forget_cached_corpus(self) -> None:
        self._papers = None
        self._lexical_checked = False

    # -- operations ---------------------------------------------------------------------

    def ingest(self, paths: Sequence[str | Path], *, prune: bool = False, progress: bool = False) -> IngestReport:
        from rag.index import sync

        loaded = load_papers(paths, self.settings.max_abstract_chars)
        if not loaded.files and not loaded.papers and not prune:
            # Nothing readable: report the errors without creating or touching any index.
            papers = self.catalog.count() if self.settings.catalog_path.exists() else 0
            chunks = self.catalog.chunk_count() if papers else 0
            return IngestReport(papers=papers, chunks=chunks, errors=loaded.errors)
        with self._ingest_lock():
            self._forget_cached_corpus()
            return sync(
                loaded,
                self.store(create=True),
                self.catalog,
                self.lexical,
                self.plan,
                batch_chunks=self.settings.ingest_batch_chunks,
                prune=prune,
                progress=progress,
            )

    def papers(self) -> list[Paper]:
        return self._existing_catalog().papers()

    def search(
        self,
        query: str,
        k: int | None = None,
        *,
        mode: Mode | None = None,
        fusion: Fusion | None = None,
        where: Mapping[str, object] | None = None,
    ) -> SearchResult:
        """Papers for `query`, best first. `where`: {"primary_area": "...", "year": 2024, "source": "000.txt"}."""
        from rag.retrieval import filter_papers, search

        if k is not None and k < 1:
            raise PaperchatError(f"k={k}: ask for at least one paper.")
        papers = self._papers_by_id()
        allowed = filter_papers(papers.values(), where) if where else None
        return search(
            query,
            store=self.store(create=False),
            lexical=self._lexical_for_search(),
            lookup=lambda ids: {p: papers[p] for p in ids if p in papers},
            k=k or self.settings.top_k,
            mode=mode or self.settings.search_mode,
            fusion=fusion or self.settings.fusion,
            allowed=allowed,
        )

    def status(self) -> dict[str, object]:
        """What the app shows about itself; never a secret."""
        papers = self.catalog.count() if self.settings.catalog_path.exists() else 0
        return {
            "data_dir": str(self.settings.data_dir),
            "store": f"Chroma server {self.settings.chroma_url}" if self.settings.chroma_url else "Chroma (local)",
            "embedding_model": self.model,
            "papers": papers,
        }

    @contextmanager
    def _ingest_lock(self) -> Iterator[None]:
        # Two ingests at once (the CLI and an upload in the app) would each plan from the
        # same catalogue and undo each other's removals; the second waits for the first.
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        with open(self.settings.data_dir / "ingest.lock", "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
