"""What a claim's own words say that the abstract it is checked against contradicts or never
says, read by rules: a range narrowed or a bound dropped, a direction flipped, a negation added or
removed, a strong word or a name the abstract does not use, in an English claim. (What a claim
changed in the sentence it restates is rag/restatement.py's; a Chinese claim's cue words are
rag/chinese_claims.py's.)

No entailment model ships inside a PyPI package (issue 14: searched, and checked by loading), and
similarity cannot see these edits: "reduces FLOPs by 30%" and "reduces FLOPs by 30–50%" embed
alike and share every word. Each rule looks at what the edit changes and nothing else, and is
measured against bench/claims.jsonl's labels (bench/check.py), its held-out part untouched.

`word_findings(claim, sentences, aligned)`: `sentences` are the abstract's (its whole text is what a
word must occur in), `aligned` the ones the claim is closest to (what its predicate restates).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.text import plain, stem_words


@dataclass(frozen=True)
class Finding:
    kind: str  # range_hedge | direction | negation | subject | overclaim
    detail: str  # what the claim says against the abstract, for a reader: "says 30% where the abstract says 30–50%"


# -- words ---------------------------------------------------------------------------------

_TOKEN = re.compile(r"[A-Za-zµα-ωΑ-Ω][A-Za-z0-9µα-ωΑ-Ω'’]*(?:-[A-Za-z0-9]+)*|\d+(?:\.\d+)?")


def tokens(text: str) -> list[str]:
    """Lower-cased words and numbers in order; "training-free" stays one word."""
    return [w.lower().replace("’", "'") for w in _TOKEN.findall(text)]


def stems_of(words: Sequence[str]) -> list[str]:
    return stem_words(words)


# Words that say a sentence is about prior work, not the proposed method.
PRIOR_CONTEXT = re.compile(
    r"\b(?:prior|existing|previous|conventional|traditional|standard|current|vanilla|classical|earlier|recent)\s+(?:[\w-]+\s+){0,2}"
    r"(?:methods?|approach(?:es)?|works?|models?|techniques?|systems?|baselines?|solutions?|studies|frameworks?|paradigms?|agents?)\b"
    r"|\b(?:baselines?|however|fails?|struggles?|suffers?|limitations?|typically)\b",
    re.I,
)


# -- ranges and hedges ---------------------------------------------------------------------

_NUM = r"\d+(?:\.\d+)?"
# "30–50%", "30--50\%", "10~100x", "30% to 50%", "from 2.2x to 4.3x", "between 30 and 50": one statement.
_RANGE = re.compile(rf"({_NUM})\s*(?:%|×|x|times)?\s*(?:–|—|-|~|to|and)\s*({_NUM})(?!\.\d)")
# The words that bound a number from above ("up to 4x") and from below ("over 90%"), and those a
# claim may say before a number it restates ("reaching 4x", "from 2x to 4x").
_UPPER = r"up to|as (?:much|high|many|large|fast) as|at most|a maximum of|maximum|peak|nearly|almost|approximately|about|around|roughly"
_LOWER = r"at least|over|more than|above|exceeding|beyond|greater than"
_UPPER_HEDGE = re.compile(rf"\b(?:{_UPPER})\s*$", re.I)
_LOWER_HEDGE = re.compile(rf"\b(?:{_LOWER})\s*$", re.I)
_ANY_HEDGE = re.compile(rf"\b(?:{_UPPER}|{_LOWER}|reaching|reaches|reach|to|between|from|ranging from)\s*$", re.I)
_NUMBER_AT = re.compile(rf"(?<![\w.]){_NUM}(?![\w.]*\d)")


def _ranges(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in _RANGE.finditer(text) if float(m.group(1)) < float(m.group(2))]


def _hedge_before(text: str, start: int, pattern: re.Pattern[str]) -> bool:
    return bool(pattern.search(re.sub(r"[≈~$\\]|approx", " ", text[max(0, start - 30) : start]).rstrip() + " "))


def range_findings(claim: str, abstract: str) -> list[Finding]:
    """A number the abstract states only as one end of a range, said alone ("30%" of "30–50%"); a
    number the abstract bounds ("up to 4×") said without its bound, or bounded the other way."""
    found = []
    claim_ranges = _ranges(claim)
    in_claim_range = {n for pair in claim_ranges for n in pair}
    abstract_ranges = _ranges(abstract)
    for match in _NUMBER_AT.finditer(claim):
        n = match.group(0)
        ends = [pair for pair in abstract_ranges if n in pair]
        singles = [m for m in _NUMBER_AT.finditer(abstract) if m.group(0) == n]
        if ends and n not in in_claim_range and len(singles) <= sum(pair.count(n) for pair in ends):
            low, high = ends[0]
            found.append(Finding("range_hedge", f"says {n} where the abstract gives the range {low}–{high}"))
            continue
        if not singles or n in in_claim_range:
            continue
        upper = all(_hedge_before(abstract, m.start(), _UPPER_HEDGE) for m in singles)
        lower = all(_hedge_before(abstract, m.start(), _LOWER_HEDGE) for m in singles)
        claim_upper, claim_any = _hedge_before(claim, match.start(), _UPPER_HEDGE), _hedge_before(claim, match.start(), _ANY_HEDGE)
        if upper and not claim_any:
            found.append(Finding("range_hedge", f"says {n} where the abstract says up to {n}"))
        elif upper and _hedge_before(claim, match.start(), _LOWER_HEDGE):
            found.append(Finding("range_hedge", f"says at least {n} where the abstract says up to {n}"))
        elif lower and claim_upper is False and not claim_any:
            continue  # "over 90%" said as "90%": a floor stated as the value, not more than the abstract says
    return found


# -- direction -----------------------------------------------------------------------------

_UP = """increase increases increased increasing improve improves improved improving higher raise raises raised boost boosts
boosted enhance enhances enhanced gain gains more faster better outperform outperforms outperformed outperforming surpass
surpasses surpassed exceed exceeds exceeded larger greater grow grows grew amplify amplifies amplified accelerate accelerates
accelerated speeds strengthen strengthens superior rise rises worsen worsens worsening exacerbate exacerbates aggravate
aggravates stronger strong widen widens widened widening farther maximize maximizes maximizing maximise maximises induce induces inducing""".split()
_DOWN = """decrease decreases decreased decreasing reduce reduces reduced reducing lower lowers lowered cut cuts drop drops dropped
degrade degrades degraded degrading worse fewer slower less underperform underperforms underperformed underperforming
smaller shrink shrinks diminish diminishes diminished weaken weakens weakened inferior hurt hurts harm harms impair impairs
impaired decline declines declined lag lags shorten shortens shortened fall falls fell avoid avoids avoiding mitigate mitigates
mitigating alleviate alleviates alleviating suppress suppresses suppressing prevent prevents preventing vanish vanishes weaker weak
narrow narrows narrowed narrowing slow slows slowed slowing slowdown closer minimize minimizes minimizing minimise minimises""".split()
DIRECTION = {**dict.fromkeys(_UP, 1), **dict.fromkeys(_DOWN, -1)}
# How far from a direction word its object is looked for: directions are compared said of the same
# object only ("lower error" is good news, "lower accuracy" bad).
_OBJECT_WINDOW = 4
FUNCTION_WORDS = frozenset(
    """the a an of by to in on for with and or its their our this that these those over than as at from up whether how what which who
    is are was were be been being can could will would may might should must do does did has have had it they them we us only also all so
    such both each more most much very there into any during while when where after before within through throughout upon among between
    per every given unlike like versus compared""".split()
)


def direction_pairs(words: list[str]) -> list[tuple[int, int, frozenset[str]]]:
    """(position, direction, object stems) of each direction word: the first two content words
    after it ("higher computational cost"), else before it ("latency drops")."""
    stems = stems_of(words)
    pairs = []
    for i, word in enumerate(words):
        sign = DIRECTION.get(word)
        if sign is None:
            continue
        after = [stems[j] for j in range(i + 1, min(len(words), i + 1 + _OBJECT_WINDOW)) if words[j] not in FUNCTION_WORDS and not words[j][0].isdigit()]
        before = [stems[j] for j in range(max(0, i - _OBJECT_WINDOW), i) if words[j] not in FUNCTION_WORDS and not words[j][0].isdigit()]
        pairs.append((i, sign, frozenset((after or before[::-1])[:2])))
    return pairs


def direction_findings(claim: str, sentences: Sequence[str], aligned: Sequence[str]) -> list[Finding]:
    """A direction word of the claim whose object the abstract moves the other way only
    ("increases memory" where it says "reduces memory"); with no shared object, the claim's
    direction word against the sentences it restates."""
    found = []
    claim_words = tokens(claim)
    abstract_pairs = [pair for s in sentences for pair in direction_pairs(tokens(plain(s)))]
    abstract_words = {w for s in sentences for w in tokens(plain(s))}
    aligned_signs = {sign for s in aligned for _, sign, _ in direction_pairs(tokens(plain(s)))}
    for i, sign, obj in direction_pairs(claim_words):
        word = claim_words[i]
        if i > 0 and claim_words[i - 1] in {"not", "never", "no"}:
            continue  # negated: the negation rule reads it
        # The abstract's direction words said of the same object: those sharing most of its words
        # ("worse than specialized coding agents", not "more sophisticated specialized ...").
        shared = max((len(o & obj) for _, _, o in abstract_pairs), default=0)
        about = {s for _, s, o in abstract_pairs if shared and len(o & obj) == shared}
        if about:
            if sign not in about:
                found.append(Finding("direction", f"says '{word}' where the abstract moves it the other way"))
            continue
        if word not in abstract_words and aligned_signs == {-sign}:
            found.append(Finding("direction", f"says '{word}' where the sentences it restates say the opposite"))
    return found


# -- negation ------------------------------------------------------------------------------

# Cues that negate what follows only in an abstract's clause: in a claim, "avoids this by assigning
# zeros" negates "this", not "assigning".
_OBJECT_CUES = frozenset(
    "avoid avoids avoiding eliminate eliminates eliminating prevent prevents preventing preclude precludes bypass bypasses bypassing bypassed".split()
)
NEGATION = _OBJECT_CUES | frozenset(
    """not no none never without cannot can't don't doesn't didn't isn't aren't wasn't won't fails fail failed neither nor unable lack lacks
    lacking absent struggle struggles""".split()
)
# "almost no overhead" is an amount ("negligible overhead"), not a negation.
_AMOUNT_BEFORE = frozenset("almost nearly virtually practically hardly".split())
FALL_SHORT = re.compile(r"\b(?:fall|falls|fell|falling)\s+short\b", re.I)
# "weight decay rather than µP": what follows is negated.
_INSTEAD = re.compile(r"\b(?:rather\s+than|instead\s+of)\b", re.I)
# An abstract's negation covers its clause, up to this many words ("without the need for costly
# ray marching"); a claim's negation is judged by the first content word it covers.
_SCOPE = 6
# Prefixes that make a word its opposite ("unreliably", "inadequate", "non-trivial").
_NEGATING_PREFIXES = ("un", "in", "im", "ir", "il", "non-", "non", "dis")
_MIN_PREFIXED = 6  # "input" is no negated "put"


def _negates_at(words: list[str], i: int) -> bool:
    """The word at i is a negation, not part of an amount ("almost no overhead")."""
    return words[i] in NEGATION and not (i > 0 and words[i - 1] in _AMOUNT_BEFORE)


def _negations(text: str) -> tuple[set[str], set[str], set[str]]:
    """(stems a negation covers, stems stated plainly, the first stem each negation covers) of a
    text; "X-free" negates X. A negation covers the rest of its clause, up to _SCOPE words, and
    what it covers is never held against a claim; only its head ("without [loss] of
    expressivity") must keep its negation in a claim that restates it."""
    negated: set[str] = set()
    stated: set[str] = set()
    heads: set[str] = set()
    for clause in re.split(r"[,;:.]", FALL_SHORT.sub("fail", _INSTEAD.sub("not", text))):
        words = tokens(clause)
        stems = stems_of(words)
        covered: set[int] = set()
        for i, word in enumerate(words):
            if word.endswith("-free"):
                negated |= set(stems_of(word[: -len("-free")].split("-")))
                heads |= set(stems_of(word[: -len("-free")].split("-")))
                covered.add(i)
            if _negates_at(words, i):
                scope = range(i + 1, min(len(words), i + 1 + _SCOPE))
                covered |= {i, *scope}
                head = next((j for j in scope if words[j] not in FUNCTION_WORDS and words[j] not in NEGATION), None)
                if head is not None:
                    heads.add(stems[head])
        negated |= {stems[i] for i in covered if words[i] not in FUNCTION_WORDS}
        stated |= {stem for i, (word, stem) in enumerate(zip(words, stems, strict=True)) if i not in covered and word not in FUNCTION_WORDS}
    return negated, stated, heads


def _first_negated(words: list[str]) -> list[list[int]]:
    """Positions of the first two content words after each negation of a claim."""
    firsts = []
    for i, word in enumerate(words):
        if _negates_at(words, i) and word not in _OBJECT_CUES:
            after = [j for j in range(i + 1, min(len(words), i + 1 + _SCOPE)) if words[j] not in FUNCTION_WORDS and words[j] not in NEGATION]
            firsts.append(after[:2])
    return firsts


# A claim that says the method needs or adds what the abstract says it does without: "requires
# per-step optimization" for "without per-step optimization", "requires fine-tuning" for "training-free".
_REQUIRES = frozenset(
    "require requires required requiring need needs needed introduce introduces introducing add adds incur incurs involve involves".split()
)
# What a training-free method does without ("tuning a threshold" is no training).
_TRAINING = frozenset("train training trained retrain retraining fine-tune fine-tuning fine-tuned finetuning".split())
# "needs training data" asks for data, not for training.
_TRAINING_OBJECTS = frozenset("data dataset datasets set sets examples samples corpus corpora labels signal signals".split())
_NO_TRAINING = re.compile(
    r"\b(?:training|tuning|fine-tuning)-free\b|\b(?:without|no)\s+(?:any\s+|additional\s+|extra\s+)?(?:re)?(?:training|fine-tuning|tuning)\b", re.I
)
_REQUIRED_WORDS = 4  # content words after "requires" that name what is required ("a large amount of extra computation")


def _required(words: list[str], stems: list[str], only_negated: set[str], heads: set[str], abstract: str) -> list[str]:
    """What the claim says is required or added, when the abstract says it only under a negation: a
    negation's head (`heads`: never said plainly) right after the verb, or three of its next four
    content words."""
    for i, word in enumerate(words):
        if word not in _REQUIRES or (i > 0 and words[i - 1] in NEGATION):
            continue
        window = range(i + 1, min(len(words), i + 1 + 2 * _REQUIRED_WORDS))
        after = [j for j in window if words[j] not in FUNCTION_WORDS][:_REQUIRED_WORDS]
        if not after or any(words[j] in NEGATION for j in window):
            continue  # "needs no training": the claim negates it too
        said = [stems[j] for j in after]
        trained = words[after[0]] in _TRAINING and not (len(after) > 1 and words[after[1]] in _TRAINING_OBJECTS)
        if trained and _NO_TRAINING.search(abstract):
            return [words[after[0]]]
        if said[0] in heads:
            return [words[after[0]]]
        if len(set(said) & only_negated) >= _REQUIRED_WORDS - 1:
            return sorted(set(said) & only_negated)
    return []


def negation_findings(claim: str, abstract: str, aligned: Sequence[str]) -> list[Finding]:
    """A negation the claim adds to what the abstract states plainly ("fails to handle" for "can
    handle"), or drops from what the abstract negates ("requires training" for "training-free",
    "reliably" for "unreliably")."""
    negated, stated, heads = _negations(abstract)
    abstract_words = set(tokens(abstract))
    words = tokens(claim)
    stems = stems_of(words)
    claim_negated, claim_plain, _ = _negations(FALL_SHORT.sub("fail", claim))
    _, restated_plainly, restated = _negations(" ".join(plain(s) for s in aligned))
    found = []
    for covered in _first_negated(words):
        if any(stems[i] in negated for i in covered):
            continue
        if said := [words[i] for i in covered if stems[i] in stated]:
            found.append(Finding("negation", f"negates '{said[0]}', which the abstract states without a negation"))
            break
    # Negated in the sentences the claim restates, or (two words or more) anywhere in the abstract.
    only_negated = claim_plain - claim_negated - stated
    # What the restated sentences negate and never say plainly, though the abstract may say it
    # elsewhere: required by the claim, it drops the negation ("requires backpropagation through the
    # sampling" for "avoids backpropagation through the sampling").
    negated_there = restated - restated_plainly
    dropped = sorted(only_negated & restated) or (sorted(only_negated & heads) if len(only_negated & heads) >= 2 else [])
    dropped = dropped or _required(words, stems, only_negated & negated, (heads & only_negated) | negated_there, abstract)
    if dropped:
        found.append(Finding("negation", f"states '{dropped[0]}' plainly, where the abstract negates it"))
    abstract_stems = negated | stated
    for word, stem in zip(words, stems, strict=True):
        if len(word) < _MIN_PREFIXED - 2 or word in abstract_words or stem in abstract_stems:
            continue
        opposite = next((p + word for p in _NEGATING_PREFIXES if p + word in abstract_words), None)
        bare = next(
            (word[len(p) :] for p in _NEGATING_PREFIXES if word.startswith(p) and len(word) >= _MIN_PREFIXED and word[len(p) :] in abstract_words), None
        )
        if opposite or bare:
            found.append(Finding("negation", f"says '{word}' where the abstract says '{opposite or bare}'"))
            break
    return found


# -- strong words --------------------------------------------------------------------------

# Words that claim more than a finding, by group: the abstract must use a word of the same group.
_STRONG_GROUPS = {
    "all": "all every any always universally consistently invariably entirely completely fully arbitrarily unlimited",
    "never": "never",
    "prove": "prove proves proven proved proving guarantee guarantees guaranteed guaranteeing certify certifies certified",
    "state of the art": "state-of-the-art sota best",
    "first": "first",
    "eliminate": "eliminate eliminates eliminated eliminating",
    "solve": "solve solves solved",
}
_STRONG_WORDS = {word: group for group, words in _STRONG_GROUPS.items() for word in words.split()}
_STRONG = {stem: group for group, words in _STRONG_GROUPS.items() for stem in stem_words(words.split())}
# Words that say as much as a strong word when the abstract uses them ("each primitive" is "every
# primitive"), but that claim nothing strong in a claim.
_AS_STRONG = {stem: group for group, words in {"all": "each per universal"}.items() for stem in stem_words(words.split())}
_STRONG_PHRASES = {"state of the art": "state of the art", "new record": "state of the art", "for the first time": "first"}


def _words_and_parts(text: str) -> list[str]:
    return [part for w in re.findall(r"[a-z]+(?:-[a-z]+)*", text.lower()) for part in {w, *w.split("-")}]


def _strengths(text: str) -> set[str]:
    """The strong words a claim uses, by group: the words themselves ("consistency" is not
    "consistently"), and not "any" after a negation ("without any training" is "without training")."""
    text = re.sub(r"\b(?:without|no|not|never)\s+any\b", "without", text, flags=re.I)
    found = {_STRONG_WORDS[w] for w in _words_and_parts(text) if w in _STRONG_WORDS}
    return found | {group for phrase, group in _STRONG_PHRASES.items() if phrase in text.lower()}


def said_as_strongly(text: str) -> set[str]:
    """The groups an abstract's sentence says as strongly, in any form ("universal" for "universally")."""
    stems = stem_words(_words_and_parts(text))
    found = {lexicon[stem] for lexicon in (_STRONG, _AS_STRONG) for stem in stems if stem in lexicon}
    return found | {group for phrase, group in _STRONG_PHRASES.items() if phrase in text.lower()}


def strength_findings(claim: str, sentences: Sequence[str], aligned: Sequence[str]) -> list[Finding]:
    """A strong word ("all", "proves", "state of the art") that the abstract's sentence saying the
    same thing as the claim's clause does not use ("for any base loss" where it says "provided
    the base loss ...")."""
    clean = [plain(s) for s in sentences]
    sentence_stems = [set(stems_of(tokens(s))) for s in clean]
    for clause in re.split(r"[,;:]|\b(?:whereas|while|and)\b", claim):
        strong = _strengths(clause)
        if not strong:
            continue
        said = set(stems_of([w for w in tokens(clause) if w not in FUNCTION_WORDS and w not in _STRONG_WORDS]))
        best = max(range(len(clean)), key=lambda k: len(said & sentence_stems[k]))
        if missing := sorted(strong - said_as_strongly(clean[best]) - said_as_strongly(" ".join(plain(s) for s in aligned))):
            return [Finding("overclaim", f"claims '{missing[0]}', which the abstract does not")]
    return []


def proper_noun_findings(claim: str, abstract: str) -> list[Finding]:
    """A capitalised word inside the claim that the abstract never uses: an extra benchmark,
    dataset, market or model ("... and Japanese markets", "... and Stack Overflow posts")."""
    lowered = abstract.lower()
    words = re.findall(r"(?<=[\s(])[A-Z][a-z]+(?:[A-Z][a-z]+)*\b", claim)
    extra = [w for w in words if w.lower() not in lowered and w.lower() not in FUNCTION_WORDS]
    return [Finding("overclaim", f"names '{extra[0]}', which the abstract does not")] if extra else []


# -- all of it -----------------------------------------------------------------------------


def word_findings(claim: str, sentences: Sequence[str], aligned: Sequence[str]) -> list[Finding]:
    """Every objection of the rules on an English claim's own words: ranges and hedges, direction,
    negation, strong words, names the abstract never uses."""
    claim = plain(claim)
    abstract = " ".join(plain(s) for s in sentences)
    return [
        *range_findings(claim, abstract),
        *direction_findings(claim, sentences, aligned),
        *negation_findings(claim, abstract, aligned),
        *strength_findings(claim, sentences, aligned),
        *proper_noun_findings(claim, abstract),
    ]
