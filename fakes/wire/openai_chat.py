"""OpenAI Chat Completions (``POST /v1/chat/completions``) and its compatible family.

Decoding (wire → canonical rows, docs/contract.md §1.1):

- ``system`` / ``developer`` → a ``system`` row; ``user`` → a ``user`` row whose text
  parts are kept verbatim and whose ``image_url`` parts become ``[IMAGE:<url>]`` markers,
  concatenated in order;
- ``assistant`` with ``tool_calls`` → the native tool-call row
  ``{"content": text|null, "tool_calls": [{"id","name","arguments"}]}`` (plus
  ``reasoning_content`` / ``extra_content`` when the wire carries them); without →
  an ``assistant`` row with its text;
- ``tool`` → ``{"tool_call_id","content","attachments":[]}`` (image parts of a tool
  message become ``image`` attachments).

Tool pairing is enforced as OpenAI does, with its real messages (typo included).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakes.catalogue import WireName
from fakes.rows import (
    CanonicalRequest,
    JSONValue,
)
from fakes.wire.base import (
    ErrorKind,
    ReplyPlan,
    RequestContext,
    StreamEvent,
    StreamMedia,
    Usage,
    WireError,
)
from fakes.wire.common import (
    Invalid,
    arr,
    cache_key_option,
    message_row,
    obj,
    openai_error,
    openai_error_body,
    optional_int,
    required,
    string,
    text_pieces,
    tool_schemas,
)
from fakes.wire.openai_chat_extras import (
    OPENROUTER_FLAVOR,
    answers_tool_option,
    chunk_extras,
    obfuscation_option,
    openrouter_rate_limit,
    reply_extras,
)
from fakes.wire.openai_chat_servers import server_chunks, server_reply, unknown_model_body

ORPHAN_TOOL = (
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
    "message with 'tool_calls'."
)
UNANSWERED_CALLS = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)
_FINISH = {"stop": "stop", "tool_calls": "tool_calls", "length": "length"}


def _pairing_error(message: str, index: int, field: str = "role") -> WireError:
    body = openai_error_body(message, "invalid_request_error", f"messages.[{index}].{field}", None)
    return WireError(400, body, detail="tool pairing")


def check_pairing(messages: list[Any]) -> None:
    """Every ``tool`` message answers a call of the assistant message just before its
    run of tool messages, and every call is answered before the next other message."""
    scope: set[str] = set()
    pending: dict[str, None] = {}
    opened_at = -1
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not scope:
                raise _pairing_error(ORPHAN_TOOL, index)
            if call_id not in scope:
                text = (
                    f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in "
                    "'tool_calls' of previous message."
                )
                raise _pairing_error(text, index, "tool_call_id")
            pending.pop(call_id, None)
            continue
        if pending:
            raise _pairing_error(UNANSWERED_CALLS.format(ids=", ".join(pending)), opened_at)
        calls = message.get("tool_calls") if role == "assistant" else None
        ids = [c.get("id") for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
        scope = {i for i in ids if isinstance(i, str)}
        pending = dict.fromkeys(i for i in ids if isinstance(i, str))
        opened_at = index
    if pending:
        raise _pairing_error(UNANSWERED_CALLS.format(ids=", ".join(pending)), opened_at)


def openai_usage(usage: Usage, flavor: str = "openai") -> JSONValue:
    extra: dict[str, JSONValue] = {}
    if flavor == "deepseek":
        # DeepSeek splits the prompt into cache hits and misses (and fills the details too).
        extra = {
            "prompt_cache_hit_tokens": usage.cached_tokens,
            "prompt_cache_miss_tokens": usage.input_tokens - usage.cached_tokens,
        }
    return {
        **extra,
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


@dataclass(frozen=True, slots=True)
class OpenAIChat:
    """Chat Completions; ``flavor`` adds a server's extras (``llamacpp``: ``timings``)."""

    flavor: str = "openai"
    name: WireName = "openai_chat"
    tool_id_prefix: str = "call_"
    stream_media: StreamMedia = "sse"
    response_id_prefix: str = "chatcmpl-"

    def decode(self, body: Any, ctx: RequestContext) -> CanonicalRequest:
        body = obj(body, "body")
        model = ctx.path_model or string(required(body, "model"), "model")
        messages = arr(required(body, "messages"), "messages")
        if not messages:
            raise Invalid("[] is too short - 'messages'")
        checked = [obj(m, f"messages[{n}]") for n, m in enumerate(messages)]
        if ctx.enforce_pairing:
            check_pairing(checked)
        rows = tuple(message_row(m, f"messages[{n}]") for n, m in enumerate(checked))
        options = body.get("stream_options")
        include = isinstance(options, dict) and options.get("include_usage") is True
        extra = {**cache_key_option(body), **answers_tool_option(rows)}
        return CanonicalRequest(
            model=model,
            rows=rows,
            tools=tool_schemas(body.get("tools")),
            max_output_tokens=optional_int(body, "max_completion_tokens", "max_tokens"),
            stream=body.get("stream") is True,
            options={"include_usage": include, **extra, **obfuscation_option(body)},
        )

    def _message(self, plan: ReplyPlan) -> JSONValue:
        message: dict[str, JSONValue] = {"role": "assistant", "content": plan.text, "refusal": None}
        if plan.tool_calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments_json},
                }
                for c in plan.tool_calls
            ]
        return message

    def reply(self, plan: ReplyPlan) -> JSONValue:
        body: JSONValue = {
            "id": plan.response_id,
            "object": "chat.completion",
            "created": plan.created,
            "model": plan.model,
            "choices": [
                {
                    "index": 0,
                    "message": self._message(plan),
                    "logprobs": None,
                    "finish_reason": _FINISH.get(plan.stop, "length"),
                }
            ],
            "usage": openai_usage(plan.usage, self.flavor),
            "system_fingerprint": "fp_fake",
        }
        return server_reply(reply_extras(body, self.flavor, plan), self.flavor, plan)

    def _chunk(self, plan: ReplyPlan, delta: JSONValue, finish: str | None) -> StreamEvent:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return StreamEvent(
            {
                "id": plan.response_id,
                "object": "chat.completion.chunk",
                "created": plan.created,
                "model": plan.model,
                "choices": [choice],
            }
        )

    def stream(self, plan: ReplyPlan) -> tuple[StreamEvent, ...]:
        events = [self._chunk(plan, {"role": "assistant", "content": ""}, None)]
        events += [self._chunk(plan, {"content": p}, None) for p in text_pieces(plan.text or "")]
        for n, call in enumerate(plan.tool_calls):
            head: JSONValue = {
                "index": n,
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            events.append(self._chunk(plan, {"tool_calls": [head]}, None))
            args: JSONValue = {"index": n, "function": {"arguments": call.arguments_json}}
            events.append(self._chunk(plan, {"tool_calls": [args]}, None))
        events.append(self._chunk(plan, {}, _FINISH.get(plan.stop, "length")))
        if plan.include_stream_usage:
            events.append(
                StreamEvent(
                    {
                        "id": plan.response_id,
                        "object": "chat.completion.chunk",
                        "created": plan.created,
                        "model": plan.model,
                        "choices": [],
                        "usage": openai_usage(plan.usage, self.flavor),
                    }
                )
            )
        events.append(StreamEvent("[DONE]", literal=True))
        shaped = server_chunks(tuple(events), self.flavor, plan)
        return chunk_extras(shaped, self.flavor, plan)

    def stream_error(self, plan: ReplyPlan, event: JSONValue) -> tuple[StreamEvent, ...]:
        return (StreamEvent(event),)

    def error(self, status: int, kind: ErrorKind, message: str) -> JSONValue:
        if kind == "rate_limit" and self.flavor == OPENROUTER_FLAVOR:
            return openrouter_rate_limit("")
        return openai_error(kind, message)

    def error_headers(self, kind: ErrorKind) -> Mapping[str, str]:
        return {}

    def unknown_model(self, model: str) -> WireError:
        message = f"The model `{model}` does not exist or you do not have access to it."
        body = unknown_model_body(self.error(404, "not_found", message), self.flavor)
        return WireError(404, body, detail="unknown model")
