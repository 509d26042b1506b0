"""A title's subject: the phrase of content words an abstract repeats ("masked diffusion decoding")."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter

from rag.text import COMMON_ML_WORDS, MANNER_ADVERB, STOPWORDS, TERM_HEADS, is_coined, stem_words

# The subject is a phrase the abstract repeats: said once, it is a detail.
SUBJECT_MIN_MENTIONS = 2
SUBJECT_MIN_WORDS = 2
SUBJECT_MAX_WORDS = 4
# Words of the field that end a subject phrase but never make one alone.
SUBJECT_HEADS = TERM_HEADS | frozenset("learning network networks training data framework language".split())

# Verbs of purpose ("to improve", "that reframes"): a title stops before them, and a word after
# "to" in this list is a verb, not a subject.
PURPOSE_VERBS = (
    "achieve|improve|enable|learn|obtain|estimate|understand|identify|capture|address|reduce|generate|provide|support"
    "|ensure|evaluate|assess|predict|detect|mitigate|bridge|overcome|tackle|solve|leverage|facilitate|produce|discover"
    "|explore|study|investigate|train|make|allow|help|guide|boost|accelerate|extract|handle|recover|adapt|align|find"
    "|compute|approximate|construct|build|scale|quantify|measure|analy[sz]e|characteri[sz]e|exploit|preserve|prevent"
    "|avoid|optimi[sz]e|maximi[sz]e|minimi[sz]e|enhance|increase|create|use|apply|compare|test|answer|examine"
)

# A past participle ("implemented", "predicted"): it modifies or ends a clause, it names nothing.
PARTICIPLE = re.compile(r"[a-z]{3,}(?<!e)ed")
_VERB_CUES = frozenset("we can cannot will also it they".split())
_PURPOSE_VERB = re.compile(f"(?:{PURPOSE_VERBS})", re.IGNORECASE)
_CITATION_WORDS = frozenset({"et", "al"})
_MODIFIER_SUFFIX = re.compile(r"-(?:based|wise|aware|free|guided|driven|like|style|level|specific)$")


_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9\-]*[A-Za-z0-9]|\S")


def verbs_in(text: str) -> frozenset[str]:
    """The words an abstract uses as verbs, lower-cased: after "we", "can", "it", ... ("we perform"),
    and purpose verbs after "to"; "applied to protein design" leaves "protein" a noun."""
    tokens = _TOKEN.findall(text)
    return frozenset(w.lower() for cue, w in itertools.pairwise(tokens) if cue.lower() in _VERB_CUES or (cue.lower() == "to" and _PURPOSE_VERB.fullmatch(w)))


def is_verb(word: str, verbs: frozenset[str]) -> bool:
    """Whether `word`, in any of its inflections ("achieving", "derives", "derive"), is a purpose verb
    or a verb of the abstract (`verbs_in`)."""
    word = word.lower()
    stem = re.sub(r"(?:ing|es|s|ed)$", "", word)
    forms = {word, stem, stem + "e", stem + "s", stem + "es", stem[:-1] if stem[-2:-1] == stem[-1:] else stem}
    return any(f in verbs or _PURPOSE_VERB.fullmatch(f) for f in forms if len(f) > 2)


def subject_phrase(text: str, label: str) -> str:
    """The abstract's most repeated phrase of two to four content words that the label lacks.

    RAKE's idea (phrases are the runs between stop words, scored by how often their words occur),
    with the field's own common words as stops; hand-written because RAKE and YAKE score single
    words and generic phrases high ("deep learning", "extensive experiments"), and YAKE's top
    keyphrase as a whole title scored 0.082 on the titles bench.
    """
    tokens = _TOKEN.findall(text)
    # A word the abstract uses as a verb ("we perform", "to generate") is no part of a subject.
    verbs = verbs_in(text)
    runs: list[list[str]] = [[]]
    for token in tokens:
        word = token.lower()
        if len(token) > 1 and token[0].isalpha() and (word not in STOPWORDS or word in TERM_HEADS) and not (
            MANNER_ADVERB.match(word) or word in verbs or word in _CITATION_WORDS
        ):
            runs[-1].append(token)
        elif runs[-1]:
            runs.append([])
    stems = [stem_words([w.lower() for w in run]) for run in runs]
    pairs = [(w.lower(), s) for run, run_stems in zip(runs, stems, strict=True) for w, s in zip(run, run_stems, strict=True)]
    word_counts = Counter(s for w, s in pairs if w not in COMMON_ML_WORDS)
    mentions: Counter[tuple[str, ...]] = Counter()
    surface: dict[tuple[str, ...], list[str]] = {}
    for run, run_stems in zip(runs, stems, strict=True):
        for n in range(SUBJECT_MIN_WORDS, SUBJECT_MAX_WORDS + 1):
            for i in range(len(run) - n + 1):
                first, last = run[i].lower(), run[i + n - 1].lower()
                # "brain foundation model" may end on a word of the field, never begin with one;
                # "predicted weights" or "tokens processed" and "block-wise" modify, they do not name.
                if first in COMMON_ML_WORDS or (last in COMMON_ML_WORDS and last not in SUBJECT_HEADS):
                    continue
                if PARTICIPLE.fullmatch(first) or PARTICIPLE.fullmatch(last) or _MODIFIER_SUFFIX.search(last):
                    continue
                key = tuple(run_stems[i : i + n])
                mentions[key] += 1
                surface.setdefault(key, run[i : i + n])
    have = set(stem_words(re.findall(r"[a-z0-9]+", label.lower())))
    scored = [
        (sum(word_counts[s] for s in key) * math.sqrt(count), key)
        for key, count in mentions.items()
        if count >= SUBJECT_MIN_MENTIONS and not have.intersection(key)
    ]
    if not scored:
        return ""
    best = max(scored)[1]
    return " ".join(w if is_coined(w) else w.lower() for w in surface[best])
