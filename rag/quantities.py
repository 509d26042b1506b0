"""Quantities an abstract states as numbers (speedup, compression, memory reduction, throughput,
accuracy): how a question asks for the largest one, and which values of a sentence report it.

A value reports a quantity only when the quantity's words stand next to it ("2.3× speedup",
"2.3× faster", "a speedup of 2.3×", "reduces memory by 40%"): in "50× smaller and 10× faster", 50×
is no speedup, and in "a 14× reduction in time-to-first-token", 14× is no throughput.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Quantity:
    name: str  # as an answer says it: "speedup"
    asked: re.Pattern[str]  # words of a question that ask for it
    cue: re.Pattern[str]  # words next to a value that report it
    units: tuple[str, ...]  # "×", "%": the units it is stated in, preferred first
    name_zh: str = ""  # as a Chinese answer says it: "加速比"


# A value times another ("2.81$\times$", "*56.7x*", "$\mathbf{61.4\times}$", "128×", "3-fold"),
# not a size ("512$\times$512", "3x3").
_TIMES = r"(\d+(?:\.\d+)?)\s*(?:\$?\s*\\times\s*\}?\$?|×|x(?![A-Za-z0-9])|-fold\b|\s+times\b)(?!\s*\$?\s*\d)"
_PERCENT = r"(\d+(?:\.\d+)?)\s*(?:\\?%|percent\b)"
UNITS = {"×": re.compile(_TIMES), "%": re.compile(_PERCENT)}
# How near a value a quantity's word must stand, in characters: "achieves up to 4.32x speedup" is
# 1 apart, "speedup ratios ranging from 2.24x to 4.32x" 25; another clause is further.
CUE_DISTANCE = 40
# Words of other quantities: a value nearer one of them than to the asked quantity's words is
# theirs ("4.72x speedup and 6.4x memory reduction": 6.4x is no speedup).
_OTHER = re.compile(r"reduc\w*|smaller|fewer|less|lower|larger|parameters?|size|memory|compress\w*|throughput|accura\w*|speed\w*|faster|acceler\w*", re.I)
# Another clause between a value and the words: "shortens CoT by 80.1% while improving accuracy by 2%".
_CLAUSE = re.compile(r"\b(?:while|whereas|but|although|though|yet|which)\b|;")

_SPEEDUP_ASKED = re.compile(r"\bspeed[- ]?ups?\b|\bfastest\b|\bfaster\b|\bacceleration\b|加速", re.I)
QUANTITIES = (
    Quantity("speedup", _SPEEDUP_ASKED, re.compile(r"speed(?:s|ed|ing)?[- ]?ups?|faster|acceler\w*", re.I), ("×",), "加速比"),
    Quantity("compression", re.compile(r"\bcompression\b|压缩", re.I), re.compile(r"compress\w*", re.I), ("×",), "压缩比"),
    Quantity("memory reduction", re.compile(r"\bmemory\b|内存|显存", re.I), re.compile(r"memory", re.I), ("×", "%"), "内存节省"),
    Quantity("throughput", re.compile(r"\bthroughput\b|吞吐", re.I), re.compile(r"throughput", re.I), ("×",), "吞吐量提升"),
    Quantity("accuracy", re.compile(r"\baccuracy\b|准确率", re.I), re.compile(r"accura\w*", re.I), ("%",), "准确率"),
)
# A superlative of its own: not "top-k", "best-of-n" or "max pooling".
SUPERLATIVE = re.compile(r"(?<![\w-])(?:best|largest|highest|biggest|greatest|maximum|fastest|most)(?![\w-])|最高|最大|最快|最好", re.I)


def quantity_asked(question: str) -> Quantity | None:
    """The quantity a question asks the largest of: the one named first after its superlative
    ("the largest memory reduction reported for KV cache compression" asks for memory), or None."""
    superlative = SUPERLATIVE.search(question)
    if superlative is None:
        return None
    named = [(m.start(), q) for q in QUANTITIES for m in q.asked.finditer(question) if m.start() >= superlative.start()]
    return min(named, key=lambda pair: pair[0])[1] if named else None


def values(quantity: Quantity, sentence: str) -> list[tuple[float, str, str]]:
    """(value, as written, unit) of every value of `quantity` the sentence states next to its
    words, with no other value between them ("50× smaller and 10× faster": only 10× is a speedup;
    a range, "from 2.24x to 4.32x", is one statement)."""
    cues = [m.span() for m in quantity.cue.finditer(sentence)]
    others = [m.span() for m in _OTHER.finditer(sentence) if not any(a <= m.start() < b for a, b in cues)]
    groups = _statements(sentence)
    found = []
    for unit in quantity.units:
        for match in UNITS[unit].finditer(sentence):
            group = next(g for g in groups if g[0] <= match.start() and match.end() <= g[1])
            if min(map(_distance(group), others), default=CUE_DISTANCE + 1) < min(map(_distance(group), cues), default=CUE_DISTANCE + 1):
                continue
            for start, end in cues:
                gap = (group[1], start) if start >= group[1] else (end, group[0])
                between = any(gap[0] <= a and b <= gap[1] for a, b in groups) or _CLAUSE.search(sentence[gap[0] : gap[1]])
                if 0 <= gap[1] - gap[0] <= CUE_DISTANCE and not between:
                    found.append((float(match.group(1)), match.group(1), unit))
                    break
    return found


def _distance(group: tuple[int, int]) -> Callable[[tuple[int, int]], int]:
    return lambda span: span[0] - group[1] if span[0] >= group[1] else group[0] - span[1]


def _statements(sentence: str) -> list[tuple[int, int]]:
    """The spans of the values a sentence states, a range ("2.24x to 4.32x", "30–50%") as one."""
    spans = sorted((m.start(), m.end()) for pattern in UNITS.values() for m in pattern.finditer(sentence))
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and re.fullmatch(r"\s*(?:to|–|-|~|and)\s*", sentence[merged[-1][1] : start]):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged
