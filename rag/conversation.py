"""Conversations: which earlier papers a question refers to, and what to search for.

Deterministic, so that it works with the 135M default model (which cannot rewrite a question
reliably): "the second one", "[2]", "第二篇" pick a source of the previous turn; "it", "its",
"this method", "tell me more", "它" pick the paper the previous answer was mostly about;
"them", "both", "these", "它们" pick the papers it cited. The search query folds in what the
earlier turn searched for, so "what about its speed?" searches for speed *and* that topic.
A capable backend may rewrite the question on top of this (`condense`, CONDENSE_QUESTION).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rag import prompts
from rag.errors import PaperchatError
from rag.llm import describe_failure
from rag.records import Page, Turn
from rag.text import CITATION, citations, cited_numbers, language_of

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

log = logging.getLogger(__name__)
# What a capable backend's rewrite may be at most; a longer one is a model rambling.
MAX_REWRITE_CHARS = 500
# Earlier questions shown to the rewrite: the last few carry the topic.
REWRITE_TURNS = 3
# The longest conversation one history (or one browser session) holds. Follow-ups read only the last
# few turns, but the app keeps every turn's document and source cards (4.6-16 KB and up to ~15 KB
# of cards a turn, on the seeds) for the export: 50 turns bound a session near 1.5 MB, and the
# app's 1,000 sessions (ui/app.MAX_SESSIONS) near 1.5 GB.
MAX_TURNS = 50

_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "last": -1,
    "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6,
}  # fmt: skip
_ORDINAL_EN = re.compile(r"\b(?:the\s+)?(first|second|third|fourth|fifth|sixth|last)\s+(?:one|paper|source|result|method|work)\b", re.I)
# A citation ("[2]", "[1, 3]") or a numbered reference ("paper 2", "source #3").
_NUMBERED = re.compile(rf"{CITATION.pattern}|\b(?:paper|source|result|reference|ref\.?|no\.?|number|#)\s*#?(\d+)\b", re.I)
_ORDINAL_ZH = re.compile(r"第\s*([一二三四五六1-6])\s*(?:篇|个|项|条|种)")
_PLURAL = re.compile(r"\b(?:them|both|these|those|they|their|each other|all of them|the two|these papers|those papers)\b|它们|这些|这两|两篇|二者|两者", re.I)
_SINGULAR = re.compile(
    r"\b(?:it|its|it's|the paper|the method|the approach|the model|the authors|this (?:paper|method|approach|model|work|one)|"
    r"that (?:paper|method|approach|model|work|one)|tell me more|more details?|go on|elaborate|what about|how about)\b"
    r"|它|这篇|该(?:方法|论文|模型|工作)|这个|那篇|那个|更多|详细|继续",
    re.I,
)


@dataclass(frozen=True)
class Resolved:
    query: str  # what retrieval searches for
    pinned: tuple[str, ...] = ()  # paper ids the question refers to; retrieval is limited to them


def resolve(question: str, history: Sequence[Turn], named: Callable[[str], list[str]]) -> Resolved:
    """`named(text)`: papers the text names by their own coined name (rag.lexical)."""
    if not history:
        return Resolved(question)
    last = history[-1]
    folded = f"{question} {last.query or last.question}"
    picked = _numbered(question, last.source_ids)
    if picked:
        return Resolved(folded, picked)
    if named(question):
        # A question that names a paper starts from that paper, whatever its pronouns say.
        return Resolved(question)
    focus = last.cited_ids or last.source_ids
    if _PLURAL.search(question) and focus:
        return Resolved(folded, tuple(focus[:3]))
    if _SINGULAR.search(question) and focus:
        return Resolved(folded, focus[:1])
    return Resolved(question)


def referenced(question: str, history: Sequence[Turn]) -> tuple[str, ...]:
    """Earlier papers a request points at: "[1] and [3]", "the first two", "them", "这两篇"."""
    if not history:
        return ()
    last = history[-1]
    picked = _numbered(question, last.source_ids)
    if re.search(r"\bfirst (?:two|2)\b|前两", question):
        picked = tuple(dict.fromkeys([*picked, *last.source_ids[:2]]))
    if not picked and _PLURAL.search(question):
        # "Summarise them" after a list: every paper of its page, not the first three cited.
        picked = tuple(last.source_ids if last.page is not None else (last.cited_ids or last.source_ids)[:3])
    return picked


def names_something(question: str) -> bool:
    """A capitalised word after the first, or a number: "What is the capital of France?" is a
    new subject, not a follow-up, even in a conversation ("What turned out to be the bottleneck?" is)."""
    words = question.split()
    return any(w[:1].isupper() for w in words[1:]) or any(c.isdigit() for c in question)


def condense(chat: BaseChatModel | None, capable: bool, question: str, history: Sequence[Turn], query: str) -> str:
    """With a capable backend: the question rewritten to stand alone, in English (the index
    reads only English). Otherwise, or if the rewrite fails, the deterministic `query`."""
    if not capable or chat is None or (not history and language_of(question) == "en"):
        return query
    lines = "\n".join(f"User: {turn.question}" for turn in history[-REWRITE_TURNS:])
    try:
        rewritten = str(chat.invoke(prompts.CONDENSE_QUESTION.format(history=lines or "(none)", question=question)).content)
    except Exception as exc:  # the backend is down: the deterministic query still works
        log.warning("The LLM backend failed to rewrite the question; searching for it as asked: %s", describe_failure(exc))
        return query
    rewritten = " ".join(rewritten.split())[:MAX_REWRITE_CHARS]
    return rewritten if rewritten and language_of(rewritten) == "en" else query


def resolve_as_followup(question: str, history: Sequence[Turn]) -> Resolved:
    """The question taken as being about the paper the last turn was mostly about."""
    last = history[-1]
    focus = last.cited_ids or last.source_ids
    return Resolved(f"{question} {last.query or last.question}", tuple(focus[:1]))


def _numbered(question: str, source_ids: Sequence[str]) -> tuple[str, ...]:
    numbers: list[int] = []
    for match in _NUMBERED.finditer(question):
        numbers += cited_numbers(match.group(1)) if match.group(1) else [int(match.group(2))]
    numbers += [_ORDINALS[m.group(1).lower()] for m in _ORDINAL_EN.finditer(question)]
    numbers += [_ORDINALS[m.group(1)] for m in _ORDINAL_ZH.finditer(question)]
    picked: list[str] = []
    for n in numbers:
        index = len(source_ids) - 1 if n == -1 else n - 1
        if 0 <= index < len(source_ids) and source_ids[index] not in picked:
            picked.append(source_ids[index])
    return tuple(picked)


def turns_from_history(history: object) -> list[Turn]:
    """Earlier turns from `paperchat ask --history FILE`: a JSON list, oldest first, of
    {"q": question, "result": what `ask --json` printed for it}."""
    if not isinstance(history, list):
        raise PaperchatError('The history must be a JSON list of earlier turns, oldest first: [{"q": "...", "result": {...}}, ...].')
    if len(history) > MAX_TURNS:
        raise PaperchatError(
            f"The history has {len(history):,} turns; a conversation holds at most {MAX_TURNS}. "
            f"Pass the last {MAX_TURNS} (follow-ups read only the most recent), or start a new conversation."
        )
    turns: list[Turn] = []
    for number, item in enumerate(history, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("q"), str):
            raise PaperchatError(f'Turn {number} of the history is not an object with a string "q" (and the "result" ask printed for it).')
        result = item.get("result") or {}
        if not isinstance(result, dict):
            raise PaperchatError(f'Turn {number} of the history: "result" must be the JSON object `paperchat ask --json` printed.')
        listed = result.get("sources") or []
        if not isinstance(listed, list):
            raise PaperchatError(f'Turn {number} of the history: "sources" must be the list `paperchat ask --json` printed.')
        sources = [s for s in listed if isinstance(s, dict) and isinstance(s.get("paper_id"), str)]
        by_n = {s["n"]: s["paper_id"] for s in sources if isinstance(s.get("n"), int)}
        answer = result.get("answer")
        answer = answer if isinstance(answer, str) else ""
        cited = [by_n[n] for n in citations(answer) if n in by_n]
        page = result.get("page")
        turns.append(
            Turn(
                question=item["q"],
                source_ids=tuple(s["paper_id"] for s in sources),
                cited_ids=tuple(dict.fromkeys(cited)),
                query=str(result.get("query") or item["q"]),
                mode=str(result.get("mode") or ""),
                page=Page(page["number"], page["size"], page["total"]) if isinstance(page, dict) and _is_page(page) else None,
            )
        )
    return turns


def _is_page(page: object) -> bool:
    return isinstance(page, dict) and all(isinstance(page.get(k), int) and page[k] >= 0 for k in ("number", "size", "total")) and page["size"] > 0


# "more", "next page please", "continue", "show the rest", "下一页", "更多": the next page of the list
# the last answer began.
_NEXT_PAGE = re.compile(
    r"^\s*(?:(?:show|list|give|see)(?: me)?\s+)?(?:the\s+)?"
    r"(?:next(?:\s+page|\s+\d+|\s+ones)?|more(?:\s+papers)?|the rest|rest|remaining(?:\s+papers)?|others|continue|go on|keep going)"
    r"(?:\s*,?\s*please)?\s*[.!?]*\s*$|^\s*(?:下一页|更多|更多论文|其余的|剩下的|继续)\s*[。！？]*\s*$",
    re.I,
)


def next_page(question: str, history: Sequence[Turn]) -> Turn | None:
    """The earlier list turn whose next page `question` asks for ("more", "next page"), or None.
    After its last page too: the list then says there is no further page."""
    last = history[-1] if history else None
    if last is None or last.page is None or not last.page.total or not _NEXT_PAGE.search(question):
        return None
    return last
