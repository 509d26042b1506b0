"""The catalogue under Gradio's worker threads: a reader never sees a writer's rows before they
commit, threads never share a cursor, and `close` ends every connection (issue 17)."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from rag.catalog import Catalog, Entry, catalog_version
from rag.records import Paper


def entry(n: int) -> Entry:
    return Entry(Paper(f"p{n}", f"Abstract {n}.", f"Title {n}", False, abstract_key=f"k{n}"), f"h{n}", 1)


def test_a_reader_sees_only_committed_rows(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    with catalog.transaction() as writer:
        writer.put([entry(0)])
    written, release = threading.Event(), threading.Event()

    def write() -> None:
        with catalog.transaction() as writer:
            writer.put([entry(1), entry(2)])
            written.set()
            release.wait(10)

    thread = threading.Thread(target=write)
    thread.start()
    assert written.wait(10)
    assert catalog.count() == 1 and set(catalog.entries()) == {"p0"}  # the rows in flight are not seen
    release.set()
    thread.join(10)
    assert catalog.count() == 3 and set(catalog.entries()) == {"p0", "p1", "p2"}
    catalog.close()


def test_threads_read_while_one_writes_without_errors(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    errors: list[BaseException] = []
    counts: list[int] = []
    stop = threading.Event()

    def read() -> None:
        try:
            while not stop.is_set():
                counts.append(len(catalog.papers()))
                catalog.entries()
                catalog.chunk_count()
        except BaseException as exc:
            errors.append(exc)

    readers = [threading.Thread(target=read) for _ in range(6)]
    for reader in readers:
        reader.start()
    for n in range(60):
        with catalog.transaction() as writer:
            writer.put([entry(n)])
            if n % 3 == 2:
                writer.delete([f"p{n - 1}"])
    stop.set()
    for reader in readers:
        reader.join(10)
    assert not errors, errors[:3]
    assert counts and max(counts) <= 60
    assert catalog.count() == 40  # 60 written, every third step removed one
    catalog.close()


def test_the_catalogue_is_in_wal_mode_and_closes_every_connection(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    catalog = Catalog(path)
    with catalog.transaction() as writer:
        writer.put([entry(1)])
    seen: list[sqlite3.Connection] = []
    other = threading.Thread(target=lambda: seen.append(catalog._db))  # a second thread's connection
    other.start()
    other.join(10)
    probe = sqlite3.connect(path)
    assert probe.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    probe.close()
    catalog.close()
    with pytest.raises(sqlite3.ProgrammingError):  # closed, though its thread never closed it
        seen[0].execute("SELECT 1")
    assert catalog.count() == 1  # reopened on use after close


def test_connections_of_ended_threads_are_closed(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    for _ in range(50):  # Gradio's workers: threads that come, read and end
        thread = threading.Thread(target=catalog.count)
        thread.start()
        thread.join(10)
    catalog.count()  # this thread's new connection closes the ended threads' ones
    assert catalog.open_connections() <= 2
    catalog.close()


def test_the_version_changes_with_a_commit_and_not_with_a_read(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    assert catalog_version(path) == 0
    catalog = Catalog(path)
    with catalog.transaction() as writer:
        writer.put([entry(1)])
    before = catalog_version(path)
    reader = Catalog(path)  # another connection reading: may create an empty -wal
    reader.count()
    assert catalog_version(path) == before
    time.sleep(0.01)
    with catalog.transaction() as writer:
        writer.put([entry(2)])
    assert catalog_version(path) > before
    reader.close()
    catalog.close()
