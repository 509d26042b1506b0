"""The encoder backends (PAPERCHAT_EMBEDDING_BACKEND): which one runs, the export built once
outside the installed packages, and which indexes each may search."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from rag.config import Settings
from rag.errors import StoreError
from rag.store import make_store
from tests.conftest import ICLR
from tests.fakes import HashingEmbeddings

VNNI_BF16 = frozenset({"avx2", "avx512f", "avx512_vnni", "avx512_bf16"})
AVX2_ONLY = frozenset({"avx2", "fma"})


@pytest.fixture(autouse=True)
def _default_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the shipped default, which tests/conftest.py pins to torch for the rest."""
    monkeypatch.delenv("PAPERCHAT_EMBEDDING_BACKEND", raising=False)


def settings_with(tmp_path: Path, **values: object) -> Settings:
    return Settings(data_dir=tmp_path / "data", _env_file=None, **values)  # type: ignore[call-arg]


def test_the_backend_is_the_setting_or_for_auto_openvino_on_the_cpu_and_torch_on_a_gpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rag.embeddings as embeddings
    from rag.embeddings import embedding_backend

    auto = settings_with(tmp_path)
    assert auto.embedding_backend == "auto"
    real = embeddings.package_dir
    monkeypatch.setattr(embeddings, "package_dir", lambda name: tmp_path if name == "openvino" else real(name))
    assert embedding_backend(auto, "cpu") == "openvino"
    assert embedding_backend(auto, "cuda") == "torch"  # float16 on the GPU is torch's
    for backend in ("torch", "onnx", "onnx-int8", "openvino"):
        assert embedding_backend(settings_with(tmp_path, embedding_backend=backend), "cpu") == backend
    with pytest.raises(ValidationError):
        settings_with(tmp_path, embedding_backend="tensorrt")
    # An install without OpenVINO still embeds: auto falls back to torch instead of failing.
    monkeypatch.setattr(embeddings, "package_dir", lambda name: None if name == "openvino" else real(name))
    assert embedding_backend(auto, "cpu") == "torch"


def test_the_cpu_decides_the_precision() -> None:
    from rag.encoders import backend_label, int8_reduce_range, openvino_precision

    assert openvino_precision(VNNI_BF16) == "bf16" and openvino_precision(frozenset({"amx_bf16"})) == "bf16"
    assert openvino_precision(AVX2_ONLY) == "f32"
    assert not int8_reduce_range(VNNI_BF16) and int8_reduce_range(AVX2_ONLY)
    assert backend_label("openvino", VNNI_BF16) == "openvino, bfloat16"
    assert backend_label("openvino", AVX2_ONLY) == "openvino, float32"
    assert backend_label("onnx-int8", AVX2_ONLY) == "onnx, int8 (7-bit weights: no VNNI)"


def test_the_status_names_the_backend_without_loading_torch_before_the_model(tmp_path: Path) -> None:
    from rag.embeddings import backend_shown

    assert backend_shown(settings_with(tmp_path, embedding_backend="onnx")) == "onnx, float32"
    assert backend_shown(settings_with(tmp_path, embedding_backend="torch")) == "torch"


# -- the export, built once --------------------------------------------------------------------


def _files(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


@pytest.mark.integration
@pytest.mark.parametrize("backend", ["openvino", "onnx"])
def test_the_export_is_built_once_into_the_data_dir_and_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    if backend == "openvino":
        pytest.importorskip("openvino")
    import rag.encoders as encoders
    from rag.embeddings import make_embeddings, resolve_model_dir

    model_dir = resolve_model_dir()
    installed = _files(model_dir)
    settings = settings_with(tmp_path, embedding_backend=backend)
    first = np.array(make_embeddings(settings).embed_documents(["Sheep counted by drones.", "A proof of convergence."]))
    assert first.shape == (2, 384) and np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-4)
    assert _files(model_dir) == installed  # nothing written into site-packages
    built = _files(tmp_path / "data" / "encoders")
    assert any(name.endswith(".xml" if backend == "openvino" else "model-optimized.onnx") for name in built)

    # A second process (the cache cleared): the files are loaded, not made again.
    encoders.load.cache_clear()

    def no_export(*_: object) -> Path:
        raise AssertionError("exported again")

    monkeypatch.setattr(encoders, "_base_onnx", no_export)
    monkeypatch.setattr(encoders, "_BUILD", dict.fromkeys(encoders._BUILD, no_export))
    again = np.array(make_embeddings(settings).embed_documents(["Sheep counted by drones.", "A proof of convergence."]))
    assert np.allclose(first, again, atol=1e-5)
    assert _files(tmp_path / "data" / "encoders") == built
    encoders.load.cache_clear()


def test_an_ingests_batches_through_openvinos_streams_give_the_vectors_one_text_at_a_time_gives(tmp_path: Path) -> None:
    """An ingest's batches (bulk_encoding) run two at a time on OpenVINO's streams: every vector
    still lands in its text's row; a failure while pooling is raised to the caller once the
    running requests are done. Outside an ingest (an answer's evidence sentences) many texts keep
    the latency-compiled model. A process that used the streams exits cleanly (with Python
    callbacks on OpenVINO's threads it aborted at exit in 3 of 6 runs)."""
    pytest.importorskip("onnx")
    pytest.importorskip("openvino")
    import subprocess
    import sys

    from rag.embeddings import resolve_model_dir
    from rag.encoders import ExportedEncoder, bulk_encoding

    texts = [f"{'Sheep counted by drones over pasture. ' * (i % 7 + 1)}Paper {i} on topic {i * 37 % 11}." for i in range(23)]
    encoder = ExportedEncoder(resolve_model_dir(), "openvino", tmp_path / "encoders", batch_size=4, max_tokens=256)
    one_by_one = np.stack([encoder.encode([text])[0] for text in texts])
    assert encoder.run_all is not None
    streams = encoder.run_all
    calls: list[int] = []
    encoder.run_all = lambda batches, keep: (calls.append(1), streams(batches, keep))[1]  # type: ignore[assignment]
    with bulk_encoding():
        many = encoder.encode(texts)
    assert calls == [1] and many.shape == (23, 384)
    assert float((many * one_by_one).sum(axis=1).min()) >= 0.9999
    assert np.allclose(encoder.encode(texts), many, atol=1e-3) and calls == [1]  # not an ingest: the latency model

    def broken(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
        raise ValueError("pooling failed")

    encoder.pooling = broken  # type: ignore[assignment]
    with bulk_encoding(), pytest.raises(ValueError, match="pooling failed"):
        encoder.encode(texts)

    script = (
        "from pathlib import Path\n"
        "from rag.embeddings import resolve_model_dir\n"
        "from rag.encoders import ExportedEncoder, bulk_encoding\n"
        f"encoder = ExportedEncoder(resolve_model_dir(), 'openvino', Path({str(tmp_path / 'encoders')!r}), batch_size=8, max_tokens=256)\n"
        "with bulk_encoding():\n"
        "    encoder.encode([f'Paper {i} on sheep and drones.' * (i % 5 + 1) for i in range(120)])\n"
    )
    for _ in range(3):
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0 and "terminate called" not in run.stderr, run.stderr[-2000:]


# -- index compatibility -----------------------------------------------------------------------


def test_an_int8_index_is_refused_to_float_backends_with_the_way_to_rebuild(tmp_path: Path) -> None:
    int8 = settings_with(tmp_path / "int8")
    make_store(int8, HashingEmbeddings(), "hashing-512", backend="onnx-int8")
    with pytest.raises(StoreError, match=r"built with PAPERCHAT_EMBEDDING_BACKEND=onnx-int8.*new PAPERCHAT_DATA_DIR.*paperchat ingest"):
        make_store(int8, HashingEmbeddings(), "hashing-512", create=False, backend="openvino")
    make_store(int8, HashingEmbeddings(), "hashing-512", create=False, backend="onnx-int8")

    # Float vectors mix: torch, onnx, openvino and auto search each other's index ...
    floats = settings_with(tmp_path / "float")
    make_store(floats, HashingEmbeddings(), "hashing-512", backend="torch")
    for backend in ("onnx", "openvino", "auto"):
        make_store(floats, HashingEmbeddings(), "hashing-512", create=False, backend=backend)
    with pytest.raises(StoreError, match="onnx-int8"):
        make_store(floats, HashingEmbeddings(), "hashing-512", create=False, backend="onnx-int8")

    # ... and an index from before the setting existed was built by torch.
    old = settings_with(tmp_path / "old")
    make_store(old, HashingEmbeddings(), "hashing-512")
    make_store(old, HashingEmbeddings(), "hashing-512", create=False, backend="openvino")
    with pytest.raises(StoreError, match="built with PAPERCHAT_EMBEDDING_BACKEND=torch"):
        make_store(old, HashingEmbeddings(), "hashing-512", create=False, backend="onnx-int8")


def _iclr_chunks(tmp_path: Path, settings: Settings, wanted: int) -> list[str]:
    from rag.chunking import chunk_papers
    from rag.corpus import load_papers
    from rag.embeddings import make_token_counter

    lines = ICLR.read_text(encoding="utf-8").splitlines()[: wanted]  # > 1 chunk a paper: enough records
    source = tmp_path / "papers.jsonl"
    source.write_text("\n".join(lines), encoding="utf-8")
    count, window = make_token_counter(settings)
    chunks = chunk_papers(load_papers([source]).papers, count, window)
    assert len(chunks) >= wanted
    return [c.text for c in chunks[:wanted]]


@pytest.mark.integration
def test_backends_in_one_family_agree_to_a_cosine_of_0_999_on_1000_chunks(tmp_path: Path) -> None:
    """What the store's check rests on (rag/encoders.FAMILY): every chunk's vector from a "float"
    backend is within cosine 0.999 of torch fp32's, and int8's is not."""
    if not ICLR.is_file():
        pytest.skip(f"{ICLR} is missing")
    pytest.importorskip("onnxruntime")
    pytest.importorskip("openvino")
    from rag.embeddings import make_embeddings
    from rag.encoders import BACKENDS, FAMILY

    texts = _iclr_chunks(tmp_path, settings_with(tmp_path), 1000)
    reference = np.array(make_embeddings(settings_with(tmp_path, embedding_backend="torch", embedding_device="cpu")).embed_documents(texts))
    worst = {}
    for backend in BACKENDS[1:]:
        vectors = np.array(make_embeddings(settings_with(tmp_path, embedding_backend=backend)).embed_documents(texts))
        worst[backend] = float((vectors * reference).sum(axis=1).min())
    (tmp_path / "worst.json").write_text(json.dumps(worst))
    assert {b: w >= 0.999 for b, w in worst.items()} == {b: FAMILY[b] == "float" for b in worst}, worst


def test_openvino_is_imported_without_its_telemetry() -> None:
    """Importing openvino sends usage events unless a consent file says no; paperchat sends nothing.
    In a fresh process, as openvino keeps the telemetry module it imported first."""
    import subprocess
    import sys

    code = (
        "from rag.encoders import _openvino_module; _openvino_module()\n"
        "import openvino.tools.ovc.telemetry_utils as t\n"
        "print(t.tm.__name__)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[1])
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "openvino.tools.ovc.telemetry_stub"
