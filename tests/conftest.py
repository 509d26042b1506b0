from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.api import Paperchat
from rag.chunking import approx_token_counts
from rag.config import Settings
from tests.fakes import HashingEmbeddings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "seeds"
SHARED_DATA = ROOT.parent / "shared" / "data"
ICLR = SHARED_DATA / "iclr2026" / "papers.jsonl"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", ingest_batch_chunks=16, _env_file=None)  # type: ignore[call-arg]


@pytest.fixture
def fake_embeddings() -> HashingEmbeddings:
    return HashingEmbeddings()


def make_fake_api(settings: Settings, embeddings: HashingEmbeddings) -> Paperchat:
    return Paperchat(settings, embeddings=embeddings, model="hashing-512", count_tokens=approx_token_counts, max_tokens=256)


@pytest.fixture
def api(settings: Settings, fake_embeddings: HashingEmbeddings) -> Paperchat:
    return make_fake_api(settings, fake_embeddings)


@pytest.fixture
def seeded(api: Paperchat) -> Paperchat:
    report = api.ingest([SEEDS])
    assert report.papers == 51 and not report.errors
    return api


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `chroma run` server on loopback, started for the session (or the one named by
    PAPERCHAT_TEST_CHROMA_URL). Its log is kept next to its data for a failing run."""
    if url := os.environ.get("PAPERCHAT_TEST_CHROMA_URL"):
        yield url
        return
    folder = tmp_path_factory.mktemp("chroma-server")
    port = free_port()
    chroma = Path(sys.executable).with_name("chroma")
    log = open(folder / "server.log", "w")  # noqa: SIM115 - must outlive this block: the server writes to it
    process = subprocess.Popen(
        [str(chroma), "run", "--path", str(folder / "db"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"chroma run did not start; see {folder / 'server.log'}") from None
                time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


OPENAI_TEST_KEY = "sk-test"


@pytest.fixture(scope="session")
def openai_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real OpenAI-compatible server, `python -m llama_cpp.server`, serving the bundled
    SmolLM2 on loopback for the session; it demands OPENAI_TEST_KEY. Yields its root URL (the
    API is under /v1). Its log is kept for a failing run."""
    import urllib.error
    import urllib.request

    from rag.llm import bundled_gguf_path, default_threads

    folder = tmp_path_factory.mktemp("openai-server")
    port = free_port()
    log = open(folder / "server.log", "w")  # noqa: SIM115 - must outlive this block: the server writes to it
    # The server's settings are pydantic-settings without a prefix and uvicorn.run reads HOST and
    # PORT from the environment over the flags, so those two are set to the flags' values.
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port)}
    # The thread count the local backend uses; rag.llm.default_threads says why it is not all cores.
    threads = str(default_threads())
    args = ["--model", str(bundled_gguf_path()), "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--api_key", OPENAI_TEST_KEY]
    args += ["--n_threads", threads, "--n_threads_batch", threads]
    process = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", *args], stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    request = urllib.request.Request(f"{url}/v1/models", headers={"Authorization": f"Bearer {OPENAI_TEST_KEY}"})
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(request, timeout=2):
                    break
            except (urllib.error.URLError, OSError):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"python -m llama_cpp.server did not start; see {folder / 'server.log'}") from None
                time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()
