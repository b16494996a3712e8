"""Google Gemini (``POST /v1beta/models/{model}:generateContent`` and
``:streamGenerateContent``; the model is named in the path).

Request → rows: each ``systemInstruction`` part → a ``system`` row; a user content's
``functionResponse`` parts → native tool-result rows, its text / ``inlineData`` /
``fileData`` parts → one ``user`` row after them (images as ``[IMAGE:<data URI or file
URI>]``); a model content → the native tool-call row when it has ``functionCall`` parts,
else an ``assistant`` row. Gemini ids are optional: a call's or response's id is its
``id``, else the function's name. A response object ``{"content"|"output"|"result":
<string>}`` is that string, any other its compact JSON. Thought parts are not rows.
Hint: ``cachedContent``.

Answer: a ``GenerateContentResponse``, or a stream of them (SSE with ``?alt=sse``, else
one JSON array): text parts joined, ``functionCall`` parts as calls whose ``arguments`` is
the compact JSON of ``args``. Usage: ``promptTokenCount`` (the whole prompt),
``cachedContentTokenCount``, ``candidatesTokenCount`` + ``thoughtsTokenCount``. An
``error`` object is the error text; ``finishReason`` (or ``promptFeedback.blockReason``)
is the stop reason.
"""

from __future__ import annotations

from harness.runtime.messages import ChatMessage, ToolCall, native_tool_call_row, to_json
from harness.runtime.messages import native_tool_result_row as result_row
from harness.wire.decode.common import (
    AnswerDraft,
    JsonObject,
    Part,
    as_list,
    as_object,
    as_str,
    child,
    data_uri,
    hints_of,
    integer,
    join_parts,
    object_arguments,
    objects,
    parse_json,
    parse_object,
    sse_json,
    text_of,
)
from harness.wire.decoded import DecodedAnswer, DecodedRequest

HINTS = ("cachedContent",)
_RESPONSE_TEXT_KEYS = ("content", "output", "result")


def _response_text(response: object) -> str:
    if isinstance(response, dict) and len(response) == 1:
        ((key, value),) = response.items()
        if key in _RESPONSE_TEXT_KEYS and isinstance(value, str):
            return value
    return to_json(response)


def _plain_text(part: JsonObject) -> str | None:
    """A part's text when it is text the conversation carries (thoughts are not)."""
    text = part.get("text")
    return text if isinstance(text, str) and not part.get("thought") else None


def _user_rows(parts: list[JsonObject], where: str) -> list[ChatMessage]:
    rows: list[ChatMessage] = []
    pieces: list[Part] = []
    for n, part in enumerate(parts):
        text = _plain_text(part)
        if "functionResponse" in part:
            response = as_object(part["functionResponse"], f"{where}[{n}].functionResponse")
            call_id = response.get("id") or response.get("name")
            call_id = as_str(call_id, f"{where}[{n}].functionResponse.name")
            rows.append(result_row(call_id, _response_text(response.get("response"))))
        elif text is not None:
            pieces.append(("text", text))
        elif isinstance(part.get("inlineData"), dict):
            blob = child(part, "inlineData") or {}
            pieces.append(("image", data_uri(str(blob.get("mimeType")), str(blob.get("data")))))
        elif isinstance(part.get("fileData"), dict):
            pieces.append(("image", str((child(part, "fileData") or {}).get("fileUri"))))
    if pieces or not rows:
        rows.append(ChatMessage("user", join_parts(pieces)))
    return rows


def _model_row(parts: list[JsonObject], where: str) -> ChatMessage:
    text = "".join(t for t in map(_plain_text, parts) if t is not None)
    calls = []
    for n, part in enumerate(parts):
        if "functionCall" in part:
            call = as_object(part["functionCall"], f"{where}[{n}].functionCall")
            name = as_str(call.get("name"), f"{where}[{n}].functionCall.name")
            call_id = as_str(call.get("id") or name, f"{where}[{n}].functionCall.id")
            calls.append(ToolCall(call_id, name, to_json(call.get("args", {}))))
    return native_tool_call_row(text, calls) if calls else ChatMessage("assistant", text)


def _system_rows(payload: JsonObject) -> list[ChatMessage]:
    system = payload.get("systemInstruction", payload.get("system_instruction"))
    if not system:
        return []
    parts = objects(as_object(system, "systemInstruction").get("parts"), "systemInstruction.parts")
    return [ChatMessage("system", str(p.get("text", ""))) for p in parts]


def decode_request(body: bytes, path_model: str | None, *, stream: bool) -> DecodedRequest:
    payload = parse_object(body)
    rows = _system_rows(payload)
    for n, content in enumerate(objects(payload.get("contents"), "contents")):
        where = f"contents[{n}].parts"
        parts = objects(as_list(content.get("parts"), where), where)
        if content.get("role") == "model":
            rows.append(_model_row(parts, where))
        else:
            rows += _user_rows(parts, where)
    return DecodedRequest(
        model=path_model, rows=tuple(rows), stream=stream, hints=hints_of(payload, HINTS)
    )


def _read_chunk(draft: AnswerDraft, chunk: object) -> None:
    """One response (or stream chunk): its parts add to the draft, its usage and finish
    reason replace what earlier chunks said."""
    if isinstance(chunk, dict) and "error" in chunk:
        draft.error_text = to_json(chunk["error"])
        return
    usage = child(chunk, "usageMetadata")
    if usage is not None:
        draft.input_tokens = integer(usage, "promptTokenCount")
        draft.cached_tokens = integer(usage, "cachedContentTokenCount")
        counts = [integer(usage, k) for k in ("candidatesTokenCount", "thoughtsTokenCount")]
        present = [n for n in counts if n is not None]
        draft.output_tokens = sum(present) if present else None
    blocked = text_of(child(chunk, "promptFeedback"), "blockReason")
    draft.stop_reason = blocked or draft.stop_reason
    candidates = chunk.get("candidates") if isinstance(chunk, dict) else None
    candidate = candidates[0] if isinstance(candidates, list) and candidates else None
    draft.stop_reason = text_of(candidate, "finishReason") or draft.stop_reason
    parts = (child(candidate, "content") or {}).get("parts")
    for part in parts if isinstance(parts, list) else []:
        call = child(part, "functionCall")
        text = _plain_text(part) if isinstance(part, dict) else None
        if call is not None:
            name = text_of(call, "name") or ""
            arguments = object_arguments(call.get("args"))
            draft.calls.append(ToolCall(text_of(call, "id") or name, name, arguments))
        elif text is not None:
            draft.text.append(text)


def decode_answer(body: bytes, *, streamed: bool) -> DecodedAnswer:
    draft = AnswerDraft()
    if not streamed:
        _read_chunk(draft, parse_object(body))
    elif body.lstrip().startswith(b"["):  # streamGenerateContent without alt=sse
        for chunk in as_list(parse_json(body), "body"):
            _read_chunk(draft, chunk)
    else:
        for _, chunk in sse_json(body):
            _read_chunk(draft, chunk)
    return draft.finish()
