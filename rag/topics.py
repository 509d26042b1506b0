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

from rag.evidence import sentences_of
from rag.records import Group, Paper
from rag.text import COMMON_ML_WORDS, MANNER_ADVERB, STOPWORDS, is_coined, readable

# Groups in a summary: about sqrt(n / 2) (8 papers → 2 groups, 50 → 5), at most this many.
MAX_GROUPS = 6
# Groups in a corpus overview: the same rule, up to this many (5,358 papers → 12).
MAX_OVERVIEW_GROUPS = 12
LABEL_TERMS = 3
# A label word is shown as the two-word phrase it starts when that many of its uses in the group are the phrase.
PHRASE_SHARE = 0.6
REPRESENTATIVES = 3
# Words, and names that begin with a digit ("3DGS", not "DGS").
_WORD = re.compile(r"(?<![A-Za-z0-9])\d+[A-Za-z][A-Za-z0-9\-]*|[A-Za-z][A-Za-z0-9\-]+")
_GENERIC = STOPWORDS | COMMON_ML_WORDS
# How many papers use each word and phrase a label may use, and how many papers there are.
LabelBackground = tuple[Counter[str], int]


def group(
    papers: Sequence[Paper], vectors: Mapping[str, Sequence[float]], max_groups: int = MAX_GROUPS, background: LabelBackground | None = None
) -> list[Group]:
    """Papers (with a vector) grouped and labelled, biggest group first. `background`: the
    label_background of the corpus the labels should stand out from (default: the papers themselves)."""
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
    background_counts, background_total = background or label_background(papers)
    groups = []
    for g in range(len(centres)):
        members = [i for i in range(len(papers)) if labels[i] == g]
        if not members:
            continue
        order = sorted(members, key=lambda i: -float(matrix[i] @ centres[g]))
        chosen = [papers[i] for i in order]
        groups.append(Group(_label(chosen, background_counts, background_total), tuple(p.paper_id for p in chosen), len(chosen)))
    return sorted(groups, key=lambda g: (-g.size, g.label))


def label_background(papers: Sequence[Paper]) -> LabelBackground:
    """How many of `papers` use each word and phrase a label may use, and how many papers there are
    (5,358 papers: ~7 s, so a corpus's is computed once per version, rag/api.py)."""
    counts: Counter[str] = Counter()
    for paper in papers:
        counts.update(_words(paper))
    return counts, len(papers)


def _words(paper: Paper) -> set[str]:
    """The words and two-word phrases a label may use ("gaussian splatting", "reinforcement learning"):
    a phrase neither begins with a word every abstract uses nor ends with a stop word."""
    # As the reader sees the text: "\textbf{I}nteraction-aware" is one word, not "nteraction-aware".
    # Without what a planted record says to an assistant: "previous instructions" labelled a topic
    # of the browser test's hostile corpus (tests/test_browser_hostile.py), shown in the map's legend.
    said = " ".join(sentences_of(paper))
    text = readable(said if paper.title_is_generated else f"{paper.quotable_title} {said}")
    # A name or acronym keeps its case ("MoLE", not "mole"); other words are folded.
    matches = list(_WORD.finditer(text))
    words = [m.group() if is_coined(m.group()) else m.group().lower() for m in matches]
    usable = [w.lower() not in _GENERIC and not MANNER_ADVERB.match(w) and len(w) > 3 for w in words]
    found = {w for w, ok in zip(words, usable, strict=True) if ok}
    for i in range(len(words) - 1):
        # Two neighbours with only a space between: "Splatting (3DGS)" is no phrase.
        joined = text[matches[i].end() : matches[i + 1].start()] == " "
        if joined and usable[i] and words[i + 1].lower() not in STOPWORDS and len(words[i + 1]) > 2:
            found.add(f"{words[i]} {words[i + 1]}")
    return found


def _label(members: Sequence[Paper], background: Counter[str], total: int) -> str:
    inside: Counter[str] = Counter()
    for paper in members:
        inside.update(_words(paper))
    # Share of the group using the term over its share of the corpus (smoothed, as class-based
    # TF-IDF): distinctive terms score high; a term only one paper uses is that paper's, not the group's.
    minimum = 2 if len(members) >= 3 else 1
    scored = sorted(
        (((count / len(members)) * math.log((total + 1) / (background.get(term, 0) + 1)), term) for term, count in inside.items() if count >= minimum),
        reverse=True,
    )
    chosen: list[str] = []
    for _, term in scored:
        if " " not in term:
            # A word most of whose uses in the group are one phrase is shown as that phrase: "gaussian" as "gaussian splatting".
            term = max((t for t in inside if t.split()[0] == term and " " in t), key=inside.__getitem__, default=term)
            term = term if inside[term] >= PHRASE_SHARE * inside[term.split()[0]] else term.split()[0]
        # "attacks, attack" or "policy, policies" would spend two of three label terms on one.
        if not {_singular(w.lower()) for w in term.split()} & {_singular(w.lower()) for t in chosen for w in t.split()}:
            chosen.append(term)
        if len(chosen) == LABEL_TERMS:
            break
    return ", ".join(chosen) or "miscellaneous"


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word
