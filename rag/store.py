"""The only importer of chromadb and langchain-chroma.

A local persistent store under the data directory by default, or a Chroma server
(`chroma run`) when `PAPERCHAT_CHROMA_URL` is set; both behind the same `ChunkStore`.
Distances become higher-is-better scores here and nowhere else.
"""

from __future__ import annotations

import functools
import logging
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from rag.errors import NoIndexError, PaperchatError, StoreError, disk_full
from rag.records import Chunk, ChunkHit
from rag.store_clients import local_client, server_client
from rag.store_faults import check_segments, damaged_segments, damaged_store, server_failed, unreachable

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from langchain_chroma import Chroma
    from langchain_core.embeddings import Embeddings

    from rag.config import Settings

MODEL_KEY = "embedding_model"
# PAPERCHAT_EMBEDDING_BACKEND the index was built with; an index from before the setting was torch's.
BACKEND_KEY = "embedding_backend"
CATALOG_KEY = "catalog_id"
# Chroma pages `get` internally, but a single huge response from a server is slow to
# decode; 5,000 ids a page keeps each response under ~200 KB.
ID_PAGE_SIZE = 5000

Method = TypeVar("Method", bound=Callable[..., Any])


def _said(method: Method) -> Method:
    """A Chroma server that stopped answers every call with httpx's connection errors ("[Errno 111]
    Connection refused"); they become the StoreError that says what to do. The client opens a new
    connection for each call, so a server that is back is used again without restarting paperchat
    (bench/faults.py measures how soon); a server's own failure (its disk full) says where to look.
    A local store that fails is marked `failed` (its engine hangs on the next call: rag/seams.py
    opens a new one), and says so when its files are damaged or its disk is full."""

    @functools.wraps(method)
    def call(self: ChunkStore, *args: Any, **kwargs: Any) -> Any:
        try:
            with _answering(self.server):
                return method(self, *args, **kwargs)
        except PaperchatError:
            raise
        except Exception as exc:
            if self.folder is None:
                if (failed := server_failed(self.server, exc)) is not None:
                    raise failed from exc
                raise
            self.failed = True
            # Damage first: its words are specific, while a full disk is also Chroma's silent failure on little space.
            if (broken := damaged_store(exc, self.folder)) is not None:
                raise broken from exc
            if (full := disk_full(exc, self.folder)) is not None:
                raise full from exc
            raise

    return cast(Method, call)


@contextmanager
def _answering(server: str) -> Iterator[None]:
    """A server (`server`: its URL; "" for the local store) that did not answer is `unreachable`."""
    try:
        yield
    except Exception as exc:
        import httpx  # chromadb's HTTP client, already loaded when a server was used

        if server and isinstance(exc, httpx.TransportError):
            raise unreachable(server, exc) from exc
        raise


class ChunkStore:
    """Chunks with their vectors; the seam is langchain's `Chroma` vector store. `first_chunks`:
    the store holds only each paper's first so many chunks (None: all of them), and `upsert`
    passes over the rest. `server`: the Chroma server's URL; `folder`: the local store's (one of the two)."""

    def __init__(self, chroma: Chroma, first_chunks: int | None = None, server: str = "", folder: Path | None = None) -> None:
        self._chroma = chroma
        self.first_chunks = first_chunks
        self.server = server
        self.folder = folder
        self.failed = False  # a call to the local engine failed: open a new one (`_said`)

    def close(self) -> None:
        """Release the client. Chroma keeps one engine per local folder for the whole process while
        any client of it is open, and after a failed write (a full disk: "Error in compaction")
        that engine hangs on the next one; the next client of a closed store starts a fresh engine."""
        self._chroma._client.close()  # type: ignore[attr-defined]  # the Rust client has it; chromadb's ClientAPI type does not say so

    def holds(self, chunk_id: str) -> bool:
        """Whether this store keeps the chunk with this id (f"{paper_id}#{index}")."""
        return self.first_chunks is None or _split_id(chunk_id)[1] < self.first_chunks

    @property
    def embeddings(self) -> Embeddings:
        embeddings = self._chroma.embeddings
        assert embeddings is not None, "ChunkStore is always built with an embedding function"
        return embeddings

    @_said
    def upsert(self, chunks: Sequence[Chunk], metadata: Mapping[str, Mapping[str, str | int]]) -> None:
        """Embed and write the chunks this store holds. Ids are stable, so writing a chunk twice leaves one copy."""
        chunks = [c for c in chunks if self.holds(c.chunk_id)]
        if not chunks:
            return
        self._chroma.add_texts(
            texts=[c.embed_text for c in chunks],
            metadatas=[{**metadata.get(c.paper_id, {}), "paper_id": c.paper_id, "chunk": c.index} for c in chunks],
            ids=[c.chunk_id for c in chunks],
        )

    @_said
    def delete(self, chunk_ids: Iterable[str]) -> None:
        ids = list(chunk_ids)
        for start in range(0, len(ids), ID_PAGE_SIZE):
            self._chroma.delete(ids=ids[start : start + ID_PAGE_SIZE])

    @_said
    def chunk_ids(self) -> set[str]:
        ids: set[str] = set()
        offset = 0
        while True:
            page = self._chroma.get(include=[], limit=ID_PAGE_SIZE, offset=offset)["ids"]
            ids.update(page)
            if len(page) < ID_PAGE_SIZE:
                return ids
            offset += ID_PAGE_SIZE

    @_said
    def update_metadata(self, metadata: Mapping[str, Mapping[str, str | int | None]]) -> None:
        """Replace the filterable metadata of existing chunks, without embedding anything."""
        if not metadata:
            return
        ids = list(metadata)
        self._chroma._collection.update(
            ids=ids, metadatas=[{**metadata[i], "paper_id": _split_id(i)[0], "chunk": _split_id(i)[1]} for i in ids]
        )

    @_said
    def count(self) -> int:
        return int(self._chroma._collection.count())

    @_said
    def search_by_vector(
        self, vector: Sequence[float], k: int, where: Mapping[str, Any] | None = None, with_text: bool = True
    ) -> list[ChunkHit]:
        """The k nearest chunks. `with_text=False` skips reading the chunk texts: a hybrid
        search fetches ~150 chunks to rank 10 papers and needs the text of only a few."""
        if k <= 0:
            return []
        if with_text:
            pairs = self._chroma.similarity_search_by_vector_with_relevance_scores(list(vector), k=k, filter=dict(where) if where else None)
            rows = [(str(doc.id), doc.metadata, doc.page_content, float(distance)) for doc, distance in pairs]
        else:
            found = self._chroma._collection.query(
                query_embeddings=[list(vector)],  # type: ignore[arg-type]
                n_results=k,
                where=dict(where) if where else None,
                include=["metadatas", "distances"],
            )
            rows = [
                (str(cid), meta or {}, "", float(distance))
                for cid, meta, distance in zip(found["ids"][0], found["metadatas"][0], found["distances"][0], strict=True)  # type: ignore[index]
            ]
        # The collection uses cosine distance on normalised vectors: distance = 1 - cosine,
        # so 1 - distance is the cosine similarity, in [-1, 1], higher is better.
        return [ChunkHit(chunk_id=cid, paper_id=str(meta.get("paper_id", "")), text=text, score=1.0 - distance) for cid, meta, text, distance in rows]

    @_said
    def paper_vectors(self, paper_ids: Sequence[str] | None = None) -> dict[str, list[float]]:
        """One vector per paper (the normalised mean of its chunks' stored vectors), read from
        the store, not re-embedded: grouping 5,000 papers costs a read, not 10 minutes of MiniLM.
        None: every paper."""
        import numpy as np

        sums: dict[str, Any] = {}
        offset = 0
        while True:
            page: Any = None
            if paper_ids is None:
                page = self._chroma._collection.get(include=["embeddings", "metadatas"], limit=ID_PAGE_SIZE, offset=offset)
            elif wanted := list(paper_ids)[offset : offset + ID_PAGE_SIZE]:
                where: Any = {"paper_id": {"$in": wanted}}
                page = self._chroma._collection.get(where=where, include=["embeddings", "metadatas"])
            if not page or not page["ids"]:
                break
            for meta, vector in zip(page["metadatas"], page["embeddings"], strict=True):  # type: ignore[arg-type]
                paper_id = str((meta or {}).get("paper_id", ""))
                sums[paper_id] = sums.get(paper_id, 0) + np.asarray(vector, dtype=np.float32)
            offset += ID_PAGE_SIZE
            if paper_ids is None and len(page["ids"]) < ID_PAGE_SIZE:
                break
        return {p: (v / (np.linalg.norm(v) or 1.0)).tolist() for p, v in sums.items()}

    @_said
    def texts(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        if not chunk_ids:
            return {}
        found = self._chroma.get(ids=list(chunk_ids), include=["documents"])
        return {str(cid): str(doc) for cid, doc in zip(found["ids"], found["documents"], strict=True)}


def _split_id(chunk_id: str) -> tuple[str, int]:
    """A chunk id (rag/records.Chunk: f"{paper_id}#{index}") as its paper id and index."""
    paper_id, index = chunk_id.rsplit("#", 1)
    return paper_id, int(index)


def refuse_other_vectors(built_with: str, configured: str, description: str) -> None:
    """Backends whose vectors agree (rag/encoders.FAMILY) may search each other's index; int8 and
    float vectors differ enough to rank wrongly, so that mix is refused with the way out."""
    from rag.encoders import FAMILY

    if FAMILY.get(built_with, built_with) != FAMILY.get(configured, configured):
        raise StoreError(
            f"The index in {description} was built with PAPERCHAT_EMBEDDING_BACKEND={built_with}, whose vectors differ from "
            f"{configured}'s enough to rank papers wrongly. Set PAPERCHAT_EMBEDDING_BACKEND={built_with} back, or rebuild the index "
            f"with {configured}: a new PAPERCHAT_DATA_DIR (or a new PAPERCHAT_COLLECTION), then `paperchat ingest` again."
        )


def multilingual_collection(settings: Settings) -> str:
    """The collection holding the same chunks embedded by the multilingual model (rag/multilingual.py)."""
    return f"{settings.collection}-multilingual"


def drop_collection(settings: Settings, name: str) -> None:
    """Delete a collection of this store, if it exists (and the store does)."""
    from chromadb.errors import NotFoundError

    if settings.chroma_url:
        client: Any = server_client(settings)
    elif settings.chroma_dir.exists():
        check_segments(settings.chroma_dir)
        client = local_client(settings.chroma_dir)
    else:
        return
    try:
        with _answering(settings.chroma_url), suppress(NotFoundError, ValueError):  # never made: nothing to delete
            client.delete_collection(name)
    finally:
        client.close()  # an open client keeps the folder's engine alive (ChunkStore.close says why that matters)


def remove_damage(settings: Settings) -> None:
    """Before a rebuild (`paperchat ingest --rebuild`): delete what of a local store is damaged, so
    the rebuild starts clean: a vector segment Chroma's engine would crash on, or the whole folder
    when Chroma cannot open it at all (its other collections could not be read either)."""
    if settings.chroma_url or not settings.chroma_dir.exists():
        return
    for segment, reason in damaged_segments(settings.chroma_dir):
        log.warning("Deleting the damaged vector segment %s (%s)", segment, reason)
        shutil.rmtree(segment)
    try:
        local_client(settings.chroma_dir).close()
    except StoreError as exc:
        log.warning("Deleting the Chroma folder %s, which cannot be opened: %s", settings.chroma_dir, exc)
        shutil.rmtree(settings.chroma_dir)


def make_store(
    settings: Settings,
    embeddings: Embeddings,
    model: str,
    create: bool = True,
    catalog_id: str | None = None,
    collection: str | None = None,
    first_chunks: int | None = None,
    backend: str | None = None,
) -> ChunkStore:
    """Build the store from settings. `create=False` (search, papers) fails with the fix when no index exists.
    `collection`: another collection than settings.collection, in the same place (the multilingual channel's);
    `first_chunks`: see `ChunkStore`; `backend`: the embedding backend, recorded and checked (None: neither)."""
    from langchain_chroma import Chroma

    name = collection or settings.collection
    if settings.chroma_url:
        description = f"Chroma server {settings.chroma_url} (collection {name})"
        client: Any = server_client(settings)
    else:
        path = settings.chroma_dir
        if not create and not path.exists():
            raise NoIndexError(str(settings.data_dir))
        path.mkdir(parents=True, exist_ok=True)
        description = f"Chroma at {path} (collection {name})"
        check_segments(path)
        client = local_client(path)
    try:
        with _answering(settings.chroma_url):
            _check_collection(client, settings, name, description, model, create, catalog_id, backend)
    except Exception as exc:
        client.close()  # refused, or not reachable: nothing keeps this client
        if not settings.chroma_url and (broken := damaged_store(exc, settings.chroma_dir)) is not None:
            raise broken from exc
        raise
    chroma = Chroma(client=client, collection_name=name, embedding_function=embeddings)
    return ChunkStore(chroma, first_chunks, settings.chroma_url, None if settings.chroma_url else settings.chroma_dir)


def _check_collection(
    client: Any, settings: Settings, name: str, description: str, model: str, create: bool, catalog_id: str | None, backend: str | None
) -> None:
    """The collection exists (made when `create`), was filled from this catalogue, by this model and a
    backend whose vectors agree with `backend`'s."""
    from chromadb.errors import NotFoundError

    try:
        found = client.get_collection(name)
    except (NotFoundError, ValueError) as exc:
        if not create:
            raise NoIndexError(str(settings.data_dir)) from exc
        metadata = {MODEL_KEY: model, **({CATALOG_KEY: catalog_id} if catalog_id else {}), **({BACKEND_KEY: backend} if backend else {})}
        found = client.create_collection(name, metadata=metadata, configuration={"hnsw": {"space": "cosine"}})
    owner = (found.metadata or {}).get(CATALOG_KEY)
    if catalog_id and owner and owner != catalog_id:
        raise StoreError(
            f"The collection {name!r} in {description} was filled from another paper catalogue "
            f"(another machine or data directory than {settings.data_dir}). Use that data directory, or set "
            "PAPERCHAT_COLLECTION to a collection of your own; paperchat will not touch another catalogue's chunks."
        )
    built_with = (found.metadata or {}).get(MODEL_KEY)
    if built_with != model:
        raise StoreError(
            f"The index in {description} was built with the embedding model {built_with!r}, "
            f"but {model!r} is configured. Set PAPERCHAT_EMBEDDING_MODEL back, or use a new "
            "PAPERCHAT_COLLECTION (or a new PAPERCHAT_DATA_DIR) and ingest again."
        )
    if backend:
        refuse_other_vectors(str((found.metadata or {}).get(BACKEND_KEY, "torch")), backend, description)
