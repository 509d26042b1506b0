"""Theme summaries on the full ICLR 2026 corpus: does a summary include every paper of its theme, and only those?

    .venv/bin/python bench/summarize.py [--cut 0.45 --cut 0.40 ...] [--per-theme] [--judged FILE] [--misspell]
        [--set en|zh|multiword] [--split PART] [--unjudged FILE]

For the 20 theme questions of bench/iclr_dev.jsonl, the gold set is every paper whose title
matches the question's `title_pattern` (e.g. `gaussian splatting|\\b3DGS\\b`). For each
summary: recall (share of gold papers it includes), title mismatch (share of included papers
whose title does not match; an upper bound on off-theme papers, since a paper can be about a
theme without naming it in its title), judged off-theme, and the time per summary. Also the time
to group the whole corpus into topics.

Judged off-theme reads bench/summarize_judged.jsonl: one line per (theme, paper) a reader judged,
`{"theme", "paper_id", "title", "on_theme", "why"}`, "on theme" meaning the paper's main subject
is the theme, not that it mentions it. Per theme: included papers whose title matches count as on
theme; of the included papers whose title does not match, the judged ones give the off-theme rate,
applied to all of them (an estimate when not all are judged; the table says how many are).
Uses the index `paperchat eval retrieval --dataset iclr` builds (data/eval/iclr).

`--set zh`: the theme requests of the Chinese dev set (bench/zh_dev.jsonl) and of a second held-out
set written blind after the first round of fixes (bench/zh_themes_heldout2.jsonl), and of a third of
requests naming lists of themes ("模型剪枝、量化和知识蒸馏", part heldout3, bench/zh_themes_lists.jsonl), asked as written,
in the summarize mode; whether routing alone sends them there, recall and title mismatch per theme
and per part, with the English phrase each theme was matched to.

`--set multiword`: the same report for bench/themes_multiword.jsonl, 24 English themes named by a
term of several words whose head word alone names something else ("dataset distillation", not
knowledge distillation), written blind with title-pattern gold sets, half held out (issue 15);
bench/themes_multiword2.jsonl, 16 more written blind later (part "heldout2"), never tuned on; and
bench/themes_multiword3.jsonl, 16 more written blind after the theme-term rule was made (part "heldout3");
bench/themes_multiword4.jsonl, 20 more written blind on 2026-12-02 (part "heldout4"), first run after
that day's first changes; bench/themes_multiword5.jsonl, 20 more written blind later that day (part
"heldout5"), its questions unseen until its first run; bench/themes_multiword6.jsonl, 20 more
written the same way after the rules heldout5 showed (part "heldout6"); bench/themes_multiword7.jsonl,
20 more written blind on 2026-12-02 (third session) after examples joined the theme (part "heldout7");
bench/themes_multiword8.jsonl, 20 more written blind after heldout7 showed what examples cost (part "heldout8");
bench/themes_multiword9.jsonl, 20 more written blind on 2026-12-02 (fourth session) to measure the shipped
theme rules once more, as no rule was made from heldout8 (part "heldout9"); bench/themes_multiword10.jsonl,
20 more written blind on 2026-12-02 (sixth session), first run after that session's reading of requests
(what they leave out, verbs, quoted terms) (part "heldout10"); bench/themes_multiword11.jsonl, 20 more written
blind the same day to measure the session's final rules once (part "heldout11"); bench/themes_multiword12.jsonl,
20 more written blind on 2026-12-02 (seventh session), first run after a titled example no longer needed the
theme's own word (part "heldout12"); bench/themes_multiword13.jsonl, 20 more written blind the same day, first run
after a list of themes ("A, B and C") was read as all of them (part "heldout13"); bench/themes_multiword14.jsonl,
20 more written blind on 2026-12-07 (eighth session), first run after a second read of that list rule (part "heldout14").
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
from rag.calibration import MINILM  # noqa: E402
from rag.config import Settings  # noqa: E402
from rag.routing import Mode, route  # noqa: E402


def load_judgements(path: Path) -> dict[tuple[str, str], bool]:
    if not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {(r["theme"], r["paper_id"]): bool(r["on_theme"]) for r in rows}


def judged_off(theme: str, included: set[str], gold: set[str], judgements: dict[tuple[str, str], bool]) -> tuple[float, int, int, float]:
    """(estimated off-theme papers, judged, not matching, off rate among the judged)."""
    mismatched = included - gold
    judged = [judgements[(theme, p)] for p in mismatched if (theme, p) in judgements]
    rate = sum(not on for on in judged) / len(judged) if judged else 0.0
    return len(mismatched) * rate, len(judged), len(mismatched), rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cut", type=float, action="append", help="PAPERCHAT_MIN_GROUNDING values to compare (default: the calibrated one)")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "data" / "eval" / "iclr")
    parser.add_argument("--collection", default="eval-iclr")
    parser.add_argument("--judged", type=Path, default=ROOT / "bench" / "summarize_judged.jsonl", help="reader judgements (see above)")
    parser.add_argument("--per-theme", action="store_true", help="also print one row per theme")
    parser.add_argument("--split", action="append", help="with --set: only these parts (e.g. heldout14); default all")
    parser.add_argument("--misspell", action="store_true", help="ask each English theme with its longest word misspelt (two letters swapped)")
    parser.add_argument("--unjudged", type=Path, help="with --set: write the included, title-mismatched, unjudged papers here (JSONL)")
    parser.add_argument(
        "--overview-url",
        help="also measure the verified overview paragraph a capable backend writes on top: the base URL of an "
        "OpenAI-compatible server (e.g. http://127.0.0.1:8000/v1 from `python -m llama_cpp.server --model FILE.gguf`)",
    )
    parser.add_argument("--overview-model", default="served", help="model name sent to that server")
    parser.add_argument(
        "--set", choices=["en", "zh", "multiword"], default="en",
        help="zh: the Chinese theme requests of bench/zh_dev.jsonl; multiword: bench/themes_multiword*.jsonl",
    )
    args = parser.parse_args()
    if args.set == "zh":
        by_split(args, ("zh_dev.jsonl", "zh_themes_heldout2.jsonl", "zh_themes_lists.jsonl"), "总结一下关于知识蒸馏的论文")
        return
    if args.set == "multiword":
        files = tuple(f"themes_multiword{n}.jsonl" for n in ("", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14"))
        by_split(args, files, "Summarise the papers on knowledge distillation.")
        return
    if args.overview_url:
        overview(args)
        return
    rows = [json.loads(line) for line in (ROOT / "bench" / "iclr_dev.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    themes = [r for r in rows if r.get("type") == "theme"]
    judgements = load_judgements(args.judged)
    summary = [
        "| cut | themes | mean recall | themes with recall >= 0.8 | mean title mismatch | mean judged off-theme (est.) | pooled judged off-theme "
        "| mismatched papers judged | papers per summary (median) | p50 / max s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    per_theme = [
        "| cut | theme | gold | included | recall | title mismatch | mismatched judged | judged off-theme (est.) | s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for cut in args.cut or [MINILM.min_grounding]:
        settings = Settings(data_dir=args.data_dir, collection=args.collection, llm_backend="none", min_grounding=cut, _env_file=None)  # type: ignore[call-arg]
        api = Paperchat(settings)
        papers = {p.paper_id: p for p in api.papers()}
        api.ask("warm-up: papers on KV cache", mode="summarize")
        recalls, mismatch, offs, sizes, seconds = [], [], [], [], []
        off_papers = judged_count = mismatched_count = 0.0
        for theme in themes:
            pattern = re.compile(theme["title_pattern"], re.I)
            gold = {p for p, paper in papers.items() if pattern.search(paper.title)}
            started = time.perf_counter()
            answer = api.ask(f"Summarize the {misspelt(theme['q']) if args.misspell else theme['q']}", mode="summarize")
            seconds.append(time.perf_counter() - started)
            included = {s.paper.paper_id for s in answer.sources}
            off, judged, mismatched, _ = judged_off(theme["q"], included, gold, judgements)
            recalls.append(len(gold & included) / len(gold))
            mismatch.append(mismatched / len(included) if included else 0.0)
            offs.append(off / len(included) if included else 0.0)
            sizes.append(len(included))
            off_papers, judged_count, mismatched_count = off_papers + off, judged_count + judged, mismatched_count + mismatched
            per_theme.append(
                f"| {cut} | {theme['q']} | {len(gold)} | {len(included)} | {recalls[-1]:.3f} | {mismatch[-1]:.3f} | {judged} / {mismatched} "
                f"| {offs[-1]:.3f} | {seconds[-1]:.2f} |"
            )
        summary.append(
            f"| {cut} | {len(themes)} | {statistics.mean(recalls):.3f} | {sum(r >= 0.8 for r in recalls)} | {statistics.mean(mismatch):.3f} "
            f"| {statistics.mean(offs):.3f} | {off_papers / max(sum(sizes), 1):.3f} | {judged_count:.0f} / {mismatched_count:.0f} "
            f"| {statistics.median(sizes):.0f} | {statistics.median(seconds):.2f} / {max(seconds):.2f} |"
        )
    print("\n".join(summary))
    if args.per_theme:
        print("\n" + "\n".join(per_theme))
    if not judgements:
        print(f"\n(no judgements at {args.judged}: judged off-theme columns are 0)")
    api.cache.clear()
    api.papers()  # the paper table back in the cache: the time below is the grouping's
    started = time.perf_counter()
    groups = api.topics()
    print(f"\ncorpus overview: {len(papers):,} papers in {len(groups)} topics, grouped in {time.perf_counter() - started:.2f} s")


def misspelt(theme: str) -> str:
    """`theme` with its longest lower-case word misspelt as a hurried typist would: its two middle
    letters swapped ("distillation" → "distilaltion"); a typo no rule was written from."""
    words = [w for w in re.findall(r"(?<![\w-])[a-z]{6,}(?![\w-])", theme)]
    if not words:
        return theme
    word = max(words, key=len)
    middle = len(word) // 2
    typo = word[: middle - 1] + word[middle] + word[middle - 1] + word[middle + 1 :]
    return re.sub(rf"(?<![\w-]){word}(?![\w-])", typo, theme, count=1)


def by_split(args: argparse.Namespace, files: tuple[str, ...], warm_up: str) -> None:
    """The theme requests of `files` (bench/), asked as written in the summarize mode: whether
    routing alone sends them there, recall and title mismatch per theme and per split."""
    settings = Settings(data_dir=args.data_dir, collection=args.collection, llm_backend="none", _env_file=None)  # type: ignore[call-arg]
    api = Paperchat(settings)
    papers = {p.paper_id: p for p in api.papers()}
    api.ask(warm_up, mode="summarize")  # loads the models (for Chinese: the phrase table and the dictionary)
    rows = [json.loads(line) for name in files for line in (ROOT / "bench" / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    judgements = load_judgements(args.judged)
    parts: dict[str, list[tuple[float, float, float, bool, float]]] = {}
    unjudged: list[dict] = []
    lines = [
        "| split | theme | routed | matched to | gold | included | recall | title mismatch | mismatched judged | judged off-theme (est.) | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in (r for r in rows if r["type"] == "theme" and (not args.split or r["split"] in args.split)):
        pattern = re.compile(row["title_pattern"], re.I)
        gold = {p for p, paper in papers.items() if pattern.search(paper.title)}
        routed = route(row["q"]) == Mode.SUMMARIZE
        started = time.perf_counter()
        answer = api.ask(row["q"], mode="summarize")
        elapsed = time.perf_counter() - started
        included = {s.paper.paper_id for s in answer.sources}
        recall = len(gold & included) / len(gold)
        mismatch = len(included - gold) / len(included) if included else 0.0
        off, judged, mismatched, _ = judged_off(row["q"], included, gold, judgements)
        off_share = off / len(included) if included else 0.0
        parts.setdefault(row["split"], []).append((recall, mismatch, elapsed, routed, off_share))
        unjudged += [
            {"theme": row["q"], "paper_id": p, "title": papers[p].title, "abstract": papers[p].abstract}
            for p in sorted(included - gold)
            if (row["q"], p) not in judgements
        ]
        lines.append(
            f"| {row['split']} | {row['q']} | {'summarize' if routed else route(row['q'])} | {answer.query} | {len(gold)} | {len(included)} "
            f"| {recall:.3f} | {mismatch:.3f} | {judged} / {mismatched} | {off_share:.3f} | {elapsed:.2f} |"
        )
    print(
        "| split | themes | routed to summarize | mean recall | themes with recall >= 0.8 | mean title mismatch "
        "| judged off-theme (est.), mean / worst | p50 s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for split, values in parts.items():
        recalls = [v[0] for v in values]
        print(
            f"| {split} | {len(values)} | {sum(v[3] for v in values)} | {statistics.mean(recalls):.3f} | {sum(r >= 0.8 for r in recalls)} "
            f"| {statistics.mean(v[1] for v in values):.3f} | {statistics.mean(v[4] for v in values):.3f} / {max(v[4] for v in values):.3f} "
            f"| {statistics.median(v[2] for v in values):.2f} |"
        )
    if args.per_theme:
        print("\n" + "\n".join(lines))
    if args.unjudged:
        # For a reader to judge (outside the repository: the abstracts are evaluation data).
        args.unjudged.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in unjudged), encoding="utf-8")
        print(f"\n{len(unjudged)} included papers whose title does not match and no reader has judged: {args.unjudged}")


def overview(args: argparse.Namespace) -> None:
    """The overview paragraph with an OpenAI-compatible backend: how many summaries get one, how
    many drafted sentences the checker keeps and drops, and what it adds to the time."""
    settings = Settings(
        data_dir=args.data_dir,
        collection=args.collection,
        llm_backend="openai",
        openai_base_url=args.overview_url,
        openai_model=args.overview_model,
        openai_api_key="sk-local",
        _env_file=None,  # type: ignore[call-arg]
    )
    api = Paperchat(settings)
    rows = [json.loads(line) for line in (ROOT / "bench" / "iclr_dev.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    themes = [r for r in rows if r.get("type") == "theme"]
    api.ask("warm-up: papers on KV cache", mode="summarize")
    with_paragraph = kept = dropped = 0
    seconds: list[float] = []
    for theme in themes:
        started = time.perf_counter()
        answer = api.ask(f"Summarize the {theme['q']}", mode="summarize")
        seconds.append(time.perf_counter() - started)
        if answer.abstained:
            continue
        head = answer.text.split("\n\n", 1)[0]
        counted = re.match(r"(?:At least )?[\d,]+ papers? in the corpus (?:is|are) about ", head)
        paragraph = [] if counted else re.findall(r"[^.!?]+[.!?](?:\s*\[\d+(?:,\s*\d+)*\])?", head)
        with_paragraph += bool(paragraph)
        kept += len(paragraph)
        dropped += len(answer.dropped)
        print(f"- {theme['q']}: {len(paragraph)} kept, {len(answer.dropped)} dropped; {head[:300] if paragraph else '(no paragraph)'}")
    print("\n| backend | summaries | with an overview paragraph | sentences kept | sentences dropped | p50 / max s |")
    print("|---|---|---|---|---|---|")
    print(f"| {api.seams.backend} | {len(themes)} | {with_paragraph} | {kept} | {dropped} | {statistics.median(seconds):.2f} / {max(seconds):.2f} |")


if __name__ == "__main__":
    main()
