"""Quantities an abstract states as numbers (speedup, compression, memory, throughput, accuracy):
how a question asks for the largest one, how a sentence reports one, and how its value is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Quantity:
    name: str  # as an answer says it: "speedup"
    asked: re.Pattern[str]  # words of a question that ask for it
    cue: re.Pattern[str]  # words of a sentence that reports it
    number: re.Pattern[str]  # a value with its unit; group 1 is the number
    unit: str


# A value times another ("2.81$\times$", "*56.7x*", "$\mathbf{61.4\times}$", "128×", "3-fold"),
# not a size ("512$\times$512", "3x3").
_TIMES = re.compile(r"(\d+(?:\.\d+)?)\s*(?:\$?\s*\\times\s*\}?\$?|×|x(?![A-Za-z0-9])|-fold\b|\s+times\b)(?!\s*\$?\s*\d)")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*(?:\\?%|percent\b)")
_SPEEDUP_ASKED = re.compile(r"\bspeed[- ]?ups?\b|\bfastest\b|\bfaster\b|\bacceleration\b", re.I)
QUANTITIES = (
    Quantity("speedup", _SPEEDUP_ASKED, re.compile(r"speed|faster|acceler|latency", re.I), _TIMES, "×"),
    Quantity("compression", re.compile(r"\bcompression\b", re.I), re.compile(r"compress", re.I), _TIMES, "×"),
    Quantity("memory reduction", re.compile(r"\bmemory\b", re.I), re.compile(r"memory", re.I), _TIMES, "×"),
    Quantity("throughput", re.compile(r"\bthroughput\b", re.I), re.compile(r"throughput", re.I), _TIMES, "×"),
    Quantity("accuracy", re.compile(r"\baccuracy\b|\bscore\b", re.I), re.compile(r"accura|score", re.I), _PERCENT, "%"),
)
SUPERLATIVE = re.compile(r"\b(?:best|largest|highest|biggest|greatest|maximum|max|top|fastest|most)\b|最高|最大|最快|最好", re.I)


def quantity_asked(question: str) -> Quantity | None:
    """The quantity a question asks the largest of ("the best reported speedup"), or None."""
    if not SUPERLATIVE.search(question):
        return None
    return next((q for q in QUANTITIES if q.asked.search(question)), None)
