"""A title's subject: the abstract's noun phrase closest by the embedding model to it, or to its opening
when the phrase names the field a label is "for", else the one it repeats ("masked diffusion decoding")."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from rag.tagger import NOUN_TAGS, Tagger
from rag.text import COMMON_ML_WORDS, MANNER_ADVERB, STOPWORDS, TERM_HEADS, is_coined, language_of, split_sentences, stem_words, term_sequence

# Texts to unit-length embedding rows (rag/evidence.SentenceVectors in the app).
Embed = Callable[[Sequence[str]], np.ndarray]

# Without embeddings the subject is a phrase the abstract repeats: said once, it may be a detail.
SUBJECT_MIN_MENTIONS = 2
SUBJECT_MIN_WORDS = 2
SUBJECT_MAX_WORDS = 4
# Words of the field that end a subject phrase but never make one alone.
SUBJECT_HEADS = TERM_HEADS | frozenset("learning network networks training data framework language".split())
# A phrase a label adds ("... for video generation") names the field, which an abstract states in its
# opening sentences; closeness to the whole abstract picked its components and results ("for
# invisibility masks", "for minimax-optimal regret").
FIELD_SENTENCES = 2
# A field phrase less like the abstract's opening than this (cosine, all-MiniLM-L6-v2) is a component, a
# detail or a result said near it ("for selection capability", "for state-action samples", "for MLP
# layer"): on the titles bench's dev part, 14 % of the phrases added, which shared 0.18 of their words with
# the real title against 0.48 for the rest. A title without its "for ..." still names its subject.
FIELD_MIN_SIMILARITY = 0.45

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


# An acronym: a word of two to six capitals ("PEFT", "RL", "VLM" of "VLMs"), or three to six inside a
# word ("PRM" of "WebPRM", "LLM" of "dLLM"); not two inside a word ("RA" of "LoRA", "RF" of "NeRF"), nor
# a longer run (a word in capitals, "GEOPRIVACY").
# After "3D" the rest is the acronym: "GS" of "3DGS" (a phrase's words start with a letter: "gaussian splatting").
_ACRONYM = re.compile(r"(?<![A-Za-z])(?:\dD)?([A-Z]{2,6})(?=s?(?![A-Za-z]))|(?<![A-Z])([A-Z]{3,6})(?![A-Z])")
# A word of letters in any alphabet ("Schrödinger", not "dinger"), else one character.
_TOKEN = re.compile(r"[^\W\d_][\w\-]*[^\W_]|\S")


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


# Penn Treebank tags of a subject's words: nouns, adjectives, numbers, and participles or gerunds used
# as modifiers ("masked diffusion", "graph coloring heuristics"); a finite verb, an adverb or a
# preposition ends a run. A subject ends on a noun.
_SUBJECT_TAGS = frozenset("NN NNS NNP NNPS JJ JJR JJS CD VBN VBG FW HYPH".split())
_NOMINAL_TAGS = NOUN_TAGS | {"JJ", "CD", "HYPH"}


def _tags_by_token(text: str, tokens: list[tuple[int, str]], tag: Tagger) -> list[str]:
    """The tag of each of `tokens` (offset, token): that of the tagger's word ending it, as a
    hyphenated compound's last part is its head ("Test-Time" is a noun when "Time" is)."""
    ends = {at + len(word): t for word, at, t in tag(text)}
    return [ends.get(at + len(token), "") for at, token in tokens]


class Candidate(NamedTuple):
    """A phrase that could name a paper's subject, as the abstract writes it."""

    surface: str
    repetition: float  # how often its words occur, times the square root of the phrase's mentions
    mentions: int
    nominal: bool  # tagged as nouns, adjectives or numbers, ending on a noun, where it is said
    spells_label: bool  # what an acronym of the label stands for (`_spells_out`)


def subject_phrase(text: str, label: str, tag: Tagger | None = None, embed: Embed | None = None, min_similarity: float = -1.0) -> str:
    """The phrase of two to four content words that names the abstract's subject and that the
    label lacks: the candidate closest by embedding (KeyBERT's score) when `embed` is given, to the
    abstract, or to its opening sentences (its field) when the phrase is added to a `label`; else the
    most repeated; none when the closest is less like it than `min_similarity`. A phrase said once is a candidate only when the tagger vouches
    that it is a noun phrase, and only for the embedding, which tells a subject from a detail.

    Hand-written: RAKE and YAKE score single words and generic phrases high ("deep learning",
    "extensive experiments"; YAKE's top keyphrase as a whole title scored 0.082 on the titles
    bench), and KeyBERT re-reads the candidates it is given with scikit-learn's CountVectorizer,
    which lower-cases them and splits "test-time" in two, so the phrases here would not survive it.
    """
    candidates = subject_candidates(text, label, tag)
    # The tagger reads English: a Spanish phrase said once is no noun phrase it can vouch for.
    if embed is None or language_of(text) != "en":
        repeated = [c for c in candidates if c.mentions >= SUBJECT_MIN_MENTIONS]
        best = max(repeated, key=lambda c: (c.repetition, c.surface)) if repeated else None
    else:
        pool = [c for c in candidates if c.mentions >= SUBJECT_MIN_MENTIONS or c.nominal]
        if not pool:
            return ""
        # The abstract apart from the phrases: in one batch every phrase is padded to the abstract's length.
        document = embed([" ".join(split_sentences(text)[:FIELD_SENTENCES]) if label else text])[0]
        similarity = embed([c.surface for c in pool]) @ document
        if float(similarity.max()) < min_similarity:
            return ""
        best = pool[int(np.argmax(similarity))]
    # When the best phrase is one the label's acronym says, the label names its subject already: the
    # next best was a detail ("ReFORM: offline RL method ... for OOD errors").
    return best.surface if best is not None and not best.spells_label else ""


def subject_candidates(text: str, label: str, tag: Tagger | None = None) -> list[Candidate]:
    """The runs of content words between stop words (RAKE's idea, with the field's common words as
    stops), two to four words long, that share no word with `label`."""
    located = [(m.start(), m.group()) for m in _TOKEN.finditer(text)]
    tokens = [token for _, token in located]
    tags = _tags_by_token(text, located, tag) if tag is not None else [""] * len(tokens)
    # A word the abstract uses as a verb ("we perform", "to generate") is no part of a subject.
    verbs = verbs_in(text)
    tagged_runs: list[list[tuple[str, str]]] = [[]]  # (token, tag) runs
    nouns: set[str] = set()  # the words tagged as nouns somewhere in the abstract
    for token, token_tag in zip(tokens, tags, strict=True):
        word = token.lower()
        if token_tag in NOUN_TAGS:
            nouns.add(word)
        if len(token) > 1 and token[0].isalpha() and (word not in STOPWORDS or word in TERM_HEADS) and not (
            MANNER_ADVERB.match(word) or word in verbs or word in _CITATION_WORDS or (token_tag and token_tag not in _SUBJECT_TAGS)
        ):
            tagged_runs[-1].append((token, token_tag))
        elif tagged_runs[-1]:
            tagged_runs.append([])
    runs = [[token for token, _ in run] for run in tagged_runs]
    stems = [stem_words([w.lower() for w in run]) for run in runs]
    pairs = [(w.lower(), s) for run, run_stems in zip(runs, stems, strict=True) for w, s in zip(run, run_stems, strict=True)]
    word_counts = Counter(s for w, s in pairs if w not in COMMON_ML_WORDS)
    mentions: Counter[tuple[str, ...]] = Counter()
    surface: dict[tuple[str, ...], list[str]] = {}
    nominal: set[tuple[str, ...]] = set()
    for run, run_stems, tagged in zip(runs, stems, tagged_runs, strict=True):
        run_tags = [t for _, t in tagged]
        for n in range(SUBJECT_MIN_WORDS, SUBJECT_MAX_WORDS + 1):
            for i in range(len(run) - n + 1):
                first, last = run[i].lower(), run[i + n - 1].lower()
                # "brain foundation model" may end on a word of the field, never begin with one;
                # "predicted weights" or "tokens processed" and "block-wise" modify, they do not name.
                if first in COMMON_ML_WORDS or (last in COMMON_ML_WORDS and last not in SUBJECT_HEADS):
                    continue
                if PARTICIPLE.fullmatch(first) or PARTICIPLE.fullmatch(last) or _MODIFIER_SUFFIX.search(last):
                    continue
                if tag is not None and last not in nouns:
                    continue  # "tokens accumulate", "vector representing": a subject ends on a noun
                key = tuple(run_stems[i : i + n])
                mentions[key] += 1
                if all(t in _NOMINAL_TAGS for t in run_tags[i : i + n]) and run_tags[i + n - 1] in NOUN_TAGS:
                    nominal.add(key)
                surface.setdefault(key, run[i : i + n])

    have = set(term_sequence(label))  # hyphenated words in parts: "GUI-Shift" shares "shift" with "Shift"
    # The acronyms of a label's description: a name's own says no field ("VLM-Geo: benchmark" wants its
    # "for vision-language models"), and a bare name's spelled-out form is its description.
    described = label.partition(": ")[2] if ": " in label else label
    acronyms = [(a or b).lower() for a, b in _ACRONYM.findall(described)] if len(label.split()) > 1 else []
    # A phrase said only as the start of a longer one is no phrase of its own: "multivariate hawkes"
    # of "multivariate hawkes processes", "sequential decision" of "sequential decision making".
    extended: Counter[tuple[str, ...]] = Counter()
    for key, count in mentions.items():
        if len(key) > SUBJECT_MIN_WORDS and key in nominal:  # a noun phrase as the tagger reads it, not "... matters"
            extended[key[:-1]] += count  # its mentions that a longer phrase goes on from
    cut = {key for key, count in mentions.items() if extended[key] >= count}
    return [
        Candidate(
            " ".join(w if is_coined(w) else w.lower() for w in surface[key]),
            sum(word_counts[s] for s in key) * math.sqrt(count),
            count,
            key in nominal,
            _spells_out(surface[key], acronyms),
        )
        for key, count in mentions.items()
        if key not in cut and not have.intersection(term_sequence(" ".join(surface[key])))
    ]


def _spells_out(words: list[str], acronyms: list[str]) -> bool:
    """Whether `words` are what one of the label's `acronyms` stands for, perhaps with a head after it
    ("parameter-efficient fine-tuning (methods)" of "PEFT", "process reward models" of "WebPRM"): a
    label says it once ("DiaBlo: PEFT approach for Parameter-Efficient Fine-Tuning" read as a stutter)."""
    initials = "".join(part[0] for w in words for part in w.lower().split("-") if part)
    return any(initials.startswith(a) for a in acronyms)
