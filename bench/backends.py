"""The encoder backends side by side (PAPERCHAT_EMBEDDING_BACKEND, issue 16): speed, agreement
with torch fp32, and what a query costs.

    .venv/bin/python bench/backends.py [--texts 200] [--chunks 1000] [--rounds 3] [--index DIR]

Per backend, in one process, through the seam paperchat uses (`embeddings.make_embeddings`):
- texts/s encoding the first N ICLR 2026 abstracts (title + abstract), wall clock and per CPU
  second; rounds alternate the backends so that load on the machine from elsewhere hits all
  alike, and the best round counts;
- worst and mean cosine against torch fp32 over the first M chunks paperchat cuts from ICLR;
- `embed_query` p50 over the 105 questions of bench/iclr_dev.jsonl, alternated question by question;
- with --index (a data dir built by `paperchat eval retrieval --dataset iclr`, collection
  eval-iclr): a hybrid search's p50 over the same questions, the index searched with each float backend.
Exports are built under --data-dir (default data/bench-encoders) once and reused.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.config import Settings  # noqa: E402
from rag.embeddings import backend_shown, make_embeddings, make_token_counter  # noqa: E402
from rag.encoders import BACKENDS, FAMILY  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
ICLR = SHARED / "iclr2026" / "papers.jsonl"


def abstracts(count: int) -> list[str]:
    records = [json.loads(line) for line in ICLR.read_text(encoding="utf-8").splitlines()[:count]]
    return [f"{r['title']}\n{r['abstract']}" for r in records]


def chunks(count: int, settings: Settings) -> list[str]:
    from rag.chunking import chunk_papers
    from rag.corpus import load_papers

    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "papers.jsonl"
        source.write_text("\n".join(ICLR.read_text(encoding="utf-8").splitlines()[:count]), encoding="utf-8")
        papers = load_papers([source]).papers
    counter, window = make_token_counter(settings)
    return [c.text for c in chunk_papers(papers, counter, window)[:count]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--chunks", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated; torch is always measured (the reference)")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "data" / "bench-encoders")
    parser.add_argument("--index", type=Path, help="an ICLR eval data dir: also time hybrid search with each float backend")
    parser.add_argument("--data-root", type=Path, default=SHARED, help="the folder holding iclr2026/ (from a worktree: /work/shared/data)")
    args = parser.parse_args()
    global ICLR
    ICLR = args.data_root / "iclr2026" / "papers.jsonl"

    names = ["torch", *[b for b in args.backends.split(",") if b and b != "torch"]]
    settings = {b: Settings(data_dir=args.data_dir, embedding_backend=b, embedding_device="cpu", _env_file=None) for b in names}  # type: ignore[call-arg]
    models = {b: make_embeddings(s) for b, s in settings.items()}
    texts = abstracts(args.texts)
    for model in models.values():
        model.embed_documents(texts[:8])  # loads (and on the first run exports) the model

    wall: dict[str, list[float]] = {b: [] for b in names}
    cpu: dict[str, list[float]] = {b: [] for b in names}
    for _ in range(args.rounds):
        for name in names:
            started, started_cpu = time.perf_counter(), time.process_time()
            models[name].embed_documents(texts)
            wall[name].append(len(texts) / (time.perf_counter() - started))
            cpu[name].append(len(texts) / (time.process_time() - started_cpu))

    windows = chunks(args.chunks, settings["torch"])
    vectors = {b: np.array(models[b].embed_documents(windows)) for b in names}
    cosines = {b: (vectors[b] * vectors["torch"]).sum(axis=1) for b in names}

    questions = [json.loads(line)["q"] for line in (ROOT / "bench" / "iclr_dev.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    query_ms: dict[str, list[float]] = {b: [] for b in names}
    for question in questions:
        for name in names:
            started = time.perf_counter()
            models[name].embed_query(question)
            query_ms[name].append((time.perf_counter() - started) * 1000)

    search_ms: dict[str, list[float]] = {}
    if args.index:
        from rag.api import Paperchat

        apis = {}
        for name in names:
            if FAMILY[name] != "float":  # an int8 backend may not search a float index (rag/store.py)
                continue
            apis[name] = Paperchat(settings[name].model_copy(update={"data_dir": args.index, "collection": "eval-iclr"}))
            apis[name].search("warm up")
            search_ms[name] = []
        for question in questions:
            for name, api in apis.items():
                started = time.perf_counter()
                api.search(question, 10)
                search_ms[name].append((time.perf_counter() - started) * 1000)

    print(f"{args.texts} ICLR abstracts, {len(windows)} chunks, {len(questions)} questions, best of {args.rounds} alternated rounds\n")
    print("| backend | texts/s (wall, best) | texts per CPU-s (best) | x torch (wall) | worst / mean cosine to torch | embed_query p50 ms | search p50 ms |")
    print("|---|---:|---:|---:|---|---:|---:|")
    for name in names:
        search = f"{statistics.median(search_ms[name]):.1f}" if name in search_ms else "-"
        print(
            f"| {name} ({backend_shown(settings[name])}) | {max(wall[name]):.1f} | {max(cpu[name]):.1f} | {max(wall[name]) / max(wall['torch']):.2f} "
            f"| {cosines[name].min():.5f} / {cosines[name].mean():.6f} | {statistics.median(query_ms[name]):.1f} | {search} |"
        )


if __name__ == "__main__":
    main()
