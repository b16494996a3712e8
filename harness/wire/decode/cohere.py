"""Cohere v2 chat (``POST /v2/chat``).

Request → rows: as in Chat Completions; an assistant's ``tool_plan`` is its text when it
calls tools and has no ``content``; a tool message's ``document`` parts are their data's
text (compact JSON when the data is not a string).

Answer: a chat body (``message.content`` text parts, ``message.tool_calls``,
``finish_reason``, ``usage.tokens`` else ``usage.billed_units``, ``usage.cached_tokens``),
or its SSE events (``content-delta``, ``tool-plan-delta``, ``tool-call-start`` /
``tool-call-delta`` assembled in order, ``message-end`` with the finish reason and usage).
A stream event that is a whole chat body (how the fakes answer a streamed request) is read
as one. The tool plan is the text of an answer that calls tools and says nothing else.
Event shapes: Cohere's "A Guide to Streaming Responses" (docs.cohere.com/v2/docs/streaming)
and "Streaming for tool use" (docs.cohere.com/v2/docs/tool-use-streaming).
"""

from __future__ import annotations

from harness.runtime.messages import ChatMessage, ToolCall, native_tool_result_row, to_json
from harness.wire.decode.common import (
    AnswerDraft,
    JsonObject,
    as_list,
    as_object,
    as_str,
    chat_message_row,
    child,
    integer,
    objects,
    parse_object,
    sse_json,
    text_of,
)
from harness.wire.decoded import DecodedAnswer, DecodedRequest


def _document_text(part: JsonObject) -> str:
    if part.get("type") == "text":
        return str(part.get("text", ""))
    data = (child(part, "document") or {}).get("data")
    return data if isinstance(data, str) else to_json(data)


def _row(message: JsonObject, where: str) -> ChatMessage:
    role = message.get("role")
    content = message.get("content")
    if role == "tool" and isinstance(content, list):
        text = "".join(_document_text(p) for p in objects(content, f"{where}.content"))
        call_id = as_str(message.get("tool_call_id"), f"{where}.tool_call_id")
        return native_tool_result_row(call_id, text)
    if role == "assistant" and message.get("tool_calls") and content is None:
        plan = message.get("tool_plan")
        message = {**message, "content": plan if isinstance(plan, str) else None}
    return chat_message_row(message, where)


def decode_request(body: bytes) -> DecodedRequest:
    payload = parse_object(body)
    messages = as_list(payload.get("messages"), "messages")
    model = payload.get("model")
    return DecodedRequest(
        model=model if isinstance(model, str) else None,
        rows=tuple(
            _row(as_object(m, f"messages[{n}]"), f"messages[{n}]") for n, m in enumerate(messages)
        ),
        stream=payload.get("stream") is True,
    )


def _read_usage(draft: AnswerDraft, usage: JsonObject | None) -> None:
    counted = child(usage, "tokens") or child(usage, "billed_units")
    if counted is not None:
        draft.input_tokens = integer(counted, "input_tokens")
        draft.output_tokens = integer(counted, "output_tokens")
        draft.cached_tokens = integer(usage, "cached_tokens")


def _read_body(draft: AnswerDraft, body: JsonObject) -> None:
    message = child(body, "message") or {}
    content = message.get("content")
    for part in content if isinstance(content, list) else []:
        draft.text.append(text_of(part, "text") or "")
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        _add_call(draft, call)
    plan = text_of(message, "tool_plan")
    if plan and draft.calls and not "".join(draft.text):
        draft.text = [plan]
    draft.stop_reason = text_of(body, "finish_reason")
    _read_usage(draft, child(body, "usage"))


def _add_call(draft: AnswerDraft, call: object) -> None:
    function = child(call, "function")
    arguments = function.get("arguments") if function is not None else None
    text = arguments if isinstance(arguments, str) else to_json(arguments or {})
    draft.calls.append(ToolCall(text_of(call, "id") or "", text_of(function, "name") or "", text))


def _read_event(draft: AnswerDraft, plan: list[str], data: JsonObject) -> None:
    kind = data.get("type")
    message = child(child(data, "delta"), "message")
    if kind == "content-delta":
        draft.text.append(text_of(child(message, "content"), "text") or "")
    elif kind == "tool-plan-delta":
        plan.append(text_of(message, "tool_plan") or "")
    elif kind == "tool-call-start":  # its arguments, if any, are the first piece
        call = child(message, "tool_calls")
        function = child(call, "function")
        name, piece = text_of(function, "name") or "", text_of(function, "arguments") or ""
        draft.calls.append(ToolCall(text_of(call, "id") or "", name, piece))
    elif kind == "tool-call-delta" and draft.calls:
        piece = text_of(child(child(message, "tool_calls"), "function"), "arguments") or ""
        last = draft.calls[-1]
        draft.calls[-1] = ToolCall(last.id, last.name, last.arguments + piece)
    elif kind == "message-end":
        delta = child(data, "delta")
        draft.stop_reason = text_of(delta, "finish_reason")
        _read_usage(draft, child(delta, "usage"))


def decode_answer(body: bytes, *, streamed: bool) -> DecodedAnswer:
    draft = AnswerDraft()
    if not streamed:
        _read_body(draft, parse_object(body))
        return draft.finish()
    plan: list[str] = []
    for _, data in sse_json(body):
        if not isinstance(data, dict):
            continue
        if "message" in data and "type" not in data:  # a whole body as one event
            _read_body(draft, data)
        else:
            _read_event(draft, plan, data)
    if plan and draft.calls and not "".join(draft.text):
        draft.text = ["".join(plan)]
    return draft.finish()
