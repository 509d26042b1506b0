"""The only importer of onnxruntime and openvino: the bundled encoder exported once to ONNX (fp32,
or int8 dynamically quantised) or OpenVINO, and run there for ingest and queries alike.

Why not sentence-transformers' own `backend="onnx"`: it needs optimum, and neither optimum-onnx
0.1.0 (transformers < 4.58) nor optimum-intel 2.2 (torch 2.14, transformers 5.5) resolves with the
pins here. The steps it would take are the same library calls: torch's ONNX exporter, ONNX
Runtime's transformer optimiser and dynamic quantiser, OpenVINO's converter.

The export is made from the model folder on disk (never downloaded) into
`<data dir>/encoders/<model>-<fingerprint>/` the first time a backend is used, under a file lock
and moved into place whole, so a crash leaves no half-written model and a second process waits
and reuses it. The fingerprint covers the model's files and the versions of torch, onnxruntime and
openvino, so an upgrade builds afresh instead of loading a file another version wrote.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import tempfile
import threading
import warnings
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from rag.errors import EmbeddingModelError

log = logging.getLogger(__name__)

# Every PAPERCHAT_EMBEDDING_BACKEND value but "auto", in the order the docs list them.
BACKENDS = ("torch", "onnx", "onnx-int8", "openvino")
# Backends whose vectors agree with torch fp32 to a cosine of at least 0.999 on 1,000 chunks
# (tests/test_encoders.py; bench/RESULTS.md, "Issue 16, backends"): an index built with one of
# them can be searched with any other. int8 does not (worst cosine 0.991): its own family.
FAMILY = {"torch": "float", "onnx": "float", "openvino": "float", "auto": "float", "onnx-int8": "int8"}
ONNX_FILE = {"onnx": "model-optimized.onnx", "onnx-int8": "model-int8.onnx"}
OPENVINO_FILE = "openvino_model.xml"
LENGTH_STEP = 32


@lru_cache(maxsize=1)  # read once: the status line asks on every refresh
def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags (Linux); empty elsewhere, which picks the portable choices."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def openvino_precision(flags: frozenset[str]) -> str:
    """bfloat16 where the CPU computes it natively (AVX-512 BF16 or AMX): about 1.8 x fp32 here,
    cosine 0.99997 to torch fp32. Elsewhere (AVX2) fp32: bf16 there would be emulated, slower."""
    return "bf16" if flags & {"avx512_bf16", "amx_bf16"} else "f32"


def int8_reduce_range(flags: frozenset[str]) -> bool:
    """u8 x s8 products overflow their 16-bit sums on CPUs without VNNI (plain AVX2/AVX-512);
    ONNX Runtime's advice there is 7-bit weights. With VNNI the full range is safe."""
    return not flags & {"avx512_vnni", "avx_vnni", "amx_int8"}


def backend_label(backend: str, flags: frozenset[str] | None = None) -> str:
    """What the status line says of a backend that runs outside torch."""
    flags = cpu_flags() if flags is None else flags
    if backend == "openvino":
        return f"openvino, {'bfloat16' if openvino_precision(flags) == 'bf16' else 'float32'}"
    if backend == "onnx-int8":
        return f"onnx, int8{' (7-bit weights: no VNNI)' if int8_reduce_range(flags) else ''}"
    return "onnx, float32" if backend == "onnx" else backend


def fingerprint(model_dir: Path) -> str:
    """Names an export by what it was made from: the model's files (name, size, time) and the
    libraries that wrote and will read it. Read from package metadata, so nothing is imported."""
    parts: list[str] = []
    for path in sorted(model_dir.rglob("*")):
        if path.is_file():
            stat = path.stat()
            parts.append(f"{path.relative_to(model_dir)}:{stat.st_size}:{int(stat.st_mtime)}")
    for package in ("torch", "onnxruntime", "openvino"):
        try:
            parts.append(f"{package}={metadata.version(package)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{package}=none")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]


def export_dir(model_dir: Path, root: Path) -> Path:
    return root / f"{model_dir.parent.name if model_dir.name == 'model' else model_dir.name}-{fingerprint(model_dir)}"


def exported(model_dir: Path, backend: str, root: Path) -> Path:
    """The backend's model file, built once under `root` (a folder of the data dir) and reused."""
    from filelock import FileLock

    folder = export_dir(model_dir, root)
    target = folder / (OPENVINO_FILE if backend == "openvino" else ONNX_FILE[backend])
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(folder / ".export.lock"):
        if target.is_file():  # another process built it while this one waited
            return target
        log.info("Exporting the embedding model for the %s backend into %s (once; about 10 s).", backend, folder)
        base = _base_onnx(model_dir, folder)
        with tempfile.TemporaryDirectory(dir=folder) as scratch:
            built = _BUILD[backend](model_dir, base, Path(scratch))
            for path in sorted(built.parent.iterdir()):  # the .xml last: it is what marks the export done
                if path != built:
                    os.replace(path, folder / path.name)
            os.replace(built, target)
    return target


def _base_onnx(model_dir: Path, folder: Path) -> Path:
    """The transformer exported to ONNX by torch (fp32, dynamic batch and length): the source of
    every other backend's file. Attention in its eager form, which the optimiser knows how to fuse."""
    target = folder / "model.onnx"
    if target.is_file():
        return target
    import torch
    from transformers import AutoModel

    try:
        model = AutoModel.from_pretrained(str(model_dir), local_files_only=True, attn_implementation="eager").eval()
    except (OSError, ValueError) as exc:
        raise EmbeddingModelError(f"Cannot load the embedding model from {model_dir} for export: {exc}") from exc
    names = [name for name in ("input_ids", "attention_mask", "token_type_ids") if name in _forward_inputs(model)]

    class LastHidden(torch.nn.Module):  # keyword arguments in, one tensor out: what the exporter traces
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            return self.model(**dict(zip(names, inputs, strict=True))).last_hidden_state

    sample = torch.ones(2, 8, dtype=torch.long)
    axes = {name: {0: "batch", 1: "tokens"} for name in [*names, "last_hidden_state"]}
    with tempfile.TemporaryDirectory(dir=folder) as scratch, torch.no_grad(), warnings.catch_warnings():
        # The tracer warns of branches it fixes at the sample's shape; they are the padding and cache
        # branches of a decoder, never taken by an encoder (vectors checked against torch: cosine 0.99997+).
        warnings.simplefilter("ignore")
        path = Path(scratch) / "model.onnx"
        torch.onnx.export(LastHidden(), tuple(sample for _ in names), str(path), input_names=names, output_names=["last_hidden_state"],
                          dynamic_axes=axes, opset_version=17, dynamo=False)
        os.replace(path, target)
    return target


def _forward_inputs(model: Any) -> set[str]:
    import inspect

    return set(inspect.signature(model.forward).parameters)


def _optimized(model_dir: Path, base: Path, scratch: Path) -> Path:
    """ONNX Runtime's transformer optimiser: attention, layer norms and GELU fused (1.1 x the plain graph)."""
    from onnxruntime.transformers.optimizer import optimize_model

    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    optimized = optimize_model(str(base), model_type="bert", num_heads=int(config.get("num_attention_heads", 0)),
                               hidden_size=int(config.get("hidden_size", 0)), opt_level=1)
    path = scratch / ONNX_FILE["onnx"]
    optimized.save_model_to_file(str(path))
    return path


def _int8(model_dir: Path, base: Path, scratch: Path) -> Path:
    """Dynamic int8 quantisation of the optimised graph's weights, per output channel: per tensor
    lost too much (worst cosine 0.88 against fp32; per channel 0.991)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    optimized = _optimized(model_dir, base, scratch)
    path = scratch / ONNX_FILE["onnx-int8"]
    # The fused operators are outside ONNX's own domain, so shape inference cannot type them: say float.
    quantize_dynamic(str(optimized), str(path), weight_type=QuantType.QInt8, per_channel=True,
                     reduce_range=int8_reduce_range(cpu_flags()), extra_options={"DefaultTensorType": 1})
    optimized.unlink()
    return path


def _openvino_module() -> Any:
    """openvino, imported without its telemetry. Importing it sends usage events to Google Analytics
    unless a consent file in ~/intel says no (openvino_telemetry, opt-out), from a thread that forks
    a process: paperchat runs offline and sends nothing, and a fork while another thread encodes
    hung an ingest (seen when the stores embedded side by side). With the telemetry package blocked
    openvino uses its own no-op stub."""
    sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]
    import openvino

    return openvino


def _openvino(model_dir: Path, base: Path, scratch: Path) -> Path:
    """OpenVINO's own form (.xml + .bin) of the torch export, weights kept in fp32 (the precision
    is chosen when it is compiled, by the CPU it runs on)."""
    ov = _openvino_module()

    path = scratch / OPENVINO_FILE
    ov.save_model(ov.convert_model(str(base)), str(path), compress_to_fp16=False)
    return path


_BUILD: dict[str, Callable[[Path, Path, Path], Path]] = {"onnx": _optimized, "onnx-int8": _int8, "openvino": _openvino}


class Pooling:
    """How the sentence-transformers folder turns token vectors into one: mean or CLS, then
    normalised (the store's cosine = 1 - dot product). Anything else stays on torch."""

    def __init__(self, model_dir: Path) -> None:
        modules = json.loads((model_dir / "modules.json").read_text(encoding="utf-8")) if (model_dir / "modules.json").is_file() else []
        kinds = [m.get("type", "").rsplit(".", 1)[-1] for m in modules]
        if kinds[:2] != ["Transformer", "Pooling"] or any(k not in ("Transformer", "Pooling", "Normalize") for k in kinds):
            raise EmbeddingModelError(
                f"The model in {model_dir} is not a plain transformer + pooling model ({kinds}); "
                "run it with PAPERCHAT_EMBEDDING_BACKEND=torch."
            )
        config = json.loads((model_dir / modules[1]["path"] / "config.json").read_text(encoding="utf-8"))
        modes = [key for key, on in config.items() if key.startswith("pooling_mode") and on]
        if modes not in (["pooling_mode_mean_tokens"], ["pooling_mode_cls_token"]):
            raise EmbeddingModelError(f"The model in {model_dir} pools by {modes}; run it with PAPERCHAT_EMBEDDING_BACKEND=torch.")
        self.mean = modes == ["pooling_mode_mean_tokens"]

    def __call__(self, hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self.mean:
            weights = mask[..., None].astype(np.float32)
            vectors = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        else:
            vectors = hidden[:, 0]
        return vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)


class ExportedEncoder:
    """Encodes texts like sentence-transformers does (its tokenizer file, truncated to the model's
    window; batches of similar length, padded to the longest) through the exported model."""

    def __init__(self, model_dir: Path, backend: str, root: Path, batch_size: int, max_tokens: int) -> None:
        from tokenizers import Tokenizer

        self.pooling = Pooling(model_dir)
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_tokens)
        # Lengths padded to a multiple of 32: OpenVINO keeps compiled kernels per input shape, and a
        # shape per length grew an ingest to 950 MB against 353 MB with 8 shapes (bench/RESULTS.md).
        self.tokenizer.enable_padding(pad_to_multiple_of=LENGTH_STEP)
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        path = exported(model_dir, backend, root)
        self.run = _openvino_runner(path) if backend == "openvino" else _onnx_runner(path)
        self.run_all = _openvino_pipeline(path) if backend == "openvino" else None

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 0), dtype=np.float32)

        def keep(hidden: np.ndarray, mask: np.ndarray, rows: list[int]) -> None:
            nonlocal out
            vectors = self.pooling(hidden, mask)
            if out.shape[1] == 0:
                out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
            out[rows] = vectors

        if self.run_all is not None and getattr(_bulk, "on", False) and len(texts) > self.batch_size:
            # An ingest's batches: OpenVINO's streams run two side by side while this thread pools
            # one and tokenises the next (bench/RESULTS.md, "Issue 16, 2026-12-02 (session 3)").
            self.run_all(self._batches(texts), keep)
            return out
        for inputs, rows in self._batches(texts):
            keep(self.run(inputs), inputs["attention_mask"], rows)
        return out

    def _batches(self, texts: list[str]) -> Iterator[tuple[dict[str, np.ndarray], list[int]]]:
        """The model's inputs batch by batch, longest texts first, with the rows they fill."""
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        for start in range(0, len(texts), self.batch_size):
            rows = order[start : start + self.batch_size]
            encoded = self.tokenizer.encode_batch([texts[i] for i in rows])
            # Rounding up past the window adds padding only: cut it back to the window.
            ids = np.array([e.ids for e in encoded], dtype=np.int64)[:, : max(self.max_tokens, LENGTH_STEP)]
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)[:, : ids.shape[1]]
            yield {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}, rows


def _onnx_runner(path: Path) -> Callable[[dict[str, np.ndarray]], np.ndarray]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3  # the fused graph's shape-inference notices are not the user's concern
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    wanted = [i.name for i in session.get_inputs()]

    def run(inputs: dict[str, np.ndarray]) -> np.ndarray:
        return session.run(None, {name: inputs[name] for name in wanted})[0]  # thread-safe: the app's queries share it

    return run


def _openvino_compiled(path: Path, hint: str) -> Any:
    """The model compiled for the CPU in its precision, for LATENCY (one request on every core) or
    THROUGHPUT (a stream per core)."""
    ov = _openvino_module()
    return ov.Core().compile_model(str(path), "CPU", {"INFERENCE_PRECISION_HINT": openvino_precision(cpu_flags()), "PERFORMANCE_HINT": hint})


def _openvino_runner(path: Path) -> Callable[[dict[str, np.ndarray]], np.ndarray]:
    compiled = _openvino_compiled(path, "LATENCY")
    wanted = [port.get_any_name() for port in compiled.inputs]

    def run(inputs: dict[str, np.ndarray]) -> np.ndarray:
        # An infer request per call: one request is not safe across the app's threads, and making one is cheap.
        request = compiled.create_infer_request()
        return np.asarray(request.infer({name: inputs[name] for name in wanted})[0])

    return run


Keep = Callable[[np.ndarray, np.ndarray, list[int]], None]
# Whether this thread ingests (`bulk_encoding`): only then do many texts take the throughput model.
# An answer's evidence sentences keep the latency one (the other costs ~200 MB and a 0.4 s compile).
_bulk = threading.local()


@contextmanager
def bulk_encoding() -> Iterator[None]:
    """Within it, this thread's encodes of many texts run on the throughput-compiled model."""
    before = getattr(_bulk, "on", False)
    _bulk.on = True
    try:
        yield
    finally:
        _bulk.on = before


def _openvino_pipeline(path: Path) -> Callable[[Iterator[tuple[dict[str, np.ndarray], list[int]]], Keep], None]:
    """For an ingest's many batches: the model compiled for throughput (a stream per core, here 2
    of one thread each), its infer requests started in turn and waited for on the calling thread,
    oldest first. On 2 cores 1,200 ICLR chunks took 7.6 s against 8.0-8.4 s one batch at a time on
    both cores. No Python callback runs on OpenVINO's threads: with AsyncInferQueue's callbacks a
    process aborted at exit ("terminate called without an active exception") in 3 of 6 runs.
    Compiled on first use, once."""
    compiled = lru_cache(maxsize=1)(lambda: _openvino_compiled(path, "THROUGHPUT"))

    def run_all(batches: Iterator[tuple[dict[str, np.ndarray], list[int]]], keep: Keep) -> None:
        model = compiled()
        wanted = [port.get_any_name() for port in model.inputs]
        requests = [model.create_infer_request() for _ in range(max(1, model.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS")))]
        running: deque[tuple[Any, np.ndarray, list[int]]] = deque()  # (request, mask, rows), oldest first

        def finish_oldest() -> None:
            request, mask, rows = running.popleft()
            request.wait()
            keep(np.asarray(request.get_output_tensor(0).data), mask, rows)

        try:
            for turn, (inputs, rows) in enumerate(batches):
                if len(running) == len(requests):  # every request busy: the oldest is the one to reuse
                    finish_oldest()
                request = requests[turn % len(requests)]
                request.start_async({name: inputs[name] for name in wanted})
                running.append((request, inputs["attention_mask"], rows))
            while running:
                finish_oldest()
        finally:
            for request, _, _ in running:  # a failure above: no request is left running into freed inputs
                request.wait()

    return run_all


@lru_cache(maxsize=4)
def load(model_dir: str, backend: str, root: str, batch_size: int, max_tokens: int) -> Any:
    """The backend as a langchain `Embeddings`, built once per process (like embeddings._load)."""
    from langchain_core.embeddings import Embeddings

    encoder = ExportedEncoder(Path(model_dir), backend, Path(root), batch_size, max_tokens)

    class ExportedEmbeddings(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return encoder.encode(list(texts)).tolist() if texts else []

        def embed_query(self, text: str) -> list[float]:
            return encoder.encode([text])[0].tolist()

    return ExportedEmbeddings()
