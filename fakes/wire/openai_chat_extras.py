"""What OpenAI's and Azure's own Chat Completions answers carry that compatible servers'
do not, copied from recorded answers (the ``openai`` and ``azure`` profiles' flavors).

OpenAI (charmbracelet/fantasy ``providertests/testdata/TestOpenAICommon/openai-gpt-4o-mini/
simple.yaml``, ``simple_streaming.yaml``, ``tool_streaming.yaml`` at f6d4d1e):

- an answer has ``service_tier: "default"`` and its message ``annotations: []``;
- every chunk carries ``service_tier``, ``system_fingerprint``, an ``obfuscation`` padding
  (off with ``stream_options.include_obfuscation: false``, as on Responses) and, when usage
  was asked for (``stream_options.include_usage``), ``usage: null`` until the usage chunk;
- the opening delta is ``{"role", "content": "", "refusal": null}``; an answer that only
  calls tools opens with the first call in that same delta (``content: null``), no
  separate role chunk.

Azure OpenAI (fantasy ``TestAzureCommon/azure-gpt-5-mini/simple.yaml``,
``tool_streaming.yaml``): the same, plus content-filter results: the answer's
``prompt_filter_results`` and each choice's ``content_filter_results``; a stream opens with
a chunk whose ``choices`` is empty (``id``, ``model``, ``object`` empty, ``created`` 0)
carrying the prompt's filter results, and each choice of a later chunk has
``content_filter_results: {}`` (code reading ``chunk.choices[0]`` fails on that first
chunk, as on Azure).

Azure's usage carries ``latency_checkpoint`` (nine millisecond timings; the values are the
fake's: ``LATENCY_CHECKPOINT``), in the answer's ``usage`` and at the top of the streamed
usage chunk; on a turn whose last message is a tool result the prompt's filter results
are empty (``tool_streaming.yaml`` interaction 1: ``content_filter_results: {}``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fakes.rows import JSONValue, Row
from fakes.wire.base import ReplyPlan, StreamEvent

OPENROUTER_FLAVOR = "openrouter"
OPENROUTER_COMMENT = "OPENROUTER PROCESSING"
"""OpenRouter opens its streams with SSE comments while the upstream works (two in
fantasy's ``TestOpenRouterCommon/anthropic/tool_streaming.yaml`` at f6d4d1e)."""
OPENROUTER_UPSTREAM_LIMIT = (
    "{model} is temporarily rate-limited upstream. Please retry shortly, or add your own "
    "key to accumulate your rate limits: https://openrouter.ai/settings/integrations"
)
OPENAI_FLAVOR = "openai_api"
AZURE_FLAVOR = "azure"
FLAVORS = frozenset({OPENAI_FLAVOR, AZURE_FLAVOR})
SERVICE_TIER = "default"
FINGERPRINT = "fp_fake"
NULL_FINGERPRINT_MODELS = ("gpt-5",)
OBFUSCATION_WIDTH = 16
_SAFE: JSONValue = {"filtered": False, "severity": "safe"}
_CLEAN: JSONValue = {"detected": False, "filtered": False}
COMPLETION_FILTER: dict[str, JSONValue] = {
    "hate": _SAFE,
    "protected_material_code": _CLEAN,
    "protected_material_text": _CLEAN,
    "self_harm": _SAFE,
    "sexual": _SAFE,
    "violence": _SAFE,
}
LATENCY_CHECKPOINT: dict[str, JSONValue] = {
    "engine_tbt_ms": 1,
    "engine_ttft_ms": 1,
    "engine_ttlt_ms": 1,
    "pre_inference_ms": 1,
    "service_tbt_ms": 1,
    "service_ttft_ms": 1,
    "service_ttlt_ms": 1,
    "total_duration_ms": 1,
    "user_visible_ttft_ms": 1,
}
ANSWERS_TOOL = "answers_tool"
PROMPT_FILTER: dict[str, JSONValue] = {
    "hate": _SAFE,
    "jailbreak": _CLEAN,
    "self_harm": _SAFE,
    "sexual": _SAFE,
    "violence": _SAFE,
}


def fingerprint(model: object) -> str | None:
    """``system_fingerprint``: ``null`` for the gpt-5 family (fantasy's
    ``TestOpenAICommon/openai-gpt-5/tool.yaml``, ``TestAzureCommon/azure-gpt-5-mini/*``),
    a ``fp_`` string for the others."""
    return None if str(model).startswith(NULL_FINGERPRINT_MODELS) else FINGERPRINT


def obfuscation_option(body: dict[str, Any]) -> dict[str, object]:
    options = body.get("stream_options")
    include = options.get("include_obfuscation") if isinstance(options, dict) else None
    return {"include_obfuscation": include} if isinstance(include, bool) else {}


def answers_tool_option(rows: Sequence[Row]) -> dict[str, object]:
    """Whether the request's last message is a tool result (Azure filters no prompt then)."""
    return {ANSWERS_TOOL: True} if rows and rows[-1].role == "tool" else {}


def _prompt_filter(plan: ReplyPlan) -> JSONValue:
    results = {} if plan.options.get(ANSWERS_TOOL) is True else dict(PROMPT_FILTER)
    return [{"prompt_index": 0, "content_filter_results": results}]


def reply_extras(body: JSONValue, flavor: str, plan: ReplyPlan) -> JSONValue:
    """A non-streamed answer with its provider's extras."""
    if flavor not in FLAVORS or not isinstance(body, dict):
        return body
    choices: list[JSONValue] = []
    given_choices = body.get("choices")
    for given in given_choices if isinstance(given_choices, list) else []:
        if not isinstance(given, dict):
            continue
        choice = dict(given)
        message = choice.get("message")
        if isinstance(message, dict):
            choice["message"] = {**message, "annotations": []}
        if flavor == AZURE_FLAVOR:
            choice["content_filter_results"] = dict(COMPLETION_FILTER)
        choices.append(choice)
    out: dict[str, JSONValue] = {**body, "choices": choices, "service_tier": SERVICE_TIER}
    out["system_fingerprint"] = fingerprint(body.get("model"))
    if flavor == AZURE_FLAVOR:
        out["prompt_filter_results"] = _prompt_filter(plan)
        usage = body.get("usage")
        if isinstance(usage, dict):
            out["usage"] = {**usage, "latency_checkpoint": dict(LATENCY_CHECKPOINT)}
    return out


def _padding(delta: Any) -> str:
    text = delta.get("content") if isinstance(delta, dict) else None
    used = len(text) if isinstance(text, str) else 0
    return "x" * (OBFUSCATION_WIDTH - used % OBFUSCATION_WIDTH)


def _opening(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The role opens the first delta; an answer of tool calls only opens with its first
    call in that delta (``content: null``)."""
    if not chunks or not chunks[0].get("choices"):
        return chunks
    first_delta = chunks[0]["choices"][0]["delta"]
    if "role" not in first_delta:
        return chunks
    second = chunks[1]["choices"] if len(chunks) > 1 else []
    calls = second[0]["delta"].get("tool_calls") if second else None
    if calls is not None:
        delta = {"role": "assistant", "content": None, "tool_calls": calls, "refusal": None}
        merged = {**chunks[1], "choices": [{**second[0], "delta": delta}]}
        return [merged, *chunks[2:]]
    delta = {**first_delta, "refusal": None}
    return [{**chunks[0], "choices": [{**chunks[0]["choices"][0], "delta": delta}]}, *chunks[1:]]


def _chunk(data: dict[str, Any], flavor: str, usage: bool, obfuscate: bool) -> dict[str, Any]:
    choices = data.get("choices") or []
    out = {**data, "service_tier": SERVICE_TIER, "system_fingerprint": fingerprint(data["model"])}
    if flavor == AZURE_FLAVOR:
        out["choices"] = [{**c, "content_filter_results": {}} for c in choices]
    if usage and "usage" not in out:
        out["usage"] = None
    if flavor == AZURE_FLAVOR and not choices and out.get("usage"):
        out["latency_checkpoint"] = dict(LATENCY_CHECKPOINT)
    if obfuscate:
        out["obfuscation"] = _padding(choices[0].get("delta") if choices else None)
    return out


def openrouter_rate_limit(model: str) -> JSONValue:
    """OpenRouter's 429 when the upstream provider rate-limits (pydantic/pydantic-ai
    ``tests/models/cassettes/test_openrouter/test_openrouter_errors_raised.yaml`` at
    4fda389): a numeric ``code``, ``metadata`` naming the upstream, the caller's
    ``user_id``; no ``type`` or ``param``. The upstream's name and the user are the fake's."""
    return {
        "error": {
            "code": 429,
            "message": "Provider returned error",
            "metadata": {
                "provider_name": "FakeUpstream",
                "raw": OPENROUTER_UPSTREAM_LIMIT.format(model=model or "the model"),
            },
        },
        "user_id": "user_fake",
    }


def chunk_extras(
    events: tuple[StreamEvent, ...], flavor: str, plan: ReplyPlan
) -> tuple[StreamEvent, ...]:
    """A stream's chunks with their provider's extras (``[DONE]`` and the rest kept)."""
    usage, obfuscate = plan.include_stream_usage, plan.obfuscate
    if flavor == OPENROUTER_FLAVOR:
        return (StreamEvent(OPENROUTER_COMMENT, comment=True), *events)
    if flavor not in FLAVORS:
        return events
    chunks = [e.data for e in events if not e.literal and isinstance(e.data, dict)]
    tail = [e for e in events if e.literal or not isinstance(e.data, dict)]
    shaped = [StreamEvent(_chunk(c, flavor, usage, obfuscate)) for c in _opening(chunks)]
    if flavor == AZURE_FLAVOR:
        head: JSONValue = {
            "choices": [],
            "created": 0,
            "id": "",
            "model": "",
            "object": "",
            "prompt_filter_results": _prompt_filter(plan),
        }
        shaped.insert(0, StreamEvent(head))
    return (*shaped, *tail)
