"""One contract for every `ChunkStore` backend: the local persistent Chroma and a real
`chroma run` server on loopback. The same ingest tests run against both."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from rag.config import Settings
from rag.errors import NoIndexError, StoreError
from rag.records import Chunk
from rag.store import make_store
from tests.conftest import SEEDS, make_fake_api
from tests.fakes import HashingEmbeddings


@pytest.fixture(params=["persistent", pytest.param("server", marks=pytest.mark.integration)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    url = request.getfixturevalue("chroma_server") if request.param == "server" else ""
    # A fresh collection per test, so tests sharing one server do not see each other.
    return Settings(data_dir=tmp_path / "data", chroma_url=url, collection=f"t{uuid.uuid4().hex[:12]}", _env_file=None)  # type: ignore[call-arg]


def chunk(paper_id: str, index: int, text: str) -> Chunk:
    return Chunk(f"{paper_id}#{index}", paper_id, index, text, text)


def test_upsert_search_delete(backend: Settings) -> None:
    store = make_store(backend, HashingEmbeddings(), "hashing-512")
    store.upsert(
        [chunk("a", 0, "sheep counting with cameras"), chunk("a", 1, "farms and fields"), chunk("b", 0, "language model forgetting")],
        {"a": {"venue": "ICLR", "year": 2026}, "b": {"venue": "NeurIPS"}},
    )
    assert store.count() == 3
    assert store.chunk_ids() == {"a#0", "a#1", "b#0"}
    hits = store.search_by_vector(store.embeddings.embed_query("counting sheep"), k=3)
    assert next(h.chunk_id for h in hits) == "a#0"
    assert hits[0].score > hits[-1].score  # higher is better
    assert -1.0 <= hits[-1].score <= hits[0].score <= 1.0001
    bare = store.search_by_vector(store.embeddings.embed_query("counting sheep"), k=3, with_text=False)
    assert [(h.chunk_id, h.score) for h in bare] == [(h.chunk_id, h.score) for h in hits] and all(h.text == "" for h in bare)
    assert store.texts(["a#1", "b#0"]) == {"a#1": "farms and fields", "b#0": "language model forgetting"}
    filtered = store.search_by_vector(store.embeddings.embed_query("counting sheep"), k=3, where={"venue": "NeurIPS"})
    assert [h.paper_id for h in filtered] == ["b"]
    # Upserting the same ids again leaves one copy each.
    store.upsert([chunk("a", 0, "sheep counting with drones")], {})
    assert store.count() == 3
    store.delete(["a#0", "a#1"])
    assert store.chunk_ids() == {"b#0"}


def test_empty_store_returns_no_hits(backend: Settings) -> None:
    store = make_store(backend, HashingEmbeddings(), "hashing-512")
    assert store.search_by_vector(store.embeddings.embed_query("anything"), k=5) == []


def test_index_built_with_another_model_is_refused(backend: Settings) -> None:
    make_store(backend, HashingEmbeddings(), "hashing-512")
    with pytest.raises(StoreError, match="PAPERCHAT_EMBEDDING_MODEL"):
        make_store(backend, HashingEmbeddings(), "another-model")


def test_reading_before_any_ingest_says_to_ingest(backend: Settings) -> None:
    with pytest.raises(NoIndexError, match="paperchat ingest"):
        make_store(backend, HashingEmbeddings(), "hashing-512", create=False)


def test_incremental_ingest_against_the_backend(backend: Settings) -> None:
    embeddings = HashingEmbeddings()
    api = make_fake_api(backend, embeddings)
    first = api.ingest([SEEDS])
    assert (first.added, first.papers) == (51, 51)
    again = api.ingest([SEEDS])
    assert (again.unchanged, again.embedded) == (51, 0)
    assert api.seams.store().count() == first.chunks
    assert api.search("diffusion language model decoding", k=3).hits


def test_unreachable_server_names_the_fix(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, chroma_url="http://127.0.0.1:9", _env_file=None)  # type: ignore[call-arg]
    with pytest.raises(StoreError, match="chroma run"):
        make_store(settings, HashingEmbeddings(), "hashing-512")


@pytest.mark.integration
def test_a_second_catalogue_cannot_empty_a_shared_server_collection(chroma_server: str, tmp_path: Path) -> None:
    shared = {"chroma_url": chroma_server, "collection": f"t{uuid.uuid4().hex[:12]}", "_env_file": None}
    first = make_fake_api(Settings(data_dir=tmp_path / "laptop", **shared), HashingEmbeddings())  # type: ignore[arg-type]
    chunks = first.ingest([SEEDS]).chunks
    other = make_fake_api(Settings(data_dir=tmp_path / "other-machine", **shared), HashingEmbeddings())  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="another paper catalogue"):
        other.ingest([SEEDS])
    assert first.seams.store().count() == chunks
