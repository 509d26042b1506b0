"""`Paper` → the one `Chunk` the dense index embeds: the title, then the abstract's sentences while
they fit the embedding model's window.

all-MiniLM-L6-v2 reads 256 word pieces and silently drops the rest. An abstract is about 1,400
characters ≈ 300 word pieces, so its closing sentences are not embedded: BM25 reads every word of
the abstract, and the evidence and the checker read every sentence from the catalogue. One window
per paper instead of windows over the whole abstract (each with the title and one sentence of
overlap), measured on all 5,358 ICLR 2026 papers and SciFact (bench/RESULTS.md, issue 16): ingest
1.6 times as fast, ICLR single-paper Recall@5 0.969 → 0.985, SciFact nDCG@10 0.733 → 0.728. The
multilingual channel always embedded this first window only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from rag.records import Chunk, Paper
from rag.text import split_sentences

# Bump when the chunk texts would change for the same paper: the index then re-embeds.
CHUNKER_VERSION = 3
# [CLS] and [SEP] take two of the model's 256 positions.
SPECIAL_TOKENS = 2
# A title so long it leaves less than this for the body is cut short in the prefix instead.
MIN_BODY_TOKENS = 96
# Without a tokenizer (tests, fakes): English scientific prose runs ~1.3 word pieces a word.
APPROX_PIECES_PER_WORD = 1.3

TokenCounter = Callable[[Sequence[str]], list[int]]


def approx_token_counts(texts: Sequence[str]) -> list[int]:
    return [math.ceil(len(t.split()) * APPROX_PIECES_PER_WORD) for t in texts]


def chunk_paper(paper: Paper, count_tokens: TokenCounter = approx_token_counts, max_tokens: int = 256) -> list[Chunk]:
    prefix = paper.title.rstrip()
    prefix += " " if prefix.endswith((".", "?", "!", ":")) else ". "
    budget = max_tokens - SPECIAL_TOKENS - count_tokens([prefix])[0]
    if budget < MIN_BODY_TOKENS:
        prefix = " ".join(prefix.split()[: MIN_BODY_TOKENS // 4]) + ". "
        budget = max_tokens - SPECIAL_TOKENS - count_tokens([prefix])[0]
    window: list[str] = []
    used = 0
    for text, tokens in _fit_sentences(split_sentences(paper.abstract), count_tokens, budget):
        if window and used + tokens > budget:
            break
        window.append(text)
        used += tokens
    text = " ".join(window)
    return [Chunk(chunk_id=f"{paper.paper_id}#0", paper_id=paper.paper_id, index=0, text=text, embed_text=prefix + text)]


def chunk_papers(papers: Sequence[Paper], count_tokens: TokenCounter = approx_token_counts, max_tokens: int = 256) -> list[Chunk]:
    return [chunk for paper in papers for chunk in chunk_paper(paper, count_tokens, max_tokens)]


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
