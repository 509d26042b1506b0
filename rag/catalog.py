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

from rag.errors import CatalogError, damaged
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
# SQLite's codes for a file that is not a database (overwritten, truncated to garbage) and for one
# whose pages are damaged. A full disk or a lock is another code, and another message.
_DAMAGED = {sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT}


@contextmanager
def _intact(path: Path) -> Iterator[None]:
    """A damaged catalogue file is a CatalogError that says how to rebuild the index."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if (exc.sqlite_errorcode & 0xFF) not in _DAMAGED:  # the low byte: the primary code of an extended one
            raise
        raise CatalogError(damaged("paper catalogue", path, str(exc), path.parent)) from exc


class Catalog:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._guard = threading.Lock()
        self._connections: dict[threading.Thread, sqlite3.Connection] = {}
        with _intact(path):
            self._db.execute("PRAGMA journal_mode=WAL")  # kept in the file: every later connection reads in WAL
            self._db.executescript(SCHEMA)
            with self._db:
                self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('catalog_id', ?)", (uuid.uuid4().hex,))
            # Written into the Chroma collection this catalogue fills, so that a second catalogue
            # (another machine, a wiped data dir) never treats that collection's chunks as orphans.
            self.catalog_id: str = self._db.execute("SELECT value FROM meta WHERE key = 'catalog_id'").fetchone()[0]

    @property
    def _db(self) -> sqlite3.Connection:
        """This thread's connection, opened on its first use. Gradio's worker threads come and go
        (anyio retires an idle one after 10 s): a new connection closes those of ended threads."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            # check_same_thread off only so that another thread may close it once its own has
            # ended (or at shutdown); no two threads ever use it at once.
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
            self._local.db = db
            with self._guard:
                ended = [thread for thread in self._connections if not thread.is_alive()]
                for thread in ended:
                    self._connections.pop(thread).close()
                self._connections[threading.current_thread()] = db
        return db

    def open_connections(self) -> int:
        """How many connections are open (one per live thread that used the catalogue)."""
        with self._guard:
            return len(self._connections)

    def close(self) -> None:
        """End every thread's connection (at shutdown); a later call opens a new one."""
        with self._guard:
            connections, self._connections = list(self._connections.values()), {}
        for db in connections:
            db.close()
        self._local = threading.local()

    def entries(self) -> dict[str, Entry]:
        with _intact(self.path):
            rows = self._db.execute("SELECT record, content_hash, n_chunks FROM papers ORDER BY rowid").fetchall()
        return {e.paper.paper_id: e for e in (Entry(paper_from_json(r), h, n) for r, h, n in rows)}

    def papers(self) -> list[Paper]:
        with _intact(self.path):
            rows = self._db.execute("SELECT record FROM papers ORDER BY rowid").fetchall()
        return [paper_from_json(r) for (r,) in rows]

    def indexed_paper(self, abstract_key: str) -> Paper | None:
        """The indexed paper with this abstract (one with a real title first), if there is one."""
        with _intact(self.path):
            rows = self._db.execute("SELECT record FROM papers WHERE abstract_key = ?", (abstract_key,)).fetchall()
        return min(map(paper_from_json, (r for (r,) in rows)), key=lambda p: p.title_is_generated, default=None)

    def count(self) -> int:
        with _intact(self.path):
            return int(self._db.execute("SELECT COUNT(*) FROM papers").fetchone()[0])

    def chunk_count(self) -> int:
        with _intact(self.path):
            return int(self._db.execute("SELECT COALESCE(SUM(n_chunks), 0) FROM papers").fetchone()[0])

    @contextmanager
    def transaction(self) -> Iterator[_Writer]:
        """Everything written inside commits together, or not at all."""
        with _intact(self.path), self._db:
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
    only when that is checkpointed: either changing is a new version. A reader creates an empty
    "-wal": that is no change. (Read from the files' times, so a filesystem with coarse times could
    give two commits in one tick one version; ext4 and XFS keep nanoseconds.)"""
    if not path.exists():
        return 0
    wal = path.with_name(path.name + "-wal")
    written = wal.stat() if wal.exists() else None
    return max(path.stat().st_mtime_ns, written.st_mtime_ns if written and written.st_size else 0)


def paper_to_json(paper: Paper) -> str:
    return json.dumps(asdict(paper), ensure_ascii=False)


def paper_from_json(text: str) -> Paper:
    data = json.loads(text)
    for key in ("sources", "authors", "keywords"):
        data[key] = tuple(data.get(key, ()))
    data["extra"] = tuple((k, v) for k, v in data.get("extra", ()))
    return Paper(**data)
