"""Ollama's native chat (``POST /api/chat``; NDJSON streaming unless ``"stream": false``).

Request → rows: as in Chat Completions, with string contents; a user message's ``images``
(base64) become ``[IMAGE:data:image/png;base64,...]`` markers after its text; an assistant
message with ``tool_calls`` → the native tool-call row (``arguments`` is an object on this
wire, compacted; the id is the call's ``id``, else its function name); a ``tool`` message
→ a native tool-result row keyed by ``tool_call_id``, else ``tool_name`` (its images are
not counted).

Answer: one chat object, or NDJSON lines whose ``message.content`` pieces are joined and
whose ``message.tool_calls`` are collected; the ``done`` line carries ``done_reason``,
``prompt_eval_count`` (input) and ``eval_count`` (output). ``{"error": ...}`` is the error
text.
"""

from __future__ import annotations

from harness.runtime.messages import (
    ChatMessage,
    ToolCall,
    native_tool_call_row,
    native_tool_result_row,
    to_json,
)
from harness.wire.decode.common import (
    AnswerDraft,
    JsonObject,
    arguments_text,
    as_list,
    as_object,
    as_str,
    child,
    data_uri,
    integer,
    join_parts,
    mismatch,
    ndjson_lines,
    object_arguments,
    objects,
    parse_object,
    text_of,
)
from harness.wire.decoded import DecodedAnswer, DecodedRequest, WireDecodeError


def _calls(value: object, where: str) -> list[ToolCall]:
    calls = []
    for n, call in enumerate(as_list(value, where)):
        function = as_object(as_object(call, f"{where}[{n}]").get("function"), f"{where}[{n}]")
        name = as_str(function.get("name"), f"{where}[{n}].function.name")
        call_id = str(as_object(call, where).get("id") or name)
        calls.append(ToolCall(call_id, name, arguments_text(function.get("arguments", {}))))
    return calls


def _row(message: JsonObject, where: str) -> ChatMessage:
    role = message.get("role")
    content = message.get("content") or ""
    if not isinstance(content, str):
        raise mismatch(f"{where}.content", "string", content)
    if role == "user":
        images = message.get("images") or []
        pictures = [("image", data_uri("image/png", str(i))) for i in as_list(images, where)]
        return ChatMessage("user", join_parts([("text", content), *pictures]))
    if role == "assistant" and message.get("tool_calls"):
        return native_tool_call_row(content, _calls(message["tool_calls"], f"{where}.tool_calls"))
    if role == "tool":
        call_id = message.get("tool_call_id") or message.get("tool_name") or ""
        return native_tool_result_row(str(call_id), content)
    if role in ("system", "assistant"):
        return ChatMessage(str(role), content)
    raise WireDecodeError(f"{where}.role: unknown role {role!r}")


def decode_request(body: bytes) -> DecodedRequest:
    payload = parse_object(body)
    messages = objects(payload.get("messages") or [], "messages")
    model = payload.get("model")
    return DecodedRequest(
        model=model if isinstance(model, str) else None,
        rows=tuple(_row(m, f"messages[{n}]") for n, m in enumerate(messages)),
        stream=payload.get("stream", True) is not False,
    )


def _read_line(draft: AnswerDraft, line: object) -> None:
    if isinstance(line, dict) and "error" in line:
        error = line["error"]
        draft.error_text = error if isinstance(error, str) else to_json(error)
        return
    message = child(line, "message")
    draft.text.append(text_of(message, "content") or "")
    calls = message.get("tool_calls") if message is not None else None
    for call in calls if isinstance(calls, list) else []:
        function = child(call, "function")
        name = text_of(function, "name") or ""
        arguments = object_arguments(function.get("arguments") if function else None)
        draft.calls.append(ToolCall(text_of(call, "id") or name, name, arguments))
    if isinstance(line, dict) and line.get("done") is True:
        draft.stop_reason = text_of(line, "done_reason")
        draft.input_tokens = integer(line, "prompt_eval_count")
        draft.output_tokens = integer(line, "eval_count")


def decode_answer(body: bytes, *, streamed: bool) -> DecodedAnswer:
    draft = AnswerDraft()
    for line in ndjson_lines(body) if streamed else [parse_object(body)]:
        _read_line(draft, line)
    return draft.finish()
