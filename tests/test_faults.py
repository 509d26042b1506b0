"""Fault runs (issue 17), the short forms of bench/faults.py: an ingest SIGKILLed at random points,
`paperchat serve` SIGKILLed during an upload, a Chroma server stopped and started again under
searches, a full disk during an ingest, a damaged BM25 folder and catalogue. Each says what
happened and what to do, loses no indexed paper, and comes back without restarting paperchat
(the full runs and their figures: bench/RESULTS.md, "Issue 17, faults")."""

from __future__ import annotations

import errno
import logging
from pathlib import Path
from typing import Any

import pytest

from bench.faults import (
    STORE_DAMAGE,
    can_mount,
    chroma_outage_run,
    damage_run,
    disk_full_run,
    kill_ingest_run,
    serve_kill_run,
    server_disk_full_run,
    store_damage_run,
)
from rag import cli
from rag.api import Paperchat
from rag.chunking import approx_token_counts
from rag.config import Settings
from rag.errors import DiskFullError, StoreError, disk_full
from tests.conftest import ICLR, SEEDS, titling_texts
from tests.fakes import HashingEmbeddings

# The runs read ICLR records and start real processes (the bundled model, `chroma run`) or mount a tmpfs.
needs_iclr = pytest.mark.skipif(not ICLR.exists(), reason="needs ../shared/data/iclr2026/papers.jsonl")

# The processes the short forms start: no multilingual channel (its encoder would double each
# process's start and embedding time), the language model off (as in bench/faults.py).
QUICK = {"PAPERCHAT_MULTILINGUAL": "false"}


def fake_seams(embeddings: HashingEmbeddings | None = None) -> dict[str, Any]:
    return {"embeddings": embeddings or HashingEmbeddings(), "model": "hashing-512", "count_tokens": approx_token_counts, "max_tokens": 256, "chat": None}


@pytest.mark.integration
@needs_iclr
def test_an_ingest_killed_at_random_points_loses_nothing_and_the_next_ingest_completes_it(tmp_path: Path) -> None:
    points, answers = kill_ingest_run(tmp_path, papers=28, kills=3, seed=17, extra=QUICK)
    assert len(points) == 3
    for point in points:
        assert point.lost == 0, point
        assert point.at_kill >= point.before, point
        assert point.agrees and point.completed == point.target, point  # store, BM25 and catalogue hold the same papers
    assert answers == {"search_finds_it": True, "ask_cites_it": True}


@pytest.mark.integration
@needs_iclr
def test_serve_killed_during_an_upload_restarts_serving_every_committed_paper(tmp_path: Path) -> None:
    result = serve_kill_run(tmp_path, base=10, upload=16, extra=QUICK)
    assert result.lost == 0 and result.at_kill >= result.base
    assert result.served == result.at_kill  # every paper the catalogue holds is found by its title
    assert result.completed == result.base + result.upload and result.agrees  # the same upload again completes it


@pytest.mark.integration
@needs_iclr
def test_a_chroma_server_that_stops_is_named_with_what_to_do_and_searches_recover_by_themselves(tmp_path: Path) -> None:
    result = chroma_outage_run(tmp_path, papers=24, outage_s=2.0, seams=fake_seams())
    assert result.searches_failed and not result.other_errors, result.other_errors
    assert result.messages and all("is unreachable" in m and "chroma run" in m and "PAPERCHAT_CHROMA_URL" in m for m in result.messages)
    assert any("Connection refused" in m for m in result.messages)  # the reason stays, beside what to do
    assert "is unreachable" in result.ingest_during_outage and "continues where it left off" in result.ingest_during_outage
    assert result.recovery_s < 5.0, result  # the same Paperchat, not restarted
    assert result.agrees_after


@pytest.mark.integration
@needs_iclr
def test_a_full_disk_stops_an_ingest_saying_so_and_keeps_every_paper(tmp_path: Path) -> None:
    if not can_mount(tmp_path):
        pytest.skip("mounting a size-limited tmpfs needs root; test_a_write_failing_with_enospc_is_said_as_a_full_disk covers the message")
    result = disk_full_run(tmp_path, papers=30, more=60, seams=fake_seams())
    assert "is full" in result.message and "free some space" in result.message and "paperchat ingest" in result.message, result.message
    assert result.lost == 0 and result.after_failure >= result.before
    assert result.search_while_full == "answers" or "is full" in result.search_while_full  # Chroma compacts its log before a query
    assert result.searchable  # space freed: the same Paperchat searches again
    assert result.completed == 90 and result.agrees  # space freed: the same Paperchat ingests the rest


@pytest.mark.parametrize("while_titling", [False, True])
def test_a_write_failing_with_enospc_is_said_as_a_full_disk(settings: Settings, while_titling: bool) -> None:
    # Without root (no tmpfs): the OS error a full disk gives, raised while a batch is written (after
    # the seeds' generated titles asked the model for their subject phrases), or while they did (the
    # model's first use exports it under the data folder).
    fail_after = 0 if while_titling else titling_texts([SEEDS]) + 20
    api = Paperchat(settings, **fake_seams(HashingEmbeddings(fail_after=fail_after, failure=OSError(errno.ENOSPC, "No space left on device"))))
    with pytest.raises(DiskFullError, match=r"is full .*No space left on device.*Nothing indexed is lost: free some space, then run `paperchat ingest` again"):
        api.ingest([SEEDS])
    kept = api.papers() if api.corpus_version() else []
    assert (not kept) if while_titling else (kept and len(kept) < 51)  # the batches committed before the failure are kept


@pytest.mark.integration
@needs_iclr
def test_a_damaged_bm25_folder_is_rebuilt_and_a_damaged_catalogue_says_how_to_rebuild(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    def rebuild(settings: Settings, records: Path) -> None:
        # `paperchat ingest --rebuild`, with the fake-embedder API (as tests/test_cli.py does).
        monkeypatch.setattr(cli, "_api", lambda: Paperchat(settings, **fake_seams()))
        result = CliRunner().invoke(cli.app, ["ingest", "--rebuild", str(records), "--json"])
        assert result.exit_code == 0, result.output

    with caplog.at_level(logging.WARNING, logger="rag.lexical"):
        result = damage_run(tmp_path, papers=30, seams=fake_seams(), rebuild=rebuild)
    assert result.bm25_search_works and result.bm25_rebuilt
    assert "BM25 index" in caplog.text and "rebuilt from the catalogue" in caplog.text and caplog.text.count("is damaged") == 1
    message = result.catalogue_message
    assert "catalogue" in message and "is damaged (file is not a database)" in message and "paperchat ingest --rebuild" in message, message
    assert result.rebuilt_papers == 30 and result.agrees


@pytest.mark.integration
@needs_iclr
@pytest.mark.parametrize("shape", STORE_DAMAGE)
def test_a_damaged_chroma_folder_says_how_to_rebuild_and_the_rebuild_restores_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str) -> None:
    from typer.testing import CliRunner

    def rebuild(settings: Settings, records: Path) -> None:
        monkeypatch.setattr(cli, "_api", lambda: Paperchat(settings, **fake_seams()))
        result = CliRunner().invoke(cli.app, ["ingest", "--rebuild", str(records), "--json"])
        assert result.exit_code == 0, result.output

    # 700 papers: about 1,250 chunks, past the ~1,000 at which Chroma first writes a vector segment.
    result = store_damage_run(tmp_path, 700, shape, seams=fake_seams(), rebuild=rebuild)
    for said in (result.message, result.ingest_message):
        # Never a crash (a truncated segment took the process down with SIGSEGV) nor Chroma's bare words.
        assert "vector store" in said and "is damaged" in said and "paperchat ingest --rebuild" in said, said
    assert result.rebuilt_papers == 700 and result.agrees
    # Chroma's HNSW search is approximate and the fake vectors of tests/fakes.py collide now and then: after
    # the rebuild, runs here found 199 or 200 of 200 first (the bundled model: 200). A lost vector is never found.
    found, sampled = map(int, result.found_by_own_vector.split("/"))
    assert sampled == 200 and found >= 195, result.found_by_own_vector


@pytest.mark.integration
@needs_iclr
def test_a_chroma_server_whose_disk_fills_says_what_to_look_at_and_loses_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rag.store_clients

    if not can_mount(tmp_path):
        pytest.skip("mounting a size-limited tmpfs needs root")
    # The server can hang after the failed write (then paperchat's bounded wait ends, the bench restarts
    # it): a shorter bound than the shipped 120 s keeps the test short.
    monkeypatch.setattr(rag.store_clients, "SERVER_TIMEOUT_S", 10.0)
    result = server_disk_full_run(tmp_path, papers=60, more=60, seams=fake_seams())
    message = result.message
    assert "The Chroma server at" in message and "Error in compaction" in message and "free space where `chroma run --path`" in message, message
    assert "Nothing indexed is lost" in message and "paperchat ingest" in message
    assert result.lost == 0 and result.after_failure >= result.before
    assert result.search_while_full == "answers"  # reads still work on a full server
    assert result.after_freeing == "completed" or ("does not answer" in result.after_freeing and "restart it" in result.after_freeing)
    assert result.completed == 120 and result.agrees  # space freed: the same Paperchat ingests the rest


def test_only_the_disk_or_chromas_silent_failure_is_said_as_a_full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rag.errors

    class InternalError(Exception):  # Chroma's engine error type, by name, as rag.errors reads it
        pass

    monkeypatch.setattr(rag.errors, "_free_bytes", lambda folder: 10 * 1024 * 1024)  # 10 MB free
    assert disk_full(InternalError("Error in compaction: Failed to apply logs to the metadata segment"), tmp_path) is not None
    assert disk_full(OSError(errno.ENOSPC, "No space left on device"), tmp_path) is not None
    assert disk_full(ValueError("a bug, not the disk"), tmp_path) is None  # said as itself, even with little space left
    monkeypatch.setattr(rag.errors, "_free_bytes", lambda folder: 10 * 1024**3)
    assert disk_full(InternalError("Error in compaction"), tmp_path) is None  # plenty of space: not the disk


def test_a_chroma_server_that_accepts_but_never_answers_is_said_within_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket
    import threading
    import time

    import rag.store_clients

    monkeypatch.setattr(rag.store_clients, "SERVER_TIMEOUT_S", 1.0)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[object] = []  # accepted connections, kept open and never answered (a hung `chroma run`)
    threading.Thread(target=lambda: [held.append(listener.accept()) for _ in range(8)], daemon=True).start()
    began = time.monotonic()
    try:
        with pytest.raises(StoreError, match=r"unreachable \(ReadTimeout.*restart it if it runs but does not answer"):
            rag.store_clients.server_client(Settings(chroma_url=f"http://127.0.0.1:{listener.getsockname()[1]}", _env_file=None))  # type: ignore[call-arg]
    finally:
        listener.close()
    assert time.monotonic() - began < 10  # chromadb's own client would wait for ever


def _segment(folder: Path, elements: int, record_bytes: int, data_records: int, length_records: int) -> Path:
    """A vector segment as hnswlib writes it: header.bin (version 1, offsetLevel0, max_elements,
    cur_element_count, size_data_per_element, then the rest of its 100 bytes), data_level0.bin, length.bin."""
    import struct

    segment = folder / "segment"
    segment.mkdir(parents=True, exist_ok=True)
    (segment / "header.bin").write_bytes(struct.pack("<IQQQQ", 1, 0, 2 * elements, elements, record_bytes).ljust(100, b"\0"))
    (segment / "data_level0.bin").write_bytes(b"\0" * data_records * record_bytes)
    (segment / "length.bin").write_bytes(b"\0" * length_records * 4)
    return segment


def test_a_cut_short_vector_segment_is_found_and_one_being_written_is_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    import rag.store_faults as faults

    monkeypatch.setattr(faults, "SETTLE_S", 0.2)
    healthy = tmp_path / "healthy"
    _segment(healthy, elements=10, record_bytes=16, data_records=20, length_records=20)  # allocated up to max_elements
    assert faults.damaged_segments(healthy) == []
    faults.check_segments(healthy)
    cut = tmp_path / "cut"
    _segment(cut, elements=10, record_bytes=16, data_records=3, length_records=10)
    (found,) = faults.damaged_segments(cut)
    assert "data_level0.bin is 48 bytes; its header says 10 records of 16 bytes" in found[1]
    with pytest.raises(StoreError, match=r"vector store .* is damaged .*paperchat ingest --rebuild"):
        faults.check_segments(cut)
    # Another process writing: the header is ahead of the data for a moment, then the data lands.
    writing = tmp_path / "writing"
    segment = _segment(writing, elements=10, record_bytes=16, data_records=5, length_records=10)
    threading.Timer(0.1, lambda: (segment / "data_level0.bin").write_bytes(b"\0" * 160)).start()
    faults.check_segments(writing)  # no error: it settled into agreement
