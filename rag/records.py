"""Frozen records that cross module borders.

Every stage takes and returns these, never raw dicts or langchain `Document`s, so a
stage can be read, tested and replaced on its own.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from rag import prompts
from rag.routing import Mode
from rag.text import citations, is_instruction, readable, title_name

_MARKUP = re.compile(r"[*_\[\]]")


@dataclass(frozen=True)
class Paper:
    """One paper, after parsing, validation and de-duplication."""

    paper_id: str
    abstract: str
    title: str
    title_is_generated: bool
    # Every file the abstract was read from (resolved paths), in first-seen order:
    # the same abstract in two seed lists is one paper with two sources.
    sources: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    url: str = ""
    keywords: tuple[str, ...] = ()
    venue: str = ""
    year: int | None = None
    # Further scalar fields a record carried (primary_area, status, ...): kept so that
    # retrieval can filter on them without this class knowing every corpus's schema.
    extra: tuple[tuple[str, str], ...] = ()
    # sha256 prefix of the whitespace-normalised abstract: the de-duplication key.
    abstract_key: str = ""

    @property
    def source(self) -> str:
        return self.sources[0] if self.sources else ""

    @property
    def quotable_title(self) -> str:
        """The title as a prompt or as support may quote it: "" when it reads as an instruction to
        an assistant (a planted record), the filter every abstract sentence passes too. Shown to a
        reader it stays the title ("Ignore Previous Prompt: Attack Techniques ..." is a real one):
        the page makes every title inert (ui/sanitize.py)."""
        return "" if is_instruction(self.title) else self.title

    @property
    def name(self) -> str:
        """What a line about the paper calls it: the coined name its title shows, else its title,
        LaTeX cleaned, without the characters Markdown would read as emphasis or a citation link
        ("Retro*", "[2]"); its id when the title is empty."""
        name = readable(title_name(self.title, self.title_is_generated) or self.title)
        return " ".join(_MARKUP.sub("", name).split()) or self.paper_id

    def metadata(self) -> dict[str, str | int]:
        """Scalar fields a vector store can filter on (no lists, no None)."""
        fields: dict[str, str | int] = {k: v for k, v in self.extra}
        if self.venue:
            fields["venue"] = self.venue
        if self.year is not None:
            fields["year"] = self.year
        return fields


@dataclass(frozen=True)
class Chunk:
    """A piece of one abstract, sized to the embedding model's window."""

    chunk_id: str  # f"{paper_id}#{index}": stable, so re-ingest upserts in place
    paper_id: str
    index: int
    text: str  # the abstract's own sentences
    embed_text: str  # `text` with the paper's title or label in front, what gets embedded


@dataclass(frozen=True)
class ChunkHit:
    """A chunk the store returned for a query; score is higher-is-better."""

    chunk_id: str
    paper_id: str
    text: str
    score: float


@dataclass(frozen=True)
class Hit:
    """One paper in a ranked result list (the best of its chunks decides its score)."""

    paper: Paper
    score: float  # the ranking score (fused in hybrid mode): higher is better, falls down the list
    matched_text: str = ""
    # Cosine similarity of the query and the paper's best chunk (0 when dense search did not
    # retrieve it): an absolute measure, unlike fused ranks, so "nothing relevant" can be
    # told apart from "the best of a poor lot" (see `paperchat eval retrieval`).
    relevance: float = 0.0


@dataclass(frozen=True)
class Source:
    """A paper shown beside an answer as `[n]`, with the sentences of its abstract that answer."""

    n: int
    paper: Paper
    relevance: float  # Hit.relevance: cosine of the best chunk, 1.0 when the question names the paper
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class Evidence:
    """One sentence of a source's abstract, scored for how well it answers the question."""

    n: int
    sentence: str
    score: float


@dataclass(frozen=True)
class Turn:
    """An earlier turn of a conversation, as far as follow-up questions need it."""

    question: str
    source_ids: tuple[str, ...] = ()  # paper ids of its sources, in [n] order
    cited_ids: tuple[str, ...] = ()  # those its answer cites, first cited first
    query: str = ""  # what retrieval searched for (the question, or it folded into the earlier ones)
    mode: str = ""  # the mode that answered it
    page: Page | None = None  # a list's page, so that "more" shows the next one


@dataclass(frozen=True)
class Page:
    """One page of a list answer: `number` from 1, of `size` papers, of `total` in all."""

    number: int
    size: int
    total: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.size))

    def to_json(self) -> dict[str, int]:
        return {"number": self.number, "size": self.size, "total": self.total, "pages": self.pages}


@dataclass(frozen=True)
class AppliedFilter:
    """A condition an answer was restricted by, and the words that said it ("oral", "in the RL area", "--where")."""

    field: str
    values: tuple[str, ...]
    said: str

    def to_json(self) -> dict[str, object]:
        return {"field": self.field, "values": list(self.values), "said": self.said}


NOT_STATED = prompts.TABLE_NOT_STATED


@dataclass(frozen=True)
class Comparison:
    """Papers side by side: each cell an excerpt of that paper's abstract, or NOT_STATED."""

    aspects: tuple[str, ...]
    # One row per paper: its source number, title, and one cell per aspect (an excerpt or NOT_STATED).
    rows: tuple[tuple[int, str, tuple[str, ...]], ...]
    # What the reader sees, in the answer's language: the header (the paper column, then one per
    # aspect; empty: the English keys) and a NOT_STATED cell. The JSON keeps the English keys.
    header: tuple[str, ...] = ()
    not_stated: str = NOT_STATED

    def shown_header(self) -> tuple[str, ...]:
        return self.header or (prompts.TABLE_PAPER, *self.aspects)

    def _shown(self, cell: str) -> str:
        return self.not_stated if cell == NOT_STATED else cell

    def to_markdown(self) -> str:
        def cell(text: str) -> str:
            return text.replace("|", "\\|").replace("\n", " ")

        header = self.shown_header()
        lines = ["| " + " | ".join(map(cell, header)) + " |", "|---" * len(header) + "|"]
        for n, title, cells in self.rows:
            lines.append(f"| [{n}] {cell(title)} | " + " | ".join(cell(self.not_stated if c == NOT_STATED else f"{c} [{n}]") for c in cells) + " |")
        return "\n".join(lines)

    def to_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(["n", *self.shown_header()])
        for n, title, cells in self.rows:
            writer.writerow([n, *(_inert(c) for c in (title, *map(self._shown, cells)))])
        return buffer.getvalue()

    def to_json(self) -> dict[str, object]:
        return {"aspects": list(self.aspects), "rows": [{"n": n, "title": t, "cells": dict(zip(self.aspects, c, strict=True))} for n, t, c in self.rows]}


def _inert(cell: str) -> str:
    """A cell a spreadsheet will not run: text from an abstract starting with = + - @ would be a formula."""
    return "'" + cell if cell[:1] in ("=", "+", "-", "@") else cell


@dataclass(frozen=True)
class Answer:
    """What the user reads: every sentence of `text` cites a source it was checked against (a
    heading, a line ending in a colon like a summary's count or a Chinese answer's lead, states nothing)."""

    question: str
    text: str
    mode: Mode = Mode.ANSWER
    abstained: bool = False
    sources: tuple[Source, ...] = ()
    # When abstaining: the nearest papers, shown as "possibly related", claiming nothing.
    related: tuple[Hit, ...] = ()
    # Draft sentences the verifier removed, each with the reason ("cites [7], there are 4 sources").
    dropped: tuple[tuple[str, str], ...] = ()
    backend: str = "none"
    language: str = "en"
    extractive: bool = False  # composed from evidence sentences, not from the LLM's draft
    notes: tuple[str, ...] = ()
    query: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)
    comparison: Comparison | None = None  # mode "compare": the table the text discusses
    filters: tuple[AppliedFilter, ...] = ()  # what the answer was restricted to
    page: Page | None = None  # mode "list": which page of how many papers `sources` are
    check: Check | None = None  # mode "check": the verdict the text reports

    def cited(self) -> list[int]:
        return sorted(set(citations(self.text)))

    def to_json(self) -> dict[str, object]:
        """The `paperchat ask --json` contract, also the app's `/ask` endpoint: a valid history turn's "result" as is."""
        table = self.comparison
        return {
            "question": self.question,
            "answer": self.text,
            "mode": str(self.mode),
            "abstained": self.abstained,
            "language": self.language,
            "sources": [
                {
                    "n": s.n,
                    "paper_id": s.paper.paper_id,
                    "title": s.paper.title,
                    "title_is_generated": s.paper.title_is_generated,
                    "url": s.paper.url,
                    "relevance": round(s.relevance, 4),
                    "abstract": s.paper.abstract,
                    "evidence": list(s.evidence),
                }
                for s in self.sources
            ],
            "related": [{"paper_id": h.paper.paper_id, "title": h.paper.title, "relevance": round(h.relevance, 4)} for h in self.related],
            "dropped": [{"sentence": sentence, "reason": reason} for sentence, reason in self.dropped],
            "extractive": self.extractive,
            "notes": list(self.notes),
            "backend": self.backend,
            "query": self.query,
            "timings_ms": self.timings_ms,
            # mode "compare": the table (each cell an excerpt of that paper's abstract), and its exports.
            "comparison": table.to_json() if table else None,
            "table_markdown": table.to_markdown() if table else "",
            "table_csv": table.to_csv() if table else "",
            "filters": [f.to_json() for f in self.filters],
            # mode "list": `sources` are this page's papers; `total` is the whole count.
            "page": self.page.to_json() if self.page else None,
            # mode "check": `paperchat check --json`'s document for the claim asked about.
            "check": self.check.to_json() if self.check else None,
        }


@dataclass(frozen=True)
class CheckedPaper:
    """One paper a claim was checked against: the sentences of its abstract nearest the claim."""

    paper_id: str
    title: str
    evidence: tuple[str, ...]
    support: float
    supported: bool
    reasons: tuple[str, ...] = ()  # why it does not support the claim, for a reader


@dataclass(frozen=True)
class Check:
    """A claim checked against the abstracts (`paperchat check`, the app's /check, "is it true
    that ..." in the chat): supported when a paper's abstract supports it, unsupported when the
    papers that bear on it do not, no_evidence when no paper bears on it."""

    claim: str
    verdict: Literal["supported", "unsupported", "no_evidence"]
    papers: tuple[CheckedPaper, ...] = ()
    reasons: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """The `paperchat check --json` contract."""
        return {
            "claim": self.claim,
            "verdict": self.verdict,
            "papers": [
                {"paper_id": p.paper_id, "title": p.title, "evidence": list(p.evidence), "support": round(p.support, 4), "supported": p.supported}
                for p in self.papers
            ],
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True)
class Group:
    """Papers grouped by content (a summary's sub-theme, a corpus topic)."""

    label: str  # its distinctive words, e.g. "gaussian, splatting, avatars"
    paper_ids: tuple[str, ...]  # closest to the group's centre first
    size: int


@dataclass(frozen=True)
class AnswerEvent:
    """What an answer streams: its sources as soon as they are known, each verified sentence,
    then the final answer."""

    kind: Literal["sources", "sentence", "final"]
    sources: tuple[Source, ...] = ()
    text: str = ""  # "sentence": one verified sentence with its citation
    answer: Answer | None = None  # "final"
    groups: tuple[Group, ...] = ()  # "final" of a summary: its sub-themes, for grouped display


@dataclass(frozen=True)
class MapPoint:
    """A paper on the topic map."""

    paper_id: str
    title: str
    topic: str  # the label of its corpus topic
    x: float
    y: float


@dataclass(frozen=True)
class IngestError:
    """A problem with one input, reported and skipped; never fatal to the rest."""

    path: str
    message: str
    line: int | None = None

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "message": self.message}


@dataclass(frozen=True)
class LoadResult:
    papers: tuple[Paper, ...]
    errors: tuple[IngestError, ...]
    # Files read without any error: a re-ingest treats each as the whole truth about the
    # papers it holds (a paper no longer in it loses it as a source).
    files: tuple[str, ...] = ()

    def titled(self, label: Callable[[str], str]) -> LoadResult:
        """These papers, each that has no title given one by `label` from its abstract."""
        return replace(self, papers=tuple(replace(p, title=label(p.abstract)) if not p.title else p for p in self.papers))


@dataclass(frozen=True)
class IngestReport:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    papers: int = 0
    chunks: int = 0
    embedded: int = 0  # texts sent to the embedding model in this run
    errors: tuple[IngestError, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, object]:
        return {
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "papers": self.papers,
            "chunks": self.chunks,
            "embedded": self.embedded,
            "errors": [e.to_json() for e in self.errors],
        }
