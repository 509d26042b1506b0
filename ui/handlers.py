"""What the app's events do: the chat, the named API endpoints, the explorer and uploads, each a
method over one `Paperchat`. What they show is made by the pure functions of ui/render.py;
ui/app.py lays out the page and wires these to it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# At module level: Gradio reads the handlers' type hints (gr.Request, gr.SelectData, gr.Progress)
# through this module's globals. Only `paperchat serve` imports this module.
import gradio as gr

from rag.api import Paperchat
from rag.conversation import MAX_TURNS, turns_from_history
from rag.corpus import SUPPORTED_SUFFIXES
from rag.errors import PaperchatError, uploads_dir
from rag.language import question_language
from rag.prompts import say
from rag.routing import Mode
from ui import render
from ui.sanitize import inert

log = logging.getLogger(__name__)

SIMILAR_PAPERS = 6
# /search's k: enough for any reader, not a way to download the corpus.
MAX_API_RESULTS = 100
# Points the topic map draws: each is an SVG mark in the browser; beyond this, an even sample.
MAP_POINTS = 6000
ABOUT_QUESTION = "What problem does this paper address, what does it propose, and what does it report?"


def _panel(blocks: list[str], languages: list[str]) -> str:
    """The sources of every turn, newest first and open; earlier turns folded. `languages`: each
    turn's, in the order of `blocks` (a turn without one is labelled in English)."""
    if not blocks:
        return render.render_sources(())
    shown = []
    for index, block in enumerate(reversed(blocks)):
        turn = len(blocks) - index
        label = say("SOURCES_OF_QUESTION", languages[turn - 1] if turn <= len(languages) else "en", turn=turn)
        shown.append(f'<details class="turn-sources"{" open" if index == 0 else ""}><summary>{label}</summary>{block}</details>')
    return "".join(shown)


def _languages(turns: list[dict[str, Any]]) -> list[str]:
    """The language of each earlier turn's answer (its `paperchat ask --json` document says it)."""
    return [str((turn.get("result") or {}).get("language", "en")) for turn in turns]


# How long a browser session's downloads are kept after their last write: a day covers a reader
# coming back to a tab; a server that runs for months does not pile up one folder per visitor.
# Gradio keeps its own copy of each file it serves: ui/app.py gives its cache the same lifetime.
DOWNLOAD_LIFETIME_S = 24 * 3600
SWEEP_EVERY_S = 3600


def _write_download(folder: Path, name: str, text: str) -> str:
    path = folder / name
    folder.mkdir(parents=True, exist_ok=True)
    try:
        path.write_text(text, encoding="utf-8")
    except FileNotFoundError:  # another session's sweep removed the folder between the two lines
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    os.utime(folder)  # overwriting a file leaves its folder's time alone; the sweep reads that time
    return str(path)


def sweep_downloads(root: Path, lifetime_s: float = DOWNLOAD_LIFETIME_S, now: float | None = None) -> int:
    """Remove the session folders under `root` not written for `lifetime_s`; how many went."""
    now = time.time() if now is None else now
    gone = 0
    for folder in root.iterdir() if root.exists() else ():
        try:
            if folder.is_dir() and now - folder.stat().st_mtime > lifetime_s:
                shutil.rmtree(folder)
                gone += 1
        except OSError as exc:  # another request removed or is writing it: the next sweep sees it
            log.warning("Could not remove the old download folder %s: %s", folder, exc)
    return gone


class Handlers:
    def __init__(self, api: Paperchat) -> None:
        self.api = api
        self.settings = api.settings
        # Downloads (exports, tables) are files Gradio serves from its own temporary folder.
        self.downloads = Path(tempfile.mkdtemp(prefix="paperchat-downloads-"))
        self._swept_at = 0.0  # the folders are swept at most hourly, not on every answer

    # -- page -------------------------------------------------------------------------------

    def status_text(self) -> str:
        from rag.llm import ping

        seams = self.api.seams
        chat = seams.chat  # built first: building it is what sets llm_problem
        problem = seams.llm_problem or (ping(self.settings) if self.settings.llm_backend != "none" and chat is not None else None)
        try:
            status = seams.status()
        except Exception as exc:  # the status line must say what is wrong, not vanish
            log.exception("status failed")
            return f"⚠️ {inert(str(exc))}"
        return render.render_status(status, problem)

    def examples(self) -> list[str]:
        try:
            papers = self.api.papers()
            # Topics for examples only when cheap: a large corpus shows plain examples at once.
            topics = self.api.topics() if len(papers) <= 2000 else []
        except Exception as exc:  # no index yet, or the store is unreadable: the status line says which
            log.warning("No examples from the corpus: %s", exc)
            return render.example_questions([])
        return render.example_questions(papers, topics)

    def page(self) -> tuple[str, Any]:
        return self.status_text(), gr.Dataset(samples=[[q] for q in self.examples()])

    # -- chat -------------------------------------------------------------------------------

    def checked(self, question: str, empty: str = "Type a question first, e.g. one of the examples below the box.") -> str:
        """The question, stripped; an empty or overlong one is refused with what to do."""
        question = (question or "").strip()
        if not question:
            raise gr.Error(empty)
        if len(question) > self.settings.max_question_chars:
            raise gr.Error(
                f"The question is {len(question):,} characters; the limit is {self.settings.max_question_chars:,} "
                "(PAPERCHAT_MAX_QUESTION_CHARS). Ask about one thing at a time, or search the explorer."
            )
        return question

    def ask(
        self,
        question: str,
        mode: str,
        messages: list[dict[str, Any]],
        turns: list[dict[str, Any]],
        cards: list[str],
        about: list[str] | None = None,
        session: str = "",
    ) -> Iterator[tuple[Any, ...]]:
        """Yields the chat outputs: chatbot, question box, sources panel, turns, cards, export,
        table (Markdown), table (CSV)."""
        question = self.checked(question)
        if len(turns) >= MAX_TURNS:
            raise gr.Error(
                f"This conversation has {len(turns)} turns, the most one keeps. Download it with "
                "'Export conversation (Markdown)', then press Clear to start a new one."
            )
        number = len(turns) + 1
        # The words around this turn while it streams; its answer says its language when it is done.
        language = question_language(question)
        draft = render.render_draft([], [], language=language)
        messages = [*messages, {"role": "user", "content": question}, {"role": "assistant", "content": draft}]
        yield messages, "", _panel(cards, _languages(turns)), turns, cards, gr.update(), gr.update(), gr.update()
        sentences: list[str] = []
        sources: tuple[Any, ...] = ()
        try:
            for event in self.api.ask_events(question, turns_from_history(turns), mode=mode or Mode.AUTO, about=about or ()):
                if event.kind == "sources":
                    sources = event.sources
                    panel = _panel([*cards, render.render_sources(sources, turn=number, language=language)], [*_languages(turns), language])
                    messages[-1] = {"role": "assistant", "content": render.render_draft(sentences, sources, turn=number, language=language)}
                    yield messages, "", panel, turns, cards, gr.update(), gr.update(), gr.update()
                elif event.kind == "sentence":
                    sentences.append(event.text)
                    messages[-1] = {"role": "assistant", "content": render.render_draft(sentences, sources, turn=number, language=language)}
                    yield messages, "", gr.update(), turns, cards, gr.update(), gr.update(), gr.update()
                elif event.answer is not None:
                    answer = event.answer
                    messages[-1] = {"role": "assistant", "content": render.render_answer(answer, turn=number)}
                    cards = [*cards, render.render_sources(answer.sources, answer.related, turn=number, language=answer.language)]
                    turns = [*turns, {"q": question, "result": answer.to_json()}]
                    table = answer.comparison
                    # One folder per browser session, overwritten each turn: nothing piles up.
                    if time.time() - self._swept_at > SWEEP_EVERY_S:
                        self._swept_at = time.time()
                        sweep_downloads(self.downloads)
                    folder = self.downloads / (hashlib.sha256(session.encode()).hexdigest()[:16] if session else "anonymous")
                    exported = _write_download(folder, "paperchat-conversation.md", render.export_markdown(turns))
                    hidden = gr.update(value=None, visible=False)
                    markdown = gr.update(value=_write_download(folder, "comparison.md", table.to_markdown()), visible=True) if table else hidden
                    csv = gr.update(value=_write_download(folder, "comparison.csv", table.to_csv()), visible=True) if table else hidden
                    yield messages, "", _panel(cards, _languages(turns)), turns, cards, gr.update(value=exported, visible=True), markdown, csv
        except PaperchatError as exc:
            messages[-1] = {"role": "assistant", "content": f"⚠️ {inert(str(exc))}"}
            yield messages, question, _panel(cards, _languages(turns)), turns, cards, gr.update(), gr.update(), gr.update()
        except Exception as exc:  # a bug or a broken index: say so, keep the question for another try
            log.exception("answering %r failed", question)
            text = f"⚠️ Something went wrong ({type(exc).__name__}); the question is back in the box to try again. The server log has the details."
            messages[-1] = {"role": "assistant", "content": text}
            yield messages, question, _panel(cards, _languages(turns)), turns, cards, gr.update(), gr.update(), gr.update()

    def chat_stream(
        self, question: str, mode: str, messages: list[dict[str, Any]], turns: list[dict[str, Any]], cards: list[str], request: gr.Request
    ) -> Iterator[tuple[Any, ...]]:
        yield from self.ask(question, mode, messages, turns, cards, session=request.session_hash or "")

    def clear(self) -> tuple[Any, ...]:
        hidden = gr.update(value=None, visible=False)
        return [], "", render.render_sources(()), [], [], hidden, hidden, hidden

    # -- API endpoints (gradio_client) -----------------------------------------------------

    def ask_api(self, question: str, mode: str = "auto", history: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """Answer a question from the abstracts; the result is `paperchat ask --json`'s document.
        `mode`: auto, answer, summarize or compare. `history`: earlier turns, oldest first, each
        {"q": question, "result": the document this endpoint returned for it}."""
        question = self.checked(question, "Empty question: pass the question as the first argument.")
        try:
            return self.api.ask(question, turns_from_history(history or []), mode=mode).to_json()
        except PaperchatError as exc:
            raise gr.Error(str(exc)) from exc

    def check_api(self, claim: str, paper_id: str | None = None) -> dict[str, Any]:
        """Check a statement against the abstracts; the result is `paperchat check --json`'s document:
        {"claim", "verdict": supported | unsupported | no_evidence, "papers": [...], "reasons": [...]}.
        `paper_id`: check against that paper's abstract only."""
        claim = self.checked(claim, "Empty claim: pass the statement to check as the first argument.")
        try:
            return self.api.check(claim, paper_id or None).to_json()
        except PaperchatError as exc:
            raise gr.Error(str(exc)) from exc

    def search_api(self, query: str, k: int = 10) -> dict[str, Any]:
        """Papers for a query, best first: {"query", "results": [{"paper_id", "title", "score", "relevance", "abstract", "url"}]}."""
        if not 1 <= k <= MAX_API_RESULTS:
            raise gr.Error(f"k={k}: ask for 1 to {MAX_API_RESULTS} papers.")
        try:
            result = self.api.search(query, k)
        except PaperchatError as exc:
            raise gr.Error(str(exc)) from exc
        rows = [
            {
                "paper_id": h.paper.paper_id,
                "title": h.paper.title,
                "score": round(h.score, 4),
                "relevance": round(h.relevance, 4),
                "abstract": h.paper.abstract,
                "url": h.paper.url,
            }
            for h in result.hits
        ]
        return {"query": result.query, "results": rows}

    # -- explorer --------------------------------------------------------------------------

    def _table(self, rows: list[list[str]]) -> Any:
        """The explorer's table of `rows`, in the columns the whole corpus has (once per corpus version)."""
        import pandas as pd

        shown = self.api.cache.get("explorer_columns", lambda: render.table_columns(render.papers_rows(self.api.papers())))
        return pd.DataFrame([[row[i] for i in shown] for row in rows], columns=[render.TABLE_HEADERS[i] for i in shown])

    def load_table(self, text: str, area: str, shown: int) -> tuple[Any, ...]:
        """The table when the tab opens: sent again only if the corpus changed since this
        session last saw it (5,358 rows are ~0.8 MB), with the filter in the box applied."""
        version = self.api.corpus_version()
        if version == shown:
            return gr.update(), gr.update(), shown
        try:
            papers = self.api.papers()
        except PaperchatError as exc:
            gr.Warning(inert(str(exc)))
            return gr.update(), gr.update(), shown
        table = self._table(render.papers_rows(papers, text or "", area or ""))
        return table, gr.update(choices=["", *render.areas(papers)]), version

    def load_map(self, shown: int) -> tuple[Any, Any, int]:
        # Apart from the table: the first map of a large corpus takes seconds (5,358 papers: ~9 s,
        # once per catalogue version), and the table should not wait for it.
        import pandas as pd

        version = self.api.corpus_version()
        if version == shown:
            return gr.update(), gr.update(), shown
        try:
            points = self.api.topic_map()
        except PaperchatError as exc:  # no index: the table's warning already says what to do
            log.info("No topic map: %s", exc)
            return gr.update(), gr.update(), shown
        drawn = render.sample_points(points, MAP_POINTS)
        note = f"Showing {len(drawn):,} of {len(points):,} papers (an even sample; every topic keeps its share)." if len(drawn) < len(points) else ""
        frame = pd.DataFrame(render.map_rows(drawn))
        return gr.ScatterPlot(value=frame, color_map=render.topic_colours(points)), note, version

    def filter_papers(self, text: str, area: str) -> Any:
        try:
            papers = self.api.papers()
        except PaperchatError as exc:
            raise gr.Error(str(exc)) from exc
        return self._table(render.papers_rows(papers, text, area or ""))

    def select_paper(self, event: gr.SelectData) -> tuple[str, str]:
        row = event.row_value or []
        paper_id = str(row[-1]) if len(row) > 1 else ""  # the id is the last column
        return paper_id, f"Selected: **{inert(str(row[0]))}**" if paper_id else ""

    def similar(self, paper_id: str) -> str:
        if not paper_id:
            raise gr.Error("Select a paper in the table first.")
        papers = self.api.papers_by_id()
        if paper_id not in papers:
            raise gr.Error("That paper is no longer in the corpus; reload the explorer.")
        paper = papers[paper_id]
        hits = [h for h in self.api.search(f"{paper.title}. {paper.abstract}"[:1500], SIMILAR_PAPERS + 1).hits if h.paper.paper_id != paper_id]
        return render.render_hits(f"papers like {paper.title}", hits[:SIMILAR_PAPERS])

    def ask_about(
        self, paper_id: str, messages: list[dict[str, Any]], turns: list[dict[str, Any]], cards: list[str], request: gr.Request
    ) -> Iterator[tuple[Any, ...]]:
        if not paper_id:
            raise gr.Error("Select a paper in the table first.")
        for result in self.ask(ABOUT_QUESTION, Mode.ANSWER, messages, turns, cards, [paper_id], session=request.session_hash or ""):
            yield (gr.Tabs(selected="chat"), *result)

    # -- uploads ---------------------------------------------------------------------------

    def add_papers(self, files: list[str] | None, progress: gr.Progress = gr.Progress(track_tqdm=True)) -> tuple[str, str]:  # noqa: B008 - Gradio's own idiom
        if not files:
            raise gr.Error("Choose one or more .txt, .jsonl or .csv files first.")
        limit = self.settings.max_upload_mb * 1024 * 1024
        # Every file is checked before any is kept: a refused batch leaves nothing behind.
        for path in map(Path, files):
            if path.suffix.lower() not in SUPPORTED_SUFFIXES:
                raise gr.Error(f"{inert(path.name)}: not a .txt, .jsonl or .csv file; nothing was added.")
            if path.stat().st_size > limit:
                raise gr.Error(
                    f"{inert(path.name)} is {path.stat().st_size / 1e6:.1f} MB; the limit is {self.settings.max_upload_mb} MB "
                    "(PAPERCHAT_MAX_UPLOAD_MB). Split it, or run `paperchat ingest FILE`."
                )
        uploads = uploads_dir(self.settings.data_dir)
        uploads.mkdir(parents=True, exist_ok=True)
        names: dict[str, str] = {}
        targets: list[Path] = []
        for path in map(Path, files):
            # Kept under the data directory by content, so that the papers' source stays valid after
            # Gradio clears its temporary files, and uploading the same file again changes nothing.
            target = uploads / f"{path.stem}-{hashlib.sha256(path.read_bytes()).hexdigest()[:12]}{path.suffix.lower()}"
            names[str(target.resolve())] = path.name
            shutil.copyfile(path, target)
            targets.append(target)
        progress(0, desc="reading the files")
        try:
            # An upload adds papers; it never rewrites one already indexed from elsewhere (IdClashError).
            report = self.api.ingest(targets, progress=True, add_only=True)
        except PaperchatError as exc:  # IdClashError among them: the records' ids and titles are the user's text
            self._forget_unused(targets)
            raise gr.Error(inert(str(exc))) from exc
        self._forget_unused(targets)
        return render.render_report(report, names), self.status_text()

    def _forget_unused(self, targets: list[Path]) -> None:
        """Delete the stored uploads no paper came from: a refused file, or one none of whose
        lines became a paper, is the source of nothing (the same file uploaded before is kept)."""
        try:
            kept = {source for p in self.api.papers() for source in p.sources}
        except PaperchatError as exc:  # no index yet: none of them is a source
            log.info("No index after the upload: %s", exc)
            kept = set()
        for target in targets:
            if str(target.resolve()) not in kept:
                target.unlink(missing_ok=True)
