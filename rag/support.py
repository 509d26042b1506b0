"""Whether abstracts support a claim: the one checker behind every answer sentence and
`paperchat check`.

    claim ──▶ the abstract sentences it is closest to (sentence embeddings; the multilingual
      │       encoder for a Chinese claim)
      ├─ similarity and shared key terms reach the calibrated cuts (rag/calibration.py)
      ├─ every number, coined name and guarded word of the claim occurs in the abstract
      └─ no objection of the meaning rules (rag/entailment.py: ranges and hedges, direction,
         negation, subject, strong words)
    ──▶ Support(score, missing, overlap, findings, evidence, ok)

Measured against hand labels, not against itself: bench/claims.jsonl through bench/check.py.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from rag.acronyms import abbreviate, abbreviates, defined_acronyms, spell_out
from rag.calibration import MINILM, MULTILINGUAL, Calibration
from rag.chinese_claims import claim_findings
from rag.entailment import Finding
from rag.evidence import SentenceVectors, contribution_sentence, sentences_of
from rag.records import Paper
from rag.restatement import restatement_findings
from rag.text import MAX_NAME_WORDS, bare_name, chinese_runs, key_terms, language_of, names, numbers, plain, strip_citations

# How many of the abstract's sentences a claim is read against by the meaning rules: a synthesis
# of two sentences restates two.
ALIGNED_SENTENCES = 2
_PLAIN_WORD = re.compile(r"[a-z']+")
# A spelled-out quantity turns a copied sentence into a new number ("... by ninety percent"): it
# must be in the source, as a word or as its digits. (Negations are read by rag/entailment.py.)
_SPELLED = {
    "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
    "eleven": "11", "twelve": "12", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60",
    "seventy": "70", "eighty": "80", "ninety": "90", "hundred": "100", "half": "50", "twice": "2", "double": "2", "triple": "3",
    "thousand": "1000", "million": "", "billion": "", "percent": "%",
}  # fmt: skip
_GUARDED_WORDS = frozenset(_SPELLED)
# "two protein structures" for "a pair of protein structures": words that say two without the number.
_PAIR = frozenset("pair pairs both dual".split())
# A complexity bound is one quantity: "Θ(n^2)" is not stated by an abstract giving Θ(n log n) and Ω(n^2).
_BOUND = re.compile(r"(\\Theta|\\Omega|Θ|Ω|\bO)\s*\(([^()]{1,40})\)")
_BOUND_LETTERS = {"\\Theta": "Θ", "\\Omega": "Ω"}
_SPACE_OR_SLASH = re.compile(r"[\s\\·*]")  # spaces, LaTeX's backslashes, product signs
# A Chinese count ("七种编辑类型", "两个目标"): a numeral before a measure word. 一 is left out: "一个"
# is as often "a" as "one".
_ZH_DIGITS = {"两": "2", "二": "2", "三": "3", "四": "4", "五": "5", "六": "6", "七": "7", "八": "8", "九": "9", "十": "10"}
_WORD_OF = {digit: word for word, digit in reversed(_SPELLED.items())}  # "2" → "two", not "double"
_ZH_COUNT = re.compile(r"(?<![一二三四五六七八九十百千万])([两二三四五六七八九十])(?=个|种|项|类|篇|倍|层|步|次|组|条|位|名|款|套|份|轮|阶段)")


Encode = Callable[[list[str]], np.ndarray]  # texts → normalised rows (the multilingual encoder)


@dataclass(frozen=True)
class Support:
    score: float  # higher is better
    missing: tuple[str, ...] = ()  # numbers, names and guarded words the claim states that the abstract does not
    overlap: float = 0.0  # share of the claim's key terms that occur in the cited abstract(s)
    ok: bool = False  # score and overlap reach the calibrated cuts, nothing is missing, no rule objects
    findings: tuple[Finding, ...] = ()  # what the meaning rules object to
    evidence: tuple[str, ...] = ()  # the abstract sentences the claim is closest to, best first


def support(claim: str, papers: Sequence[Paper], vectors: SentenceVectors, cal: Calibration = MINILM, multilingual: Encode | None = None) -> Support:
    """How well the abstracts of `papers` (together) support `claim` (citation markers ignored).
    A Chinese claim is compared by the multilingual encoder when one is given."""
    claim = strip_citations(claim)
    sentences = [s for paper in papers for s in sentences_of(paper)]
    # Titles count as support for what a paper is called and about, not generated labels
    # (made of the abstract's own words, they add nothing).
    sentences += [paper.quotable_title for paper in papers if not paper.title_is_generated and paper.quotable_title]
    if not claim or not sentences:
        return Support(0.0)
    chinese = language_of(claim) == "zh"
    if chinese and multilingual is not None:
        matrix = np.asarray(multilingual([claim, *sentences]), dtype=np.float32)
    else:
        matrix = vectors([claim, *sentences])
    cosines = matrix[1:] @ matrix[0]
    order = np.argsort(-cosines)
    aligned = [sentences[i] for i in order[:ALIGNED_SENTENCES]]
    cosine = float(cosines[order[0]])
    text = " ".join(sentences)
    own = _own_names(papers)
    named, worded = _one_way(defined_acronyms(text), own)
    # The rules read the texts one way; the evidence a reader is shown stays the abstract's own words.
    said, read, restated = named(claim), [named(s) for s in sentences], [named(s) for s in aligned]
    words = (worded(said), [worded(s) for s in read], [worded(s) for s in restated])
    terms = key_terms(claim)
    overlap = round(len(terms & key_terms(text)) / len(terms) if terms else 0.0, 4)
    flat, flat_claim = plain(text), plain(claim)
    lowered = flat.lower()
    text_numbers = numbers(flat)
    missing = sorted(n for n in numbers(flat_claim) if n not in text_numbers)
    missing += sorted(n for n in names(flat_claim) if not _states_name(n, lowered) and not abbreviates(n, flat_claim, flat))
    missing += sorted(_bounds(flat_claim) - _bounds(flat))
    source_words = set(_PLAIN_WORD.findall(lowered))
    digits = text_numbers | ({"%"} if "%" in flat else set())
    said_twice = {"two"} if source_words & _PAIR else set()
    guarded = set(_PLAIN_WORD.findall(flat_claim.lower())) & _GUARDED_WORDS - said_twice
    missing += sorted(w for w in guarded if w not in source_words and _SPELLED[w] not in digits)
    if chinese:
        # Read by meaning alone: its words are not the abstract's. Numbers and names still must be
        # there, a count in Chinese words too, as digits or as an English word.
        missing += sorted(n for n in _ZH_COUNT.findall(claim) if _ZH_DIGITS[n] not in digits and _WORD_OF[_ZH_DIGITS[n]] not in source_words)
        score = round(cosine, 4)
        objections = tuple(claim_findings(*words))
        ok = score >= MULTILINGUAL.min_support and not missing and not objections if multilingual is not None else False
        return Support(score, tuple(missing), overlap, ok, objections, tuple(aligned))
    # Chinese words in a mostly English sentence ("SureLock 减少了 FLOPs by 30--50% [1]") pass the
    # language rule and the key terms: the small model writes such broken Chinese, and an English
    # abstract does not state it, so it must not reach a reader.
    missing += sorted(w for w in chinese_runs(claim) if w not in text)
    score = round(cal.support_cosine_weight * cosine + (1 - cal.support_cosine_weight) * overlap, 4)
    objections = (*claim_findings(*words), *restatement_findings(said, read, restated, own, worded))
    ok = score >= cal.min_support and overlap >= cal.min_overlap and not missing and not objections
    return Support(score, tuple(missing), overlap, ok, objections, tuple(aligned))


def _one_way(acronyms: dict[str, str], own: set[str]) -> tuple[Callable[[str], str], Callable[[str], str]]:
    """How the meaning rules read the acronyms the abstract defines: the paper's own names as names
    ("SecPE" is the title's "Secret-Protected Evolution"), for every rule; other terms as their words
    ("higher FID" against "lower Fréchet Inception Distance (FID)" is a flipped direction, "uses high
    window-entropy tokens" for "uses HWE tokens" no swapped word), for the rules that compare words
    rather than who does what."""
    own = {name.lower() for name in own}
    mine = {a: e for a, e in acronyms.items() if a.lower() in own}
    terms = {a: e for a, e in acronyms.items() if a.lower() not in own}
    return (lambda text: abbreviate(text, mine)), (lambda text: spell_out(text, terms))


def _states_name(name: str, lowered: str) -> bool:
    """The abstract (lower-cased) has the name, or each part of a compound of names ("audio-VAE"),
    singular or plural ("MPNNs" for "MPNN")."""
    name = bare_name(name)
    return name in lowered or all(part in lowered or part.rstrip("s") in lowered for part in name.split("-") if part)


def _own_names(papers: Sequence[Paper]) -> set[str]:
    """The names the papers give their own contributions: in the title, or where the abstract says what it does."""
    own: set[str] = set()
    for paper in papers:
        head, colon, _ = paper.title.partition(":")
        own |= names(contribution_sentence(paper)) | ({head.strip().lower()} if colon and len(head.split()) <= MAX_NAME_WORDS else set())
    return own


def _bounds(text: str) -> set[str]:
    """The complexity bounds a text states, spaces and LaTeX spelling aside: "Θ(n log n)" → "Θ(nlogn)",
    "$\\Omega(\\sqrt{n})$" → "Ω(√n)", "O(σ^-2)" → "O(sigma-2)"."""
    found = _BOUND.findall(text)
    return {_BOUND_LETTERS.get(letter, letter) + "(" + _greek_spelled(_SPACE_OR_SLASH.sub("", inner).replace("sqrt", "√")) + ")" for letter, inner in found}


def _greek_spelled(text: str) -> str:
    """Greek letters as LaTeX spells them: "σ^-2" and "\\sigma^{-2}" compare alike."""
    return "".join(unicodedata.name(c).split()[-1].lower() if "GREEK" in unicodedata.name(c, "") else c for c in text)
