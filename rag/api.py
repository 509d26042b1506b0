"""The facade the CLI and the app call: builds the seams from Settings (rag/seams.py), holds the
ingest lock, reads the corpus through its caches, and routes a request to its mode.

    ingest ──▶ corpus.load_papers ──▶ index.sync (store, catalogue, BM25)
    search ──▶ retrieval.search
    ask    ──▶ routing.route ──▶ answer | summarize | compare, each given a context.Context
"""

from __future__ import annotations

import logging
import sys
from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.catalog import catalog_version
from rag.config import Settings
from rag.context import Context, Request
from rag.conversation import next_page
from rag.corpus import abstract_key, load_papers
from rag.corpus_cache import CorpusCache
from rag.errors import NoIndexError, PaperchatError
from rag.filters import field_values, with_said_filters
from rag.labels import make_label
from rag.lexical import LexicalIndex, common_words
from rag.records import Answer, AnswerEvent, Check, Group, IngestReport, LoadResult, MapPoint, Paper, Turn
from rag.routing import Mode, parse_mode, route
from rag.seams import Seams
from rag.tagger import make_tagger

if TYPE_CHECKING:
    from rag.retrieval import Across, Fusion, SearchMode, SearchResult
    from rag.topics import LabelBackground

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Crossing:
    english: str  # the question's English words
    search: Across


class Paperchat:
    def __init__(self, settings: Settings | None = None, **seams: Any) -> None:
        """`seams`: replacements for what would be built from `settings` (tests inject fakes):
        `embeddings`, `model`, `count_tokens`, `max_tokens`, `chat` (None: the evidence-only
        backend) and `capable` (whether that chat model can rewrite questions and write Chinese)."""
        self.settings = settings or Settings()
        self.seams = Seams(self.settings, **seams)
        self.cache = CorpusCache(self.corpus_version)

    # -- the corpus as the modes read it (rag.context.Corpus) --------------------------

    def corpus_version(self) -> int:
        """Changes whenever an ingest (here or in another process) changes the corpus; 0 with no index."""
        return catalog_version(self.settings.catalog_path)

    def papers_by_id(self) -> dict[str, Paper]:
        if not self.corpus_version():
            raise NoIndexError(str(self.settings.data_dir))
        return self.cache.get("papers", lambda: {p.paper_id: p for p in self.seams.catalog.papers()})

    def papers(self) -> list[Paper]:
        """Every paper, in catalogue order."""
        return list(self.papers_by_id().values())

    def search(
        self,
        query: str,
        k: int | None = None,
        *,
        mode: SearchMode | None = None,
        fusion: Fusion | None = None,
        where: Mapping[str, object] | None = None,
        paper_ids: Collection[str] | None = None,
    ) -> SearchResult:
        """Papers for `query`, best first. `where`: {"primary_area": "...", "year": 2024, "source": "000.txt"};
        `paper_ids`: only among these papers. A query in another language than English is searched
        by its English words (rag/crosslingual.py) and in the multilingual channel."""
        from rag.language import question_language
        from rag.retrieval import clean_query, filter_papers, search

        if k is not None and k < 1:
            raise PaperchatError(f"k={k}: ask for at least one paper.")
        papers = self.papers_by_id()
        allowed = filter_papers(papers.values(), where) if where else None
        if paper_ids is not None:
            allowed = (allowed if allowed is not None else set(papers)) & set(paper_ids)
        across = self._across(clean_query(query)) if question_language(query) != "en" else None
        return search(
            across.english if across else query,
            store=self.seams.store(),
            lexical=self._lexical(),
            lookup=lambda ids: {p: papers[p] for p in ids if p in papers},
            k=k or self.settings.top_k,
            mode=mode or self.settings.search_mode,
            fusion=fusion or self.settings.fusion,
            allowed=allowed,
            cal=self.seams.calibration,
            across=across.search if across else None,
        )

    def english_theme(self, theme: str) -> str:
        """The corpus's English phrase for a theme in another language ("机器遗忘" → "machine unlearning"), else the theme."""
        from rag.calibration import MULTILINGUAL
        from rag.crosslingual import english_theme
        from rag.language import question_language

        if question_language(theme) == "en" or (tools := self._crossing_tools()) is None:
            return theme
        table, encode = tools
        return english_theme(theme, table, encode, MULTILINGUAL.min_phrase_cosine) or theme

    def _crossing_tools(self) -> tuple[Any, Any] | None:
        """The corpus's phrase table and the multilingual encoder; None when the channel is off."""
        from functools import partial

        from rag.crosslingual import load_or_build
        from rag.multilingual import encode as encode_with

        encoder = self.seams.multilingual
        if encoder is None or self.seams.multilingual_store() is None:
            return None
        encode = partial(encode_with, encoder)
        table = self.cache.get("phrases", lambda: load_or_build(self.settings.data_dir / "phrases.npz", self.papers(), encode))
        return table, encode

    def _across(self, question: str) -> Crossing | None:
        """How a question in another language is searched: its English words and the multilingual
        channel; None when the channel is off (it is then searched by its Latin-script names)."""
        from rag.calibration import MULTILINGUAL
        from rag.crosslingual import english_query
        from rag.retrieval import Across

        store, tools = self.seams.multilingual_store(), self._crossing_tools()
        if store is None or tools is None:
            return None
        table, encode = tools
        english = english_query(question, table, encode, MULTILINGUAL.min_phrase_cosine)
        return Crossing(english, Across(question, store, MULTILINGUAL.multilingual_weight))

    def papers_named(self, text: str) -> list[str]:
        """Papers a text names by their own coined name ("what does SureLock lock?"), in its order."""
        return self._lexical().papers_named(text, common_words(self.document_frequency(), len(self.papers_by_id())))

    def paper_vectors(self, paper_ids: Sequence[str] | None) -> dict[str, list[float]]:
        return self.seams.store().paper_vectors(paper_ids)

    def document_frequency(self) -> Counter[str]:
        """How many papers use each key term (5,358 papers: ~1 s, once per corpus version)."""
        from rag.text import key_terms

        return self.cache.get("document_frequency", lambda: Counter(t for p in self.papers() for t in key_terms(f"{p.title} {p.abstract}")))

    def label_background(self) -> LabelBackground:
        """rag/topics.label_background of the whole corpus, once per corpus version (~7 s for 5,358 papers)."""
        from rag.topics import label_background

        return self.cache.get("label_background", lambda: label_background(self.papers()))

    def topics(self) -> list[Group]:
        """The whole corpus in topics, on first use after each change of it, not at ingest (bench/RESULTS.md)."""
        return self._topics_and_map()[0]

    def topic_map(self) -> list[MapPoint]:
        """Every paper as a point on a plane, coloured by its topic (the app's explorer)."""
        return self._topics_and_map()[1]

    def _topics_and_map(self) -> tuple[list[Group], list[MapPoint]]:
        from rag.topic_map import corpus_topics

        return self.cache.get("topics", lambda: corpus_topics(self.papers(), self.paper_vectors(None), self.label_background(), self.seams.vectors))

    def _lexical(self) -> LexicalIndex:
        return self.seams.checked_lexical(self.corpus_version())

    # -- operations ---------------------------------------------------------------------

    def ingest(self, paths: Sequence[str | Path], *, prune: bool = False, progress: bool = False, add_only: bool = False) -> IngestReport:
        """Bring the index in step with `paths` (files or folders). `add_only` (an upload): a
        record reusing an indexed paper's id with a different abstract refuses the whole ingest
        (IdClashError) rather than rewrite that paper."""
        from rag.index import refuse_id_clashes, sync

        seams, indexed = self.seams, bool(self.corpus_version())
        loaded = load_papers(paths, self.settings.max_abstract_chars, label=None)
        if not loaded.files and not loaded.papers and not prune:
            # Nothing readable: report the errors without creating or touching any index.
            papers = seams.catalog.count() if indexed else 0
            return IngestReport(papers=papers, chunks=seams.catalog.chunk_count() if papers else 0, errors=loaded.errors)
        with seams.writing():
            if add_only:
                refuse_id_clashes(loaded, seams.catalog.entries())
            self.cache.clear()
            store, channel = seams.store(create=True), seams.multilingual_store(create=True)
            if channel is None:
                seams.drop_multilingual_store()
            loaded = _titled(seams, loaded, indexed, progress)  # after the stores answer; a full disk said as one
            return sync(
                loaded, store, seams.catalog, seams.lexical, seams.plan, more_stores=[channel] if channel else [],
                batch_chunks=self.settings.ingest_batch_chunks, prune=prune, progress=progress,
            )

    def ask_events(
        self, question: str, history: Sequence[Turn] = (), *, where: Mapping[str, object] | None = None, mode: str = Mode.AUTO, about: Sequence[str] = ()
    ) -> Iterator[AnswerEvent]:
        """Answer `question` (a follow-up of `history`, oldest turn first) as a stream of events:
        the sources with their evidence as soon as they are known, each verified sentence as the
        LLM writes it, then the final `Answer`. `mode`: auto (routed by wording), answer,
        summarize, compare or list; "more" after a list is its next page. Filters said in words
        ("oral papers", "in the RL area") join `where` (rag/filters.py). `about`: ids of papers the question is about (the explorer's "ask
        about this paper"), answered from them alone, whatever the wording."""
        from rag import prompts
        from rag.language import question_language
        from rag.retrieval import clean_query

        request = Request(clean_query(question), tuple(history), where, tuple(about))
        typed, chosen = request.question, parse_mode(mode)
        papers = self.papers_by_id()  # no index: say so (NoIndexError) before any model is built or asked
        page = 1
        if chosen in (Mode.AUTO, Mode.LIST) and (earlier := next_page(request.question, request.history)):
            # "more": the next page of the list the last answer began, asked again.
            request, chosen, page = replace(request, question=earlier.query or earlier.question), Mode.LIST, earlier.page.number + 1  # type: ignore[union-attr]
        request, notes = with_said_filters(request, self.cache.get("field_values", lambda: field_values(papers.values())))
        if (language := question_language(request.question)) != "en" and self._crossing_tools() is None:
            why = self.seams.multilingual_problem or "PAPERCHAT_MULTILINGUAL=false"
            notes.append(prompts.say("NO_MULTILINGUAL", language, why=why))
        chosen = Mode.ANSWER if about else route(request.question) if chosen is Mode.AUTO else chosen
        for event in self._mode_events(request, chosen, page):
            if event.answer is not None:  # every mode's answer says which filters it applied
                final = replace(event.answer, question=typed, filters=request.filters, notes=(*notes, *event.answer.notes))
                event = replace(event, answer=final)
            yield event

    def _mode_events(self, request: Request, mode: Mode, page: int) -> Iterator[AnswerEvent]:
        from rag import answer, check, compare, listing, prompts, summarize

        context = self.context()
        if mode is Mode.COMPARE:
            compared = compare.papers_to_compare(request, context)
            if len(compared) >= 2:
                return compare.compare_events(request, compared, context)
            return answer.answer_events(request, context, [prompts.COMPARE_NEEDS_TWO])
        if mode is Mode.SUMMARIZE:
            return summarize.summarize_events(request, context)
        if mode is Mode.LIST:
            return listing.list_events(request, context, page)
        if mode is Mode.CHECK:
            return check.check_events(request, context)
        return answer.answer_events(request, context)

    def ask(self, question: str, history: Sequence[Turn] = (), **options: Any) -> Answer:
        """`ask_events`' final answer; `options` as there (where, mode, about)."""
        for event in self.ask_events(question, history, **options):
            if event.answer is not None:
                return event.answer
        raise AssertionError("every mode ends with a final answer")

    def context(self) -> Context:
        """What a mode is given: this corpus, the seams it drafts and checks with, and the limits."""
        seams, limits = self.seams, (self.settings.answer_sources, self.settings.answer_sentences)
        encode = seams.encode_multilingual if self.settings.multilingual else None
        return Context(self, seams.chat, seams.vectors, seams.calibration, *limits, seams.capable, seams.backend, encode)

    def check(self, claim: str, paper_id: str | None = None) -> Check:
        """`claim` checked against the abstract of `paper_id`, or the papers that bear on it (rag/check.py)."""
        from rag.check import check_claim

        self.papers_by_id()  # no index: said before a model loads
        return check_claim(claim, self.context(), paper_id)

    def warm_up(self) -> None:
        """Load what the first question would wait for: the models, the tagger, the stores, the corpus's phrase table and label background
        (~20 s once for 5,358 papers), a one-token draft. A failure is logged for the first question to report (a broken multilingual model: status line)."""
        from rag.language import question_language

        seams = self.seams
        try:
            seams.embeddings.embed_query("warm up")
            question_language("Which papers use this?")
            make_tagger()  # reading a request's theme tags it (rag/theme_request.py): 0.5-2 s to load
            _ = seams.multilingual  # loads and tries the encoder: a broken one is in the status line at once
            if self.corpus_version():
                seams.store()
                self._lexical()
                self.papers_by_id()
                self._across("预热")
                self.label_background()
            if self.settings.llm_backend == "local" and seams.chat is not None:
                seams.chat.invoke("Hi", max_tokens=1)
        except Exception:  # a warm-up never stops the app; the first real use reports the problem
            log.warning("Warming up failed; the first question will say why", exc_info=True)


def _titled(seams: Seams, loaded: LoadResult, corpus_exists: bool, progress: bool) -> LoadResult:
    """`loaded` with a title for each paper no copy of which has one (`_title_for`), and a bar on the
    terminal when asked: a title the model picks takes ~35 ms, minutes for a large untitled upload."""
    from tqdm import tqdm

    untitled = sum(not p.title for p in loaded.papers)
    with tqdm(total=untitled, unit="paper", desc="titling", file=sys.stderr, disable=not progress or not untitled, mininterval=1.0) as bar:

        def title(abstract: str) -> str:
            made = _title_for(seams, corpus_exists, abstract)
            bar.update()
            return made

        return loaded.titled(title)


def _title_for(seams: Seams, corpus_exists: bool, abstract: str) -> str:
    """A title for a paper that has none: the one generated when it was indexed (so a re-ingest of
    unchanged files asks the embedding model nothing, and a title users know stays); when the index
    holds it under a real title, which the copy read merges with (rag/index.py), one without the
    model; else a new one whose subject phrase the embedding model picks (rag/labels.py)."""
    indexed = seams.catalog.indexed_paper(abstract_key(abstract)) if corpus_exists else None
    if indexed is not None:
        return indexed.title if indexed.title_is_generated else make_label(abstract)
    return make_label(abstract, embed=seams.vectors)
