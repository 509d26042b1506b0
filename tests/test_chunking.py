from __future__ import annotations

import pytest

from rag.chunking import approx_token_counts, chunk_paper
from rag.config import Settings
from rag.corpus import load_papers
from rag.embeddings import make_token_counter
from rag.records import Paper
from rag.text import split_sentences
from tests.conftest import SEEDS


def paper(abstract: str, title: str = "FooNet: counting sheep") -> Paper:
    return Paper(paper_id="p1", abstract=abstract, title=title, title_is_generated=True)


def test_split_sentences_keeps_abbreviations_decimals_and_initials() -> None:
    text = (
        "Prior work (e.g. BERT) fails, cf. Smith et al. 2020 and J. Doe. We reach 97.5% accuracy! "
        "Is it robust? Yes: on $N=3$ farms. 我们提出方法。它很快。"
    )
    assert split_sentences(text) == [
        "Prior work (e.g. BERT) fails, cf. Smith et al. 2020 and J. Doe.",
        "We reach 97.5% accuracy!",
        "Is it robust?",
        "Yes: on $N=3$ farms.",
        "我们提出方法。",
        "它很快。",
    ]


def test_short_abstract_is_one_chunk_with_the_title_in_front() -> None:
    chunks = chunk_paper(paper("We count sheep. It works."))
    assert len(chunks) == 1
    assert chunks[0].chunk_id == "p1#0" and chunks[0].text == "We count sheep. It works."
    assert chunks[0].embed_text == "FooNet: counting sheep. We count sheep. It works."


def test_a_long_abstract_is_one_window_of_its_opening_sentences() -> None:
    sentences = [f"Sentence number {i} talks about topic {i} with several extra words in it." for i in range(40)]
    chunks = chunk_paper(paper(" ".join(sentences)), approx_token_counts, max_tokens=64)
    assert [c.chunk_id for c in chunks] == ["p1#0"]
    assert approx_token_counts([chunks[0].embed_text])[0] <= 64
    kept = split_sentences(chunks[0].text)
    assert kept == sentences[: len(kept)] and 1 <= len(kept) < len(sentences)  # the opening, whole sentences


def test_a_sentence_longer_than_the_window_is_cut_by_words() -> None:
    monster = " ".join(f"w{i}" for i in range(500)) + "."
    chunks = chunk_paper(paper(monster), approx_token_counts, max_tokens=64)
    assert len(chunks) == 1 and approx_token_counts([chunks[0].embed_text])[0] <= 64
    assert monster.split()[: len(chunks[0].text.split())] == chunks[0].text.split()  # its first words


def test_chunking_is_deterministic() -> None:
    p = paper("One sentence here. " * 60)
    assert chunk_paper(p) == chunk_paper(p)


@pytest.mark.integration
def test_seed_chunks_fit_minilm_window_with_the_real_tokenizer() -> None:
    count, window = make_token_counter(Settings(_env_file=None))  # type: ignore[call-arg]
    assert window == 256
    chunks = [c for p in load_papers([SEEDS]).papers for c in chunk_paper(p, count, window)]
    lengths = count([c.embed_text for c in chunks])
    assert max(lengths) <= 254  # 256 minus [CLS] and [SEP]
    assert len(chunks) == 51  # one window per paper
