"""Theme summaries on the full ICLR 2026 corpus: does a summary include every paper of its theme?

    .venv/bin/python bench/summarize.py [--cut 0.45 --cut 0.40 ...]

For the 20 theme questions of bench/iclr_dev.jsonl, the gold set is every paper whose title
matches the question's `title_pattern` (e.g. `gaussian splatting|\\b3DGS\\b`). For each
summary: recall (share of gold papers it includes) and off-theme share (share of included papers
whose title does not match; an upper bound, since a paper can be about a theme without naming it
in its title), and the time per summary. Also the time to group the whole corpus into topics.
Uses the index `paperchat eval retrieval --dataset iclr` builds (data/eval/iclr).
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cut", type=float, action="append", help="PAPERCHAT_MIN_GROUNDING values to compare (default: the setting's)")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "data" / "eval" / "iclr")
    parser.add_argument("--collection", default="eval-iclr")
    args = parser.parse_args()
    rows = [json.loads(line) for line in (ROOT / "bench" / "iclr_dev.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    themes = [r for r in rows if r.get("type") == "theme"]
    print("| cut | themes | mean recall | themes with recall >= 0.8 | mean off-theme (title) | papers per summary | p50 / max s |")
    print("|---|---|---|---|---|---|---|")
    for cut in args.cut or [Settings(_env_file=None).min_grounding]:  # type: ignore[call-arg]
        settings = Settings(data_dir=args.data_dir, collection=args.collection, llm_backend="none", min_grounding=cut, _env_file=None)  # type: ignore[call-arg]
        api = Paperchat(settings)
        papers = {p.paper_id: p for p in api.papers()}
        api.ask("warm-up: papers on KV cache", mode="summarize")
        recalls, offs, sizes, seconds = [], [], [], []
        for theme in themes:
            pattern = re.compile(theme["title_pattern"], re.I)
            gold = {p for p, paper in papers.items() if pattern.search(paper.title)}
            started = time.perf_counter()
            answer = api.ask(f"Summarize the {theme['q']}", mode="summarize")
            seconds.append(time.perf_counter() - started)
            included = {s.paper.paper_id for s in answer.sources}
            recalls.append(len(gold & included) / len(gold))
            offs.append(len(included - gold) / len(included) if included else 0.0)
            sizes.append(len(included))
        print(
            f"| {cut} | {len(themes)} | {statistics.mean(recalls):.3f} | {sum(r >= 0.8 for r in recalls)} | {statistics.mean(offs):.3f} "
            f"| {statistics.median(sizes):.0f} | {statistics.median(seconds):.2f} / {max(seconds):.2f} |"
        )
    started = time.perf_counter()
    api._topics = None
    groups = api.topics()
    print(f"\ncorpus overview: {len(papers):,} papers in {len(groups)} topics, grouped in {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
