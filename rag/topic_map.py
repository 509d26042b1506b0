"""The corpus at a glance: its topics, and every paper as a point on a plane, coloured by topic.

A linear projection (PCA, scikit-learn) of the papers' stored embeddings, not t-SNE or UMAP:
it takes ~0.1 s for 20,000 papers instead of minutes, is the same on every run (no random
layout to confuse a returning user), and the k-means topics, not the layout, carry the grouping.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rag.label_subjects import Embed
from rag.records import Group, MapPoint, Paper
from rag.topics import MAX_OVERVIEW_GROUPS, LabelBackground, group


def corpus_topics(
    papers: Sequence[Paper], vectors: Mapping[str, Sequence[float]], background: LabelBackground | None = None, embed: Embed | None = None
) -> tuple[list[Group], list[MapPoint]]:
    """The whole corpus in topics, and its map: one read of every stored vector serves both.
    `background`: the corpus's topics.label_background, when already counted; `embed`: the model
    that ranks label words (rag/topics.py). Papers without a vector (an ingest adding them right
    now) wait for the next corpus version."""
    placed = [p for p in papers if p.paper_id in vectors]
    groups = group(placed, vectors, MAX_OVERVIEW_GROUPS, background, embed)
    return groups, topic_map(placed, vectors, groups)


def topic_map(papers: Sequence[Paper], vectors: Mapping[str, Sequence[float]], groups: Sequence[Group]) -> list[MapPoint]:
    """One point per paper that has a stored vector; papers without one (none after a complete ingest) are left out."""
    from sklearn.decomposition import PCA

    placed = [p for p in papers if p.paper_id in vectors]
    if not placed:
        return []
    matrix = np.asarray([vectors[p.paper_id] for p in placed], dtype=np.float32)
    if len(placed) >= 3:
        plane = PCA(n_components=2, svd_solver="full" if len(placed) < 500 else "randomized", random_state=0).fit_transform(matrix)
    else:  # PCA needs more points than components; two papers sit side by side
        plane = np.array([[float(i), 0.0] for i in range(len(placed))])
    # Two topics with the same label would share one colour and one legend entry.
    labels: list[str] = []
    for g in groups:
        labels.append(g.label if g.label not in labels else f"{g.label} ({sum(label.startswith(g.label) for label in labels) + 1})")
    topic_of = {paper_id: label for g, label in zip(groups, labels, strict=True) for paper_id in g.paper_ids}
    return [
        MapPoint(p.paper_id, p.title, topic_of.get(p.paper_id, "other"), round(float(x), 4), round(float(y), 4))
        for p, (x, y) in zip(placed, plane, strict=True)
    ]
