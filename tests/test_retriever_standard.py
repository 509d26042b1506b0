"""langchain's own standard test suite for retrievers, run against PaperRetriever."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from langchain_tests.integration_tests import RetrieversIntegrationTests

from rag.api import Paperchat
from rag.config import Settings
from rag.retriever import PaperRetriever
from tests.conftest import SEEDS, make_fake_api
from tests.fakes import HashingEmbeddings


@cache
def seeded_paperchat() -> Paperchat:
    # The suite's hooks are properties, not fixtures, so the seeded index is built once here.
    data_dir = Path(tempfile.mkdtemp(prefix="paperchat-retriever-")) / "data"
    api = make_fake_api(Settings(data_dir=data_dir, _env_file=None), HashingEmbeddings())  # type: ignore[call-arg]
    api.ingest([SEEDS])
    return api


class TestPaperRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[PaperRetriever]:
        return PaperRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"paperchat": seeded_paperchat(), "k": 4}

    @property
    def retriever_query_example(self) -> str:
        return "KV cache eviction for long-context inference"


def test_documents_carry_paper_metadata_and_where_filters() -> None:
    retriever = PaperRetriever(paperchat=seeded_paperchat(), k=3)
    docs = retriever.invoke("KV cache eviction")
    assert docs[0].metadata["title"].startswith("ReST-KV")
    assert docs[0].id == docs[0].metadata["paper_id"]
    assert docs[0].metadata["score"] >= docs[-1].metadata["score"]
    assert isinstance(docs[0].metadata["score"], float) and isinstance(docs[0].metadata["sources"], list)
    only_004 = retriever.invoke("reconstruction", where={"source": "004_9c4b2881e11d419b.txt"}, k=19)
    assert only_004 and all(any(s.endswith("004_9c4b2881e11d419b.txt") for s in d.metadata["sources"]) for d in only_004)
