"""Acronyms an abstract defines ("Fréchet Inception Distance (FID)") and their spelled-out forms,
so that a claim saying either is read as saying the same thing."""

from __future__ import annotations

import re

from rag.label_names import expansion_before

# "(FID)", "(SecPE)", "(HWE)", "(LLMs)": a parenthesised token with two capitals at least.
_DEFINED = re.compile(r"\(\s*([A-Za-z0-9][\w\-]*?[A-Z][\w\-]*?)(s?)\s*[);,]")
# An acronym said without being defined ("LMs" where the abstract says "language models"):
# capitals only, a plural "s" aside.
_BARE_ACRONYM = re.compile(r"[A-Z]{2,5}s?")
_WORD = re.compile(r"[^\W\d_]+")


def defined_acronyms(text: str) -> dict[str, str]:
    """Each acronym the text defines, with the words it stands for: {"FID": "Fréchet Inception Distance"}."""
    found: dict[str, str] = {}
    text = text.replace("*", "")  # Markdown emphasis: "*high window-entropy (HWE) tokens*"
    for match in _DEFINED.finditer(text):
        acronym = match.group(1)
        if sum(c.isupper() for c in acronym) >= 2 and acronym not in found and (expansion := expansion_before(text[: match.start()], acronym)):
            found[acronym] = expansion
    return found


def spell_out(text: str, acronyms: dict[str, str]) -> str:
    """The text with each defined acronym read as the words it stands for: "lower Fréchet Inception
    Distance (FID)" and "higher FID" both compare the same words."""
    for acronym, expansion in acronyms.items():
        text = re.sub(rf"\s*\(\s*{re.escape(acronym)}s?\s*\)", "", text)
        text = re.sub(rf"(?<![\w\-]){re.escape(acronym)}s?(?![\w\-])", expansion, text)
    return text


def abbreviate(text: str, acronyms: dict[str, str]) -> str:
    """The text with each of these acronyms' spelled-out forms said as the acronym: a paper's own
    names are compared as names ("SecPE" and the title's "Secret-Protected Evolution" are one)."""
    for acronym, expansion in acronyms.items():
        text = re.sub(rf"{re.escape(expansion)}\s*\(\s*{re.escape(acronym)}s?\s*\)", acronym, text, flags=re.I)
        text = re.sub(rf"(?<![\w\-]){re.escape(expansion)}(?![\w\-])", acronym, text, flags=re.I)
    return text


def abbreviates(name: str, claim: str, text: str) -> bool:
    """A name the claim writes as an undefined acronym whose letters begin consecutive words of the
    text: "LMs" for "language models"."""
    written = re.search(rf"(?<![\w\-]){re.escape(name)}(?![\w\-])", claim, re.I)
    acronym = written.group(0) if written else name
    if not _BARE_ACRONYM.fullmatch(acronym):
        return False
    letters = acronym.rstrip("s").lower()
    words = _WORD.findall(text.lower())
    return any("".join(w[0] for w in words[i : i + len(letters)]) == letters for i in range(len(words) - len(letters) + 1))
