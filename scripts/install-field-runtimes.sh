#!/usr/bin/env bash
# Install the field's agent runtimes the real-runtime tests drive through the proxy, each
# pinned, each in a venv of its own under .tools/field-NAME (git-ignored): their pins
# conflict with each other and with the project's (LangChain wants openai 2.x to keep its
# overflow detection; LiteLLM, pydantic-ai, the OpenAI Agents SDK and Google ADK bring their
# own sets). The test process never imports them; it
# runs the small programs in tests/field/ with each venv's python.
#
# Idempotent: a stamp naming the pins makes a second run a no-op. Installs only from the
# package registry pip is configured with. When an install fails the script says so and
# exits 0: the tests that need that runtime skip, except under CI=true where they fail.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"

install() {
    local name="$1"
    shift
    local tools=".tools/field-$name" stamp=".tools/field-$name/.installed"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$*" ]; then
        return 0
    fi
    [ -x "$tools/bin/python" ] || "$PYTHON" -m venv "$tools"
    echo "install-field-runtimes: installing $* into $tools" >&2
    if ! "$tools/bin/python" -m pip install --quiet --disable-pip-version-check "$@"; then
        echo "install-field-runtimes: $name failed; its tests will skip (and fail under CI=true)" >&2
        [ "${CI:-}" = "true" ] && exit 1
        return 0
    fi
    echo "$*" >"$stamp"
}

# openai 2.54: with openai 3.x langchain-openai no longer recognises an overflow (the
# message alone in str(error)); the pins are the set tried against the fakes. `langchain`
# itself (its agents and SummarizationMiddleware) for the adapter's summarization config.
install langchain langchain==1.5.2 langchain-core==1.8.3 langchain-openai==1.8.1 openai==2.54.0
install litellm litellm==1.110.2
# pydantic-ai: the slim package with its OpenAI extra only (the adapter speaks the OpenAI
# wires); the OpenAI Agents SDK; Google ADK (Gemini through google-genai). Measured here,
# each from an empty venv: ~40 s and 115-140 MB.
install pydantic-ai "pydantic-ai-slim[openai]==2.78.0"
install openai-agents openai-agents==0.24.0
install google-adk google-adk==2.13.0
