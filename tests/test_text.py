"""rag/text.py: one definition each of the rules every module shares."""

from __future__ import annotations

import pytest

from rag.records import Answer
from rag.text import citations, cite, is_coined, language_of, names, readable, request_clauses, title_name
from ui import render


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("What does SureLock do?", "en"),
        ("How does ReST-KV evict KV cache entries on LongBench?", "en"),
        ("SureLock 能减少多少计算？", "zh"),
        ("Quels articles traitent de la compression du cache KV ?", "other"),
        ("Welche Arbeiten beschäftigen sich mit der Kompression und dem Cache?", "other"),
        ("¿Qué artículos usan aprendizaje por refuerzo con los modelos de lenguaje?", "other"),
        # An English sentence with a foreign name or two stays English.
        ("The von Neumann bottleneck of the model is the cost of moving the weights.", "en"),
    ],
)
def test_language_of_tells_english_chinese_and_other_languages_apart(text: str, language: str) -> None:
    assert language_of(text) == language


def test_one_citation_rule_for_the_checker_the_answer_and_the_page() -> None:
    text = "A claim [1; 3]. Another [2, 4][5]."
    assert citations(text) == [1, 3, 2, 4, 5]
    assert Answer("q", text).cited() == [1, 2, 3, 4, 5]
    linked = render.cite_links(text, turn=2)
    assert all(f'href="#source-2-{n}"' in linked for n in (1, 2, 3, 4, 5))
    assert cite("SureLock locks converged positions.", [1, 2]) == "SureLock locks converged positions [1][2]."


@pytest.mark.parametrize("token", ["ReST-KV", "3DGS", "GPT-4", "LoRA", "SPA", "T1", "sleep2vec", "WinT3R"])
def test_coined_names(token: str) -> None:
    assert is_coined(token)


@pytest.mark.parametrize("token", ["Transformer", "model", "A", "2024"])
def test_plain_words_are_not_coined(token: str) -> None:
    assert not is_coined(token)


def test_names_a_claim_states_and_the_name_a_title_gives() -> None:
    assert names("ReST-KV beats SnapKV by 2.58% on LongBench [1].") == {"rest-kv", "snapkv", "longbench"}
    assert title_name("WinT3R: Window-Based Streaming Reconstruction", False) == "WinT3R"
    assert title_name("T1: Tool-integrated Verification", False) == "T1"
    assert title_name("Circuit Insights: Towards Interpretability", False) == ""  # plain words: a phrase, not a name
    assert title_name("Falcon: a plug-and-play segmenter", True) == "Falcon"  # a generated label's head is the name
    assert title_name("A Study of Everything", False) == ""


def test_readable_latex_for_display() -> None:
    assert readable(r"10.61$\times$ faster, \textbf{\textsc{Sure}Lock}, 30--50\%") == "10.61× faster, SureLock, 30–50%"
    assert readable(r"$\mathcal{O}(n)$ in $\mathbb{R}^d$") == "O(n) in R^d"


def test_a_quantity_is_not_a_name() -> None:
    assert names("a 50x speed-up at 1024x576 with 1.33x fewer FLOPs on GPT-4o") == {"gpt-4o", "flops"}


@pytest.mark.parametrize(
    ("request_", "clauses"),
    [
        ("Summarise the papers on RL vs. imitation learning. Keep it short.", ["Summarise the papers on RL vs. imitation learning.", "Keep it short."]),
        ("Papers by Smith et al. on pruning? In three bullets.", ["Papers by Smith et al. on pruning?", "In three bullets."]),
        ("Summarise pruning, e.g. structured pruning. Then compare.", ["Summarise pruning, e.g. structured pruning.", "Then compare."]),
        ("Which is the No. 1 method for KV cache compression? Summarise them.", ["Which is the No. 1 method for KV cache compression?", "Summarise them."]),
        ("Is the answer no? We want more.", ["Is the answer no?", "We want more."]),  # "no" before no number ends its sentence
        ("Graph transformers (e.g. GPS. Exphormer) — what is new?", ["Graph transformers (e.g. GPS. Exphormer)", "what is new?"]),
    ],
)
def test_a_request_is_cut_into_clauses_not_after_an_abbreviation(request_: str, clauses: list[str]) -> None:
    assert request_clauses(request_) == clauses
