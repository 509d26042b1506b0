"""Incremental, restartable ingest: unchanged papers embed nothing, changes replace their
chunks, removals and prunes leave no stale chunks, a killed ingest is completed next time."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rag.api import Paperchat
from rag.catalog import Catalog
from rag.config import Settings
from rag.corpus import load_papers
from tests.conftest import SEEDS, make_fake_api, titling_texts, write_jsonl
from tests.fakes import HashingEmbeddings

A = "We propose FooNet, a network that counts sheep in photographs. FooNet reaches 97.5% accuracy on three farms."
B = "We study forgetting in language models across 12 benchmarks. Replay of 1% of the data removes most forgetting."
C = "We introduce BarGraph, a benchmark of 5,000 graphs drawn by hand. Current models solve fewer than half of them."


def expected_chunk_ids(api: Paperchat) -> set[str]:
    return {cid for entry in Catalog(api.settings.catalog_path).entries().values() for cid in entry.chunk_ids()}


def assert_consistent(api: Paperchat) -> None:
    """The store holds exactly the chunks the catalogue names: no duplicates, no orphans."""
    assert api.seams.store().chunk_ids() == expected_chunk_ids(api)
    assert api.seams.store().count() == len(expected_chunk_ids(api))


def test_second_ingest_embeds_nothing(seeded: Paperchat, fake_embeddings: HashingEmbeddings) -> None:
    before = fake_embeddings.embedded
    report = seeded.ingest([SEEDS])
    assert (report.added, report.updated, report.unchanged, report.removed) == (0, 0, 51, 0)
    assert fake_embeddings.embedded == before and report.embedded == 0
    assert_consistent(seeded)


def test_changed_abstract_replaces_its_chunks(api: Paperchat, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"id": "P1", "abstract": A + " " + B + " " + C}, {"id": "P2", "abstract": B}])
    api.ingest([path])
    write_jsonl(path, [{"id": "P1", "abstract": C}, {"id": "P2", "abstract": B}])
    report = api.ingest([path])
    assert (report.added, report.updated, report.unchanged) == (0, 1, 1)
    assert report.embedded == 1
    assert_consistent(api)
    assert {p.paper_id: p.abstract for p in api.papers()}["P1"] == C
    # No chunk of the old abstract is left to be found.
    assert all("sheep" not in hit.matched_text for hit in api.search("sheep photographs", k=5).hits)


def test_paper_removed_from_its_file_is_removed(api: Paperchat, tmp_path: Path) -> None:
    path = tmp_path / "list.txt"
    path.write_text(f"List\n\n{A}\n\n{B}\n", encoding="utf-8")
    api.ingest([path])
    path.write_text(f"List\n\n{A}\n", encoding="utf-8")
    report = api.ingest([path])
    assert report.removed == 1 and report.papers == 1
    assert_consistent(api)


def test_edited_untitled_abstract_replaces_the_old_paper(api: Paperchat, tmp_path: Path) -> None:
    path = tmp_path / "list.txt"
    path.write_text(f"List\n\n{A}\n", encoding="utf-8")
    api.ingest([path])
    path.write_text(f"List\n\n{A.replace('sheep', 'goats')}\n", encoding="utf-8")
    report = api.ingest([path])
    assert (report.added, report.removed, report.papers) == (1, 1, 1)
    assert "goats" in api.papers()[0].abstract
    assert_consistent(api)


def test_prune_drops_papers_whose_files_are_gone(api: Paperchat, tmp_path: Path) -> None:
    shutil.copytree(SEEDS, tmp_path / "seeds")
    api.ingest([tmp_path / "seeds"])
    (tmp_path / "seeds" / "004_9c4b2881e11d419b.txt").unlink()
    kept = api.ingest([tmp_path / "seeds"])
    assert kept.removed == 0 and kept.papers == 51  # without --prune nothing is dropped
    pruned = api.ingest([], prune=True)
    assert pruned.removed == 19 and pruned.papers == 32
    assert_consistent(api)
    # Papers also in a surviving list only lose the missing source.
    assert all(Path(s).exists() for p in api.papers() for s in p.sources)


def test_record_ids_and_titles_replace_seed_hash_ids(seeded: Paperchat, tmp_path: Path) -> None:
    seed = load_papers([SEEDS]).papers[0]
    path = write_jsonl(
        tmp_path / "or.jsonl",
        [{"id": "OR-1", "title": "The Real Title", "abstract": seed.abstract.replace(" ", "  ", 5)}, {"id": "OR-2", "abstract": C}],
    )
    report = seeded.ingest([path])
    assert (report.added, report.updated, report.papers) == (1, 1, 52)
    merged = {p.paper_id: p for p in seeded.papers()}["OR-1"]
    assert (merged.title, merged.title_is_generated) == ("The Real Title", False)
    assert len(merged.sources) == len(seed.sources) + 1
    assert seed.paper_id not in {p.paper_id for p in seeded.papers()}
    assert_consistent(seeded)
    # Re-ingesting the seeds afterwards keeps the real id and title.
    again = seeded.ingest([SEEDS])
    assert again.embedded == 0 and again.papers == 52
    assert {p.paper_id: p for p in seeded.papers()}["OR-1"].title == "The Real Title"


def test_killed_ingest_is_completed_without_duplicates(settings: Settings, tmp_path: Path) -> None:
    dying = make_fake_api(settings, HashingEmbeddings(fail_after=titling_texts([SEEDS]) + 40))
    with pytest.raises(KeyboardInterrupt):
        dying.ingest([SEEDS])
    partial = Catalog(settings.catalog_path).count()
    assert 0 < partial < 51  # some batches committed, the rest not

    fresh = make_fake_api(settings, HashingEmbeddings())
    report = fresh.ingest([SEEDS])
    assert report.papers == 51 and report.added == 51 - partial
    assert_consistent(fresh)
    assert fresh.ingest([SEEDS]).embedded == 0


def test_chunks_lost_from_the_store_are_written_again(seeded: Paperchat) -> None:
    entries = list(Catalog(seeded.settings.catalog_path).entries().values())[:2]
    seeded.seams.store().delete([entries[0].chunk_ids()[0], entries[1].chunk_ids()[-1]])
    report = seeded.ingest([SEEDS])
    assert report.embedded == entries[0].n_chunks + entries[1].n_chunks
    assert (report.updated, report.unchanged) == (2, 49)
    assert_consistent(seeded)


def test_orphan_chunks_are_deleted(seeded: Paperchat) -> None:
    from rag.records import Chunk

    seeded.seams.store().upsert([Chunk("ghost#0", "ghost", 0, "orphan text", "orphan text")], {})
    seeded.ingest([SEEDS])
    assert "ghost#0" not in seeded.seams.store().chunk_ids()
    assert_consistent(seeded)


def test_a_field_removed_from_a_record_goes(api: Paperchat, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"id": "P", "title": "FooNet", "abstract": A, "status": "Oral", "url": "https://x.org/p"}])
    api.ingest([path])
    write_jsonl(path, [{"id": "P", "abstract": A}])
    report = api.ingest([path])
    assert report.updated == 1
    paper = api.papers()[0]
    assert (paper.title_is_generated, paper.url, paper.metadata()) == (True, "", {})


def test_metadata_change_updates_filters_without_embedding(api: Paperchat, fake_embeddings: HashingEmbeddings, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"id": "P", "abstract": A, "status": "Poster"}, {"id": "Q", "abstract": B, "status": "Poster"}])
    api.ingest([path])
    before = fake_embeddings.embedded
    write_jsonl(path, [{"id": "P", "abstract": A, "status": "Oral"}, {"id": "Q", "abstract": B, "status": "Poster"}])
    report = api.ingest([path])
    assert (report.updated, report.unchanged, report.embedded, fake_embeddings.embedded) == (1, 1, 0, before)
    assert [h.paper.paper_id for h in api.search("sheep", where={"status": "Oral"}, mode="dense").hits] == ["P"]
    hits = api.seams.store().search_by_vector(fake_embeddings.embed_query(A), k=10, where={"status": "Oral"})
    assert {h.paper_id for h in hits} == {"P"}  # the chunks' own metadata changed too
    write_jsonl(path, [{"id": "P", "abstract": A}, {"id": "Q", "abstract": B, "status": "Poster"}])
    api.ingest([path])
    assert api.seams.store().search_by_vector(fake_embeddings.embed_query(A), k=10, where={"status": "Oral"}) == []


def test_edited_record_and_an_old_copy_elsewhere_both_survive_in_any_order(settings: Settings, tmp_path: Path) -> None:
    listing = tmp_path / "list.txt"
    listing.write_text(f"List\n\n{A}\n", encoding="utf-8")
    records = write_jsonl(tmp_path / "r.jsonl", [{"id": "X", "title": "FooNet", "abstract": A}])
    for number, order in enumerate(([listing, records], [records, listing])):
        api = make_fake_api(settings.model_copy(update={"data_dir": tmp_path / f"data{number}"}), HashingEmbeddings())
        api.ingest([listing, records])
        write_jsonl(records, [{"id": "X", "title": "FooNet", "abstract": C}])
        api.ingest(order)
        abstracts = sorted(p.abstract for p in api.papers())
        assert abstracts == sorted([A, C]), order
        write_jsonl(records, [{"id": "X", "title": "FooNet", "abstract": A}])


def test_alternating_re_ingests_report_no_spurious_updates(seeded: Paperchat, tmp_path: Path) -> None:
    seed = load_papers([SEEDS]).papers[0]
    path = write_jsonl(tmp_path / "or.jsonl", [{"id": "OR-1", "title": "The Real Title", "abstract": seed.abstract}])
    seeded.ingest([path])
    for files in ([SEEDS], [path], [SEEDS], [path]):
        report = seeded.ingest(files)
        assert (report.added, report.updated, report.removed, report.embedded) == (0, 0, 0, 0), files
