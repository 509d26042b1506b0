"""The Gradio app: chat with cited sources, the corpus explorer with its topic map, uploads, status.

Layout and wiring only: what each event does is in ui/handlers.py, what is shown is made by the
pure functions of ui/render.py, and every answer, search and ingest goes through
rag.api.Paperchat. Each browser session keeps its own conversation in gr.State (the `paperchat
ask --json` documents of its turns, which are also what follow-ups and the Markdown export read).
"""

from __future__ import annotations

import gradio as gr

from rag.api import Paperchat
from rag.corpus import SUPPORTED_SUFFIXES
from rag.routing import Mode
from ui import render
from ui.handlers import DOWNLOAD_LIFETIME_S, Handlers

# The mode buttons: one per rag.routing.Mode, labelled as a reader would say it.
MODE_LABELS = {Mode.AUTO: "Auto", Mode.ANSWER: "Ask", Mode.SUMMARIZE: "Summarize", Mode.COMPARE: "Compare", Mode.LIST: "List", Mode.CHECK: "Check"}
# Every event that searches, drafts or ingests shares one queue slot pool (PAPERCHAT_APP_CONCURRENCY);
# Gradio's default would give each event its own.
WORK = "paperchat-work"
INGEST = "paperchat-ingest"
# A browser session's conversation (its turns' `ask --json` documents and source cards: 4.6 KB a turn
# for a list, 16 KB for a comparison, on the seeds) stays in memory until its tab closes, a day after its last turn (the downloads'
# lifetime), or once MAX_SESSIONS newer sessions push it out. Gradio's own bound is 10,000 sessions
# and no time limit: a server up for months would hold every tab ever left open.
SESSION_LIFETIME_S = DOWNLOAD_LIFETIME_S
MAX_SESSIONS = 1000

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
.filter-chip { display: inline-block; font-size: 0.8em; border: 1px solid var(--color-accent); border-radius: 999px; padding: 0 8px; margin: 0 4px 4px 0; }
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


def build_app(api: Paperchat) -> gr.Blocks:
    settings = api.settings
    on = Handlers(api)
    # Gradio copies every file it serves (exports, tables) into its cache: swept hourly of files
    # older than the downloads' own lifetime, so a long-running server does not fill its disk.
    with gr.Blocks(title="paperchat", delete_cache=(3600, DOWNLOAD_LIFETIME_S)) as demo:
        turns = gr.State([], time_to_live=SESSION_LIFETIME_S)
        cards = gr.State([], time_to_live=SESSION_LIFETIME_S)
        selected = gr.State("", time_to_live=SESSION_LIFETIME_S)
        table_version = gr.State(-1, time_to_live=SESSION_LIFETIME_S)  # the corpus version this session's explorer shows
        map_version = gr.State(-1, time_to_live=SESSION_LIFETIME_S)
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
                            placeholder="Ask about the papers, list the papers that …, summarise a theme, or compare papers …",
                            scale=6,
                            max_lines=6,
                            max_length=settings.max_question_chars,
                        )
                        send = gr.Button("Ask", variant="primary", elem_id="ask", scale=1)
                    with gr.Row():
                        mode = gr.Radio([(label, m.value) for m, label in MODE_LABELS.items()], value=Mode.AUTO.value, label="Mode", elem_id="mode", scale=3)
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
                    filter_text = gr.Textbox(label="Filter by words in the title or abstract", info="Press Enter to apply.", elem_id="paper-filter", scale=3)
                    area = gr.Dropdown(choices=[""], value="", label="Primary area", elem_id="area", scale=2)
                papers_table = gr.Dataframe(headers=render.TABLE_HEADERS, interactive=False, elem_id="papers-table", max_height=360, wrap=True)
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
            on.chat_stream,
            [question, mode, chat, turns, cards],
            chat_outputs,
            api_visibility="private",
            trigger_mode="once",
            concurrency_id=WORK,
        )
        about_asked = about.click(on.ask_about, [selected, chat, turns, cards], [tabs, *chat_outputs], api_visibility="private", concurrency_id=WORK)
        stop.click(None, cancels=[asked, about_asked])
        reset.click(on.clear, None, chat_outputs, cancels=[asked, about_asked], api_visibility="private")
        example_list.click(lambda sample: sample[0], example_list, question, api_visibility="private")

        explore.select(on.load_table, [filter_text, area, table_version], [papers_table, area, table_version], api_visibility="private").then(
            on.load_map, map_version, [topic_map, map_note, map_version], api_visibility="private", concurrency_id=WORK
        )
        filter_text.submit(on.filter_papers, [filter_text, area], papers_table, api_visibility="private")
        area.change(on.filter_papers, [filter_text, area], papers_table, api_visibility="private")
        papers_table.select(on.select_paper, None, [selected, chosen], api_visibility="private")
        like.click(on.similar, selected, similar_out, api_visibility="private", concurrency_id=WORK)

        # Uploads queue apart, one at a time: an upload waits for the ingest file lock while
        # `paperchat ingest` runs beside the app (minutes for 1,000 papers), and in the shared pool
        # four waiting uploads held every slot, so no question was answered until the CLI finished
        # (bench/soak.py: 55 requests in 300 s from 32 sessions). One at a time loses nothing: the
        # lock lets one ingest write at once anyway.
        add.click(on.add_papers, files, [report, status], api_name="add_papers", concurrency_id=INGEST, concurrency_limit=1)

        demo.load(on.page, None, [status, example_list], api_visibility="private")
        gr.api(on.ask_api, api_name="ask", concurrency_id=WORK)
        gr.api(on.search_api, api_name="search", concurrency_id=WORK)
        gr.api(on.check_api, api_name="check", concurrency_id=WORK)
    return demo
