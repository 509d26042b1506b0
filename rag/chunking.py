"""`Paper` → `Chunk`s that fit the embedding model's window, cut on sentence boundaries.

all-MiniLM-L6-v2 reads 256 word pieces and silently drops the rest. An abstract is about
1,400 characters ≈ 300 word pieces, plus ~15 for the title in front, so most abstracts
become two chunks; the second starts with the first one's last sentence (one sentence of
overlap) so a claim that straddles the cut is still whole in one chunk.

`windows="first"` (PAPERCHAT_EMBEDDING_WINDOWS=first) keeps the first chunk only: BM25, the
evidence and the checker still read the whole abstract. Measured on all 5,358 ICLR 2026 papers
and SciFact (bench/RESULTS.md, issue 16): ingest 1.6 times as fast, ICLR single-paper Recall@5
0.969 → 0.985, but SciFact nDCG@10 0.733 → 0.729, theme-summary recall on the dev themes 0.825 →
0.785 and 2 of 65 ICLR single-paper questions wrongly abstained instead of 0: faster, not better on
every measure, so a choice and not the default.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from rag.records import Chunk, Paper
from rag.text import split_sentences

# Bump when the chunk texts would change for the same paper: the index then re-embeds.
CHUNKER_VERSION = 2
# [CLS] and [SEP] take two of the model's 256 positions.
SPECIAL_TOKENS = 2
# A title so long it leaves less than this for the body is cut short in the prefix instead.
MIN_BODY_TOKENS = 96
# Without a tokenizer (tests, fakes): English scientific prose runs ~1.3 word pieces a word.
APPROX_PIECES_PER_WORD = 1.3

TokenCounter = Callable[[Sequence[str]], list[int]]


def approx_token_counts(texts: Sequence[str]) -> list[int]:
    return [math.ceil(len(t.split()) * APPROX_PIECES_PER_WORD) for t in texts]


def chunk_paper(paper: Paper, count_tokens: TokenCounter = approx_token_counts, max_tokens: int = 256, windows: str = "all") -> list[Chunk]:
    """The paper's chunks: windows over the whole abstract, or with `windows="first"`
    (PAPERCHAT_EMBEDDING_WINDOWS) only the first: the title and the opening sentences that fit."""
    prefix = paper.title.rstrip()
    prefix += " " if prefix.endswith((".", "?", "!", ":")) else ". "
    budget = max_tokens - SPECIAL_TOKENS - count_tokens([prefix])[0]
    if budget < MIN_BODY_TOKENS:
        prefix = " ".join(prefix.split()[: MIN_BODY_TOKENS // 4]) + ". "
        budget = max_tokens - SPECIAL_TOKENS - count_tokens([prefix])[0]
    pieces = _fit_sentences(split_sentences(paper.abstract), count_tokens, budget)
    groups = _pack(pieces, budget)
    if windows == "first":
        groups = groups[:1]
    return [
        Chunk(
            chunk_id=f"{paper.paper_id}#{index}",
            paper_id=paper.paper_id,
            index=index,
            text=text,
            embed_text=prefix + text,
        )
        for index, text in enumerate(" ".join(s for s, _ in group) for group in groups)
    ]


def chunk_papers(papers: Sequence[Paper], count_tokens: TokenCounter = approx_token_counts, max_tokens: int = 256, windows: str = "all") -> list[Chunk]:
    return [chunk for paper in papers for chunk in chunk_paper(paper, count_tokens, max_tokens, windows)]


def _fit_sentences(sentences: list[str], count_tokens: TokenCounter, budget: int) -> list[tuple[str, int]]:
    """(sentence, token count) pairs, every one within the budget: a longer sentence is cut
    in halves by words, and a single over-long "word" (a URL, a run of LaTeX) by characters,
    until each piece fits."""
    fitted: list[tuple[str, int]] = []
    pending = list(zip(sentences, count_tokens(sentences), strict=True))
    while pending:
        text, tokens = pending.pop(0)
        if tokens <= budget:
            fitted.append((text, tokens))
            continue
        words = text.split()
        if len(words) > 1:
            halves = [" ".join(words[: len(words) // 2]), " ".join(words[len(words) // 2 :])]
        else:
            halves = [text[: len(text) // 2], text[len(text) // 2 :]]
        pending[:0] = list(zip(halves, count_tokens(halves), strict=True))
    return fitted


def _pack(pieces: list[tuple[str, int]], budget: int) -> list[list[tuple[str, int]]]:
    """Greedy packing with one sentence of overlap between neighbouring chunks."""
    groups: list[list[tuple[str, int]]] = []
    current: list[tuple[str, int]] = []
    used = 0
    for piece in pieces:
        if current and used + piece[1] > budget:
            groups.append(current)
            overlap = current[-1]
            # Carry the last sentence over only if it was not alone (that would repeat a
            # whole chunk) and it still leaves room for the new one.
            if len(current) > 1 and overlap[1] + piece[1] <= budget:
                current, used = [overlap], overlap[1]
            else:
                current, used = [], 0
        current.append(piece)
        used += piece[1]
    if current:
        groups.append(current)
    return groups
