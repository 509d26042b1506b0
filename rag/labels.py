"""Short display labels for papers that have no title, built from the abstract.

Why this is hand-written: no library turns an abstract into a title-like
label (keyword extractors return bags of words, not "Name: gist"), an LLM is
not available at ingest time, and labels must be deterministic so that ids
and what users see stay stable across re-ingests. The heuristics below were
tuned by comparing labels with the true titles of real papers.

Shape of a label: "<Name>: <gist>" when the abstract introduces a named
method/system/benchmark ("we propose WinT3R, a feed-forward ..."), otherwise
the gist of the contribution sentence (or of the first sentence).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Users see labels in a one-line list; longer strings get truncated by the UI.
MAX_LABEL_CHARS = 100

# "A few words of gist" after a name: enough to tell papers apart, short
# enough to read like a title.
NAMED_GIST_WORDS = 8

# A clause boundary only ends a gist once the gist says something; cutting
# "a plug-and-play module that ..." at "that" leaves a uselessly vague label.
MIN_NAMED_GIST_WORDS = 3
# Without a name the gist is the only distinctive part, so keep more of it.
MIN_FALLBACK_GIST_WORDS = 6

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

# Vague openers of a descriptive phrase; "a novel, simple yet effective
# framework" carries no more information than "framework". Words that do
# carry meaning in titles ("unified", "efficient", "robust") are kept.
LEADING_FILLER = frozenset(
    {
        "a", "an", "the", "our", "novel", "new", "simple", "yet", "and",
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

# Words after which a sentence does not end, so a following capital letter
# does not start a new sentence.
ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "vs.", "cf.", "etc.", "Fig.", "Eq.", "resp.", "approx.")

# Greek letters are common in method names ("$\pi$-Invariant"); keep them
# readable instead of dropping them with the rest of the math.
GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε",
    "varepsilon": "ε", "theta": "θ", "lambda": "λ", "mu": "µ", "pi": "π",
    "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "psi": "ψ", "omega": "ω",
}

# Adverbs between subject and verb: "we then propose", "we further introduce".
_ADVERBS = r"(?:(?:\w+ly|then|also|further|first|finally|now|thus|therefore|here)\s+)*"
_INTRO_VERB = (
    r"(?:propose|introduce|present|develop|design|build|release|construct|curate"
    r"|create|contribute|offer|unveil|establish|devise|formulate)(?:s|d|ed|ing)?"
)
# Papers that build several named things ("we construct dataset D ... we
# develop model M ... we propose framework F") headline the one they propose.
_HEADLINE_VERBS = ("propose", "introduce", "present")
# Text directly before a name: "we propose X", "this paper introduces the X".
_INTRO_DIRECT_RE = re.compile(r"\b(" + _INTRO_VERB + r")\s+(?:(?:the|our)\s+)?[\"“]?$", re.IGNORECASE)
# "we propose a new IS framework X" / "we introduce a benchmark, X": a few
# words between the verb and the name, but no preposition (that would make X
# an argument, e.g. a dataset, rather than the thing introduced).
_INTRO_LOOSE_RE = re.compile(
    r"\b(" + _INTRO_VERB + r")\s+"
    r"(?:(?!(?:of|for|on|in|with|to|from|by|via|and|or|using|over|across|under|into|at|between)\b)"
    r"(?:[\w-]+|\([^()]*\)),?\s+){1,6}$"
)
# The introducing verb must have the authors as subject; "Smith et al.
# introduced X" names prior work, not this paper's contribution.
_OWN_WORK_RE = re.compile(r"\b(?:we|our|us|here|this\s+(?:paper|work|study|article))\b", re.IGNORECASE)
# "we propose a method ... Full Name (ACR)", but not "the recently proposed".
_INTRO_ELSEWHERE_RE = re.compile(r"\b(?:we|this\s+(?:paper|work))\s+" + _ADVERBS + _INTRO_VERB + r"\b", re.IGNORECASE)
_NAMING_RE = re.compile(
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
_CONTRIBUTION_RE = re.compile(
    r"\bwe\s+" + _ADVERBS + r"(?:propose|introduce|present)\b|"
    r"\bthis\s+(?:paper|work|study)\b|\bin\s+this\s+work\b",
    re.IGNORECASE,
)
# Papers without a "we propose" sentence still say what they do ("we show",
# "we study"); that beats the first sentence, which is usually background.
_FINDING_RE = re.compile(
    r"\bwe\s+" + _ADVERBS + r"(?:study|investigate|analy[sz]e|show|prove|develop|design|provide|establish"
    r"|demonstrate|identify|derive|examine|explore|formali[sz]e|characteri[sz]e|revisit|address)\b",
    re.IGNORECASE,
)
# "we address this gap by providing ...": the object is filler, the means is the gist.
_FILLER_OBJECT_RE = re.compile(
    r"^(?:this|these|the|such)\s+(?:\w+\s+){0,2}?(?:gaps?|issues?|problems?|challenges?|questions?"
    r"|limitations?|shortcomings?|study|work|paper)\s+(?:by|through|via|with|and\s+\w+)\s+",
    re.IGNORECASE,
)
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
    r"^.*?\b(?:we|this\s+(?:paper|work|study))\s+" + _ADVERBS + r"\w+[\s,]+"
    r"(?:(?:that|how|whether|what|why|when)\s+)?",
    re.IGNORECASE,
)
# A name token: word characters with internal hyphens or version dots
# ("ReST-KV", "Wan2.1"); other dots end sentences, even without a space.
_TOKEN_RE = re.compile(r"[^\W_](?:\w|-(?=[^\W_])|\.(?=\d))*")
_PREPOSITION_BEFORE_RE = re.compile(r"\b(?:for|of|in|on|to|from|with|under|about)\s*$", re.IGNORECASE)
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
# "we propose a novel NAB method that ...": a coined token followed by one of
# these nouns and then a clause is the name of the method; followed by other
# words ("optimal transport (OT) problems") it is a topic used as a modifier.
_NAME_HEAD_NOUN_RE = re.compile(
    r"^\s+(?:method|framework|model|approach|algorithm|benchmark|dataset|architecture|module|mechanism"
    r"|strategy|technique|system|pipeline|paradigm|agent|network|metric|suite|library|toolkit|engine"
    r"|platform|protocol|family|series|loss|layer|attack|scheme|solver|optimizer|policy)s?"
    r"(?=\s*(?:$|[,.;:(—]|\s(?:that|which|to|for|with|based|designed|tailored|where|whose|consisting)\b))"
)
_CLAUSE_AFTER_RE = re.compile(r"^\s+(?:that|which|is|was|to|for|with)\b")
_QUOTES = "\"“”'‘’"


@dataclass(frozen=True)
class _Name:
    """The name a paper gives its contribution, and the mention that introduced it."""

    text: str
    sentence: str
    start: int
    end: int


# --------------------------------------------------------------------------
# Cleaning
# --------------------------------------------------------------------------


def _unwrap_math(match: re.Match[str]) -> str:
    """Keep math that is part of a name ("H$^3$DP", "$\\texttt{Foo}$"), drop formulas."""
    body = re.sub(r"\\([A-Za-z]+)", lambda m: GREEK.get(m.group(1), f"\\{m.group(1)}"), match.group(1))
    residue = " ".join(re.sub(r"[\^_{}]", "", body).split())
    return residue if re.fullmatch(r"[\w. -]+", residue) else ""


def _clean(text: str) -> str:
    """Remove LaTeX, Markdown and URLs so only readable words remain."""
    text = re.sub(r"https?://\S+", "", text)
    # Words hyphenated across lines ("Agent-\nbenchmark", or "Agent- benchmark"
    # once whitespace is normalised), but not "pre- and post-training".
    text = re.sub(r"(?<=\w)-\s*\n\s*(?=\w)|(?<=[A-Za-z])- (?!(?:and|or|to|vs)\b)(?=[a-z])", "-", text)
    text = re.sub(r"[\u2010\u2011]", "-", text)  # Unicode hyphens would split names
    # Citations and links are noise in a title ("Di[M]O zhu2025di").
    text = re.sub(r"\\(?:cite[a-z]*|ref|eqref|url|href|footnote)\*?(?:\[[^\]]*\])*\{[^{}]*\}", "", text)
    for _ in range(2):  # formatting commands may be nested once
        text = re.sub(
            r"\\(?:textbf|textit|textsc|texttt|textrm|emph|mathrm|mathbf|mathit|mathsf|mathtt|mathcal"
            r"|mathbb|boldsymbol|text|underline)\s*\{([^{}]*)\}",
            r"\1",
            text,
        )
    # Inline math only: "$\textbf{DA}$$^{2}$" is two adjacent formulas, not display math.
    text = re.sub(r"\$([^$]*)\$", _unwrap_math, text)
    text = re.sub(r"\\[A-Za-z]+\*?", "", text)
    text = re.sub(r"[$\\{}`]", "", text)
    text = text.replace("**", "").replace("__", "")
    text = re.sub(r"(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)", "", text)
    text = re.sub(r"(?<=\w)–(?=\w)", "-", text)  # en dash used as a hyphen
    text = re.sub(r"\s*(?:---|--|—|–)\s*", " — ", text)
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s+([,.;:)])", r"\1", text)
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r"\(\s*\)", "", text)
    return text.strip()


def _split_sentences(text: str) -> list[str]:
    """Split on sentence punctuation, keeping common abbreviations intact."""
    sentences: list[str] = []
    for piece in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(\[])", text):
        if sentences and sentences[-1].endswith(ABBREVIATIONS):
            sentences[-1] += " " + piece
        else:
            sentences.append(piece)
    return [s for s in sentences if s.strip()]


# --------------------------------------------------------------------------
# Recognising names
# --------------------------------------------------------------------------


def _is_generic(token: str) -> bool:
    upper = token.upper()
    return upper in GENERIC_ACRONYMS or (token.endswith("s") and upper[:-1] in GENERIC_ACRONYMS)


def _part_is_coined(part: str) -> bool:
    """Does one hyphen-separated part look invented (CamelCase, acronym, digits)?"""
    letters = [c for c in part if c.isalpha()]
    if not letters or _is_generic(part):
        return False
    # Sizes, ordinals and dimensions ("7B", "2nd", "3D") are not names.
    if re.fullmatch(r"\d+[A-Za-z]{1,2}", part):
        return False
    uppers = sum(c.isupper() for c in letters)
    if any(c.isdigit() for c in part):
        # "WinT3R", "T1", "π3", "sleep2vec"
        return uppers >= 1 or not part.isascii() or bool(re.search(r"[a-z]\d+[a-z]", part))
    if len(letters) < 2:
        return False
    return uppers == len(letters) or uppers >= 2 or (part[0].islower() and uppers >= 1)


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


def _explains(words: list[str], acronym: str) -> bool:
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


def _expansion_before(prefix: str, acronym: str) -> str:
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
    while run and _explains(run[1:], acronym):
        run.pop(0)
    if not _explains(run, acronym) or (len(run) < 2 and "-" not in "".join(run)):
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
    expansion = _expansion_before(prefix, acronym)
    if not expansion:
        return 0
    head = prefix.rstrip()[: -len(expansion)]
    if _PREPOSITION_BEFORE_RE.search(head) or _is_modifier(after):
        # "methods for optimal transport (OT)", "optimal transport (OT) problems"
        return TOPIC_ACRONYM_SCORE
    bonus = _introduction_bonus("", after)
    if _NAMING_RE.search(head):
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
    if _NAMING_RE.search(before):
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
    if _NAMING_RE.search(before):
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


def _find_name(sentences: list[str], text: str) -> _Name | None:
    """Pick the mention with the strongest evidence of naming the paper's contribution."""
    best: tuple[int, int, _Name] | None = None
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
                best = (score, order, _Name(token, sentence, match.start(), match.end()))
    return _with_partner(best[2]) if best else None


def _with_partner(name: _Name) -> _Name:
    """"we propose WeightLens and CircuitLens, two ..." names both."""
    partner = re.match(r"^\s+and\s+(" + _TOKEN_RE.pattern + r")(?=\s*,)", name.sentence[name.end :])
    if partner and _is_coined(partner.group(1)):
        end = name.end + partner.end()
        return _Name(name.sentence[name.start : end], name.sentence, name.start, end)
    return name


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
        if not stripped or stripped.lower() in TRAILING_STOP:
            words.pop()
        elif stripped != words[-1]:
            words[-1] = stripped
        else:
            break
    return words


def _cut_phrase(phrase: str, max_words: int, min_words: int, boundaries: re.Pattern[str]) -> str:
    """Shorten a phrase at a clause boundary once it says enough."""
    phrase = _ENUMERATION_RE.sub("", _ASIDE_RE.sub(" ", phrase))
    words = _strip_parentheticals(phrase).strip(" ,;:—" + _QUOTES).split(" ")
    while words and words[0].lower().strip(",") in LEADING_FILLER:
        words.pop(0)
    phrase = " ".join(words)
    for boundary in boundaries.finditer(phrase):
        if len(phrase[: boundary.start()].split()) >= min_words:
            phrase = phrase[: boundary.start()]
            break
    return " ".join(_trim_trailing(phrase.split(" ")[:max_words]))


def _expansion_of(name: _Name, text: str) -> str:
    """The spelled-out form of a name: "MICLIP (Mechanism-...)" or "Full Name (ACR)"."""
    paren = re.match(r"^\s*\(([^()]*)\)", name.sentence[name.end :])
    if paren and " " in paren.group(1) and paren.group(1)[:1].isupper():
        return paren.group(1)
    for match in re.finditer(r"\(" + re.escape(name.text) + r"\)", text):
        expansion = _expansion_before(text[: match.start()], name.text)
        if expansion:
            return expansion
    return ""


def _description_candidates(name: _Name, sentences: list[str]) -> list[str]:
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
    naming = _NAMING_RE.search(before)
    described = before[: naming.start()] if naming else before
    # The last verb: in "Building on this, we design a new X" the first is framing.
    intros = list(re.finditer(r"\b" + _INTRO_VERB + r"\s+", described, re.IGNORECASE))
    if intros:
        candidates.append(described[intros[-1].end() :])
    elif naming:
        # "to pretrain a 3.8B-parameter SpeechLM, called X": the noun phrase.
        noun_phrase = re.search(r"\b(?:an?|the)\s+([^,;]*?),?\s*$", described, re.IGNORECASE)
        if noun_phrase:
            candidates.append(noun_phrase.group(1))
    candidates.extend(m.group(1) for m in map(appositive.search, sentences) if m)
    rest = re.sub(r"^\s*(?:\([^()]*\))?[\s,:—]*(?:that|which|to|for)?\s*", "", name.sentence[name.end :])
    candidates.append(rest)
    # Last resort, "X combines a ... setting": what the name does, as its subject.
    subject = re.compile(r"^(?:The\s+|Our\s+)?" + re.escape(name.text) + r"\s+(?!is\b|was\b)([a-z].*)")
    candidates.extend(m.group(1) for m in map(subject.match, sentences) if m)
    return candidates


def _named_gist(name: _Name, sentences: list[str], text: str, max_words: int) -> str:
    limit = min(NAMED_GIST_WORDS, max_words - 1)
    if limit <= 0:
        return ""
    expansion = _expansion_of(name, text)
    if expansion:
        return " ".join(_trim_trailing(_strip_parentheticals(expansion).split(" ")[:limit]))
    gists = [_cut_phrase(c, limit, MIN_NAMED_GIST_WORDS, _NAMED_BOUNDARY_RE) for c in _description_candidates(name, sentences)]
    # One word ("X: framework") says little; prefer a longer description if any.
    return next((g for g in gists if len(g.split()) >= 2), next((g for g in gists if g), ""))


def _fallback_gist(sentences: list[str], max_words: int) -> str:
    """Gist of the contribution sentence, else of a finding sentence, else of the first."""
    for pattern in (_CONTRIBUTION_RE, _FINDING_RE):
        for sentence in sentences:
            if pattern.search(sentence):
                gist = _CONTRIBUTION_PREFIX_RE.sub("", sentence, count=1)
                gist = _FILLER_OBJECT_RE.sub("", _LEADING_FRAME_RE.sub("", gist, count=1), count=1)
                cut = _cut_phrase(gist, max_words, MIN_FALLBACK_GIST_WORDS, _FALLBACK_BOUNDARY_RE)
                if len(cut.split()) >= 3:
                    return cut
    for sentence in sentences:
        cut = _cut_phrase(sentence, max_words, MIN_FALLBACK_GIST_WORDS, _FALLBACK_BOUNDARY_RE)
        if cut:
            return cut
    return ""


# --------------------------------------------------------------------------
# Assembly
# --------------------------------------------------------------------------


def _balance_brackets(label: str) -> str:
    """A cut can leave half a parenthesis; drop brackets unless they pair up."""
    if label.count("(") == label.count(")") and label.count("[") == label.count("]"):
        return label
    return re.sub(r"\s*[()\[\]]\s*", " ", label)


def _bound_length(label: str, max_words: int) -> str:
    """Enforce the word and character limits without cutting mid-word."""
    label = _balance_brackets(label.replace("$", "").replace("\\", ""))
    label = re.sub(r"\s+", " ", label).strip(" " + _QUOTES)
    words = label.split(" ")[: max(max_words, 1)]
    words = _trim_trailing(words) or words  # bracket removal may expose a stop word
    while len(words) > 1 and len(" ".join(words)) > MAX_LABEL_CHARS:
        words = _trim_trailing(words[:-1]) or words[:1]
    return " ".join(words)[:MAX_LABEL_CHARS].strip()


def _capitalise(text: str) -> str:
    # Only ASCII: upper-casing "π-invariant" to "Π-invariant" changes its meaning.
    return text[:1].upper() + text[1:] if text[:1].isascii() else text


def make_label(abstract: str, max_words: int = 12) -> str:
    """Return a short, title-like display label built only from ``abstract``.

    "Name: gist" when the abstract introduces a named method, system,
    benchmark or dataset; otherwise the gist of its contribution sentence.
    Never empty for a non-empty abstract, at most MAX_LABEL_CHARS characters.
    """
    text = _clean(abstract)
    sentences = _split_sentences(text)
    label = ""
    name = _find_name(sentences, text)
    if name is not None:
        gist = _named_gist(name, sentences, text, max_words)
        label = f"{name.text}: {gist}" if gist else name.text
    if not label:
        label = _capitalise(_fallback_gist(sentences, max_words))
    label = _bound_length(label, max_words)
    if not label:
        # Abstracts that are all math or symbols: any words beat an empty label.
        label = _bound_length(re.sub(r"[$\\{}^_]", " ", abstract), max_words) or "Untitled paper"
    return label
