"""Whether a label's words read as a clause rather than a title: a verb opens them, a verb's clause
follows the device they name, or they point back to a sentence before them.

The abstract itself tells its verbs (`rag.label_subjects.verbs_in`), and the word rules read them;
where spaCy's tagger is installed (rag/tagger.py), `title_phrase` also keeps of a gist the noun
phrase its tags show, which catches the verbs an abstract never uses after "we" ("Training on X
enables models").
"""

from __future__ import annotations

import re

from rag.label_subjects import is_verb
from rag.tagger import NOUN_TAGS, Tagged, Tagger
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
# Gerunds that announce a contribution rather than name it ("Introducing a novel approach ...").
_ANNOUNCING = frozenset("introducing proposing presenting showing demonstrating".split())
# The authors' own words ("built on our theoretical discovery"): a title never speaks as its authors.
_AUTHORS_RE = re.compile(r"\b(?:we|our|us)\b")
# Adverbs that open a purpose clause as "-ly" ones do: "to better understand".
_DEGREE_ADVERBS = frozenset({"better", "further", "more"})
# Verbs of the field's common words that still open a clause after "to" ("to propose a suite").
_CLAUSE_VERBS = CONTRIBUTION_VERBS | {"identify", "establish"}


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
    # "Introducing a novel approach ..." announces; "with surprising evidence ..." hangs off a clause;
    # "built on our theoretical discovery": a title never speaks as its authors.
    opens_clause = first in {"to", "we", "it", "they", "with"} or first in _ANNOUNCING or bool(MANNER_ADVERB.match(first))
    return opens_clause or finite or bool(_AUTHORS_RE.search(gist)) or bool(_POINTS_BACK_RE.search(gist))


# Penn Treebank tags. A title never opens with a verb's base or finite form, an adverb, "to", a
# pronoun or a "that"/"which" (it may open with a gerund, a participle or a preposition: "Learning
# to ...", "Learned ...", "Towards ...").
_NO_OPENING = frozenset("VB VBZ VBP VBD MD RB RBR RBS TO PRP PRP$ WDT WP WRB EX".split())
# A finite verb or a relative pronoun starts a clause: the phrase ends before it.
_CLAUSE_TAGS = frozenset("VBZ VBP VBD MD WDT WP".split())
# What a title ends with: a noun, a number, a closing bracket (and a gerund after a noun or an
# adjective: "question answering", "efficient protein folding").
_ENDINGS = NOUN_TAGS | {"CD", "-RRB-", "FW"}
_LEAD = "The "
# Subordinators tagged IN that open a clause, not a phrase.
_SUBORDINATORS = frozenset("that whether if because although though while since once unless".split())


def _by_doing(tokens: Tagged, i: int) -> bool:
    """Whether a clause of means opens at token `i`: "by" and a gerund ("by applying ...")."""
    return tokens[i][0].lower() == "by" and i + 1 < len(tokens) and tokens[i + 1][2] == "VBG"


def title_phrase(gist: str, tag: Tagger | None) -> str | None:
    """The noun phrase `gist` opens with, by its part-of-speech tags: cut before a clause (a finite
    verb, "that"/"which", "to" + verb but not after an opening gerund, a verb in -ing after a noun
    before its object's article or adjective) and ended on one of `_ENDINGS`. "" when it opens with a
    verb, an adverb or a pronoun, or holds no noun; None without a tagger."""
    if tag is None:
        return None
    # Tagged after an article, as the phrase would stand in a sentence: alone, its first word reads
    # as a sentence's first, and "sparse attention ..." opened with a verb.
    tokens = [(word, at - len(_LEAD), t) for word, at, t in tag(_LEAD + gist)[1:]]
    # A finite verb right before "that" is a noun the tagger misread: "networks that scale".
    tokens = [
        (w, at, "NNS" if t in {"VBZ", "VBP"} and i + 1 < len(tokens) and tokens[i + 1][0].lower() in {"that", "which"} else t)
        for i, (w, at, t) in enumerate(tokens)
    ]
    if not tokens:
        return ""
    first_word, _, first_tag = tokens[0]
    if first_tag in _NO_OPENING or first_word.lower() in _SUBORDINATORS or _by_doing(tokens, 0):
        return ""
    end = len(tokens)
    for i in range(1, len(tokens)):
        word, _, t = tokens[i]
        after = tokens[i + 1][2] if i + 1 < len(tokens) else ""
        if (
            t in _CLAUSE_TAGS
            or word.lower() in _SUBORDINATORS
            or _by_doing(tokens, i)  # "... generation by applying flow matching": the means is a clause
            or (t == "TO" and after.startswith("VB") and not (i == 1 and first_word.lower().endswith("ing")))  # "Learning to rank"
            # "framework achieving unprecedented gains", not "graph coloring heuristics"
            or (t == "VBG" and tokens[i - 1][2] in NOUN_TAGS and after in {"JJ", "DT", "PRP$"})
        ):
            end = i
            break
    while end and tokens[end - 1][2] not in _ENDINGS and not (tokens[end - 1][2] == "VBG" and end > 1 and tokens[end - 2][2] in NOUN_TAGS | {"JJ"}):
        end -= 1
    if not any(t in NOUN_TAGS for _, _, t in tokens[:end]):
        return ""
    last_word, at, _ = tokens[end - 1]
    return gist[: at + len(last_word)].strip()


def as_title(gist: str, verbs: frozenset[str], tag: Tagger | None) -> str:
    """`gist` as a title's phrase: "" when the word rules read it as a clause, else the noun phrase
    its tags show (`title_phrase`), or the gist itself without a tagger."""
    if not gist or reads_as_clause(gist, verbs):
        return ""
    phrase = title_phrase(gist, tag)
    return gist if phrase is None else phrase
