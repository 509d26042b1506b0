"""Exceptions whose message names the fix. The CLI prints the message and exits 1."""

from __future__ import annotations

import errno
import logging
import shutil
import sqlite3
from pathlib import Path

log = logging.getLogger(__name__)

# Below this much free space, a failed write is said to have filled the disk: Chroma's engine
# reports a full disk only as "Error in compaction: Failed to apply logs to the metadata segment"
# (or "Error executing plan: ... backfill ..." for a query), without the OS error, and a 512-chunk
# batch with Chroma's log and compaction copies needs a few MB (the 51 seeds, as 512-dimensional
# vectors, take 2.1 MB on disk with their catalogue and BM25 index).
LOW_SPACE_BYTES = 64 * 1024 * 1024


class PaperchatError(Exception):
    """A user-facing error: the message says what happened and what to do."""


class NoIndexError(PaperchatError):
    def __init__(self, data_dir: str) -> None:
        super().__init__(f"No index in {data_dir}/; run `paperchat ingest` first.")


class EmbeddingModelError(PaperchatError):
    """The configured embedding model is missing or unusable (we never download one)."""


class StoreError(PaperchatError):
    """The vector store is unreachable or holds an index made with another model."""


class LLMError(PaperchatError):
    """The configured language model is missing, misconfigured or unreachable (we never download one)."""


class IdClashError(PaperchatError):
    """An ingest that may only add papers met a record that would rewrite an indexed one."""


class DiskFullError(PaperchatError):
    """A write (an ingest, or the store's own upkeep before a search) failed because the disk holding the index is full."""


def disk_full(exc: BaseException, folder: Path) -> DiskFullError | None:
    """`exc` as a DiskFullError when the disk holding `folder` is full: the OS or SQLite says so, or
    Chroma's engine failed (it never says why) with little space left. None otherwise: a bug met
    on a nearly full disk is not said to be the disk."""
    free = _free_bytes(folder)
    if not _says_disk_full(exc) and (free >= LOW_SPACE_BYTES or not is_chroma_internal(exc)):
        return None
    return DiskFullError(
        f"The disk holding {folder} is full ({free / 1e6:.1f} MB free; {type(exc).__name__}: {exc}). Nothing indexed is lost: "
        "free some space, then run `paperchat ingest` again (or upload the file again) to continue where it stopped; "
        "searches work again as soon as there is space."
    )


def is_chroma_internal(exc: BaseException) -> bool:
    """Chroma's engine error, which never says why it failed (read by name: chromadb is imported
    only where a store is opened)."""
    return type(exc).__name__ == "InternalError"


def _says_disk_full(exc: BaseException) -> bool:
    """Whether `exc` or an error behind it is a full disk as the OS (ENOSPC, a quota) or SQLite says it."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if isinstance(seen, sqlite3.OperationalError) and (seen.sqlite_errorcode & 0xFF) == sqlite3.SQLITE_FULL:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _free_bytes(folder: Path) -> int:
    for where in (folder, *folder.parents):  # the folder itself may not exist yet
        try:
            return shutil.disk_usage(where).free
        except OSError as exc:
            log.debug("No free space for %s: %s", where, exc)
    return LOW_SPACE_BYTES


class CatalogError(PaperchatError):
    """The paper catalogue (the SQLite commit record) is damaged or not a catalogue."""


def uploads_dir(data_dir: Path) -> Path:
    """Where the app keeps uploaded files: kept through `ingest --rebuild`, to be ingested again."""
    return data_dir / "uploads"


def damaged(what: str, path: Path, reason: str, data_dir: Path) -> str:
    """What to do about a damaged part of the index (the catalogue, the vector store): the one way
    back, the same for each."""
    return (
        f"The {what} {path} is damaged ({reason}), so the index cannot be read. Rebuild it: stop `paperchat serve` "
        "if it runs, then `paperchat ingest --rebuild PATH ...` with the files you had ingested (the app's uploads are kept "
        f"in {uploads_dir(data_dir)}); every paper is embedded again."
    )
