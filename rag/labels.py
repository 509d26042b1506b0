"""Short display labels for papers that have no title, built from the abstract.

Why this is hand-written: no library turns an abstract into a title-like
label (keyword extractors return bags of words, not "Name: gist"), an LLM is
not available at ingest time, and labels must be deterministic so that ids
and what users see stay stable across re-ingests. The heuristics below were
tuned by comparing labels with the true titles of real papers.

Shape of a label: "<Name>: <gist>" when the abstract introduces a named
method/system/benchmark ("we propose WinT3R, a feed-forward ..."), otherwise
the gist of the contribution sentence (else the abstract's subject phrase, else
its first sentence), kept to the noun phrase before any clause (rag.label_clauses,
with spaCy's tagger where it is installed); then " for <field>" when it lacks a
subject phrase: the phrase closest to the abstract's opening sentences (rag.label_subjects). Finding the name is
`rag.label_names`; sentences and the words without markup come from `rag.text`. Measured by
bench/titles.py. Labels differ where the tagger or the embedding model is missing or
another; an ingest keeps an indexed abstract's label (rag/api.py), so they do not change under it.
"""

from __future__ import annotations

import re

from rag.label_clauses import CONTRIBUTION_VERBS, MIN_CLAUSE_CUT_WORDS, PHRASE_OPENERS, as_title, verb_clause_at
from rag.label_names import ADVERBS, INTRO_VERB, KIND_NOUNS, NAMING_RE, Name, expansion_of, find_name
from rag.label_subjects import FIELD_MIN_SIMILARITY, PARTICIPLE, PURPOSE_VERBS, SUBJECT_MAX_WORDS, Embed, subject_phrase, verbs_in
from rag.tagger import Tagger, make_tagger
from rag.text import key_terms, split_sentences, without_markup

# Users see labels in a one-line list; longer strings get truncated by the UI.
MAX_LABEL_CHARS = 100

# The name and its description, or the contribution's gist, before any subject phrase.
GIST_MAX_WORDS = 12

# "A few words of gist" after a name: enough to tell papers apart, short
# enough to read like a title.
NAMED_GIST_WORDS = 8

# A clause boundary only ends a gist once the gist says something; cutting
# "a plug-and-play module that ..." at "that" leaves a uselessly vague label.
MIN_NAMED_GIST_WORDS = 3
# Without a name the gist is the only distinctive part, so keep more of it.
MIN_FALLBACK_GIST_WORDS = 6

# A title names its subject as well as its device ("SureLock: locking converged tokens for masked
# diffusion decoding"); a label with fewer content words than this gets the abstract's subject phrase.
SUBJECT_BELOW_WORDS = 8

# Vague openers of a descriptive phrase; "a novel, simple yet effective
# framework" carries no more information than "framework". Words that do
# carry meaning in titles ("unified", "efficient", "robust") are kept.
LEADING_FILLER = frozenset(
    {
        "a", "an", "the", "our", "novel", "new", "simple", "yet", "but", "and",
        "effective", "powerful", "general", "generic", "first", "very",
        "highly", "innovative", "straightforward", "elegant", "versatile",
    }
)

# Words a title never ends with; a cut that lands on them reads as broken.
TRAILING_STOP = frozenset(
    {
        "a", "an", "the", "of", "and", "or", "for", "with", "to", "in", "on",
        "at", "by", "from", "into", "onto", "via", "as", "that", "which",
        "while", "whose", "where", "when", "is", "are", "be", "its", "their",
        "this", "these", "both", "such", "than", "under", "over", "across",
        "between", "through", "without", "within", "using", "based", "we",
        "our", "can", "not", "but", "nor", "so", "if", "each", "any", "all",
        "more", "most", "single", "also", "it", "they", "toward", "towards",
        "has", "have", "had", "was", "were", "been", "being", "does", "do",
        "designed", "tailored", "specifically", "explicitly", "built", "aimed",
        "intended", "dedicated", "capable", "able", "used", "called", "named",
    }
)


# The sentence that says what the paper contributes.
_CONTRIBUTION_RE = re.compile(
    r"\bwe\s+" + ADVERBS + r"(?:propose|introduce|present)\b|"
    r"\bthis\s+(?:paper|work|study)\b|\bin\s+this\s+work\b",
    re.IGNORECASE,
)
# Papers without a "we propose" sentence still say what they do ("we show",
# "we study"); that beats the first sentence, which is usually background.
_FINDING_VERBS = (r"(?:study|investigate|analy[sz]e|show|prove|develop|design|provide|establish|demonstrate"
                  r"|identify|derive|examine|explore|formali[sz]e|characteri[sz]e|revisit|address)")
_FINDING_RE = re.compile(r"\bwe\s+" + ADVERBS + _FINDING_VERBS + r"\b", re.IGNORECASE)
# The verbs whose object is what a paper is about. Under another ("we leverage recent advances in ...") the
# object is background or prior work, and what the paper makes follows "to propose" / "by introducing" when
# said (when not, a later sentence was tried on dev: as often worse, "Enhanced evaluation tool").
_GIST_VERB_RE = re.compile(r"(?:" + INTRO_VERB + r"|" + _FINDING_VERBS + r"(?:s|es|d|ed)?)", re.IGNORECASE)
_LATER_INTRO_RE = re.compile(
    r"\b(?:by|to|and|then)\s+" + ADVERBS + r"(?:(?:introduc|propos)(?:e|ing)|(?:develop|design|present|build|construct)(?:ing)?)\s+", re.I
)
# "we address this gap by providing ...": the object is filler, the means is the gist.
_FILLER_OBJECT_RE = re.compile(
    r"^(?:this|these|the|such)\s+(?:\w+\s+){0,2}?(?:gaps?|issues?|problems?|challenges?|questions?"
    r"|limitations?|shortcomings?|study|work|paper)\s+(?:by|through|via|with|and\s+\w+)\s+"
    # "(we address) this bottleneck by introducing X": whatever "this" is, X is the gist.
    r"|^(?:this|these|such)\s+(?:\w+\s+){0,2}?(?:by|through|via)\s+(?:introducing|proposing|developing|designing|presenting)\s+",
    re.IGNORECASE,
)
# A gist that opens by pointing back ("These assumptions hold only briefly ...") needs the sentence
# before it: it is no title, and the abstract's subject phrase stands in for it.
_ANAPHORIC_RE = re.compile(r"(?:This|These|Those|Such|That|It|Its|Their|They)\b")
# Asides that interrupt a description ("a method that, for the first time, ...").
_ASIDE_RE = re.compile(
    r",\s*(?:for the first time|to (?:the best of )?our knowledge|in particular|specifically|notably"
    r"|importantly|in addition|moreover|furthermore)\s*,?",
    re.IGNORECASE,
)
# List markers inside a sentence: "(1) ...", "i) ...".
_ENUMERATION_RE = re.compile(r"\(?\b(?:\d|i{1,3}|iv|v|[a-d])\)\s*")
# Framing clauses at the start of a sentence whose subject is not "we"
# ("In order to tackle these issues, in this paper, a ... method is proposed").
_LEADING_FRAME_RE = re.compile(
    r"^(?:(?:in\s+order\s+to|to\s+(?:address|tackle|solve|overcome|bridge|fill|mitigate)|building\s+on"
    r"|motivated\s+by|inspired\s+by|in\s+this\s+(?:paper|work|study))\b[^,]*,\s*)+",
    re.IGNORECASE,
)
# Everything up to the contribution verb is framing ("In this paper, we
# propose"); the gist starts after it.
_CONTRIBUTION_PREFIX_RE = re.compile(
    r"^.*?\b(?:we|this\s+(?:paper|work|study))\s+" + ADVERBS + r"(?P<verb>\w+)[\s,]+"
    r"(?:(?:that|how|whether|what|why|when)\s+)?",
    re.IGNORECASE,
)
# "... and derive bounds": a second clause starts, the first one is the gist.
_AND_VERB = r"and\s+(?:achieve|show|demonstrate|find|reveal|provide|propose|introduce|derive|prove|establish|present|develop|obtain)s?"
_NAMED_BOUNDARY_RE = re.compile(
    r",(?!\d)|;|:| — |\s(?:that|which|where|whereby|while|whose|to|for|by|using"
    r"|(?:specifically\s+)?(?:designed|tailored|built|aimed|intended|dedicated)|" + _AND_VERB + r")\s"
)
# Without a name, "for"/"to" usually carry the topic, so cut only at clauses.
_FALLBACK_BOUNDARY_RE = re.compile(
    r",(?!\d)|;|:| — |\s(?:that|which|where|whereby|while|whose"
    r"|" + _AND_VERB + r")\s"
)
# A clause that says what the thing does or is for ("... to better understand the risk they pose",
# "... that reframes condition prediction as ..."): a title names the thing and stops before it.
_CLAUSE_RE = re.compile(
    r"\s(?:in\s+order\s+)?to\s+(?:\w+ly\s+)?(?:" + PURPOSE_VERBS + r")(?![\w-])"
    r"|\s(?:that|which)\s+(?:\w+ly\s+)?(?:" + PURPOSE_VERBS + r"|\w+s)\s"
    # A finite verb makes a sentence of it ("Langevin dynamics can succeed ..."), "capable of" a clause.
    # (Lower case only: "IS" is an acronym.)
    r"|\s(?-i:can|cannot|could|will|would|may|might|must|should|does|do|did|is|are|was|were|has|have|had)\s|\s(?:capable|able)\s+(?:of|to)\s",
    re.IGNORECASE,
)
_SUBORDINATE_RE = re.compile(r"(?:when|where|whenever|if|whereas|because|since|while|although|how|whether|once|as|so)\b", re.IGNORECASE)
# "Latent Adaptation of Foundation Policies, a framework for ...": a name of plain words, which no rule
# can tell from a phrase (rag.label_names), and what it is; a title writes "X: framework for ...".
# (Its longer words capitalised, as a name's are, no preposition first, no adverb alone: not "For the first
# time, a benchmark", "Application of graph random features, a recently introduced estimator", "Recently, a".)
_NAME_WORD = r"[^a-z\s,:;—][^\s,:;—]*"  # capitalised, or a symbol ("⌘V")
_APPOSITIVE_GIST_RE = re.compile(
    r"^(?!(?:For|In|On|With|To|By|As|At|From|Of|Under|Via)\s|(?:[A-Z][a-z]+ly|Here|Then|Thus|However|Moreover|Furthermore|Instead|Overall),)"
    rf"((?:(?:{_NAME_WORD}|[a-z]{{1,3}}) ){{0,5}}{_NAME_WORD})(?:,| —| -) (?:an?) (\S.*)$"
)
_KIND_RE = re.compile(r"\b" + KIND_NOUNS + r"$", re.IGNORECASE)  # a singular kind: "search agent", not "language models"
_QUOTES = "\"“”'‘’"


# --------------------------------------------------------------------------
# Gist
# --------------------------------------------------------------------------


def _strip_parentheticals(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r"\s*\([^()]*\)", "", text)
    return text


def _trim_trailing(words: list[str]) -> list[str]:
    """Drop trailing stop words and punctuation so the cut reads as a title."""
    words = [w for w in words if w]
    while words:
        stripped = words[-1].rstrip(",;:.!?—-([" + _QUOTES)
        # A stranded participle ("environments implemented", "through controlled") ends a clause, not a title.
        if not stripped or stripped.lower() in TRAILING_STOP or PARTICIPLE.fullmatch(stripped):
            words.pop()
        elif stripped != words[-1]:
            words[-1] = stripped
        else:
            break
    return words


def _cut_phrase(
    phrase: str, max_words: int, min_words: int, boundaries: re.Pattern[str], verbs: frozenset[str] = frozenset(), min_clause_words: int = MIN_CLAUSE_CUT_WORDS
) -> str:
    """Shorten a phrase at a clause boundary once it says enough."""
    phrase = _ENUMERATION_RE.sub("", _ASIDE_RE.sub(" ", phrase))
    words = _strip_parentheticals(phrase).strip(" ,;:—" + _QUOTES).split(" ")
    while words and words[0].lower().strip(",") in LEADING_FILLER:
        words.pop(0)
    phrase = " ".join(words)
    clause = next((m for m in _CLAUSE_RE.finditer(phrase) if len(phrase[: m.start()].split()) >= min_clause_words), None)
    if clause:
        phrase = phrase[: clause.start()]
    verb_clause = verb_clause_at(phrase.split(" "), verbs)
    if verb_clause is not None:
        phrase = " ".join(phrase.split(" ")[:verb_clause])
    for boundary in boundaries.finditer(phrase):
        if len(phrase[: boundary.start()].split()) >= min_words:
            phrase = phrase[: boundary.start()]
            break
    words = phrase.split(" ")
    if len(words) > max_words:
        # Cut at the word limit: end before the unfinished phrase, not inside it.
        words = words[:max_words]
        opener = max((i for i, w in enumerate(words) if w.lower() in PHRASE_OPENERS and i >= MIN_CLAUSE_CUT_WORDS), default=None)
        words = words[:opener] if opener is not None else words
    return " ".join(_trim_trailing(words))


def _description_candidates(name: Name, sentences: list[str]) -> list[str]:
    """What the abstract says the named thing is, most trustworthy first."""
    appositive = re.compile(
        r"(?<![\w-])" + re.escape(name.text) + r"(?![\w-])\s*(?:\([^()]*\)\s*)?"
        r"(?:[,:—]\s*(?:which\s+is\s+)?|\s+is\s+)((?:a|an|the|two|three|both)\s.*)"
    )
    candidates = []
    own = appositive.search(name.sentence, name.start)
    if own:
        candidates.append(own.group(1))
    # "we introduce a novel metric for ..., called X": the description precedes.
    before = name.sentence[: name.start]
    naming = NAMING_RE.search(before)
    described = before[: naming.start()] if naming else before
    # The last verb: in "Building on this, we design a new X" the first is framing.
    intros = list(re.finditer(r"\b" + INTRO_VERB + r"\s+", described, re.IGNORECASE))
    if intros:
        candidates.append(described[intros[-1].end() :])
    elif naming:
        # "to pretrain a 3.8B-parameter SpeechLM, called X": the noun phrase.
        noun_phrase = re.search(r"\b(?:an?|the)\s+([^,;]*?),?\s*$", described, re.IGNORECASE)
        if noun_phrase:
            candidates.append(noun_phrase.group(1))
    candidates.extend(m.group(1) for m in map(appositive.search, sentences) if m)
    rest = re.match(r"^\s*(?:\([^()]*\))?[\s,:—]*(?:(that|which|to)\b|for\b)?\s*(.*)", name.sentence[name.end :], re.DOTALL)
    # "X, which couples ...", "X to align ...": a verb's clause about the name, no description of it.
    if rest and not rest.group(1):
        candidates.append(rest.group(2))
    return candidates


def _named_gist(name: Name, sentences: list[str], text: str, max_words: int, verbs: frozenset[str], tag: Tagger | None) -> str:
    limit = min(NAMED_GIST_WORDS, max_words - 1)
    if limit <= 0:
        return ""
    expansion = expansion_of(name, text)
    if expansion:
        return " ".join(_trim_trailing(_strip_parentheticals(expansion).split(" ")[:limit]))
    # A named thing's description stops at its first clause ("framework that addresses ..."): the
    # name and the subject phrase say the rest.
    gists = [_cut_phrase(c, limit, MIN_NAMED_GIST_WORDS, _NAMED_BOUNDARY_RE, verbs, 1) for c in _description_candidates(name, sentences)]
    # "when the posterior at ..." opens a clause about the name, not a description of it.
    gists = [as_title(g, verbs, tag) for g in gists if not _SUBORDINATE_RE.match(g)]
    # One word ("X: framework") says little; prefer a longer description if any.
    return next((g for g in gists if len(g.split()) >= 2), next((g for g in gists if g), ""))


def _contribution_gist(sentences: list[str], max_words: int, verbs: frozenset[str], tag: Tagger | None) -> str:
    """Gist of the contribution sentence, else of a finding sentence; "" when each reads as a clause."""
    for pattern in (_CONTRIBUTION_RE, _FINDING_RE):
        for sentence in sentences:
            if pattern.search(sentence):
                prefix = _CONTRIBUTION_PREFIX_RE.match(sentence)
                verb = re.sub(r"i(?:es|ed)$", "y", prefix.group("verb")) if prefix else ""  # "studies" is "study"
                later = _LATER_INTRO_RE.search(sentence, prefix.end()) if prefix and verb != "we" and not _GIST_VERB_RE.fullmatch(verb) else None
                gist = sentence[later.end() :] if later else sentence[prefix.end() :] if prefix else sentence
                gist = _FILLER_OBJECT_RE.sub("", _LEADING_FRAME_RE.sub("", gist, count=1), count=1)
                cut = _cut_phrase(gist, max_words, MIN_FALLBACK_GIST_WORDS, _FALLBACK_BOUNDARY_RE, verbs)
                # Two words are a title when a clause was cut after them ("Graph transformers that scale ...").
                cut = as_title(cut, verbs, tag)
                if len(cut.split()) >= MIN_CLAUSE_CUT_WORDS:
                    return cut
    return ""


def _opening_gist(sentences: list[str], max_words: int, verbs: frozenset[str], tag: Tagger | None) -> str:
    """Gist of the first sentence that reads as a phrase: the last resort, as it is mostly background."""
    cuts = [_cut_phrase(_CONTRIBUTION_PREFIX_RE.sub("", s, count=1), max_words, MIN_FALLBACK_GIST_WORDS, _FALLBACK_BOUNDARY_RE, verbs) for s in sentences]
    return next((t for t in (as_title(c, verbs, tag) for c in cuts) if t), next((c for c in cuts if c), ""))


def _with_subject(label: str, text: str, max_words: int, bare_name: bool, tag: Tagger | None, embed: Embed | None) -> str:
    """`label` "for" the abstract's subject phrase, when it lacks one and the limits allow; a bare
    name too ("SureLock for diffusion language models": "Name: phrase" said the name was the phrase)."""
    if len(key_terms(label)) >= SUBJECT_BELOW_WORDS or " for " in label:
        return label  # "X for Y for Z" reads as a list, not a title
    # A bare name needs a description, however weak; a "for" has to name the field.
    subject = subject_phrase(text, label, tag, embed, min_similarity=-1.0 if bare_name else FIELD_MIN_SIMILARITY)
    # A bare name is "for" its field, unless the phrase says what kind of thing it is ("WebSeer: search agent").
    longer = f"{label}: {subject}" if bare_name and _KIND_RE.search(subject) else f"{label} for {subject}"
    fits = len(longer) <= MAX_LABEL_CHARS and len(longer.split()) <= max_words
    return longer if subject and fits else label


# --------------------------------------------------------------------------
# Assembly
# --------------------------------------------------------------------------


def _balance_brackets(label: str) -> str:
    """A cut can leave half a parenthesis or quotation ('Attack "Daze'); drop brackets unless they
    pair up, and double quotes unless they pair up."""
    if label.count('"') % 2:
        label = label.replace('"', "")
    if label.count("(") == label.count(")") and label.count("[") == label.count("]"):
        return label
    return re.sub(r"\s*[()\[\]]\s*", " ", label)


def _bound_length(label: str, max_words: int) -> str:
    """Enforce the word and character limits without cutting mid-word."""
    label = _balance_brackets(label.replace("$", "").replace("\\", ""))
    # A name's math dropped leaves its hyphen ("$SE(3)$-equivariant policy" → "-equivariant policy").
    label = re.sub(r"\s+", " ", label).strip(" -" + _QUOTES)
    words = label.split(" ")[: max(max_words, 1)]
    words = _trim_trailing(words) or words  # bracket removal may expose a stop word
    while len(words) > 1 and len(" ".join(words)) > MAX_LABEL_CHARS:
        words = _trim_trailing(words[:-1]) or words[:1]
    return " ".join(words)[:MAX_LABEL_CHARS].strip()


def _capitalise(text: str) -> str:
    # Only ASCII: upper-casing "π-invariant" to "Π-invariant" changes its meaning.
    return text[:1].upper() + text[1:] if text[:1].isascii() else text


def make_label(abstract: str, max_words: int = GIST_MAX_WORDS + 1 + SUBJECT_MAX_WORDS, embed: Embed | None = None) -> str:
    """Return a short, title-like display label built only from ``abstract``; `embed` (the
    embedding model) picks its subject phrase by meaning, else the most repeated phrase is taken.

    "Name: gist" when the abstract introduces a named method, system,
    benchmark or dataset; otherwise the gist of its contribution sentence.
    Never empty for a non-empty abstract, at most MAX_LABEL_CHARS characters and `max_words` words.
    """
    gist_words = min(max_words, GIST_MAX_WORDS)
    text = without_markup(abstract)
    sentences = split_sentences(text)
    label = ""
    name = find_name(sentences, text)
    verbs, tag = verbs_in(text) | CONTRIBUTION_VERBS, make_tagger()
    if name is not None:
        # A word in -s between the name and an article is its verb ("RLDP adds a simple
        # regularization"; not "FooNet embeddings capture ...").
        after_name = r"(?<![\w-])" + re.escape(name.text) + r"\s+(is|[a-z]{3,}(?<!s)s)\s+(?:an?|the|its|their|our|this|these|both|each)\b"
        verbs |= {m.group(1).lower() for m in re.finditer(after_name, text)}
        gist = _named_gist(name, sentences, text, gist_words, verbs, tag)
        label = f"{name.text}: {gist}" if gist else name.text
    if not label:
        # The contribution, else the abstract's subject phrase, else its opening.
        label = _contribution_gist(sentences, gist_words, verbs, tag)
        if not label or _ANAPHORIC_RE.match(label):
            label = subject_phrase(text, "", tag, embed) or label or _opening_gist(sentences, gist_words, verbs, tag)
        label = _APPOSITIVE_GIST_RE.sub(r"\1: \2", _capitalise(label))
    label = _bound_length(label, gist_words)
    if label:
        label = _with_subject(label, text, max_words, bare_name=name is not None and label == name.text, tag=tag, embed=embed)
    if not label:
        # Abstracts that are all math or symbols: any words beat an empty label.
        label = _bound_length(re.sub(r"[$\\{}^_]", " ", abstract), max_words) or "Untitled paper"
    return label
