"""Search latency: paperchat's hybrid search against the plain LangChain recipe.

    .venv/bin/python bench/search.py [--corpus iclr] [--corpus iclr+ml] [--repeat 3]

The plain recipe is `langchain_chroma.Chroma.similarity_search(query, k=10)` with the same
embedding model over the same Chroma collection, in the same process, with the same queries
(the 105 questions of bench/iclr_dev.jsonl), alternating query by query so that any load on
the machine falls on both alike. Indexes are built once under data/bench/ (the first build of
21,470 papers embeds ~40,000 chunks: about an hour on 2 cores) and reused afterwards.
Prints a Markdown table: p50 / p95 per query, the ratio, and the memory of the loaded indexes.
Then the Chinese questions of bench/zh_dev.jsonl (the same index, through the multilingual channel):
their p50 / p95, and what the channel adds to memory and disk.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.api import Paperchat  # noqa: E402
from rag.config import Settings  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
CORPORA = {
    "iclr": [SHARED / "iclr2026" / "papers.jsonl"],
    "iclr+ml": [SHARED / "iclr2026" / "papers.jsonl", SHARED / "ml-abstracts" / "papers.jsonl"],
}


def rss_mb() -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def folder_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20 if path.exists() else 0.0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def bench(corpus: str, repeat: int) -> list[tuple[str, str]]:
    # The 5,358-paper index is the one `paperchat eval retrieval --dataset iclr` builds: built once, used by both.
    if corpus == "iclr":
        data_dir, collection = ROOT / "data" / "eval" / "iclr", "eval-iclr"
    else:  # Chroma collection names allow [a-zA-Z0-9._-] only
        data_dir, collection = ROOT / "data" / "bench" / corpus, f"bench-{corpus.replace('+', '-')}"
    settings = Settings(data_dir=data_dir, chroma_url="", collection=collection, _env_file=None)  # type: ignore[call-arg]
    api = Paperchat(settings)
    report = api.ingest(CORPORA[corpus], progress=True)
    queries = [json.loads(line)["q"] for line in (ROOT / "bench" / "iclr_dev.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]

    rss_start = rss_mb()
    api.seams.embeddings.embed_query("warm up")
    rss_model = rss_mb()
    api.search("warm up")  # loads the BM25 index, the paper table and the Chroma collection
    rss_indexes = rss_mb()

    from langchain_chroma import Chroma

    plain = Chroma(client=api.seams.store()._chroma._client, collection_name=settings.collection, embedding_function=api.seams.embeddings)
    plain.similarity_search("warm up", k=10)

    hybrid_ms: list[float] = []
    plain_ms: list[float] = []
    for _ in range(repeat):
        for query in queries:
            started = time.perf_counter()
            api.search(query, 10)
            hybrid_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            plain.similarity_search(query, k=10)
            plain_ms.append((time.perf_counter() - started) * 1000)

    h50, p50 = statistics.median(hybrid_ms), statistics.median(plain_ms)
    chinese = [json.loads(line)["q"] for line in (ROOT / "bench" / "zh_dev.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    api.search(chinese[0])  # loads the multilingual model, the language detector, jieba and the phrase table
    rss_channel = rss_mb()
    chinese_ms: list[float] = []
    for _ in range(repeat):
        for query in chinese:
            started = time.perf_counter()
            api.search(query, 10)
            chinese_ms.append((time.perf_counter() - started) * 1000)
    phrases = settings.data_dir / "phrases.npz"
    return [
        ("papers / chunks", f"{report.papers:,} / {report.chunks:,}"),
        ("queries timed (each side)", f"{len(hybrid_ms)}"),
        ("plain LangChain Chroma.similarity_search p50 / p95", f"{p50:.1f} / {percentile(plain_ms, 0.95):.1f} ms"),
        ("paperchat hybrid search p50 / p95", f"{h50:.1f} / {percentile(hybrid_ms, 0.95):.1f} ms"),
        ("ratio hybrid / plain (p50; target <= 1.5)", f"{h50 / p50:.2f}"),
        ("RSS: interpreter + libraries / + model / + indexes", f"{rss_start:.0f} / {rss_model:.0f} / {rss_indexes:.0f} MB"),
        (
            "on disk: Chroma / BM25 / catalogue",
            f"{folder_mb(settings.chroma_dir):.0f} / {folder_mb(settings.lexical_dir):.0f} / {settings.catalog_path.stat().st_size / 2**20:.0f} MB",
        ),
        (
            f"paperchat search, {len(chinese)} Chinese questions, p50 / p95 (target p50 <= 60 ms)",
            f"{statistics.median(chinese_ms):.1f} / {percentile(chinese_ms, 0.95):.1f} ms",
        ),
        ("RSS added by the Chinese path (multilingual model, lingua, jieba, phrase table)", f"{rss_channel - rss_indexes:.0f} MB"),
        ("on disk: the phrase table", f"{phrases.stat().st_size / 2**20:.0f} MB" if phrases.exists() else "-"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", choices=sorted(CORPORA), help="iclr (5,358) and/or iclr+ml (21,470)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for corpus in args.corpus or ["iclr"]:
        rows = bench(corpus, args.repeat)
        print(f"\n### {corpus}\n\n| measure | value |\n|---|---|")
        for name, value in rows:
            print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
