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


# The variables paperchat sets for the libraries it starts, and only when it starts them.
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "GRADIO_ANALYTICS_ENABLED")


def run_clean(script: str) -> dict[str, object]:
    """`script` in a fresh interpreter whose environment has none of OFFLINE_VARIABLES (this
    process's conftest set them); it prints one JSON document."""
    import json
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in OFFLINE_VARIABLES and not k.startswith("PAPERCHAT_")}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_importing_rag_and_the_app_changes_no_environment_variable_and_a_hub_imported_first_is_set_offline() -> None:
    found = run_clean(
        "import json, os\n"
        "import rag.api, rag.cli, rag.embeddings, rag.store, ui.serve\n"
        f"imported = {{k: os.environ.get(k) for k in {OFFLINE_VARIABLES!r}}}\n"
        # A program that imported huggingface_hub (as Gradio does) before paperchat loads a model.
        "import huggingface_hub.constants as hub\n"
        "online = hub.HF_HUB_OFFLINE\n"
        "ui.serve.offline_gradio()\n"
        f"started = {{k: os.environ.get(k) for k in {OFFLINE_VARIABLES!r}}}\n"
        "print(json.dumps({'imported': imported, 'online': online, 'started': started, 'hub': hub.HF_HUB_OFFLINE}))\n"
    )
    assert found["imported"] == dict.fromkeys(OFFLINE_VARIABLES)
    assert found["online"] is False and found["hub"] is True
    assert found["started"] == {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}


@pytest.mark.integration
def test_loading_the_embedding_model_sets_the_hub_offline_before_importing_it() -> None:
    found = run_clean(
        "import json, os, sys\n"
        "from rag.config import Settings\n"
        "from rag.embeddings import make_embeddings\n"
        "embeddings = make_embeddings(Settings(_env_file=None))\n"
        "before = (os.environ.get('HF_HUB_OFFLINE'), 'huggingface_hub' in sys.modules)\n"
        "vector = embeddings.embed_query('offline')\n"
        "import huggingface_hub.constants as hub\n"
        "print(json.dumps({'before': before, 'after': os.environ.get('HF_HUB_OFFLINE'), 'hub': hub.HF_HUB_OFFLINE, 'dims': len(vector)}))\n"
    )
    # Building the seam loads nothing; the first use loads the model, offline from the start.
    assert found["before"] == [None, False]
    assert found["after"] == "1" and found["hub"] is True and found["dims"] == 384
