"""Whether a label's words read as a clause rather than a title: a verb opens them, a verb's clause
follows the device they name, or they point back to a sentence before them.

Why by hand: no part-of-speech tagger is installed (spaCy's models come from a model hub); the
abstract itself tells its verbs (`rag.label_subjects.verbs_in`), and these rules read them.
"""

from __future__ import annotations

import re

from rag.label_subjects import is_verb
from rag.text import COMMON_ML_WORDS, MANNER_ADVERB

# Words a gist keeps before a clause: "multi-agent system", not "system".
MIN_CLAUSE_CUT_WORDS = 2
# Words a gist cut at its word limit backs off to, so that it ends before an unfinished phrase
# ("... safety gains through three" → "... safety gains").
PHRASE_OPENERS = frozenset("of for through with in on via from by under to between across over into and or".split())
# Verbs that report what a paper does; a gist opening with one is a clause ("Propose the Rényi
# sharpness ...", "Show that it also learns ...").
CONTRIBUTION_VERBS = frozenset("propose introduce present show demonstrate highlight reveal find prove".split())
# Pointing back mid-gist ("approach to this problem", "between this notion of creativity and ..."):
# the phrase needs the sentence before it.
_POINTS_BACK_RE = re.compile(r"\b(?:this|these|those|such)\s+[a-z]", re.IGNORECASE)
# Adverbs that open a purpose clause as "-ly" ones do: "to better understand".
_DEGREE_ADVERBS = frozenset({"better", "further", "more"})
# Verbs of the field's common words that still open a clause after "to" ("to propose a suite").
_CLAUSE_VERBS = frozenset({"propose", "introduce", "present", "identify", "establish"})


def verb_clause_at(words: list[str], verbs: frozenset[str]) -> int | None:
    """Where a clause the abstract's verbs open begins: "to (better) <verb>" ("... to propose a
    suite"), or a verb in -ing after a noun, taking an object ("framework achieving unprecedented
    gains"); "reinforcement learning for ..." and "framework for generating ..." are no clause."""
    for i in range(MIN_CLAUSE_CUT_WORDS, len(words)):
        word, after = words[i].lower(), [w.lower() for w in words[i + 1 : i + 3]]
        if word == "to" and after:
            verb = after[1] if len(after) > 1 and (after[0].endswith("ly") or after[0] in _DEGREE_ADVERBS) else after[0]
            if is_verb(verb, verbs) and (verb not in COMMON_ML_WORDS or verb in _CLAUSE_VERBS):
                return i
        elif (
            word.endswith("ing") and len(word) > 5 and word not in COMMON_ML_WORDS and is_verb(word, verbs)
            and words[i - 1].lower() not in PHRASE_OPENERS and after and after[0] not in PHRASE_OPENERS and after[0].isalpha()
        ):
            return i
    return None


def reads_as_clause(gist: str, verbs: frozenset[str]) -> bool:
    """A gist that opens with a verb or an adverb ("derive a bound", "efficiently hunt for", "To use
    ...") or points back to a sentence before it is no title."""
    first = gist.split(" ", 1)[0].lower() if gist else ""
    # A participle or gerund opens titles ("Learned softmax attention ...", "Transferring the optimal
    # learning rate ..."); a verb's base or -s form does not.
    finite = not first.endswith(("ed", "ing")) and is_verb(first, verbs)
    return first in {"to", "we", "it", "they"} or bool(MANNER_ADVERB.match(first)) or finite or bool(_POINTS_BACK_RE.search(gist))
