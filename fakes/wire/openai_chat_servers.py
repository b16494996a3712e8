"""What OpenAI-compatible servers' Chat Completions answers carry, each server its own way,
copied from recorded answers (the profiles' ``flavor``). Values (timings, costs, ids) are
the fake's; the keys, nesting and types are the records'.

- **Groq** (charmbracelet/fantasy ``providertests/testdata/TestOpenAICompatibleCommon/
  groq-kimi-k2/simple.yaml``, ``tool_streaming.yaml`` at f6d4d1e): no ``refusal``; usage
  with ``queue_time``, ``prompt_time``, ``completion_time``, ``total_time`` and no details;
  ``usage_breakdown: null``, ``x_groq: {id, seed}``, ``service_tier: "on_demand"``. Streamed:
  the opening chunk carries ``x_groq: {id, seed}``, the finish chunk ``x_groq: {id,
  usage}`` and (usage asked for) ``usage``, the usage chunk ``service_tier``. An unknown
  model's 404 has no ``param`` (pydantic/pydantic-ai ``tests/cassettes/
  test_model_name_suggestions/test_model_name_suggestion[groq].yaml`` at 4fda389).
- **llama.cpp** (fantasy ``TestOpenAICompatibleCommon/llama-cpp-gpt-oss/tool.yaml``, build
  b7010): no ``logprobs``, no ``refusal``, ``system_fingerprint`` the build, ``timings``
  with per-token and per-second rates. Kept different: usage keeps
  ``prompt_tokens_details.cached_tokens`` (the record has three counts only, the slot's
  reuse in ``timings.cache_n``), because the harness reads cache reads from there; without
  it a llama.cpp fake's cache reads would count as none (docs/fakes-fidelity.md).
- **xAI** (fantasy ``.../xai-grok-4-fast/simple.yaml``): no ``logprobs``; usage's prompt
  details split by ``text_tokens`` / ``image_tokens``, ``num_sources_used``,
  ``cost_in_usd_ticks``.
- **Cerebras** (pydantic-ai ``tests/models/cassettes/test_cerebras/
  test_cerebras_model_simple.yaml``): no ``logprobs``, no ``refusal``, usage of three
  counts, ``time_info``.
- **Mistral** (pydantic-ai ``test_mistral/test_mistral_forwards_penalties.yaml``): no
  ``logprobs``, ``refusal`` or ``system_fingerprint``; ``tool_calls: null`` without calls;
  usage's prompt details with ``cached_tokens`` only.
- **z.ai** (pydantic-ai ``test_zai/test_zai_model_simple.yaml``): as Mistral, plus
  ``request_id`` and ``completion_tokens_details: {reasoning_tokens}``.
- **DeepSeek** (pydantic-ai ``test_deepseek/test_deepseek_model_thinking_part.yaml``): no
  ``refusal``; details ``{cached_tokens}`` and ``{reasoning_tokens}`` beside its cache
  hit/miss split.
- **Ollama's OpenAI mode** (pydantic-ai ``test_ollama/test_ollama_cloud_tool_output.yaml``):
  no ``logprobs`` or ``refusal``, usage of three counts, ``system_fingerprint: "fp_ollama"``.
- **OpenRouter** (fantasy ``TestOpenRouterCommon/openai/simple.yaml``,
  ``anthropic/tool_streaming.yaml``): the upstream's name as ``provider``, each choice's
  ``native_finish_reason``, the message's ``reasoning``, usage with ``cost``, ``is_byok``,
  ``cost_details`` and its own details. Streamed: no role-only opening chunk, every delta
  with ``role`` and ``content``, no ``logprobs``, and the usage (asked for) in a repeat of
  the finish chunk instead of a chunk without choices.

Only answers were recorded for most of these servers; their streams keep the common shape
(Groq's and OpenRouter's were recorded and are shaped here).
"""

from __future__ import annotations

from typing import Any

from fakes.rows import JSONValue
from fakes.wire.base import ReplyPlan, StreamEvent, Usage

GROQ, LLAMACPP, XAI, CEREBRAS, MISTRAL = "groq", "llamacpp", "xai", "cerebras", "mistral"
ZAI, DEEPSEEK, OLLAMA, OPENROUTER = "zai", "deepseek", "ollama", "openrouter"
SERVER_FLAVORS = frozenset({GROQ, LLAMACPP, XAI, CEREBRAS, MISTRAL, ZAI, DEEPSEEK, OLLAMA})
NO_LOGPROBS = frozenset({LLAMACPP, XAI, CEREBRAS, MISTRAL, ZAI, OLLAMA})
NO_REFUSAL = frozenset({GROQ, LLAMACPP, CEREBRAS, MISTRAL, ZAI, DEEPSEEK, OLLAMA})
NO_FINGERPRINT = frozenset({MISTRAL, ZAI})
FINGERPRINTS = {LLAMACPP: "b0000-fake", OLLAMA: "fp_ollama"}
GROQ_FINGERPRINT = "fp_fake"
UPSTREAM = "FakeUpstream"
"""The upstream provider OpenRouter names (also in its 429, openai_chat_extras)."""
SECONDS_PER_TOKEN = 0.0001
"""The fake's timings: every token takes this long (Groq's, Cerebras', llama.cpp's)."""
USD_PER_TOKEN = 1e-6
"""The fake's price on OpenRouter and xAI (xAI counts in ticks of 1e-10 USD)."""


def _seconds(tokens: int) -> float:
    return round(tokens * SECONDS_PER_TOKEN, 6)


def _counts(usage: Usage) -> dict[str, JSONValue]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
    }


def _groq_usage(usage: Usage) -> dict[str, JSONValue]:
    prompt, completion = _seconds(usage.input_tokens), _seconds(usage.output_tokens)
    return {
        **_counts(usage),
        "queue_time": 0.0,
        "prompt_time": prompt,
        "completion_time": completion,
        "total_time": round(prompt + completion, 6),
    }


def _openrouter_usage(usage: Usage) -> dict[str, JSONValue]:
    prompt_cost = usage.input_tokens * USD_PER_TOKEN
    completion_cost = usage.output_tokens * USD_PER_TOKEN
    return {
        **_counts(usage),
        "cost": prompt_cost + completion_cost,
        "is_byok": False,
        "prompt_tokens_details": {
            "cached_tokens": usage.cached_tokens,
            "cache_write_tokens": usage.cache_creation_tokens,
            "audio_tokens": 0,
            "video_tokens": 0,
        },
        "cost_details": {
            "upstream_inference_cost": prompt_cost + completion_cost,
            "upstream_inference_prompt_cost": prompt_cost,
            "upstream_inference_completions_cost": completion_cost,
        },
        "completion_tokens_details": {"reasoning_tokens": 0, "image_tokens": 0, "audio_tokens": 0},
    }


def _xai_usage(usage: Usage) -> dict[str, JSONValue]:
    return {
        **_counts(usage),
        "prompt_tokens_details": {
            "text_tokens": usage.input_tokens,
            "audio_tokens": 0,
            "image_tokens": 0,
            "cached_tokens": usage.cached_tokens,
        },
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
        "num_sources_used": 0,
        "cost_in_usd_ticks": round(usage.total_tokens * USD_PER_TOKEN * 1e10),
    }


def _cached_details_usage(usage: Usage, flavor: str) -> dict[str, JSONValue]:
    out = _counts(usage)
    out["prompt_tokens_details"] = {"cached_tokens": usage.cached_tokens}
    if flavor in (ZAI, DEEPSEEK):
        out["completion_tokens_details"] = {"reasoning_tokens": 0}
    if flavor == DEEPSEEK:  # DeepSeek splits the prompt into cache hits and misses
        out["prompt_cache_hit_tokens"] = usage.cached_tokens
        out["prompt_cache_miss_tokens"] = usage.input_tokens - usage.cached_tokens
    return out


def server_usage(usage: Usage, flavor: str) -> dict[str, JSONValue] | None:
    """The server's usage object, or ``None`` for OpenAI's own shape."""
    if flavor in (CEREBRAS, OLLAMA):
        return _counts(usage)
    if flavor in (LLAMACPP, MISTRAL, ZAI, DEEPSEEK):
        return _cached_details_usage(usage, flavor)
    shaped = {GROQ: _groq_usage, XAI: _xai_usage, OPENROUTER: _openrouter_usage}.get(flavor)
    return shaped(usage) if shaped else None


def _llamacpp_timings(usage: Usage) -> dict[str, JSONValue]:
    """``cache_n`` prompt tokens reused from the slot, ``prompt_n`` evaluated."""
    evaluated = usage.input_tokens - usage.cached_tokens
    per_token_ms = SECONDS_PER_TOKEN * 1000
    return {
        "cache_n": usage.cached_tokens,
        "prompt_n": evaluated,
        "prompt_ms": evaluated * per_token_ms,
        "prompt_per_token_ms": per_token_ms,
        "prompt_per_second": 1 / SECONDS_PER_TOKEN,
        "predicted_n": usage.output_tokens,
        "predicted_ms": usage.output_tokens * per_token_ms,
        "predicted_per_token_ms": per_token_ms,
        "predicted_per_second": 1 / SECONDS_PER_TOKEN,
    }


def _top_level(plan: ReplyPlan, flavor: str) -> dict[str, JSONValue]:
    usage = plan.usage
    if flavor == GROQ:
        x_groq: JSONValue = {"id": f"req_{plan.response_id}", "seed": plan.index}
        return {"usage_breakdown": None, "x_groq": x_groq, "service_tier": "on_demand"}
    if flavor == LLAMACPP:
        return {"timings": _llamacpp_timings(usage)}
    if flavor == CEREBRAS:
        prompt, completion = _seconds(usage.input_tokens), _seconds(usage.output_tokens)
        return {
            "time_info": {
                "completion_time": completion,
                "created": float(plan.created),
                "prompt_time": prompt,
                "queue_time": 0.0,
                "total_time": round(prompt + completion, 6),
            }
        }
    if flavor == ZAI:
        return {"request_id": plan.response_id}
    if flavor == OPENROUTER:
        return {"provider": UPSTREAM, "system_fingerprint": None, "service_tier": "default"}
    return {}


def _choice(choice: dict[str, Any], flavor: str) -> dict[str, Any]:
    out = dict(choice)
    if flavor in NO_LOGPROBS:
        out.pop("logprobs", None)
    if flavor == OPENROUTER:
        out["native_finish_reason"] = out.get("finish_reason")
    message = out.get("message")
    if isinstance(message, dict):
        message = dict(message)
        if flavor in NO_REFUSAL:
            message.pop("refusal", None)
        if flavor == MISTRAL:
            message.setdefault("tool_calls", None)
        if flavor == OPENROUTER:
            message["reasoning"] = None
        out["message"] = message
    return out


def server_reply(body: JSONValue, flavor: str, plan: ReplyPlan) -> JSONValue:
    """A non-streamed answer as the server gives it (OpenAI's shape for other flavors)."""
    if (flavor not in SERVER_FLAVORS and flavor != OPENROUTER) or not isinstance(body, dict):
        return body
    out: dict[str, Any] = dict(body)
    choices = out.get("choices")
    out["choices"] = (
        [_choice(c, flavor) for c in choices if isinstance(c, dict)]
        if isinstance(choices, list)
        else choices
    )
    usage = server_usage(plan.usage, flavor)
    if usage is not None:
        out["usage"] = usage
    if flavor in NO_FINGERPRINT:
        out.pop("system_fingerprint", None)
    elif flavor in FINGERPRINTS:
        out["system_fingerprint"] = FINGERPRINTS[flavor]
    out.update(_top_level(plan, flavor))
    return out


def unknown_model_body(body: JSONValue, flavor: str) -> JSONValue:
    """Groq's 404 for an unknown model carries no ``param``."""
    error = body.get("error") if isinstance(body, dict) else None
    if flavor != GROQ or not isinstance(body, dict) or not isinstance(error, dict):
        return body
    return {**body, "error": {k: v for k, v in error.items() if k != "param"}}


def _groq_chunk(data: dict[str, Any], plan: ReplyPlan, first: bool) -> dict[str, Any]:
    out = {**data, "system_fingerprint": GROQ_FINGERPRINT}
    choices = data.get("choices") or []
    x_id = f"req_{plan.response_id}"
    if first:
        out["x_groq"] = {"id": x_id, "seed": plan.index}
    elif choices and choices[0].get("finish_reason"):
        out["x_groq"] = {"id": x_id, "usage": _groq_usage(plan.usage)}
        if plan.include_stream_usage:
            out["usage"] = _groq_usage(plan.usage)
    elif not choices and "usage" in data:
        out["usage"] = _groq_usage(plan.usage)
        out["service_tier"] = "on_demand"
    return out


def _openrouter_chunk(data: dict[str, Any]) -> dict[str, Any]:
    choices = []
    for given in data.get("choices") or []:
        choice = {k: v for k, v in given.items() if k != "logprobs"}
        delta = dict(given.get("delta") or {})
        content = delta.pop("content", None if delta.get("tool_calls") else "")
        choice["delta"] = {"content": content, "role": "assistant", **delta}
        choice["native_finish_reason"] = given.get("finish_reason")
        choices.append(choice)
    return {**data, "provider": UPSTREAM, "choices": choices}


def _openrouter_chunks(chunks: list[dict[str, Any]], plan: ReplyPlan) -> list[dict[str, Any]]:
    """No role-only opening chunk; the usage in a repeat of the finish chunk."""
    opening = chunks[0]["choices"][0]["delta"] if chunks and chunks[0].get("choices") else {}
    if opening == {"role": "assistant", "content": ""} and len(chunks) > 1:
        chunks = chunks[1:]
    out: list[dict[str, Any]] = []
    for data in chunks:
        if data.get("choices") or not out:
            out.append(_openrouter_chunk(data))
        else:  # the usage chunk
            out.append({**out[-1], "usage": _openrouter_usage(plan.usage)})
    return out


def server_chunks(
    events: tuple[StreamEvent, ...], flavor: str, plan: ReplyPlan
) -> tuple[StreamEvent, ...]:
    """A stream's chunks as Groq and OpenRouter send them (others keep OpenAI's)."""
    if flavor not in (GROQ, OPENROUTER):
        return events
    chunks = [e.data for e in events if not e.literal and isinstance(e.data, dict)]
    tail = [e for e in events if e.literal or not isinstance(e.data, dict)]
    if flavor == GROQ:
        shaped = [_groq_chunk(c, plan, n == 0) for n, c in enumerate(chunks)]
    else:
        shaped = _openrouter_chunks(chunks, plan)
    return (*(StreamEvent(c) for c in shaped), *tail)
