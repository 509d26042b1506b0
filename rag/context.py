"""What every mode is given: the request, the corpus it may search, and the seams and limits it
works with. Built by the facade (rag/api.py) for each request; the modes (rag/answer.py,
rag/summarize.py, rag/compare.py) read it and never build a seam themselves.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from rag.calibration import Calibration
from rag.records import AppliedFilter, Group, Paper, Turn

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from rag.evidence import SentenceVectors
    from rag.retrieval import SearchResult
    from rag.topics import LabelBackground


class Corpus(Protocol):
    """The indexed corpus as a mode reads it (rag.api.Paperchat is one)."""

    def papers_by_id(self) -> dict[str, Paper]: ...

    def search(
        self,
        query: str,
        k: int | None = None,
        *,
        where: Mapping[str, object] | None = None,
        paper_ids: Collection[str] | None = None,
    ) -> SearchResult: ...

    def papers_named(self, text: str) -> list[str]:
        """Papers a text names by their own coined name ("SureLock"), in the order it names them."""
        ...

    def paper_vectors(self, paper_ids: Sequence[str]) -> Mapping[str, Sequence[float]]: ...

    def english_theme(self, theme: str) -> str:
        """The corpus's English phrase for a theme asked in another language; an English theme as it is."""
        ...

    def document_frequency(self) -> Counter[str]:
        """How many papers use each key term."""
        ...

    def topics(self) -> list[Group]: ...

    def label_background(self) -> LabelBackground:
        """rag/topics.label_background of the whole corpus: what a group's label stands out from."""
        ...


@dataclass(frozen=True)
class Request:
    question: str
    history: Sequence[Turn] = ()
    # Conditions on the papers (`--where`, and filters said in words): rag.retrieval.filter_papers' form.
    where: Mapping[str, object] | None = None
    # Papers the question is about (the explorer's "ask about this paper"): answered from them alone.
    about: tuple[str, ...] = ()
    started: float = field(default_factory=time.perf_counter)
    filters: tuple[AppliedFilter, ...] = ()  # the conditions of `where`, as the answer reports them
    asked: str = ""  # the question without the words that said its filters ("Which oral papers use LoRA?" → "Which papers use LoRA?")

    def elapsed_ms(self) -> float:
        return ms_since(self.started)


@dataclass(frozen=True)
class Context:
    corpus: Corpus
    chat: BaseChatModel | None  # None: evidence-only answers
    vectors: SentenceVectors
    calibration: Calibration
    max_sources: int = 4
    max_sentences: int = 3
    # The backend can rewrite questions and write Chinese (a model the user chose, not the 135M default).
    capable: bool = False
    backend: str = "none"  # what drafts, for the answer's record; never a key
    # The multilingual encoder (texts → normalised rows): how a Chinese claim is checked; None when the channel is off.
    multilingual: Callable[[list[str]], Any] | None = None

    def calibration_for(self, found: SearchResult) -> Calibration:
        """The thresholds for whether the papers `found` are about its question: one searched in the
        multilingual channel (a question in another language) has its cosines, which run lower."""
        from rag.calibration import MULTILINGUAL

        return MULTILINGUAL if found.crossed else self.calibration


def ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
