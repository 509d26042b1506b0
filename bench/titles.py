"""Generated titles (rag.labels.make_label) against the real titles of ICLR 2026 papers.

    .venv/bin/python bench/titles.py [--show dev|seeds] [--sample-heldout N]

Data: ../shared/data/iclr2026/papers.jsonl (read in place, evaluation only, never copied here).
Split by a hash of the paper id, so it never changes: the dev part is the 51 seed papers plus the
first DEV_SIZE other papers in hash order; the held-out part is the next HELDOUT_SIZE papers, and
"held-out-2" and "held-out-3" the HELDOUT_SIZE after those, each in turn (first run on 2026-12-02,
held-out-2 after the held-out part had been seen too often to count as blind, held-out-3 when the
tagger came).
Rules may be tuned on dev (`--show dev` prints each generated title beside the real one); the
held-out part is only ever run for the table, and `--sample-heldout N` prints N of its generated
titles and nothing else (`--sample-part held-out-2` or `held-out-3` for the later parts), for judging fragments by reading.

Prints a Markdown table per part:
- words: the share of the real title's content words (lower-cased, stop words removed, Snowball
  stems, hyphenated words split) that occur in the generated title, averaged over papers;
- ms: make_label's time per abstract, in this process, after one warm-up call;
- proxy: the share of titles within CAP_MARGIN characters of MAX_LABEL_CHARS or ending in a
  trailing stop word, a mechanical proxy for cut-off titles (fragments are judged by reading).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.labels import MAX_LABEL_CHARS, TRAILING_STOP, make_label  # noqa: E402
from rag.text import STOPWORDS, stem_words  # noqa: E402

PAPERS = ROOT.parent / "shared" / "data" / "iclr2026" / "papers.jsonl"
DEV_SIZE = 400
HELDOUT_SIZE = 400
# A title cut at the character limit ends within about one long word of it.
CAP_MARGIN = 10
PARTS = ["dev", "seeds", "held-out", "held-out-2", "held-out-3"]


def content_words(title: str) -> set[str]:
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", title)]
    return set(stem_words([w for w in words if w not in STOPWORDS]))


def word_share(real: str, generated: str) -> float:
    wanted = content_words(real)
    return len(wanted & content_words(generated)) / len(wanted) if wanted else 0.0


def looks_cut(label: str) -> bool:
    last = label.split()[-1].lower() if label.split() else ""
    return len(label) >= MAX_LABEL_CHARS - CAP_MARGIN or last in TRAILING_STOP


def split(papers: list[dict]) -> dict[str, list[dict]]:
    ordered = sorted((p for p in papers if not p["in_seeds"]), key=lambda p: hashlib.sha256(p["id"].encode()).hexdigest())
    seeds = [p for p in papers if p["in_seeds"]]
    later = {f"held-out-{n}": ordered[DEV_SIZE + (n - 1) * HELDOUT_SIZE : DEV_SIZE + n * HELDOUT_SIZE] for n in (2, 3)}
    return {"dev": seeds + ordered[:DEV_SIZE], "held-out": ordered[DEV_SIZE : DEV_SIZE + HELDOUT_SIZE], **later, "seeds": seeds}


def run(part: list[dict]) -> tuple[list[str], float]:
    make_label(part[0]["abstract"])  # warm-up: imports and compiled patterns
    start = time.perf_counter()
    labels = [make_label(p["abstract"]) for p in part]
    return labels, (time.perf_counter() - start) * 1000 / len(part)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", choices=["dev", "seeds"], help="print each generated title beside the real one")
    parser.add_argument("--sample-heldout", type=int, metavar="N", help="print N held-out generated titles, nothing else")
    parser.add_argument("--sample-part", default="held-out", choices=["held-out", "held-out-2", "held-out-3"], help="the part --sample-heldout reads")
    parser.add_argument("--parts", nargs="+", default=PARTS, choices=PARTS, help="while tuning: dev seeds")
    args = parser.parse_args()
    parts = split([json.loads(line) for line in PAPERS.open(encoding="utf-8")])
    if args.sample_heldout:
        labels, _ = run(parts[args.sample_part][: args.sample_heldout])
        print("\n".join(labels))
        return
    print("| part | papers | words | ms / abstract | proxy: cut-off |")
    print("|---|---:|---:|---:|---:|")
    for name in args.parts:
        part = parts[name]
        labels, ms = run(part)
        share = statistics.mean(word_share(p["title"], label) for p, label in zip(part, labels, strict=True))
        cut = sum(map(looks_cut, labels)) / len(labels)
        print(f"| {name} | {len(part)} | {share:.3f} | {ms:.2f} | {cut:.3f} |")
        if args.show == name:
            for p, label in zip(part, labels, strict=True):
                print(f"  {word_share(p['title'], label):.2f}  {label}\n        {p['title']}", file=sys.stderr)


if __name__ == "__main__":
    main()
