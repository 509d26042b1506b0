"""Rules about text, one definition each, used everywhere (the app's display code included):
sentences, key terms, numbers, coined names, citations, language, instruction-like text, and
abstracts' LaTeX as a reader sees it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

# -- sentences ----------------------------------------------------------------------------

# Hand-written because the library splitters either need a model download at run time
# (nltk punkt, spaCy) or split on every period ("e.g.", "et al.", "3.5"), and this runs on
# every abstract at ingest, where a per-abstract cost of milliseconds would add minutes.
_ABBREVIATIONS = frozenset("e.g i.e et al etc vs cf fig figs eq eqs sec ref refs approx resp w.r.t i.i.d dr prof".split())
# "No. 5" abbreviates "number", but "the answer is no. We ..." ends a sentence.
_NUMBER_ABBREVIATIONS = frozenset({"no", "nos"})
# An initial comes before a name, never before these ("batch size B. We show ...").
_NOT_A_NAME = re.compile(r"(?:We|Our|The|This|These|It)\b")
# After a sentence end: a capital, a digit, or a lower-case list marker ("(i)", "(b)").
_BOUNDARY = re.compile(r"[.!?][\"'”’)\]]*\s+(?=[\"'“‘(\[$\\]?[A-Z0-9\u4e00-\u9fff]|\((?:[ivx]{1,4}|[a-h])\)\s)|[。！？]\s*")


def split_sentences(text: str) -> list[str]:
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end()
        candidate = text[start:end].strip()
        word = candidate.rstrip(".!?\"'”’)] ").rsplit(" ", 1)[-1].lstrip("([{\"'“‘")
        last_word = word.lower()
        # "et al. Smith", "e.g. BERT", "No. 5" and initials like "J. Doe" are not sentence
        # ends; a lower-case or Greek letter ("with respect to n.", "tolerance ε.") is a variable.
        if (
            last_word in _ABBREVIATIONS
            or (last_word in _NUMBER_ABBREVIATIONS and text[end : end + 1].isdigit())
            or (len(word) == 1 and "A" <= word <= "Z" and not _NOT_A_NAME.match(text, end))
        ):
            continue
        if candidate:
            sentences.append(candidate)
        start = end
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


# -- citations: "[2]", "[1, 3]", "[1; 3]" ---------------------------------------------------

_CITED_NUMBERS = r"\d+(?:\s*[,;]\s*\d+)*"
CITATION = re.compile(rf"\[({_CITED_NUMBERS})\]")
# Citations opening a piece of text: "[2] Sparse ..." after a split at "... tokens. [2]".
LEADING_CITATIONS = re.compile(rf"^((?:\s*\[{_CITED_NUMBERS}\])+)\s*")
_CITATION_SEPARATOR = re.compile(r"\s*[,;]\s*")


def cited_numbers(group: str) -> list[int]:
    """The numbers of one citation's inside ("1, 3" or "1; 3")."""
    return [int(n) for n in _CITATION_SEPARATOR.split(group.strip())]


def citations(text: str) -> list[int]:
    """Every number cited in `text`, in order (repeats kept)."""
    return [n for group in CITATION.findall(text) for n in cited_numbers(group)]


def strip_citations(text: str) -> str:
    return " ".join(CITATION.sub(" ", text).split()).replace(" .", ".").replace(" ,", ",")


def cite(claim: str, ns: Sequence[int]) -> str:
    """The claim as an answer shows it: its own final punctuation replaced by "[n]." ."""
    claim = claim.rstrip().rstrip(".;,: ")
    return f"{claim} {''.join(f'[{n}]' for n in ns)}."


# -- key terms ----------------------------------------------------------------------------

WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*[A-Za-z0-9]|[A-Za-z]")
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below between both but by can could
    did do does doing down during each few for from further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so some
    such than that the their theirs them themselves then there these they this those through to too under until up very was we were what when
    where which while who whom why will with would you your yours yourself yourselves via using use used uses based paper papers work
    propose proposed proposes present presents show shows shown new approach method methods model models novel results result study
    introduce introduces introduced however thus therefore often many well within without across toward towards one two three may might""".split()
)
# Words every ML abstract uses: as a topic label or a title's subject they say nothing.
COMMON_ML_WORDS = frozenset(
    """learning neural network networks data training large performance task tasks language existing models framework problem
    experiments demonstrate achieve achieves various different improve improves improved state-of-the-art sota however while such
    both more less than first key significant significantly effective efficient efficiently novel propose proposed based art state
    significantly outperforms outperform benchmark benchmarks across wide range including through due time available open code
    approach approaches method methods work works establish established empirical deep provide provides show shows study studies
    result results paper introduce introduces present presents using use used enable enables allows new simple strong directly
    baseline baselines practical even best better identify identifies parameter parameters whether still furthermore moreover
    additionally specifically notably importantly finally overall analysis analyses remain remains remained remaining
    unclear challenging limited address addresses principled lower higher larger smaller""".split()
)
# Manner adverbs ("empirically", "successfully", "substantially") say how, never what: no label.
MANNER_ADVERB = re.compile(r"^[a-z]{4,}(?:ally|ully|ively|ntly|tly|ely|rly)$")
# The stop words that still begin or end a term of the field ("world models", "model merging").
TERM_HEADS = frozenset("model models method methods approach study".split())


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


def key_terms(text: str) -> set[str]:
    """Stemmed content words of at least three letters: what overlap between a question, a
    claim and an abstract is counted in."""
    # "LLMs" and "LLM" are one term; Snowball leaves acronyms' plural "s" on.
    words = [(w[:-1] if len(w) > 2 and w[:-1].isupper() and w.endswith("s") else w).lower() for w in WORD.findall(text)]
    return set(_stemmer().stemWords([w for w in words if w not in STOPWORDS and len(w) > 2]))


def stem_words(words: Sequence[str]) -> list[str]:
    """Each word's Snowball stem, in order."""
    return _stemmer().stemWords(list(words))


TERM_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")  # a word of `term_sequence`, in the same order


def term_sequence(text: str) -> list[str]:
    """The stemmed words of `text` in order, hyphenated words split ("key-value models" → key,
    valu, model): what a phrase is matched word for word against."""
    return _stemmer().stemWords([w.lower() for w in TERM_WORD.findall(text)])


# -- numbers ------------------------------------------------------------------------------

# 2.3, 45%, 10x, 1,024, 3×: numbers a claim states, compared without their unit.
_NUMBER = re.compile(r"(?<![A-Za-z\d.])\d+(?:[.,]\d+)*(?![A-Za-z]*\d)")


def says_phrase(text: str, phrase: str) -> bool:
    """Whether `text` has `phrase` as whole words, in any case: "ViT" is not in "activity", nor
    "RL" in "world"."""
    return re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", text, re.I) is not None


def numbers(text: str) -> set[str]:
    """Numbers as stated ("1,024" → "1024"); years and list markers included, units dropped."""
    return {n.replace(",", "").rstrip(".") for n in _NUMBER.findall(strip_citations(text))}


# -- coined names -------------------------------------------------------------------------


def is_coined(token: str) -> bool:
    """A coined name or acronym (ReST-KV, 3DGS, GPT-4, LoRA, SPA): letters with a capital after
    the first character, or letters mixed with digits. Plain capitalised words are not:
    "Transformer" at a sentence start is no name."""
    letters = [c for c in token if c.isalpha()]
    return len(token) >= 2 and bool(letters) and (any(c.isupper() for c in token[1:]) or any(c.isdigit() for c in token))


_NAME_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-+.]*[A-Za-z0-9+]")


# "50x", "1.33x", "1024x576": a quantity (numbers() reads it), not a name.
_QUANTITY = re.compile(r"\d+(?:\.\d+)?x(?:\d+)?")


def names(text: str) -> set[str]:
    """The coined names a text states, lower-cased: a claim's names must occur in what it cites."""
    tokens = (t.rstrip(".") for t in _NAME_TOKEN.findall(strip_citations(text)))
    return {token.lower() for token in tokens if is_coined(token) and not _QUANTITY.fullmatch(token)}


# "CLIP-style", "GPT-4-based": the name is the part before the suffix.
_NAME_SUFFIX = re.compile(r"-(?:style|based|like|aware|free|level|wise|specific|guided|driven)$")


def bare_name(name: str) -> str:
    return _NAME_SUFFIX.sub("", name)


# "Name: subtitle" titles name the contribution in at most this many words before the colon.
MAX_NAME_WORDS = 2


def title_name(title: str, title_is_generated: bool) -> str:
    """The name a paper gives its own contribution, as its title shows it ("WinT3R" of "WinT3R:
    Window-Based ..."), or "": the head of a "Name: subtitle" title of at most MAX_NAME_WORDS
    words with a coined word in it. A generated label's head is always the coined name the
    abstract introduces ("Name: description", "Name for field" or the name alone: rag/labels.py).
    Not every rare coined token of an abstract: on SciFact, ranking papers first that merely
    mention a rare gene name ("ALDH1") cost BM25 0.2 of nDCG@10."""
    head, colon, _ = title.partition(":")
    words = head.split()
    if not colon and title_is_generated and (len(words) == 1 or words[1:2] == ["for"]) and is_coined(words[0]):
        return words[0]  # a label that is the name alone, or the name "for" its field ("SureLock for diffusion LMs")
    if not colon or not 0 < len(words) <= MAX_NAME_WORDS:
        return ""
    return " ".join(words) if title_is_generated or any(is_coined(w) for w in words) else ""


# Where an English request's clauses part: a sentence's end, a dash, a colon, a semicolon; not
# after an abbreviation ("e.g. VLA policies") nor inside brackets.
_CLAUSE_BREAK = re.compile(r"(?<=[?!.])\s+(?=\S)|\s+[—–]\s+|\s+-\s+|:\s+|;\s+")
_ABBREVIATION = re.compile(r"(?:\b(?:" + "|".join(map(re.escape, sorted(_ABBREVIATIONS))) + r")\.|\b[A-Z]\.)$", re.I)


def request_clauses(request: str) -> list[str]:
    """A request cut at `_CLAUSE_BREAK`s outside brackets and not after an abbreviation (rag/theme_request.py)."""
    clauses: list[str] = []
    start = 0
    for match in _CLAUSE_BREAK.finditer(request):
        before = request[: match.start()]
        depth = before.count("(") - before.count(")") + before.count("（") - before.count("）")
        number = (before.split() or [""])[-1].rstrip(".").lower() in _NUMBER_ABBREVIATIONS and request[match.end() : match.end() + 1].isdigit()
        if depth > 0 or _ABBREVIATION.search(before) or number:  # ("the No. 1 method", as sentences_of reads it)
            continue
        clauses.append(request[start : match.start()])
        start = match.end()
    clauses.append(request[start:])
    return [c for c in clauses if c.strip()]


# -- language -----------------------------------------------------------------------------

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
CJK_RUN = re.compile(CJK.pattern + "+")


def chinese_runs(text: str) -> set[str]:
    """The runs of Chinese characters in `text` ("SureLock 减少了 FLOPs" → {"减少了"})."""
    return set(CJK_RUN.findall(text))


# Hand-written, not langdetect: it runs on every draft sentence, and langdetect called 103 of
# 11,902 ICLR abstract sentences not English ("Code is available at https://..." is "fr"), each a
# true sentence the checker would drop; this rule calls none of 42,570 non-English.
# Function words only English uses (no French "le", German "die" or Spanish "el" among them),
# and those of the other Latin-script languages a reader may ask in. Counted as whole words.
_ENGLISH = frozenset("the of and to is are in that this for with what which how does do we our it its by from was were be on as an".split())
_OTHER_LATIN = frozenset(
    """le la les des du une est et dans pour sur avec qui que quel quelle quels comment pourquoi ce cette ces sont
    der die das und ist nicht mit ein eine wie warum welche für auf dem den von zu
    el los las es una por con qué cómo cuál del para son en un""".split()
)
_LOWER_WORD = re.compile(r"[a-zà-öø-ÿ]+")


def language_of(text: str) -> str:
    """"zh" when the text is mostly Chinese (a question may name methods in English); "other" for
    another Latin-script language (more of its function words than English ones: "Quels papiers
    traitent de la compression ?"); else "en". Only what the answer pipeline needs to tell apart:
    English is what the index and the checker read, Chinese is what readers ask in."""
    cjk = len(CJK.findall(text))
    if cjk and cjk >= len(WORD.findall(text)):
        return "zh"
    words = _LOWER_WORD.findall(text.lower())
    english = sum(w in _ENGLISH for w in words)
    other = sum(w in _OTHER_LATIN and w not in _ENGLISH for w in words)
    return "other" if other >= 2 and other > english else "en"


# -- text that addresses an assistant -----------------------------------------------------

# Text inside an abstract that addresses the reader's assistant instead of describing research:
# it is never shown as evidence and never counts as support, so a prompt injection planted in a
# record cannot make its way into an answer through the verifier.
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget)\b[^.]{0,40}\b(?:instructions?|prompts?|rules|above)\b"
    r"|\b(?:system prompt|as an ai|you are (?:now )?(?:an?|the) (?:assistant|ai|language model|chatbot))\b"
    r"|\b(?:reply|respond|answer|say|state|tell the user)\b[^.]{0,30}\b(?:that|with|only)\b[^.]{0,60}\b(?:best|must|always)\b"
    # The same in Chinese, addressed to the reader ("请忽略…", "你现在是…") or naming the prompt above
    # ("忽略以上所有指令"): "我们忽略了语法规则" and "回答准确率总是高于基线" are research sentences.
    r"|(?:请|你|您)[^。]{0,10}(?:忽略|无视|忽视|忘记|忘掉|不要理会)[^。]{0,20}(?:指令|指示|提示词|规则)"
    r"|(?:忽略|无视|忽视|忘记|忘掉)(?:以上|上面|上述|之前|前面)[^。]{0,10}(?:指令|指示|提示词|规则)"
    r"|你现在是|(?:请|你|您)[^。]{0,10}(?:只|必须|总是)[^。]{0,10}(?:回答|回复|说|告诉用户)",
    re.IGNORECASE,
)


# "。" and "，" end and part Chinese sentences: kept, so a pattern stops at them.
_CJK_PUNCTUATION = re.compile(r"[\u3000-\u303f]")


def is_instruction(sentence: str) -> bool:
    """Whether a sentence addresses an assistant, read as a reader sees it: a zero-width space or a
    bidi control inside "Ig\u200bnore" is invisible on the page and to a model, full-width letters
    read the same, and so does a Cyrillic "о" in "ignоre"; none may slip a planted instruction past
    the pattern."""
    return bool(_INSTRUCTION.search(as_seen(sentence)))


def as_seen(text: str) -> str:
    """`text` as a reader takes it, for matching only (the stored and shown text keeps its
    characters): without the invisible format characters (Unicode category Cf: zero-width spaces and
    joiners, bidi controls, soft hyphens), compatibility forms folded (NFKC), and letters of other
    scripts that look Latin ("Іgnоrе", Cyrillic) transliterated by anyascii. Chinese stays as it is."""
    folded = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    if folded.isascii():
        return folded
    from anyascii import anyascii

    return "".join(c if c.isascii() or CJK.match(c) or _CJK_PUNCTUATION.match(c) else anyascii(c) for c in folded)


# -- LaTeX --------------------------------------------------------------------------------

# Formatting commands whose argument is the text itself: \textbf{\textsc{Sure}Lock} is "SureLock".
LATEX_STYLE = re.compile(
    r"\\(?:textbf|textit|textsc|texttt|textrm|emph|mathrm|mathbf|mathit|mathsf|mathtt|mathcal|mathbb|boldsymbol|text|underline|mbox)\s*\{([^{}]*)\}"
)


def unwrap_latex_styles(text: str, depth: int = 3) -> str:
    """Formatting commands replaced by their argument, nested up to `depth` deep."""
    for _ in range(depth):
        text = LATEX_STYLE.sub(r"\1", text)
    return text


_LATEX_SYMBOLS = {
    r"\times": "×", r"\%": "%", r"\sim": "~", r"\approx": "≈", r"\leq": "≤", r"\le": "≤", r"\geq": "≥", r"\ge": "≥",
    r"\pm": "±", r"\cdot": "·", r"\rightarrow": "→", r"\to": "→", r"\infty": "∞", r"\&": "&", r"\_": "_",
}  # fmt: skip
_LATEX_SYMBOL = re.compile("|".join(re.escape(k) + (r"(?![A-Za-z])" if k[-1].isalpha() else "") for k in sorted(_LATEX_SYMBOLS, key=len, reverse=True)))
_LATEX_MATH = re.compile(r"\$([^$]{1,60})\$")


def plain(text: str) -> str:
    """Text as a checker compares it: LaTeX rendered ("30--50\\%" → "30–50%"), "C$^3$LLM" as
    "C3LLM", "π₀" as "π0", without citation markers."""
    return re.sub(r"[\^{}$]", "", unicodedata.normalize("NFKC", readable(strip_citations(text)))).replace("−", "-")


def readable(text: str) -> str:
    """Abstracts' LaTeX as a reader sees it in the PDF ("10.61$\\times$" → "10.61×", "\\emph{sure}" →
    "sure", "30--50\\%" → "30–50%"). For display only: answers are checked against the raw text."""
    if "\\" not in text and "$" not in text and "--" not in text:
        return text
    text = unwrap_latex_styles(text)
    text = _LATEX_SYMBOL.sub(lambda m: _LATEX_SYMBOLS[m.group(0)], text)
    text = _LATEX_MATH.sub(lambda m: m.group(1).strip(), text)
    return text.replace("---", "—").replace("--", "–")


# Greek letters are common in method names ("$\pi$-Invariant"); keep them
# readable instead of dropping them with the rest of the math.
_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε",
    "varepsilon": "ε", "theta": "θ", "lambda": "λ", "mu": "µ", "pi": "π",
    "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "psi": "ψ", "omega": "ω",
}


def _unwrap_math(match: re.Match[str]) -> str:
    """Keep math that is part of a name ("H$^3$DP", "$\\texttt{Foo}$"), drop formulas."""
    body = re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK.get(m.group(1), f"\\{m.group(1)}"), match.group(1))
    residue = " ".join(re.sub(r"[\^_{}]", "", body).split())
    return residue if re.fullmatch(r"[\w. -]+", residue) else ""


def without_markup(text: str) -> str:
    """Only the readable words of `text`, as a generated title takes them: LaTeX styles unwrapped, formulas
    dropped unless part of a name ("H$^3$DP", "$\\pi$-Invariant" as "π-Invariant"), Markdown, citations and URLs removed."""
    text = re.sub(r"https?://\S+", "", text)
    text = re.sub(r"``|''", '"', text)  # LaTeX's quotation marks: ``Task Tokens
    # Words hyphenated across lines ("Agent-\nbenchmark", or "Agent- benchmark"
    # once whitespace is normalised), but not "pre- and post-training".
    text = re.sub(r"(?<=\w)-\s*\n\s*(?=\w)|(?<=[A-Za-z])- (?!(?:and|or|to|vs)\b)(?=[a-z])", "-", text)
    text = re.sub(r"[\u2010\u2011]", "-", text)  # Unicode hyphens would split names
    # Citations and links are noise in a title ("Di[M]O zhu2025di").
    text = re.sub(r"\\(?:cite[a-z]*|ref|eqref|url|href|footnote)\*?(?:\[[^\]]*\])*\{[^{}]*\}", "", text)
    text = unwrap_latex_styles(text)
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
