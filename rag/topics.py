"""Topics: groups of papers, labelled by their distinctive words, for summaries of a theme and
for the overview of a whole corpus.

Papers are grouped by k-means (scikit-learn) over their stored embeddings (the mean of their
chunks' vectors, read from the store). Each group is labelled as BERTopic's part-of-speech and
KeyBERTInspired representations do: candidates are the words and two-word phrases its papers
share that the rest of the corpus uses less (class-based TF-IDF), kept when they name a thing (a
noun by the tagger: "optimal", "derive" or "extensive" name nothing), and ranked by how much closer
their embedding is to the group's centre than to the centre of all the papers grouped ("weight
decay" is close to its group; "datasets" or "improvements" are as close to every group).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

import numpy as np

from rag.evidence import sentences_of, unit
from rag.label_subjects import Embed
from rag.records import Group, Paper
from rag.tagger import NOUN_TAGS, Tagger, make_tagger
from rag.text import COMMON_ML_WORDS, MANNER_ADVERB, STOPWORDS, is_coined, language_of, readable

# Groups in a summary: about sqrt(n / 2) (8 papers → 2 groups, 50 → 5), at most this many.
MAX_GROUPS = 6
# Groups in a corpus overview: the same rule, up to this many (5,358 papers → 12).
MAX_OVERVIEW_GROUPS = 12
LABEL_TERMS = 3
# A label word is shown as the two-word phrase it starts when that many of its uses in the group are the phrase.
PHRASE_SHARE = 0.6
REPRESENTATIVES = 3
# Letters two label words share when they say one idea ("classifiers", "classification"); six would
# join "transformers" and "transfer".
SHARED_PREFIX = 7
# Label candidates per group: the terms with the highest class-based TF-IDF, before the tagger and
# the embedding choose among them (BERTopic's KeyBERTInspired ranks such a shortlist the same way).
CANDIDATES = 30
# Uses of a candidate the tagger reads to decide whether it names a thing (the majority decides).
TAGGED_USES = 5
# Uses read at most before deciding on fewer lower-case ones: a 1,500-paper group whose term is
# always capitalised had every sentence tagged (7.8 s instead of 0.4 s).
SCANNED_USES = 3 * TAGGED_USES
# Words, and names that begin with a digit ("3DGS", not "DGS").
_WORD = re.compile(r"(?<![A-Za-z0-9])\d+[A-Za-z][A-Za-z0-9\-]*|[A-Za-z][A-Za-z0-9\-]+")
_GENERIC = STOPWORDS | COMMON_ML_WORDS
# How many papers use each word and phrase a label may use, and how many papers there are.
LabelBackground = tuple[Counter[str], int]


def group(
    papers: Sequence[Paper],
    vectors: Mapping[str, Sequence[float]],
    max_groups: int = MAX_GROUPS,
    background: LabelBackground | None = None,
    embed: Embed | None = None,
) -> list[Group]:
    """Papers (with a vector) grouped and labelled, biggest group first. `background`: the
    label_background of the corpus the labels should stand out from (default: the papers themselves).
    `embed`: the app's embedding model, which ranks label candidates (without it: by TF-IDF alone)."""
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
    # One group's centre is all papers' centre: every candidate would be as near it as to them.
    labeller = _Labeller(background_counts, background_total, make_tagger(), embed if len(centres) > 1 else None, matrix.mean(axis=0))
    groups = []
    for g in range(len(centres)):
        members = [i for i in range(len(papers)) if labels[i] == g]
        if not members:
            continue
        order = sorted(members, key=lambda i: -float(matrix[i] @ centres[g]))
        chosen = [papers[i] for i in order]
        groups.append(Group(labeller.label(chosen, centres[g]), tuple(p.paper_id for p in chosen), len(chosen)))
    return sorted(groups, key=lambda g: (-g.size, g.label))


def label_background(papers: Sequence[Paper]) -> LabelBackground:
    """How many of `papers` use each word and phrase a label may use, and how many papers there are
    (5,358 papers: ~7 s, so a corpus's is computed once per version, rag/api.py)."""
    counts: Counter[str] = Counter()
    for paper in papers:
        counts.update(_words(_said(paper)))
    return counts, len(papers)


def _said(paper: Paper) -> tuple[str, list[str]]:
    """What a label may come from: the title ("" when generated) and the abstract's sentences, without
    what a planted record says to an assistant ("previous instructions" labelled a topic of the
    browser test's hostile corpus, tests/test_browser_hostile.py, shown in the map's legend)."""
    return "" if paper.title_is_generated else paper.quotable_title, sentences_of(paper)


def _words(said: tuple[str, list[str]]) -> set[str]:
    """The words and two-word phrases a label may use ("gaussian splatting", "reinforcement learning")
    of a paper's _said: a phrase neither begins with a word every abstract uses nor ends with a stop word."""
    title, sentences = said
    # As the reader sees the text: "\textbf{I}nteraction-aware" is one word, not "nteraction-aware".
    text = readable(" ".join([title, *sentences]).strip())
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


class _Labeller:
    """Labels of the groups of one grouping: the corpus they stand out from, the tagger and
    embedding model that judge candidates, and the centre of all the papers grouped."""

    def __init__(self, background: Counter[str], total: int, tagger: Tagger | None, embed: Embed | None, centre: np.ndarray) -> None:
        self.background, self.total, self.tagger, self.embed = background, total, tagger, embed
        self.all_centre = unit(centre)

    def label(self, members: Sequence[Paper], group_centre: np.ndarray) -> str:
        said = [_said(paper) for paper in members]
        inside: Counter[str] = Counter()
        for paper_said in said:
            inside.update(_words(paper_said))
        candidates = self._shortlist(inside, len(members))
        names: Callable[[str], bool] = _any_term  # without a tagger every candidate may label
        if self.tagger is not None:
            # As _words reads the papers, in English, which the tagger reads (abstracts before titles).
            lines = (line for title, sentences in said for line in (*sentences, title) if line)
            sentences = [text for text in map(readable, lines) if language_of(text) == "en"]
            tag = lru_cache(maxsize=None)(self.tagger)  # a sentence using two candidates is tagged once
            names = lru_cache(maxsize=None)(lambda term: _names_a_thing(term, sentences, tag))
        if self.embed is not None and candidates:
            rows = self.embed(candidates)
            closer = rows @ unit(group_centre) - rows @ self.all_centre
            candidates = [candidates[i] for i in np.argsort(-closer, kind="stable")]
        # Tagged in rank order until the label is full (~2 s less for 12 topics than tagging all 30);
        # a group none of whose candidates the tagger reads as a noun keeps its best words.
        return _chosen(candidates, inside, names) or _chosen(candidates, inside, _any_term) or "miscellaneous"

    def _shortlist(self, inside: Counter[str], size: int) -> list[str]:
        """The CANDIDATES terms of a group of `size` papers with the highest class-based TF-IDF."""
        # Share of the group using the term over its share of the corpus (smoothed, as class-based
        # TF-IDF): distinctive terms score high; a term only one paper uses is that paper's, not the group's.
        # The share's square root, as BERTopic's reduce_frequent_words: a word a third of the group
        # uses ("quality", "structures") no longer outweighs a rarer one only this group uses.
        minimum = 2 if size >= 3 else 1
        idf = {term: math.log((self.total + 1) / (self.background.get(term, 0) + 1)) for term in inside}
        scored = sorted((((count / size) ** 0.5 * idf[term], term) for term, count in inside.items() if count >= minimum), reverse=True)
        return [term for _, term in scored[:CANDIDATES]]


def _any_term(term: str) -> bool:
    return True


def _names_a_thing(term: str, sentences: Sequence[str], tag: Tagger) -> bool:
    """Whether a label candidate names a thing where the group's papers use it (the majority of its
    first TAGGED_USES uses, those written in lower case if there are any: "Visual" in a method's
    capitalised name is tagged a proper noun): a noun, or a phrase that ends on one and is not most
    often the start of one longer phrase ("graph neural" of "graph neural networks"). A name or
    acronym always names a thing. A single word may modify another ("reasoning tasks", "diffusion
    models") and still name the group's subject."""
    last_word = term.split()[-1]
    # "Multi-Agent" or "Zero-Shot" copied from a title is no name: each part merely capitalised.
    if is_coined(last_word) and not all(part[:1].isupper() and part[1:].islower() for part in last_word.split("-")):
        return True
    # As _words finds words: whole, or after a number's hyphen ("1-Lipschitz"), not inside "flow-matching".
    pattern = re.compile(rf"(?<![A-Za-z0-9])(?<![A-Za-z]-){re.escape(term)}(?![A-Za-z0-9\-])", re.IGNORECASE)
    lower: list[tuple[str, str]] = []  # (the term's last tag, the next word) per use
    capitalised: list[tuple[str, str]] = []
    for sentence in sentences:
        if (found := pattern.search(sentence)) is None:
            continue
        tokens = tag(sentence)
        # The token the term ends in, by its offset (the tagger may split "multi-agent" in three).
        last = next((i for i, (word, offset, _) in enumerate(tokens) if offset < found.end() <= offset + len(word)), None)
        if last is not None:
            after = tokens[last + 1][0].lower() if last + 1 < len(tokens) else ""
            (capitalised if found.group()[0].isupper() else lower).append((tokens[last][2], after))
        # Enough lower-case uses, or a term always capitalised ("Gaussian Splatting") read in a few.
        if len(lower) == TAGGED_USES or len(lower) + len(capitalised) == SCANNED_USES:
            break
    # Capitalised uses only when there are no others: "Massive" in a title is tagged a proper noun.
    uses = lower or capitalised[:TAGGED_USES]
    if sum(last_tag in NOUN_TAGS for last_tag, _ in uses) * 2 <= len(uses):
        return False
    if " " not in term:
        return True
    # One content word after more than half its uses: "networks" after "graph neural", "answering" after "visual question".
    then = Counter(word for _, word in uses if word.isalpha() and word not in STOPWORDS)
    return not then or then.most_common(1)[0][1] * 2 <= len(uses)


def _chosen(candidates: Sequence[str], inside: Counter[str], names: Callable[[str], bool]) -> str:
    """The first LABEL_TERMS candidates that name a thing, a word shown as the phrase (that names a
    thing) it mostly starts, no two one idea (_one_idea); "" when none does."""
    chosen: list[str] = []
    for term in candidates:
        if not names(term):
            continue
        if " " not in term:
            # A word most of whose uses in the group are one phrase is shown as that phrase: "gaussian" as "gaussian splatting".
            # Ties go by the phrase's letters: a set's order changes from one process to the next.
            phrase = max((t for t in inside if t.split()[0] == term and " " in t), key=lambda t: (inside[t], t), default=term)
            term = phrase if inside[phrase] >= PHRASE_SHARE * inside[term] and names(phrase) else term
        # "attacks, attack", "policy, policies" or "flow matching, flow-matching" would spend two of three label terms on one.
        if not any(_one_idea(term, t) for t in chosen):
            chosen.append(term)
        if len(chosen) == LABEL_TERMS:
            break
    return ", ".join(chosen)


def _one_idea(first: str, second: str) -> bool:
    """Whether two label terms say one idea: a content word in common, singular and cut to
    SHARED_PREFIX letters ("classifiers" and "classification", "molecular" and "molecule"; at the
    cost of "continual" and "continuous"), a word that is a part of the other's hyphenated word
    ("agent" and "multi-agent systems"), or the same letters once spaces and hyphens go ("flow
    matching" and "flow-matching"). Two hyphenated words sharing a part are two: "zero-shot" and "few-shot"."""
    (words, parts), (other_words, other_parts) = _stems(first), _stems(second)
    return bool(words & other_words or words & other_parts or parts & other_words)


def _stems(term: str) -> tuple[set[str], set[str]]:
    """A term's content words and the parts of its hyphenated ones, singular and cut to
    SHARED_PREFIX letters; its words joined without spaces or hyphens count as a word."""
    words = [word for word in term.lower().split() if word not in STOPWORDS]
    parts = {_stem(part) for word in words if "-" in word for part in word.split("-") if part not in STOPWORDS}
    return {_stem(word) for word in words} | {re.sub(r"[\s\-]+", "", term.lower())}, parts


def _stem(word: str) -> str:
    return _singular(word)[:SHARED_PREFIX]


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word
