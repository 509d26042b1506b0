"""Topic labels (rag.topics.group) of real corpora, printed for judging by reading.

    .venv/bin/python bench/topics.py [--parts seeds iclr ...] [--jsonl FILE]

Data, read in place (evaluation only, never copied here): ../shared/data/iclr2026/papers.jsonl and
../shared/data/ml-abstracts/papers.jsonl. Each paper's vector is its abstract's embedding by the
app's model (the store's is the mean of its chunks' vectors; an abstract is one or two chunks),
cached under /tmp per part.

Parts, as the app groups them:
- dev (rules may be tuned on it): "seeds" (the 51 seed papers, labelled from their abstracts only,
  as the seed lists have no titles), "iclr" (all 5,358 ICLR 2026 papers, the corpus overview's 12
  topics), "iclr-areas" (four primary areas, each grouped as a summary groups a theme's papers,
  labels standing out from the whole corpus);
- held-out (never tuned on; first run 2026-12-02): "ml-<venue>" (the ICLR, ICML, NeurIPS and CVPR
  papers of 2020-2024 in ml-abstracts, each a corpus overview), "ml-themes" (ml-abstracts papers
  whose title has one of four words, each grouped as a summary's theme against all 16,112).

Prints each label with its group's size and first title, and the seconds grouping and labelling took
(the corpus's word counts aside; `--timing`: beside the same by TF-IDF alone, run first, so the
tagger's load falls in the new labels' time); `--jsonl` writes one line per label
(part, corpus, size, label, titles of its three most central papers) for judges who see no code.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from unittest.mock import patch

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import rag.topics  # noqa: E402
from rag.config import Settings  # noqa: E402
from rag.evidence import SentenceVectors  # noqa: E402
from rag.records import Paper  # noqa: E402
from rag.seams import Seams  # noqa: E402
from rag.topics import MAX_GROUPS, MAX_OVERVIEW_GROUPS, LabelBackground, group, label_background  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
CACHE = Path("/tmp/paperchat-bench-topics")
ICLR_AREAS = ("reinforcement learning", "learning theory", "generative models", "applications to physical sciences (physics, chemistry, biology, etc.)")
ML_VENUES = ("iclr", "icml", "neurips", "cvpr")
# Chosen before any held-out run, from no label: four broad words of machine-learning titles.
ML_THEME_WORDS = ("reinforcement", "graph", "diffusion", "adversarial")
PARTS = ["seeds", "iclr", "iclr-areas", *(f"ml-{v}" for v in ML_VENUES), "ml-themes"]
Corpus = tuple[str, list[Paper], int, list[Paper] | None]


def _paper(record: dict, titled: bool) -> Paper:
    return Paper(record["id"], record["abstract"], record["title"] if titled else record["abstract"][:60], not titled)


def corpora(part: str) -> Iterator[Corpus]:
    """(name, papers, most groups, background papers or None for the papers themselves) of a part."""
    if part in ("seeds", "iclr", "iclr-areas"):
        records = [json.loads(line) for line in (DATA / "iclr2026" / "papers.jsonl").open(encoding="utf-8")]
        if part == "seeds":
            yield "seeds", [_paper(r, titled=False) for r in records if r["in_seeds"]], MAX_GROUPS, None
            return
        everything = [_paper(r, titled=True) for r in records]
        if part == "iclr":
            yield "iclr", everything, MAX_OVERVIEW_GROUPS, None
            return
        for area in ICLR_AREAS:
            ids = {r["id"] for r in records if r["primary_area"] == area}
            yield area, [p for p in everything if p.paper_id in ids], MAX_GROUPS, everything  # the same list: counted once
        return
    records = [json.loads(line) for line in (DATA / "ml-abstracts" / "papers.jsonl").open(encoding="utf-8")]
    everything = [_paper(r, titled=True) for r in records]
    if part == "ml-themes":
        for word in ML_THEME_WORDS:
            yield f"title has '{word}'", [p for p in everything if word in p.title.lower()], MAX_GROUPS, everything
        return
    venue = part.removeprefix("ml-")
    yield venue, [p for p in everything if p.paper_id.startswith(venue)], MAX_OVERVIEW_GROUPS, None


def vectors(papers: list[Paper], seams: Seams) -> dict[str, list[float]]:
    key = hashlib.sha256("\n".join(p.paper_id for p in papers).encode()).hexdigest()[:16]
    path = CACHE / f"{key}.npy"
    if path.exists():
        matrix = np.load(path)
    else:
        matrix = np.asarray(seams.embeddings.embed_documents([p.abstract for p in papers]), dtype=np.float32)
        CACHE.mkdir(exist_ok=True)
        np.save(path, matrix)
    return {p.paper_id: row.tolist() for p, row in zip(papers, matrix, strict=True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", nargs="+", default=PARTS, choices=PARTS)
    parser.add_argument("--no-embed", action="store_true", help="label candidates ranked by TF-IDF alone")
    parser.add_argument("--timing", action="store_true", help="also time the labels by TF-IDF alone, in this process")
    parser.add_argument("--jsonl", type=Path, help="write one line per label for judging")
    args = parser.parse_args()
    seams = Seams(Settings())
    rows = []
    backgrounds: dict[int, LabelBackground] = {}  # a part's themes share the corpus they stand out from
    for part in args.parts:
        for name, papers, most, background in corpora(part):
            vecs = vectors(papers, seams)
            if background is not None and id(background) not in backgrounds:
                backgrounds[id(background)] = label_background(background)
            counted = backgrounds[id(background)] if background is not None else None
            if args.timing:  # labels by TF-IDF alone: neither tagger nor embedding model (today's shortlist and merging rules)
                started = time.perf_counter()
                with patch.object(rag.topics, "make_tagger", lambda: None):
                    group(papers, vecs, most, counted)
                plain = time.perf_counter() - started
            started = time.perf_counter()
            groups = group(papers, vecs, most, counted, None if args.no_embed else SentenceVectors(seams.embeddings))
            seconds = time.perf_counter() - started
            titles = {p.paper_id: p.title for p in papers}
            against = f"; TF-IDF alone {plain:.1f} s" if args.timing else ""
            print(f"\n## {part}: {name} ({len(papers)} papers, {len(groups)} groups, {seconds:.1f} s{against})")
            for g in groups:
                first = titles[g.paper_ids[0]] if part != "seeds" else ""
                print(f"  {g.size:5d}  {g.label:55s} {first[:70]}")
                rows.append({"part": part, "corpus": name, "size": g.size, "label": g.label, "titles": [titles[i] for i in g.paper_ids[:3]]})
    if args.jsonl:
        args.jsonl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


if __name__ == "__main__":
    main()
