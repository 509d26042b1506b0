"""Answer quality and latency on the seeds: bench/answer_dev.jsonl through `Paperchat.ask_events`.

    .venv/bin/python bench/answer.py [--backend local] [--backend none] [--out bench/answers.jsonl]

Per backend (the local default, SmolLM2-135M-Instruct through llama.cpp; and none, evidence
only), over 56 single-paper questions, 13 whose answer is not in the corpus and 8 two-turn
follow-ups, in one process against one index of the seeds (data/bench/seeds, built once):
- citation validity: share of [n] in answers that name a shown source;
- support: share of answer sentences that the project's checker finds supported by what they cite;
- right paper: share of single-paper questions (and follow-ups) whose gold paper is cited;
- answer terms: share of those whose answer contains the dev set's answer terms;
- abstention: out-of-corpus questions abstained, in-corpus questions wrongly abstained;
- latency: time to the first visible answer text (the evidence), to the first verified sentence
  of the draft, and to the complete answer (p50 / p95 / max).
Writes every answer with its sources and dropped sentences to --out for checking by hand.

`--set aspect` runs bench/aspect_dev.jsonl: questions about one aspect of one seed paper (its
limitations, datasets, baselines, results, code, method), some of which its abstract does not state;
reported are the answer terms of the stated ones, and how often the answer says "not stated"
rightly and wrongly, for the dev and the held-out half.

`--set zh` runs the Chinese dev set (bench/zh_dev.jsonl) on the same seeds instead: its questions
about one seed paper (by idea, by name, and as a follow-up) and its questions about nothing in the
seeds, each part reported apart for the dev and the held-out half; then bench/zh_fresh.jsonl, a
third held-out part written blind after the cuts were settled (split "fresh").
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag import prompts  # noqa: E402
from rag.api import Paperchat  # noqa: E402
from rag.config import Settings  # noqa: E402
from rag.records import Answer, Turn  # noqa: E402
from rag.support import support  # noqa: E402
from rag.text import citations  # noqa: E402
from rag.verify import draft_sentences  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else float("nan")


def turn_of(answer: Answer) -> Turn:
    by_n = {s.n: s.paper.paper_id for s in answer.sources}
    return Turn(answer.question, tuple(by_n.values()), tuple(dict.fromkeys(by_n[n] for n in answer.cited() if n in by_n)), answer.query)


def run(api: Paperchat, question: str, history: list[Turn]) -> tuple[Answer, dict[str, float]]:
    started = time.perf_counter()
    times: dict[str, float] = {}
    final = None
    for event in api.ask_events(question, history):
        now = (time.perf_counter() - started) * 1000
        times.setdefault("first_visible", now)  # sources + evidence, or the abstention
        if event.kind == "sentence":
            times.setdefault("first_sentence", now)
        if event.answer is not None:
            final = event.answer
    times["complete"] = (time.perf_counter() - started) * 1000
    assert final is not None
    return final, times


def bench(backend: str, rows: list[dict], out: list[dict]) -> dict[str, object]:
    settings = Settings(data_dir=ROOT / "data" / "bench" / "seeds", collection="bench-seeds", llm_backend=backend, _env_file=None)  # type: ignore[call-arg]
    api = Paperchat(settings)
    api.ingest([ROOT / "seeds"])
    api.ask("warm-up: what does SureLock do?")  # loads the embedding model and the LLM once
    counts = {"cites": 0, "valid": 0, "sentences": 0, "supported": 0, "single": 0, "right": 0, "terms": 0, "out": 0, "out_abstained": 0}
    counts |= {"in_abstained": 0, "followups": 0, "followup_right": 0, "extractive": 0, "answers": 0}
    counts |= {"with_terms": 0, "not_stated": 0, "said_not_stated": 0, "stated": 0, "wrongly_not_stated": 0}
    first_visible, first_sentence, complete = [], [], []
    for row in rows:
        turns = row["turns"] if row["kind"] == "followup" else [{"q": row["q"]}]
        history: list[Turn] = []
        for turn in turns:
            answer, times = run(api, turn["q"], history)
            history.append(turn_of(answer))
        first_visible.append(times["first_visible"])
        complete.append(times["complete"])
        if "first_sentence" in times:
            first_sentence.append(times["first_sentence"])
        by_n = {s.n: s.paper for s in answer.sources}
        for sentence in draft_sentences(answer.text) if not answer.abstained else []:
            if sentence.rstrip().endswith((":", "：")):
                continue  # a heading or the Chinese lead-in ("以下是摘要中……的原句（英文）："), not a claim
            cited = citations(sentence)
            counts["cites"] += len(cited)
            counts["valid"] += sum(n in by_n for n in cited)
            counts["sentences"] += 1
            checked = bool(cited) and all(n in by_n for n in cited)
            counts["supported"] += checked and support(sentence, [by_n[n] for n in cited], api.seams.vectors, api.seams.calibration).ok
        cited_ids = {by_n[n].paper_id for n in answer.cited() if n in by_n}
        gold = set(row.get("gold", []))
        if row["kind"] == "out":
            counts["out"] += 1
            counts["out_abstained"] += answer.abstained
        else:
            counts["answers"] += 1
            counts["extractive"] += answer.extractive
            counts["in_abstained"] += answer.abstained
            key = "followup" if row["kind"] == "followup" else "single"  # an aspect question is about a single paper
            if key == "single":
                counts["single"] += 1
                counts["right"] += bool(gold & cited_ids)
                if row.get("answer_terms"):
                    counts["with_terms"] += 1
                    counts["terms"] += all(t.lower() in answer.text.lower() for t in row["answer_terms"])
            else:
                counts["followups"] += 1
                counts["followup_right"] += bool(gold & cited_ids)
            if row["kind"] == "aspect":
                says_not_stated = any(line in answer.text for line in NOT_STATED_LINES)
                counts["not_stated" if row["not_stated"] else "stated"] += 1
                counts["said_not_stated" if row["not_stated"] else "wrongly_not_stated"] += says_not_stated
        out.append(
            {
                "backend": backend,
                "id": row["id"],
                "kind": row["kind"],
                "q": turns[-1]["q"],
                "answer": answer.text,
                "abstained": answer.abstained,
                "extractive": answer.extractive,
                "gold_cited": bool(gold & cited_ids),
                "sources": [{"n": s.n, "paper_id": s.paper.paper_id, "title": s.paper.title, "abstract": s.paper.abstract} for s in answer.sources],
                "dropped": [list(d) for d in answer.dropped],
                "notes": list(answer.notes),
                "timings_ms": {k: round(v, 1) for k, v in times.items()},
            }
        )
    share = lambda a, b: counts[a] / counts[b] if counts[b] else float("nan")  # noqa: E731
    return {
        "backend": api.seams.backend,
        "citation validity": share("valid", "cites"),
        "support (checker)": share("supported", "sentences"),
        "right paper cited (single)": share("right", "single"),
        "right paper cited (follow-up)": share("followup_right", "followups"),
        "answer terms present (single)": share("terms", "with_terms"),
        "not stated, and said so (aspect)": share("said_not_stated", "not_stated"),
        "stated, but said not stated (aspect)": share("wrongly_not_stated", "stated"),
        "out-of-corpus abstained": share("out_abstained", "out"),
        "in-corpus wrongly abstained": share("in_abstained", "answers"),
        "extractive fallback": share("extractive", "answers"),
        "first visible p50 / p95 ms": f"{statistics.median(first_visible):.0f} / {percentile(first_visible, 0.95):.0f}",
        "first draft sentence p50 / p95 ms": f"{statistics.median(first_sentence):.0f} / {percentile(first_sentence, 0.95):.0f}" if first_sentence else "-",
        "complete p50 / p95 / max ms": f"{statistics.median(complete):.0f} / {percentile(complete, 0.95):.0f} / {max(complete):.0f}",
        "questions": f"{counts['single']} single, {counts['followups']} follow-up, {counts['out']} out of corpus",
    }


# The lines an answer says an aspect is not stated with (rag/prompts.py), up to their first field.
NOT_STATED_LINES = tuple(getattr(prompts, name).split("{")[0] for name in ("ASPECT_NOT_STATED", "RECORD_NO_LINK", "RECORD_NO_AUTHORS"))


def zh_rows() -> list[dict]:
    """The Chinese dev set's rows the seeds can be asked: about one seed paper (gold: the seed's
    id), or about nothing in the seeds (both scopes: nothing in ICLR 2026 is in the seeds either)."""
    rows = []
    lines = [line for name in ("zh_dev.jsonl", "zh_fresh.jsonl") for line in (ROOT / "bench" / name).read_text(encoding="utf-8").splitlines()]
    for line in lines:
        item = json.loads(line) if line.strip() else None
        if item is None or item["type"] == "theme" or (item["type"] != "out" and not item.get("in_seeds")):
            continue
        row = {"id": item["id"], "split": item["split"], "kind": {"idea": "idea", "name": "name", "out": "out", "followup": "followup"}[item["type"]]}
        row |= {"gold": item.get("seed_id", []), "answer_terms": item.get("answer_terms", [])}
        if item["type"] == "followup":
            row["turns"] = [{"q": q} for q in item["history"]] + [{"q": item["q"]}]
        else:
            row["q"] = item["q"]
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", action="append", choices=["local", "none", "openai", "ollama"])
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "bench" / "answers.jsonl")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument(
        "--set", choices=["en", "zh", "aspect"], default="en",
        help="en: bench/answer_dev.jsonl; zh: the seeds part of bench/zh_dev.jsonl; aspect: bench/aspect_dev.jsonl",
    )  # fmt: skip
    args = parser.parse_args()
    english = (ROOT / "bench" / "answer_dev.jsonl").read_text(encoding="utf-8").splitlines()
    aspects = (ROOT / "bench" / "aspect_dev.jsonl").read_text(encoding="utf-8").splitlines()
    rows = zh_rows() if args.set == "zh" else [json.loads(line) for line in (aspects if args.set == "aspect" else english) if line.strip()]
    rows = rows[: args.limit] if args.limit else rows
    out: list[dict] = []
    splits = list(dict.fromkeys(r.get("split", "") for r in rows))
    results = []
    for backend in args.backend or ["local", "none"]:
        for split in splits:
            result = bench(backend, [r for r in rows if r.get("split", "") == split], out)
            results.append(result | {"backend": f"{result['backend']} {split}".strip()})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), encoding="utf-8")
    print("| measure | " + " | ".join(str(r["backend"]) for r in results) + " |")
    print("|---|" + "---|" * len(results))
    for key in results[0]:
        if key == "backend":
            continue
        cells = [f"{r[key]:.3f}" if isinstance(r[key], float) else str(r[key]) for r in results]
        print(f"| {key} | " + " | ".join(cells) + " |")
    print(f"\nanswers: {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
