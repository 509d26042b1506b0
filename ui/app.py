"""The Gradio app: chat with cited sources, the corpus explorer with its topic map, uploads, status.

Layout and wiring only; what is shown is made by the pure functions of ui/render.py, and every
answer, search and ingest goes through rag.api.Paperchat. Each browser session keeps its own
conversation in gr.State (the `paperchat ask --json` documents of its turns, which are also what
follow-ups and the Markdown export read).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# At module level, not inside build_app: Gradio reads the handlers' type hints (gr.SelectData,
# gr.Progress) through the module's globals. Only `paperchat serve` imports this module.
import gradio as gr

from rag.api import Paperchat
from rag.conversation import turns_from_history
from rag.corpus import SUPPORTED_SUFFIXES, load_papers
from rag.errors import PaperchatError
from ui import render

# The app runs offline: no usage analytics calls out of the machine.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

MODES = {"Auto": "auto", "Ask": "answer", "Summarize": "summarize", "Compare": "compare"}
TABLE_HEADERS = ["title", "area", "status", "paper id"]
SIMILAR_PAPERS = 6
MAX_API_RESULTS = 100
# Points the topic map draws: each is an SVG mark in the browser; beyond this, an even sample.
MAP_POINTS = 6000  # /search's k: enough for any reader, not a way to download the corpus
# Every event that searches, drafts or ingests shares one queue slot pool (PAPERCHAT_APP_CONCURRENCY);
# Gradio's default would give each event its own.
WORK = "paperchat-work"
log = logging.getLogger("paperchat.app")

CSS = """
#sources { max-height: 70vh; overflow-y: auto; }
.source-card { border: 1px solid var(--border-color-primary); border-radius: 8px; padding: 8px 10px; margin-bottom: 8px; }
.source-card.flash { outline: 3px solid var(--color-accent); }
.source-card.related { opacity: 0.8; }
.source-head { font-size: 0.95em; }
.source-meta { font-size: 0.8em; color: var(--body-text-color-subdued); margin: 2px 0 4px; }
.source-abstract { font-size: 0.85em; line-height: 1.4; }
mark.evidence { background: #fde68a; color: inherit; padding: 0 1px; }
.generated { font-size: 0.75em; border: 1px solid var(--border-color-primary); border-radius: 4px; padding: 0 4px; }
.turn-sources > summary { cursor: pointer; font-weight: 600; margin: 6px 0; }
a.cite { text-decoration: none; font-weight: 600; }
/* Comparison tables scroll sideways in the chat instead of squeezing six aspects into slivers. */
#chat table { display: block; overflow-x: auto; }
#chat th, #chat td { min-width: 13em; vertical-align: top; font-size: 0.9em; }
#chat th:first-child, #chat td:first-child { min-width: 9em; }
"""

# Clicking [n] in an answer brings source card n into view (and flashes it). One listener on the
# document, in the capture phase, so it also sees links Gradio renders after the page loaded.
HEAD = """
<script>
document.addEventListener("click", (event) => {
  const link = event.target.closest && event.target.closest('a[href^="#source-"]');
  if (!link) return;
  event.preventDefault();
  event.stopPropagation();
  const card = document.getElementById(link.getAttribute("href").slice(1));
  if (!card) return;
  const folded = card.closest("details");
  if (folded) folded.open = true;
  card.scrollIntoView({ behavior: "smooth", block: "center" });
  card.classList.add("flash");
  setTimeout(() => card.classList.remove("flash"), 1600);
}, true);
</script>
"""


def _panel(blocks: list[str]) -> str:
    """The sources of every turn, newest first and open; earlier turns folded."""
    if not blocks:
        return render.render_sources(())
    shown = []
    for index, block in enumerate(reversed(blocks)):
        turn = len(blocks) - index
        shown.append(f'<details class="turn-sources"{" open" if index == 0 else ""}><summary>Sources of question {turn}</summary>{block}</details>')
    return "".join(shown)


def _write_download(folder: Path, name: str, text: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _table(pd: Any, papers: list[Any], rows: list[list[str]]) -> Any:
    """The explorer's table; the area and status columns only when the corpus has them (the seed
    lists have neither, and empty columns squeeze the titles)."""
    every = render.papers_rows(papers)  # decided on the whole corpus, so a filter never moves the columns
    shown = [i for i, name in enumerate(TABLE_HEADERS) if name in ("title", "paper id") or any(row[i] for row in every)]
    return pd.DataFrame([[row[i] for i in shown] for row in rows], columns=[TABLE_HEADERS[i] for i in shown])


def build_app(api: Paperchat) -> gr.Blocks:
    settings = api.settings
    # Downloads (exports, tables) are files Gradio serves from its own temporary folder.
    downloads = Path(tempfile.mkdtemp(prefix="paperchat-downloads-"))

    def status_text() -> str:
        from rag.llm import ping

        chat = api.chat  # built first: building it is what sets api.llm_problem
        problem = api.llm_problem or (ping(settings) if settings.llm_backend != "none" and chat is not None else None)
        try:
            status = api.status()
        except Exception as exc:  # the status line must say what is wrong, not vanish
            log.exception("status failed")
            return f"⚠️ {exc}"
        return render.render_status(status, problem)

    def examples() -> list[str]:
        try:
            papers = api.papers()
            # Topics for examples only when cheap: a large corpus shows plain examples at once.
            topics = api.topics() if len(papers) <= 2000 else []
        except Exception:  # no index yet, or the store is unreadable: the status line says which
            return ["What topics does this corpus cover?"]
        return render.example_questions(papers, topics)

    # -- chat ------------------------------------------------------------------------------

    def checked(question: str, empty: str = "Type a question first, e.g. one of the examples below the box.") -> str:
        """The question, stripped; an empty or overlong one is refused with what to do."""
        question = (question or "").strip()
        if not question:
            raise gr.Error(empty)
        if len(question) > settings.max_question_chars:
            raise gr.Error(
                f"The question is {len(question):,} characters; the limit is {settings.max_question_chars:,} "
                "(PAPERCHAT_MAX_QUESTION_CHARS). Ask about one thing at a time, or search the explorer."
            )
        return question

    def ask(
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
        question = checked(question)
        number = len(turns) + 1
        messages = [*messages, {"role": "user", "content": question}, {"role": "assistant", "content": render.render_draft([], [])}]
        yield messages, "", _panel(cards), turns, cards, gr.update(), gr.update(), gr.update()
        sentences: list[str] = []
        sources: tuple[Any, ...] = ()
        try:
            events = api.ask_events(question, turns_from_history(turns), mode=MODES.get(mode, "auto"), about=about or ())
            for event in events:
                if event.kind == "sources":
                    sources = event.sources
                    panel = _panel([*cards, render.render_sources(sources, turn=number)])
                    messages[-1] = {"role": "assistant", "content": render.render_draft(sentences, sources, turn=number)}
                    yield messages, "", panel, turns, cards, gr.update(), gr.update(), gr.update()
                elif event.kind == "sentence":
                    sentences.append(event.text)
                    messages[-1] = {"role": "assistant", "content": render.render_draft(sentences, sources, turn=number)}
                    yield messages, "", gr.update(), turns, cards, gr.update(), gr.update(), gr.update()
                elif event.answer is not None:
                    answer = event.answer
                    messages[-1] = {"role": "assistant", "content": render.render_answer(answer, turn=number)}
                    cards = [*cards, render.render_sources(answer.sources, answer.related, turn=number)]
                    turns = [*turns, {"q": question, "result": answer.to_json()}]
                    table = answer.comparison
                    # One folder per browser session, overwritten each turn: nothing piles up.
                    folder = downloads / (hashlib.sha256(session.encode()).hexdigest()[:16] if session else "anonymous")
                    exported = _write_download(folder, "paperchat-conversation.md", render.export_markdown(turns))
                    hidden = gr.update(value=None, visible=False)
                    markdown = gr.update(value=_write_download(folder, "comparison.md", table.to_markdown()), visible=True) if table else hidden
                    csv = gr.update(value=_write_download(folder, "comparison.csv", table.to_csv()), visible=True) if table else hidden
                    yield messages, "", _panel(cards), turns, cards, gr.update(value=exported, visible=True), markdown, csv
        except PaperchatError as exc:
            messages[-1] = {"role": "assistant", "content": f"⚠️ {render.html.escape(str(exc))}"}
            yield messages, question, _panel(cards), turns, cards, gr.update(), gr.update(), gr.update()
        except Exception as exc:  # a bug or a broken index: say so, keep the question for another try
            log.exception("answering %r failed", question)
            text = f"⚠️ Something went wrong ({type(exc).__name__}); the question is back in the box to try again. The server log has the details."
            messages[-1] = {"role": "assistant", "content": text}
            yield messages, question, _panel(cards), turns, cards, gr.update(), gr.update(), gr.update()

    def chat_stream(
        question: str, mode: str, messages: list[dict[str, Any]], turns: list[dict[str, Any]], cards: list[str], request: gr.Request
    ) -> Iterator[tuple[Any, ...]]:
        yield from ask(question, mode, messages, turns, cards, session=request.session_hash or "")

    def clear() -> tuple[Any, ...]:
        hidden = gr.update(value=None, visible=False)
        return [], "", render.render_sources(()), [], [], hidden, hidden, hidden

    # -- API endpoints (gradio_client) -----------------------------------------------------

    def ask_api(question: str, mode: str = "auto", history: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """Answer a question from the abstracts; the result is `paperchat ask --json`'s document.
        `mode`: auto, answer, summarize or compare. `history`: earlier turns, oldest first, each
        {"q": question, "result": the document this endpoint returned for it}."""
        question = checked(question, "Empty question: pass the question as the first argument.")
        try:
            return api.ask(question, turns_from_history(history or []), mode=mode).to_json()
        except PaperchatError as exc:
            raise gr.Error(str(exc)) from exc

    def search_api(query: str, k: int = 10) -> dict[str, Any]:
        """Papers for a query, best first: {"query", "results": [{"paper_id", "title", "score", "relevance", "abstract", "url"}]}."""
        if not 1 <= k <= MAX_API_RESULTS:
            raise gr.Error(f"k={k}: ask for 1 to {MAX_API_RESULTS} papers.")
        try:
            result = api.search(query, k)
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

    def load_table(text: str, area: str, shown: int) -> tuple[Any, ...]:
        """The table when the tab opens: sent again only if the corpus changed since this
        session last saw it (5,358 rows are ~0.8 MB), with the filter in the box applied."""
        import pandas as pd

        version = api.corpus_version()
        if version == shown:
            return gr.update(), gr.update(), shown
        try:
            papers = api.papers()
        except PaperchatError as exc:
            gr.Warning(str(exc))
            return gr.update(), gr.update(), shown
        table = _table(pd, papers, render.papers_rows(papers, text or "", area or ""))
        return table, gr.update(choices=["", *render.areas(papers)]), version

    def load_map(shown: int) -> tuple[Any, Any, int]:
        # Apart from the table: the first map of a large corpus takes seconds (5,358 papers: ~9 s,
        # once per catalogue version), and the table should not wait for it.
        import pandas as pd

        version = api.corpus_version()
        if version == shown:
            return gr.update(), gr.update(), shown
        try:
            points = api.topic_map()
        except PaperchatError:
            return gr.update(), gr.update(), shown
        drawn = render.sample_points(points, MAP_POINTS)
        note = f"Showing {len(drawn):,} of {len(points):,} papers (an even sample; every topic keeps its share)." if len(drawn) < len(points) else ""
        frame = pd.DataFrame(render.map_rows(drawn))
        return gr.ScatterPlot(value=frame, color_map=render.topic_colours(points)), note, version

    def filter_papers(text: str, area: str) -> Any:
        import pandas as pd

        try:
            papers = api.papers()
        except PaperchatError as exc:
            raise gr.Error(str(exc)) from exc
        return _table(pd, papers, render.papers_rows(papers, text, area or ""))

    def select_paper(event: gr.SelectData) -> tuple[str, str]:
        row = event.row_value or []
        paper_id = str(row[-1]) if len(row) > 1 else ""  # the id is the last column
        return paper_id, f"Selected: **{render.html.escape(str(row[0]))}**" if paper_id else ""

    def similar(paper_id: str) -> str:
        if not paper_id:
            raise gr.Error("Select a paper in the table first.")
        papers = {p.paper_id: p for p in api.papers()}
        if paper_id not in papers:
            raise gr.Error("That paper is no longer in the corpus; reload the explorer.")
        paper = papers[paper_id]
        hits = [h for h in api.search(f"{paper.title}. {paper.abstract}"[:1500], SIMILAR_PAPERS + 1).hits if h.paper.paper_id != paper_id]
        return render.render_hits(f"papers like {paper.title}", hits[:SIMILAR_PAPERS])

    def ask_about(
        paper_id: str, messages: list[dict[str, Any]], turns: list[dict[str, Any]], cards: list[str], request: gr.Request
    ) -> Iterator[tuple[Any, ...]]:
        if not paper_id:
            raise gr.Error("Select a paper in the table first.")
        question = "What problem does this paper address, what does it propose, and what does it report?"
        for result in ask(question, "Ask", messages, turns, cards, [paper_id], session=request.session_hash or ""):
            yield (gr.Tabs(selected="chat"), *result)

    # -- uploads ---------------------------------------------------------------------------

    def add_papers(files: list[str] | None, progress: gr.Progress = gr.Progress(track_tqdm=True)) -> tuple[str, str]:  # noqa: B008 - Gradio's own idiom
        if not files:
            raise gr.Error("Choose one or more .txt, .jsonl or .csv files first.")
        limit = settings.max_upload_mb * 1024 * 1024
        # Every file is checked before any is kept: a refused batch leaves nothing behind.
        for path in map(Path, files):
            if path.suffix.lower() not in SUPPORTED_SUFFIXES:
                raise gr.Error(f"{path.name}: not a .txt, .jsonl or .csv file; nothing was added.")
            if path.stat().st_size > limit:
                raise gr.Error(
                    f"{path.name} is {path.stat().st_size / 1e6:.1f} MB; the limit is {settings.max_upload_mb} MB "
                    "(PAPERCHAT_MAX_UPLOAD_MB). Split it, or run `paperchat ingest FILE`."
                )
        uploads = settings.data_dir / "uploads"
        names: dict[str, str] = {}
        stored: list[tuple[Path, Path]] = []  # (kept copy, uploaded file)
        for path in map(Path, files):
            # Kept under the data directory by content, so that the papers' source stays valid after
            # Gradio clears its temporary files, and uploading the same file again changes nothing.
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
            target = uploads / f"{path.stem}-{digest}{path.suffix.lower()}"
            names[str(target.resolve())] = path.name
            stored.append((target, path))
        try:
            existing = {p.paper_id: p for p in api.papers()}
        except PaperchatError:
            existing = {}
        # An upload adds papers; it never rewrites one already indexed from elsewhere (a record
        # whose id is taken by a different abstract): that is a job for `paperchat ingest` on the original.
        clashes = [
            paper
            for paper in load_papers([source for _, source in stored], settings.max_abstract_chars).papers
            if (old := existing.get(paper.paper_id)) is not None and old.abstract_key != paper.abstract_key
        ]
        if clashes:
            listed = "; ".join(f"{render.html.escape(p.paper_id)} ({render.html.escape(p.title[:60])})" for p in clashes[:10])
            raise gr.Error(
                f"{len(clashes)} record(s) reuse the id of a paper already in the corpus with a different abstract: {listed}. "
                "Nothing was added. Give them new ids, or change the original with `paperchat ingest FILE`."
            )
        uploads.mkdir(parents=True, exist_ok=True)
        for target, source in stored:
            shutil.copyfile(source, target)
        targets = [target for target, _ in stored]
        progress(0, desc="reading the files")
        try:
            report = api.ingest(targets, progress=True)
        except PaperchatError as exc:
            raise gr.Error(str(exc)) from exc
        kept = {source for p in api.papers() for source in p.sources}
        for target in targets:
            # A file none of whose lines became a paper is not kept: it is the source of nothing.
            if str(target.resolve()) not in kept:
                target.unlink(missing_ok=True)
        return render.render_report(report, names), status_text()

    # -- layout ----------------------------------------------------------------------------

    with gr.Blocks(title="paperchat") as demo:
        turns = gr.State([])
        cards = gr.State([])
        selected = gr.State("")
        table_version = gr.State(-1)  # the corpus version this session's explorer shows
        map_version = gr.State(-1)
        with gr.Row():
            gr.Markdown("## paperchat · questions answered from research-paper abstracts, every claim cited")
        status = gr.Markdown(elem_id="status")
        with gr.Tabs() as tabs:
            with gr.Tab("Chat", id="chat"), gr.Row():
                with gr.Column(scale=3):
                    chat = gr.Chatbot(elem_id="chat", height=520, label="Conversation", show_label=False, feedback_options=None)
                    with gr.Row():
                        question = gr.Textbox(
                            elem_id="question",
                            show_label=False,
                            placeholder="Ask about the papers, ask for a summary of a theme, or compare papers …",
                            scale=6,
                            max_lines=6,
                            max_length=settings.max_question_chars,
                        )
                        send = gr.Button("Ask", variant="primary", elem_id="ask", scale=1)
                    with gr.Row():
                        mode = gr.Radio(list(MODES), value="Auto", label="Mode", elem_id="mode", scale=3)
                        stop = gr.Button("Stop", elem_id="stop", scale=1)
                        reset = gr.Button("Clear", elem_id="clear", scale=1)
                    example_list = gr.Dataset(components=[question], samples=[], label="Examples from this corpus", elem_id="examples")
                    with gr.Row():
                        export = gr.DownloadButton("Export conversation (Markdown)", visible=False, elem_id="export")
                        table_md = gr.DownloadButton("Table (Markdown)", visible=False, elem_id="table-md")
                        table_csv = gr.DownloadButton("Table (CSV)", visible=False, elem_id="table-csv")
                with gr.Column(scale=2):
                    gr.Markdown("**Sources**")
                    sources = gr.HTML(render.render_sources(()), elem_id="sources")
            with gr.Tab("Explore", id="explore") as explore:
                with gr.Row():
                    filter_text = gr.Textbox(label="Filter by words in the title or abstract", elem_id="paper-filter", scale=3)
                    area = gr.Dropdown(choices=[""], value="", label="Primary area", elem_id="area", scale=2)
                papers_table = gr.Dataframe(headers=TABLE_HEADERS, interactive=False, elem_id="papers-table", max_height=360, wrap=True)
                with gr.Row():
                    chosen = gr.Markdown("Select a paper in the table.", elem_id="selected-paper")
                    about = gr.Button("Ask about this paper", elem_id="ask-about")
                    like = gr.Button("Find similar papers", elem_id="similar")
                similar_out = gr.Markdown(elem_id="similar-papers")
                gr.Markdown("**Topic map**: every paper, placed by its embedding (a 2-D projection), coloured by topic; hover for titles.")
                map_note = gr.Markdown(elem_id="topic-map-note")
                topic_map = gr.ScatterPlot(x="x", y="y", color="topic", tooltip=["title", "topic"], elem_id="topic-map", height=520, show_label=False)
            with gr.Tab("Add papers", id="add"):
                gr.Markdown(
                    "Upload abstracts: `.txt` (a header line, a blank line, then one abstract per paragraph), `.jsonl` "
                    "(one object per line with at least `abstract`; `title`, `id`, `url`, ... are kept) or `.csv` (an `abstract` column). "
                    f"Up to {settings.max_upload_mb} MB a file. Bad lines are listed and skipped; they never change what is already indexed."
                )
                files = gr.File(file_count="multiple", file_types=list(SUPPORTED_SUFFIXES), elem_id="upload", label="Files")
                add = gr.Button("Add to the corpus", variant="primary", elem_id="add-papers")
                report = gr.Markdown(elem_id="upload-report")

        chat_outputs = [chat, question, sources, turns, cards, export, table_md, table_csv]
        # One event for the button and Enter, run once at a time per session: a second question
        # typed while the first streams waits instead of racing it for the same turn number.
        asked = gr.on(
            [send.click, question.submit],
            chat_stream,
            [question, mode, chat, turns, cards],
            chat_outputs,
            api_visibility="private",
            trigger_mode="once",
            concurrency_id=WORK,
        )
        about_asked = about.click(ask_about, [selected, chat, turns, cards], [tabs, *chat_outputs], api_visibility="private", concurrency_id=WORK)
        stop.click(None, cancels=[asked, about_asked])
        reset.click(clear, None, chat_outputs, cancels=[asked, about_asked], api_visibility="private")
        example_list.click(lambda sample: sample[0], example_list, question, api_visibility="private")

        explore.select(load_table, [filter_text, area, table_version], [papers_table, area, table_version], api_visibility="private").then(
            load_map, map_version, [topic_map, map_note, map_version], api_visibility="private", concurrency_id=WORK
        )
        filter_text.submit(filter_papers, [filter_text, area], papers_table, api_visibility="private")
        area.change(filter_papers, [filter_text, area], papers_table, api_visibility="private")
        papers_table.select(select_paper, None, [selected, chosen], api_visibility="private")
        like.click(similar, selected, similar_out, api_visibility="private", concurrency_id=WORK)

        add.click(add_papers, files, [report, status], api_name="add_papers", concurrency_id=WORK)

        demo.load(lambda: (status_text(), gr.Dataset(samples=[[q] for q in examples()])), None, [status, example_list], api_visibility="private")
        gr.api(ask_api, api_name="ask", concurrency_id=WORK)
        gr.api(search_api, api_name="search", concurrency_id=WORK)
    return demo


def start(api: Paperchat, host: str | None = None, port: int | None = None, *, block: bool = True) -> gr.Blocks:
    """Serve the app: the queue bounds work in progress (more requests wait, none fail), login
    when PAPERCHAT_AUTH is set, uploads capped. `block=False` returns at once (tests)."""
    settings = api.settings
    credentials = settings.auth.get_secret_value()
    auth = None
    if credentials:
        user, sep, password = credentials.partition(":")
        if not sep or not user or not password:
            raise PaperchatError("PAPERCHAT_AUTH must be user:password (both non-empty); unset it for no login.")
        auth = (user, password)
    demo = build_app(api)
    demo.queue(default_concurrency_limit=settings.app_concurrency, max_size=256).launch(
        server_name=host or settings.host,
        server_port=port or settings.port,
        auth=auth,
        max_file_size=f"{settings.max_upload_mb}mb",
        show_error=True,
        css=CSS,
        head=HEAD,
        prevent_thread_lock=True,
        quiet=not block,
    )
    # Models load in the background while the page is already served, so the first question
    # does not wait for them (bench/RESULTS.md: serve to ready, and to the first answer).
    threading.Thread(target=api.warm_up, name="paperchat-warm-up", daemon=True).start()
    if block:
        demo.block_thread()
    return demo


def launch(host: str | None = None, port: int | None = None) -> None:
    start(Paperchat(), host, port)
