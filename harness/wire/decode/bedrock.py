"""AWS Bedrock Converse (``POST /model/{modelId}/converse``; the model is in the path).

Request → rows: ``system`` text blocks → ``system`` rows; a user message's ``toolResult``
blocks → native tool-result rows (``text`` items verbatim, ``json`` items compacted), its
other blocks → one ``user`` row after them: text blocks first, then one
``[IMAGE:data:image/<format>;base64,]`` marker per image block (the image bytes travel
base64 in JSON, which is not read: the marker names only the format); ``toolUse`` blocks
→ the native tool-call row (``arguments`` the compact JSON of ``input``).

Answer: ``output.message.content`` (``text`` and ``toolUse`` blocks), ``stopReason``,
``usage`` (``inputTokens`` read as the whole prompt, as the fakes report it;
``cacheReadInputTokens``; ``outputTokens``). ConverseStream answers in AWS's binary
event-stream framing, which is not decoded: a streamed answer that is not SSE JSON (as the
fakes send) is a ``WireDecodeError``, so the observer reports the call unobservable.
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
    Part,
    as_list,
    child,
    integer,
    join_parts,
    object_arguments,
    objects,
    parse_object,
    sse_json,
    text_of,
)
from harness.wire.decoded import DecodedAnswer, DecodedRequest, WireDecodeError


def _result_text(result: JsonObject) -> str:
    pieces = []
    content = result.get("content")
    for item in content if isinstance(content, list) else []:
        if isinstance(item, dict) and "text" in item:
            pieces.append(str(item["text"]))
        elif isinstance(item, dict) and "json" in item:
            pieces.append(to_json(item["json"]))
    return "".join(pieces)


def _assistant_row(blocks: list[JsonObject]) -> ChatMessage:
    text = "".join(str(b["text"]) for b in blocks if "text" in b)
    calls = [
        ToolCall(str(use.get("toolUseId")), str(use.get("name")), to_json(use.get("input", {})))
        for use in (child(b, "toolUse") for b in blocks)
        if use is not None
    ]
    return native_tool_call_row(text, calls) if calls else ChatMessage("assistant", text)


def _user_rows(blocks: list[JsonObject]) -> list[ChatMessage]:
    rows = [
        native_tool_result_row(str(result.get("toolUseId")), _result_text(result))
        for result in (child(b, "toolResult") for b in blocks)
        if result is not None
    ]
    parts: list[Part] = [("text", str(b["text"])) for b in blocks if "text" in b]
    parts += [
        ("image", f"data:image/{image.get('format')};base64,")
        for image in (child(b, "image") for b in blocks)
        if image is not None
    ]
    if parts or not rows:
        rows.append(ChatMessage("user", join_parts(parts)))
    return rows


def decode_request(body: bytes, path_model: str | None, *, stream: bool) -> DecodedRequest:
    payload = parse_object(body)
    system = payload.get("system")
    rows = [
        ChatMessage("system", str(b["text"]))
        for b in (system if isinstance(system, list) else [])
        if isinstance(b, dict) and "text" in b
    ]
    for n, message in enumerate(objects(as_list(payload.get("messages"), "messages"), "messages")):
        where = f"messages[{n}].content"
        blocks = objects(as_list(message.get("content"), where), where)
        if message.get("role") == "assistant":
            rows.append(_assistant_row(blocks))
        else:
            rows += _user_rows(blocks)
    return DecodedRequest(model=path_model, rows=tuple(rows), stream=stream)


def _read_body(draft: AnswerDraft, body: JsonObject) -> None:
    message = child(child(body, "output"), "message") or {}
    content = message.get("content")
    for block in content if isinstance(content, list) else []:
        text = text_of(block, "text")
        use = child(block, "toolUse")
        if text is not None:
            draft.text.append(text)
        elif use is not None:
            arguments = object_arguments(use.get("input"))
            call = ToolCall(text_of(use, "toolUseId") or "", text_of(use, "name") or "", arguments)
            draft.calls.append(call)
    draft.stop_reason = text_of(body, "stopReason")
    usage = child(body, "usage")
    if usage is not None:
        draft.input_tokens = integer(usage, "inputTokens")
        draft.cached_tokens = integer(usage, "cacheReadInputTokens")
        draft.cache_write_tokens = integer(usage, "cacheWriteInputTokens")
        draft.output_tokens = integer(usage, "outputTokens")


def decode_answer(body: bytes, *, streamed: bool) -> DecodedAnswer:
    draft = AnswerDraft()
    if not streamed:
        _read_body(draft, parse_object(body))
        return draft.finish()
    # An event-stream message opens with two 4-byte big-endian lengths (total, headers):
    # zero bytes no SSE text has.
    if b"\x00" in body[:8]:
        raise WireDecodeError("body: Bedrock ConverseStream event-stream framing is not decoded")
    for _, data in sse_json(body):
        if isinstance(data, dict) and "message" in data and "output" not in data:
            draft.error_text = to_json(data)  # an in-stream exception event's payload
        elif isinstance(data, dict):
            _read_body(draft, data)
    return draft.finish()
