"""Find the coined name an abstract gives its own contribution ("we propose WinT3R, ...") and its spelled-out form."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.text import is_coined

# Evidence scores (see _occurrence_score). A name needs MIN_NAME_SCORE, so a
# coined token that is merely mentioned (a baseline, a dataset) cannot win.
MIN_NAME_SCORE = 5
NAMING_SCORE = 10  # "called X", "dubbed X": the authors say it is a name
HEADLINE_INTRO_SCORE = 10  # "we propose/introduce/present X"
OTHER_INTRO_SCORE = 8  # "we develop/construct/curate X": often a by-product
LOOSE_INTRO_SCORE = 7  # "we propose a new method X"
INTRO_ELSEWHERE_SCORE = 5  # "we propose ... Full Name (ACR)" later in the sentence
BARE_ACRONYM_SCORE = 2  # "Full Name (ACR)" with nothing else: often a topic
TOPIC_ACRONYM_SCORE = 1  # "methods for Full Name (ACR)": the task, not a name
APPOSITIVE_BONUS = 5  # "X, a ..." says what X is
IS_A_BONUS = 4  # "The X is a ..."
EXPANSION_BONUS = 4  # "X (Full Expansion)"
WHICH_BONUS = 3  # "X, which ..."
# Repetition is evidence of being the paper's subject, but only a little and
# only for a mention that already looks introduced: baselines repeat too.
MAX_FREQUENCY_BONUS = 3
MIN_FREQUENCY_SUPPORTED_SCORE = 4

# Generic acronyms and well-known building blocks: coined-looking, but they
# name a field or a component, never the paper's own contribution.
GENERIC_ACRONYMS = frozenset(
    {
        "AI", "API", "ASR", "CNN", "COT", "CPU", "CV", "DIT", "DL", "DNN",
        "DPO", "FID", "GAN", "GNN", "GPU", "GRPO", "IID", "KL", "KV", "LLM",
        "LM", "LORA", "LRM", "LVLM", "MCMC", "MDP", "ML", "MLLM", "MLP", "MOE",
        "MSE", "NLP", "NN", "ODE", "OOD", "PDE", "POMDP", "PPO", "QA", "RAG",
        "RL", "RLHF", "RLVR", "RNN", "SAE", "SDE", "SFT", "SGD", "SNN", "SOTA",
        "SSM", "TTS", "VAE", "VIT", "VLA", "VLM", "VQA", "1D", "2D", "3D", "4D",
    }
)

# Adverbs between subject and verb: "we then propose", "we further introduce".
ADVERBS = r"(?:(?:\w+ly|then|also|further|first|finally|now|thus|therefore|here)\s+)*"
INTRO_VERB = (
    r"(?:propose|introduce|present|develop|design|build|release|construct|curate"
    r"|create|contribute|offer|unveil|establish|devise|formulate)(?:s|d|ed|ing)?"
)
# Papers that build several named things ("we construct dataset D ... we
# develop model M ... we propose framework F") headline the one they propose.
_HEADLINE_VERBS = ("propose", "introduce", "present")
# Text directly before a name: "we propose X", "this paper introduces the X".
_INTRO_DIRECT_RE = re.compile(r"\b(" + INTRO_VERB + r")\s+(?:(?:the|our)\s+)?[\"“]?$", re.IGNORECASE)
# "we propose a new IS framework X" / "we introduce a benchmark, X": a few
# words between the verb and the name, but no preposition (that would make X
# an argument, e.g. a dataset, rather than the thing introduced).
_INTRO_LOOSE_RE = re.compile(
    r"\b(" + INTRO_VERB + r")\s+"
    r"(?:(?!(?:of|for|on|in|with|to|from|by|via|and|or|using|over|across|under|into|at|between)\b)"
    r"(?:[\w-]+|\([^()]*\)),?\s+){1,6}$"
)
# The introducing verb must have the authors as subject; "Smith et al.
# introduced X" names prior work, not this paper's contribution.
_OWN_WORK_RE = re.compile(r"\b(?:we|our|us|here|this\s+(?:paper|work|study|article))\b", re.IGNORECASE)
# "we propose a method ... Full Name (ACR)", but not "the recently proposed".
_INTRO_ELSEWHERE_RE = re.compile(r"\b(?:we|this\s+(?:paper|work))\s+" + ADVERBS + INTRO_VERB + r"\b", re.IGNORECASE)
NAMING_RE = re.compile(
    r"(?:\b(?:called|named|dubbed|termed|coined|namely|denoted(?:\s+by)?|referred\s+to|abbreviated)(?:\s+as)?"
    r"|\bwe\s+(?:call|name|term|dub|coin)(?:\s+(?:it|this|them|these|our\s+[\w-]+))?(?:\s+as)?"
    r"|\bwe\s+refer\s+to\s+(?:it|this|them|these|our\s+[\w-]+(?:\s+[\w-]+)?)\s+as"
    r"|\bour\s+(?:[\w-]+\s+)?(?:method|model|framework|approach|system|algorithm|benchmark|dataset"
    r"|architecture|pipeline|agent|tool|solution|technique|work)\s*,)"
    r"\s*[:,]?\s*[\"“'‘]?$",
    re.IGNORECASE,
)
# What follows a name that introduces it: "X, a ...", "X — a ...", "X: an ...".
_APPOSITIVE_RE = re.compile(
    r"^\s*(?:\([^()]*\)\s*)?[,:—]\s*(?:which\s+is\s+)?(?:a|an|the|our|two|three|both)\b"
)
_WHICH_RE = re.compile(r"^\s*(?:\([^()]*\)\s*)?,\s*(?:which|that)\b")
_IS_A_RE = re.compile(r"^\s*(?:\([^()]*\)\s*)?(?:is|as)\s+(?:\w+ly\s+)?(?:a|an|the)\b")
_SUBJECT_POSITION_RE = re.compile(r"(?:^|\b(?:the|our|The|Our)\s+)$")
_FULL_EXPANSION_AFTER_RE = re.compile(r"^\s*\([A-Z][^()]*\s[^()]*\)")
# A name token: word characters with internal hyphens or version dots
# ("ReST-KV", "Wan2.1"); other dots end sentences, even without a space.
_TOKEN_RE = re.compile(r"[^\W_](?:\w|-(?=[^\W_])|\.(?=\d))*")
_PREPOSITION_BEFORE_RE = re.compile(
    r"\b(?:for|of|in|on|to|from|with|under|about"
    # A tool the work uses or a foil it is set against, perhaps with a word or two of its own ("using
    # Principal Component Analysis (PCA)", "in contrast to standard autoregressive language models
    # (ARLMs)"), is no name of its own; but a kind of thing "via"/"by"/"based on" one names its own
    # ("a new framework via dynamic token routing (DTR)": _OWN_MEANS_RE), and so does "by building".
    r"|(?:by|via|using|uses?|employ(?:s|ing)?|leverag(?:e|es|ing)|adopt(?:s|ing)?|unlike|than|contrast\s+to"
    r"|compared\s+(?:to|with)|such\s+as|including|based\s+on)"
    r"(?:\s+(?!introduc|propos|present|develop|design|build|construct|creat)[a-z][\w-]*){0,2})\s*$",
    re.IGNORECASE,
)
# "we propose a novel NAB method that ...": a coined token followed by one of
# these nouns and then a clause is the name of the method; followed by other
# words ("optimal transport (OT) problems") it is a topic used as a modifier.
# The kinds of thing a paper names ("a feed-forward reconstruction model", "a search agent").
KIND_NOUNS = (
    r"(?:method|framework|model|approach|algorithm|benchmark|dataset|architecture|module|mechanism"
    r"|strategy|technique|system|pipeline|paradigm|agent|network|metric|suite|library|toolkit|engine"
    r"|platform|protocol|family|series|loss|layer|attack|scheme|solver|optimizer|policy)"
)
_OWN_MEANS_RE = re.compile(r"\b" + KIND_NOUNS + r"s?\s+(?:via|by|using|based\s+on)\s+(?:[\w-]+\s+){0,2}$", re.IGNORECASE)
_NAME_HEAD_NOUN_RE = re.compile(
    r"^\s+" + KIND_NOUNS + r"s?"
    r"(?=\s*(?:$|[,.;:(—]|\s(?:that|which|to|for|with|based|designed|tailored|where|whose|consisting)\b))"
)
_CLAUSE_AFTER_RE = re.compile(r"^\s+(?:that|which|is|was|to|for|with)\b")


@dataclass(frozen=True)
class Name:
    """The name a paper gives its contribution, and the mention that introduced it."""

    text: str
    sentence: str
    start: int
    end: int


def _is_generic(token: str) -> bool:
    upper = token.upper()
    return upper in GENERIC_ACRONYMS or (token.endswith("s") and upper[:-1] in GENERIC_ACRONYMS)


def _part_is_coined(part: str) -> bool:
    """Does one hyphen-separated part look invented? `rag.text.is_coined`, less what looks coined
    but never names a contribution: a generic acronym ("LLM"), a size, ordinal or dimension ("7B",
    "2nd", "3D"), digits after plain lower-case letters ("x2"; "sleep2vec" and "WinT3R" stay)."""
    if not is_coined(part) or _is_generic(part) or re.fullmatch(r"\d+[A-Za-z]{1,2}", part):
        return False
    if any(c.isdigit() for c in part):
        return any(c.isupper() for c in part) or not part.isascii() or bool(re.search(r"[a-z]\d+[a-z]", part))
    return True


def _is_coined(token: str) -> bool:
    parts = token.split("-")
    # "CLIP-based", "LLM-guided": adjectives built on a name, not names.
    if len(parts) > 1 and len(parts[-1]) > 2 and parts[-1].isalpha() and parts[-1].islower():
        return False
    if _is_generic(token):
        return False
    if any(_part_is_coined(p) for p in parts):
        return True
    # "X-VLA", "α-DPO": a generic acronym specialised by a symbol is a name.
    return len(parts) > 1 and any(_is_generic(p) for p in parts) and all(
        _is_generic(p) or len(p) == 1 for p in parts
    )


def _is_plain_capitalised(token: str) -> bool:
    """Ordinary capitalised word or compound ("Falcon", "Time-to-Move")."""
    parts = token.split("-")
    return (
        token[:1].isupper()
        and len(token) > 2
        and not all(_is_generic(p) for p in parts)
        and all(
            p.isalpha() and (len(p) == 1 or p.islower() or p[1:].islower() or _is_generic(p)) for p in parts
        )
    )


def _is_lowercase_compound(token: str) -> bool:
    """"self-study": a name only when the authors plainly introduce it as one."""
    parts = token.split("-")
    return len(parts) > 1 and all(p.isalpha() and p.islower() for p in parts)


def explains(words: list[str], acronym: str) -> bool:
    """Can the acronym's letters be read, in order, out of the words?

    The Schwartz-Hearst test for abbreviation definitions: letters may come
    from inside words ("DISCO" from "Diversifying Sample Condensation"), but
    the first one must start a word.
    """
    letters = [c.lower() for c in acronym if c.isalpha()]
    long_form = " ".join(words).lower()
    position = len(long_form) - 1
    for index in range(len(letters) - 1, -1, -1):
        while position >= 0 and (
            long_form[position] != letters[index]
            or (index == 0 and position > 0 and long_form[position - 1].isalnum())
        ):
            position -= 1
        if position < 0:
            return False
        position -= 1
    return bool(letters)


def expansion_before(prefix: str, acronym: str) -> str:
    """The spelled-out form before "(ACRONYM)", e.g. "Label-Aware Noise Elimination"."""
    words = [w for w in prefix.rstrip().split(" ") if w]
    # Expansions may carry unabbreviated words ("Patch-based representation
    # learning for time-series Anomaly detection (PaAno)").
    limit = sum(c.isupper() for c in acronym) + 8
    run: list[str] = []
    for word in reversed(words):
        if word[-1] in ",;:." or len(run) >= limit or not re.fullmatch(r"[\w'’-]+", word):
            break
        run.insert(0, word)
    # Leading words the acronym does not need are context, not part of the name.
    while run and explains(run[1:], acronym):
        run.pop(0)
    if not explains(run, acronym) or (len(run) < 2 and "-" not in "".join(run)):
        return ""
    return " ".join(run)


def _intro_strength(before: str) -> int:
    """How directly the preceding words introduce what follows as the contribution."""
    direct = _INTRO_DIRECT_RE.search(before)
    if direct and _OWN_WORK_RE.search(before[: direct.start()]):
        return HEADLINE_INTRO_SCORE if direct.group(1).lower().startswith(_HEADLINE_VERBS) else OTHER_INTRO_SCORE
    loose = _INTRO_LOOSE_RE.search(before)
    if loose and _OWN_WORK_RE.search(before[: loose.start()]):
        return LOOSE_INTRO_SCORE
    return 0


def _introduction_bonus(before: str, after: str) -> int:
    """Evidence from what follows a mention: "X, a ...", "The X is a ...", "X (Full Name)"."""
    if _APPOSITIVE_RE.match(after):
        return APPOSITIVE_BONUS
    if _IS_A_RE.match(after) and _SUBJECT_POSITION_RE.search(before):
        return IS_A_BONUS
    if _FULL_EXPANSION_AFTER_RE.match(after):
        return EXPANSION_BONUS
    if _WHICH_RE.match(after):
        return WHICH_BONUS
    return 0


def _acronym_definition_score(prefix: str, acronym: str, after: str) -> int:
    """Score "Full Name (ACR)": a name if introduced, a task if after a preposition."""
    if not _is_coined(acronym):
        return 0
    expansion = expansion_before(prefix, acronym)
    if not expansion:
        return 0
    head = prefix.rstrip()[: -len(expansion)]
    if (_PREPOSITION_BEFORE_RE.search(head) and not _OWN_MEANS_RE.search(head)) or _is_modifier(after):
        # "methods for optimal transport (OT)", "optimal transport (OT) problems"
        return TOPIC_ACRONYM_SCORE
    bonus = _introduction_bonus("", after)
    if NAMING_RE.search(head):
        return NAMING_SCORE + bonus
    strength = _intro_strength(head)
    if not strength and _INTRO_ELSEWHERE_RE.search(head):
        strength = INTRO_ELSEWHERE_SCORE
    return (strength or BARE_ACRONYM_SCORE) + bonus


def _plain_word_score(before: str, after: str) -> int:
    """Ordinary words ("Falcon") are names only where the authors clearly name them."""
    if re.match(r"^\s+[A-Z]", after) or re.search(r"\b[A-Z][\w-]*\s+$", before):
        # "called Diffusion Forcing": a multi-word phrase we cannot delimit.
        return 0
    if re.match(r"^\s*\(" + _TOKEN_RE.pattern + r"\)", after):
        # "Mixture-of-Basis-Experts (MoBE)": the acronym is the name.
        return 0
    if NAMING_RE.search(before):
        return NAMING_SCORE
    if not re.match(r"^\s*[,(:—]", after):
        return 0
    direct = _INTRO_DIRECT_RE.search(before)
    if direct and _OWN_WORK_RE.search(before[: direct.start()]):
        return HEADLINE_INTRO_SCORE + _introduction_bonus(before, after)
    if before.endswith(", ") and _intro_strength(before) == LOOSE_INTRO_SCORE:
        return LOOSE_INTRO_SCORE + _introduction_bonus(before, after)  # "a novel module, Mod-Adapter,"
    return 0


def _is_modifier(after: str) -> bool:
    """Is the mention used attributively ("OT problems") rather than as a head noun?"""
    return bool(re.match(r"^\s+[a-z]", after)) and not (
        _CLAUSE_AFTER_RE.match(after) or _NAME_HEAD_NOUN_RE.match(after)
    )


def _occurrence_score(sentence: str, start: int, end: int, token: str, seen_before: bool = False) -> int:
    """Evidence that this mention introduces the token as the paper's name.

    ``seen_before``: the token occurred earlier in the abstract, so a loose
    "we propose a new X method" more likely reuses a known term.
    """
    before, after = sentence[:start], sentence[end:]
    if after.startswith("("):
        return 0  # "SE(3)", "O(n)": notation, not a name
    if before.rstrip().endswith("(") and after.startswith(")"):
        return _acronym_definition_score(before.rstrip()[:-1], token, after[1:])
    if _is_plain_capitalised(token):
        return _plain_word_score(before, after)
    if _is_lowercase_compound(token):
        # "we propose self-study, a ...": weak, a coined acronym elsewhere wins.
        return MIN_NAME_SCORE if _plain_word_score(before, after) else 0
    if not _is_coined(token):
        return 0
    if NAMING_RE.search(before):
        return NAMING_SCORE + _introduction_bonus(before, after)
    strength = _intro_strength(before)
    if strength == LOOSE_INTRO_SCORE and (seen_before or _is_modifier(after)):
        # "we present a 3D CAD model dataset": CAD modifies the noun, it is not the name.
        strength = 0
    return strength + _introduction_bonus(before, after)


def _first_own_work_index(sentences: list[str]) -> int:
    """Sentences before the authors first speak of their work are background."""
    for index, sentence in enumerate(sentences):
        if _OWN_WORK_RE.search(sentence):
            return index
    return 0  # no marker at all: we cannot tell background apart


def _count_mentions(token: str, text: str) -> int:
    return len(re.findall(r"(?<![\w-])" + re.escape(token) + r"(?![\w-])", text))


def find_name(sentences: list[str], text: str) -> Name | None:
    """Pick the mention with the strongest evidence of naming the paper's contribution."""
    best: tuple[int, int, Name] | None = None
    order = 0
    own_work_start = _first_own_work_index(sentences)
    background = " ".join(sentences[:own_work_start])
    seen: set[str] = set()
    for index, sentence in enumerate(sentences):
        for match in _TOKEN_RE.finditer(sentence):
            token = match.group(0)
            seen_before = token in seen
            seen.add(token)
            score = _occurrence_score(sentence, match.start(), match.end(), token, seen_before)
            if score <= 0:
                continue
            # Background sentences define prior work, except for the
            # self-description "The X is the first ...".
            self_description = match.start() == 4 and sentence.startswith("The ")
            if index < own_work_start and not self_description:
                continue
            # A token the background already used ("PTQ") is an existing
            # concept; only an explicit naming makes it the paper's own.
            if score < NAMING_SCORE and not self_description and _count_mentions(token, background):
                continue
            if score >= MIN_FREQUENCY_SUPPORTED_SCORE and not _is_lowercase_compound(token):
                score += min(_count_mentions(token, text) - 1, MAX_FREQUENCY_BONUS)
            order -= 1  # on ties the earlier mention wins: the main contribution comes first
            if score >= MIN_NAME_SCORE and (best is None or (score, order) > best[:2]):
                best = (score, order, Name(token, sentence, match.start(), match.end()))
    return _with_partner(best[2]) if best else None


def _with_partner(name: Name) -> Name:
    """"we propose WeightLens and CircuitLens, two ..." names both."""
    partner = re.match(r"^\s+and\s+(" + _TOKEN_RE.pattern + r")(?=\s*,)", name.sentence[name.end :])
    if partner and _is_coined(partner.group(1)):
        end = name.end + partner.end()
        return Name(name.sentence[name.start : end], name.sentence, name.start, end)
    return name


def expansion_of(name: Name, text: str) -> str:
    """The spelled-out form of a name: "MICLIP (Mechanism-...)" or "Full Name (ACR)"."""
    paren = re.match(r"^\s*\(([^()]*)\)", name.sentence[name.end :])
    if paren and " " in paren.group(1) and paren.group(1)[:1].isupper():
        return paren.group(1)
    for match in re.finditer(r"\(" + re.escape(name.text) + r"\)", text):
        expansion = expansion_before(text[: match.start()], name.text)
        if expansion:
            return expansion
    return ""
