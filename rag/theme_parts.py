"""The terms a theme joins ("dataset distillation, data pruning and coreset selection"), each a
theme of its own that a summary includes the papers of (rag/themes.about_theme_by)."""

from __future__ import annotations

import re

from rag.request_words import CONNECTORS
from rag.tagger import make_tagger

_ALTERNATIVES = re.compile(r"\s+/\s+|\s*,?\s+(?:and|or)\s+|\s*,\s+")
# A modifier without the tagger: hyphenated, or an adjective's ending ("few-step", "visual").
_MODIFIER = re.compile(r"\w-\w|(?:al|ic|ive|ous|ed|ar|ful|less|able|ible)$", re.I)
_MODIFIER_TAGS = frozenset({"JJ", "JJR", "JJS", "VBN", "VBD"})  # Penn Treebank: adjectives, participles
_PHRASE_WORDS = (CONNECTORS | {"by"}) - {"and"}


def theme_parts(theme: str) -> list[str]:
    """The terms a theme joins by "and", "or", "/" or commas, each a theme of its own, when every part is a
    term: two words or more ("dataset distillation and dataset condensation"; one is enough after
    "/", "state space models / Mamba", or as a noun in a list of three, "quantization, pruning and
    knowledge distillation"), none a phrase with a preposition; modifiers of one head are terms of
    it ("few-step and one-step generation", "sparse, dense and hybrid retrieval"). Else the theme
    alone: "machine learning for weather and climate forecasting" shares its head; "jailbreak
    attacks and defenses for LLMs" asks for jailbreak defenses."""
    parts = [p.strip() for p in _ALTERNATIVES.split(theme) if p.strip()]
    *firsts, last = parts or [""]
    singles = [p for p in firsts if len(p.split()) == 1]
    modifiers = _modifiers(theme, singles)
    if firsts and "/" not in theme and len(last.split()) > 1 and len(modifiers) == len(firsts):
        # Modifiers share the head: "few-step and one-step generation" is few-step generation and
        # one-step generation; "pruning and knowledge distillation" is no "pruning distillation".
        parts = [" ".join([p, *last.split()[1:]]) for p in firsts] + [last]
    # A word alone is a term after "/", or in a list of three as a noun, when no item is a modifier
    # (which might share the head: "lidar, radar and depth estimation" is not split).
    alone = "/" in theme or (len(parts) > 2 and all("-" in m for m in modifiers))  # ("fine-tuning, RLHF and ...": a noun)

    def is_term(part: str) -> bool:
        words = part.lower().split()
        return (len(words) >= 2 or alone) and not _PHRASE_WORDS.intersection(words)

    return parts if len(parts) > 1 and all(map(is_term, parts)) else [theme]


def _modifiers(theme: str, words: list[str]) -> set[str]:
    """Those of `words` (each a part of `theme`) that modify a noun: hyphenated, or tagged an
    adjective or participle in the theme (rag/tagger.py; without it, by their ending)."""
    tagger = make_tagger()
    tagged = {word for word, _, tag in tagger(theme) if tag in _MODIFIER_TAGS} if tagger else set()
    return {w for w in words if "-" in w or (w in tagged if tagger else bool(_MODIFIER.search(w)))}
