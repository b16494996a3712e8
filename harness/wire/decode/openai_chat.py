"""OpenAI Chat Completions (``POST /v1/chat/completions`` and the compatible family).

Request → rows: ``system``/``developer`` → a ``system`` row (text parts only); ``user`` →
a ``user`` row, text verbatim and ``image_url`` parts as ``[IMAGE:<url>]`` markers in
order; ``assistant`` with ``tool_calls`` → the native tool-call row (``reasoning_content``
and ``extra_content`` kept when present), without → an ``assistant`` row; ``tool`` → the
native tool-result row (its image parts become ``image`` attachments). Hints:
``prompt_cache_key``, ``user``, ``safety_identifier``.

Answer: a ``chat.completion`` body, or ``chat.completion.chunk`` SSE events whose
``delta.content`` pieces are joined and whose ``delta.tool_calls`` are assembled by
``index`` (id and name from the first delta, ``arguments`` concatenated). Usage:
``prompt_tokens`` (the whole prompt), ``prompt_tokens_details.cached_tokens`` (DeepSeek:
``prompt_cache_hit_tokens``), ``completion_tokens``. An ``error`` object, in a 200 body
or as a stream event, is the answer's error text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.runtime.messages import ToolCall, to_json
from harness.wire.decode.common import (
    AnswerDraft,
    JsonObject,
    as_list,
    chat_message_row,
    chat_parts,
    child,
    hints_of,
    integer,
    objects,
    parse_object,
    sse_json,
    text_of,
    texts,
)
from harness.wire.decoded import DecodedAnswer, DecodedRequest, WireDecodeError

HINTS = ("prompt_cache_key", "user", "safety_identifier")


def decode_request(body: bytes) -> DecodedRequest:
    payload = parse_object(body)
    messages = objects(as_list(payload.get("messages"), "messages"), "messages")
    rows = tuple(chat_message_row(m, f"messages[{n}]") for n, m in enumerate(messages))
    model = payload.get("model")
    return DecodedRequest(
        model=model if isinstance(model, str) else None,
        rows=rows,
        stream=payload.get("stream") is True,
        hints=hints_of(payload, HINTS),
    )


def read_usage(draft: AnswerDraft, usage: JsonObject | None) -> None:
    if usage is None:
        return
    cached = integer(child(usage, "prompt_tokens_details"), "cached_tokens")
    draft.input_tokens = integer(usage, "prompt_tokens")
    draft.cached_tokens = (
        cached if cached is not None else integer(usage, "prompt_cache_hit_tokens")
    )
    draft.output_tokens = integer(usage, "completion_tokens")


def decode_answer(body: bytes, *, streamed: bool) -> DecodedAnswer:
    return _stream(body) if streamed else _whole(body)


def _whole(body: bytes) -> DecodedAnswer:
    payload = parse_object(body)
    draft = AnswerDraft()
    if "error" in payload:
        draft.error_text = to_json(payload["error"])
        return draft.finish()
    choices = as_list(payload.get("choices"), "choices")
    choice = objects(choices[:1], "choices")
    if not choice:
        raise WireDecodeError("choices: expected at least one choice, found none")
    message = child(choice[0], "message")
    if message is None:
        raise WireDecodeError("choices[0].message: expected object, found none")
    draft.text.append(texts(chat_parts(message.get("content"), "choices[0].message.content")))
    draft.calls = _calls(message.get("tool_calls"))
    draft.stop_reason = text_of(choice[0], "finish_reason")
    read_usage(draft, child(payload, "usage"))
    return draft.finish()


def _calls(value: object) -> list[ToolCall]:
    """Answer calls, leniently: a call without an id or name still counts (empty)."""
    if not isinstance(value, list):
        return []
    out = []
    for call in value:
        function = child(call, "function")
        arguments = function.get("arguments") if function is not None else None
        out.append(
            ToolCall(
                text_of(call, "id") or "",
                text_of(function, "name") or "",
                arguments if isinstance(arguments, str) else to_json(arguments or {}),
            )
        )
    return out


@dataclass(slots=True)
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


def _stream(body: bytes) -> DecodedAnswer:
    draft = AnswerDraft()
    pending: dict[int, _PendingCall] = {}
    for _, data in sse_json(body):
        if isinstance(data, dict) and "error" in data:
            draft.error_text = to_json(data["error"])
            continue
        read_usage(draft, child(data, "usage"))
        choices = data.get("choices") if isinstance(data, dict) else None
        for choice in choices if isinstance(choices, list) else []:
            _read_choice(draft, pending, choice)
    draft.calls = [
        ToolCall(call.id, call.name, "".join(call.arguments)) for _, call in sorted(pending.items())
    ]
    return draft.finish()


def _read_choice(draft: AnswerDraft, pending: dict[int, _PendingCall], choice: object) -> None:
    delta = child(choice, "delta")
    content = text_of(delta, "content")
    if content:
        draft.text.append(content)
    tool_calls = delta.get("tool_calls") if delta is not None else None
    for n, item in enumerate(tool_calls if isinstance(tool_calls, list) else []):
        index = integer(item, "index")
        call = pending.setdefault(index if index is not None else n, _PendingCall())
        call.id = text_of(item, "id") or call.id
        function = child(item, "function")
        call.name = text_of(function, "name") or call.name
        call.arguments.append(text_of(function, "arguments") or "")
    finish = text_of(choice, "finish_reason")
    if finish is not None:
        draft.stop_reason = finish
