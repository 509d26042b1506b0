"""The Gradio app. For now a search page over the index; the chat arrives with the app issue."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rag.api import Paperchat
from rag.errors import PaperchatError
from ui.render import render_hits, render_status

if TYPE_CHECKING:
    import gradio as gr

# The app runs offline: no usage analytics calls out of the machine.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")


def build_app(api: Paperchat) -> gr.Blocks:
    import gradio as gr

    def run_search(query: str) -> str:
        try:
            result = api.search(query)
        except PaperchatError as exc:
            return f"⚠️ {exc}"
        return render_hits(result.query, result.hits)

    with gr.Blocks(title="paperchat") as demo:
        gr.Markdown("# paperchat\nSearch the indexed research-paper abstracts.")
        gr.Markdown(render_status(api.status()))
        with gr.Row():
            query = gr.Textbox(label="Search", placeholder="e.g. diffusion language models that skip stable tokens", scale=5)
            button = gr.Button("Search", variant="primary", scale=1)
        results = gr.Markdown()
        button.click(run_search, inputs=query, outputs=results, api_name="search")
        query.submit(run_search, inputs=query, outputs=results, api_visibility="private")
    return demo


def launch(host: str | None = None, port: int | None = None) -> None:
    api = Paperchat()
    demo = build_app(api)
    demo.queue(default_concurrency_limit=2).launch(
        server_name=host or api.settings.host, server_port=port or api.settings.port, show_error=True
    )
