"""Anthropic Messages (``POST /v1/messages``).

Request → rows: ``system`` → one ``system`` row per text block (a string is one block);
a user message's ``tool_result`` blocks → native tool-result rows in order (their image
blocks as ``image`` attachments), its text and image blocks → one ``user`` row after them
(images as ``[IMAGE:<url or data URI>]``); an assistant message → the native tool-call row
when it has ``tool_use`` blocks (text blocks joined, ``arguments`` the compact JSON of
``input``), else an ``assistant`` row with its text. ``thinking`` blocks are not rows.
``compaction`` blocks are provider-made (the API drops what precedes the newest one), so
they are reported as ``provider_items`` (``"anthropic_compaction"``), as is an in-request
``context_management`` (``"anthropic_context_management"``). Hint: ``metadata.user_id``.

Answer: a message body or its SSE events (``content_block_*`` assembled by index,
``input_json_delta`` pieces joined). A tool call's ``arguments`` is the compact JSON of its
input, as the next request carries it. Usage: ``input_tokens`` + ``cache_read_input_tokens``
+ ``cache_creation_input_tokens`` is the whole prompt, the cache reads are
``cached_tokens``, the writes ``cache_write_tokens``.
``context_management.applied_edits[].type`` and ``compaction`` blocks are the provider
edits; ``event: error`` is the error text.
"""

from __future__ import annotations

from harness.runtime.messages import (
    Attachment,
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
    as_str,
    child,
    data_uri,
    hints_of,
    integer,
    join_parts,
    mismatch,
    object_arguments,
    objects,
    parse_object,
    sse_json,
    text_of,
)
from harness.wire.decoded import DecodedAnswer, DecodedRequest, WireDecodeError

HINTS = ("metadata.user_id",)


def _blocks(content: object, where: str) -> list[JsonObject]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise mismatch(where, "string or list", content)
    return objects(content, where)


def _text(block: JsonObject, where: str) -> str:
    return as_str(block.get("text", ""), f"{where}.text")


def _image_target(block: JsonObject) -> str:
    source = child(block, "source") or {}
    if source.get("type") == "base64":
        return data_uri(str(source.get("media_type")), str(source.get("data")))
    return str(source.get("url") or source.get("file_id") or "")


def _result_row(block: JsonObject, where: str) -> ChatMessage:
    content = block.get("content")
    inner = _blocks(content, f"{where}.content") if content is not None else []
    text = "".join(
        _text(b, f"{where}.content[{n}]") for n, b in enumerate(inner) if b.get("type") == "text"
    )
    attachments = [Attachment("image", _image_target(b)) for b in inner if b.get("type") == "image"]
    call_id = as_str(block.get("tool_use_id"), f"{where}.tool_use_id")
    return native_tool_result_row(call_id, text, attachments)


def _user_rows(blocks: list[JsonObject], where: str) -> list[ChatMessage]:
    rows: list[ChatMessage] = []
    parts: list[Part] = []
    for n, block in enumerate(blocks):
        kind = block.get("type")
        if kind == "tool_result":
            rows.append(_result_row(block, f"{where}[{n}]"))
        elif kind == "text":
            parts.append(("text", _text(block, f"{where}[{n}]")))
        elif kind == "image":
            parts.append(("image", _image_target(block)))
    if parts or not rows:
        rows.append(ChatMessage("user", join_parts(parts)))
    return rows


def _assistant_row(blocks: list[JsonObject], where: str) -> ChatMessage:
    text = "".join(
        _text(b, f"{where}[{n}]") for n, b in enumerate(blocks) if b.get("type") == "text"
    )
    calls = [
        ToolCall(
            as_str(b.get("id"), f"{where}[{n}].id"),
            as_str(b.get("name"), f"{where}[{n}].name"),
            to_json(b.get("input", {})),
        )
        for n, b in enumerate(blocks)
        if b.get("type") == "tool_use"
    ]
    return native_tool_call_row(text, calls) if calls else ChatMessage("assistant", text)


def _system_rows(system: object) -> list[ChatMessage]:
    if system is None:
        return []
    return [
        ChatMessage("system", _text(block, f"system[{n}]"))
        for n, block in enumerate(_blocks(system, "system"))
        if block.get("type") == "text"
    ]


def decode_request(body: bytes) -> DecodedRequest:
    payload = parse_object(body)
    rows = _system_rows(payload.get("system"))
    items: list[str] = []
    for n, message in enumerate(objects(payload.get("messages"), "messages")):
        where = f"messages[{n}].content"
        blocks = _blocks(message.get("content"), where)
        role = message.get("role")
        if role == "user":
            rows += _user_rows(blocks, where)
        elif role == "assistant":
            rows.append(_assistant_row(blocks, where))
        else:
            raise WireDecodeError(f"messages[{n}].role: unknown role {role!r}")
        items += ["anthropic_compaction" for b in blocks if b.get("type") == "compaction"]
    if payload.get("context_management") is not None:
        items.append("anthropic_context_management")
    model = payload.get("model")
    return DecodedRequest(
        model=model if isinstance(model, str) else None,
        rows=tuple(rows),
        stream=payload.get("stream") is True,
        hints=hints_of(payload, HINTS),
        provider_items=tuple(items),
    )


def _read_usage(draft: AnswerDraft, usage: JsonObject | None) -> None:
    if usage is None:
        return
    parts = [integer(usage, k) for k in ("input_tokens", "cache_read_input_tokens")]
    created = integer(usage, "cache_creation_input_tokens")
    present = [n for n in (*parts, created) if n is not None]
    if parts[0] is not None:  # a message_delta's usage may carry the output count only
        draft.input_tokens = sum(present)
        draft.cached_tokens = parts[1]
        draft.cache_write_tokens = created
    output = integer(usage, "output_tokens")
    draft.output_tokens = output if output is not None else draft.output_tokens


def _read_edits(draft: AnswerDraft, container: object) -> None:
    applied = child(container, "context_management")
    edits = applied.get("applied_edits") if applied is not None else None
    for edit in edits if isinstance(edits, list) else []:
        kind = text_of(edit, "type")
        if kind is not None:
            draft.provider_edits.append(kind)


def _read_block(draft: AnswerDraft, block: JsonObject, arguments: str | None = None) -> None:
    kind = block.get("type")
    if kind == "text":
        draft.text.append(text_of(block, "text") or "")
    elif kind == "tool_use":
        raw = arguments if arguments else block.get("input")
        call = ToolCall(
            text_of(block, "id") or "", text_of(block, "name") or "", object_arguments(raw)
        )
        draft.calls.append(call)
    elif kind == "compaction":
        draft.provider_edits.append("compaction")


def decode_answer(body: bytes, *, streamed: bool) -> DecodedAnswer:
    if streamed:
        return _stream(body)
    message = parse_object(body)
    draft = AnswerDraft()
    if message.get("type") == "error":
        draft.error_text = to_json(message)
        return draft.finish()
    for block in objects(message.get("content"), "content"):
        _read_block(draft, block)
    draft.stop_reason = text_of(message, "stop_reason")
    _read_usage(draft, child(message, "usage"))
    _read_edits(draft, message)
    return draft.finish()


def _stream(body: bytes) -> DecodedAnswer:
    draft = AnswerDraft()
    blocks: dict[int, JsonObject] = {}
    pieces: dict[int, list[str]] = {}
    for event, data in sse_json(body):
        kind = text_of(data, "type") or event
        index = integer(data, "index") or 0
        if kind == "error":
            draft.error_text = to_json(data)
        elif kind == "message_start":
            _read_usage(draft, child(child(data, "message"), "usage"))
        elif kind == "content_block_start" and child(data, "content_block") is not None:
            blocks[index], pieces[index] = child(data, "content_block") or {}, []
        elif kind == "content_block_delta" and index in pieces:
            delta = child(data, "delta")
            piece = text_of(delta, "text")
            pieces[index].append(
                piece if piece is not None else text_of(delta, "partial_json") or ""
            )
        elif kind == "message_delta":
            draft.stop_reason = text_of(child(data, "delta"), "stop_reason") or draft.stop_reason
            _read_usage(draft, child(data, "usage"))
            _read_edits(draft, data)
    for index in sorted(blocks):
        block, joined = blocks[index], "".join(pieces[index])
        if block.get("type") == "text":
            block = {**block, "text": (text_of(block, "text") or "") + joined}
        _read_block(draft, block, joined)
    return draft.finish()
