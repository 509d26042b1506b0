"""Generated titles (rag.labels.make_label) against the real titles of ICLR 2026 papers.

    .venv/bin/python bench/titles.py [--show dev|seeds] [--sample-heldout N]

Data: ../shared/data/iclr2026/papers.jsonl (read in place, evaluation only, never copied here).
Split by a hash of the paper id, so it never changes: the dev part is the 51 seed papers plus the
first DEV_SIZE other papers in hash order; the held-out part is the next HELDOUT_SIZE papers, and
"held-out-2" to "held-out-6" the HELDOUT_SIZE after those, each in turn (first run on
2026-12-02, held-out-2 after the held-out part had been seen too often to count as blind, held-out-3
when the tagger came, held-out-4 when the embedding model came to pick the subject phrase, held-out-5
for the fragment rules after it, held-out-6 for the phrase named by the abstract's opening, held-out-7
for the field phrase's floor, held-out-8 for a bare name "for" its field).
Rules may be tuned on dev (`--show dev` prints each generated title beside the real one); the
held-out part is only ever run for the table, and `--sample-heldout N` prints N of its generated
titles and nothing else (`--sample-part held-out-2` and so on for the later parts), for judging fragments by reading.

Prints a Markdown table per part:
- words: the share of the real title's content words (lower-cased, stop words removed, Snowball
  stems, hyphenated words split) that occur in the generated title, averaged over papers;
- ms: make_label's time per abstract, in this process, after one warm-up call, with the app's
  embedding model picking the subject phrase as an ingest does (`--no-embed`: without it);
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

from rag.config import Settings  # noqa: E402
from rag.evidence import SentenceVectors  # noqa: E402
from rag.label_subjects import Embed  # noqa: E402
from rag.labels import MAX_LABEL_CHARS, TRAILING_STOP, make_label  # noqa: E402
from rag.seams import Seams  # noqa: E402
from rag.text import STOPWORDS, stem_words  # noqa: E402

PAPERS = ROOT.parent / "shared" / "data" / "iclr2026" / "papers.jsonl"
DEV_SIZE = 400
HELDOUT_SIZE = 400
# A title cut at the character limit ends within about one long word of it.
CAP_MARGIN = 10
LATER_PARTS = (2, 3, 4, 5, 6, 7, 8)
PARTS = ["dev", "seeds", "held-out", *(f"held-out-{n}" for n in LATER_PARTS)]


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
    later = {f"held-out-{n}": ordered[DEV_SIZE + (n - 1) * HELDOUT_SIZE : DEV_SIZE + n * HELDOUT_SIZE] for n in LATER_PARTS}
    return {"dev": seeds + ordered[:DEV_SIZE], "held-out": ordered[DEV_SIZE : DEV_SIZE + HELDOUT_SIZE], **later, "seeds": seeds}


def run(part: list[dict], embed: Embed | None) -> tuple[list[str], float]:
    make_label(part[0]["abstract"], embed=embed)  # warm-up: imports, compiled patterns, the models
    start = time.perf_counter()
    labels = [make_label(p["abstract"], embed=embed) for p in part]
    return labels, (time.perf_counter() - start) * 1000 / len(part)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", choices=["dev", "seeds"], help="print each generated title beside the real one")
    parser.add_argument("--sample-heldout", type=int, metavar="N", help="print N held-out generated titles, nothing else")
    parser.add_argument("--sample-part", default="held-out", choices=PARTS[2:], help="the part --sample-heldout reads")
    parser.add_argument("--parts", nargs="+", default=PARTS, choices=PARTS, help="while tuning: dev seeds")
    parser.add_argument("--no-embed", action="store_true", help="without the embedding model (the most repeated subject phrase)")
    args = parser.parse_args()
    # The app's embedding model, as an ingest passes it (rag/api.py), with a cache of its own per part
    # as an ingest's process has one (a phrase two papers share is embedded once).
    embeddings = None if args.no_embed else Seams(Settings()).embeddings
    parts = split([json.loads(line) for line in PAPERS.open(encoding="utf-8")])
    if args.sample_heldout:
        labels, _ = run(parts[args.sample_part][: args.sample_heldout], SentenceVectors(embeddings) if embeddings else None)
        print("\n".join(labels))
        return
    print("| part | papers | words | ms / abstract | proxy: cut-off |")
    print("|---|---:|---:|---:|---:|")
    for name in args.parts:
        part = parts[name]
        labels, ms = run(part, SentenceVectors(embeddings) if embeddings else None)
        share = statistics.mean(word_share(p["title"], label) for p, label in zip(part, labels, strict=True))
        cut = sum(map(looks_cut, labels)) / len(labels)
        print(f"| {name} | {len(part)} | {share:.3f} | {ms:.2f} | {cut:.3f} |")
        if args.show == name:
            for p, label in zip(part, labels, strict=True):
                print(f"  {word_share(p['title'], label):.2f}  {label}\n        {p['title']}", file=sys.stderr)


if __name__ == "__main__":
    main()
