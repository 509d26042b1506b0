"""Questions about the corpus itself on all 5,358 ICLR 2026 papers: lists, counts, extremes, filters.

    .venv/bin/python bench/corpus.py [--per-question] [--backend local]

Over bench/corpus_dev.jsonl (a dev half, "c…", a held-out half, "h…", and a second held-out set,
"k…", written by someone who had not seen the code; no rule was tuned on the held-out ones before
their first run), against the index `paperchat eval retrieval --dataset iclr` builds (data/eval/iclr). Gold
sets come from the records, not from the code: the papers whose title and abstract match every
regular expression of `all` (a name counts as a word of its own, whatever its case unless it is
all capitals; a phrase with a hyphen or a space; a method also by its spelled-out name), whose
`status` and `primary_area` are among those given. For each split:
- lists and counts: recall and precision of the listed papers (every page, asked for with
  "more" follow-ups) against the gold set; counts within ±5 % of the gold count;
- extremes: the largest stated value found and cited as the head of the answer (`max`, `paper`);
- filters: the question's status or area applied as the gold says, on every question that states one;
- names no abstract mentions: the answer says so (`missing`);
- corpus questions in other words: answered as a summary, not abstained (`mode`);
- time per question, p50 / p95, for list answers.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.api import Paperchat  # noqa: E402
from rag.config import Settings  # noqa: E402
from rag.records import Answer, Turn  # noqa: E402


def gold_of(row: dict, records: list[dict]) -> set[str]:
    return {
        r["id"]
        for r in records
        if all(re.search(p, r["text"]) for p in row["all"])
        and r["status"] in row.get("status", [r["status"]])
        and r["primary_area"] in row.get("primary_area", [r["primary_area"]])
    }


def every_page(api: Paperchat, question: str) -> tuple[Answer, set[str], float]:
    """The first answer, every paper listed over all its pages, and the first page's seconds."""
    started = time.perf_counter()
    first = api.ask(question)
    seconds = time.perf_counter() - started
    listed = {s.paper.paper_id for s in first.sources}
    answer, history = first, [Turn(question, tuple(s.paper.paper_id for s in first.sources), (), first.query, str(first.mode), first.page)]
    while answer.page is not None and answer.page.number < answer.page.pages:
        answer = api.ask("more", history)
        listed |= {s.paper.paper_id for s in answer.sources}
        history.append(Turn("more", tuple(s.paper.paper_id for s in answer.sources), (), answer.query, str(answer.mode), answer.page))
    return first, listed, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=ROOT / "data" / "eval" / "iclr")
    parser.add_argument("--collection", default="eval-iclr")
    parser.add_argument("--backend", default="local", choices=["local", "none"])
    parser.add_argument("--per-question", action="store_true")
    args = parser.parse_args()
    rows = [json.loads(line) for line in (ROOT / "bench" / "corpus_dev.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    records = [json.loads(line) for line in (ROOT.parent / "shared" / "data" / "iclr2026" / "papers.jsonl").open(encoding="utf-8")]
    for r in records:
        r["text"] = r["title"] + " " + " ".join(r["abstract"].split())
    settings = Settings(data_dir=args.data_dir, collection=args.collection, llm_backend=args.backend, _env_file=None)  # type: ignore[call-arg]
    api = Paperchat(settings)
    api.ask("Which papers use LoRA?")  # loads the catalogue, the indexes and the models once
    splits = list(dict.fromkeys(r["split"] for r in rows))
    scores: dict[str, dict[str, list[float]]] = {split: {} for split in splits}
    lines = ["| id | kind | gold | listed | recall | precision | count ok | filter ok | other | s |", "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        split = scores[row["split"]]

        def add(key: str, value: object, split: dict[str, list[float]] = split) -> None:
            split.setdefault(key, []).append(float(value))  # type: ignore[arg-type]

        started = time.perf_counter()
        cells = {"gold": "", "listed": "", "recall": "", "precision": "", "count": "", "filter": "", "other": ""}
        if row["kind"] in ("list", "count"):
            answer, listed, seconds = every_page(api, row["q"])
            add("seconds", seconds)
            gold = gold_of(row, records)
            total = answer.page.total if answer.page else 0
            cells |= {"gold": str(len(gold)), "listed": str(len(listed))}
            if gold:
                recall, precision = len(gold & listed) / len(gold), (len(gold & listed) / len(listed) if listed else 0.0)
                add("recall", recall)
                add("precision", precision)
                add("count within 5%", abs(total - len(gold)) <= 0.05 * len(gold))
                cells |= {"recall": f"{recall:.3f}", "precision": f"{precision:.3f}", "count": str(abs(total - len(gold)) <= 0.05 * len(gold))}
            if "missing" in row:
                said = f"mentions “{row['missing']}”" in answer.text and not answer.sources
                add("says what no abstract mentions", said)
                cells["other"] = f"says none mentions it: {said}"
        elif row["kind"] == "extreme":
            answer = api.ask(row["q"])
            add("seconds", time.perf_counter() - started)
            head = answer.text.split("\n", 1)[0]
            value = f"{row['max']:g}"
            stated = [float(n) for n in re.findall(r"\d+(?:\.\d+)?(?=×|%)", head)]
            found = bool(answer.sources) and answer.sources[0].paper.paper_id == row["paper"] and float(row["max"]) in stated
            add("extreme found and cited", bool(found))
            cells["other"] = f"largest {value} found: {bool(found)}; head: {head[:90]}"
        else:
            answer = api.ask(row["q"])
            ok = answer.mode == row["mode"] and not answer.abstained
            add("corpus question summarized", ok)
            cells["other"] = f"mode {answer.mode}, abstained {answer.abstained}"
        expected = {k: sorted(row[k]) for k in ("status", "primary_area") if k in row}
        if expected:
            applied = {f.field: sorted(f.values) for f in answer.filters}
            add("filters applied", applied == expected)
            cells["filter"] = str(applied == expected)
        lines.append(
            f"| {row['id']} | {row['kind']} | {cells['gold']} | {cells['listed']} | {cells['recall']} | {cells['precision']} | {cells['count']} "
            f"| {cells['filter']} | {cells['other']} | {time.perf_counter() - started:.2f} |"
        )
    keys = list(dict.fromkeys(k for split in scores.values() for k in split))
    print("| measure | " + " | ".join(splits) + " |")
    print("|---|" + "---|" * len(splits))
    for key in keys:
        cells = []
        for split in splits:
            values = scores[split].get(key, [])
            if key == "seconds":
                ordered = sorted(values)
                p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] if values else 0.0
                cells.append(f"p50 {statistics.median(values):.2f} / p95 {p95:.2f} s" if values else "-")
            else:
                cells.append(f"{statistics.mean(values):.3f} (n={len(values)})" if values else "-")
        print(f"| {key} | " + " | ".join(cells) + " |")
    print(f"\nbackend: {api.seams.backend}; {len(rows)} questions")
    if args.per_question:
        print("\n" + "\n".join(lines))


if __name__ == "__main__":
    main()
