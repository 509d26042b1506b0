"""Fault runs (issue 17, item 5): paperchat killed while it writes, its Chroma server stopped, its
disk full, its catalogue or BM25 index damaged; what each leaves behind (nothing lost) and how it
comes back.

    .venv/bin/python bench/faults.py [--papers 110] [--kills 10] [--seed 17] [--runs kill,serve,chroma,disk,server-disk,damage,store]
                                     [--store-papers 700] [--env NAME=VALUE ...]

- kill: `paperchat ingest` SIGKILLed at `--kills` random points (seeded delays after its progress bar
  appears), each on an index that already holds papers and followed by an ingest that completes it;
  then every store's chunk ids must be exactly the catalogue's, BM25 must agree with it, and
  `paperchat search` and `ask` must work.
- serve: `paperchat serve` SIGKILLed while an upload (the app's /add_papers) is committing (after
  its first commit), restarted; every paper committed is served, and uploading the file again completes it.
- chroma: a `chroma run` server stopped and started again while two threads search through one
  Paperchat: the errors meanwhile, and how soon searches work again (no paperchat restart).
- disk: an ingest into a full filesystem (a size-limited tmpfs; needs root): the message, nothing
  indexed before lost, and the same Paperchat completing it once space is freed.
- server-disk: the same for a `chroma run` server whose data folder (a tmpfs) fills between two
  ingests: the message (Chroma's server says only "Error in compaction"), nothing lost, and the same
  Paperchat completing the ingest once space is freed.
- damage: the BM25 folder overwritten with garbage (rebuilt from the catalogue by itself), then the
  catalogue (a clear error, and `paperchat ingest --rebuild`).
- store: a local Chroma folder damaged three ways (STORE_DAMAGE), each on a fresh index of
  `--store-papers` papers: what a search and an ingest say, then `paperchat ingest --rebuild`, after
  which the store agrees with the catalogue and chunks are found by their own vectors.

Data: the first N records of ../shared/data/iclr2026/papers.jsonl, written to a temporary .jsonl.
Every process is a real `paperchat` with the bundled model; the language model is off
(PAPERCHAT_LLM_BACKEND=none: answers are the evidence, and serve starts without loading one).
tests/test_faults.py runs each in a short form (3 kill points, fewer papers, fake embeddings in-process).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ICLR = ROOT.parent / "shared" / "data" / "iclr2026" / "papers.jsonl"
CHROMA = Path(sys.executable).with_name("chroma")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.app import free_port  # noqa: E402
from rag.api import Paperchat  # noqa: E402
from rag.config import Settings  # noqa: E402
from rag.errors import PaperchatError  # noqa: E402

SERVE_TIMEOUT_S = 240


# -- shared ------------------------------------------------------------------------------------


def write_records(path: Path, start: int, stop: int) -> Path:
    """ICLR records [start, stop) as a .jsonl file."""
    lines = ICLR.read_text(encoding="utf-8").splitlines()[start:stop]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def record_ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def environment(data_dir: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a `paperchat` process: none of the caller's PAPERCHAT_* settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERCHAT_")}
    env |= {
        "PYTHONPATH": str(ROOT),
        "PAPERCHAT_DATA_DIR": str(data_dir),
        "PAPERCHAT_LLM_BACKEND": "none",
        "PAPERCHAT_INGEST_BATCH_CHUNKS": "8",  # a commit every ~1-2 s: many points for a kill to land between
        "ANONYMIZED_TELEMETRY": "False",
    }
    return env | (extra or {})


def settings_of(env: dict[str, str]) -> Settings:
    """The Settings a `paperchat` process with `env` reads (no .env file)."""
    values = {k.removeprefix("PAPERCHAT_").lower(): v for k, v in env.items() if k.startswith("PAPERCHAT_")}
    return Settings(**values, _env_file=None)  # type: ignore[call-arg]


def paperchat(args: Sequence[str], env: dict[str, str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ui.serve", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def committed(data_dir: Path) -> set[str]:
    """The paper ids the catalogue holds, read without writing (another process may be running)."""
    path = data_dir / "catalog.sqlite3"
    if not path.exists():
        return set()
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as db:
        return {row[0] for row in db.execute("SELECT paper_id FROM papers")}


@dataclass
class Agreement:
    papers: int
    store_matches: bool  # the main store's chunk ids are exactly the catalogue's
    channel_matches: bool  # the multilingual collection's too (True when the channel is off)
    bm25_matches: bool  # BM25 holds exactly the catalogue's papers, at their content hashes

    @property
    def ok(self) -> bool:
        return self.store_matches and self.channel_matches and self.bm25_matches


def agreement(settings: Settings, seams: dict[str, Any] | None = None) -> Agreement:
    """Store, multilingual channel and BM25 against the catalogue, with no process writing."""
    from rag.lexical import LexicalIndex
    from rag.multilingual import CHUNKS_PER_PAPER, MULTILINGUAL_MODEL_NAME
    from rag.store import make_store, multilingual_collection

    api = Paperchat(settings, **(seams or {}))
    channel = None
    try:
        entries = api.seams.catalog.entries()
        expected = {cid for entry in entries.values() for cid in entry.chunk_ids()}
        store_ok = api.seams.store().chunk_ids() == expected
        channel_ok = True
        if settings.multilingual and "multilingual" not in (seams or {}):
            # Opened by name, not through the seam: the seam would load the encoder to read ids.
            channel = make_store(
                settings, api.seams.embeddings, MULTILINGUAL_MODEL_NAME, create=False,
                collection=multilingual_collection(settings), first_chunks=CHUNKS_PER_PAPER,
            )
            channel_ok = channel.chunk_ids() == {cid for cid in expected if channel.holds(cid)}
        lexical = LexicalIndex(settings.lexical_dir)
        bm25_ok = lexical.load() and lexical.fingerprint() == {p: e.content_hash for p, e in entries.items()}
        return Agreement(len(entries), store_ok, channel_ok, bm25_ok)
    finally:
        if channel is not None:
            channel.close()
        api.seams.close()


def wait_until(ready: Callable[[], object], process: subprocess.Popen[Any] | None, timeout: float, what: str) -> float:
    """Seconds until `ready()` stops raising OSError; fails if `process` ends first."""
    started = time.monotonic()
    while True:
        try:
            ready()
            return time.monotonic() - started
        except OSError:
            if (process is not None and process.poll() is not None) or time.monotonic() - started > timeout:
                raise RuntimeError(f"{what} did not start") from None
            time.sleep(0.1)


def stop(process: subprocess.Popen[Any], sig: int = signal.SIGTERM) -> None:
    """End a process this run started (by its own handle, never by name)."""
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


# -- a: SIGKILL during `paperchat ingest` ------------------------------------------------------------


@dataclass
class KillPoint:
    step: int
    before: int  # papers in the catalogue when the killed ingest started
    target: int  # papers in the file it ingested
    delay_s: float  # after its progress bar appeared
    at_kill: int  # papers in the catalogue after the kill
    landed: str  # "before any commit", "between commits", "after the last commit" (BM25 or the exit), "after the ingest ended"
    lost: int  # papers committed before the kill that were gone after it, or after the completing ingest
    completed: int  # papers after the completing ingest
    agrees: bool  # store, channel and BM25 exactly the catalogue's after the completing ingest
    complete_s: float  # the completing ingest, as a whole process


def kill_ingest_run(folder: Path, papers: int, kills: int, seed: int, extra: dict[str, str] | None = None) -> tuple[list[KillPoint], dict[str, Any]]:
    """`kills` steps on one data directory; step i ingests the first (i + 2) * papers / (kills + 1)
    records, SIGKILLed a random time after its progress bar appears, then completed. The first
    part is ingested whole first, so every kill lands on an index holding papers."""
    data_dir = folder / "data"
    env = environment(data_dir, extra)
    settings = settings_of(env)
    rng = random.Random(seed)
    size = papers // (kills + 1)
    base = write_records(folder / "step0.jsonl", 0, size)
    process, writing, reader = _ingest_watched(base, env, folder)
    writing.wait(timeout=300)
    began = time.monotonic()
    if process.wait(timeout=900) != 0:
        raise RuntimeError("the first ingest failed")
    # How long a part's writes take from its progress bar to its exit (the model's loading, embedding,
    # commits, BM25): each kill's delay is drawn uniformly from the first 80% of it, so that few
    # land after the ingest has ended (the load on the machine varies from run to run).
    window = 0.8 * (time.monotonic() - began)
    reader.join(timeout=10)
    points: list[KillPoint] = []
    for step in range(1, kills + 1):
        records = write_records(folder / f"step{step}.jsonl", 0, (step + 1) * size)
        before = committed(data_dir)
        delay = rng.uniform(0.0, window)
        process, writing, reader = _ingest_watched(records, env, folder)
        writing.wait(timeout=300)
        time.sleep(delay)
        finished_first = process.poll() is not None
        stop(process, signal.SIGKILL)
        reader.join(timeout=10)
        at_kill = committed(data_dir)
        target = set(record_ids(records))
        landed = _landed(finished_first, before, at_kill, target)
        began = time.monotonic()
        done = paperchat(["ingest", str(records)], env, folder)
        complete_s = time.monotonic() - began
        if done.returncode != 0:
            raise RuntimeError(f"the completing ingest of step {step} failed:\n{done.stderr[-2000:]}")
        after = committed(data_dir)
        check = agreement(settings)
        lost = len(before - at_kill) + len(before - after)
        agrees = check.ok and after == target
        points.append(KillPoint(step, len(before), len(target), round(delay, 2), len(at_kill), landed, lost, len(after), agrees, complete_s))
        print(f"[kill] step {step}: {asdict(points[-1])}", file=sys.stderr, flush=True)
    return points, _still_answers(folder, env, records)


def _landed(finished_first: bool, before: set[str], at_kill: set[str], target: set[str]) -> str:
    """Where a kill landed, by what the catalogue held after it."""
    if finished_first:
        return "after the ingest ended"
    return "after the last commit" if at_kill >= target else "between commits" if at_kill > before else "before any commit"


def _ingest_watched(records: Path, env: dict[str, str], cwd: Path) -> tuple[subprocess.Popen[str], threading.Event, threading.Thread]:
    """`paperchat ingest records` started, with an event set once it starts writing."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ui.serve", "ingest", str(records)], env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    writing = threading.Event()
    reader = threading.Thread(target=_watch_progress, args=(process, writing), daemon=True)
    reader.start()
    return process, writing, reader


def _watch_progress(process: subprocess.Popen[str], writing: threading.Event) -> None:
    """Sets `writing` once the ingest's progress bar appears (tqdm writes "embedding" on stderr)."""
    assert process.stderr is not None
    buffer = ""
    while chunk := process.stderr.read(64):
        buffer = (buffer + chunk)[-200:]
        if "embedding" in buffer:
            writing.set()
    writing.set()  # ended without one (nothing to embed, or killed before)


def _still_answers(folder: Path, env: dict[str, str], records: Path) -> dict[str, Any]:
    """`paperchat search` finds a paper by its title and `paperchat ask` answers about it."""
    last = json.loads(records.read_text(encoding="utf-8").splitlines()[-1])
    found = paperchat(["search", last["title"], "-k", "3", "--json"], env, folder)
    asked = paperchat(["ask", f"What does {last['title']} propose?", "--json"], env, folder)
    top = json.loads(found.stdout)["results"][0]["paper_id"] if found.returncode == 0 else None
    answer = json.loads(asked.stdout) if asked.returncode == 0 else {}
    return {"search_finds_it": top == last["id"], "ask_cites_it": any(s["paper_id"] == last["id"] for s in answer.get("sources", []))}


# -- b: SIGKILL of `paperchat serve` during an upload -------------------------------------------------


@dataclass
class ServeKill:
    base: int  # papers uploaded, whole, before the upload that is killed
    upload: int  # papers in the uploaded file
    at_kill: int  # papers in the catalogue after the kill
    landed: str
    restart_s: float  # serve restarted to its page answering
    served: int  # papers the restarted app finds by their titles (/search)
    lost: int  # base papers missing after the restart
    completed: int  # papers after uploading the file again to the restarted app
    agrees: bool


@contextmanager
def serving(folder: Path, env: dict[str, str], name: str) -> Iterator[tuple[str, subprocess.Popen[Any], float]]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(folder / f"{name}.log", "w")  # noqa: SIM115 - the server writes to it until it stops
    process = subprocess.Popen(
        [sys.executable, "-m", "ui.serve", "serve", "--host", "127.0.0.1", "--port", str(port)], env=env, cwd=folder, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        seconds = wait_until(lambda: urllib.request.urlopen(url + "/", timeout=2).close(), process, SERVE_TIMEOUT_S, f"paperchat serve (see {log.name})")
        yield url, process, seconds
    finally:
        stop(process)
        log.close()


def serve_kill_run(folder: Path, base: int, upload: int, extra: dict[str, str] | None = None) -> ServeKill:
    from gradio_client import Client, handle_file

    data_dir = folder / "data"
    env = environment(data_dir, extra)
    first = write_records(folder / "base.jsonl", 0, base)
    more = write_records(folder / "upload.jsonl", base, base + upload)
    with serving(folder, env, "serve1") as (url, process, _):
        client = Client(url, verbose=False)
        client.predict([handle_file(str(first))], api_name="/add_papers")  # the papers already indexed
        base_ids = committed(data_dir)
        job = client.submit([handle_file(str(more))], api_name="/add_papers")
        while not job.done() and len(committed(data_dir)) <= len(base_ids):
            time.sleep(0.05)
        finished_first = job.done()
        stop(process, signal.SIGKILL)
    at_kill = committed(data_dir)
    target = base_ids | set(record_ids(more))
    landed = _landed(finished_first, base_ids, at_kill, target)
    with serving(folder, env, "serve2") as (url, _, restart_s):
        client = Client(url, verbose=False)
        titles = {json.loads(line)["id"]: json.loads(line)["title"] for f in (first, more) for line in f.read_text(encoding="utf-8").splitlines()}
        held = committed(data_dir)
        served = sum(1 for pid in held if any(r["paper_id"] == pid for r in client.predict(titles[pid], 5, api_name="/search")["results"]))
        client.predict([handle_file(str(more))], api_name="/add_papers")
        after = committed(data_dir)
    check = agreement(settings_of(env))
    lost = len(base_ids - held)
    return ServeKill(len(base_ids), upload, len(at_kill), landed, round(restart_s, 1), served, lost, len(after), check.ok and after == target)


# -- c: the Chroma server stopped and started again while searches run ----------------------------------


@dataclass
class ChromaOutage:
    searches_ok: int
    searches_failed: int
    messages: list[str]  # the distinct errors searches met during the outage
    other_errors: list[str]  # errors that were not the store's message (should be none)
    ingest_during_outage: str  # what an ingest during the outage said
    server_start_s: float  # `chroma run` restarted to accepting connections
    recovery_s: float  # from the server accepting connections to the first search that worked
    agrees_after: bool  # an ingest after the restart completes; store ids are the catalogue's


def chroma_outage_run(folder: Path, papers: int, outage_s: float = 3.0, seams: dict[str, Any] | None = None, threads: int = 2) -> ChromaOutage:
    """One Paperchat, never restarted, searching through a `chroma run` server that is stopped
    (SIGKILL) for `outage_s` seconds and started again on the same folder and port."""
    port = free_port()
    command = [str(CHROMA), "run", "--path", str(folder / "chroma-db"), "--host", "127.0.0.1", "--port", str(port)]

    def start() -> tuple[subprocess.Popen[Any], float]:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return process, wait_until(lambda: socket.create_connection(("127.0.0.1", port), timeout=1).close(), process, 60, "chroma run")

    server, _ = start()
    try:
        records = write_records(folder / "papers.jsonl", 0, papers)
        more = write_records(folder / "more.jsonl", papers, papers + max(4, papers // 4))
        settings = Settings(data_dir=folder / "data", chroma_url=f"http://127.0.0.1:{port}", multilingual=False, llm_backend="none", _env_file=None)  # type: ignore[call-arg]
        api = Paperchat(settings, **(seams or {}))
        api.ingest([records])
        titles = [json.loads(line)["title"] for line in records.read_text(encoding="utf-8").splitlines()]
        log: list[tuple[float, str | None, str]] = []  # (time, error or None, error type)
        running = threading.Event()
        running.set()

        def search_loop(seed: int) -> None:
            rng = random.Random(seed)
            while running.is_set():
                try:
                    api.search(rng.choice(titles), 5)
                    log.append((time.monotonic(), None, ""))
                except Exception as exc:  # every outcome is recorded: the run reports any that is not the store's message
                    log.append((time.monotonic(), str(exc), type(exc).__name__))
                time.sleep(0.05)

        workers = [threading.Thread(target=search_loop, args=(i,), daemon=True) for i in range(threads)]
        for worker in workers:
            worker.start()
        time.sleep(1.0)
        stop(server, signal.SIGKILL)
        down_at = time.monotonic()
        try:
            api.ingest([records, more])
            during = "completed (no error)"
        except PaperchatError as exc:
            during = str(exc)
        time.sleep(max(0.0, outage_s - (time.monotonic() - down_at)))
        server, start_s = start()
        up_at = time.monotonic()
        deadline = up_at + 60
        while time.monotonic() < deadline and not any(t >= up_at and error is None for t, error, _ in log):
            time.sleep(0.02)
        time.sleep(1.0)
        running.clear()
        for worker in workers:
            worker.join(timeout=30)
        first_ok = min((t for t, error, _ in log if t >= up_at and error is None), default=float("nan"))
        errors = [(error, kind) for t, error, kind in log if error is not None]
        api.ingest([records, more])
        entries = api.seams.catalog.entries()
        agrees = api.seams.store().chunk_ids() == {cid for e in entries.values() for cid in e.chunk_ids()}
        api.seams.close()
        return ChromaOutage(
            searches_ok=sum(1 for _, error, _ in log if error is None),
            searches_failed=len(errors),
            messages=sorted({error for error, kind in errors if kind == "StoreError"}),
            other_errors=sorted({f"{kind}: {error}" for error, kind in errors if kind != "StoreError"}),
            ingest_during_outage=during,
            server_start_s=round(start_s, 2),
            recovery_s=round(first_ok - up_at, 3),
            agrees_after=agrees and len(entries) == papers + max(4, papers // 4),
        )
    finally:
        stop(server)


# -- d: the disk fills during an ingest ------------------------------------------------------------------


@dataclass
class DiskFull:
    before: int  # papers indexed before the ingest that met the full disk
    message: str
    after_failure: int  # papers in the catalogue right after it
    lost: int  # papers indexed before that were gone
    search_while_full: str  # what a search says while the disk is still full ("answers", or its message)
    searchable: bool  # a search answers once space is freed, in the same process
    completed: int  # papers once space is freed and the same Paperchat ingests again
    agrees: bool


def _ingest_into_a_full_disk(api: Paperchat, mount: Path, leave_kb: int, first: Path, extra: Path) -> tuple[set[str], str, set[str]]:
    """`first` ingested, the filesystem at `mount` then filled but `leave_kb` (mount/filler), then
    `first` and `extra` ingested: the papers before, what that ingest said, the papers after it."""
    api.ingest([first])
    before = {p.paper_id for p in api.papers()}
    free = os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize
    with open(mount / "filler", "wb") as out:
        out.write(b"\0" * max(0, free - leave_kb * 1024))
    try:
        api.ingest([first, extra])
        message = "(no error)"
    except PaperchatError as exc:
        message = str(exc)
    return before, message, {p.paper_id for p in api.papers()}


@contextmanager
def small_filesystem(mount: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` at `mount` (root only); unmounted after (lazily, should a file still be open)."""
    mount.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], check=True, capture_output=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False, capture_output=True)


def can_mount(folder: Path) -> bool:
    if os.geteuid() != 0:
        return False
    try:
        with small_filesystem(folder / "probe", "1m"):
            return True
    except (OSError, subprocess.CalledProcessError):
        return False


def disk_full_run(folder: Path, papers: int, more: int, seams: dict[str, Any] | None = None, size: str = "24m", leave_kb: int = 800) -> DiskFull:
    """Papers ingested into a tmpfs of `size`, the rest of it filled but `leave_kb`, then `more`
    papers ingested: it must fail saying the disk is full and keep what was there."""
    first = write_records(folder / "first.jsonl", 0, papers)
    extra = write_records(folder / "more.jsonl", papers, papers + more)
    with small_filesystem(folder / "mnt", size) as mount:
        settings = Settings(data_dir=mount / "data", multilingual=False, llm_backend="none", ingest_batch_chunks=8, _env_file=None)  # type: ignore[call-arg]
        api = Paperchat(settings, **(seams or {}))
        try:
            before, message, held = _ingest_into_a_full_disk(api, mount, leave_kb, first, extra)
            filler = mount / "filler"
            title = json.loads(first.read_text(encoding="utf-8").splitlines()[0])["title"]
            try:
                while_full = "answers" if api.search(title, 3).hits else "no hits"
            except PaperchatError as exc:
                while_full = str(exc)
            filler.unlink()
            searchable = bool(api.search(title, 3).hits)
            api.ingest([first, extra])
            after = {p.paper_id for p in api.papers()}
        finally:
            api.seams.close()
        check = agreement(settings, seams)
    return DiskFull(len(before), message, len(held), len(before - held), while_full, searchable, len(after), check.ok and len(after) == papers + more)


@dataclass
class ServerDiskFull:
    before: int  # papers indexed before the server's disk filled
    message: str  # what the ingest that met the full disk says
    after_failure: int
    lost: int
    search_while_full: str  # "answers", or its message
    after_freeing: str  # the same Paperchat's next ingest once space is freed: "completed", or its message (then the server is restarted)
    completed: int  # papers after that
    agrees: bool


def server_disk_full_run(folder: Path, papers: int, more: int, seams: dict[str, Any] | None = None, size: str = "24m", leave_kb: int = 200) -> ServerDiskFull:
    """A `chroma run` server keeping its data on a tmpfs of `size` whose space runs out (all but
    `leave_kb`) between two ingests of one Paperchat; paperchat's own data dir has room."""
    first = write_records(folder / "first.jsonl", 0, papers)
    extra = write_records(folder / "more.jsonl", papers, papers + more)
    with small_filesystem(folder / "mnt", size) as mount:
        port = free_port()
        command = [str(CHROMA), "run", "--path", str(mount / "chroma-db"), "--host", "127.0.0.1", "--port", str(port)]

        def start() -> subprocess.Popen[Any]:
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wait_until(lambda: socket.create_connection(("127.0.0.1", port), timeout=1).close(), process, 60, "chroma run")
            return process

        server = start()
        try:
            settings = Settings(  # type: ignore[call-arg]
                data_dir=folder / "data", chroma_url=f"http://127.0.0.1:{port}", multilingual=False, llm_backend="none",
                ingest_batch_chunks=8, _env_file=None,
            )
            api = Paperchat(settings, **(seams or {}))
            before, message, held = _ingest_into_a_full_disk(api, mount, leave_kb, first, extra)
            filler = mount / "filler"
            try:
                while_full = "answers" if api.search("diffusion", 3).hits else "no hits"
            except PaperchatError as exc:
                while_full = str(exc)
            filler.unlink()
            try:
                api.ingest([first, extra])
                after_freeing = "completed"
            except PaperchatError as exc:  # a server that failed a write can hang: paperchat's wait is bounded
                after_freeing = str(exc)
                stop(server)
                server = start()
                api.ingest([first, extra])
            entries = api.seams.catalog.entries()
            agrees = api.seams.store().chunk_ids() == {cid for e in entries.values() for cid in e.chunk_ids()}
            api.seams.close()
        finally:
            stop(server)
    return ServerDiskFull(
        len(before), message, len(held), len(before - held), while_full, after_freeing, len(entries), agrees and len(entries) == papers + more
    )


# -- e: a damaged BM25 folder and catalogue -----------------------------------------------------------------


@dataclass
class Damage:
    bm25_search_works: bool  # a search right after the BM25 folder was overwritten
    bm25_rebuilt: bool  # and BM25 agrees with the catalogue again
    bm25_rebuild_s: float
    catalogue_message: str  # what a search says with the catalogue overwritten
    rebuilt_papers: int  # after `paperchat ingest --rebuild`
    rebuild_s: float
    agrees: bool


def damage_run(folder: Path, papers: int, seams: dict[str, Any] | None = None, rebuild: Callable[[Settings, Path], None] | None = None) -> Damage:
    """`rebuild(settings, records)`: how the index is rebuilt (the CLI's `ingest --rebuild` unless given)."""
    records = write_records(folder / "papers.jsonl", 0, papers)
    settings = Settings(data_dir=folder / "data", multilingual=False, llm_backend="none", _env_file=None)  # type: ignore[call-arg]
    api = Paperchat(settings, **(seams or {}))
    api.ingest([records])
    title = json.loads(records.read_text(encoding="utf-8").splitlines()[0])["title"]
    api.seams.close()
    garbage = random.Random(0).randbytes(4096)
    for path in settings.lexical_dir.rglob("*"):
        if path.is_file():
            path.write_bytes(garbage)
    fresh = Paperchat(settings, **(seams or {}))
    began = time.monotonic()
    bm25_works = bool(fresh.search(title, 3, mode="bm25").hits)
    bm25_s = time.monotonic() - began
    fresh.seams.close()
    bm25_ok = agreement(settings, seams).bm25_matches
    settings.catalog_path.write_bytes(garbage)
    try:
        Paperchat(settings, **(seams or {})).search(title, 3)
        message = "(no error)"
    except PaperchatError as exc:
        message = str(exc)
    began = time.monotonic()
    (rebuild or _rebuild_with_cli)(settings, records)
    rebuild_s = time.monotonic() - began
    check = agreement(settings, seams)
    return Damage(bm25_works, bm25_ok, round(bm25_s, 2), message, check.papers, round(rebuild_s, 1), check.ok and check.papers == papers)


def _rebuild_with_cli(settings: Settings, records: Path) -> None:
    env = environment(settings.data_dir, {"PAPERCHAT_MULTILINGUAL": str(settings.multilingual).lower()})
    done = paperchat(["ingest", "--rebuild", str(records)], env, records.parent)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])


# -- f: a damaged Chroma folder ----------------------------------------------------------------------------

# How a local Chroma folder is damaged: its SQLite file overwritten, a vector segment's files
# overwritten, a vector segment cut short (what a write killed mid-flush leaves; Chroma's engine
# crashed the process on it, chroma-core/chroma#7238, until rag.store_faults checked for it).
STORE_DAMAGE = ("sqlite", "segment overwritten", "segment truncated")


@dataclass
class StoreDamage:
    shape: str
    chunks: int  # in the store before the damage (a vector segment is written from about 1,000)
    message: str  # what a search says
    ingest_message: str  # what a plain `paperchat ingest` of the same files says
    rebuilt_papers: int
    rebuild_s: float
    agrees: bool  # store, channel and BM25 equal the catalogue after the rebuild
    found_by_own_vector: str  # of a sample of chunks, searched by their own vector


def store_damage_run(
    folder: Path, papers: int, shape: str, seams: dict[str, Any] | None = None, rebuild: Callable[[Settings, Path], None] | None = None
) -> StoreDamage:
    records = write_records(folder / "papers.jsonl", 0, papers)
    settings = Settings(data_dir=folder / "data", multilingual=False, llm_backend="none", _env_file=None)  # type: ignore[call-arg]
    api = Paperchat(settings, **(seams or {}))
    chunks = api.ingest([records]).chunks
    api.seams.close()
    garbage = random.Random(0).randbytes(4096)
    segments = sorted(p for p in settings.chroma_dir.glob("*/data_level0.bin"))
    if shape == "sqlite":
        (settings.chroma_dir / "chroma.sqlite3").write_bytes(garbage)
    elif not segments:
        raise RuntimeError(f"{chunks} chunks wrote no vector segment; use more papers")
    elif shape == "segment overwritten":
        for part in settings.chroma_dir.glob("*/*.bin"):
            part.write_bytes(garbage)
    else:
        for part in segments:
            part.write_bytes(part.read_bytes()[:1000])
    messages = []
    for attempt in (lambda a: a.search("diffusion", 3), lambda a: a.ingest([records])):
        try:
            attempt(Paperchat(settings, **(seams or {})))
            messages.append("(no error)")
        except PaperchatError as exc:
            messages.append(str(exc))
    began = time.monotonic()
    (rebuild or _rebuild_with_cli)(settings, records)
    rebuild_s = time.monotonic() - began
    check = agreement(settings, seams)
    return StoreDamage(shape, chunks, *messages, check.papers, round(rebuild_s, 1), check.ok and check.papers == papers, _own_vectors(settings))


def _own_vectors(settings: Settings, sample: int = 200) -> str:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    # Chroma's settings as rag/store.py opens the folder: one process may not open it two ways.
    client = chromadb.PersistentClient(path=str(settings.chroma_dir), settings=ChromaSettings(anonymized_telemetry=False))
    try:
        got = client.get_collection(settings.collection).get(include=["embeddings"])
        ids, vectors = got["ids"], got["embeddings"]
        picked = random.Random(0).sample(range(len(ids)), min(sample, len(ids)))
        found = client.get_collection(settings.collection).query(query_embeddings=[vectors[i] for i in picked], n_results=1)["ids"]
        return f"{sum(found[k][0] == ids[i] for k, i in enumerate(picked))}/{len(picked)}"
    finally:
        client.close()


# -- the bench ----------------------------------------------------------------------------------------------


@dataclass
class Report:
    kills: list[KillPoint] = field(default_factory=list)
    answers: dict[str, Any] = field(default_factory=dict)
    serve: ServeKill | None = None
    chroma: ChromaOutage | None = None
    disk: DiskFull | str | None = None
    damage: Damage | None = None
    store: list[StoreDamage] = field(default_factory=list)
    server_disk: ServerDiskFull | str | None = None


def main() -> None:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=110)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--runs", default="kill,serve,chroma,disk,server-disk,damage,store")
    parser.add_argument("--store-papers", type=int, default=700, help="papers for the damaged-store run (a vector segment needs ~1,000 chunks)")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the paperchat processes (e.g. PAPERCHAT_MULTILINGUAL=false)")
    args = parser.parse_args()
    if not ICLR.exists():
        raise SystemExit(f"{ICLR} is missing")
    extra = dict(item.split("=", 1) for item in args.env)
    runs = set(args.runs.split(","))
    report = Report()
    with tempfile.TemporaryDirectory(prefix="paperchat-faults-") as tmp:
        base = Path(tmp)
        for name in ("kill", "serve", "chroma", "disk", "server-disk", "damage", "store"):
            (base / name).mkdir()
        if "kill" in runs:
            report.kills, report.answers = kill_ingest_run(base / "kill", args.papers, args.kills, args.seed, extra)
        if "serve" in runs:
            report.serve = serve_kill_run(base / "serve", args.papers // 2, args.papers // 2, extra)
        if "chroma" in runs:
            report.chroma = chroma_outage_run(base / "chroma", args.papers // 2)
        if "disk" in runs:
            mountable = can_mount(base / "disk")
            report.disk = disk_full_run(base / "disk", args.papers // 2, args.papers // 2) if mountable else "skipped: needs root to mount a tmpfs"
        if "server-disk" in runs:
            mountable = can_mount(base / "server-disk")
            half = args.papers // 2
            report.server_disk = server_disk_full_run(base / "server-disk", half, half) if mountable else "skipped: needs root to mount a tmpfs"
        if "damage" in runs:
            report.damage = damage_run(base / "damage", args.papers // 2)
        if "store" in runs:
            for n, shape in enumerate(STORE_DAMAGE):
                (base / "store" / str(n)).mkdir()
                report.store.append(store_damage_run(base / "store" / str(n), args.store_papers, shape))
    print_report(report, args, extra)


def print_report(report: Report, args: argparse.Namespace, extra: dict[str, str]) -> None:
    print(f"Fault runs: ICLR 2026 records, seed {args.seed}, settings {extra or 'as shipped'} plus PAPERCHAT_LLM_BACKEND=none\n")
    if report.kills:
        print("| kill | papers before | file | delay s | at kill | landed | lost | after | agrees | completing ingest s |")
        print("|---:|---:|---:|---:|---:|---|---:|---:|---|---:|")
        for k in report.kills:
            row = (k.step, k.before, k.target, k.delay_s, k.at_kill, k.landed, k.lost, k.completed, k.agrees, f"{k.complete_s:.1f}")
            print("| " + " | ".join(map(str, row)) + " |")
        survived = sum(k.agrees and not k.lost for k in report.kills)
        print(f"\nkills survived {survived}/{len(report.kills)}, papers lost {sum(k.lost for k in report.kills)}; then {report.answers}\n")
    if report.store:
        print("| store damage | chunks | a search says | an ingest says | rebuilt papers | rebuild s | agrees | found by own vector |")
        print("|---|---:|---|---|---:|---:|---|---|")
        for d in report.store:
            print(f"| {d.shape} | {d.chunks} | {d.message} | {d.ingest_message} | {d.rebuilt_papers} | {d.rebuild_s} | {d.agrees} | {d.found_by_own_vector} |")
        print()
    for name in ("serve", "chroma", "disk", "server_disk", "damage"):
        value = getattr(report, name)
        if value is not None:
            print(f"**{name}**\n")
            for key, item in (asdict(value).items() if not isinstance(value, str) else [("result", value)]):
                print(f"- {key}: {item}")
            print()


if __name__ == "__main__":
    main()
