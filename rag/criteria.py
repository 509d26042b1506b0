"""What a corpus question asks of every paper, and whether a paper meets it: "which papers
evaluate on LongBench", "combine RL with RAG", "how many use GRPO", "the best reported speedup
for speculative decoding".

A criterion is ideas that must all be present in a paper's words (title or abstract), never
similarity alone: an exact name ("LongBench", "GSM8K", "Mamba") matched as written (an all-caps
one case-sensitively: RULER is not "ruler"); or a phrase ("retrieval-augmented generation")
matched with a hyphen or a space, in the singular or plural, or by the acronym the corpus
itself defines for it ("(RAG)"); an acronym asked for also matches the expansion the corpus
defines for it. Hand-written: a list must be exactly the papers that name a thing, which is a
matter of words, and no library parses "which papers combine X with Y" into its ideas.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rag.label_names import expansion_before
from rag.routing import LIST_REQUEST
from rag.text import STOPWORDS, WORD, is_coined

# The Chinese words of a request for papers: "哪些论文", "有多少篇论文", "有没有".
_ZH_REQUEST = re.compile(r"^\s*(?:有)?(?:哪些|多少篇|多少|有没有|是否有)(?:论文|文章|工作)?")
# How the request ties papers to what it asks about: "that evaluate on", "using", "about".
_RELATION = re.compile(
    r"^\s*(?:in (?:this|the) (?:corpus|collection)\s+)?(?:(?:that|which|who)\s+)?(?:(?:are|is|were|have been|do|does)\s+)?(?:also\s+)?"
    r"(?:evaluat\w*|report\w*(?:\s+results)?|use[sd]?|using|build\w*|built|based|combin\w*|propos\w*|introduc\w*|stud\w*|appl\w*"
    r"|mention\w*|address\w*|focus\w*|deal\w*|leverag\w*|employ\w*|rel\w+|train\w*|test\w*|benchmark\w*|work\w*|tackl\w*|explor\w*)?"
    r"\s*(?:on|with|upon|about|in|for|to)?\s+",
    re.I,
)
_TAIL = re.compile(r"\s*(?:\b(?:in|from|across|among) (?:this|the) (?:corpus|collection|conference)\b.*|\b(?:are there|exist)\b.*|[?？.!。]+)\s*$", re.I)
# Where one idea ends and the next begins: every one must be present.
_AND = re.compile(
    r"\s*(?:,|;|\band\b|\bwith\b|\bfor\b|\bin\b|\bon\b|\bunder\b|\bvia\b|\busing\b|\bacross\b|\bplus\b"
    r"|\bas well as\b|\btogether with\b|\bcombined with\b|和|与|及|结合)\s*",
    re.I,
)
_OR = re.compile(r"\s+or\s+|或", re.I)
_FILLER = frozenset("the a an any both their its new each all some other various different existing".split())
# Words after a name that say what kind of thing it is: "the LIBERO benchmark", "the QM9 dataset".
_KIND = frozenset(
    """benchmark benchmarks dataset datasets suite suites corpus library environment environments task tasks model models method methods
    framework frameworks""".split()
)
_CJK_OR_PUNCT = re.compile(r"[\u3400-\u9fff，。？！、：；（）]+")


@dataclass(frozen=True)
class Idea:
    said: str  # as the question said it
    pattern: re.Pattern[str]  # where a paper's words say it


@dataclass(frozen=True)
class Criterion:
    ideas: tuple[Idea, ...]  # every one must be present; none: every paper (a filter alone)

    def describe(self) -> str:
        """"mention LongBench", "mention both RL and RAG"."""
        said = [f"“{i.said}”" for i in self.ideas]
        if len(said) > 1:
            return "mention " + ("both " if len(said) == 2 else "all of ") + ", ".join(said[:-1]) + " and " + said[-1]
        return f"mention {said[0]}" if said else ""

    def meets(self, text: str) -> bool:
        return all(idea.pattern.search(text) for idea in self.ideas)


def criterion_of(question: str, texts: Sequence[str]) -> Criterion:
    """The ideas `question` asks papers to mention. `texts`: the corpus's words (titles and
    abstracts), where the acronyms of its phrases are defined."""
    rest = _TAIL.sub("", _ZH_REQUEST.sub("", LIST_REQUEST.sub("", question.strip(), count=1), count=1))
    rest = _RELATION.sub("", " " + rest, count=1)
    ideas: list[Idea] = []
    for piece in _AND.split(rest):
        alternatives = [a for a in (_clean(p) for p in _OR.split(piece)) if a]
        if alternatives:
            patterns = [_pattern(a, texts) for a in alternatives]
            ideas.append(Idea(" or ".join(alternatives), re.compile("|".join(p.pattern for p in patterns))))
    return Criterion(tuple(ideas))


def _clean(piece: str) -> str:
    """An idea as a reader names it: without articles, kind words after a name, or Chinese."""
    words = [w for w in _CJK_OR_PUNCT.sub(" ", piece).split() if w.strip("\"'“”‘’()")]
    words = [w.strip("\"'“”‘’()") for w in words]
    while words and words[0].lower() in _FILLER:
        words.pop(0)
    if any(_is_name(w, i) for i, w in enumerate(words)):
        while len(words) > 1 and words[-1].lower() in _KIND:
            words.pop()
    # An idea needs a word that says something: "papers", "works", "them" say nothing.
    if not [w for w in words if w.lower() not in STOPWORDS and w.lower() not in _FILLER and w.lower() not in ("works", "studies", "approaches", "techniques")]:
        return ""
    return " ".join(words)


def _is_name(word: str, position: int) -> bool:
    """A name as the question writes it: coined (LongBench, GSM8K, LoRA) or capitalised inside the idea (Mamba)."""
    return is_coined(word) or (position > 0 and word[:1].isupper()) or any(c.isdigit() for c in word)


def _pattern(idea: str, texts: Sequence[str]) -> re.Pattern[str]:
    words = idea.split()
    if len(words) == 1 and _is_name(words[0], 1):
        return _name_pattern(words[0], texts)
    patterns = [_phrase(words)]
    if len(words) >= 2:
        patterns += [rf"\b{re.escape(a)}s?\b" for a in _defined_acronyms(words, texts)]
    return re.compile("|".join(patterns))


def _name_pattern(name: str, texts: Sequence[str]) -> re.Pattern[str]:
    """A name, exactly: "SWE-bench" also as "SWE-Bench" and "SWEbench"; an all-caps name
    case-sensitively, with its plural ("GNNs") and the expansion the corpus gives it."""
    letters = [c for c in name if c.isalpha()]
    body = r"[\s\-]?".join(re.escape(part) for part in name.split("-"))
    # Not inside another name ("ExpertLongBench" is not LongBench); a variant named after it
    # ("Trust-GRPO") or a version of it ("Mamba2", "LongBench-v2") is it.
    if letters and all(c.isupper() for c in letters):
        expansion = _defined_expansion(name, texts)
        return re.compile(rf"(?<![A-Za-z0-9]){body}s?(?![A-Za-z])" + (f"|{_phrase(expansion.split())}" if expansion else ""))
    return re.compile(rf"(?i:(?<![A-Za-z0-9]){body}(?![A-Za-z]))")


def _phrase(words: Sequence[str]) -> str:
    """Words in order, joined by a space or a hyphen, case-insensitive, the last in the singular
    or plural ("diffusion language model(s)"), a "-ization" word also as its verb ("quantized")."""
    words = [part for word in words for part in word.split("-") if part]
    parts = []
    for i, word in enumerate(words):
        lower = re.escape(word.lower())
        if word.lower().endswith(("ization", "isation")):
            stem = re.escape(word.lower()[:-7])
            lower = rf"{stem}(?:i[sz]ation|i[sz]ations|i[sz]e|i[sz]ed|i[sz]es|i[sz]ing)"
        elif i == len(words) - 1:
            lower = rf"{re.escape(word.lower().removesuffix('s'))}(?:s|es)?" if len(word) > 3 else lower
        parts.append(lower)
    return r"(?i:\b" + r"[\s\-]+".join(parts) + r"\b)"


_ACRONYM_AFTER = r"\s*\(\s*([A-Z][A-Za-z0-9]*[A-Z0-9])s?\s*[);,]"
# Words an acronym leaves out: "mixture of experts" is "MoE".
_JOINING = frozenset("of and for the to in on a an with".split())


def _defined_acronyms(words: Sequence[str], texts: Iterable[str]) -> list[str]:
    """The acronyms the corpus defines for a phrase: "retrieval-augmented generation (RAG)"."""
    pattern = re.compile(_phrase(words) + _ACRONYM_AFTER)
    found = Counter(m.group(1) for text in texts for m in pattern.finditer(text))
    # Only the phrase's own initials ("DLM", "RAG", "MoE"): "masked diffusion language models
    # (MDLMs)" does not make "MDLM" an acronym of "diffusion language models", nor is "DiD" one.
    initials = "".join(w[0] for word in words for w in word.split("-") if w and w.lower() not in _JOINING).upper()
    return [a for a, _ in found.most_common(3) if "".join(c for c in a if c.isupper()) == initials]


def _defined_expansion(acronym: str, texts: Iterable[str]) -> str:
    """The phrase the corpus most often spells an acronym out as: "RAG" → "retrieval-augmented generation"."""
    pattern = re.compile(rf"\(\s*{re.escape(acronym)}s?\s*[);,]")
    found: Counter[str] = Counter()
    for text in texts:
        for match in pattern.finditer(text):
            if expansion := expansion_before(text[: match.start()], acronym):
                found[" ".join(w.lower() for w in WORD.findall(expansion.replace("-", " ")))] += 1
    return found.most_common(1)[0][0] if found else ""
