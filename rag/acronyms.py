"""Acronyms an abstract defines ("Fréchet Inception Distance (FID)") and their spelled-out forms,
so that a claim saying either is read as saying the same thing."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag.entailment import FUNCTION_WORDS
from rag.label_names import expansion_before, explains

# "(FID)", "(SecPE)", "(HWE)", "(LLMs)": a parenthesised token with two capitals at least.
_DEFINED = re.compile(r"\(\s*([A-Za-z0-9][\w\-]{0,15}?[A-Z][\w\-]{0,15}?)(s?)\s*[);,]")  # bounded: no slow scans
# An acronym said without being defined ("LMs" where the abstract says "language models"):
# capitals only, a plural "s" aside.
_BARE_ACRONYM = re.compile(r"[A-Z]{2,5}s?")
_WORD = re.compile(r"[^\W\d_]+")
_CLAUSE = re.compile(r"[,;:.()]")


def defined_acronyms(text: str) -> dict[str, str]:
    """Each acronym the text defines, with the words it stands for: {"FID": "Fréchet Inception Distance"}."""
    found: dict[str, str] = {}
    text = text.replace("*", "")  # Markdown emphasis: "*high window-entropy (HWE) tokens*"
    for match in _DEFINED.finditer(text):
        acronym = match.group(1)
        if sum(c.isupper() for c in acronym) >= 2 and acronym not in found and (expansion := expansion_before(text[: match.start()], acronym)):
            found[acronym] = expansion
    return found


def _said(words: str) -> Callable[[re.Match[str]], str]:
    """A replacement for re.sub that puts `words` in as they are (a backslash in them is no escape)."""
    return lambda _: words


def spell_out(text: str, acronyms: dict[str, str]) -> str:
    """The text with each defined acronym read as the words it stands for: "lower Fréchet Inception
    Distance (FID)" and "higher FID" both compare the same words."""
    for acronym, expansion in acronyms.items():
        text = re.sub(rf"\s*\(\s*{re.escape(acronym)}s?\s*\)", "", text)
        text = re.sub(rf"(?<![\w\-]){re.escape(acronym)}s?(?![\w\-])", _said(expansion), text)
    return text


def abbreviate(text: str, acronyms: dict[str, str]) -> str:
    """The text with each of these acronyms' spelled-out forms said as the acronym: a paper's own
    names are compared as names ("SecPE" and the title's "Secret-Protected Evolution" are one)."""
    for acronym, expansion in acronyms.items():
        text = re.sub(rf"{re.escape(expansion)}\s*\(\s*{re.escape(acronym)}s?\s*\)", _said(acronym), text, flags=re.I)
        text = re.sub(rf"(?<![\w\-]){re.escape(expansion)}(?![\w\-])", _said(acronym), text, flags=re.I)
    return text


def stands_for(acronym: str, words: Sequence[str]) -> bool:
    """The acronym's letters (a plural "s" aside) are the initials of the words, function words skipped:
    "kg" / "knowledge graph", "LMs" / "language models"."""
    letters = acronym.rstrip("s").lower()
    initials = "".join(w[0].lower() for w in words if w.lower() not in FUNCTION_WORDS)
    return len(letters) >= 2 and initials == letters


def abbreviates(name: str, claim: str, text: str) -> bool:
    """A name the claim writes as an undefined acronym (capitals only) that stands for consecutive
    words of one clause of the text, none of them a function word: "LMs" for "language models", not
    "SAM" for "states are meaningful"."""
    written = re.search(rf"(?<![\w\-]){re.escape(name)}(?![\w\-])", claim, re.I)
    acronym = written.group(0) if written else name
    if not _BARE_ACRONYM.fullmatch(acronym):
        return False
    size = len(acronym.rstrip("s"))
    for clause in _CLAUSE.split(text):
        words = _WORD.findall(clause)
        if any(stands_for(acronym, words[i : i + size]) for i in range(len(words) - size + 1)):
            return True
        # Three letters or more may come from inside words too ("VAE" for "variational autoencoder").
        runs = (words[i : i + n] for n in range(2, size) for i in range(len(words) - n + 1))
        if size >= 3 and any(explains(run, acronym) and not set(map(str.lower, run)) & FUNCTION_WORDS for run in runs):
            return True
    return False
