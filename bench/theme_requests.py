"""Theme requests in many wordings: is a request for an overview of a theme routed to a summary,
and is its theme read right?

    .venv/bin/python bench/theme_requests.py [--split dev|heldout|all] [--errors]

Data: bench/theme_requests.jsonl, 200 requests written blind by a helper who saw neither the
router nor any other request set (issue 15): 160 ask for an overview of a theme (120 English, 40
Chinese, 158 distinct themes, each labelled with its theme as a span of the request) and 40 look
alike but do not (a question about one named method, a comparison, a link, chit-chat). Split by
theme: the dev part is what rules may be tuned on (`--errors` prints its misses, never the
held-out ones); the held-out part is only ever run for the table.

Per part and language:
- routed: theme requests the router sends to the summary mode (`rag.routing.route`);
- not routed: look-alike requests it sends anywhere else;
- theme exact: the theme `rag.theme_request.theme_of` reads, without its asides (`theme_head`), equals the label, as lower-cased words
  (punctuation and case ignored);
- theme words: F1 of the words read against the label's words, averaged (partial credit).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.routing import Mode, route  # noqa: E402
from rag.theme_request import theme_head, theme_of  # noqa: E402

REQUESTS = ROOT / "bench" / "theme_requests.jsonl"


def words(text: str) -> list[str]:
    """Lower-cased words; each Chinese character counts as a word."""
    return re.findall(r"[a-z0-9]+(?:[-'][a-z0-9]+)*|[\u4e00-\u9fff]", text.lower())


def f1(read: str, label: str) -> float:
    got, want = words(read), words(label)
    common = sum(min(got.count(w), want.count(w)) for w in set(want))
    if not common:
        return 0.0
    precision, recall = common / len(got), common / len(want)
    return 2 * precision * recall / (precision + recall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "heldout", "all"], default="all")
    parser.add_argument("--errors", action="store_true", help="print the dev part's misses")
    args = parser.parse_args()
    rows = [json.loads(line) for line in REQUESTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    splits = ["dev", "heldout"] if args.split == "all" else [args.split]
    print("| part | lang | theme requests | routed to summary | look-alikes not routed | theme exact | theme words F1 |")
    print("|---|---|---:|---:|---:|---:|---:|")
    misses = []
    for split in splits:
        for lang in ("en", "zh"):
            part = [r for r in rows if r["split"] == split and r["lang"] == lang]
            themes = [r for r in part if r["kind"] == "theme"]
            others = [r for r in part if r["kind"] != "theme"]
            routed = [route(r["q"]) == Mode.SUMMARIZE for r in themes]
            kept_out = [route(r["q"]) != Mode.SUMMARIZE for r in others]
            read = [theme_head(theme_of(r["q"])) for r in themes]
            exact = [words(t) == words(r["theme"]) for t, r in zip(read, themes, strict=True)]
            scores = [f1(t, r["theme"]) for t, r in zip(read, themes, strict=True)]
            print(
                f"| {split} | {lang} | {len(themes)} | {sum(routed) / len(themes):.3f} ({sum(routed)}) "
                f"| {sum(kept_out) / max(len(others), 1):.3f} ({sum(kept_out)}/{len(others)}) "
                f"| {sum(exact) / len(themes):.3f} | {statistics.mean(scores):.3f} |"
            )
            if split == "dev":
                misses += [(r, t) for r, t, right_mode, right_theme in zip(themes, read, routed, exact, strict=True) if not (right_mode and right_theme)]
                misses += [(r, "") for r, ok in zip(others, kept_out, strict=True) if not ok]
    if args.errors:
        for row, read in misses:
            where = f"routed {route(row['q']).value}" + (" (not a theme request)" if row["kind"] != "theme" else "")
            print(f"- {row['q']!r} → {read!r} (label {row['theme']!r}) {where}", file=sys.stderr)


if __name__ == "__main__":
    main()
