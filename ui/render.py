"""Pure functions from `rag` records to what the app shows. No Gradio here, so they test fast."""

from __future__ import annotations

import html
from collections.abc import Sequence

from rag.records import Hit

ABSTRACT_PREVIEW_CHARS = 600


def render_hits(query: str, hits: Sequence[Hit]) -> str:
    """Markdown list of search results, best first."""
    if not hits:
        return f"No papers found for *{html.escape(query)}*."
    lines = [f"**{len(hits)} papers** for *{html.escape(query)}*", ""]
    for rank, hit in enumerate(hits, start=1):
        paper = hit.paper
        title = html.escape(paper.title)
        if paper.url.startswith(("http://", "https://")):
            title = f"[{title}]({html.escape(paper.url).replace('(', '%28').replace(')', '%29')})"
        generated = " <small>(generated title)</small>" if paper.title_is_generated else ""
        abstract = paper.abstract
        if len(abstract) > ABSTRACT_PREVIEW_CHARS:
            abstract = abstract[:ABSTRACT_PREVIEW_CHARS].rsplit(" ", 1)[0] + " …"
        lines += [f"{rank}. **{title}**{generated} · relevance {hit.score:.2f}", f"   > {html.escape(abstract)}", ""]
    return "\n".join(lines)


def render_status(status: dict[str, object]) -> str:
    return " · ".join(f"{key.replace('_', ' ')}: {value}" for key, value in status.items())
