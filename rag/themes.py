"""Themes: which papers of the corpus a theme is about, not merely mentions. (What a request's theme
is: rag/theme_request.py.)

A paper is in a theme when it is grounded in it (rag/evidence.grounding, each theme term weighted
by its rarity), uses every term of the theme's subject, names a core term in its title or in
several sentences of its abstract, and, for a theme of several words whose rare word alone names
other work among the candidates, names that term as a unit or says it in other words (its best
chunk close to the theme by embedding). The cuts were measured by reading
included papers (bench/summarize_judged.jsonl, rag/calibration.py).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise

from rag.calibration import MINILM, Calibration
from rag.evidence import sentences_of
from rag.records import Hit, Paper
from rag.text import STOPWORDS, TERM_HEADS, TERM_WORD, key_terms, stem_words, term_sequence
from rag.theme_parts import theme_parts
from rag.theme_request import theme_head

_STOPWORD_STEMS = frozenset(stem_words(sorted(STOPWORDS)))
_HEADS = _STOPWORD_STEMS & frozenset(stem_words(sorted(TERM_HEADS)))  # "model", "method": a term's own words


def core_terms(theme: str, document_frequency: Mapping[str, int], papers: int, cal: Calibration = MINILM) -> tuple[set[str], bool]:
    """The theme's rare terms ("splat" in "3D Gaussian Splatting", not "3d"), and whether they must
    occur together: a theme without a rare term ("diffusion language models") is its two least
    common terms, in one sentence."""
    # A term that is also a stop word's stem ("model" of "modeling") is seen in a text only in its
    # other forms ("reward models" drops "models"): no paper could be found naming it.
    terms = {t for t in key_terms(theme) if document_frequency.get(t, 0) > 0 and t not in _STOPWORD_STEMS}
    core = {t for t in terms if document_frequency[t] <= max(cal.core_term_max_share * papers, cal.core_term_max_papers)}
    if core:
        return core, False
    return set(sorted(terms, key=lambda t: (document_frequency[t], t))[:2]), True


def theme_unit(theme: str, core: set[str]) -> tuple[str, ...]:
    """For a theme without a rare term, the words it names as one term, in order ("reward models
    and reward modeling" → reward model): the first run of two or three of its words that holds its
    least common term and no stop word (but a term's own, "models"). () when it has none."""
    words = term_sequence(theme)
    for length in (2, 3):
        for start in range(len(words) - length + 1):
            run = tuple(words[start : start + length])
            if core & set(run) and all(map(_is_content, run)) and run[0] not in _HEADS:
                return run
    return ()


# Candidates that must use one of a theme's two-word terms for it to count as a term.
MIN_UNIT_PAPERS = 3


def modifier_units(theme: str, core: set[str]) -> list[tuple[str, ...]]:
    """The theme's two-word terms that end in a core term, modifier first ("knowledge editing / model
    editing" → knowledge edit, model edit)."""
    words = term_sequence(theme)
    return list(dict.fromkeys((a, b) for a, b in pairwise(words) if b in core and a not in core and _is_content(a)))


def shared_head(units: Sequence[tuple[str, ...]], core: set[str], texts: Sequence[str]) -> bool:
    """Whether the theme's core word names something else too among `texts` (its candidates): as
    many of them put another modifier before it ("image editing") as use one of the theme's terms
    ("knowledge editing"). Then the head word alone is not the theme."""
    ours, others = 0, Counter[str]()
    for text in texts:
        words = term_sequence(text)
        ours += any(_says(u, words) for u in units)
        others.update({a for a, b in pairwise(words) if b in core and (a, b) not in units and a not in _STOPWORD_STEMS and len(a) > 2})
    # A "term" few candidates use is an artefact of the request's wording ("learning EEG" of
    # "machine learning on EEG signals"), not a term of the field.
    return ours >= MIN_UNIT_PAPERS and bool(others) and others.most_common(1)[0][1] >= ours


# Words that close a theme's term rather than belong to it ("preference optimization methods",
# "model editing research").
_TERM_CLOSERS = frozenset(stem_words(["method", "approach", "study", "research"]))
# Candidates that must name a theme's term before the others can be told apart from them.
MIN_TERM_PAPERS = 3


def theme_terms(theme: str, core: set[str]) -> list[tuple[str, ...]]:
    """The theme's terms of several words: the runs of two or more of its adjacent content words
    that end where the theme's phrase ends (its head noun) and hold a core term ("Bayesian
    optimization", not "scalable Bayesian" of "scalable Bayesian optimization"; "series forecasting"
    and "time series forecasting"; "knowledge editing" and "model editing" of "knowledge editing /
    model editing"). A hyphenated term ("mixture-of-experts") is one core term, not counted here."""
    terms: list[tuple[str, ...]] = []
    for part in re.split(r"[/,;:()]", theme):
        run: list[str] = []
        for word in [*term_sequence(part), ""]:
            if word and _is_content(word) and word not in _TERM_CLOSERS:
                run.append(word)
                continue
            terms += [tuple(run[i:]) for i in range(len(run) - 1) if core & set(run[i:])]
            run = []
    return list(dict.fromkeys(terms))


def names_a_term(paper: Paper, terms: Sequence[tuple[str, ...]]) -> bool:
    """Whether the paper's title or a sentence of its abstract says one of the theme's terms, its
    words adjacent and in order, in any forms the stemmer folds together ("Bayesian-optimization",
    "reward modeling" for "reward models"; not "optimisation", nor "detecting hallucinations")."""
    return any(_says(term, term_sequence(text)) for text in _texts(paper, sentences_of(paper)) for term in terms)


def _texts(paper: Paper, sentences: list[str]) -> list[str]:
    """What names a theme: the title (unless generated from the abstract) and the abstract's sentences."""
    return ([] if paper.title_is_generated else [paper.title]) + sentences


def _is_content(stem: str) -> bool:
    """A word a term is made of: not a stop word, or a term's own ("model")."""
    return stem not in _STOPWORD_STEMS or stem in _HEADS


def _says(unit: tuple[str, ...], words: Sequence[str]) -> bool:
    """Whether a text's term sequence (rag/text.term_sequence) has the unit's words next to each
    other, in order: in any of their forms."""
    return any(tuple(words[i : i + len(unit)]) == unit for i in range(len(words) - len(unit) + 1))


def _compound(term: str) -> re.Pattern[str] | None:
    """A hyphenated term as it is also written, with spaces: "mixture-of-expert" in "mixture of experts"."""
    parts = [p for p in term.split("-") if p]
    return re.compile(r"\b" + r"[\s-]+".join(map(re.escape, parts)), re.I) if len(parts) > 1 else None


def mentioned(terms: set[str], text: str, text_terms: set[str] | None = None) -> set[str]:
    """Those of `terms` (stemmed key terms) that `text` uses; `text_terms`: its key terms, if known."""
    if not terms:
        return set()
    found = terms & (key_terms(text) if text_terms is None else text_terms)
    return found | {t for t in terms - found if (pattern := _compound(t)) and pattern.search(text)}


def theme_grounding(theme_weights: Mapping[str, float], hit: Hit, text_terms: set[str] | None = None, cal: Calibration = MINILM) -> float:
    """evidence.grounding with each theme term weighted by its rarity (idf): "EEG" is what makes
    "machine learning on EEG signals" a theme, and a paper on EEG need not say "machine learning"."""
    total = sum(theme_weights.values())
    found = mentioned(set(theme_weights), f"{hit.paper.title} {hit.paper.abstract}", text_terms)
    coverage = sum(theme_weights[t] for t in found) / total if total else 0.0
    return cal.grounding_cosine_weight * hit.relevance + (1 - cal.grounding_cosine_weight) * coverage


# An acronym an abstract defines, "Mixture-of-Experts (MoE)", "sparse autoencoders (SAEs)":
# the (up to 6) words before the parenthesis name what it stands for.
_ACRONYM = re.compile(r"\(\s*([A-Z0-9][A-Za-z0-9]*[A-Z][A-Za-z0-9]*?)s?\s*[);,]")
_DEFINITION_WORDS = 6


def _acronyms(sentences: Sequence[str], core: set[str]) -> dict[str, set[str]]:
    """The acronyms the sentences define for core terms, with the terms each stands for."""
    defined: dict[str, set[str]] = {}
    for sentence in sentences:
        for match in _ACRONYM.finditer(sentence) if "(" in sentence else ():
            if found := mentioned(core, " ".join(sentence[: match.start()].split()[-_DEFINITION_WORDS:])):
                defined[match.group(1)] = found
    return defined


def is_about(paper: Paper, core: set[str], together: bool = False, cal: Calibration = MINILM, units: Sequence[tuple[str, ...]] = ()) -> bool:
    """About, not merely mentioning: the title names the theme's core, or at least
    `min_core_sentences` sentences of the abstract do, in words or by an acronym the abstract
    defines for them ("MoE" once "Mixture-of-Experts (MoE)"). Off-theme papers name a theme once,
    in passing ("inspired by speculative decoding", "unlike watermarks", "e.g. via SAEs")."""
    if not core:
        return True
    sentences = sentences_of(paper)
    texts = _texts(paper, sentences)
    # A unit counts as all of the core, named together; a core word that heads a unit counts only
    # in it ("editing" only as "knowledge editing"), the others still count alone ("conformal").
    alone = set() if together else core - {u[-1] for u in units}
    sequences = [term_sequence(text) for text in texts] if units else []
    found = (
        [set(core) if any(_says(u, words) for u in units) else mentioned(alone, text) for text, words in zip(texts, sequences, strict=True)]
        if units
        else [mentioned(core, text) for text in texts]
    )

    def enough() -> bool:
        return _named_enough(paper, [f == core if together else bool(f) for f in found], cal)

    if enough():
        return True
    if not (acronyms := _acronyms(sentences, core)):
        return False
    for short, stands_for in acronyms.items():
        uses = re.compile(rf"\b{re.escape(short)}s?\b")
        found = [f | stands_for if uses.search(text) else f for f, text in zip(found, texts, strict=True)]
    return enough()


def subject_terms(core: set[str], hits: Sequence[Hit], terms_of: Callable[[Hit], set[str]] | None = None, cal: Calibration = MINILM) -> set[str]:
    """The core terms nearly all of the best-ranked candidates use: the theme's subject, as
    opposed to its qualifiers (pseudo-relevance feedback). For "differential privacy in machine
    learning" both "differential" and "privacy" (privacy papers without "differential" are not
    about it); for "KV cache ...: compression, eviction, retrieval and reuse" only "cache"."""
    head = hits[: cal.subject_top]
    if len(head) < cal.subject_top:
        return set()
    uses = Counter(t for h in head for t in mentioned(core, _text(h), terms_of(h) if terms_of else None))
    return {t for t in core if uses[t] >= cal.subject_share * len(head)}


def _text(hit: Hit) -> str:
    return f"{hit.paper.title} {hit.paper.abstract}"


# What joins themes asked at once ("code generation and coding agents", "state space models /
# Mamba", "data pruning, coreset selection or dataset distillation"), and the words that make a part a
# phrase rather than a term ("defenses for LLMs").
def about_theme(
    theme: str, hits: Sequence[Hit], document_frequency: Mapping[str, int], papers: int, cal: Calibration = MINILM, examples: Sequence[str] = ()
) -> list[Hit]:
    """The hits (ranked candidates) a summary of `theme` includes, in their order: those about any
    of the terms it joins (`theme_parts`), or about one of the `examples` the request gives of it
    (rag/theme_examples.theme_examples; `about_example`)."""
    return kept_in_order(hits, about_theme_by(theme, hits, document_frequency, papers, cal, examples))


def kept_in_order(hits: Sequence[Hit], found: Mapping[str, Sequence[Hit]]) -> list[Hit]:
    """The hits `about_theme_by` found, for the theme or any example, in the hits' order."""
    kept = {h.paper.paper_id for each in found.values() for h in each}
    return [h for h in hits if h.paper.paper_id in kept]


def examples_adding(found: Mapping[str, Sequence[Hit]]) -> list[str]:
    """The examples of `about_theme_by` that brought in papers the theme alone did not."""
    own = {h.paper.paper_id for h in found.get("", ())}
    return [e for e, each in found.items() if e and any(h.paper.paper_id not in own for h in each)]


def about_theme_by(
    theme: str, hits: Sequence[Hit], document_frequency: Mapping[str, int], papers: int, cal: Calibration = MINILM, examples: Sequence[str] = ()
) -> dict[str, list[Hit]]:
    """`about_theme`'s papers by what brought them in: the theme ("" key) and each example."""
    parts = theme_parts(theme_head(theme))
    found = {"": [h for part in parts for h in _about_one(part, hits, document_frequency, papers, cal)]}
    if examples:
        theme_core = set().union(*(core_terms(part, document_frequency, papers, cal)[0] for part in parts))
        for example in examples:
            found[example] = about_example(example, theme_core, hits, document_frequency, papers, cal)
    return found


def about_example(
    example: str, theme_core: set[str], hits: Sequence[Hit], document_frequency: Mapping[str, int], papers: int, cal: Calibration = MINILM
) -> list[Hit]:
    """The hits about an example a request gives of its theme ("TTS" of "audio generation (TTS,
    music)"): those whose title or sentences use all of its words together, as a theme of common
    words is named ("dynamic Gaussian splatting", not every paper on Gaussian splatting), and that
    say one of the theme's own core terms (`theme_core`) somewhere, or name the example in their
    title when it is a term of two words or more: an example often names an aspect that only the
    theme makes a topic ("bandits: contextual, combinatorial, dueling", "federated fine-tuning (LoRA
    or prompt tuning)": a title naming "Visual Prompt Tuning" is still in, at the cost of such facets,
    bench/RESULTS.md, 2026-12-02 seventh session), or an acronym with another meaning ("TTS" of
    test-time scaling). An example without a rare term names no topic of its own ("LLMs" of
    "memorization (LLMs, diffusion models)"): none. (bench/RESULTS.md, issue 15, 2026-12-02 third
    session: without the theme's term, a blind set's off-theme share rose from 0.141 to 0.246.)"""
    if core_terms(example, document_frequency, papers, cal)[1]:
        return []
    terms = {t for t in key_terms(example) if document_frequency.get(t, 0) > 0 and t not in _STOPWORD_STEMS}
    # A term of two words or more that a title names is specific enough alone: "Portrait Animation"
    # of "face and avatar", "Satellite Imagery" of "remote sensing", without "face" or "remote sensing".
    named = len(terms) > 1
    return [
        h
        for h in hits
        if is_about(h.paper, terms, True, cal) and (not theme_core or mentioned(theme_core, _text(h)) or (named and _titled(h.paper, terms, example)))
    ]


def _titled(paper: Paper, terms: set[str], example: str) -> bool:
    """Whether a paper's own title (not one generated from its abstract) names `example` (its key
    `terms`): all of them, its first and last words no further apart than in it, give or take one
    ("Molecule Captioning via Generation of Text" does not name "molecule generation"); or turned
    round, a verb's "-ing" or a noun's "of" followed by the rest of the example, which ends its
    phrase: "Predicting Protein Structure" and "Synthesis of Speech with ..." name "protein structure
    prediction" and "speech synthesis"; "Understanding Video Transformers", "Generated Text
    Detection" do not."""
    if paper.title_is_generated or mentioned(terms, paper.title) != terms:
        return False
    words, title = [w for w in term_sequence(example) if w not in _STOPWORD_STEMS], term_sequence(paper.title)
    spans = [m.span() for m in TERM_WORD.finditer(paper.title)]  # the title's words as written, one for each of `title`
    ends = [[i for i, w in enumerate(title) if w == word] for word in (words[0], words[-1])] if words else [[], []]
    if any(0 <= last - first <= len(words) for first in ends[0] for last in ends[1]):
        return True
    return any(_turned_round(paper.title, title, spans, words, head) for head in ends[1])


def _turned_round(written: str, title: list[str], spans: list[tuple[int, int]], words: list[str], head: int) -> bool:
    """Whether the title's word at `head` (the example's last word) is an "-ing" verb or a noun
    with "of", followed by the rest of the example (one word between at most: "Animating Human
    Portraits"), which ends its phrase (not at a comma: "Learning Graph, Text, and Image ...")."""
    gerund = written[spans[head][0] : spans[head][1]].lower().endswith("ing")
    if not gerund and title[head + 1 : head + 2] != ["of"]:
        return False
    for start in (head + 1 + (not gerund), head + 2 + (not gerund)):
        stop = start + len(words) - 1
        ends_phrase = stop >= len(title) or written[spans[stop - 1][1] :].lstrip()[:1] in ":.?!-–—(" or title[stop] in _STOPWORD_STEMS
        if title[start:stop] == words[:-1] and ends_phrase:
            return True
    return False


def left_out(
    excluded: Sequence[str], theme: str, hits: Sequence[Hit], document_frequency: Mapping[str, int], cal: Calibration = MINILM
) -> dict[str, list[Hit]]:
    """The hits about each term a request leaves out (rag/theme_exclusions.exclusions: "GPU kernel"
    of "kernel methods papers, not the GPU kernel ones") that any hit is about, read as an example is:
    the title or sentences use all of its words together, or its acronym ("not the RL ones"). Unlike
    an example, a term of common words counts ("not the LLM ones"): the asker named what to leave
    out. Not a term made only of the theme's own words ("mixture of experts, not the experts ..."):
    it cannot leave out part of the theme."""
    own = key_terms(theme)
    found: dict[str, list[Hit]] = {}
    for term in excluded:
        terms = {t for t in key_terms(term) if document_frequency.get(t, 0) > 0}
        acronyms = [w for w in term.split() if len(w) < 3 and w.isupper()]  # key terms have 3 letters or more
        if not acronyms and terms <= own:  # no term, or only the theme's own words
            continue
        about = [h for h in hits if (not terms or is_about(h.paper, terms, True, cal)) and all(_names_acronym(h.paper, a, cal) for a in acronyms)]
        if about:
            found[term] = about
    return found


def _names_acronym(paper: Paper, acronym: str, cal: Calibration) -> bool:
    """Whether the title, or `min_core_sentences` sentences, say `acronym` as a word ("RL", "RLs")."""
    uses = re.compile(rf"(?<![\w-]){re.escape(acronym)}s?(?![\w-])")
    return _named_enough(paper, [bool(uses.search(text)) for text in _texts(paper, sentences_of(paper))], cal)


def _named_enough(paper: Paper, names: Sequence[bool], cal: Calibration) -> bool:
    """Whether a paper is about what `names` marks in its `_texts` (its title, unless generated, then
    its sentences): its title names it, or at least `min_core_sentences` sentences do."""
    titled = not paper.title_is_generated
    return (titled and names[0]) or sum(names[1:] if titled else names) >= cal.min_core_sentences


def _about_one(theme: str, hits: Sequence[Hit], document_frequency: Mapping[str, int], papers: int, cal: Calibration) -> list[Hit]:
    core, together = core_terms(theme, document_frequency, papers, cal)
    # The theme as one term when its words are common ("reward models"), or when its core word
    # also names something else among the candidates ("knowledge editing" beside "image editing").
    units = [u for u in [theme_unit(theme, core)] if u] if together else modifier_units(theme, core)
    if not together and units and not shared_head(units, core, [_text(h) for h in hits]):
        units = []
    weights = {t: math.log((papers + 1) / (document_frequency.get(t, 0) + 1)) for t in key_terms(theme)}
    terms: dict[str, set[str]] = {}

    def terms_of(hit: Hit) -> set[str]:
        if hit.paper.paper_id not in terms:
            terms[hit.paper.paper_id] = key_terms(_text(hit))
        return terms[hit.paper.paper_id]

    subject = subject_terms(core, hits, terms_of, cal)
    kept = [
        h
        for h in hits
        if theme_grounding(weights, h, terms_of(h), cal) >= cal.min_grounding
        and mentioned(subject, _text(h), terms_of(h)) == subject
        and is_about(h.paper, core, together, cal, units)
    ]
    # A theme of several words is the unit, never its rare word alone, when that word alone names
    # something else: "Bayesian optimization" is not every paper that says "Bayesian" twice (49
    # papers for 14), but "unlearning" alone is "machine unlearning". A paper that never names the
    # term stays as a close paraphrase: its best chunk near the theme. (Its best sentence's cosine
    # did no better on the tuned themes and cost up to 2.5 s of encoding.)
    multiword = theme_terms(theme, core)
    named = {h.paper.paper_id for h in kept if multiword and names_a_term(h.paper, multiword)}
    if not word_alone_names_other_work(kept, named, cal):
        return kept
    return [h for h in kept if h.paper.paper_id in named or h.relevance >= cal.theme_paraphrase_cosine]


def word_alone_names_other_work(kept: Sequence[Hit], named: set[str], cal: Calibration = MINILM) -> bool:
    """Whether the candidates that never name the theme's term (`named`: those that do, at least
    MIN_TERM_PAPERS) are about something else: they sit further from the theme (mean best-chunk
    cosine) than those that name it, by more than `theme_term_gap`. ("LLM unlearning" papers sit as
    close as "machine unlearning" ones; "Bayesian inference" papers further than "Bayesian
    optimization" ones.)"""
    ours = [h.relevance for h in kept if h.paper.paper_id in named]
    others = [h.relevance for h in kept if h.paper.paper_id not in named]
    return len(ours) >= MIN_TERM_PAPERS and bool(others) and sum(ours) / len(ours) - sum(others) / len(others) > cal.theme_term_gap
