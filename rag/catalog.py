"""The paper catalogue: what is indexed, as one SQLite file under the data directory.

It is the commit record of an ingest. Chunks are written to the store first and a paper's
row is committed after them, so a killed ingest leaves at worst chunks without a row, which
the next ingest finds (`index.sync` compares the two) and writes again under the same ids.
SQLite because a batch of rows must commit atomically; the standard library has it.

Gradio serves each request on a worker thread, and an upload writes while searches read: each
thread gets its own connection, in WAL mode, so a reader sees the last committed catalogue and never
a writer's rows before they commit, and no two threads share a cursor. `close` ends them all.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from rag.records import Paper

SCHEMA = """
CREATE TABLE IF NOT EXISTS papers (
    paper_id     TEXT PRIMARY KEY,
    abstract_key TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    n_chunks     INTEGER NOT NULL,
    record       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS papers_abstract_key ON papers(abstract_key);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass(frozen=True)
class Entry:
    paper: Paper
    content_hash: str  # of everything that goes into the paper's chunks and their metadata
    n_chunks: int

    def chunk_ids(self) -> list[str]:
        return [f"{self.paper.paper_id}#{i}" for i in range(self.n_chunks)]


# How long a connection waits for another's write to commit before it gives up (SQLite's own retry).
BUSY_TIMEOUT_S = 30.0


class Catalog:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._guard = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._db.execute("PRAGMA journal_mode=WAL")  # kept in the file: every later connection reads in WAL
        self._db.executescript(SCHEMA)
        with self._db:
            self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('catalog_id', ?)", (uuid.uuid4().hex,))
        # Written into the Chroma collection this catalogue fills, so that a second catalogue
        # (another machine, a wiped data dir) never treats that collection's chunks as orphans.
        self.catalog_id: str = self._db.execute("SELECT value FROM meta WHERE key = 'catalog_id'").fetchone()[0]

    @property
    def _db(self) -> sqlite3.Connection:
        """This thread's connection, opened on its first use."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            # check_same_thread off only so that `close` may end it from another thread; no other
            # thread ever uses it.
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
            self._local.db = db
            with self._guard:
                self._connections.append(db)
        return db

    def close(self) -> None:
        """End every thread's connection (at shutdown); a later call opens a new one."""
        with self._guard:
            connections, self._connections = self._connections, []
        for db in connections:
            db.close()
        self._local = threading.local()

    def entries(self) -> dict[str, Entry]:
        rows = self._db.execute("SELECT record, content_hash, n_chunks FROM papers ORDER BY rowid")
        return {e.paper.paper_id: e for e in (Entry(paper_from_json(r), h, n) for r, h, n in rows)}

    def papers(self) -> list[Paper]:
        return [paper_from_json(r) for (r,) in self._db.execute("SELECT record FROM papers ORDER BY rowid")]

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM papers").fetchone()[0])

    def chunk_count(self) -> int:
        return int(self._db.execute("SELECT COALESCE(SUM(n_chunks), 0) FROM papers").fetchone()[0])

    @contextmanager
    def transaction(self) -> Iterator[_Writer]:
        """Everything written inside commits together, or not at all."""
        with self._db:
            yield _Writer(self._db)


class _Writer:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def put(self, entries: Iterable[Entry]) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO papers (paper_id, abstract_key, content_hash, n_chunks, record) VALUES (?, ?, ?, ?, ?)",
            [(e.paper.paper_id, e.paper.abstract_key, e.content_hash, e.n_chunks, paper_to_json(e.paper)) for e in entries],
        )

    def delete(self, paper_ids: Iterable[str]) -> None:
        self._db.executemany("DELETE FROM papers WHERE paper_id = ?", [(i,) for i in paper_ids])


def catalog_version(path: Path) -> int:
    """A number that changes whenever a commit changes the catalogue at `path`, in this process or
    another; 0 with none. In WAL mode a commit writes the "-wal" file, and the main file changes
    only when that is checkpointed: either changing is a new version."""
    files = [f for f in (path, path.with_name(path.name + "-wal")) if f.exists()]
    return max((f.stat().st_mtime_ns for f in files), default=0)


def paper_to_json(paper: Paper) -> str:
    return json.dumps(asdict(paper), ensure_ascii=False)


def paper_from_json(text: str) -> Paper:
    data = json.loads(text)
    for key in ("sources", "authors", "keywords"):
        data[key] = tuple(data.get(key, ()))
    data["extra"] = tuple((k, v) for k, v in data.get("extra", ()))
    return Paper(**data)
