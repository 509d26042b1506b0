"""Routing: is a chat message a question to answer, a theme to summarize, papers to compare, or
a question about the set of papers (which, how many, the best reported) to list?

By wording, in English and Chinese, deterministic (the 135M default model cannot classify
reliably, and a router that needs no model also works with the `none` backend). The traps are
sentences that use the words of one mode to ask for another: "What baselines does ReST-KV compare
against?" and "How does Falcon compare to DiffCut on VOC?" ask what one paper reports (answer);
"Give me an overview of HELIX's method" and "Summarize the STAR-MD abstract" are about one paper
(answer); "Which is faster, SureLock or ReST-KV?" compares without saying so. Measured on
bench/routing_dev.jsonl by tests/test_routing.py. More traps: "Which paper proposes VideoAnchor?"
and "How many QA pairs does ENACT contain?" are about one paper (answer), "Which papers ..." and
"How many papers ..." about the set (list); "What do most papers about X try to solve?" and "the
common approaches to X" ask for a summary in other words.
"""

from __future__ import annotations

import re
from enum import StrEnum

from rag.errors import PaperchatError
from rag.overview_request import asks_for_overview
from rag.quantities import Quantity, quantity_asked
from rag.theme_request import ASKS_ABOUT_ZH, CORPUS_QUESTION, SUMMARY_VERBS_ZH


class Mode(StrEnum):
    """What a request asks for. The one list of modes: the CLI's --mode, the app's mode buttons
    and the `mode` of every answer come from here."""

    AUTO = "auto"  # decided by the wording (`route`)
    ANSWER = "answer"
    SUMMARIZE = "summarize"
    COMPARE = "compare"
    LIST = "list"
    CHECK = "check"  # a claim to check against the abstracts ("Is it true that ...?")


def parse_mode(text: str) -> Mode:
    try:
        return Mode(text)
    except ValueError:
        raise PaperchatError(f"Unknown mode {text!r}; use {', '.join(Mode)}.") from None


_COMPARE = re.compile(
    r"\b(?:compare|comparing|comparison|contrast|differ|differs|difference|differences|different|vs\.?|versus|consistent with)\b"
    r"|\bwhich(?: one)? (?:is|was|are) (?:\w+er|more|less|better|worse)\b.*\bor\b|\bor\b.*\bwhich(?: one)? (?:is|was|are) (?:\w+er|more|less|better|worse)\b"
    # Chinese: a request to compare ("比较一下 X 和 Y", "把 [1] 和 [3] 对比一下"), or a question about
    # differences ("X 和 Y 有什么区别"); "用小模型来比较不同数据配方" describes a paper instead.
    r"|(?:^|[，。？！；,;]\s*)(?:请|帮我|帮忙|能不能|可以)?\s*(?:比较|对比)|(?:比较|对比)一下"
    r"|什么(?:区别|不同|差异|异同)|(?:区别|不同|差异|异同)(?:是什么|在哪|有哪些)|哪(?:个|一个|篇).{0,10}更|相比.{0,12}(?:如何|怎么样|哪个)",
    re.I,
)
# Asking what one paper compares itself against, or what it found "compared with" a baseline.
_REPORTED_COMPARISON = re.compile(
    r"\b(?:does|did|do)\s+[\w\-.]+(?:'s)?(?:\s+\w+)?\s+compare\s+(?:against|to|with)\b"
    r"|\bcompared?\s+(?:with|to)\s+\S+\s*\??$|\bfind about\b.*\bcompared\b|\bcompares?\b[^?]*\bagainst\b"
    r"|\b(?:baselines?|methods)\b[^?]*\bcompare|哪些(?:方法|基线|模型)[^？?]*对比|与哪些",
    re.I,
)
# Said to the assistant ("…? Summarise them", "Please give me an overview"), not of the papers
# ("How many papers survey diffusion models?").
_SUMMARY_VERB = re.compile(r"(?:^|[.?!;:,]\s*)(?:please\s+|(?:can|could)\s+you\s+)?(?:summari[sz]e|give\s+me\s+an?\s+(?:overview|summary|survey))\b", re.I)
_SUMMARIZE = re.compile(
    r"\b(?:summari[sz]e|summary|summaries|overview|survey|digest|tl;?dr|trends?|landscape|say overall|main themes?)\b"
    r"|\bwhat (?:topics|themes|areas)\b|\bwhat does (?:the|this) (?:corpus|collection|conference)\b"
    r"|总结|概述|综述|概括|整理|梳理|盘点|涵盖|哪些主题|什么主题|趋势|要点",
    re.I,
)
# Chinese asks for an overview of a theme in other words than "总结": "有哪些关于 X 的研究",
# "X 这块有哪些新工作", "X 方向的论文都有哪些", "介绍一下 X 领域". Research (研究/工作/进展), not papers
# (论文: "哪些论文用了 LoRA" asks for a list).
_THEME_ZH = re.compile(
    ASKS_ABOUT_ZH + r"(?:研究|工作|进展)|(?:研究|工作|进展)有哪些"
    r"|(?:方向|领域|这块|这一块|这方面)的?(?:论文|研究|工作)?.{0,6}(?:有哪些|有什么|在做什么|都在做|怎么样)"
    r"|介绍一下.{0,20}(?:方向|领域|研究|工作)|分别(?:解决|研究|做)了?什么"
)
# Chinese summary verbs take the lead over a list frame: "X 的论文有哪些？简单介绍一下" asks for
# what they do, not only which they are.
_SUMMARY_VERB_ZH = re.compile(SUMMARY_VERBS_ZH + "|介绍一下")
# A summary of one paper is an answer: "the STAR-MD abstract", "HELIX's method", "this paper".
_ONE_PAPER = re.compile(
    r"\babstract\b|'s (?:main )?(?:method|approach|model|paper|idea|contributions?|results?|findings?)\b|\b(?:this|that|the) paper\b|\bin one sentence\b"
    r"|这篇|该论文|这个方法",
    re.I,
)
_PLURAL = re.compile(
    r"\bpapers\b|\bworks?\b|\bcorpus\b|\bcollection\b|\ball\b|\bevery\b|\beverything\b|这些|所有|全部|哪些|相关的?(?:论文|研究|工作)|语料", re.I
)


# A request for papers rather than about one paper: "which (oral) papers", "list the papers", "are
# there any papers", "how many papers (are there)", "any papers on", "do any papers", "papers that
# ..." ("which paper" and "find the paper" ask for one). The words before "papers" ("which NLP
# papers") are kept in the group `kind`. Also what rag.criteria takes off a list question.
_PAPERS = r"(?:papers|works|studies|articles|abstracts|submissions)\b"
_KIND = r"(?P<kind{n}>(?:[\w\-]+\s+){{0,{most}}}?)"
LIST_REQUEST = re.compile(
    rf"^\W*(?:please\s+|(?:can|could) you\s+)*(?:which\s+{_KIND.format(n=1, most=4)}|what\s+(?=papers\s+(?!does|do|did)))" + _PAPERS
    + rf"|\b(?:list|show|find|give|name|count)(?:\s+me)?\s+(?:(?:all|every|the|any)\s+)*{_KIND.format(n=2, most=3)}" + _PAPERS
    + r"|\b(?:list|show|find|name|count)\s+(?:every|each|any)\s+paper\b"
    + rf"|\bare\s+there\s+(?:any\s+)?{_KIND.format(n=3, most=3)}" + _PAPERS
    + rf"|\bhow\s+many\s+{_KIND.format(n=4, most=3)}" + _PAPERS + r"(?:\s+are\s+there)?"
    + rf"|\b(?:is\s+there\s+any|do(?:es)?\s+any|any)\s+{_KIND.format(n=5, most=2)}(?:papers?|works?|studies|submissions)\b"
    + rf"|\blooking\s+for\s+{_KIND.format(n=6, most=2)}" + _PAPERS
    + r"|^\W*(?!(?:summari[sz]e|overview|survey|compare|contrast|tell|describe|explain|give)\b)(?:all\s+)?(?:the\s+)?"
    + rf"{_KIND.format(n=7, most=3)}papers\b(?=\s+(?:that|which|using|evaluat\w*|propos\w*|about|on)\b)",
    re.I,
)
# The same in Chinese: "哪些论文…", "哪些口头报告论文…", "有没有使用 LoRA 的论文", "有多少篇…", "…的研究有哪些".
LIST_REQUEST_ZH = re.compile(r"哪些.{0,8}(?:论文|文章|工作)|有没有[^？?。！!]{0,30}(?:论文|文章|工作)|多少篇|(?:论文|研究|工作)有哪些")
# "哪些论文用到了 X": the papers are asked for by what they do, a list even when an area frames it
# ("生成模型领域有哪些论文用到了 classifier-free guidance？").
_PAPERS_THAT_ZH = re.compile(r"哪些(?:论文|文章|工作)都?(?:用到|用了|使用|采用|基于|提出|引入|结合|评测)")
# "the best speedup reported for X", "the highest accuracy on GSM8K": a superlative of a quantity
# the papers state, said of a topic or of the corpus.
_EXTREME_FRAME = re.compile(r"\b(?:reported|stated|achieved|claimed|for|on|in|across|among)\b|报告|论文", re.I)


# A claim given to be checked: "Is it true that SureLock cuts FLOPs by 60–80%?", "Fact-check: ...",
# "..., right?", "SureLock 把 FLOPs 减少了 60–80%，这是真的吗？". The words that ask, once: rag/check.py
# takes the same words off the claim.
CHECK_OPENING = (
    r"(?:is\s+it\s+(?:really\s+)?(?:true|correct|right|the\s+case|accurate)(?:\s+that)?|true\s+or\s+false\s*:?"
    r"|fact[- ]?check(?:\s+(?:this|the\s+claim))?\s*:?|(?:please\s+)?(?:verify|check)(?:\s+(?:the|this)\s+claim|\s+(?:that|whether|if)\b|\s*:))"
)
CHECK_CLOSING = r"(?:(?:—|–|-)\s*)?(?:is\s+(?:this|that)\s+(?:claim\s+)?(?:true|correct|accurate)|true\s+or\s+false|right)\s*\?"
CHECK_OPENING_ZH = r"(?:请)?(?:核实|核查|查证)(?:一下)?[：:]?"
CHECK_CLOSING_ZH = r"(?:这|这个说法|这种说法|该说法)?(?:是真的吗|是否属实|属实吗|是不是真的|对吗|准确吗)[？?]?"
CHECK_REQUEST = re.compile(rf"^\W*{CHECK_OPENING}|[,;:.\s]{CHECK_CLOSING}\s*$|{CHECK_CLOSING_ZH}\s*$|^\W*{CHECK_OPENING_ZH}", re.I)


def extreme_asked(question: str) -> Quantity | None:
    """The quantity a question asks the largest reported value of, or None."""
    return quantity_asked(question) if _EXTREME_FRAME.search(question) else None


def route(question: str) -> Mode:
    """The mode a question's wording asks for: never AUTO."""
    if CHECK_REQUEST.search(question):
        return Mode.CHECK
    theme_zh = _THEME_ZH.search(question) or (LIST_REQUEST_ZH.search(question) and _SUMMARY_VERB_ZH.search(question))
    listing = LIST_REQUEST.search(question) or (LIST_REQUEST_ZH.search(question) and (not theme_zh or _PAPERS_THAT_ZH.search(question)))
    # "Any papers on X? Summarise them": the summary verb takes the lead, as in Chinese.
    if (listing and not CORPUS_QUESTION.search(question) and not _SUMMARY_VERB.search(question)) or extreme_asked(question):
        return Mode.LIST
    if CORPUS_QUESTION.search(question) or (theme_zh and not _ONE_PAPER.search(question)):
        return Mode.SUMMARIZE
    if _COMPARE.search(question) and not _REPORTED_COMPARISON.search(question):
        return Mode.COMPARE
    if _SUMMARIZE.search(question) and (not _ONE_PAPER.search(question) or _PLURAL.search(question)):
        return Mode.SUMMARIZE
    if asks_for_overview(question) and not _ONE_PAPER.search(question):
        return Mode.SUMMARIZE
    return Mode.ANSWER
