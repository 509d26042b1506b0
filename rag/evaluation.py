"""Retrieval quality on labelled data: SciFact (BEIR) and the ICLR 2026 dev set.

`paperchat eval retrieval --dataset scifact|iclr` ingests the dataset into its own data
directory (kept, so a second run embeds nothing), runs every query in every mode, and
reports the standard metrics. The data stay in ../shared/data; only scores are printed.
"""

from __future__ import annotations

import csv
import json
import math
import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rag.api import Paperchat
from rag.config import Settings
from rag.errors import PaperchatError

DEV_SET = Path(__file__).resolve().parents[1] / "bench" / "iclr_dev.jsonl"
ZH_DEV_SET = DEV_SET.with_name("zh_dev.jsonl")
# 16 questions about one seed paper each and 14 about nothing in the seeds, written blind after the
# Chinese channel and its cuts were settled: a third held-out part, split "fresh".
ZH_FRESH_SET = DEV_SET.with_name("zh_fresh.jsonl")
CONFIGS: tuple[tuple[str, str], ...] = (("bm25", "-"), ("dense", "-"), ("hybrid", "rrf"), ("hybrid", "weighted"))


@dataclass(frozen=True)
class Query:
    qid: str
    text: str
    gold: frozenset[str]
    kind: str  # scifact | idea | name | theme | out
    split: str = ""  # dev | heldout | fresh, for a dev set that keeps a held-out part (reported apart)


@dataclass
class Scores:
    values: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, value: float) -> None:
        self.values.setdefault(name, []).append(value)

    def means(self) -> dict[str, float]:
        return {name: round(statistics.fmean(v), 4) for name, v in self.values.items() if v}


# -- metrics (binary relevance) -----------------------------------------------------------


def ndcg_at(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, p in enumerate(ranked[:k]) if p in gold)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal if ideal else 0.0


def recall_at(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    return len(gold.intersection(ranked[:k])) / len(gold) if gold else 0.0


def mrr_at(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    return next((1.0 / (i + 1) for i, p in enumerate(ranked[:k]) if p in gold), 0.0)


def roc_auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """Probability that a random in-corpus question scores above a random out-of-corpus one."""
    if not positives or not negatives:
        return float("nan")
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def best_threshold(positives: Sequence[float], negatives: Sequence[float]) -> tuple[float, float]:
    """The relevance cut that classifies in/out-of-corpus questions best, and its accuracy."""
    candidates = sorted(set(positives) | set(negatives))
    best = (0.0, 0.0)
    for cut in candidates:
        correct = sum(p >= cut for p in positives) + sum(n < cut for n in negatives)
        accuracy = correct / (len(positives) + len(negatives))
        if accuracy > best[1]:
            best = (cut, accuracy)
    return best


# -- datasets -----------------------------------------------------------------------------


def scifact(root: Path) -> tuple[list[Path], list[Query]]:
    folder = root / "scifact"
    if not folder.is_dir():
        raise PaperchatError(f"SciFact not found at {folder}; pass --data-root pointing at the folder that holds scifact/.")
    gold: dict[str, set[str]] = {}
    with open(folder / "qrels" / "test.tsv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if int(row["score"]) > 0:
                gold.setdefault(row["query-id"], set()).add(row["corpus-id"])
    queries = [
        Query(obj["_id"], obj["text"], frozenset(gold[obj["_id"]]), "scifact")
        for obj in _jsonl(folder / "queries_test.jsonl")
        if obj["_id"] in gold
    ]
    return [folder / "corpus.jsonl"], queries


def iclr_zh(root: Path) -> tuple[list[Path], list[Query]]:
    """The Chinese dev set over the same 5,358 papers: questions about one paper (by its idea, by
    its name), themes, and questions about nothing in ICLR 2026; conversations and questions only
    the seeds lack are for bench/answer.py."""
    files, queries = iclr(root, ZH_DEV_SET)
    queries += iclr(root, ZH_FRESH_SET)[1]
    return files, [q for q in queries if q.kind in ("idea", "name", "theme", "out")]


def iclr(root: Path, dev_set: Path = DEV_SET) -> tuple[list[Path], list[Query]]:
    papers_path = root / "iclr2026" / "papers.jsonl"
    if not papers_path.is_file():
        raise PaperchatError(f"ICLR 2026 records not found at {papers_path}; pass --data-root.")
    records = list(_jsonl(papers_path))
    queries: list[Query] = []
    for number, item in enumerate(_jsonl(dev_set), start=1):
        kind = item["type"]
        if kind == "theme":
            pattern = re.compile(item["title_pattern"], re.IGNORECASE)
            area = item.get("primary_area")
            gold = frozenset(r["id"] for r in records if pattern.search(r["title"]) and (area is None or r["primary_area"] == area))
            if "gold_count" in item and len(gold) != item["gold_count"]:
                raise PaperchatError(f"{dev_set}:{number}: the theme matches {len(gold)} titles, the dev set expects {item['gold_count']}.")
        else:
            gold = frozenset(item.get("gold", ()))
        if kind == "out" and item.get("scope", "iclr") != "iclr":
            continue  # out of the seeds only: ICLR 2026 has papers about it
        queries.append(Query(item.get("id", f"{kind}-{number}"), item["q"], gold, kind, item.get("split", "")))
    return [papers_path], queries


def _jsonl(path: Path) -> Iterable[dict]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


# -- running ------------------------------------------------------------------------------


def evaluate(
    dataset: str, data_root: Path, index_dir: Path, base: Settings | None = None, progress: bool = True, limit: int = 0
) -> dict[str, object]:
    loaders = {"scifact": scifact, "iclr": iclr, "iclr-zh": iclr_zh}
    if dataset not in loaders:
        raise PaperchatError(f"Unknown dataset {dataset!r}; use {', '.join(loaders)}.")
    files, queries = loaders[dataset](data_root)
    if limit:
        queries = queries[:limit]
    # The Chinese set searches the same ICLR index as the English one.
    corpus = dataset.removesuffix("-zh")
    settings = (base or Settings()).model_copy(update={"data_dir": index_dir, "chroma_url": "", "collection": f"eval-{corpus}"})
    api = Paperchat(settings)
    report = api.ingest(files, progress=progress)
    depth = 100
    results: dict[str, dict[str, float]] = {}
    timings: dict[str, float] = {}
    separation: dict[str, float] = {}
    for mode, fusion in CONFIGS:
        name = mode if fusion == "-" else f"{mode}-{fusion}"
        scores = Scores()
        relevance_in: list[float] = []
        relevance_out: list[float] = []
        latencies: list[float] = []
        for query in queries:
            result = api.search(query.text, depth, mode=mode, fusion=None if fusion == "-" else fusion)  # type: ignore[arg-type]
            latencies.append(result.timings_ms["total"])
            ranked = [h.paper.paper_id for h in result.hits]
            top_relevance = result.hits[0].relevance if result.hits else 0.0
            if query.kind == "out":
                relevance_out.append(top_relevance)
                continue
            relevance_in.append(top_relevance)
            for split in ("", query.split) if query.split else ("",):
                _score(scores, query, ranked, f"{split}: " if split else "")
        results[name] = scores.means()
        timings[name] = round(statistics.median(latencies), 2) if latencies else 0.0
        if relevance_out and mode != "bm25":
            cut, accuracy = best_threshold(relevance_in, relevance_out)
            separation[name] = {"auc": round(roc_auc(relevance_in, relevance_out), 4), "threshold": round(cut, 4), "accuracy": round(accuracy, 4)}  # type: ignore[assignment]
    return {
        "dataset": dataset,
        "papers": report.papers,
        "queries": {kind: sum(q.kind == kind for q in queries) for kind in sorted({q.kind for q in queries})},
        "metrics": results,
        "median_ms": timings,
        "in_vs_out_of_corpus": separation,
    }


def _score(scores: Scores, query: Query, ranked: Sequence[str], prefix: str) -> None:
    if query.kind == "scifact":
        scores.add(f"{prefix}nDCG@10", ndcg_at(ranked, query.gold, 10))
        scores.add(f"{prefix}Recall@100", recall_at(ranked, query.gold, 100))
    elif query.kind == "theme":
        scores.add(f"{prefix}theme Recall@20", recall_at(ranked, query.gold, 20))
        scores.add(f"{prefix}theme Recall@20 (of min(gold,20))", len(query.gold.intersection(ranked[:20])) / max(1, min(len(query.gold), 20)))
    else:
        for kind in ("single", query.kind):
            scores.add(f"{prefix}{kind} Recall@5", recall_at(ranked, query.gold, 5))
            scores.add(f"{prefix}{kind} MRR@10", mrr_at(ranked, query.gold, 10))


def to_markdown(summary: dict[str, object]) -> str:
    metrics: dict[str, dict[str, float]] = summary["metrics"]  # type: ignore[assignment]
    names = list(metrics)
    columns = list(dict.fromkeys(c for m in metrics.values() for c in m))
    lines = [
        f"{summary['dataset']}: {summary['papers']} papers, queries {summary['queries']}",
        "",
        "| metric | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    lines += [f"| {c} | " + " | ".join(f"{metrics[n].get(c, float('nan')):.3f}" for n in names) + " |" for c in columns]
    lines.append("| median ms/query | " + " | ".join(f"{summary['median_ms'][n]:.1f}" for n in names) + " |")  # type: ignore[index]
    separation: dict[str, dict[str, float]] = summary["in_vs_out_of_corpus"]  # type: ignore[assignment]
    if separation:
        lines += ["", "In-corpus vs out-of-corpus questions, by the top hit's relevance (best-chunk cosine):", ""]
        lines += [f"- {n}: ROC AUC {s['auc']:.3f}; best threshold {s['threshold']:.3f} classifies {s['accuracy']:.1%}" for n, s in separation.items()]
    return "\n".join(lines)
