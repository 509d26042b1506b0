"""The store's faults said with what to do: a Chroma server that does not answer or fails a write,
a damaged local folder (found before Chroma's engine crashes on it)."""

from __future__ import annotations

import re
import struct
import time
from pathlib import Path

from rag.errors import StoreError, damaged, is_chroma_internal

# What Chroma's local engine says when its files are damaged: SQLite's own words for a file that is
# not (or no longer) a database, and the engine's for a vector segment it cannot read.
_DAMAGED_ENGINE = re.compile(r"file is not a database|database disk image is malformed|Error loading hnsw index|Error finding id")
SETTLE_S = 1.0
SETTLE_READS = 5
_HNSW_HEADER = struct.Struct("<IQQQQ")  # hnswlib's header.bin: version, offsetLevel0, max_elements, cur_element_count, size_data_per_element


def unreachable(url: str, exc: BaseException) -> StoreError:
    """The error for a Chroma server that does not answer: where, why, and what to do."""
    return StoreError(
        f"The Chroma server at {url} is unreachable ({type(exc).__name__}: {exc}). Start it (`chroma run --path DIR --port PORT`), "
        "or restart it if it runs but does not answer (one that failed a write can hang), or check PAPERCHAT_CHROMA_URL; "
        "paperchat reconnects by itself once the server answers, and an ingest it stopped continues where it left off when run again."
    )


def server_failed(url: str, exc: BaseException) -> StoreError | None:
    """A Chroma server's own failure (its InternalError) as the StoreError that says what to look at.
    A server whose disk is full says only "Error in compaction: Failed to apply logs to the metadata
    segment" (bench/faults.py, store-server-disk), and its free space cannot be read from here."""
    if not is_chroma_internal(exc):
        return None
    return StoreError(
        f"The Chroma server at {url} failed ({type(exc).__name__}: {exc}). If its disk is full (Chroma says so only as "
        "'Error in compaction'), free space where `chroma run --path` keeps its data; its log says more. Nothing indexed "
        "is lost, and `paperchat ingest` (or the upload) run again continues where it stopped."
    )


def damaged_store(exc: BaseException, folder: Path) -> StoreError | None:
    """`exc` from the local Chroma engine as the StoreError that says how to rebuild, when it says the files are damaged."""
    if not _DAMAGED_ENGINE.search(str(exc)):
        return None
    return StoreError(damaged("vector store", folder, f"{type(exc).__name__}: {exc}", folder.parent))


def check_segments(folder: Path) -> None:
    """Refuse a local store whose vector segment files disagree with their own header: Chroma's engine
    crashes the whole process (SIGSEGV, exit 139) on a truncated segment instead of raising
    (chroma-core/chroma#7238), so this is checked before it opens one. hnswlib writes a segment's
    header before its data, so a segment another process is writing can disagree for a moment: it
    is called damaged only when two reads SETTLE_S apart find the same disagreement (up to
    SETTLE_READS reads while what they find keeps changing)."""
    seen = damaged_segments(folder)
    for _ in range(SETTLE_READS - 1):
        if not seen:
            return
        time.sleep(SETTLE_S)
        again = damaged_segments(folder)
        if again == seen:
            break
        seen = again
    for _, reason in seen[:1]:
        raise StoreError(damaged("vector store", folder, reason, folder.parent))


def damaged_segments(folder: Path) -> list[tuple[Path, str]]:
    """The vector segment folders of a local store whose files disagree with their header, and how:
    hnswlib's data_level0.bin holds at least cur_element_count records of size_data_per_element bytes
    (up to max_elements, as allocated), and length.bin 4 bytes for each. A header of another version
    is not judged."""
    found: list[tuple[Path, str]] = []
    for header in folder.glob("*/header.bin"):
        try:
            raw = header.read_bytes()
        except FileNotFoundError:  # a segment another process's engine replaced meanwhile
            continue
        if len(raw) < _HNSW_HEADER.size:
            found.append((header.parent, f"{header} holds {len(raw)} bytes"))
            continue
        version, _, _, elements, record_bytes = _HNSW_HEADER.unpack_from(raw)
        # length.bin holds one 4-byte float per element.
        for name, record in (("data_level0.bin", record_bytes), ("length.bin", 4)):
            part = header.with_name(name)
            try:
                actual = part.stat().st_size
            except FileNotFoundError:
                actual = -1
            if version == 1 and record and (actual < elements * record or actual % record):
                said = "missing" if actual < 0 else f"{actual:,} bytes"
                found.append((header.parent, f"{part} is {said}; its header says {elements:,} records of {record:,} bytes"))
                break
    return found
