"""What a summary request is about: its theme, read off the words that only frame the request
("catch me up on protein structure prediction" → "protein structure prediction"), and the theme's
head without its examples.

Why by hand: the theme is the one span of a request that names a research topic, and the words
around it come from a small closed vocabulary (asking, summarising, time, venue, "papers").
Marking those and keeping the longest run left generalises to wordings no rule names (measured on
200 requests written blind, bench/theme_requests.py); a parser would add a model for what a word
list does as well here. Only whether a run starts with a verb ("papers that use ML for X") is the
tagger's to say (rag/tagger.py, loaded at the app's warm-up), where one is installed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import takewhile

from rag.request_words import (
    ARTICLES,
    BEYOND,
    CONJUNCTIONS,
    CONNECTORS,
    FRAME_VERBS,
    FRAME_WORDS,
    GOING_ON,
    GOING_ON_ALONE,
    JOINERS,
    OVERVIEW_WORDS,
    TOPIC_WORDS,
    VENUES,
    WEAK_WORDS,
)
from rag.tagger import make_tagger
from rag.text import request_clauses, strip_citations
from rag.theme_exclusions import without_exclusions
from rag.theme_parts import terms_zh

# "有哪些关于 X 的", "有什么新的": how a Chinese request for papers or research begins (rag/routing.py too).
ASKS_ABOUT_ZH = r"有(?:哪些|什么)(?:关于[^？?。！!，,]{1,20}的|新的?|最新的?|相关的?)?"
SUMMARY_VERBS_ZH = "总结|概述|综述|概括|梳理|盘点"
# A question about what the papers have in common, in other words than "summarize": "what do most
# papers about X try to solve", "the common approaches to X" (not "the main challenges ReST-KV
# addresses", which asks about one paper).
CORPUS_QUESTION = re.compile(
    r"\bmost (?:of the )?papers\b|\bpapers\b[^?]*\bmostly\b"
    r"|\b(?:common|main|typical|usual|dominant)\s+(?:approaches|methods|techniques|problems|challenges|directions|ideas)\s+(?:to|for|in|of|on)\b"
    r"|\bwhat (?:problems?|challenges?|questions?) do (?:the |these )?papers\b|\bwhat do (?:the |these )?papers (?:about|on|in)\b"
    r"|主要在解决|主要解决|主要研究|常见的?方法|主流方法",
    re.I,
)

# Frames of several words, marked before the single words: a time or a venue, "the state of",
# "open problems".
_VENUE = "(?:" + "|".join(VENUES) + ")"
# Phrases that ask where a field stands: frame words, and themselves a request for an overview.
_FIELD_PHRASES = r"(?:the\s+)?state\s+of(?:\s+the\s+(?:art|field|play))?|open\s+(?:problems|questions|issues|challenges)|lit(?:erature)?\s+review"
_FRAME_PHRASES = re.compile(
    rf"(?<![\w-])(?:(?:this|last|past|the\s+past)\s+year(?:'s|’s)?|(?:in|at|from|for)\s+(?:{_VENUE}\s+)?20\d\d|at\s+(?:{_VENUE}|the\s+conference)(?:\s+20\d\d)?"
    rf"|{_VENUE}\s+20\d\d(?:'s)?(?:\s*上)?|20\d\d|so\s+far|right\s+now|these\s+days|of\s+late|to\s+date"
    rf"|{_FIELD_PHRASES})(?![\w-])",
    re.I,
)
# Chinese words around a theme, marked the same way. "上" only with a venue (above): "上下文" keeps it.
_FRAME_ZH = re.compile(
    SUMMARY_VERBS_ZH
    + r"|整理|汇总|介绍一?下?|讲讲|讲了|过一遍|一下|关于|有关|论文|文章|这些|所有|相关|研究|工作|进展|要点|帮我|给我|请|"
    r"有没有|有啥|有|哪些|什么|啥|是|简单|大家|最近|最新|今年|新东西|新|都|在做|做(?=的)|方向|领域|这块|这一块|这个|这方面|方面|主要|代表性|"
    r"想入门|入门|该看|趋势|开放问题|新?方法|(?<![\u4e00-\u9fff])年"  # the last: "2024 年", its number marked above
)
# "的" and "和" join the parts of a Chinese theme ("大模型和多模态模型的幻觉", "键值缓存的压缩") like
# "of" and "and"; next to the frame they join nothing.
_LOOSE_PARTICLES_ZH = re.compile(r"[的和]+(?![\u4e00-\u9fff])|(?<![\u4e00-\u9fff])[的和]+")
# An aside after the theme: its examples or another name ("X (e.g. A, B)", "X, such as Y", "X /
# Y"). Kept with the theme for the search; theme_head takes it off for membership.
_ASIDE_OPENERS = r"such as|including|e\.g\.?|i\.e\.?|for example|for instance|especially"
# ... and after a comma only: "X, like A", "X, notably A, B and C", "X, namely A and B" (not
# "models like humans", "notably hard problems"). Not "specifically" or "in particular": they
# narrow the theme to what follows (request_words.NARROWING).
_COMMA_OPENERS = r"like|notably|namely"
_EXAMPLE_OPENERS = rf"{_ASIDE_OPENERS}|{_COMMA_OPENERS}"  # what opens a theme's examples (theme_head), and a quoted one
# (An aside in words stops before a bracket, which is an aside of its own; one that gives examples
# runs on over their commas, "protein design, i.e. inverse folding, binder and antibody design",
# up to a comma that goes on with the request: "..., then compare them", "..., in three bullets",
# "..., what's new?".)
_NOT_AN_ITEM = r"(?:then|in|what|what's|how|why|which|who|please|so|if|and\s+(?:then|how|what|why|which))\b"
_ASIDE_WORDS = r"[^,;:?!—。，？！(（]*"
_ASIDE = re.compile(
    rf"\s*(?:\([^()]*\)|（[^（）]*）)|(?:,?\s+(?:{_ASIDE_OPENERS})|,\s+(?:{_COMMA_OPENERS}))\s{_ASIDE_WORDS}(?:,(?!\s*{_NOT_AN_ITEM})\s*{_ASIDE_WORDS})*|\s+/\s{_ASIDE_WORDS}",
    re.I,
)
_RELATIVES = frozenset({"that", "which", "who", "whose"})
_RUN_ENDS = FRAME_WORDS | CONNECTORS  # what ends a run of a theme's words, looking back
_CLAUSE_ENDS = frozenset(",.;:?!—。，？！")
_TOKEN = re.compile(r"\w(?:[\w'’+&.、-]*[\w+])?|[^\w\s]")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _weight(token: str) -> float:
    """What a word adds to its run's claim to be the theme: Chinese by its characters; nothing for a
    word that joins others ("LLMs and speech models" names two things, not three)."""
    if _CJK.search(token):
        return len(token) / 2
    return 0.0 if token.lower() in WEAK_WORDS or token.lower() in JOINERS | CONJUNCTIONS else 1.0


@dataclass(frozen=True)
class _Reading:
    text: str  # the request with its multi-word frames marked off
    tokens: list[tuple[int, int, str]]  # (start, end, word or mark)
    runs: list[tuple[float, int, int]]  # (weight, first token, end token): the spans that name something
    asides: list[tuple[int, int]]  # character spans of asides


def _read(request: str) -> _Reading:
    """The request's runs of words outside its frame, joined by connectors ("mixture of experts")."""
    text = _FRAME_ZH.sub(" , ", _FRAME_PHRASES.sub(" , ", request.replace("w/", "with")))
    text = _LOOSE_PARTICLES_ZH.sub(" ", text)
    asides = [(m.start(), m.end()) for m in _ASIDE.finditer(text)]
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]
    # A relative clause after a theme's words qualifies them ("unified multimodal models that do both understanding
    # and generation"): an aside. After a frame word it holds the theme ("papers that study X"). (Not after a verb,
    # "papers arguing that ...", nor after a weak word alone, "papers on models that reason".)
    for i, (at, _, token) in enumerate(tokens[1:], start=1):
        if token.lower() not in _RELATIVES:
            continue
        before = list(takewhile(lambda t: t[2][0].isalnum() and t[2].lower() not in _RUN_ENDS, reversed(tokens[:i])))
        if before and not before[0][2].lower().endswith(("ing", "ed")) and any(t[2].lower() not in WEAK_WORDS for t in before):
            end = next((t[0] for t in tokens[i:] if t[2] in _CLAUSE_ENDS), len(text))
            asides.append((at - 1, end))

    words = [token[0].isalnum() and not any(s <= at < e for s, e in asides) for at, _, token in tokens]
    named = [word and token.lower() not in FRAME_WORDS for word, (_, _, token) in zip(words, tokens, strict=True)]

    def beside_theme(i: int) -> bool:
        return any(0 <= j < len(tokens) and named[j] and tokens[j][2].lower() not in CONNECTORS for j in (i - 1, i + 1))

    named = [n or (w and t.lower() in TOPIC_WORDS and beside_theme(i)) for i, (n, w, (_, _, t)) in enumerate(zip(named, words, tokens, strict=True))]
    for i in range(1, len(tokens)):  # "user study", "PDE solving": a frame verb after a theme's word names it too
        named[i] = named[i] or (words[i] and tokens[i][2].lower() in FRAME_VERBS and named[i - 1] and tokens[i - 1][2].lower() not in CONNECTORS)
    for i in range(1, len(tokens) - 1):  # after "outside (of)", "beyond", an article joins the theme's words (BEYOND)
        beyond = tokens[i - 1][2].lower() in BEYOND or (i > 1 and tokens[i - 1][2].lower() == "of" and tokens[i - 2][2].lower() in BEYOND)
        named[i] = named[i] or (tokens[i][2].lower() in ARTICLES and named[i - 1] and named[i + 1] and beyond)
    runs: list[tuple[float, int, int]] = []
    start: int | None = None
    for i in range(len(tokens) + 1):
        token = tokens[i][2] if i < len(tokens) else ","
        if i < len(tokens) and named[i]:
            if token.lower() not in JOINERS:
                start = i if start is None else start
            continue  # a connector joins a run only where words follow it
        if start is not None:
            end = i
            while tokens[end - 1][2].lower() in JOINERS:
                end -= 1
            if weight := sum(_weight(t[2]) for t in tokens[start:end]):
                runs.append((weight, start, end))
        start = None
    return _Reading(text, tokens, runs, asides)


# Words with which a clause about the asker still asks for papers.
_ASKS_FOR_PAPERS = frozenset("papers overview summary summarize summarise survey rundown digest recap roundup".split())
# (Case kept: "I-JEPA papers?" and "i.e. ..." are no asker.)
_ABOUT_ASKER = re.compile(r"\s*(?:I|I'm|I’m|I've|I’ve|I'd|I’d|[Ww]e|[Ww]e're|[Ww]e’re|[Ww]e've|[Mm]y|[Oo]ur)(?![\w./-])")


def theme_clause(request: str) -> str:
    """The clause of a request of several that names its theme: the first that asks for papers ("image
    restoration papers? deblurring, deraining, ..."; "Can you summarise the continual learning papers?
    Mainly interested in ...") or names a topic and nothing else, as a heading ("efficient reasoning for
    LLMs: what have people done about overthinking ..."); the clauses after it give examples or
    qualify it; a clause about the asker that does not ask for papers is context. When none asks, the
    first clause not about the asker that names something (with the tagger); else the whole request."""
    clauses = request_clauses(request)
    if len(clauses) < 2 or _CJK.search(request):
        return request
    first = ""
    for position, clause in enumerate(clauses):
        reading = _read(clause)
        runs = [run for run in reading.runs if run[0] >= 1]
        if not runs:
            continue
        words = [t[2].lower() for t in reading.tokens if t[2][0].isalnum()]
        about_asker = bool(_ABOUT_ASKER.match(clause))
        # The asker's own "work" is no request: "I work on X." is context, "I want the X papers." asks.
        # A corpus question asks too ("Quick question: what are the common approaches to X?").
        asks = bool(set(words) & (_ASKS_FOR_PAPERS if about_asker else OVERVIEW_WORDS)) or bool(CORPUS_QUESTION.search(clause))
        # A heading is the first clause, a topic of two words or more and nothing else but its aside
        # ("Causal discovery — ...", "small language models (SLMs) - what's new?"; not "Question:
        # ...", nor a trailing "Especially video diffusion.").
        topic = [t for t in reading.tokens if t[2][0].isalnum() and not any(s <= t[0] < e for s, e in reading.asides)]
        heading = position == 0 and len(topic) >= 2 and sum(end - start for _, start, end in runs) == len(topic)
        # A clause about the asker ("I work on computational imaging.") is context, unless it asks
        # for the papers itself ("I want the speculative decoding papers.").
        if asks or (heading and not about_asker):
            return clause
        if not first and not about_asker and (tags := _tags(reading)) and _nominal_runs(reading, tags):
            first = clause
    # None asks: the first clause not about the asker that names something names the theme, as
    # people state a topic first ("Has anyone looked at X in LLMs? Summarise what they found — A, B";
    # not "What came out on this?", whose verb only the tagger tells: without it, the whole request).
    return first or request


# Penn Treebank's verb tags: a verb in the present or its base form heads a predicate after the
# papers or people it speaks of ("Which papers use ML for X"); a past or participle, before a
# preposition ("how it should be combined with RL"): before a noun it is a topic's modifier
# ("supervised fine-tuning"). (The small tagger reads "What approaches to sparse attention" as two verbs.)
_PREDICATE_TAGS, _PARTICIPLE_TAGS, _PREPOSITION_TAGS = frozenset({"VB", "VBP", "VBZ"}), frozenset({"VBD", "VBN"}), frozenset({"IN", "TO", "RP"})
_SUBJECTS = frozenset("papers paper work works people researchers studies authors that which who they anyone someone".split())


def _tags(reading: _Reading) -> dict[int, str]:
    """The reading's Penn Treebank tags by character offset; none without spaCy's tagger
    (rag/tagger.py) or in Chinese (an English tagger), and the word rules alone decide."""
    tagger = None if _CJK.search(reading.text) else make_tagger()
    return {at: tag for _, at, tag in tagger(reading.text)} if tagger else {}


def _nominal_runs(reading: _Reading, tags: dict[int, str]) -> list[tuple[float, int, int]]:
    """The reading's runs without a verb they start with ("combined with RL" → "RL"): a theme is
    named by a noun phrase. As read, without `tags`."""
    if not tags:
        return reading.runs
    runs = []
    for weight, start, end in reading.runs:
        tag, before = tags.get(reading.tokens[start][0]), reading.tokens[start - 1][2].lower() if start else ""
        after = tags.get(reading.tokens[start + 1][0]) if start + 1 < len(reading.tokens) else None
        if (tag in _PREDICATE_TAGS and before in _SUBJECTS) or (tag in _PARTICIPLE_TAGS and after in _PREPOSITION_TAGS):
            start += 1
            while start < end and (tags.get(reading.tokens[start][0]) in _PREPOSITION_TAGS or reading.tokens[start][2].lower() in CONNECTORS):
                start += 1
            weight = sum(_weight(t[2]) for t in reading.tokens[start:end])
        if weight:
            runs.append((weight, start, end))
    return runs


def _theme_run(request: str) -> str:
    """The run of the request's words that names the most (the first of equals), with an aside that
    follows it, read in the clause that names the theme."""
    reading = _read(theme_clause(request))
    if not (runs := [run for run in _nominal_runs(reading, _tags(reading)) if not _going_on(reading, run)]):
        return ""
    _, start, end = max(runs, key=lambda run: (run[0], -run[1]))
    start, end = _listed(reading, runs, start, end)
    first, last = reading.tokens[start][0], reading.tokens[end - 1][1]
    for s, e in reading.asides:
        if 0 <= s - last <= 1:
            last = e
    return " ".join(reading.text[first:last].split())


def _listed(reading: _Reading, runs: list[tuple[float, int, int]], start: int, end: int) -> tuple[int, int]:
    """The run from `start` to `end` with the runs a list joins to it by commas (past an item's
    bracket), when "and" or "or" comes before or in its last item ("papers on dataset distillation, data
    pruning and coreset selection" names three themes, not the last two); else the run alone
    ("diffusion models, the video ones"; "vision and language, robotics")."""
    tokens = reading.tokens
    starts = {s: e for _, s, e in runs}
    ends = {e: s for _, s, e in runs}

    def joined(at: int) -> int | None:  # where the item after a comma at `at` (and an "and"/"or") starts
        while at < len(tokens) and any(s <= tokens[at][0] < e for s, e in reading.asides):
            at += 1
        if at < len(tokens) and tokens[at][2] == ",":
            return next((i for i in (at + 1, at + 2) if i in starts and (i == at + 1 or tokens[at + 1][2].lower() in CONJUNCTIONS)), None)
        return None

    items = [(start, end)]
    while (before := next(((s, e) for e, s in ends.items() if joined(e) == items[0][0]), None)) is not None:
        items.insert(0, before)
    while (after := joined(items[-1][1])) is not None:
        items.append((after, starts[after]))
    closed = len(items) > 1 and any(t[2].lower() in CONJUNCTIONS for t in tokens[items[-2][1] : items[-1][1]])
    return (items[0][0], items[-1][1]) if closed else (start, end)


def _going_on(reading: _Reading, run: tuple[float, int, int]) -> bool:
    """Whether `run`, after a comma or "and"/"or" that follow a run, goes on with the request
    (GOING_ON: "..., and compare them", "..., then rank them") rather than naming a theme."""
    tokens, (_, start, end) = reading.tokens, run
    first = start + (tokens[start][2].lower() in CONJUNCTIONS and start + 1 < len(tokens))  # ("or" starts a run: "and" does not)
    after = start > 0 and (tokens[start - 1][2] == "," or tokens[start - 1][2].lower() in CONJUNCTIONS or first > start)
    if not after or not any(e <= start for _, _, e in reading.runs):  # ("Briefly, contrast enhancement papers")
        return False
    word, after_word = tokens[first][2].lower(), tokens[first + 1][2].lower() if first + 1 < end else ""
    return word in GOING_ON or (word in GOING_ON_ALONE and (not after_word or after_word in JOINERS or after_word == "by"))


def _asked(request: str) -> str:
    """A request as its theme is read: without citation marks, nor what it leaves out."""
    return without_exclusions(strip_citations(request))


_WHOLE_CORPUS = re.compile(
    r"\b(?:topics|themes|areas)\b.*\b(?:corpus|collection|conference|cover|covers)\b|\bwhole (?:corpus|collection)\b|涵盖|哪些主题|什么主题|整个", re.I
)


# A corpus question in other words than a summary request: its theme follows a preposition and
# ends where the question goes on ("What do most papers about X try to solve?", "the common
# approaches to X", "What trends do the papers on X show?", "X 方面的论文主要在解决什么问题").
_TRENDS = re.compile(r"\btrends?\b", re.I)
_CORPUS_FRAME = re.compile(
    r"\b(?:papers?|approaches|methods|techniques|problems?|challenges?|trends?|directions|ideas)\s+(?:in this corpus\s+|in the corpus\s+)?"
    r"(?:about|on|to|for|in)\s+(?P<theme>.+?)(?:\s+(?:try|tend|aim|attempt|seek)\s+to\b.*|\s+(?:show|solve|address|tackle|have|share|use)\b.*|\s*[?？.!]*\s*$)",
    re.I,
)
_CORPUS_FRAME_ZH = re.compile(r"^(?P<theme>.+?)(?:方面|领域|相关)的?(?:论文|研究|工作)")
# Clauses of a Chinese request, and the words around its theme: "做/用 X 的工作", "X 这块有哪些新工作".
_CJK_CLAUSES = re.compile(r"\s*[，。？！；,;?!]\s*(?=.*[\u4e00-\u9fff])")
_THEME_FRAME_ZH = re.compile(
    r"^(?:给我|帮我|请)?(?:总结|概括|梳理|介绍|盘点)?(?:一下)?(?:做|用|关于|有关)|(?:这块|这一块|这方面|方向|领域|相关|方面).*$|的?(?:问题|进展|新方法|新工作)"
)
# A clause asking for the papers on its theme: "X 有哪些新研究", "X 方向的论文", "总结一下 X".
_ASKS_FOR_PAPERS_ZH = re.compile(
    ASKS_ABOUT_ZH
    + r"(?:研究|工作|进展|论文|方法)|(?:论文|研究|工作|方法)都?有哪些|(?:方向|领域|这块|这一块|这方面|相关)的?(?:论文|研究|工作)|"
    + SUMMARY_VERBS_ZH
)
_INTERROGATIVE_ZH = re.compile(r"怎么|怎样|如何|为什么|为何|是否|吗|呢|哪|什么|多少|几")
# A corpus question's own words, when it names no theme after them ("What do papers mostly try to solve?").
_CORPUS_REQUEST = re.compile(
    r"\b(?:most|mostly|try|tries|trying|solve|solving|tackle|address|common|main|typical|usual|dominant|problems?|challenges?|questions?"
    r"|approaches|methods|techniques|directions|ideas|trends?|show|to)\b|主要|在?解决|什么|问题|常见的?|主流|方法|哪些",
    re.I,
)


def sole_theme(question: str) -> str:
    """The theme a question nothing answers may be asking about: a corpus question's ("What do most papers
    about X try to solve?"), or the one a question names when it names nothing else ("Overall, what is said
    of FooBench?"); "" when it asks about more ("How does AlphaFold2 predict a protein's 3D structure from its sequence?")."""
    if CORPUS_QUESTION.search(question):
        return theme_of(question)
    runs = [run for run in _read(_asked(question)).runs if run[0] >= 1]
    return theme_of(question) if len(runs) == 1 else ""


# A term the request puts in quotation marks, of two to six words: the name it gives its theme ("I keep
# hearing about 'thinking with images'"); not one word ("Keep it 'short'"), nor an example in brackets or after
# an aside's opener in its sentence (`_quoted`). A quotation mark opens after a space ("people's" has none).
_QUOTED = re.compile(r"(?:(?<=\s)|^)['\"‘“](?P<term>[^'\"‘’“”?!.,;:\s]+(?:\s+[^'\"‘’“”?!.,;:\s]+){1,5})['\"’”](?!\w)")
_IN_EXAMPLES = re.compile(rf"\b(?:{_EXAMPLE_OPENERS})\s(?:(?!\.\s+[A-Z])[^?!;:])*$", re.I)  # ("e.g." has full stops)


def _quoted(question: str) -> str:
    """The first term `_QUOTED` finds outside brackets and examples, in English; "" when none."""
    for match in _QUOTED.finditer(question):
        before = question[: match.start()]
        in_brackets = before.count("(") > before.count(")")
        if not in_brackets and not _CJK.search(match.group("term")) and not _IN_EXAMPLES.search(before):
            return match.group("term")
    return ""


def theme_of(question: str) -> str:
    """What a summary request is about ("" for the whole corpus). "、" lists terms ("模型剪枝、量化和知识
    蒸馏"), else parts clauses as a comma does ("扩散模型的方法、数据集和评测指标", "知识蒸馏的论文、并比较")."""
    theme, asked = _theme_of(question), _asked(question)  # (not what it leaves out, "除了A、B以外"; nor in brackets, "（不含A、B）")
    return theme if "、" not in asked or terms_zh(theme) else _theme_of(re.sub(r"、(?![^（(]*[）)])", "，", asked))


def _theme_of(question: str) -> str:
    if _WHOLE_CORPUS.search(question):
        return ""
    question = _asked(question)
    if quoted := _quoted(question):
        return quoted  # the asker's own name for the theme
    if _CJK_CLAUSES.search(question):
        # Chinese names its theme first and qualifies it after ("做水印的工作，给生成内容加的和给模型加的都算");
        # a question before the clause asking for papers is context ("怎么判断…？成员推断攻击有什么新进展？").
        clauses = [c for c in _CJK_CLAUSES.split(question) if _theme_run(_THEME_FRAME_ZH.sub(" ", c))]
        question = next((c for c in clauses if _ASKS_FOR_PAPERS_ZH.search(c) or not _INTERROGATIVE_ZH.search(c)), clauses[0] if clauses else question)
        question = _THEME_FRAME_ZH.sub(" ", question)
    # A corpus question's frame counts in the clause that names the theme: "Give me an overview of
    # offline RL. What are the main ideas for dealing with distribution shift?" is offline RL.
    question = theme_clause(question)
    if CORPUS_QUESTION.search(question) or _TRENDS.search(question):
        # Only in such a question: a summary request keeps the theme it always had.
        if match := _CORPUS_FRAME.search(question) or _CORPUS_FRAME_ZH.search(question):
            return " ".join(match.group("theme").split())
        return _theme_run(_CORPUS_REQUEST.sub(" , ", question))
    return _theme_run(question)


# What a theme gives as examples or asides: "preference optimization methods such as DPO",
# "multi-agent systems (debate, collaboration)", "reward models, including process reward models".
_EXAMPLES = re.compile(rf"\s*(?:\([^()]*\)|（[^（）]*）)|,?\s+\b(?:{_EXAMPLE_OPENERS}|{'|'.join(sorted(_RELATIVES))})\b.*$", re.I)
_EXAMPLE_OPENER = re.compile(rf"\b(?:{_EXAMPLE_OPENERS})(?=\s)", re.I)  # where an aside's examples begin


def theme_head(theme: str) -> str:
    """The theme without its examples and asides: a paper about it need not name those. (The
    search still reads them: they find papers.)"""
    return " ".join(_EXAMPLES.sub(" ", theme).split()).replace(" ,", ",").strip("?!.,;: ") or theme


