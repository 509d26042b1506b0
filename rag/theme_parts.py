"""The terms a theme joins ("dataset distillation, data pruning and coreset selection"), each a
theme of its own that a summary includes the papers of (rag/themes.about_theme_by)."""

from __future__ import annotations

import re

from rag.request_words import CONNECTORS

_ALTERNATIVES = re.compile(r"\s+/\s+|\s*,?\s+(?:and|or)\s+|\s*,\s+")
_MODIFIER = re.compile(r"\w-\w|(?:al|ic|ive|ous|ed|ar|ful|less|able|ible)$", re.I)
_PHRASE_WORDS = (CONNECTORS | {"by"}) - {"and"}


def theme_parts(theme: str) -> list[str]:
    """The terms a theme joins by "and", "or", "/" or commas, each a theme of its own, when every part is a
    term: two words or more ("dataset distillation and dataset condensation"; one is enough after
    "/", "state space models / Mamba", or as an acronym in a list of three, "RL, imitation learning
    and reward modeling"), none a phrase with a preposition; modifiers of one head
    are two terms ("few-step and one-step generation"). Else the theme alone: "machine learning for
    weather and climate forecasting" shares its head; "jailbreak attacks and defenses for LLMs" asks
    for jailbreak defenses."""
    parts = [p.strip() for p in _ALTERNATIVES.split(theme) if p.strip()]
    *firsts, last = parts or [""]
    if firsts and "/" not in theme and len(last.split()) > 1 and all(len(p.split()) == 1 and _MODIFIER.search(p) for p in firsts):
        # Modifiers share the head: "few-step and one-step generation" is few-step generation
        # and one-step generation. Only words that read as modifiers (hyphenated, or an
        # adjective's ending): "pruning and knowledge distillation" is no "pruning distillation".
        parts = [" ".join([p, *last.split()[1:]]) for p in firsts] + [last]
    # In a list of three, a word alone is a term when it is an acronym ("RL, imitation learning and
    # reward modeling"; not "sparse, dense and hybrid retrieval", whose words share the head), or all are.
    single = "/" in theme or (len(parts) > 2 and all(len(p.split()) == 1 for p in parts))

    def is_term(part: str) -> bool:
        words = part.lower().split()
        alone = single or (len(parts) > 2 and any(c.isupper() for c in part[1:]))
        return (len(words) >= 2 or alone) and not _PHRASE_WORDS.intersection(words)

    return parts if len(parts) > 1 and all(map(is_term, parts)) else [theme]
