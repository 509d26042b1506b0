"""A theme's misspelt words read as the corpus spells them ("protoype learning" → "prototype
learning"): a word no paper uses and no dictionary knows, replaced by the likest word the theme's
candidate papers use, of about its length.

Why by hand: difflib (standard library) ranks the candidates' own words by likeness; a spelling
library would bring a general dictionary that knows neither the corpus's coined names nor its
terms as it spells them, and would "correct" them. The dictionary that guards real words
("fracking" is no "tracking") is the English side of CC-CEDICT, already bundled for Chinese themes
(rag/crosslingual.glossary).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from rag.crosslingual import glossary
from rag.text import key_terms, stem_words

# A lower-case word of five letters or more, not part of a hyphenated one: names ("Exphormer"),
# acronyms and short words are never respelt (too many near neighbours).
_WORD = re.compile(r"(?<![\w-])[a-z]{5,}(?![\w-])")
# How alike a word and its respelling must be (difflib's ratio): one or two letters swapped,
# dropped or added in a word of 8 ("protoype", "prototype": 0.94); not another word ("quantum",
# "quantile": 0.67).
MIN_LIKENESS = 0.85


def respelled(theme: str, document_frequency: Mapping[str, int], texts: Sequence[str]) -> str:
    """`theme` with each word whose key term no paper uses, and that the dictionary does not know,
    replaced by the likest word of `texts` (the candidates' titles and abstracts) that papers do
    use, one letter longer or shorter at most ("cyclones" is no "cycles"); as it was when none is."""
    known: set[str] | None = None

    def respell(match: re.Match[str]) -> str:
        nonlocal known
        word = match.group()
        if all(document_frequency.get(term, 0) > 0 for term in key_terms(word)) or stem_words([word])[0] in dictionary_stems():
            return word
        if known is None:  # the candidates' words, read once and only for a word no paper uses
            words = {w for text in texts for w in _WORD.findall(text.lower())}
            known = {w for w in words if all(document_frequency.get(t, 0) > 0 for t in key_terms(w))}
        alike = [w for w in known if abs(len(w) - len(word)) <= 1]
        return next(iter(difflib.get_close_matches(word, alike, n=1, cutoff=MIN_LIKENESS)), word)

    return _WORD.sub(respell, theme)


@lru_cache(maxsize=1)
def dictionary_stems() -> frozenset[str]:
    """The stems of the English words of CC-CEDICT's glosses (~30,000 words; ~1 s once): real
    words, never respelt ("fracking", "forestry", "cyclones"). Empty without the dictionary."""
    words = {w.lower() for glosses in glossary().values() for gloss in glosses for w in _WORD.findall(gloss.lower())}
    return frozenset(stem_words(sorted(words)))
