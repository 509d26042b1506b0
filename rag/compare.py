"""Comparisons: the papers a request names, lined up aspect by aspect.

Each cell is one sentence of that paper's own abstract, chosen for the aspect by the words that
signal it ("we propose" for the approach, "dataset"/"benchmark" for the data, "x faster"/"memory"
for the cost, ...) and cited, or "not stated in the abstract". Cells are excerpts, never
paraphrases, so a table is true by construction; what can go wrong is the choice of sentence,
which is why the cue words are strict and an unmatched aspect says so instead of guessing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.evidence import CONTRIBUTION, sentences_of
from rag.records import NOT_STATED, Comparison, Source

ASPECTS: tuple[str, ...] = ("problem", "approach", "data or benchmarks", "reported results", "efficiency or cost", "stated limitations")
# Most papers a table lines up: beyond six, rows stop fitting a screen and a summary serves better.
MAX_PAPERS = 6

_CUES: dict[str, re.Pattern[str]] = {
    "problem": re.compile(
        r"\b(?:however|challenge|challenging|problem|struggle|fail|fails|lack|lacks|remain|remains|bottleneck|suffer|suffers|"
        r"limited|costly|expensive|difficult|overlook|unclear|hinder)\b",
        re.I,
    ),
    "approach": CONTRIBUTION,
    # The words, or a named benchmark after "on" (LongBench, RULER, VOC, LIBERO): case-sensitive part.
    "data or benchmarks": re.compile(
        r"\b(?:[Dd]atasets?|[Bb]enchmarks?|[Cc]orpus|[Cc]orpora|evaluated on|experiments on|suite)\b|\bon (?:the )?[A-Z][\w\-]*[A-Z0-9][\w\-]*"
    ),
    "reported results": re.compile(
        r"\b(?:outperform\w*|state-of-the-art|sota|surpass\w*|improv\w*|achiev\w*|accuracy|gains?|better|matches|competitive)\b|\d+(?:\.\d+)?\s*(?:%|\\%)",
        re.I,
    ),
    "efficiency or cost": re.compile(
        r"\b(?:faster|speed\w*|latency|flops|memory|compute|computation\w*|cost\w*|efficien\w*|throughput|real-time|seconds|overhead|lightweight)\b"
        r"|\d+(?:\.\d+)?\s*\$?\s*(?:\\times|×|x)\b",
        re.I,
    ),
    # Only the paper's own limits: "existing methods are limited" is the problem, not this.
    "stated limitations": re.compile(
        r"\b(?:our (?:method|approach|model|framework) (?:is|does|cannot|can not|requires)|future work|we leave|limitations? of our|"
        r"remains? (?:an )?open|does not (?:yet )?(?:handle|address|scale))\b",
        re.I,
    ),
}


def compare(sources: Sequence[Source]) -> Comparison:
    return Comparison(ASPECTS, tuple((s.n, s.paper.title, aspect_cells(s)) for s in sources[:MAX_PAPERS]))


def aspect_cells(source: Source) -> tuple[str, ...]:
    """For each aspect, the abstract sentence that states it best, or NOT_STATED. A sentence
    serves one aspect only, given to the aspect whose cues it matches most plainly."""
    sentences = sentences_of(source.paper)
    taken: set[int] = set()
    cells: dict[str, str] = {}
    # Rarest aspects pick first, so that the one sentence with a dataset and a speed-up is not
    # spent on "results" when it is the only one that says anything about cost.
    for aspect in ("stated limitations", "efficiency or cost", "data or benchmarks", "problem", "approach", "reported results"):
        scored = []
        for i, sentence in enumerate(sentences):
            hits = len(_CUES[aspect].findall(sentence))
            if not hits or i in taken:
                continue
            # The problem is stated early, the results (and the method's own costs) late: position breaks ties.
            position = i / max(1, len(sentences) - 1)
            prior = {"problem": 1 - position, "reported results": position, "efficiency or cost": position}.get(aspect, 0.0)
            scored.append((hits + 0.5 * prior, -i, i))
        if scored:
            best = max(scored)[2]
            taken.add(best)
            cells[aspect] = sentences[best]
    return tuple(cells.get(aspect, NOT_STATED) for aspect in ASPECTS)
