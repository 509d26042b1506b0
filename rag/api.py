"""The public entry points the CLI and the UI call. Builds each seam once from Settings
(or takes one injected, as tests do) and composes corpus → chunking → index → retrieval."""

from __future__ import annotations

import fcntl
import threading
import time
from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from rag.catalog import Catalog
from rag.config import Settings
from rag.corpus import load_papers
from rag.errors import NoIndexError, PaperchatError
from rag.lexical import LexicalIndex
from rag.records import Answer, Hit, IngestReport, Paper, Turn

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

    from rag.answer import AnswerEvent, AnswerOptions
    from rag.chunking import TokenCounter
    from rag.evidence import SentenceVectors
    from rag.index import ChunkPlan
    from rag.retrieval import Fusion, Mode, SearchResult
    from rag.store import ChunkStore
    from rag.topic_map import MapPoint
    from rag.topics import Group


def _names_something(question: str) -> bool:
    """A capitalised word after the first, or a number: "What is the capital of France?" is a
    new subject, not a follow-up, even in a conversation ("What turned out to be the bottleneck?" is)."""
    words = question.split()
    return any(w[:1].isupper() for w in words[1:]) or any(c.isdigit() for c in question)


class _Default:
    """Marks an argument not given (None is a value: the evidence-only backend)."""


_DEFAULT = _Default()


class Paperchat:
    def __init__(
        self,
        settings: Settings | None = None,
        *,
        embeddings: Embeddings | None = None,
        model: str | None = None,
        count_tokens: TokenCounter | None = None,
        max_tokens: int | None = None,
        chat: BaseChatModel | _Default | None = _DEFAULT,
    ) -> None:
        self.settings = settings or Settings()
        self._embeddings = embeddings
        self._model = model
        self._count_tokens = count_tokens
        self._max_tokens = max_tokens
        # Tests inject a fake chat model (or None for the evidence-only backend).
        self._chat = chat
        self.llm_problem: str | None = None
        self._thread_lock = threading.RLock()
        # Apart from _thread_lock: the lexical check may wait for an ingest's file lock, and an
        # ingest takes _thread_lock (to open the store); one lock for both could deadlock.
        self._lexical_lock = threading.Lock()
        self._store: ChunkStore | None = None
        # Caches of the corpus for search, dropped when the catalogue file changes.
        self._papers: dict[str, Paper] | None = None
        self._topics: list[Group] | None = None
        self._map: list[MapPoint] | None = None
        self._frequency: Counter[str] | None = None
        self._lexical_checked = False
        self._catalog_stamp: int | None = None

    # -- seams, built lazily so that `paperchat papers` never loads a model -------------

    @property
    def embeddings(self) -> Embeddings:
        # Locked: the app's first requests arrive together, and each would load the model.
        with self._thread_lock:
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
    def chat(self) -> BaseChatModel | None:
        """The LLM that drafts answers; None for the evidence-only backend, and when the configured
        one cannot be built (a missing GGUF file, no key): answers then come from the evidence, and
        `llm_problem` says why (the app's status line shows it)."""
        if isinstance(self._chat, _Default):
            from rag.llm import LLMError, make_chat_model

            try:
                return make_chat_model(self.settings)
            except LLMError as exc:
                self.llm_problem = str(exc)
                return None
        return self._chat

    @cached_property
    def backend(self) -> str:
        if not isinstance(self._chat, _Default):
            return "none" if self._chat is None else type(self._chat).__name__
        from rag.llm import backend_label

        return backend_label(self.settings)

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
            self._count_tokens = self._count_tokens or counter
            self._max_tokens = self._max_tokens or window
        return ChunkPlan(self._count_tokens, self._max_tokens, self.model)

    def store(self, create: bool = False) -> ChunkStore:
        from rag.store import make_store

        # Under the lock: two app requests opening Chroma's persistent client at once break its
        # shared client cache ("Could not connect to tenant default_tenant").
        with self._thread_lock:
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
        with self._lexical_lock:
            if not self._lexical_checked:
                with self._ingest_lock(wait=False) as free:
                    if not free:
                        # An ingest (an upload, or the CLI in another process) is writing the index:
                        # search with what is loaded now rather than freeze until it ends.
                        return self.lexical
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

    def corpus_version(self) -> int:
        """Changes whenever an ingest (here or in another process) changes the corpus; 0 with no index."""
        path = self.settings.catalog_path
        return path.stat().st_mtime_ns if path.exists() else 0

    def _refresh_if_catalogue_changed(self) -> None:
        # A long-running app must see what a CLI ingest in another process changed.
        stamp = self.corpus_version()
        if self._catalog_stamp != stamp:
            self._forget_cached_corpus()
            self._catalog_stamp = stamp

    def _existing_catalog(self) -> Catalog:
        if not self.settings.catalog_path.exists():
            raise NoIndexError(str(self.settings.data_dir))
        return self.catalog

    def _forget_cached_corpus(self) -> None:
        self._papers = None
        self._topics = None
        self._map = None
        self._frequency = None
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
        """Every paper, in catalogue order (cached until the catalogue changes)."""
        return list(self._papers_by_id().values())

    def search(
        self,
        query: str,
        k: int | None = None,
        *,
        mode: Mode | None = None,
        fusion: Fusion | None = None,
        where: Mapping[str, object] | None = None,
        paper_ids: Collection[str] | None = None,
    ) -> SearchResult:
        """Papers for `query`, best first. `where`: {"primary_area": "...", "year": 2024, "source": "000.txt"};
        `paper_ids`: only among these papers."""
        from rag.retrieval import filter_papers, search

        if k is not None and k < 1:
            raise PaperchatError(f"k={k}: ask for at least one paper.")
        papers = self._papers_by_id()
        allowed = filter_papers(papers.values(), where) if where else None
        if paper_ids is not None:
            allowed = (allowed if allowed is not None else set(papers)) & set(paper_ids)
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

    def ask_events(
        self,
        question: str,
        history: Sequence[Turn] = (),
        *,
        where: Mapping[str, object] | None = None,
        mode: str = "auto",
        about: Sequence[str] = (),
    ) -> Iterator[AnswerEvent]:
        """Answer `question` (a follow-up of `history`, oldest turn first) as a stream of events:
        the sources with their evidence as soon as retrieval is done, each verified sentence as
        the LLM writes it, then the final `Answer`. `mode`: auto (routed by wording), answer,
        summarize or compare. `about`: ids of papers the question is about (the explorer's
        "ask about this paper"), answered from them alone."""
        from rag.answer import AnswerOptions, answer_events, compare_events
        from rag.conversation import Resolved, resolve, resolve_as_followup
        from rag.retrieval import clean_query
        from rag.routing import ROUTES, route

        started = time.perf_counter()
        question = clean_query(question)
        if mode != "auto" and mode not in ROUTES:
            raise PaperchatError(f"Unknown mode {mode!r}; use auto, {', '.join(ROUTES)}.")
        # A question about chosen papers is answered from them, whatever its wording.
        chosen = "answer" if about else route(question) if mode == "auto" else mode
        options = AnswerOptions(
            min_grounding=self.settings.min_grounding,
            max_sources=self.settings.answer_sources,
            max_sentences=self.settings.answer_sentences,
            capable=self._capable(),
            backend=self.backend,
            corpus_papers=len(self._papers_by_id()),
        )
        notes: list[str] = []
        if chosen == "compare":
            compared = self._papers_to_compare(question, history, where)
            if len(compared) >= 2:
                timings = {"retrieve": round((time.perf_counter() - started) * 1000, 1)}
                yield from compare_events(question, compared, chat=self.chat, vectors=self.vectors, options=options, started=started, timings_ms=timings)
                return
            from rag import prompts

            notes.append(prompts.COMPARE_NEEDS_TWO)
        if chosen == "summarize":
            yield from self._summarize_events(question, history, where, options, started)
            return
        resolved = resolve(question, history, self._lexical_for_search().papers_named)
        if about:
            papers = self._papers_by_id()
            asked_about = tuple(p for p in about if p in papers)
            if not asked_about:
                raise PaperchatError("The paper asked about is no longer in the corpus; pick it again in the explorer.")
            resolved = Resolved(" ".join([question, *(papers[p].title for p in asked_about)]), asked_about, True)
        query = self._condense(question, history, resolved.query)
        named = self._lexical_for_search().papers_named(query)
        hits = self.search(query, self.settings.answer_sources, where=where, paper_ids=resolved.pinned or None).hits
        if history and not resolved.pinned and not _names_something(question) and not self._grounded(query, hits):
            # In a conversation, a question that is about nothing in the corpus on its own
            # ("What turned out to be the bottleneck?") is about what the last turn was about.
            resolved = resolve_as_followup(question, history)
            query = resolved.query
            hits = self.search(query, self.settings.answer_sources, where=where, paper_ids=resolved.pinned or None).hits
        if resolved.pinned:
            # The papers referred to, in the order the question or the earlier answer gave them.
            order = {p: i for i, p in enumerate(resolved.pinned)}
            hits = sorted(hits, key=lambda h: order.get(h.paper.paper_id, len(order)))
        elif named:
            # A question naming a paper is about that paper: its name outranks looser matches.
            hits = [h for h in hits if h.paper.paper_id in named] or hits
        timings = {"retrieve": round((time.perf_counter() - started) * 1000, 1)}
        yield from answer_events(
            question,
            hits,
            chat=self.chat,
            vectors=self.vectors,
            options=options,
            query=query,
            pinned=bool(resolved.pinned),
            started=started,
            timings_ms=timings,
            notes=notes,
        )

    def ask(
        self, question: str, history: Sequence[Turn] = (), *, where: Mapping[str, object] | None = None, mode: str = "auto", about: Sequence[str] = ()
    ) -> Answer:
        for event in self.ask_events(question, history, where=where, mode=mode, about=about):
            if event.answer is not None:
                return event.answer
        raise AssertionError("answer_events always ends with a final answer")

    def _summarize_events(
        self, question: str, history: Sequence[Turn], where: Mapping[str, object] | None, options: AnswerOptions, started: float
    ) -> Iterator[AnswerEvent]:
        from rag.conversation import referenced
        from rag.summarize import THEME_CANDIDATES, overview_events, summarize_events, theme_of

        timings = {"retrieve": round((time.perf_counter() - started) * 1000, 1)}
        papers_by_id = self._papers_by_id()
        pinned = [papers_by_id[p] for p in referenced(question, history) if p in papers_by_id]
        if pinned:
            # "Summarize them", "summarise [1] and [3]": the papers of the earlier answer, not a search.
            theme = history[-1].query or history[-1].question
            hits = [Hit(p, 1.0, relevance=1.0) for p in pinned]
        else:
            theme = theme_of(self._condense(question, (), question))
            if not theme:
                yield from overview_events(question, list(papers_by_id.values()), self.topics(), options=options, started=started, timings_ms=timings)
                return
            hits = self.search(theme, THEME_CANDIDATES, where=where).hits
            timings["retrieve"] = round((time.perf_counter() - started) * 1000, 1)
        yield from summarize_events(
            question,
            theme,
            hits,
            paper_vectors=self.store().paper_vectors,
            corpus=list(papers_by_id.values()),
            document_frequency=self._document_frequency(),
            chat=self.chat,
            vectors=self.vectors,
            options=options,
            started=started,
            timings_ms=timings,
            pinned=bool(pinned),
        )

    def _document_frequency(self) -> Counter[str]:
        """How many papers use each key term; computed once per catalogue version (5,358 papers: ~1 s)."""
        from rag.evidence import key_terms

        papers = self._papers_by_id()
        frequency = self._frequency
        if frequency is None:
            frequency = Counter(t for p in papers.values() for t in key_terms(f"{p.title} {p.abstract}"))
            self._frequency = frequency
        return frequency

    def topics(self) -> list[Group]:
        """The whole corpus in topics. Recomputed on first use after the catalogue changes, not
        kept up to date at ingest: reading every stored vector, k-means and labels take ~9 s for
        5,358 papers and ~21 s for 21,470 (bench/RESULTS.md), once per catalogue version, against
        ~10 minutes and ~1 hour of embedding to ingest them."""
        topics, _ = self._topics_and_map()
        return topics

    def topic_map(self) -> list[MapPoint]:
        """Every paper as a point on a plane, coloured by its topic (the app's explorer)."""
        _, points = self._topics_and_map()
        return points

    def _topics_and_map(self) -> tuple[list[Group], list[MapPoint]]:
        # One read of every stored vector serves both (it is most of the cost), then the
        # vectors are let go: 21,470 papers' vectors as lists would hold ~250 MB.
        from rag.topic_map import topic_map
        from rag.topics import MAX_OVERVIEW_GROUPS, group

        papers = self._papers_by_id()
        stamp = self._catalog_stamp
        topics, points = self._topics, self._map
        if topics is None or points is None:
            # Computed outside the lock (seconds at 20,000 papers): searches go on meanwhile.
            vectors = self.store().paper_vectors(None)
            papers = {p: paper for p, paper in papers.items() if p in vectors}  # an ingest may be adding papers now
            topics = group(list(papers.values()), vectors, MAX_OVERVIEW_GROUPS)
            points = topic_map(list(papers.values()), vectors, topics)
            with self._thread_lock:
                if self._catalog_stamp == stamp:  # kept only if the corpus did not change meanwhile
                    self._topics, self._map = topics, points
        return topics, points

    def _papers_to_compare(self, question: str, history: Sequence[Turn], where: Mapping[str, object] | None) -> list[Hit]:
        """The papers a comparison request means, in its order: sources of an earlier answer it
        refers to ("[1] and [3]", "them"), papers it names, papers its phrases describe ("the
        Circuit Insights paper"), else the papers of a theme ("the Gaussian Splatting papers")."""
        from rag.compare import MAX_PAPERS
        from rag.conversation import comparison_parts, referenced
        from rag.evidence import grounding

        lexical = self._lexical_for_search()
        papers = self._papers_by_id()
        chosen: dict[str, Hit] = {}
        for paper_id in [*referenced(question, history), *lexical.papers_named(question)]:
            if paper_id in papers:
                chosen.setdefault(paper_id, Hit(papers[paper_id], 1.0, relevance=1.0))
        parts = comparison_parts(question)
        if len(chosen) < 2 and len(parts) >= 2:
            for part in (p for p in parts if not lexical.papers_named(p)):
                hits = self.search(part, 1, where=where).hits
                if hits and grounding(part, hits[0]) >= self.settings.min_grounding:
                    chosen.setdefault(hits[0].paper.paper_id, hits[0])
        if len(chosen) < 2:
            theme = " ".join(parts) or question
            for hit in self.search(theme, MAX_PAPERS, where=where).hits:
                if grounding(theme, hit) >= self.settings.min_grounding:
                    chosen.setdefault(hit.paper.paper_id, hit)
        return list(chosen.values())[:MAX_PAPERS]

    def _grounded(self, query: str, hits: Sequence[Hit]) -> bool:
        from rag.evidence import grounding

        return any(grounding(query, hit) >= self.settings.min_grounding for hit in hits)

    def _capable(self) -> bool:
        # The bundled 135M model cannot rewrite a question or write Chinese; a model the user
        # chose (a GGUF file of their own, a server) is trusted to.
        if not isinstance(self._chat, _Default):
            return self._chat is not None and getattr(self._chat, "capable", False)
        return self.settings.llm_backend in ("openai", "ollama") or bool(self.settings.llm_model_path)

    def _condense(self, question: str, history: Sequence[Turn], query: str) -> str:
        """With a capable backend: the question rewritten to stand alone, in English (the
        index reads only English). Otherwise, or if the rewrite fails, the deterministic query."""
        from rag.evidence import language_of

        if not self._capable() or self.chat is None or (not history and language_of(question) == "en"):
            return query
        from rag import prompts

        lines = "\n".join(f"User: {turn.question}" for turn in history[-3:])
        try:
            rewritten = str(self.chat.invoke(prompts.CONDENSE_QUESTION.format(history=lines or "(none)", question=question)).content)
        except Exception:  # the backend is down: the deterministic query still works
            return query
        rewritten = " ".join(rewritten.split())[:500]
        return rewritten if rewritten and language_of(rewritten) == "en" else query

    def warm_up(self) -> None:
        """Load what the first question would otherwise wait for: the embedding model, the BM25
        index and catalogue, and the local LLM (a one-token draft). Failures are left for that
        question to report; a missing index is not an error here."""
        try:
            self.embeddings.embed_query("warm up")
            if self.settings.catalog_path.exists():
                self.store()
                self._lexical_for_search()
                self._papers_by_id()
            if self.settings.llm_backend == "local" and self.chat is not None:
                self.chat.invoke("Hi", max_tokens=1)
        except Exception:  # a warm-up never stops the app; the first real use reports the problem
            return

    def status(self) -> dict[str, object]:
        """What the app shows about itself; never a secret."""
        papers = self.catalog.count() if self.settings.catalog_path.exists() else 0
        return {
            "data_dir": str(self.settings.data_dir),
            "store": f"Chroma server {self.settings.chroma_url}" if self.settings.chroma_url else "Chroma (local)",
            "embedding_model": self.model,
            "llm_backend": self.backend,
            "papers": papers,
        }

    @contextmanager
    def _ingest_lock(self, wait: bool = True) -> Iterator[bool]:
        # Two ingests at once (the CLI and an upload in the app) would each plan from the
        # same catalogue and undo each other's removals; the second waits for the first.
        # wait=False: yields False at once if another holds it.
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        with open(self.settings.data_dir / "ingest.lock", "w") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
