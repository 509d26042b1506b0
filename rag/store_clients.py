"""Chroma clients: of the local folder or of a server, opened with their faults said (rag/store_faults.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from rag.errors import StoreError
from rag.store_faults import damaged_store, unreachable

if TYPE_CHECKING:
    from rag.config import Settings

# How long a Chroma server may take to answer one request (a 512-chunk write takes a few seconds),
# and to accept a connection.
SERVER_TIMEOUT_S = 120.0
SERVER_CONNECT_TIMEOUT_S = 10.0


def forget_local_clients() -> None:
    """Make the next local client load the index from disk: Chroma caches one client per folder
    in the process, and its vector index never sees another process's writes (rag/seams.py,
    `Seams.catch_up`). Requests still searching through an old client finish with it. The old
    client and its loaded index hang in reference cycles: collected here (else each reopening
    kept ~12 MB a 2,283-chunk index until Python's rare full collection; measured in a loop of 12)."""
    import gc

    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient.clear_system_cache()
    gc.collect()


def local_client(path: Path) -> Any:
    """A client of the local Chroma folder `path`; damaged files are the StoreError that says how to rebuild."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    try:
        return chromadb.PersistentClient(path=str(path), settings=ChromaSettings(anonymized_telemetry=False))
    except Exception as exc:
        forget_local_clients()  # Chroma caches the half-made client: the next try would meet it, not the folder
        if (broken := damaged_store(exc, path)) is not None:
            raise broken from exc
        raise


def _bound_waits(client: Any) -> None:
    """Give the server client's HTTP session a timeout. chromadb 1.5.9 makes it with none and no
    setting reaches it (chroma-core/chroma#5805), and a `chroma run` server that failed a write on a
    full disk took every later request and never answered (bench/faults.py, server-disk): without a
    bound, an ingest or a search hangs for good. The session is the client's own attribute; if a
    later chromadb moves it, nothing is bounded and nothing breaks."""
    session = getattr(getattr(client, "_server", None), "_session", None)
    if session is not None and hasattr(session, "timeout"):
        session.timeout = _timeout()


def _timeout() -> Any:
    import httpx

    return httpx.Timeout(SERVER_TIMEOUT_S, connect=SERVER_CONNECT_TIMEOUT_S)


def server_client(settings: Settings) -> Any:
    """A client of the Chroma server at PAPERCHAT_CHROMA_URL that has answered once."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    url = urlparse(settings.chroma_url)
    if url.scheme not in ("http", "https") or not url.hostname:
        raise StoreError(f"PAPERCHAT_CHROMA_URL={settings.chroma_url!r} is not a URL like http://127.0.0.1:8000.")
    client = None
    port = url.port or (443 if url.scheme == "https" else 8000)
    try:
        import httpx

        # chromadb's client asks the server twice while it is made, with no bound on the wait: a
        # server that runs but does not answer is found here first, within the bound.
        httpx.get(f"{url.scheme}://{url.hostname}:{port}/api/v2/heartbeat", timeout=_timeout()).raise_for_status()
        client = chromadb.HttpClient(host=url.hostname, port=port, ssl=url.scheme == "https", settings=ChromaSettings(anonymized_telemetry=False))
        _bound_waits(client)
        client.heartbeat()
    except Exception as exc:  # chromadb raises several types for "not reachable" (httpx's, and its own while it starts)
        if client is not None:
            client.close()  # type: ignore[attr-defined]  # the Rust client has it; chromadb's ClientAPI type does not say so
        raise unreachable(settings.chroma_url, exc) from exc
    return client
