"""The aspects of a paper a reader asks about — its problem, approach, data, results, cost,
limitations, the baselines it is compared with, its code or link, its authors — the words of a
question that ask for one, and the cue words of an abstract sentence that states one.

One definition for the compare mode's table (rag/compare.py: a cell per aspect) and for an answer
to an aspect question (rag/answer.py: "What are the limitations of SureLock?" is answered from the
sentences that state limitations, or says the abstract states none). The cue words are strict:
an aspect that no sentence states is reported as not stated, never guessed.
"""

from __future__ import annotations

import re

from rag import prompts
from rag.evidence import CONTRIBUTION

# The table's aspects in order, by their names in the catalogue (rag/prompts.py): the English text
# is an aspect's key (of CUES below, and of the comparison JSON's "aspects"), `say` its header.
TABLE_ASPECT_MESSAGES = ("ASPECT_PROBLEM", "ASPECT_APPROACH", "ASPECT_DATA", "ASPECT_RESULTS", "ASPECT_COST", "ASPECT_LIMITATIONS")
TABLE_ASPECTS: tuple[str, ...] = tuple(prompts.say(name) for name in TABLE_ASPECT_MESSAGES)
PROBLEM, APPROACH, DATA, RESULTS, COST, LIMITATIONS = TABLE_ASPECTS
# Aspects a question asks about that the table has no column for.
BASELINES = prompts.say("ASPECT_BASELINES")
CODE = prompts.say("ASPECT_CODE")
AUTHORS = prompts.say("ASPECT_AUTHORS")
# Each aspect's message in the catalogue: how it is said in the reader's language ("does not
# state its limitations", not "its stated limitations").
MESSAGES = dict(zip(TABLE_ASPECTS, TABLE_ASPECT_MESSAGES, strict=True)) | {
    BASELINES: "ASPECT_BASELINES", CODE: "ASPECT_CODE", AUTHORS: "ASPECT_AUTHORS", LIMITATIONS: "ASPECT_LIMITATIONS_ASKED",
}  # fmt: skip

# The cue words of a sentence that states each aspect.
CUES: dict[str, re.Pattern[str]] = {
    PROBLEM: re.compile(
        r"\b(?:however|challenge|challenging|problem|struggle|fail|fails|lack|lacks|remain|remains|bottleneck|suffer|suffers|"
        r"limited|costly|expensive|difficult|overlook|unclear|hinder)\b",
        re.I,
    ),
    APPROACH: CONTRIBUTION,
    # The words, or a named benchmark after "on" (LongBench, RULER, VOC, LIBERO): case-sensitive part.
    DATA: re.compile(
        r"\b(?:[Dd]atasets?|[Bb]enchmarks?|[Cc]orpus|[Cc]orpora|evaluated on|experiments on|suite)\b|\bon (?:the )?[A-Z][\w\-]*[A-Z0-9][\w\-]*"
        r"|\([A-Z][\w\- ]*\d[^)]*\)"
    ),
    RESULTS: re.compile(
        r"\b(?:outperform\w*|state-of-the-art|sota|surpass\w*|improv\w*|achiev\w*|accuracy|gains?|better|matches|competitive)\b|\d+(?:\.\d+)?\s*(?:%|\\%)",
        re.I,
    ),
    COST: re.compile(
        r"\b(?:faster|speed\w*|latency|flops|memory|compute|computation\w*|cost\w*|efficien\w*|throughput|real-time|seconds|overhead|lightweight)\b"
        r"|\d+(?:\.\d+)?\s*\$?\s*(?:\\times|×|x)\b",
        re.I,
    ),
    # Only the paper's own limits: "existing methods are limited" is the problem, not this.
    LIMITATIONS: re.compile(
        r"\b(?:our (?:method|approach|model|framework) (?:is|does|cannot|can not|requires)|future work|we leave|limitations? of our|"
        r"remains? (?:an )?open|does not (?:yet )?(?:handle|address|scale)|assum(?:e|es|ing|ption)|provided that|only (?:when|if)|impossible)\b",
        re.I,
    ),
    BASELINES: re.compile(
        r"\b(?:outperform\w*|surpass\w*|baselines?|compared (?:to|with|against)|comparison with|relative to|versus|"
        r"over (?:the )?(?:state-of-the-art|prior|existing|strong))\b|\bthan (?:prior|existing|previous|standard|the (?:best|strongest|previous|prior))\b",
        re.I,
    ),
    CODE: re.compile(
        r"https?://|\bgithub\b|\b(?:code|models?|data(?:set)?s?|implementation)\b[^.]{0,40}\b(?:available|released|open-sourced?|provided|included)\b"
        r"|\bproject page\b|\bsupplementary material\b",
        re.I,
    ),
}

# The words of a question that ask for an aspect, English and Chinese. Results and approach are what
# any question about a paper gets; these are the aspects a reader names.
_ASKED: dict[str, re.Pattern[str]] = {
    LIMITATIONS: re.compile(
        r"\b(?:limitations?|limits|weakness(?:es)?|drawbacks?|shortcomings?|downsides?|fail(?:ure)? cases?|unsolved|left open|open problems?)\b"
        r"|局限|不足|缺点|缺陷",
        re.I,
    ),
    DATA: re.compile(r"\b(?:datasets?|benchmarks?|what data|corpus|corpora|evaluated on|evaluate on|tested on|test on)\b|数据集|基准", re.I),
    BASELINES: re.compile(r"\b(?:baselines?|compared? (?:against|to|with)|competitors?|outperform|beat)\b|基线|对比了?哪些|和哪些方法", re.I),
    CODE: re.compile(r"\b(?:code|github|repo(?:sitory)?|links?|urls?|project page|open[- ]source[d]?|download)\b|代码|链接|开源|网址", re.I),
    AUTHORS: re.compile(r"\b(?:who (?:are|were) the authors|authors? (?:of|list)|author names|who (?:wrote|proposed|published))\b|作者是|谁写", re.I),
    COST: re.compile(r"\b(?:cost|efficien\w*|speed|latency|memory|flops|how fast|overhead|runtime)\b|开销|速度|效率|内存|显存", re.I),
    RESULTS: re.compile(r"\b(?:results?|reports?|findings?|how well|performance|accuracy)\b|结果|效果|性能|发现", re.I),
}
# When a question names several, the most specific wins ("the results on which datasets" asks for data).
_ORDER = (AUTHORS, CODE, LIMITATIONS, BASELINES, DATA, COST, RESULTS)
# A link question asks for the paper itself, not for its code: the record's own URL answers it.
LINK_ASKED = re.compile(r"\b(?:link|url|where (?:can i|to) (?:find|read)|the paper(?:'s)? page)\b|链接|网址", re.I)


# A question that asks what a named paper is or does, in general: answered with what it does and
# what it reports ("What does SureLock do?", "Tell me about ReST-KV", "SureLock 是做什么的？").
GENERAL = re.compile(
    r"^\W*(?:what\s+(?:does|is|are)\s+\S+(?:\s+\S+)?\s+(?:do|about|for)?\s*\??$|what\s+is\s+\S+(?:\s+\S+)?\s*\??$|tell\s+me\s+about|describe|explain|summari[sz]e)"
    r"|是做什么的|是什么|讲了什么|介绍一下",
    re.I,
)


def aspect_asked(question: str) -> str | None:
    """The aspect a question about a paper asks for, or None (what it does, in general)."""
    return next((aspect for aspect in _ORDER if _ASKED[aspect].search(question)), None)


def own_part(sentences: list[str], contribution: str) -> list[str]:
    """The sentences from where the abstract says what the paper does onward: its own work, not
    the background it opens with ("However, existing methods still recompute ...")."""
    start = sentences.index(contribution) if contribution in sentences else 0
    return sentences[start:]


def stating(aspect: str, sentences: list[str]) -> list[str]:
    """The sentences that state `aspect`, most cue words first (the abstract's order on ties)."""
    pattern = CUES.get(aspect)
    if pattern is None:
        return []
    scored = sorted(((len(pattern.findall(s)), -i) for i, s in enumerate(sentences) if pattern.search(s)), reverse=True)
    return [sentences[-i] for _, i in scored]
