"""The examples a request gives of its theme ("audio generation? TTS, music, video-to-audio"):
read off the theme's asides and the clauses after it by rag/theme_request.py's reading of the
request, each a term a paper of the summary may be about instead (rag/themes.about_example)."""

from __future__ import annotations

import re

# theme_request's reading of a request: its clauses, frame vocabulary and asides, shared rather
# than read again a second way.
from rag.request_words import CONNECTORS, FRAME_WORDS
from rag.text import request_clauses, says_phrase, strip_citations
from rag.theme_exclusions import AGAINST
from rag.theme_request import (
    _ABOUT_ASKER,
    _CJK,
    _EXAMPLE_OPENER,
    _EXAMPLES,
    _FRAME_PHRASES,
    _RELATIVES,
    _TOKEN,
    theme_clause,
    theme_head,
    theme_of,
)

# What parts a list of examples ("deblurring, deraining, all-in-one restoration etc.").
_EXAMPLE_BREAK = re.compile(r"\s*(?:[,;/]|\band\b|\bor\b|\betc\b\.?)\s*", re.I)
# Words that frame an example rather than name it ("Mainly interested in catastrophic forgetting",
# "I mean reward alignment", "multi-objective RL counts too", "X is fine"); with them a clause
# about the asker still gives examples.
_INTEREST_WORDS = frozenset("interested mainly mostly particularly care mean count counts included welcome focus fine ok okay".split())
_EXAMPLE_FRAMES = FRAME_WORDS | CONNECTORS | _INTEREST_WORDS
# Words with which a clause speaks of the answer or to the assistant ("Keep it short", "Group them
# by method", "Thank you"), not of the theme.
_ADDRESS_WORDS = frozenset("it them they you me us ones".split())


def theme_examples(question: str, theme: str | None = None) -> list[str]:
    """The terms a request gives as examples of its theme (`theme`: theme_of(question)), each a
    theme a paper of the summary may be about instead of the theme's own words: the items of its
    asides ("audio LLMs" and "spoken dialogue models" of "audio and speech language models (audio
    LLMs, spoken dialogue models)") and of the clauses after the clause that names it that list
    terms ("image restoration papers? deblurring, deraining, all-in-one restoration etc."; not an
    instruction, "Keep it short"); never what it leaves out ("not TTS"). Whether
    each names a topic specific enough to count is the corpus's to say (rag/themes.py). [] for a
    request in Chinese, whose clauses qualify its theme."""
    if _CJK.search(question):
        return []
    # (Read as asked, what it leaves out included: AGAINST drops each piece from its cue on, "Skip
    # the introduction, go straight to results", where the leave-out span alone would keep the rest.)
    question = strip_citations(question)
    theme = theme_of(question) if theme is None else theme
    # theme_head's asides, but a relative clause qualifies the theme ("models that reason") and a
    # bracket that goes on with "and" adds to the word before it ("LLMs (and MLLMs)").
    asides = [m.group().strip(" ,") for m in _EXAMPLES.finditer(theme)]
    pieces = [a for a in asides if not re.match(rf"(?:[(（]\s*)?(?:and|or|plus|{'|'.join(_RELATIVES)})\b", a, re.I)]
    clauses, named = request_clauses(question), theme_clause(question)
    if named != question and named in clauses:
        pieces += [c for c in clauses[clauses.index(named) + 1 :] if _lists_terms(c)]
    head = theme_head(theme)
    examples: list[str] = []
    for piece in pieces:
        piece = _EXAMPLE_OPENER.sub(" , ", re.sub(r"[()（）]", " , ", piece))
        for item in _EXAMPLE_BREAK.split(_FRAME_PHRASES.sub(" , ", AGAINST.sub("", piece))):
            words = [w for w in _TOKEN.findall(item) if w[0].isalnum()]
            # The item without the frame around it ("mainly interested in X", "X, that sort of
            # thing"); the words inside stay ("attention over edges").
            kept = [i for i, w in enumerate(words) if w.lower() not in _EXAMPLE_FRAMES]
            if kept and not says_phrase(head, term := " ".join(words[kept[0] : kept[-1] + 1])):
                examples.append(term)
    return list(dict.fromkeys(examples))


def _lists_terms(clause: str) -> bool:
    """Whether a clause after the theme's may list terms: not said to the assistant or of its
    answer ("Keep it short", "Which ones use tools?", "Thank you"), nor about the asker ("I work at
    a hospital.") unless it says what the asker is interested in ("I mean reward alignment of ...").
    A question may ("what have people done about overthinking?"): its frame words are no terms."""
    words = {w.lower() for w in _TOKEN.findall(clause) if w[0].isalnum()}
    if not words or _ADDRESS_WORDS & words:
        return False
    return not _ABOUT_ASKER.match(clause) or bool(_INTEREST_WORDS & words)
