from __future__ import annotations

import itertools

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


def test_long_abstract_chunks_fit_the_window_and_overlap_by_one_sentence() -> None:
    sentences = [f"Sentence number {i} talks about topic {i} with several extra words in it." for i in range(40)]
    chunks = chunk_paper(paper(" ".join(sentences)), approx_token_counts, max_tokens=64)
    assert len(chunks) > 3
    assert [c.chunk_id for c in chunks] == [f"p1#{i}" for i in range(len(chunks))]
    for c in chunks:
        assert approx_token_counts([c.embed_text])[0] <= 64
    for left, right in itertools.pairwise(chunks):
        assert split_sentences(left.text)[-1] == split_sentences(right.text)[0]
    # Every sentence is in some chunk.
    assert set(sentences) <= {s for c in chunks for s in split_sentences(c.text)}


def test_a_sentence_longer_than_the_window_is_cut_by_words() -> None:
    monster = " ".join(f"w{i}" for i in range(500)) + "."
    chunks = chunk_paper(paper(monster), approx_token_counts, max_tokens=64)
    assert len(chunks) > 5
    assert all(approx_token_counts([c.embed_text])[0] <= 64 for c in chunks)
    assert " ".join(c.text for c in chunks).split() == monster.split()


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
    assert len(chunks) >= 51


def test_the_first_window_only_is_the_opening_of_the_abstract() -> None:
    sentences = [f"Sentence number {i} talks about topic {i} with several extra words in it." for i in range(40)]
    every = chunk_paper(paper(" ".join(sentences)), approx_token_counts, max_tokens=64)
    first = chunk_paper(paper(" ".join(sentences)), approx_token_counts, max_tokens=64, windows="first")
    assert len(every) > 3 and first == every[:1]
    kept = split_sentences(first[0].text)
    assert kept == sentences[: len(kept)]  # whole sentences, in order


def test_the_windows_setting_is_part_of_the_content_hash_and_all_keeps_the_old_one() -> None:
    from rag.index import ChunkPlan, content_hash

    p = paper("We count sheep. It works.")
    default, first = ChunkPlan(approx_token_counts, 256, "m"), ChunkPlan(approx_token_counts, 256, "m", "first")
    assert content_hash(p, default) != content_hash(p, first)  # switching re-embeds
    assert content_hash(p, default) == content_hash(p, ChunkPlan(approx_token_counts, 256, "m", "all"))
