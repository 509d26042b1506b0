"""A Chinese claim read against the English sentence the multilingual encoder puts nearest it, by
the English rules' ideas in Chinese cue words: its negation, its direction, prior work as its
subject and its strong words must be the sentence's. `claim_findings` sends each claim to its rules."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.entailment import FALL_SHORT, NEGATION, PRIOR_CONTEXT, Finding, direction_pairs, said_as_strongly, tokens, word_findings
from rag.text import CJK, plain

_ZH_NEGATION = re.compile(r"不(?!同|断|仅|少|久|论)|没有|无需|无须|无法|未|免|并非|而非|缺乏|避免|无(?!关|论)")
# English words that Chinese says with a negation: "invariant to" is "不受……影响", "independent of" "不依赖".
_NOT_AFFECTED = frozenset("invariant independent independently regardless irrespective unaffected insensitive agnostic unchanged".split())
_ZH_REQUIRES = re.compile(r"需要|需|要求|依赖")
_NO_NEED = re.compile(
    r"\b[\w-]+-free\b|\bwithout\b|\bno need\b|\bavoids?\b|\bnot require|\bno (?:additional |extra )?(?:training|fine-tuning|retraining)\b", re.I
)
# What a sentence says a method cannot do, as plainly in any clause ("they fail to maintain ...").
_FAILS = re.compile(r"\b(?:fails?|failed|cannot|unable|struggles?|falls? short)\b", re.I)
_ZH_UP = re.compile(r"提高|提升|增加|增强|加快|更快|更高|更多|多用|优于|超过|超越|扩大|加剧|高出|上升|更强|更好")
_ZH_DOWN = re.compile(r"降低|减少|下降|减小|缩短|更低|更慢|更少|少用|劣于|不如|缩小|缓解|削弱|更差")
_ZH_PRIOR = re.compile(r"^(?:大多数|多数|许多|很多)?(?:现有|以往|传统|此前|之前|已有|过去)")
_ZH_STRONG = {
    "所有": "all", "全部": "all", "总是": "all", "始终": "all", "任何": "all", "一切": "all", "证明": "prove", "最先进": "state of the art", "唯一": "only",
}  # fmt: skip


def chinese_findings(claim: str, aligned: Sequence[str]) -> list[Finding]:
    if not aligned:
        return []
    sentence = plain(aligned[0])
    words = tokens(sentence)
    found = []
    claim_negates = bool(_ZH_NEGATION.search(claim))

    def negates(text: str) -> bool:
        return any(w in NEGATION or w in _NOT_AFFECTED or w.endswith(("-free", "-agnostic")) for w in tokens(text)) or bool(FALL_SHORT.search(text))

    # A negation the claim adds to what no sentence it is nearest negates; or a requirement it states
    # ("需要重新训练") where the sentence it restates says the method needs none ("training-free").
    if claim_negates and not any(negates(plain(s)) for s in aligned):
        found.append(Finding("negation", "adds a negation the abstract does not state"))
    elif not claim_negates and _ZH_REQUIRES.search(claim) and _NO_NEED.search(sentence):
        found.append(Finding("negation", "says it needs what the abstract says it does without"))
    elif not claim_negates and _FAILS.search(sentence):
        found.append(Finding("negation", "drops the abstract's negation ('fails', 'cannot')"))
    signs = {sign for _, sign, _ in direction_pairs(words)}
    claimed = {1} if _ZH_UP.search(claim) else set()
    claimed |= {-1} if _ZH_DOWN.search(claim) else set()
    if claimed and signs and not claimed & signs:
        found.append(Finding("direction", "moves it the other way from the abstract"))
    if _ZH_PRIOR.search(claim) and not any(PRIOR_CONTEXT.search(plain(s)) for s in aligned):
        found.append(Finding("subject", "gives prior work what the abstract says of the proposed method"))
    strong = {group for word, group in _ZH_STRONG.items() if word in claim}
    if missing := sorted(strong - said_as_strongly(" ".join(plain(s) for s in aligned))):
        found.append(Finding("overclaim", f"claims '{missing[0]}', which the abstract does not"))
    return found


def claim_findings(claim: str, sentences: Sequence[str], aligned: Sequence[str]) -> list[Finding]:
    """Every objection of the word rules: a claim mostly in Chinese by its cue words, else the English rules."""
    if len(CJK.findall(claim)) >= len(tokens(claim)):
        return chinese_findings(claim, aligned)
    return word_findings(claim, sentences, aligned)
