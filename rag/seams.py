"""Each outside library's seam, built once and lazily from Settings by its factory (or injected,
as tests do): the embedding model, the chat model, the Chroma store, the catalogue, the BM25
index, and the file lock that keeps two ingests apart (filelock: flock on POSIX, msvcrt on
Windows). Lazily, so that `paperchat papers` never loads a model and a missing LLM does not stop search.
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from rag.calibration import Calibration, calibration_for
from rag.catalog import Catalog, catalog_version
from rag.config import Settings
from rag.errors import NoIndexError, PaperchatError, disk_full
from rag.lexical import LexicalIndex

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

    from rag.chunking import TokenCounter
    from rag.evidence import SentenceVectors
    from rag.index import ChunkPlan
    from rag.store import ChunkStore

log = logging.getLogger(__name__)


class _Default:
    """Marks an argument not given (None is a value: the evidence-only backend)."""


DEFAULT = _Default()


class Seams:
    def __init__(
        self,
        settings: Settings,
        *,
        embeddings: Embeddings | None = None,
        model: str | None = None,
        count_tokens: TokenCounter | None = None,
        max_tokens: int | None = None,
        chat: BaseChatModel | _Default | None = DEFAULT,
        capable: bool | None = None,
        multilingual: Embeddings | _Default | None = DEFAULT,
    ) -> None:
        self.settings = settings
        self._embeddings, self._model, self._chat, self._capable = embeddings, model, chat, capable
        # The backend setting says what made the vectors only when the seam built the model itself.
        self._embedding_backend = None if embeddings is not None else settings.embedding_backend
        self._multilingual = multilingual
        self.multilingual_problem: str | None = None  # why the multilingual channel is off, for the status line
        self._count_tokens, self._max_tokens = count_tokens, max_tokens
        self.llm_problem: str | None = None  # why the configured LLM could not be built, for the status line
        self._lock = threading.RLock()
        # Apart from _lock: the lexical check may wait for an ingest's file lock, and an ingest
        # takes _lock (to open the store); one lock for both could deadlock.
        self._lexical_lock = threading.Lock()
        self._lexical_version: int | None = None
        self._store: ChunkStore | None = None
        self._multilingual_store: ChunkStore | None = None
        self._store_version: int | None = None  # the catalogue version the open stores are known to hold

    @property
    def embeddings(self) -> Embeddings:
        # Locked: the app's first requests arrive together, and each would load the model.
        with self._lock:
            if self._embeddings is None:
                from rag.embeddings import make_embeddings

                self._embeddings = make_embeddings(self.settings)
            return self._embeddings

    @cached_property
    def multilingual(self) -> Embeddings | None:
        """The multilingual encoder (rag/multilingual.py), loaded and tried once; None when the
        channel is turned off, or its model is missing or corrupt (`multilingual_problem` says why:
        English keeps working)."""
        if not isinstance(self._multilingual, _Default):
            return self._multilingual
        if not self.settings.multilingual:
            return None
        from rag.errors import EmbeddingModelError
        from rag.multilingual import make_multilingual_embeddings

        with self._lock:
            try:
                embeddings = make_multilingual_embeddings()
                embeddings.embed_query("warm up")
                return embeddings
            except EmbeddingModelError as exc:
                log.warning("%s", exc)
                self.multilingual_problem = str(exc)
                return None

    @cached_property
    def model(self) -> str:
        from rag.embeddings import model_name

        return self._model or model_name(self.settings)

    @cached_property
    def calibration(self) -> Calibration:
        """The thresholds measured with this embedding model; PAPERCHAT_MIN_GROUNDING overrides one."""
        calibration = calibration_for(self.model)
        override = self.settings.min_grounding
        return calibration if override is None else replace(calibration, min_grounding=override)

    @cached_property
    def chat(self) -> BaseChatModel | None:
        """The LLM that drafts answers; None for the evidence-only backend, and when the configured
        one cannot be built (a missing GGUF file, no key): answers then come from the evidence, and
        `llm_problem` says why."""
        if not isinstance(self._chat, _Default):
            return self._chat
        from rag.llm import LLMError, make_chat_model

        try:
            return make_chat_model(self.settings)
        except LLMError as exc:
            log.warning("No language model: %s Answers come from the abstracts' own sentences.", exc)
            self.llm_problem = str(exc)
            return None

    @cached_property
    def backend(self) -> str:
        """What drafts answers, for the status line and every answer's record; never a key."""
        if not isinstance(self._chat, _Default):
            return "none" if self._chat is None else type(self._chat).__name__
        from rag.llm import backend_label

        return backend_label(self.settings)

    @cached_property
    def capable(self) -> bool:
        """The chat model can rewrite questions and write Chinese: a backend the user chose (a
        server, a GGUF file of their own), not the bundled 135M model; an injected one when told."""
        if self._capable is not None or not isinstance(self._chat, _Default):
            return bool(self._capable) and self.chat is not None
        return self.settings.llm_backend in ("openai", "ollama") or bool(self.settings.llm_model_path)

    def encode_multilingual(self, texts: list[str]) -> Any:
        """The multilingual encoder's rows for `texts`, loaded on first use (a Chinese claim to check)."""
        from rag.errors import PaperchatError
        from rag.multilingual import encode

        encoder = self.multilingual
        if encoder is None:
            raise PaperchatError(f"The multilingual model is unavailable ({self.multilingual_problem}), so text in Chinese cannot be checked.")
        return encode(encoder, texts)

    @cached_property
    def vectors(self) -> SentenceVectors:
        from rag.evidence import SentenceVectors

        return SentenceVectors(self.embeddings)

    @cached_property
    def plan(self) -> ChunkPlan:
        from rag.index import ChunkPlan

        if self._count_tokens is None or self._max_tokens is None:
            from rag.embeddings import make_token_counter

            counter, window = make_token_counter(self.settings)
            self._count_tokens, self._max_tokens = self._count_tokens or counter, self._max_tokens or window
        return ChunkPlan(self._count_tokens, self._max_tokens, self.model, self.settings.embedding_windows)

    def store(self, create: bool = False) -> ChunkStore:
        """The Chroma store; `create=False` (search, papers) fails with the fix when there is no index."""
        from rag.store import make_store

        self.catch_up()
        with self._lock:
            return self._opened(
                "_store", create,
                lambda catalog_id: make_store(
                    self.settings, self.embeddings, self.model, create=create, catalog_id=catalog_id, backend=self._embedding_backend
                ),
            )

    def multilingual_store(self, create: bool = False) -> ChunkStore | None:
        """The multilingual channel's collection beside the main one; None when the channel is off,
        or (`create=False`) when this index was built without it (the next ingest adds it)."""
        from rag.multilingual import CHUNKS_PER_PAPER, MULTILINGUAL_MODEL_NAME
        from rag.store import make_store, multilingual_collection

        if self.multilingual is None:
            return None
        multilingual = self.multilingual
        self.catch_up()
        with self._lock:
            try:
                store = self._opened(
                    "_multilingual_store", create,
                    lambda catalog_id: make_store(
                        self.settings, multilingual, MULTILINGUAL_MODEL_NAME, create=create, catalog_id=catalog_id,
                        collection=multilingual_collection(self.settings), first_chunks=CHUNKS_PER_PAPER,
                    ),
                )
            except NoIndexError as exc:
                log.info("No multilingual collection: %s", exc)
                self.multilingual_problem = "This index has no multilingual channel yet; run `paperchat ingest` again to add it."
                return None
            self.multilingual_problem = None
            return store

    def _opened(self, attribute: str, create: bool, make: Callable[[str | None], ChunkStore]) -> ChunkStore:
        """The store kept in `attribute`, made by `make(catalog_id)` when there is none, and made
        again when its last call failed (a local Chroma engine hangs on the next call after a
        failed one). Called under the lock: two app requests opening Chroma's persistent client at
        once break its shared client cache ("Could not connect to tenant default_tenant")."""
        if self._store_version is None:
            self._store_version = catalog_version(self.settings.catalog_path)
        store: ChunkStore | None = getattr(self, attribute)
        if store is not None and store.failed:
            store.close()
            store = None
        if store is None:
            store = make(self.catalog.catalog_id if create or self.settings.catalog_path.exists() else None)
            setattr(self, attribute, store)
        return store

    def catch_up(self, *, holding_ingest_lock: bool = False) -> None:
        """Open the local store afresh when another process (`paperchat ingest` beside the app)
        wrote it since this one opened it. Chroma's local client keeps the vector index it loaded
        and never reads another process's additions into it (chroma-core/chroma#3769, #3792):
        searches miss those papers, and this process's next writes persist its stale index over
        the other's, so that their vectors are found by no search again (chromadb 1.5.9: 1,100
        papers ingested by the CLI, then 1,100 uploaded to the app, and only 76 of the CLI's
        found by their own abstract afterwards; tests/test_store_processes.py). Only when no
        ingest writes (the file lock free, or held by the caller): a reader during an ingest
        keeps the index it has, and catches up after it."""
        if self.settings.chroma_url or (self._store is None and self._multilingual_store is None):
            return  # a Chroma server is one process: its index is always current
        if catalog_version(self.settings.catalog_path) == self._store_version:
            return
        with self.ingest_lock(wait=False) if not holding_ingest_lock else nullcontext(True) as free:
            if not free:
                return
            with self._lock:
                if catalog_version(self.settings.catalog_path) == self._store_version:
                    return
                from rag.store_clients import forget_local_clients

                log.info("Another process changed the index; opening the store afresh")
                self._store = self._multilingual_store = None
                forget_local_clients()
                self._store_version = None

    def drop_multilingual_store(self) -> None:
        """Delete the channel's collection, if any: an ingest with the channel off would leave it
        holding papers as they were (an edited abstract's old vector and text), so turning the
        channel on again embeds it afresh instead."""
        from rag.store import drop_collection, multilingual_collection

        with self._lock:
            if self._multilingual_store is not None:
                self._multilingual_store.close()
            self._multilingual_store = None
            drop_collection(self.settings, multilingual_collection(self.settings))

    def close_stores(self) -> None:
        """Close the Chroma clients; the next use opens them again."""
        with self._lock:
            for store in (self._store, self._multilingual_store):
                if store is not None:
                    store.close()
            self._store = self._multilingual_store = None

    @cached_property
    def catalog(self) -> Catalog:
        return Catalog(self.settings.catalog_path)

    def close(self) -> None:
        """Release what holds the data directory's files open (the catalogue's connections, the Chroma clients)."""
        if "catalog" in self.__dict__:
            self.catalog.close()
        self.close_stores()

    def wipe_index(self) -> None:
        """Delete this data directory's index: the catalogue, both Chroma collections and the BM25
        index (`paperchat ingest --rebuild`, the way back from a damaged catalogue or store). Uploaded files
        stay, to be ingested again. Under the ingest lock: no ingest writes meanwhile."""
        from rag.store import drop_collection, multilingual_collection, remove_damage

        settings = self.settings
        with self.ingest_lock(), self._lock:
            self.close()
            remove_damage(settings)
            for built in ("catalog", "lexical"):
                self.__dict__.pop(built, None)
            self._lexical_version = None
            for collection in (settings.collection, multilingual_collection(settings)):
                drop_collection(settings, collection)
            for suffix in ("", "-wal", "-shm"):
                settings.catalog_path.with_name(settings.catalog_path.name + suffix).unlink(missing_ok=True)
            shutil.rmtree(settings.lexical_dir, ignore_errors=True)
        log.info("Deleted the index in %s to rebuild it", settings.data_dir)

    @contextmanager
    def writing(self) -> Iterator[None]:
        """An ingest's writes, under the ingest lock: the stores caught up first (never write over
        another process's additions) and known current after (this process wrote them); a full
        disk (the catalogue's, BM25's, the store's) is said as such: what to free, and that running
        the ingest again continues it."""
        with self.ingest_lock():
            self.catch_up(holding_ingest_lock=True)
            try:
                yield
            except PaperchatError:
                raise
            except Exception as exc:
                if (full := disk_full(exc, self.settings.data_dir)) is not None:
                    raise full from exc
                raise
            finally:
                with self._lock:
                    self._store_version = catalog_version(self.settings.catalog_path)

    @cached_property
    def lexical(self) -> LexicalIndex:
        return LexicalIndex(self.settings.lexical_dir)

    def checked_lexical(self, corpus_version: int) -> LexicalIndex:
        """The lexical index as the catalogue says it should be. A missing or stale one (deleted
        by hand, an ingest killed before its last step) is rebuilt here once per corpus version,
        under the ingest lock, so two first searches never write it together."""
        if not corpus_version:
            raise NoIndexError(str(self.settings.data_dir))
        with self._lexical_lock:
            if self._lexical_version != corpus_version:
                with self.ingest_lock(wait=False) as free:
                    if not free:
                        # An ingest (an upload, or the CLI in another process) is writing the index:
                        # search with what is on disk now rather than freeze until it ends (the
                        # index is swapped in whole, so a read sees the old one or the new one).
                        log.info("An ingest is writing the index; searching with the BM25 index as it is")
                        if not len(self.lexical):
                            self.lexical.load()
                        return self.lexical
                    entries = self.catalog.entries()
                    if not self.lexical.load() or self.lexical.fingerprint() != {p: e.content_hash for p, e in entries.items()}:
                        try:
                            self.lexical.sync({p: (e.paper, e.content_hash) for p, e in entries.items()})
                        except OSError as exc:  # a full disk: search with the index as it is, and try again next time
                            log.warning("Could not bring the BM25 index up to date (%s); searching with it as it is", exc)
                            return self.lexical
                self._lexical_version = corpus_version
        return self.lexical

    @contextmanager
    def ingest_lock(self, wait: bool = True) -> Iterator[bool]:
        """Two ingests at once (the CLI and an upload in the app) would each plan from the same
        catalogue and undo each other's removals; the second waits for the first. A file lock, so
        it also holds across processes. `wait=False`: yields False at once if another holds it."""
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        lock = FileLock(self.settings.data_dir / "ingest.lock")
        try:
            lock.acquire(timeout=-1 if wait else 0)
        except Timeout:
            yield False
            return
        try:
            yield True
        finally:
            lock.release()

    def status(self) -> dict[str, object]:
        """What the app shows about itself; never a secret."""
        from rag.embeddings import backend_shown, device_shown

        return {
            "data_dir": str(self.settings.data_dir),
            "store": f"Chroma server {self.settings.chroma_url}" if self.settings.chroma_url else "Chroma (local)",
            "embedding_model": self.model,
            "embedding_device": device_shown(self.settings),
            **({"embedding_backend": backend_shown(self.settings)} if self._embedding_backend else {}),
            "multilingual": self.multilingual_problem or ("on" if self.settings.multilingual else "off"),
            "llm_backend": self.backend,
            "papers": self.catalog.count() if self.settings.catalog_path.exists() else 0,
        }
