"""A claim read as a restatement of the abstract's sentences: what it changed. A near copy with a
word swapped for another of the abstract's ("measured by the student" where the teacher
measures), a hedge dropped or words added; the two sides of a relation ("µP rather than weight
decay") or two contrasted clauses the other way round; prior work, a dataset or a component given
the method's result.

Each rule reads the sentences the claim is closest to (`aligned`), measured against
bench/claims.jsonl's labels like rag/entailment.py's word rules.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence

from rag.acronyms import stands_for
from rag.entailment import DIRECTION, FUNCTION_WORDS, NEGATION, PRIOR_CONTEXT, Finding, stems_of, tokens
from rag.text import bare_name, names, plain

# -- subject -------------------------------------------------------------------------------

# A claim whose subject is prior work: what it says must be what the abstract says of prior work.
_PRIOR_SUBJECT = re.compile(
    r"^(?:(?:the|most|many|some|all|these|such)\s+){0,2}(?:prior|existing|previous|conventional|traditional|standard|current|vanilla|classical|baseline|earlier|recent|state-of-the-art|sota)\b"
    r"|^(?:the\s+)?baselines?\b",
    re.I,
)
_PREPOSITIONS = frozenset("on in for with over than to against from into across under at by via beyond like unlike versus vs including such".split())


# "GAR-1B" and "GAR-8B" are one method at two sizes: a subject is its family, unless the sentence
# names the claim's own size too ("LLaMA-7B outperforms LLaMA-70B" said the other way round).
_SIZE = re.compile(r"-\d+(?:\.\d+)?[bmk]$")


def _family(name: str) -> str:
    return _SIZE.sub("", name)


# "TRECs" and "TREC" are one thing: an acronym's plural (capitals, then "s").
_PLURAL = re.compile(r"\b([A-Z][A-Z0-9\-]*[A-Z0-9])s\b")


def _subject_names(text: str) -> list[str]:
    """The coined names before the first verb-like word of a sentence (its subject), skipping an
    opening prepositional phrase ("On LLaDA-8B, SureLock ..." → SureLock)."""
    text = re.sub(r"^(?:[^,]{0,60}),\s*", lambda m: "" if m.group(0).split()[0].lower() in _PREPOSITIONS else m.group(0), text)
    words = text.split()
    subject = []
    for word in words[:8]:
        bare = word.strip(",.;:()").lower()
        if bare in _PREPOSITIONS or bare in DIRECTION or (bare.endswith(("es", "ed")) and bare not in names(word)):
            break
        subject.append(word)
    return sorted(bare_name(n) for n in names(_PLURAL.sub(r"\1", " ".join(subject))))


# The verbs of "X shows that ...": what follows "that" is what is claimed.
_REPORTING_VERB = r"(?:shows?|reveals?|finds?|demonstrates?|argues?|observes?|notes?)"
_FRAME = re.compile(rf"^(?:according to [^,]{{1,60}},\s*|(?:\S+\s+){{0,5}}?(?:{_REPORTING_VERB}|reports?|proves?)\s+that\s+)", re.I)
_SUBORDINATE = re.compile(r"^(?:whereas|while|unlike|although|though|compared (?:to|with)|in contrast to|rather than|instead of)\b[^,]*,\s*", re.I)


# Words after which the abstract names what the method is set against ("Unlike projection-based splatting, ...").
_CONTRAST = re.compile(r"\b(?:unlike|compared (?:to|with)|than|over|instead of|rather than|in contrast to|beyond|outperform\w*|surpass\w*)\s+$", re.I)


def _restated_clause(claim: str, sentence: str) -> str:
    """The clause of a contrasting sentence ("Existing methods retrain ..., while our method edits
    ...") whose words the claim's predicate shares most."""
    clauses = [c for c in _CLAUSES.split(sentence) if c.strip()]
    said = set(stems_of([w for w in tokens(claim) if w not in FUNCTION_WORDS][2:]))
    return max(clauses, key=lambda c: len(said & set(stems_of(tokens(c))))) if clauses else sentence


def _contrasted_subject(claim: str, sentence: str) -> str:
    """The claim's opening words (its subject) when the sentence it restates names them only as
    what the method is contrasted with."""
    opening = re.match(r"(?:the\s+)?([A-Za-z][\w\-]*(?:\s+[a-z][\w\-]*)?)", claim)
    if opening is None or opening.group(1).split()[0].lower() in FUNCTION_WORDS:
        return ""
    phrase = opening.group(1)
    sentence = plain(sentence)
    spots = [m.start() for m in re.finditer(re.escape(phrase), sentence, re.I)]
    return phrase if spots and all(_CONTRAST.search(sentence[max(0, at - 30) : at]) for at in spots) else ""


def _proper_subject(claim: str, sentences: Sequence[str]) -> list[str]:
    """The claim's first word when the abstract writes it capitalised inside a sentence: a name
    that is not coined ("Teddymer", "Complexa")."""
    first = re.match(r"[A-Z][a-z]+[A-Za-z0-9\-]*\b", claim)
    if first is None or first.group(0).lower() in FUNCTION_WORDS | _PREPOSITIONS:
        return []
    inside = any(first.group(0) in s.split()[1:] or f"{first.group(0)}," in s.split()[1:] for s in sentences)
    return [first.group(0).lower()] if inside else []


def subject_findings(claim: str, sentences: Sequence[str], aligned: Sequence[str], own_names: set[str]) -> list[Finding]:
    """The claim gives prior work the method's result, or one named thing what the abstract says
    of another ("the SLRA unifies …", where the abstract says the method does)."""
    found = []
    if _PRIOR_SUBJECT.search(claim) and aligned and not any(PRIOR_CONTEXT.search(_restated_clause(claim, plain(s))) for s in aligned):
        found.append(Finding("subject", "gives prior work or a baseline what the abstract says of the proposed method"))
        return found
    # "Whereas traditional MPNNs ..., the IBG-based network ...": the subject is the main clause's;
    # "The VLMFP paper observes that VLMs ...", "According to the paper, SFT ...": the reported clause's.
    main = _FRAME.sub("", _SUBORDINATE.sub("", claim))
    exact = _subject_names(main) or _proper_subject(main, sentences)
    if aligned and (contrasted := _contrasted_subject(main, aligned[0])):
        return [Finding("subject", f"gives '{contrasted}' what the abstract contrasts it with")]
    if not exact or not aligned:
        return found
    best = plain(aligned[0])
    own = {n.lower() for n in own_names}
    one = _family if not any(n in best.lower() for n in exact) else str
    subject, named = [one(n) for n in exact], [one(n) for n in _subject_names(best)]
    theirs = [n for n in named if n not in subject]
    if theirs and not set(subject) & set(named) and not (set(subject) <= own and not set(theirs) & own):
        found.append(Finding("subject", f"says {subject[0]} does what the abstract says {theirs[0]} does"))
    elif subject[0] not in own and subject[0] not in best.lower() and (mine := sorted(o for o in own if o in best.lower())):
        # "Teddymer is a novel binder generation method" where the abstract proposes Complexa as one.
        found.append(Finding("subject", f"says {subject[0]} does what the abstract says {mine[0]} does"))
    return found


# -- a near copy's edits --------------------------------------------------------------------

# A claim this close to one sentence (share of its stems found in it, in order) copies it, so every word it
# changes is an edit to be read ("teacher" → "student", "comparable to or superior" → "superior").
NEAR_COPY_RATIO = 0.6
_MAX_EDIT_WORDS = 4
# Words that narrow what a sentence claims: dropping them claims more.
_HEDGES = frozenset(
    """comparable may might could some partially partly nearly approximately roughly suggest suggests suggesting potentially
    likely often typically certain several moderately modest modestly mild mildly major significant substantial largely mostly
    generally competitive sometimes approached approaching""".split()
)
# The weaker side of "matches or surpasses", "comparable to or better than": dropping it claims more.
# (Not any "or": "text prompts" for "text or image prompts" is narrower, and true.)
_WEAKER = frozenset("match matches matching matched equal equals equaling rival rivals comparable competitive".split())
# Added words that reword rather than claim ("by running gradient-based optimization").
_WORDING = ("ing", "ly", "ed")
_SELF = frozenset("we our this paper work method approach framework model it its propos introduc present develop design".split())
# Words a claim may hedge with in place of the abstract's ("roughly 30%" for "approximately 30%").
_CLAIM_HEDGES = _HEDGES | frozenset("about around roughly approximately nearly almost up".split())


def edit_findings(claim: str, aligned: Sequence[str], abstract: str, own_names: set[str]) -> list[Finding]:
    """In a near copy of one sentence: a word replaced by one the abstract uses for something else
    ("measured by the student" where the teacher measures), a hedge replaced or dropped, or words
    added that the abstract never says (an extra benchmark)."""
    claim_words = tokens(claim)
    claim_stems = stems_of(claim_words)
    abstract_words = tokens(abstract)
    abstract_stems = set(stems_of(abstract_words)) | set(stems_of([part for w in abstract_words for part in w.split("-")]))
    own = {n.lower() for n in own_names}
    coined = names(claim)
    best = None
    for sentence in aligned:
        words = tokens(plain(sentence))
        stems = stems_of(words)
        matcher = difflib.SequenceMatcher(None, stems, claim_stems, autojunk=False)
        copied = sum(block.size for block in matcher.get_matching_blocks()) / max(1, len(claim_stems))
        if best is None or copied > best[0]:
            best = (copied, matcher, words, stems)
    if best is None or best[0] < NEAR_COPY_RATIO:
        return []
    _, matcher, words, stems = best
    sentence_stems, claim_stem_set = set(stems), set(claim_stems)
    found = _swapped(matcher, words, stems, claim_words, claim_stems, own)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if max(i2 - i1, j2 - j1) > _MAX_EDIT_WORDS:
            continue
        if op in ("replace", "delete") and "or" in words[i1:i2] and "or" not in claim_words[j1:j2] and set(words[i1:i2]) & _WEAKER:
            found.append(Finding("range_hedge", f"drops '{' '.join(words[i1:i2])}' (the weaker result the abstract allows)"))
            continue
        said = [claim_stems[j] for j in range(j1, j2) if claim_words[j] not in FUNCTION_WORDS]
        was = [stems[i] for i in range(i1, i2) if words[i] not in FUNCTION_WORDS]
        hedges = [w for w in words[i1:i2] if w in _HEDGES and w not in claim_words]
        if op in ("replace", "delete") and hedges and not set(claim_words[j1:j2]) & _CLAIM_HEDGES:
            found.append(Finding("range_hedge", f"drops '{' '.join(words[i1:i2])}' ('{hedges[0]}' limits what the abstract claims)"))
        elif op == "replace" and said and was and not set(said) & set(was) and not set(was) <= _SELF and not set(said) <= _SELF:
            if {claim_words[j] for j in range(j1, j2)} & (own | (coined & set(words))) or any(w.endswith("ly") for w in words[i1:i2]):
                continue  # the method's name for "we" or for its spelled-out form, or an adverb reworded
            if _spells_out(words[i1:i2], claim_words[j1:j2]) or _spells_out(claim_words[j1:j2], words[i1:i2]):
                continue  # "knowledge graph" for "KG"
            if _letters(claim_words[j1:j2]) in _letters(words[i1:i2]):
                continue  # "state of the art" for "state-of-the-art", "real time" for "real-time without ..."
            moved = [x for x in said if x in sentence_stems]
            new = [x for x in said if x not in sentence_stems]
            gone = [x for x in was if x not in claim_stem_set]
            # A word from elsewhere in the abstract put in this sentence's place, or one of this
            # sentence's words put where another of its words was, that word now gone.
            nouns = not any(w.endswith(_WORDING) for w in [*claim_words[j1:j2], *words[i1:i2]])
            if (new and all(x in abstract_stems for x in new)) or (not new and moved and gone and nouns):
                found.append(Finding("subject", f"says '{' '.join(claim_words[j1:j2])}' where the abstract says '{' '.join(words[i1:i2])}'"))
        elif op == "insert" and (added := [w for w in claim_words[j1:j2] if _claims_something(w, abstract_stems)]):
            found.append(Finding("overclaim", f"adds '{' '.join(added)}', which the abstract does not say"))
    return found


# Two words this far apart in the sentence are two roles, not two items of one list ("audio, images
# and text" said as "text, images and audio").
_SWAP_DISTANCE = 5


def _swapped(
    matcher: difflib.SequenceMatcher, words: list[str], stems: list[str], claim_words: list[str], claim_stems: list[str], own: set[str]
) -> list[Finding]:
    """Two of the sentence's words put in each other's places ("at the micro level ... at the macro
    level" for macro ... micro; GPT-4o given the method's score and the method GPT-4o's). The
    paper's "our method" and its own name are one side."""

    def side(ws: list[str], ss: list[str]) -> frozenset[str]:
        content = [(w, s) for w, s in zip(ws, ss, strict=True) if w not in FUNCTION_WORDS]
        if content and (all(w in _SELF for w, _ in content) or any(w in own for w, _ in content)):
            return frozenset({"<self>"})
        return frozenset(s for _, s in content)

    # A sentence that goes on past the claim ends in one long replacement: its first words are the swap.
    replaced = [
        (side(words[i1:end], stems[i1:end]), side(claim_words[j1:j2], claim_stems[j1:j2]), " ".join(claim_words[j1:j2]), i1)
        for op, i1, i2, j1, j2 in matcher.get_opcodes()
        if op == "replace" and j2 - j1 <= _MAX_EDIT_WORDS
        for end in [i2 if i2 - i1 <= _MAX_EDIT_WORDS else i1 + j2 - j1]
    ]
    for k, (was, said, text, at) in enumerate(replaced):
        if was and said and was != said and any(w == said and s == was and there - at >= _SWAP_DISTANCE for w, s, _, there in replaced[k + 1 :]):
            return [Finding("subject", f"puts '{text}' where the abstract has what it swaps it with")]
    return []


def _spells_out(short: Sequence[str], long: Sequence[str]) -> bool:
    """One side is the other's acronym: "kg" / "knowledge graph"."""
    return len(short) == 1 and stands_for(short[0], long)


def _letters(words: Sequence[str]) -> str:
    return "".join(words).replace("-", "")


def _claims_something(word: str, abstract_stems: set[str]) -> bool:
    """An added word says something new: a content word (not a rewording's "-ing", "-ly" or "-ed")
    with a part the abstract never uses ("language-region" is "language regions")."""
    if word in FUNCTION_WORDS or word in NEGATION or word in _CLAIM_HEDGES or word.endswith(_WORDING):
        return False
    return not all(stem in abstract_stems for stem in stems_of(word.split("-")))


# "A rather than B", "A by B", "A than B": the two sides of a relation said the other way round.
# Not "to": mostly an infinitive ("triggers to decide when to explore"), whose sides are no relation.
_RELATIONS = ("rather than", "instead of", "than", "by", "over", "versus", "vs", "into")
_SIDE_WORDS = 3


def _sides(words: list[str], stems: list[str]) -> dict[str, list[tuple[set[str], set[str]]]]:
    sides: dict[str, list[tuple[set[str], set[str]]]] = {}
    for i in range(len(words)):
        for relation in _RELATIONS:
            parts = relation.split()
            if words[i : i + len(parts)] != parts:
                continue
            before = {stems[k] for k in range(max(0, i - _SIDE_WORDS), i) if words[k] not in FUNCTION_WORDS}
            after = {stems[k] for k in range(i + len(parts), min(len(words), i + len(parts) + _SIDE_WORDS)) if words[k] not in FUNCTION_WORDS}
            sides.setdefault(relation, []).append((before, after))
            break
    return sides


def relation_findings(claim: str, aligned: Sequence[str]) -> list[Finding]:
    """"µP rather than weight decay" where the abstract says "weight decay rather than µP"."""
    claim_words = tokens(claim)
    ours = _sides(claim_words, stems_of(claim_words))
    for sentence in aligned:
        words = tokens(plain(sentence))
        theirs = _sides(words, stems_of(words))
        for relation, pairs in ours.items():
            for before, after in pairs:
                for their_before, their_after in theirs.get(relation, []):
                    if before & their_after and after & their_before and not (before & their_before) and not (after & their_after):
                        return [Finding("subject", f"puts the two sides of '{relation}' the other way round")]
    return []


# -- two things swapped ---------------------------------------------------------------------

_CLAUSES = re.compile(r",?\s+(?:while|whereas)\s+|;\s+|:\s+|,\s+but\s+")
# Two clauses said of two things: not a colon, which opens a list or an explanation ("three
# levels: spatial perception, spatial analysis, ...").
_CONTRASTED = re.compile(r",?\s+(?:while|whereas)\s+|;\s+|,\s+but\s+")
_REPORTING = re.compile(rf"^.*?\b{_REPORTING_VERB}\s+that\s+", re.I)


def _clause_parts(clause: str) -> tuple[str, set[str]]:
    """(the subject's first content stem, the rest's content stems) of a clause."""
    clause = _REPORTING.sub("", clause)
    head, comma, rest = clause.partition(", ")
    if comma and len(head.split()) <= 6 and head.split()[0].lower() in _PREPOSITIONS | {"notably", "moreover", "however", "furthermore", "specifically"}:
        clause = rest
    words = [w for w in tokens(clause) if w not in FUNCTION_WORDS]
    stems = stems_of(words)
    return (stems[0] if stems else ""), set(stems[1:])


def swap_findings(claim: str, aligned: Sequence[str]) -> list[Finding]:
    """A claim of two contrasted clauses ("A does X, while B does Y") whose clause about X has the
    subject the abstract gives Y."""
    claim_clauses = [c for c in _CONTRASTED.split(claim) if c.strip()]
    if len(claim_clauses) < 2 or not aligned:
        return []
    sentence_clauses = [_clause_parts(c) for c in _CONTRASTED.split(plain(aligned[0])) if c.strip()]
    if len(sentence_clauses) < 2:
        return []
    for clause in claim_clauses:
        subject, rest = _clause_parts(clause)
        if not subject or not rest:
            continue
        by_rest = max(range(len(sentence_clauses)), key=lambda k: len(rest & sentence_clauses[k][1]))
        by_subject = [k for k, (s, _) in enumerate(sentence_clauses) if s == subject]
        if len(rest & sentence_clauses[by_rest][1]) >= 2 and by_subject and by_rest not in by_subject:
            return [Finding("subject", f"says of '{subject}' what the abstract says of '{sentence_clauses[by_rest][0]}'")]
    return []


# "A, B, and C": at least three short items (no clause among them: "X needs no training, yet it equals ...").
_ITEM_CHAR = r"(?:[^,;:.()]|(?<=\d)\.(?=\d))"  # no parentheses ("(p, r)-secret" is no list); "7.5M" is one item
_LIST = re.compile(rf"(?:{_ITEM_CHAR}{{2,60}},\s+)+(?:(?:and|or)\s+)?{_ITEM_CHAR}{{2,60}}?(?=[,;:.]|\s+(?:on|in|for|with|to|while|across|under)\b|$)")
_ITEM_WORDS = frozenset("the of a an".split())


def list_findings(claim: str, abstract: str) -> list[Finding]:
    """An item of a list ("image classification, language modeling, diffusion, and reinforcement
    learning") whose words the abstract never uses: an extra benchmark, task or domain."""
    abstract_words = tokens(abstract)
    abstract_stems = set(stems_of(abstract_words)) | set(stems_of([p for w in abstract_words for p in w.split("-")]))
    for listed in _LIST.findall(claim):
        items = [i for i in re.split(r",\s+(?:and\s+|or\s+)?|\s+(?:and|or)\s+", listed) if i.strip()]
        middle = [tokens(item) for item in items[1:]]
        if len(items) < 3 or any(len(words) > _MAX_EDIT_WORDS or set(words) & (FUNCTION_WORDS - _ITEM_WORDS) for words in middle):
            continue
        for item, words in zip(items[1:], middle, strict=True):
            if len([w for w in words if w not in _ITEM_WORDS]) == 1 and not names(item):
                continue  # one plain word is as often a synonym ("illumination" for "lighting levels") as an extra item
            if any(_claims_something(w, abstract_stems) for w in words):
                return [Finding("overclaim", f"lists '{item.strip()}', which the abstract does not")]
    return []


def restatement_findings(
    claim: str, sentences: Sequence[str], aligned: Sequence[str], own_names: set[str], worded: Callable[[str], str] = str
) -> list[Finding]:
    """Every objection of the restatement rules to an English claim. Who does what is read on the
    texts as given, names kept; the words compared by the other rules as `worded` reads them (the
    abstract's acronyms spelled out)."""
    said, abstract = plain(claim), " ".join(plain(s) for s in sentences)
    claim, words_of_abstract, aligned_words = plain(worded(claim)), plain(worded(abstract)), [worded(s) for s in aligned]
    return [
        *subject_findings(said, sentences, aligned, own_names),
        *swap_findings(said, aligned),
        *edit_findings(claim, aligned_words, words_of_abstract, own_names),
        *relation_findings(claim, aligned_words),
        *list_findings(claim, words_of_abstract),
    ]
