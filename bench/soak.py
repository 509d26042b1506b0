"""Soak: many concurrent app sessions for minutes, an ingest beside them, then the index checked.

    .venv/bin/python bench/soak.py [--sessions 32] [--seconds 300] [--base-papers 200] [--side-ingest 1000]

Loopback only, bounded in time and requests, and it stops by itself:
1. a fresh data dir: the seeds/ folder plus --base-papers ICLR 2026 papers (../shared/data,
   written to a tmp .jsonl), ingested by `paperchat ingest`;
2. `paperchat serve` on a free loopback port (a subprocess; RSS read from /proc, children included);
3. --sessions gradio_client sessions for --seconds, each looping over the app's named endpoints:
   `/ask` in every mode, `/search`, `/add_papers` with a good small .jsonl of new ICLR papers or a
   bad file (not JSON, empty, a .txt of one line); a clear refusal of a bad file is a right
   answer, an error on a good request is a failure, queue waits are neither;
4. beside them, `paperchat ingest` of --side-ingest other ICLR papers into the same data dir: it and
   the app's uploads take turns on the ingest file lock (rag/seams.py);
5. the server stopped, the data dir read again: catalogue, store (both collections) and BM25 hold
   the same papers, every paper the ingests and the good uploads added is in all three, and each
   paper's vector is found by a vector search (the store's own index, not only its id list).
Prints a table; exits 1 when a check fails. Every figure is measured in this run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: `bench.app` and this checkout's rag/ui
    sys.path.insert(0, str(ROOT))

from bench.app import free_port, rss_mb  # noqa: E402
from rag.text import citations  # noqa: E402

ICLR = ROOT.parent / "shared" / "data" / "iclr2026" / "papers.jsonl"
SEEDS = ROOT / "seeds"

# Questions about the 51 seeds (ICLR 2026 papers, so they also hold over the larger corpus), one
# list per mode the endpoint takes; "auto" draws from all of them (and a Chinese one, which takes the
# multilingual channel and rebuilds its phrase table after each ingest).
QUESTIONS: dict[str, list[str]] = {
    "answer": [
        "How does ReST-KV evict KV cache entries?",
        "When does SureLock lock a token position?",
        "What data is BrainGFM pre-trained on?",
        "How fast does FlashWorld generate 3D scenes?",
        "What are the limitations of WinT3R?",
    ],
    "summarize": [
        "Summarize the papers on KV cache compression",
        "Catch me up on 3D scene generation",
        "What is the state of research on graph neural networks?",
    ],
    "compare": ["Compare ReST-KV and SureLock", "Compare WinT3R and FlashWorld", "How does DiffMJX differ from ToonComposer?"],
    "list": ["Which papers use reinforcement learning?", "How many papers are about diffusion models?", "Which papers evaluate on ImageNet?"],
    "check": ["Is it true that FlashWorld generates 3D scenes in seconds?", "Is it true that SureLock increases FLOPs?"],
}
QUESTIONS["auto"] = [q for qs in QUESTIONS.values() for q in qs] + ["SureLock 是做什么的？"]
SEARCHES = ["KV cache eviction", "3D reconstruction from video", "diffusion model distillation", "brain foundation model", "speculative decoding"]

# How often a session picks each request (weights): mostly questions, as readers use the app.
MIX = {"/ask": 60, "/search": 25, "/add_papers good": 7, "/add_papers bad": 8}
BAD_FILES = {"not-json.jsonl": "this line is not JSON\n{\"abstract\": \n", "empty.jsonl": "", "one-line.txt": "Just a header line\n"}
# A refusal says what is wrong and that nothing was added (ui/handlers.py, ui/render.py).
REFUSED = re.compile(r"Nothing was added|nothing was added|not a \.txt|Choose one or more", re.I)


@dataclass
class Call:
    endpoint: str  # "/ask answer", "/search", "/add_papers good", ...
    seconds: float
    ok: bool
    detail: str = ""


@dataclass
class Soak:
    """What one run saw; `checks` are (what, passed, the figures)."""

    sessions: int
    seconds: float
    calls: list[Call] = field(default_factory=list)
    rss_mb: dict[str, float] = field(default_factory=dict)
    side: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    checks: list[tuple[str, bool, str]] = field(default_factory=list)
    load_start: float = 0.0  # the 1-minute load average: other work on the machine slows every figure
    load_end: float = 0.0

    @property
    def ok(self) -> bool:
        return all(passed for _, passed, _ in self.checks)


# -- the data -------------------------------------------------------------------------------


def _iclr_records(papers: Path, exclude_keys: set[str]) -> list[dict[str, Any]]:
    from rag.corpus import abstract_key

    records = [json.loads(line) for line in papers.read_text(encoding="utf-8").splitlines() if line.strip()]
    # A seed's abstract as an ICLR record would merge with the seed (its id replacing the seed's hash id).
    return [r for r in records if r.get("abstract") and abstract_key(str(r["abstract"])) not in exclude_keys]


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


@dataclass
class Data:
    base: Path  # the ICLR part of the first ingest (beside seeds/)
    side: Path  # the ingest beside the sessions
    side_ids: set[str]
    base_ids: set[str]
    seed_ids: set[str]
    pool: list[dict[str, Any]]  # fresh papers for good uploads, taken in order
    bad: list[Path]


def prepare(folder: Path, papers: Path, base_papers: int, side_papers: int, seed: int) -> Data:
    from rag.corpus import load_papers

    seeds = load_papers([SEEDS]).papers
    records = _iclr_records(papers, {p.abstract_key for p in seeds})
    random.Random(seed).shuffle(records)
    base, side, pool = records[:base_papers], records[base_papers : base_papers + side_papers], records[base_papers + side_papers :]
    bad = []
    for name, text in BAD_FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
        bad.append(folder / name)
    return Data(
        base=write_jsonl(folder / "base.jsonl", base),
        side=write_jsonl(folder / "side.jsonl", side),
        side_ids={str(r["id"]) for r in side},
        base_ids={str(r["id"]) for r in base},
        seed_ids={p.paper_id for p in seeds},
        pool=pool,
        bad=bad,
    )


def environment(data_dir: Path, llm_backend: str) -> dict[str, str]:
    """This checkout's code and only these settings: a developer's PAPERCHAT_* must not leak in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERCHAT_")}
    return env | {
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "PAPERCHAT_DATA_DIR": str(data_dir),
        "PAPERCHAT_LLM_BACKEND": llm_backend,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "GRADIO_ANALYTICS_ENABLED": "False",
    }


def note(text: str) -> None:
    print(f"[soak {time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.1f}] {text}", file=sys.stderr, flush=True)


def paperchat(*args: str) -> list[str]:
    return [sys.executable, "-m", "ui.serve", *args]


# -- the sessions ---------------------------------------------------------------------------


class Uploads:
    """Fresh papers for good uploads, each handed out once, and the ids the app accepted."""

    def __init__(self, folder: Path, pool: list[dict[str, Any]], per_file: int) -> None:
        self.folder, self.pool, self.per_file = folder, pool, per_file
        self.lock = threading.Lock()
        self.next = 0
        self.numbers = itertools.count()
        self.accepted: set[str] = set()

    def take(self) -> tuple[Path, set[str]]:
        with self.lock:
            records = self.pool[self.next : self.next + self.per_file]
            self.next += self.per_file
            number = next(self.numbers)
        if not records:
            raise RuntimeError("the upload pool is used up; lower --seconds or the good-upload share")
        return write_jsonl(self.folder / f"good-{number:04d}.jsonl", records), {str(r["id"]) for r in records}


def _ask_problem(result: Any, question: str) -> str:
    """What is wrong with an /ask result by its contract (docs/ARCHITECTURE.md), or ""."""
    if not isinstance(result, dict) or not isinstance(result.get("answer"), str) or not result["answer"].strip():
        return f"no answer document: {str(result)[:200]}"
    if result.get("question") != question:
        return f"answered another question: {result.get('question')!r}"
    cited = set(citations(result["answer"]))
    numbers = {s.get("n") for s in result.get("sources", [])}
    if not cited <= numbers:
        return f"cites {sorted(cited - numbers)} not among its sources {sorted(numbers)}"
    return ""


def session(url: str, deadline: float, start: int, rng: random.Random, uploads: Uploads, bad: list[Path], calls: list[Call], lock: threading.Lock) -> None:
    from gradio_client import Client, handle_file

    client = Client(url, verbose=False)
    kinds, weights = list(MIX), list(MIX.values())
    # The first request of session i is kind i (mod 4), so that even a short run asks every endpoint.
    first = [kinds[start % len(kinds)]]
    while time.monotonic() < deadline:
        kind = first.pop() if first else rng.choices(kinds, weights)[0]
        expected: set[str] = set()
        started = time.perf_counter()
        try:
            if kind == "/ask":
                mode = rng.choice(list(QUESTIONS))
                question = rng.choice(QUESTIONS[mode])
                kind = f"/ask {mode}"
                problem = _ask_problem(client.predict(question, mode, [], api_name="/ask"), question)
            elif kind == "/search":
                query, k = rng.choice(SEARCHES), rng.randint(1, 20)
                result = client.predict(query, k, api_name="/search")
                rows = result.get("results", []) if isinstance(result, dict) else None
                problem = "" if rows and len(rows) <= k and all(r.get("paper_id") for r in rows) else f"bad results for k={k}: {str(result)[:200]}"
            elif kind == "/add_papers good":
                path, expected = uploads.take()
                report, _status = client.predict([handle_file(str(path))], api_name="/add_papers")
                problem = "" if report.startswith("✅") and f"**{len(expected)} added**" in report else f"not added: {report[:300]}"
                if not problem:
                    with uploads.lock:
                        uploads.accepted |= expected
            else:
                path = rng.choice(bad)
                try:
                    report, _status = client.predict([handle_file(str(path))], api_name="/add_papers")
                except Exception as exc:  # gr.Error arrives as gradio_client's AppError: a refusal, if it says so
                    report = str(exc)
                problem = "" if REFUSED.search(report) else f"{path.name} not clearly refused: {report[:300]}"
        except Exception as exc:  # any error on a good request is the finding this bench looks for
            problem = f"{type(exc).__name__}: {str(exc)[:300]}"
        call = Call(kind, time.perf_counter() - started, not problem, problem)
        with lock:
            calls.append(call)


# -- the run --------------------------------------------------------------------------------


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(url + "/", timeout=2).close()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"paperchat serve did not start; see {log}") from None
            time.sleep(0.3)


def run(
    sessions: int,
    seconds: float,
    base_papers: int,
    side_papers: int,
    *,
    folder: Path,
    papers: Path = ICLR,
    upload_papers: int = 2,
    seed: int = 17,
    llm_backend: str = "local",
    side_delay_s: float = 10.0,
) -> Soak:
    """One soak in `folder` (its data dir, files and the server's log stay there); `papers`: the ICLR
    2026 JSONL; `llm_backend`: PAPERCHAT_LLM_BACKEND of the server; `side_delay_s`: when the side
    ingest starts after the sessions."""
    from gradio_client import Client

    data = prepare(folder, papers, base_papers, side_papers, seed)
    data_dir = folder / "data"
    env = environment(data_dir, llm_backend)
    first = [str(SEEDS), str(data.base)] if base_papers else [str(SEEDS)]
    note(f"ingesting the seeds and {base_papers} ICLR papers into {data_dir}")
    ingest = subprocess.run(paperchat("ingest", *first), env=env, cwd=folder, capture_output=True, text=True, timeout=1800)
    if ingest.returncode:
        raise RuntimeError(f"the first ingest failed ({ingest.returncode}): {ingest.stderr[-2000:]}")

    soak = Soak(sessions, seconds, load_start=os.getloadavg()[0])
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = folder / "server.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(paperchat("serve", "--host", "127.0.0.1", "--port", str(port)), env=env, cwd=folder, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_ready(url, server, log, 300)
            Client(url, verbose=False).predict("warm up", 3, api_name="/search")  # the models loaded: RSS "at start"
            soak.rss_mb["start"] = rss_mb(server.pid)
            note(f"server ready ({soak.rss_mb['start']:.0f} MB); {sessions} sessions for {seconds:.0f} s")
            calls: list[Call] = []
            lock = threading.Lock()
            uploads = Uploads(folder, data.pool, upload_papers)
            started = time.monotonic()
            deadline = started + seconds
            threads = [
                threading.Thread(target=session, args=(url, deadline, i, random.Random(seed * 1000 + i), uploads, data.bad, calls, lock), daemon=True)
                for i in range(sessions)
            ]
            for thread in threads:
                thread.start()
            side = None
            if side_papers:
                time.sleep(side_delay_s)  # the sessions are under way when the ingest starts
                side_started = time.monotonic()
                note(f"side ingest of {side_papers} papers starts")
                side = subprocess.Popen(paperchat("ingest", "--json", str(data.side)), env=env, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            # RSS at D-180 s (or the start, for a shorter run): growth over the last 3 minutes is the leak test.
            mid_at = started + max(0.0, seconds - 180)
            while time.monotonic() < mid_at:
                time.sleep(min(1.0, max(0.0, mid_at - time.monotonic())))
            soak.rss_mb["mid"] = rss_mb(server.pid)
            soak.rss_mb["mid_at_s"] = time.monotonic() - started
            note(f"RSS {soak.rss_mb['mid']:.0f} MB at {soak.rss_mb['mid_at_s']:.0f} s")
            while time.monotonic() < deadline:
                time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
            soak.rss_mb["end"] = rss_mb(server.pid)  # at D: the end of the 3 minutes
            note(f"D reached: RSS {soak.rss_mb['end']:.0f} MB; waiting for the requests in flight")
            for thread in threads:
                thread.join(timeout=max(0.0, deadline - time.monotonic()) + 900)  # a request started at D may still be queued
            soak.rss_mb["drained"] = rss_mb(server.pid)
            soak.rss_mb["drained_at_s"] = time.monotonic() - started
            soak.calls = calls
            note(f"sessions done: {len(calls)} requests; RSS {soak.rss_mb['drained']:.0f} MB")
            hung = sum(thread.is_alive() for thread in threads)
            soak.checks.append(("every session ended within 15 min of D", not hung, f"{hung} still running"))
            if side is not None:
                out_text, err_text = side.communicate(timeout=3600)
                note("side ingest done")
                took = time.monotonic() - side_started
                soak.side = {"returncode": side.returncode, "seconds": took, "report": _json_or(out_text), "stderr": err_text[-2000:]}
        finally:
            server.terminate()
            server.wait(timeout=60)
    soak.load_end = os.getloadavg()[0]
    note("checking the index")
    (folder / "calls.jsonl").write_text("".join(json.dumps(vars(c)) + "\n" for c in soak.calls), encoding="utf-8")
    try:
        soak.counts, index_checks = check_index(data_dir, data, uploads.accepted, soak.side)
    except Exception as exc:  # a store that cannot be read is the worst finding, not a crash of the bench
        index_checks = [("the index can be read", False, f"{type(exc).__name__}: {exc}")]
    soak.checks = _call_checks(soak) + soak.checks + index_checks
    return soak


def _json_or(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode(errors="replace")[-2000:]


def _call_checks(soak: Soak) -> list[tuple[str, bool, str]]:
    failed = [c for c in soak.calls if not c.ok]
    growth = soak.rss_mb["end"] / soak.rss_mb["mid"] - 1  # from D-180 s to D
    shown = "; ".join(f"{c.endpoint}: {c.detail}" for c in failed[:5])
    return [
        ("requests done", bool(soak.calls), f"{len(soak.calls)}"),
        ("no request failed", not failed, f"{len(failed)} failed" + (f" (first: {shown})" if failed else "")),
        ("RSS growth over the last 3 minutes ≤ 10 %", growth <= 0.10, f"{growth * 100:+.2f} %"),
    ]


def check_index(data_dir: Path, data: Data, uploaded: set[str], side: dict[str, Any]) -> tuple[dict[str, int], list[tuple[str, bool, str]]]:
    """Catalogue, both store collections and BM25 read afresh (the server stopped): the same papers,
    every added one among them, every paper's vector found by a search of the store's index."""
    from langchain_core.embeddings import Embeddings

    from rag.api import Paperchat
    from rag.config import Settings

    class NothingEmbedded(Embeddings):
        """The stores are read by id and by their own stored vectors: no model needs to load."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            raise AssertionError("the index check embeds nothing")

        def embed_query(self, text: str) -> list[float]:
            raise AssertionError("the index check embeds nothing")

    api = Paperchat(Settings(data_dir=data_dir, _env_file=None), embeddings=NothingEmbedded(), multilingual=NothingEmbedded())  # type: ignore[call-arg]
    try:
        entries = api.seams.catalog.entries()
        store = api.seams.store()
        stored = store.chunk_ids()
        catalogued = {cid for e in entries.values() for cid in e.chunk_ids()}
        channel = api.seams.multilingual_store()
        channel_ids = channel.chunk_ids() if channel is not None else set()
        lexical = api.seams.lexical
        lexical.load()
        bm25 = set(lexical.fingerprint())
        store_papers = {cid.rsplit("#", 1)[0] for cid in stored}
        vectors = store.paper_vectors(None)
        unfound = [p for p, vector in vectors.items() if p not in {h.paper_id for h in store.search_by_vector(vector, 10, with_text=False)}]
    finally:
        api.seams.close()
    side_ok = side.get("returncode", 0) == 0
    added = data.seed_ids | data.base_ids | (data.side_ids if side_ok and side else set()) | uploaded
    papers = set(entries)
    counts = {
        "catalogue papers": len(papers),
        "store papers": len(store_papers),
        "store chunks": len(stored),
        "catalogue chunks": len(catalogued),
        "multilingual chunks": len(channel_ids),
        "BM25 papers": len(bm25),
        "papers added (seeds, base, side ingest, good uploads)": len(added),
        "of them by good uploads": len(uploaded),
    }
    lost = {name: sorted(added - held)[:5] for name, held in (("catalogue", papers), ("store", store_papers), ("BM25", bm25)) if added - held}
    first_chunks = {f"{p}#0" for p in papers}
    checks = [
        ("the side ingest succeeded", side_ok, f"exit {side.get('returncode')}" if side else "not run"),
        ("catalogue = store = BM25 (papers)", papers == store_papers == bm25, f"{len(papers)} / {len(store_papers)} / {len(bm25)}"),
        ("store chunks = the catalogue's", stored == catalogued, f"{len(stored)} / {len(catalogued)}"),
        ("multilingual channel: each paper's first chunk", channel is None or channel_ids == first_chunks, f"{len(channel_ids)} / {len(first_chunks)}"),
        ("no added paper lost", not lost, json.dumps(lost) if lost else f"all {len(added)} in all three"),
        ("each paper found by its own vector (top 10)", not unfound, f"{len(unfound)} of {len(vectors)} not found" + (f": {unfound[:5]}" if unfound else "")),
    ]
    return counts, checks


# -- the report -----------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def table(soak: Soak) -> str:
    by: dict[str, list[Call]] = defaultdict(list)
    for call in soak.calls:
        by[call.endpoint].append(call)
    out = [
        f"Soak: {soak.sessions} sessions for {soak.seconds:.0f} s; {len(soak.calls)} requests; "
        f"{os.cpu_count()} cores, load average {soak.load_start:.1f} at the start, {soak.load_end:.1f} at the end",
        "",
        "| endpoint | done | failed | p50 s | p95 s | max s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in sorted(by):
        times = [c.seconds for c in by[name]]
        failed = sum(not c.ok for c in by[name])
        out.append(f"| {name} | {len(times)} | {failed} | {percentile(times, 50):.2f} | {percentile(times, 95):.2f} | {max(times):.2f} |")
    rss = soak.rss_mb
    out += [
        "",
        f"| server RSS (MB, with children) | start | at {rss['mid_at_s']:.0f} s | at D = {soak.seconds:.0f} s "
        f"| the last request answered ({rss['drained_at_s']:.0f} s) |",
        "|---|---:|---:|---:|---:|",
        f"| VmRSS | {rss['start']:.0f} | {rss['mid']:.0f} | {rss['end']:.0f} | {rss['drained']:.0f} |",
    ]
    if soak.side:
        report = soak.side["report"] if isinstance(soak.side["report"], dict) else {}
        out += ["", f"Side ingest: exit {soak.side['returncode']}, {soak.side['seconds']:.0f} s, "
                f"added {report.get('added', '?')}, papers {report.get('papers', '?')}, errors {len(report.get('errors', []) or [])}"]
    out += ["", "| count after | n |", "|---|---:|"] + [f"| {k} | {v:,} |" for k, v in soak.counts.items()]
    out += ["", "| check | result | figures |", "|---|---|---|"]
    out += [f"| {name} | {'pass' if ok else '**FAIL**'} | {detail} |" for name, ok, detail in soak.checks]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--base-papers", type=int, default=200, help="ICLR papers ingested with the seeds before the server starts")
    parser.add_argument("--side-ingest", type=int, default=1000, help="ICLR papers `paperchat ingest` adds while the sessions run (0: none)")
    parser.add_argument("--upload-papers", type=int, default=2, help="papers in each good upload")
    parser.add_argument("--papers", type=Path, default=ICLR, help="the ICLR 2026 papers (JSONL, read only)")
    parser.add_argument("--keep", type=Path, help="a folder to keep the data dir and the server log in (default: a temporary one)")
    args = parser.parse_args()
    if not args.papers.exists():
        print(f"{args.papers} is missing: the soak needs the ICLR 2026 papers.", file=sys.stderr)
        return 2
    print(f"machine: {os.cpu_count()} cores; load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        soak = run(args.sessions, args.seconds, args.base_papers, args.side_ingest, folder=folder, papers=args.papers, upload_papers=args.upload_papers)
    print(table(soak))
    return 0 if soak.ok else 1


if __name__ == "__main__":
    sys.exit(main())
