from __future__ import annotations

from rag.api import Paperchat
from rag.records import Hit, Paper
from tests.conftest import free_port
from ui.app import build_app
from ui.render import render_hits, render_status


def hit(title: str, generated: bool, url: str = "", score: float = 0.5, abstract: str = "An abstract.") -> Hit:
    return Hit(Paper(paper_id=title, abstract=abstract, title=title, title_is_generated=generated, url=url), score)


def test_render_hits_marks_generated_titles_links_and_escapes() -> None:
    text = render_hits("sheep <b>", [hit("FooNet", True), hit("Real <Title>", False, url="https://x.org/1", score=0.25)])
    assert "**2 papers**" in text and "sheep &lt;b&gt;" in text
    assert "1. **FooNet** <small>(generated title)</small> · relevance 0.50" in text
    assert "2. **[Real &lt;Title&gt;](https://x.org/1)** · relevance 0.25" in text


def test_render_hits_cuts_long_abstracts_and_says_when_nothing_matched() -> None:
    text = render_hits("q", [hit("T", False, abstract="word " * 500)])
    assert text.rstrip().endswith("…") and len(text) < 1000
    assert render_hits("nothing", []) == "No papers found for *nothing*."


def test_render_status() -> None:
    assert render_status({"papers": 51, "embedding_model": "m"}) == "papers: 51 · embedding model: m"


def test_served_search_endpoint(seeded: Paperchat) -> None:
    from gradio_client import Client

    demo = build_app(seeded)
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        answer = client.predict("KV cache eviction", api_name="/search")
        assert "**10 papers**" in answer and "relevance" in answer
        assert "ReST-KV" in answer.split("\n2.")[0]
        assert "empty" in client.predict("   ", api_name="/search")
    finally:
        demo.close()
