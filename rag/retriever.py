"""paperchat's search as a langchain `BaseRetriever`, so it plugs into any langchain chain.

The one place where search results become langchain `Document`s (one per paper: the abstract
as content, the ids, title and score as metadata).
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from rag.api import Paperchat


class PaperRetriever(BaseRetriever):
    """`PaperRetriever(paperchat=Paperchat(), k=4).invoke("KV cache eviction")`.

    `invoke(query, k=..., mode=..., fusion=..., where=...)` overrides the fields per call."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    paperchat: Paperchat
    k: int = 4
    mode: str | None = None  # None: the configured default (hybrid)
    fusion: str | None = None
    where: dict[str, Any] | None = None

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any) -> list[Document]:
        result = self.paperchat.search(
            query,
            kwargs.get("k", self.k),
            mode=kwargs.get("mode", self.mode),
            fusion=kwargs.get("fusion", self.fusion),
            where=kwargs.get("where", self.where),
        )
        return [
            Document(
                id=hit.paper.paper_id,
                page_content=hit.paper.abstract,
                metadata={
                    # Record fields first: a record's own "score" or "sources" cannot replace ours.
                    **hit.paper.metadata(),
                    "paper_id": hit.paper.paper_id,
                    "title": hit.paper.title,
                    "title_is_generated": hit.paper.title_is_generated,
                    "score": hit.score,
                    "url": hit.paper.url,
                    "sources": list(hit.paper.sources),
                },
            )
            for hit in result.hits
        ]
