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

from rag import prompts
from rag.label_names import expansion_before
from rag.routing import LIST_REQUEST
from rag.text import STOPWORDS, WORD, is_coined

# The Chinese words of a request for papers: "哪些论文", "有多少篇论文", "有没有".
_ZH_REQUEST = re.compile(r"^\s*(?:有)?(?:哪些|多少篇|多少|有没有|是否有)(?:论文|文章|工作)?")
_TAIL = re.compile(r"\s*(?:\b(?:in|from|across|among|of) (?:this|the) (?:corpus|collection|conference)\b.*|\b(?:are there|exist)\b.*)$", re.I)
# Words that tie papers to what they are asked to mention, or join two ideas: each ends an idea.
# Verbs, not the "-ing" nouns of the field ("learning", "sampling", "reasoning"), and not words
# that are also its nouns ("test", "benchmark", "model", "feature", "scale", "work").
_VERBS = """use uses used using evaluate evaluates evaluated evaluating report reports reported build builds built based combine combines
    combined combining propose proposes proposed proposing introduce introduces introduced introducing study studies studied studying
    apply applies applied applying mention mentions mentioned address addresses addressed addressing focus focuses focused deal deals dealt
    leverage leverages leveraged leveraging employ employs employed employing rely relies relied train trained tested benchmarked tackle
    tackles tackled explore explores explored exploring investigate investigates investigated investigating analyze analyzes analyzed
    analyse analyses analysed discuss discusses discussed examine examines examined talk talks look looks outperform outperforms
    outperformed extend extends extended compare compares compared target targets targeted improve improves improved adopt adopts adopted
    utilize utilizes utilized utilizing incorporate incorporates incorporated incorporating integrate integrates integrated integrating
    exploit exploits exploited consider considers considered present presents presented describe describes described develop develops
    developed achieve achieves achieved beat beats surpass surpasses surpassed run runs fine-tune fine-tunes fine-tuned finetune finetunes
    finetuned measure measures measured cite cites cited involve involves involved include includes included cover covers covered show
    shows showed shown demonstrate demonstrates demonstrated solve solves solved handle handles handled enable enables enabled generate
    generates generated produce produces produced create creates created release releases released publish published accepted try tries
    aim aims attempt attempts seek seeks assess assesses assessed validate validates validated optimize optimizes optimized""".split()
_JOINS = """that which who whose are is were was be been being do does did have has had also both either and plus on with about in for to
    under via across upon into onto over from by against at among between within""".split()
_SEPARATORS = frozenset(_VERBS) | frozenset(_JOINS)
# Phrases that join two ideas in more than one word.
# ("of the": "quantization of the KV cache" is two ideas; "mixture of experts" one.)
_JOIN_PHRASES = re.compile(r"\b(?:as well as|together with|combined with|in combination with|along with|of (?:the|a|an|their|its))\b", re.I)
# "benchmark", "test" are nouns of the field, but verbs before a determiner: "benchmark their policies on X".
_VERB_BEFORE = re.compile(r"\b(?:benchmarks?|tests?|models?|works?|features?|scales?|supports?)\s+(?=(?:their|its|the|our|on|against|with)\b)", re.I)
_OR = "or"
_FILLER = frozenset(
    "the a an any both their its our new each all some other various different existing papers paper works studies articles i i'm im we please".split()
)
# Words that say nothing a paper could be checked for: "the corpus", "how many papers does it have".
_EMPTY = STOPWORDS | _FILLER | frozenset("corpus collection conference approaches techniques ones there".split())
# Words after a name that say what kind of thing it is: "the LIBERO benchmark", "the QM9 dataset".
_KIND = frozenset(
    """benchmark benchmarks dataset datasets suite suites corpus library environment environments task tasks model models method methods
    framework frameworks results result scores score numbers performance experiments evaluations""".split()
)
# Hyphens as abstracts write them: "-", and the typographic ones ("Kolmogorov–Arnold", "MMLU‑Pro").
_HYPHENS = re.compile("[-\u2010\u2011\u2012\u2013\u2014]")
_JOINER = "[\\s\\-\u2010\u2011\u2012\u2013\u2014]+"
_CJK_OR_PUNCT = re.compile(r"[\u3400-\u9fff，。？！、：；（）?!.]+")
_QUOTED = re.compile(r"[\"“”]([^\"“”]+)[\"“”]")


@dataclass(frozen=True)
class Idea:
    said: str  # as the question said it
    pattern: re.Pattern[str]  # where a paper's words say it


@dataclass(frozen=True)
class Criterion:
    ideas: tuple[Idea, ...]  # every one must be present; none: every paper (a filter alone)

    def describe(self, language: str = "en") -> str:
        """"mention LongBench", "mention both RL and RAG"; in Chinese "提到“LongBench”"."""
        said = [f"“{i.said}”" for i in self.ideas]
        if len(said) > 1:
            first = prompts.say("LIST_SEPARATOR", language).join(said[:-1])
            return prompts.say("MENTION_BOTH" if len(said) == 2 else "MENTION_ALL", language, first=first, last=said[-1])
        return prompts.say("MENTION", language, what=said[0]) if said else ""

    def meets(self, text: str) -> bool:
        return all(idea.pattern.search(text) for idea in self.ideas)


def criterion_of(question: str, texts: Sequence[str]) -> Criterion:
    """The ideas `question` asks papers to mention. `texts`: the corpus's words (titles and
    abstracts), where the acronyms of its phrases are defined."""
    rest = question.strip()
    if request := LIST_REQUEST.search(rest):
        # "Which NLP papers use GRPO?": the words before "papers" are an idea too.
        kind = next((g for g in request.groupdict().values() if g), "")
        rest = f"{rest[: request.start()]} {kind} , {rest[request.end() :]}"
    rest = _TAIL.sub("", _ZH_REQUEST.sub("", rest.strip(), count=1))
    ideas: list[Idea] = []
    for piece in _pieces(rest):
        alternatives = [a for a in (_clean(p) for p in " ".join(piece).split(f" {_OR} ")) if a]
        if alternatives:
            patterns = [_pattern(a, texts) for a in alternatives]
            ideas.append(Idea(" or ".join(alternatives), re.compile("|".join(p.pattern for p in patterns))))
    return Criterion(tuple(ideas))


def _pieces(text: str) -> list[list[str]]:
    """The words of each idea: split where a verb, a preposition or a conjunction stands as a word
    of its own ("in-context learning", "plug-and-play" stay whole), a quoted phrase kept whole."""
    quoted = _QUOTED.findall(text)
    text = _VERB_BEFORE.sub(" and ", _JOIN_PHRASES.sub(" and ", _QUOTED.sub(" , ", text)))
    pieces: list[list[str]] = [[q] for q in quoted]
    current: list[str] = []
    for token in re.findall(r"[^\s,;]+|[,;]", _CJK_OR_PUNCT.sub(" , ", text)):
        if token in (",", ";") or token.lower() in _SEPARATORS:
            if current:
                pieces.append(current)
            current = []
        else:
            current.append(token)
    if current:
        pieces.append(current)
    return pieces


def _clean(piece: str) -> str:
    """An idea as a reader names it: without articles, or kind words after a name."""
    words = [w.strip("'‘’()[]") for w in piece.split() if w.strip("'‘’()[]")]
    while words and words[0].lower() in _FILLER:
        words.pop(0)
    if any(_is_name(w, i) for i, w in enumerate(words)):
        while len(words) > 1 and words[-1].lower() in _KIND:
            words.pop()
    # An idea needs a word that says something: "papers", "the corpus", "them" say nothing.
    if not [w for w in words if w.lower() not in _EMPTY]:
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
    case-sensitively, in the singular or plural ("GNNs" finds "GNN"); an acronym also by the
    expansion the corpus gives it ("LoRA" by "low-rank adaptation")."""
    if re.fullmatch(r"[A-Z0-9\-]*[A-Z][A-Z0-9\-]*s", name):
        name = name[:-1]  # an acronym asked for in the plural
    letters = [c for c in name if c.isalpha()]
    body = _JOINER.replace("+", "?").join(re.escape(part) for part in _HYPHENS.split(name))
    expansion = _defined_expansion(name, texts) if sum(c.isupper() for c in letters) >= 2 else ""
    also = f"|{_phrase(expansion.split())}" if expansion else ""
    # Not inside another name ("ExpertLongBench" is not LongBench); a variant named after it
    # ("Trust-GRPO") or a version of it ("Mamba2", "LongBench-v2") is it.
    if letters and all(c.isupper() for c in letters):
        return re.compile(rf"(?<![A-Za-z0-9]){body}s?(?![A-Za-z])" + also)
    return re.compile(rf"(?i:(?<![A-Za-z0-9]){body}s?(?![A-Za-z]))" + also)


def _phrase(words: Sequence[str]) -> str:
    """Words in order, joined by a space or a hyphen, case-insensitive, the last in the singular
    or plural ("diffusion language model(s)"), a "-ization" word also as its verb ("quantized")."""
    words = [part for word in words for part in _HYPHENS.split(word) if part]
    parts = []
    for i, word in enumerate(words):
        lower = re.escape(word.lower())
        if word.lower().endswith(("ization", "isation")):
            stem = re.escape(word.lower()[:-7])
            lower = rf"{stem}(?:i[sz]ation|i[sz]ations|i[sz]e|i[sz]ed|i[sz]es|i[sz]ing)"
        elif i == len(words) - 1:
            lower = rf"{re.escape(word.lower().removesuffix('s'))}(?:s|es)?" if len(word) > 3 else lower
        parts.append(lower)
    return r"(?i:\b" + _JOINER.join(parts) + r"\b)"


_ACRONYM_AFTER = r"\s*\(\s*([A-Z][A-Za-z0-9]*[A-Z0-9])s?\s*[);,]"
# Share of an acronym's definitions in the corpus that must be for the phrase: in the ICLR 2026
# abstracts "(RL)" follows "reinforcement learning" 311 times of 312, "(SD)" follows "speculative
# decoding" 2 times of 6.
MIN_ACRONYM_SHARE = 0.8
# Words an acronym leaves out: "mixture of experts" is "MoE".
_JOINING = frozenset("of and for the to in on a an with".split())


def _defined_acronyms(words: Sequence[str], texts: Sequence[str]) -> list[str]:
    """The acronyms the corpus defines for a phrase ("retrieval-augmented generation (RAG)") and
    for hardly anything else: "SD" is defined for speculative decoding and for other things, so
    a paper writing "SD-OT" is not about speculative decoding. (A
    paper that defines an acronym names the phrase too, and is found by it.)"""
    pattern = re.compile(_phrase(words) + _ACRONYM_AFTER)
    found = Counter(m.group(1) for text in texts for m in pattern.finditer(text))
    # Only the phrase's own initials ("DLM", "RAG", "MoE"): "masked diffusion language models
    # (MDLMs)" does not make "MDLM" an acronym of "diffusion language models", nor is "DiD" one.
    initials = "".join(w[0] for word in words for w in _HYPHENS.split(word) if w and w.lower() not in _JOINING).upper()
    own = [(a, n) for a, n in found.most_common(3) if "".join(c for c in a if c.isupper()) == initials]
    return [a for a, n in own if n >= MIN_ACRONYM_SHARE * _definitions(a, texts)]


def _definitions(acronym: str, texts: Sequence[str]) -> int:
    """How many times the corpus defines `acronym`, for whatever phrase."""
    pattern = re.compile(rf"\(\s*{re.escape(acronym)}s?\s*[);,]")
    return sum(len(pattern.findall(text)) for text in texts)


def _defined_expansion(acronym: str, texts: Iterable[str]) -> str:
    """The phrase the corpus most often spells an acronym out as: "RAG" → "retrieval-augmented generation"."""
    pattern = re.compile(rf"\(\s*{re.escape(acronym)}s?\s*[);,]")
    found: Counter[str] = Counter()
    for text in texts:
        for match in pattern.finditer(text):
            if expansion := expansion_before(text[: match.start()], acronym):
                found[" ".join(w.lower() for w in WORD.findall(expansion.replace("-", " ")))] += 1
    return found.most_common(1)[0][0] if found else ""
