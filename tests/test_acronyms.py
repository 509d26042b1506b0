"""Acronyms an abstract defines (rag/acronyms.py), and the checker reading "FID" and "Fréchet
Inception Distance" as one: on hand-written sentences, with the fake embedder."""

from __future__ import annotations

from rag.acronyms import abbreviate, abbreviates, defined_acronyms, spell_out
from rag.evidence import SentenceVectors
from rag.records import Paper
from rag.support import support
from rag.text import split_sentences
from tests.fakes import HashingEmbeddings

ABSTRACT = (
    "We propose Secret-Protected Evolution (SecPE), a framework for private text generation. "
    "Our analysis shows that *high window-entropy (HWE) tokens* capture reasoning-critical moments. "
    "Across three benchmarks, SecPE consistently achieves lower Fréchet Inception Distance (FID) and higher downstream accuracy than Aug-PE baselines."
)


def test_the_acronyms_an_abstract_defines_are_found_with_their_words() -> None:
    assert defined_acronyms(ABSTRACT) == {"SecPE": "Secret-Protected Evolution", "HWE": "high window-entropy", "FID": "Fréchet Inception Distance"}
    assert defined_acronyms("We use a GPU (see Section 3) and RL.") == {}


def test_a_term_is_spelled_out_and_a_name_kept_as_the_name() -> None:
    acronyms = defined_acronyms(ABSTRACT)
    assert spell_out("SecPE has a higher FID", {"FID": acronyms["FID"]}) == "SecPE has a higher Fréchet Inception Distance"
    assert spell_out("lower Fréchet Inception Distance (FID) here", {"FID": acronyms["FID"]}) == "lower Fréchet Inception Distance here"
    assert abbreviate("Secret-Protected Evolution for private text", {"SecPE": acronyms["SecPE"]}) == "SecPE for private text"


def test_an_undefined_acronym_is_excused_only_when_its_letters_begin_the_abstracts_words() -> None:
    assert abbreviates("lms", "transformer LMs are injective", "transformer language models are injective")
    assert not abbreviates("lms", "transformer LMs are injective", "transformers are injective")
    assert not abbreviates("sam", "it beats SAM", "the states are meaningful")  # "are" is no initial
    assert abbreviates("vae", "a VAE encodes actions", "a variational autoencoder encodes actions")  # letters from inside words
    assert not abbreviates("vae", "a VAE encodes actions", "a very adaptive engine")
    assert not abbreviates("surelock", "SureLock locks tokens", "sure locking of tokens")  # a coined name, not an acronym


def test_the_checker_reads_a_flipped_direction_through_an_acronym() -> None:
    paper = Paper("p1", ABSTRACT, "Secret-Protected Evolution for Differentially Private Synthetic Text Generation", False)
    vectors = SentenceVectors(HashingEmbeddings())
    # "higher" is the abstract's own word (for accuracy): only FID read as its words shows the flip.
    flipped = support("Across three benchmarks, SecPE consistently achieves higher FID and higher downstream accuracy than Aug-PE baselines.", [paper], vectors)
    kept = support("Across three benchmarks, SecPE consistently achieves lower FID and higher downstream accuracy than Aug-PE baselines.", [paper], vectors)
    assert "direction" in {f.kind for f in flipped.findings} and not flipped.ok
    assert not kept.findings and not kept.missing
    # The reader is shown the abstract's own sentences, not the rules' reading of them.
    assert flipped.evidence and set(flipped.evidence) <= {*split_sentences(ABSTRACT), paper.title}
