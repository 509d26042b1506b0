"""Ingest throughput: the whole pipeline against sentence-transformers `encode` alone.

    .venv/bin/python bench/ingest.py [--papers ../shared/data/iclr2026/papers.jsonl] [--shards 8] [--limit N]

The corpus is split into shards (temporary files, deleted afterwards); for each shard the
baseline (`SentenceTransformer.encode` on exactly the chunk texts the pipeline will embed,
same batch size, same process) and then `Paperchat.ingest` of that shard are timed back to
back, so a load on the machine that comes and goes hits both sides alike. Each shard is also
ingested into a second index with the multilingual channel turned off (PAPERCHAT_MULTILINGUAL=false),
just before or just after, in turns: the channel's cost is the difference, side by side in one run.
Then the whole corpus is ingested again unchanged. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.api import Paperchat  # noqa: E402
from rag.chunking import chunk_papers  # noqa: E402
from rag.config import Settings  # noqa: E402
from rag.corpus import load_papers  # noqa: E402
from rag.embeddings import sentence_transformer  # noqa: E402

DEFAULT_PAPERS = ROOT.parent / "shared" / "data" / "iclr2026" / "papers.jsonl"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def folder_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=Path, default=DEFAULT_PAPERS)
    parser.add_argument("--shards", type=int, default=8)
    parser.add_argument("--limit", type=int, default=0, help="only the first N records (a quick check)")
    args = parser.parse_args()

    lines = [line for line in args.papers.read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.limit:
        lines = lines[: args.limit]
    with tempfile.TemporaryDirectory(prefix="paperchat-bench-") as tmp:
        shard_paths = []
        per_shard = -(-len(lines) // args.shards)
        for i in range(args.shards):
            path = Path(tmp) / f"shard{i:02d}.jsonl"
            path.write_text("\n".join(lines[i * per_shard : (i + 1) * per_shard]) + "\n", encoding="utf-8")
            shard_paths.append(path)

        # Never the user's .env or Chroma server: a private store in the temporary folder.
        settings = Settings(data_dir=Path(tmp) / "data", chroma_url="", _env_file=None)  # type: ignore[call-arg]
        api = Paperchat(settings)
        without = Paperchat(settings.model_copy(update={"data_dir": Path(tmp) / "data-without", "multilingual": False}))
        # Warm up (model load, first-call allocations) outside the timings; the baseline
        # uses the pipeline's own SentenceTransformer, so the model is in memory once.
        api.seams.embeddings.embed_query("warm up")
        model = sentence_transformer(settings)
        rss_loaded = peak_rss_mb()
        assert api.seams.multilingual is not None, api.seams.multilingual_problem
        rss_multilingual = peak_rss_mb()

        base_s = pipe_s = without_s = 0.0
        n_chunks = 0
        for number, path in enumerate(shard_paths):
            loaded = load_papers([path])
            texts = [c.embed_text for c in chunk_papers(loaded.papers, api.seams.plan.count_tokens, api.seams.plan.max_tokens)]
            started = time.perf_counter()
            model.encode(texts, batch_size=settings.embedding_batch_size, normalize_embeddings=True)
            base_s += time.perf_counter() - started
            # With and without the channel in turns, each going first every other shard: three runs
            # of the same 1,000 papers with the channel always second gave +14.4, +17.4 and +10.5 %.
            for which in (api, without) if number % 2 == 0 else (without, api):
                started = time.perf_counter()
                report = which.ingest([path])
                took = time.perf_counter() - started
                if which is api:
                    pipe_s += took
                    assert report.embedded == len(texts), (report.embedded, len(texts))
                else:
                    without_s += took
            n_chunks += len(texts)
            print(f"shard {path.name}: {len(texts)} chunks, baseline {base_s:.0f} s, pipeline {pipe_s:.0f} s so far", file=sys.stderr)

        started = time.perf_counter()
        again = api.ingest(shard_paths)
        reingest_s = time.perf_counter() - started
        disk_with, disk_without = folder_mb(settings.chroma_dir), folder_mb(without.settings.chroma_dir)

    rows = [
        ("papers", f"{again.papers:,}"),
        ("chunks", f"{n_chunks:,}"),
        ("encode alone (sentence-transformers)", f"{n_chunks / base_s:.1f} chunks/s ({base_s:.0f} s)"),
        ("paperchat ingest (parse, chunk, embed, Chroma, catalogue)", f"{n_chunks / pipe_s:.1f} chunks/s ({pipe_s:.0f} s)"),
        ("ratio pipeline / encode (target >= 0.85)", f"{base_s / pipe_s:.3f}"),
        ("paperchat ingest without the multilingual channel", f"{n_chunks / without_s:.1f} chunks/s ({without_s:.0f} s)"),
        ("time added by the multilingual channel (target <= 15 %)", f"{(pipe_s - without_s) / without_s:+.1%}"),
        ("Chroma on disk with / without the channel", f"{disk_with:.0f} / {disk_without:.0f} MB"),
        ("RSS added by loading the multilingual model", f"{rss_multilingual - rss_loaded:.0f} MB"),
        ("re-ingest unchanged: seconds", f"{reingest_s:.2f}"),
        ("re-ingest unchanged: texts embedded (target 0)", f"{again.embedded}"),
        ("peak RSS after model load", f"{rss_loaded:.0f} MB"),
        ("peak RSS of the whole run", f"{peak_rss_mb():.0f} MB"),
    ]
    print("| measure | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    print(json.dumps({"chunks": n_chunks, "baseline_s": base_s, "pipeline_s": pipe_s, "reingest_s": reingest_s}), file=sys.stderr)


if __name__ == "__main__":
    main()
