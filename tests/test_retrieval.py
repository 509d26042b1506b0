"""Hybrid retrieval with the hashing fake: fusion, exact names, filters, modes, and the
lexical index's persistence and incremental upkeep."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from rag.api import Paperchat
from rag.corpus import load_papers
from rag.errors import PaperchatError
from rag.lexical import LexicalIndex, paper_name
from rag.records import Paper
from rag.retrieval import reciprocal_rank_fusion, search, weighted_fusion
from tests.conftest import SEEDS, make_fake_api, write_jsonl

SURELOCK = next(p for p in load_papers([SEEDS]).papers if "SureLock" in p.abstract)


def test_rrf_rewards_agreement_between_lists() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "d"]], k=60)
    assert max(fused, key=fused.__getitem__) == "b"
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert set(fused) == {"a", "b", "c", "d"}


def test_weighted_fusion_normalises_each_side() -> None:
    fused = weighted_fusion({"a": 0.9, "b": 0.5}, {"b": 30.0, "c": 10.0}, dense_weight=0.5)
    assert fused == {"a": 0.5, "b": 0.5, "c": 0.0}


def test_a_paper_name_is_the_coined_head_of_its_title() -> None:
    def name(title: str, generated: bool = False) -> str:
        return paper_name(Paper(paper_id="p", abstract="x", title=title, title_is_generated=generated))

    assert name("WinT3R: Window-Based Streaming Reconstruction") == "wint3r"
    assert name("ReST-KV: Robust KV Eviction") == "rest-kv"
    assert name("SureLock: when the posterior at an unmasked position", generated=True) == "surelock"
    # A plain word before a colon in a real title, or a long head, is not a coined name.
    assert name("Aspirin: a review of twenty trials") == ""
    assert name("Scaling Laws and Spectra of Shallow Networks: a study") == ""
    assert name("No colon in this title") == ""


@pytest.mark.parametrize("query", ["SureLock", "what does surelock lock?", "How is SureLock evaluated"])
def test_a_named_method_ranks_its_paper_first(seeded: Paperchat, query: str) -> None:
    for mode in ("hybrid", "bm25"):
        assert seeded.search(query, k=3, mode=mode).hits[0].paper.paper_id == SURELOCK.paper_id  # type: ignore[arg-type]


def test_modes_and_fusions_return_one_row_per_paper_best_first(seeded: Paperchat) -> None:
    for mode, fusion in [("dense", "rrf"), ("bm25", "rrf"), ("hybrid", "rrf"), ("hybrid", "weighted")]:
        result = seeded.search("masked diffusion language model decoding", k=8, mode=mode, fusion=fusion)  # type: ignore[arg-type]
        ids = [h.paper.paper_id for h in result.hits]
        scores = [h.score for h in result.hits]
        assert len(ids) == len(set(ids)) and 0 < len(ids) <= 8
        assert scores == sorted(scores, reverse=True)
        assert "total" in result.timings_ms
    with pytest.raises(PaperchatError, match="mode"):
        seeded.search("x", mode="fuzzy")  # type: ignore[arg-type]


class _Myopic:
    """A store whose unfiltered search gives one chunk: the dense side brings one paper."""

    def __init__(self, store: Any) -> None:
        self.store, self.embeddings = store, store.embeddings

    def search_by_vector(self, vector: Any, n: int, where: Any = None, with_text: bool = True) -> Any:
        return self.store.search_by_vector(vector, n if where else 1, where, with_text=with_text)

    def texts(self, chunk_ids: Any) -> Any:
        return self.store.texts(chunk_ids)


def test_a_paper_only_bm25_found_gets_its_own_cosine(seeded: Paperchat) -> None:
    """Relevance says whether a paper is about the question (a theme's summary keeps papers by
    it): a paper the dense side did not bring must not read as cosine 0."""
    papers, store = seeded.papers_by_id(), seeded.seams.store()
    query = "masked diffusion language model decoding"
    hits = search(query, store=_Myopic(store), lexical=seeded.seams.lexical, lookup=lambda ids: {p: papers[p] for p in ids if p in papers}, k=6).hits  # type: ignore[arg-type]
    assert len(hits) == 6
    vector = store.embeddings.embed_query(query)
    for hit in hits:
        best = max(c.score for c in store.search_by_vector(vector, 5, {"paper_id": hit.paper.paper_id}, with_text=False))
        assert hit.relevance == pytest.approx(best) and hit.relevance > 0


def test_bm25_leaves_out_papers_without_a_shared_word(seeded: Paperchat) -> None:
    assert seeded.search("zyzzyva quux", mode="bm25").hits == []


def test_where_filters_by_source_field_and_year(api: Paperchat, tmp_path: Path) -> None:
    records = [
        {"id": "A", "abstract": "We study sheep counting with drones over many farms.", "year": 2023, "status": "Oral"},
        {"id": "B", "abstract": "We study sheep counting with cameras over many farms.", "year": 2024, "status": "Poster"},
    ]
    api.ingest([SEEDS, write_jsonl(tmp_path / "sheep.jsonl", records)])
    assert [h.paper.paper_id for h in api.search("sheep counting", where={"year": 2024}).hits] == ["B"]
    assert [h.paper.paper_id for h in api.search("sheep counting", where={"status": "oral"}).hits] == ["A"]
    assert {h.paper.paper_id for h in api.search("sheep counting", where={"source": "sheep.jsonl"}).hits} == {"A", "B"}
    from_seeds = api.search("sheep counting", k=50, where={"source": "000_1e65df5c7603f014.txt"}).hits
    assert from_seeds and all(any(s.endswith("000_1e65df5c7603f014.txt") for s in h.paper.sources) for h in from_seeds)
    with pytest.raises(PaperchatError, match="primary_areaz"):
        api.search("sheep", where={"primary_areaz": "x"})


def test_lexical_index_persists_and_updates_incrementally(tmp_path: Path) -> None:
    papers = {p.paper_id: (p, "h1") for p in load_papers([SEEDS]).papers}
    index = LexicalIndex(tmp_path / "lexical")
    assert index.sync(papers) == 51
    assert index.sync(papers) == 0  # unchanged: nothing tokenised
    first = next(iter(papers))
    papers[first] = (papers[first][0], "h2")
    assert index.sync(papers) == 1  # one changed paper: one tokenised
    del papers[first]
    assert index.sync(papers) == 0 and len(index) == 50
    # A fresh instance answers from disk: the score matrix and vocabulary are loaded, not rebuilt.
    reloaded = LexicalIndex(tmp_path / "lexical")
    assert reloaded.load() and len(reloaded) == 50
    assert reloaded.search("SureLock", k=1)[0][0] == SURELOCK.paper_id
    assert reloaded.papers_named("surelock") == [SURELOCK.paper_id]


def test_a_lost_lexical_index_is_rebuilt_at_search_time(seeded: Paperchat) -> None:
    shutil.rmtree(seeded.settings.lexical_dir)
    fresh = make_fake_api(seeded.settings, seeded.seams.embeddings)  # type: ignore[arg-type]
    assert fresh.search("SureLock", k=1, mode="bm25").hits[0].paper.paper_id == SURELOCK.paper_id
    assert (seeded.settings.lexical_dir / "state.json").is_file()


def test_ingest_keeps_the_lexical_index_in_step(seeded: Paperchat, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "new.jsonl", [{"id": "Z", "title": "Zanzibar", "abstract": "We introduce ZanziNet, a model of island traffic."}])
    seeded.ingest([path])
    assert seeded.search("ZanziNet", k=1, mode="bm25").hits[0].paper.paper_id == "Z"
    path.unlink()
    seeded.ingest([], prune=True)
    assert all(h.paper.paper_id != "Z" for h in seeded.search("ZanziNet island traffic", mode="bm25").hits)


def test_k_below_one_is_refused(seeded: Paperchat) -> None:
    with pytest.raises(PaperchatError, match="at least one"):
        seeded.search("anything", k=-3)


def test_an_app_sees_papers_another_process_ingested(seeded: Paperchat, tmp_path: Path) -> None:
    seeded.search("warm the caches")
    other = make_fake_api(seeded.settings, seeded.seams.embeddings)  # type: ignore[arg-type]
    other.ingest([write_jsonl(tmp_path / "z.jsonl", [{"id": "Z", "title": "ZanziNet: islands", "abstract": "We introduce ZanziNet for island traffic."}])])
    assert seeded.search("ZanziNet", k=1).hits[0].paper.paper_id == "Z"
