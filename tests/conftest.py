from __future__ import annotations

import functools
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from rag.api import Paperchat
from rag.chunking import approx_token_counts
from rag.config import Settings
from tests.fakes import HashingEmbeddings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
# The suite runs the encoder through torch: the CPU default (OpenVINO) exports the model once per
# data directory (15-90 s here), and nearly every test makes its own. tests/test_encoders.py runs
# each exported backend and checks it agrees with torch (cosine >= 0.999 on 1,000 chunks).
os.environ.setdefault("PAPERCHAT_EMBEDDING_BACKEND", "torch")

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "seeds"
SHARED_DATA = ROOT.parent / "shared" / "data"
ICLR = SHARED_DATA / "iclr2026" / "papers.jsonl"


def titling_texts(paths: list[Path], indexed: frozenset[str] = frozenset()) -> int:
    """How many texts an ingest of `paths` sends the embedding model to title its papers that no
    copy gives a title (their subject phrases, rag/labels.py), before it embeds any chunk;
    `indexed`: the ids of papers already in the index, whose titles it keeps. A fake model that is
    to fail after N chunks fails after this many texts more."""
    from rag.corpus import load_papers
    from rag.evidence import SentenceVectors
    from rag.labels import make_label

    model = HashingEmbeddings()
    vectors = SentenceVectors(model)  # the app's one cache: a phrase two papers share is embedded once
    for paper in load_papers(paths, label=None).papers:
        if not paper.title and paper.paper_id not in indexed:
            make_label(paper.abstract, embed=vectors)
    return model.embedded


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", ingest_batch_chunks=16, _env_file=None)  # type: ignore[call-arg]


@pytest.fixture
def fake_embeddings() -> HashingEmbeddings:
    return HashingEmbeddings()


def make_fake_api(settings: Settings, embeddings: HashingEmbeddings) -> Paperchat:
    # chat=None: the evidence-only backend; answer tests bring their own scripted chat model.
    return Paperchat(settings, embeddings=embeddings, model="hashing-512", count_tokens=approx_token_counts, max_tokens=256, chat=None)


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


@contextmanager
def running(
    name: str,
    command: list[str],
    folder: Path,
    ready: Callable[[], object],
    env: dict[str, str] | None = None,
    timeout: float = 60,
    cwd: Path | None = None,
) -> Iterator[None]:
    """A server process for the test session: started, waited for until `ready()` stops
    raising (`timeout` seconds at most), stopped at the end. Its log stays in `folder` for a failing run."""
    log = open(folder / "server.log", "w")  # noqa: SIM115 - must outlive this block: the server writes to it
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                ready()
                break
            except OSError:  # refused, reset, or urllib's URLError (an OSError)
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{name} did not start; see {folder / 'server.log'}") from None
                time.sleep(0.3)
        yield
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `chroma run` server on loopback, started for the session (or the one named by
    PAPERCHAT_TEST_CHROMA_URL)."""
    if url := os.environ.get("PAPERCHAT_TEST_CHROMA_URL"):
        yield url
        return
    folder = tmp_path_factory.mktemp("chroma-server")
    port = free_port()
    chroma = Path(sys.executable).with_name("chroma")
    command = [str(chroma), "run", "--path", str(folder / "db"), "--host", "127.0.0.1", "--port", str(port)]
    with running("chroma run", command, folder, lambda: socket.create_connection(("127.0.0.1", port), timeout=1).close()):
        yield f"http://127.0.0.1:{port}"


OPENAI_TEST_KEY = "sk-test"


@pytest.fixture(scope="session")
def openai_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real OpenAI-compatible server, `python -m llama_cpp.server`, serving the bundled
    SmolLM2 on loopback for the session; it demands OPENAI_TEST_KEY. Yields its root URL (the
    API is under /v1)."""
    import urllib.request

    from rag.llm import bundled_gguf_path, default_threads

    folder = tmp_path_factory.mktemp("openai-server")
    port = free_port()
    # The server's settings are pydantic-settings without a prefix and uvicorn.run reads HOST and
    # PORT from the environment over the flags, so those two are set to the flags' values.
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port)}
    # The thread count the local backend uses; rag.llm.default_threads says why it is not all cores.
    threads = str(default_threads())
    args = ["--model", str(bundled_gguf_path()), "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--api_key", OPENAI_TEST_KEY]
    args += ["--n_threads", threads, "--n_threads_batch", threads]
    url = f"http://127.0.0.1:{port}"
    request = urllib.request.Request(f"{url}/v1/models", headers={"Authorization": f"Bearer {OPENAI_TEST_KEY}"})
    # The server loads the model as paperchat does (rag.llm.use_plain_weight_buffers: on AMX CPUs a
    # segmentation fault otherwise), then runs as `python -m llama_cpp.server` would.
    serve = (
        "import sys, runpy, rag.llm; rag.llm.use_plain_weight_buffers(); sys.argv[0] = 'llama_cpp.server'; "
        "runpy.run_module('llama_cpp.server', run_name='__main__')"
    )
    command = [sys.executable, "-c", serve, *args]
    with running("python -m llama_cpp.server", command, folder, lambda: urllib.request.urlopen(request, timeout=2).close(), env):
        yield url


# --- Real-browser tests: Debian's Chromium driven by Playwright, against `paperchat serve` ---

CHROMIUM = Path("/usr/bin/chromium")
# Playwright's own browser download (`playwright install`) fails on these machines, so the tests
# launch Debian's Chromium. As root these flags run it headless without a sandbox; the
# background-networking ones stop it calling Google's hosts, which this closed network refuses.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Where browser tests leave screenshots and page logs; git-ignored, kept after the run (CI too).
ARTIFACTS = ROOT / "test-artifacts"
# Loading the embedding model and the bundled language model before Gradio listens takes
# well over running()'s default minute on 2 busy cores.
SERVE_TIMEOUT = 180

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """A Playwright Browser (headless Debian Chromium) for one test module; each test opens its own
    context. Module, not session: Playwright's sync API keeps an event loop running in the main
    thread while it is open, and later async tests ("Runner.run() cannot be called from a running
    event loop") must not start inside it. Skips when /usr/bin/chromium is missing."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing (Debian's chromium): `make test` installs it as root; else `sudo apt-get install --no-install-recommends chromium`")
    from playwright.sync_api import sync_playwright

    # launch() makes a fresh, empty user-data dir for each browser and removes it on close.
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture(scope="session")
def served_seeds_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`paperchat serve` on loopback for the session, over a fresh data dir into which the seeds
    were ingested with the real embedding model; answers drafted by the local backend (bundled
    SmolLM2). Yields the app's base URL. Tests using it must be marked `integration`."""
    import urllib.request

    folder = tmp_path_factory.mktemp("served-seeds-app")
    paperchat = str(Path(sys.executable).with_name("paperchat"))
    # Only these settings: a developer's PAPERCHAT_* variables (or .env, hence cwd=folder) must
    # not point the app at their own index or model server.
    env = {key: value for key, value in os.environ.items() if not key.startswith("PAPERCHAT_")}
    env |= {
        "PAPERCHAT_DATA_DIR": str(folder / "data"),
        "PAPERCHAT_LLM_BACKEND": "local",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    ingest = subprocess.run([paperchat, "ingest", str(SEEDS)], env=env, cwd=folder, capture_output=True, text=True, timeout=600)
    assert ingest.returncode == 0, f"paperchat ingest seeds failed ({ingest.returncode}):\n{ingest.stdout}\n{ingest.stderr}"

    port = free_port()
    url = f"http://127.0.0.1:{port}"

    def ready() -> None:
        with urllib.request.urlopen(url + "/", timeout=2) as response:
            if response.status != 200:
                raise OSError(f"GET / answered {response.status}")

    command = [paperchat, "serve", "--host", "127.0.0.1", "--port", str(port)]
    with running("paperchat serve", command, folder, ready, env, timeout=SERVE_TIMEOUT, cwd=folder):
        yield url


@functools.cache
def first_seed_row() -> str:
    """The start of the explorer table's first row on the seeds (its rows sort by title, and the seeds'
    titles are generated: a test that named one would break with every change to the generator)."""
    from rag.corpus import load_papers
    from ui.render import papers_rows

    return papers_rows(load_papers(sorted(str(f) for f in SEEDS.iterdir())).papers)[0][0][:20]
