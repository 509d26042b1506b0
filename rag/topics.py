"""Topics: groups of papers, labelled by their distinctive words, for summaries of a theme and
for the overview of a whole corpus.

Papers are grouped by k-means (scikit-learn) over their stored embeddings (the mean of their
chunks' vectors, read from the store), and each group is labelled by the words its papers share
that the rest of the corpus uses less (document frequency in the group over frequency outside).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from rag.records import Group, Paper
from rag.text import STOPWORDS, is_coined, readable

# Groups in a summary: about sqrt(n / 2) (8 papers → 2 groups, 50 → 5), at most this many.
MAX_GROUPS = 6
# Groups in a corpus overview: the same rule, up to this many (5,358 papers → 12).
MAX_OVERVIEW_GROUPS = 12
LABEL_TERMS = 3
REPRESENTATIVES = 3
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]+")
# Words every ML abstract uses; as a label they say nothing.
_GENERIC = STOPWORDS | frozenset(
    """learning neural network networks data training large performance task tasks language existing models framework problem
    experiments demonstrate achieve achieves various different improve improves improved state-of-the-art sota however while such
    both more less than first key significant significantly effective efficient efficiently novel propose proposed based art state
    significantly outperforms outperform benchmark benchmarks across wide range including through due time available open code
    approach approaches method methods work works establish established empirical deep provide provides show shows study studies
    result results paper introduce introduces present presents using use used enable enables allows new simple strong directly
    baseline baselines practical""".split()
)
# Manner adverbs ("empirically", "successfully", "substantially") say how, never what: no label.
_ADVERB = re.compile(r"^[a-z]{4,}(?:ally|ully|ively|ntly|tly|ely|rly)$")


def group(papers: Sequence[Paper], vectors: Mapping[str, Sequence[float]], max_groups: int = MAX_GROUPS, background: Sequence[Paper] = ()) -> list[Group]:
    """Papers (with a vector) grouped and labelled, biggest group first. `background`: the corpus
    the labels should stand out from (default: the papers themselves)."""
    papers = [p for p in papers if p.paper_id in vectors]
    if not papers:
        return []
    matrix = np.asarray([vectors[p.paper_id] for p in papers], dtype=np.float32)
    k = max(1, min(max_groups, round(math.sqrt(len(papers) / 2)), len(papers)))
    if k == 1:
        labels = np.zeros(len(papers), dtype=int)
        centres = matrix.mean(axis=0, keepdims=True)
    else:
        from sklearn.cluster import KMeans

        # Fixed seed: the same corpus gives the same groups, so an overview can be cached and a summary repeated.
        model = KMeans(n_clusters=k, n_init=4, random_state=0).fit(matrix)
        labels, centres = model.labels_, model.cluster_centers_
    background_counts, background_total = _document_frequencies(background or papers)
    groups = []
    for g in range(len(centres)):
        members = [i for i in range(len(papers)) if labels[i] == g]
        if not members:
            continue
        order = sorted(members, key=lambda i: -float(matrix[i] @ centres[g]))
        chosen = [papers[i] for i in order]
        groups.append(Group(_label(chosen, background_counts, background_total), tuple(p.paper_id for p in chosen), len(chosen)))
    return sorted(groups, key=lambda g: (-g.size, g.label))


def _document_frequencies(papers: Sequence[Paper]) -> tuple[Counter[str], int]:
    counts: Counter[str] = Counter()
    for paper in papers:
        counts.update(_words(paper))
    return counts, len(papers)


def _words(paper: Paper) -> set[str]:
    # As the reader sees the text: "\textbf{I}nteraction-aware" is one word, not "nteraction-aware".
    text = readable(paper.abstract if paper.title_is_generated else f"{paper.title} {paper.abstract}")
    # A name or acronym keeps its case ("MoLE", not "mole"); other words are folded.
    return {w if is_coined(w) else w.lower() for w in _WORD.findall(text) if w.lower() not in _GENERIC and len(w) > 3}


def _label(members: Sequence[Paper], background: Counter[str], total: int) -> str:
    inside: Counter[str] = Counter()
    for paper in members:
        inside.update(_words(paper))
    # Share of the group using the word over its share of the corpus (smoothed): distinctive
    # words score high; a word only one paper uses is that paper's, not the group's.
    minimum = 2 if len(members) >= 3 else 1
    scored = [
        ((count / len(members)) * math.log((total + 1) / (background.get(word, 0) + 1)), word)
        for word, count in inside.items()
        if count >= minimum and not _ADVERB.match(word)
    ]
    chosen: list[str] = []
    for _, word in sorted(scored, reverse=True):
        # "attacks, attack" or "policy, policies" would spend two of three label words on one.
        if _singular(word) not in {_singular(w) for w in chosen}:
            chosen.append(word)
        if len(chosen) == LABEL_TERMS:
            break
    return ", ".join(chosen) or "miscellaneous"


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word
