from __future__ import annotations

import re

import pytest

from rag.config import Settings
from tests.conftest import ROOT


def test_env_example_mirrors_settings() -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    documented = set(re.findall(r"^(PAPERCHAT_[A-Z_]+)=", example, flags=re.M))
    fields = {f"PAPERCHAT_{name.upper()}" for name in Settings.model_fields}
    assert documented == fields


def test_env_example_defaults_are_the_real_defaults() -> None:
    example = dict(re.findall(r"^PAPERCHAT_([A-Z_]+)=(.*)$", (ROOT / ".env.example").read_text(encoding="utf-8"), flags=re.M))
    for name, field in Settings.model_fields.items():
        assert example[name.upper()] == str(field.default if field.default is not None else ""), name


def test_readme_documents_every_setting() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [name for name in Settings.model_fields if f"PAPERCHAT_{name.upper()}" not in readme]
    assert not missing


def test_a_missing_model_folder_is_an_error_that_says_what_to_do(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pytest

    from rag.embeddings import make_embeddings
    from rag.errors import EmbeddingModelError

    with pytest.raises(EmbeddingModelError, match=r"PAPERCHAT_EMBEDDING_MODEL.*never downloaded"):
        make_embeddings(Settings(embedding_model=str(tmp_path / "no-such-model"), _env_file=None))  # type: ignore[call-arg]


def test_the_embedding_device_is_the_gpu_in_float16_when_torch_sees_one(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from rag.embeddings import device_shown, embedding_device, model_kwargs

    auto = Settings(_env_file=None)  # type: ignore[call-arg]
    assert auto.embedding_device == "auto"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert embedding_device(auto) == "cpu" and device_shown(auto) == "cpu (auto)"
    assert model_kwargs("cpu") == {"device": "cpu", "local_files_only": True}
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert embedding_device(auto) == "cuda" and device_shown(auto) == "cuda, float16 (auto)"
    assert model_kwargs("cuda")["model_kwargs"] == {"torch_dtype": "float16"}
    pinned = Settings(embedding_device="cpu", _env_file=None)  # type: ignore[call-arg]
    assert embedding_device(pinned) == "cpu" and device_shown(pinned) == "cpu"
