"""Pure functions from `rag` records to what the app shows. No Gradio here, so they test fast.

Everything a record carries is user data (abstracts, titles, uploaded files), and so is what a
model writes: each such string goes through ui/sanitize.py (`inert`, `link`) before it becomes
Markdown or HTML, and the HTML panels through its `page`; only the markup made here is live.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rag.prompts import say
from rag.records import Answer, Group, Hit, IngestReport, MapPoint, Paper, Source
from rag.routing import Mode
from rag.text import CITATION, cited_numbers, readable, title_name
from ui.sanitize import host, inert, link, page

ABSTRACT_PREVIEW_CHARS = 600
# A turn's words are in its answer's language (`language`: "en", "zh", "other"; rag/prompts.py `say`).
_MODE_NAMES = {Mode.ANSWER: "MODE_ANSWER", Mode.SUMMARIZE: "MODE_SUMMARY", Mode.COMPARE: "MODE_COMPARISON", Mode.LIST: "MODE_LIST", Mode.CHECK: "MODE_CHECK"}


def render_hits(query: str, hits: Sequence[Hit]) -> str:
    """Markdown list of search results, best first."""
    if not hits:
        return f"No papers found for *{inert(query)}*."
    lines = [f"**{len(hits)} papers** for *{inert(query)}*", ""]
    for rank, hit in enumerate(hits, start=1):
        paper = hit.paper
        title = link(paper.title, paper.url)
        generated = " <small>(generated title)</small>" if paper.title_is_generated else ""
        abstract = paper.abstract
        if len(abstract) > ABSTRACT_PREVIEW_CHARS:
            abstract = abstract[:ABSTRACT_PREVIEW_CHARS].rsplit(" ", 1)[0] + " …"
        abstract = inert(abstract)
        lines += [f"{rank}. **{title}**{generated} · relevance {hit.relevance:.2f}", f"   > {abstract}", ""]
    return "\n".join(lines)


def render_status(status: Mapping[str, object], llm_problem: str | None = None) -> str:
    """One line about the app (backend, models, corpus, data directory), then the LLM's state."""
    line = " · ".join(f"**{key.replace('_', ' ')}**: {inert(str(value))}" for key, value in status.items())
    if llm_problem:
        return (
            f"{line}\n\n⚠️ The language model is not available: {inert(llm_problem)} "
            "Answers are composed from the abstracts' own sentences meanwhile; search works."
        )
    return line


def cite_links(answer_text: str, turn: int = 1) -> str:
    """Sanitise an answer's text and make each `[n]` a link to card n of that turn's sources."""

    def cite(match: re.Match[str]) -> str:
        return "[" + ", ".join(f'<a class="cite" href="#source-{turn}-{n}">{n}</a>' for n in cited_numbers(match.group(1))) + "]"

    return CITATION.sub(cite, inert(readable(answer_text)))


def render_draft(sentences: Sequence[str], sources: Sequence[Source], turn: int = 1, language: str = "en") -> str:
    """The answer while it streams: the verified sentences so far, or what is happening."""
    if sentences:
        return cite_links(" ".join(sentences), turn) + " ▌"
    if sources:
        return "*" + say("FOUND_ONE" if len(sources) == 1 else "FOUND", language, count=len(sources)) + "*"
    return "*" + say("SEARCHING", language) + "*"


def render_filters(answer: Answer) -> str:
    """A chip per filter the answer was restricted to ("status: Oral, Oral (conditional)"); the
    field and its values are the corpus's own words, the tooltip the answer's language."""
    chips = [
        f'<span class="filter-chip" title="{inert(say("FILTER_SAID", answer.language, said=f.said))}">'
        f"{inert(f.field.replace('_', ' '))}: {inert(', '.join(f.values))}</span>"
        for f in answer.filters
    ]
    return " ".join(chips)


def render_answer(answer: Answer, turn: int = 1) -> str:
    """The finished answer as chat Markdown: the filters applied, cited text, the comparison
    table, notes, what the checker removed."""
    language = answer.language
    parts = [render_filters(answer), cite_links(answer.text, turn)]
    if answer.comparison is not None:
        # Row by row: the delimiter row "|---|---|" is markup, and `readable` would make its "---" a dash.
        rows = answer.comparison.to_markdown().split("\n")
        parts.append("\n".join(row if index == 1 else cite_links(row, turn) for index, row in enumerate(rows)))
    if answer.abstained and answer.related:
        related = "\n".join(say("RELATED_LINE", language, title=link(h.paper.title, h.paper.url), relevance=h.relevance) for h in answer.related)
        parts.append(say("RELATED_HEAD", language) + "\n" + related)
    parts += [f"> ℹ️ {inert(note)}" for note in answer.notes]
    if answer.dropped:
        removed = "\n".join(say("DROPPED_LINE", language, sentence=inert(sentence), reason=inert(reason)) for sentence, reason in answer.dropped)
        parts.append(f"<details><summary>{say('DROPPED_HEAD', language, count=len(answer.dropped))}</summary>\n\n{removed}\n</details>")
    seconds = answer.timings_ms.get("total", 0.0) / 1000
    how = say("BY_EXTRACTION", language) if answer.extractive or answer.backend == "none" else inert(answer.backend)
    mode = say(_MODE_NAMES[answer.mode], language) if answer.mode in _MODE_NAMES else answer.mode
    parts.append(f"<sub>{say('FOOTER', language, mode=mode, how=how, seconds=seconds)}</sub>")
    return "\n\n".join(p for p in parts if p)


def highlight(abstract: str, evidence: Iterable[str]) -> str:
    """The abstract, made inert, with each evidence sentence found in it wrapped in <mark class="evidence">.
    Evidence had the abstract's own reference markers taken out, so a sentence is found by its
    words; one that cannot be found is shown above the abstract instead of being lost."""
    abstract = readable(abstract)
    spans: list[tuple[int, int]] = []
    missing: list[str] = []
    for sentence in map(readable, evidence):
        # Words in order, anything between them (spaces, punctuation, "[12]"): found whatever was stripped.
        words = [re.escape(w) for w in re.findall(r"\w+", sentence)]
        match = re.search(r"(?:\W|\[[^\]]*\])+".join(words) + r"\W?", abstract) if words else None
        if match:
            spans.append(match.span())
        else:
            missing.append(sentence)
    out: list[str] = [f'<p class="evidence-quote"><mark class="evidence">{inert(s)}</mark></p>' for s in missing]
    position = 0
    for start, end in sorted(spans):
        if start < position:  # overlapping evidence: one mark is enough
            continue
        out.append(inert(abstract[position:start]))
        out.append(f'<mark class="evidence">{inert(abstract[start:end])}</mark>')
        position = end
    out.append(inert(abstract[position:]))
    return "".join(out)


def render_sources(sources: Sequence[Source], related: Sequence[Hit] = (), turn: int = 1, language: str = "en") -> str:
    """Numbered cards matching the answer's [n] (id "source-{turn}-{n}"): title (a generated label
    says so), link, relevance, the abstract with its evidence highlighted."""
    if not sources and not related:
        return '<div class="no-sources">Sources appear here, numbered as the answer cites them.</div>'
    cards = []
    for source in sources:
        paper = source.paper
        generated = (
            f' <span class="generated" title="{inert(say("GENERATED_TITLE_WHY", language))}">{say("GENERATED_TITLE", language)}</span>'
            if paper.title_is_generated
            else ""
        )
        cards.append(
            f'<div class="source-card" id="source-{turn}-{source.n}" data-paper-id="{inert(paper.paper_id)}">'
            f'<div class="source-head"><span class="source-n">[{source.n}]</span> <b>{link(paper.title, paper.url)}</b>{generated}</div>'
            f'<div class="source-meta">{say("RELEVANCE", language, relevance=source.relevance)} · {inert(paper.paper_id)}</div>'
            f'<div class="source-abstract">{highlight(paper.abstract, source.evidence)}</div></div>'
        )
    for hit in related:
        cards.append(
            f'<div class="source-card related" data-paper-id="{inert(hit.paper.paper_id)}">'
            f'<div class="source-head">{say("RELATED_CARD", language)} <b>{link(hit.paper.title, hit.paper.url)}</b></div>'
            f'<div class="source-meta">{say("RELEVANCE", language, relevance=hit.relevance)}</div>'
            f'<div class="source-abstract">{inert(hit.paper.abstract)}</div></div>'
        )
    return page('<div class="sources">' + "".join(cards) + "</div>")


def export_markdown(turns: Sequence[Mapping[str, Any]]) -> str:
    """The conversation as Markdown with each answer's references: turns are {"q", "result"} with
    `result` the `paperchat ask --json` document (what the app keeps per session). The file is
    rendered wherever a reader opens it, so every string from outside is made inert as on the page,
    and an address is written as a link only when it is http(s)."""
    lines = ["# paperchat conversation", ""]
    for number, turn in enumerate(turns, start=1):
        result = turn.get("result") or {}
        language = str(result.get("language", "en"))
        lines += [f"## {number}. {inert(turn.get('q', ''))}", "", inert(result.get("answer", ""))]
        filters = [inert(f"{f['field'].replace('_', ' ')}: {', '.join(f['values'])}") for f in result.get("filters") or []]
        lines += ["> " + say("EXPORT_FILTERS", language, filters="; ".join(filters))] if filters else []
        if result.get("table_markdown"):
            lines += ["", inert(result["table_markdown"])]
        lines += [f"> {inert(note)}" for note in result.get("notes", [])]
        sources = result.get("sources") or []
        if sources:
            lines += ["", say("EXPORT_REFERENCES", language), ""]
            for s in sources:
                label = say("TITLE_GENERATED", language, title=inert(s["title"])) if s.get("title_is_generated") else inert(s["title"])
                where = f" <{s['url'].strip()}>" if host(str(s.get("url") or "")) else ""
                lines.append(f"[{s['n']}] {label}.{where} id: {inert(s['paper_id'])}")
        lines.append("")
    return "\n".join(lines)


def papers_rows(papers: Iterable[Paper], text: str = "", area: str = "") -> list[list[str]]:
    """Rows of the explorer's table (title, area, status, id), filtered by words in the title or
    abstract (all must occur) and by primary area."""
    words = text.lower().split()
    rows = []
    for paper in papers:
        extra = dict(paper.extra)
        if area and extra.get("primary_area", "") != area:
            continue
        haystack = f"{paper.title} {paper.abstract}".lower()
        if all(w in haystack for w in words):
            title = f"{paper.title} (generated title)" if paper.title_is_generated else paper.title
            where = extra.get("primary_area") or " ".join(str(v) for v in (paper.venue, paper.year) if v)
            rows.append([title, where, extra.get("status", ""), paper.paper_id])
    return sorted(rows, key=lambda row: row[0].lower())


TABLE_HEADERS = ["title", "area", "status", "paper id"]


def table_columns(every: Sequence[Sequence[str]]) -> list[int]:
    """The explorer's columns (indexes into TABLE_HEADERS) for a corpus whose rows are `every`:
    area and status only when the corpus has them (the seed lists have neither, and empty
    columns squeeze the titles). Decided on the whole corpus, so a filter never moves them."""
    return [i for i, name in enumerate(TABLE_HEADERS) if name in ("title", "paper id") or any(row[i] for row in every)]


def areas(papers: Iterable[Paper]) -> list[str]:
    return sorted({dict(p.extra).get("primary_area", "") for p in papers} - {""})


# 12 colours told apart at a glance (Tableau 10 and two more): a corpus overview has up to 12 topics.
TOPIC_COLOURS = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#17becf", "#8c564b",
)  # fmt: skip


def topic_colours(points: Sequence[MapPoint]) -> dict[str, str]:
    """A distinct colour per topic, largest topic first (beyond 12 they repeat)."""
    sizes: dict[str, int] = {}
    for point in points:
        sizes[point.topic] = sizes.get(point.topic, 0) + 1
    ordered = sorted(sizes, key=lambda t: (-sizes[t], t))
    return {topic: TOPIC_COLOURS[i % len(TOPIC_COLOURS)] for i, topic in enumerate(ordered)}


def sample_points(points: Sequence[MapPoint], limit: int) -> list[MapPoint]:
    """At most `limit` points, every k-th in each topic, so every topic keeps its share and the
    same corpus always draws the same map."""
    if len(points) <= limit:
        return list(points)
    by_topic: dict[str, list[MapPoint]] = {}
    for point in points:
        by_topic.setdefault(point.topic, []).append(point)
    kept: list[MapPoint] = []
    for members in by_topic.values():
        share = max(1, round(len(members) * limit / len(points)))
        step = len(members) / share
        kept += [members[int(i * step)] for i in range(share)]
    return kept[:limit]


def map_rows(points: Sequence[MapPoint]) -> dict[str, list[Any]]:
    """Columns of the topic map's data frame."""
    return {
        "x": [p.x for p in points],
        "y": [p.y for p in points],
        "topic": [p.topic for p in points],
        "title": [p.title for p in points],
        "paper_id": [p.paper_id for p in points],
    }


def _short_name(paper: Paper) -> str:
    """What a user would call the paper: the name its title gives it ("ReST-KV: robust KV eviction
    method" → "ReST-KV"), else a short real title; "" when it has neither."""
    if name := title_name(paper.title, paper.title_is_generated):
        return name
    return paper.title if len(paper.title.split()) <= 6 and not paper.title_is_generated else ""


def example_questions(papers: Sequence[Paper], topics: Sequence[Group] = (), count: int = 4) -> list[str]:
    """Questions this corpus can answer, made from it: about a paper by its name, a summary of a
    topic (a phrase of its label), a comparison of two named papers of one topic."""
    named = {p.paper_id: name for p in papers if (name := _short_name(p))}
    examples: list[str] = []
    if named:
        examples.append(f"What does {next(iter(named.values()))} propose?")
    if topics:
        # A topic's label term as a person would name a theme: a phrase ("reinforcement learning")
        # where a label has one, else the biggest topic's first word; never two label words run together.
        terms = [t.strip() for g in topics for t in g.label.split(",")]
        examples.append("Summarise the papers about " + next((t for t in terms if " " in t), terms[0]))
    pairs = [[named[i] for i in g.paper_ids if i in named][:2] for g in topics]
    pair = next((p for p in pairs if len(p) == 2), list(named.values())[1:3])
    if len(pair) == 2:
        examples.append(f"Compare {pair[0]} and {pair[1]}")
    examples.append("What topics does this corpus cover?")
    return examples[:count]


def render_report(report: IngestReport, names: Mapping[str, str] | None = None) -> str:
    """What an upload did, and every line that was skipped with the reason. `names` maps stored
    paths back to the names the user uploaded."""
    names = names or {}
    counts = f"**{report.added} added**, {report.updated} updated, {report.unchanged} unchanged; the corpus now has {report.papers:,} papers."
    if not report.errors:
        return "✅ " + counts
    rows = ["| file | line | problem |", "|---|---|---|"]
    for error in report.errors[:200]:
        name = names.get(error.path, error.path.rsplit("/", 1)[-1])
        rows.append(f"| {inert(name)} | {error.line or ''} | {inert(error.message).replace('|', '&#124;')} |")
    more = f"\n\n… and {len(report.errors) - 200} more." if len(report.errors) > 200 else ""
    head = "⚠️ " if report.added or report.updated or report.unchanged else "❌ Nothing was added. "
    return head + counts + f" {len(report.errors)} problem(s); the existing index is unchanged by them:\n\n" + "\n".join(rows) + more
