"""A Chinese question's English words (rag/crosslingual.py): its words, the corpus's phrases, the
dictionary's glosses, the phrase a theme names, and the saved phrase table. The real multilingual
encoder (pure numpy, ~1 s to load)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag.crosslingual import corpus_phrases, english_query, english_theme, glossary, load_or_build, question_words
from rag.multilingual import encode, make_multilingual_embeddings
from rag.records import Paper

# Titles and abstracts of made-up papers, one theme each, so that the table holds their phrases.
THEMES = {
    "speculative decoding": "Speculative decoding accelerates inference: a draft model proposes tokens that the target model verifies.",
    "knowledge distillation": "Knowledge distillation trains a small student from a large teacher model.",
    "machine unlearning": "Machine unlearning removes the influence of a forget set from a trained model.",
    "federated learning": "Federated learning trains models across clients without sharing their data.",
    "watermarking": "A watermark embedded in generated text lets its origin be detected.",
}
MIN_COSINE = 0.6


def papers() -> list[Paper]:
    return [
        Paper(paper_id=f"p{i}{j}", title=f"{title.title()} study {j}", title_is_generated=False, abstract=f"{abstract} We study {title} at scale.")
        for i, (title, abstract) in enumerate(THEMES.items())
        for j in range(3)
    ]


@pytest.fixture(scope="module")
def encoder():  # type: ignore[no-untyped-def]
    embeddings = make_multilingual_embeddings()
    return lambda texts: encode(embeddings, texts)


def test_the_dictionary_glosses_chinese_words_in_english() -> None:
    words = glossary()
    assert "speculate" in words["投机"] and "watermark" in words["水印"] and "hallucination" in words["幻觉"]
    assert all(len(g.split()) <= 3 and not g.startswith("to ") for glosses in words.values() for g in glosses)


def test_a_questions_words_leave_out_how_it_is_asked() -> None:
    words = question_words("请问知识蒸馏是怎么做的？SureLock 呢？")
    assert "知识" in words and "蒸馏" in words and "知识蒸馏" in words
    assert not {"请问", "怎么", "是", "的"} & set(words) and not any("SureLock" in w for w in words)


def test_corpus_phrases_never_begin_or_end_with_a_stop_word() -> None:
    counted = corpus_phrases(papers())
    phrases = [phrase for phrase, _ in counted]
    assert [n for _, n in counted] == sorted((n for _, n in counted), reverse=True)  # the most used first
    assert "speculative decoding" in phrases and "knowledge distillation" in phrases
    assert not any(p.split()[0] in {"the", "of", "a"} or p.split()[-1] in {"the", "of", "a", "from"} for p in phrases)


@pytest.mark.parametrize(
    ("theme", "phrase"),
    [("投机解码", "speculative decoding"), ("知识蒸馏", "knowledge distillation"), ("机器遗忘", "machine unlearning"), ("联邦学习", "federated learning")],
)
def test_a_chinese_theme_names_the_corpus_phrase(theme: str, phrase: str, encoder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    table = load_or_build(tmp_path / "phrases.npz", papers(), encoder)
    assert english_theme(theme, table, encoder, MIN_COSINE).lower() == phrase


# Papers whose phrases a dictionary composes: in order, with "of" reversed, hyphenated or not, and
# near-misses the encoder alone might prefer.
COMPOSED = {
    "Chain-of-Thought Reasoning Study": "Chain-of-thought prompting elicits reasoning; we analyse chain of thought traces.",
    "Time Series Forecasting Benchmark": "Time series forecasting with transformers; the time series are long.",
    "Model Merging Study": "Model merging combines fine-tuned models; merging methods differ in how they weight tasks.",
    "World Models Survey": "World models predict the next state; we train world models for planning.",
    "Decoding Speed Study": "We measure decoding speed and generation acceleration of autoregressive models.",
    "Speculative Decoding Study": "Speculative decoding drafts tokens and verifies them.",
}


def composed_papers() -> list[Paper]:
    return [
        Paper(paper_id=f"c{i}{j}", title=f"{title} {j}", title_is_generated=False, abstract=abstract)
        for i, (title, abstract) in enumerate(COMPOSED.items())
        for j in range(3)
    ]


@pytest.mark.parametrize(
    ("theme", "phrase"),
    [
        ("思维链", "chain-of-thought"),  # "X of Y" where Chinese says Y X; the hyphenated spelling also finds the spaced one
        ("时间序列预测", "time series forecasting"),  # the dictionary's word 时间序列, which jieba cuts in two
        ("模型合并 方法", "model merging"),  # a term may begin with a word every abstract uses
        ("世界模型", "world models"),  # ... or end with one
        ("投机解码加速生成", "speculative decoding"),  # the qualifier after the theme does not pull it away
    ],
)
def test_a_theme_the_dictionary_translates_word_for_word_names_that_phrase(theme: str, phrase: str, encoder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    table = load_or_build(tmp_path / "phrases.npz", composed_papers(), encoder)
    assert english_theme(theme, table, encoder, MIN_COSINE).lower() == phrase


def field_papers() -> list[Paper]:
    """A field's name in most abstracts, and a few papers on each of two themes."""
    field = [
        Paper(paper_id=f"f{i}", title=f"Study {i}", title_is_generated=False, abstract=f"Machine learning for task {i}; we study machine learning at scale.")
        for i in range(30)
    ]
    themes = [
        Paper(paper_id=f"t{i}", title=f"Transport {i}", title_is_generated=False, abstract="Optimal transport aligns distributions in machine learning.")
        for i in range(3)
    ] + [
        Paper(paper_id=f"j{i}", title=f"Jailbreak {i}", title_is_generated=False, abstract="A jailbreak attack on chat models, and a defense framework.")
        for i in range(3)
    ]
    return field + themes


@pytest.mark.parametrize(
    ("theme", "phrase"),
    [
        ("用最优传输做机器学习", "optimal transport"),  # beside a field's name, the specific thing is the theme
        ("机器学习", "machine learning"),  # the field asked alone is the theme
        ("越狱攻击和防御", "jailbreak attack"),  # a theme that is no field keeps its reading, whatever the qualifier's
    ],
)
def test_a_fields_name_gives_way_to_the_specific_theme_beside_it(theme: str, phrase: str, encoder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    table = load_or_build(tmp_path / "phrases.npz", field_papers(), encoder)
    assert english_theme(theme, table, encoder, MIN_COSINE).lower() == phrase


def test_a_question_keeps_its_own_names_and_gains_the_english_of_its_words(encoder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    table = load_or_build(tmp_path / "phrases.npz", papers(), encoder)
    query = english_query("ReST-KV 和知识蒸馏有什么关系？", table, encoder, MIN_COSINE)
    assert "ReST-KV" in query and "distillation" in query.lower()
    assert english_query("今天天气怎么样？", table, encoder, MIN_COSINE) == ""  # nothing in these papers is near


def test_the_phrase_table_is_saved_once_and_rebuilt_when_the_corpus_changes(encoder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    calls: list[int] = []

    def counting(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return encoder(texts)

    path = tmp_path / "phrases.npz"
    first = load_or_build(path, papers(), counting)
    again = load_or_build(path, papers(), counting)
    assert len(calls) == 1 and again.phrases == first.phrases  # read back, not embedded again
    load_or_build(path, papers()[:-1], counting)
    assert len(calls) == 2  # another corpus: built again
    path.write_bytes(b"not a table")  # a damaged file (a full disk, an editor): rebuilt, not an error
    assert load_or_build(path, papers(), counting).phrases == first.phrases and len(calls) == 3
