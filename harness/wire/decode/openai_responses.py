"""OpenAI Responses (``POST /v1/responses``).

Request → rows: ``instructions`` → a ``system`` row; a string ``input`` → one ``user``
row; ``message`` items → rows as in Chat Completions (``input_image`` → ``[IMAGE:<url or
file id>]``); a run of ``function_call`` items → one native tool-call row, absorbing the
text of an assistant message item just before it; each ``function_call_output`` → a native
tool-result row. ``reasoning`` items and other provider items are not rows; ``compaction``
and ``compaction_summary`` items are opaque (encrypted), so they are reported as
``provider_items`` (``"responses_compaction"``) instead. ``truncation: "auto"`` sets
``truncation_auto`` (the answer never says what it truncated); an in-request
``context_management`` is ``"responses_context_management"``. Hints:
``prompt_cache_key``, ``previous_response_id``, ``conversation`` (a string or its
``id``), ``user``, ``safety_identifier``.

Answer: a response object, or its SSE events: the terminal ``response.completed`` /
``response.incomplete`` carries the whole response; a stream cut before it is read from
its ``response.output_item.done`` items. ``response.failed`` and ``error`` events are the
error text. ``compaction`` output items are the ``"compaction"`` edit. ``stop_reason`` is
``incomplete_details.reason`` when incomplete, else ``status``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    arguments_text,
    as_str,
    child,
    hints_of,
    images,
    integer,
    join_parts,
    mismatch,
    objects,
    parse_object,
    sse_json,
    text_of,
    texts,
)
from harness.wire.decoded import DecodedAnswer, DecodedRequest, WireDecodeError

HINTS = ("prompt_cache_key", "previous_response_id", "user", "safety_identifier")
COMPACTION_ITEMS = ("compaction", "compaction_summary")
_TEXT_PARTS = ("input_text", "output_text", "text")
_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def _parts(content: object, where: str) -> list[Part]:
    if content is None:
        return []
    if isinstance(content, str):
        return [("text", content)]
    if not isinstance(content, list):
        raise mismatch(where, "string or list", content)
    out: list[Part] = []
    for n, part in enumerate(objects(content, where)):
        if part.get("type") in _TEXT_PARTS:
            out.append(("text", as_str(part.get("text"), f"{where}[{n}].text")))
        elif part.get("type") == "input_image":
            target = part.get("image_url") or part.get("file_id")
            out.append(("image", as_str(target, f"{where}[{n}].image_url")))
    return out


@dataclass(slots=True)
class _Rows:
    """Input items → rows; calls wait for the run to end (``flush``) to become one row."""

    rows: list[ChatMessage] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    pending_text: str | None = None
    provider_items: list[str] = field(default_factory=list)

    def flush(self) -> None:
        if self.calls:
            self.rows.append(native_tool_call_row(self.pending_text, self.calls))
        elif self.pending_text is not None:
            self.rows.append(ChatMessage("assistant", self.pending_text))
        self.calls, self.pending_text = [], None

    def add(self, item: JsonObject, where: str) -> None:
        kind = item.get("type", "message")
        if kind == "function_call":
            name = as_str(item.get("name"), f"{where}.name")
            call_id = as_str(item.get("call_id"), f"{where}.call_id")
            self.calls.append(ToolCall(call_id, name, arguments_text(item.get("arguments"))))
            return
        self.flush()
        if kind == "function_call_output":
            parts = _parts(item.get("output"), f"{where}.output")
            call_id = as_str(item.get("call_id"), f"{where}.call_id")
            attachments = [Attachment("image", target) for target in images(parts)]
            self.rows.append(native_tool_result_row(call_id, texts(parts), attachments))
        elif kind == "message":
            self._message(item, where)
        elif kind in COMPACTION_ITEMS:
            self.provider_items.append("responses_compaction")

    def _message(self, item: JsonObject, where: str) -> None:
        role = item.get("role")
        parts = _parts(item.get("content"), f"{where}.content")
        if role == "assistant":
            self.pending_text = texts(parts)
        elif role in ("system", "developer"):
            self.rows.append(ChatMessage("system", texts(parts)))
        elif role == "user":
            self.rows.append(ChatMessage("user", join_parts(parts)))
        else:
            raise WireDecodeError(f"{where}.role: unknown role {role!r}")


def _hints(payload: JsonObject) -> dict[str, str]:
    hints = hints_of(payload, HINTS)
    conversation = payload.get("conversation")
    conversation_id = text_of(conversation, "id") if isinstance(conversation, dict) else None
    if isinstance(conversation, str) or conversation_id is not None:
        hints["conversation"] = conversation_id or str(conversation)
    return hints


def decode_request(body: bytes) -> DecodedRequest:
    payload = parse_object(body)
    raw = payload.get("input")
    items: list[JsonObject] = (
        [{"type": "message", "role": "user", "content": raw}]
        if isinstance(raw, str)
        else objects(raw, "input")
    )
    builder = _Rows()
    instructions = payload.get("instructions")
    if isinstance(instructions, str):
        builder.rows.append(ChatMessage("system", instructions))
    for n, item in enumerate(items):
        builder.add(item, f"input[{n}]")
    builder.flush()
    if payload.get("context_management") is not None:
        builder.provider_items.append("responses_context_management")
    model = payload.get("model")
    return DecodedRequest(
        model=model if isinstance(model, str) else None,
        rows=tuple(builder.rows),
        stream=payload.get("stream") is True,
        hints=_hints(payload),
        provider_items=tuple(builder.provider_items),
        truncation_auto=payload.get("truncation") == "auto",
    )


def decode_answer(body: bytes, *, streamed: bool) -> DecodedAnswer:
    if not streamed:
        draft = AnswerDraft()
        _read_response(draft, parse_object(body))
        return draft.finish()
    return _stream(body)


def _read_response(draft: AnswerDraft, response: JsonObject) -> None:
    # The id a later request's ``previous_response_id`` names (stored responses).
    draft.response_id = text_of(response, "id")
    error = response.get("error")
    if error is not None or response.get("status") == "failed":
        draft.error_text = to_json(error if error is not None else response)
    _read_items(draft, objects(response.get("output"), "output"))
    reason = text_of(child(response, "incomplete_details"), "reason")
    draft.stop_reason = reason or text_of(response, "status")
    usage = child(response, "usage")
    if usage is not None:
        draft.input_tokens = integer(usage, "input_tokens")
        draft.cached_tokens = integer(child(usage, "input_tokens_details"), "cached_tokens")
        draft.output_tokens = integer(usage, "output_tokens")


def _read_items(draft: AnswerDraft, items: list[JsonObject]) -> None:
    for item in items:
        kind = item.get("type")
        if kind == "message":
            content = item.get("content")
            for part in content if isinstance(content, list) else []:
                if text_of(part, "type") == "output_text":
                    draft.text.append(text_of(part, "text") or "")
        elif kind == "function_call":
            arguments = item.get("arguments")
            draft.calls.append(
                ToolCall(
                    text_of(item, "call_id") or "",
                    text_of(item, "name") or "",
                    arguments if isinstance(arguments, str) else to_json(arguments or {}),
                )
            )
        elif kind in COMPACTION_ITEMS:
            draft.provider_edits.append("compaction")


def _stream(body: bytes) -> DecodedAnswer:
    error: str | None = None
    done_items: list[JsonObject] = []
    for event, data in sse_json(body):
        kind = text_of(data, "type") or event
        response = child(data, "response")
        item = child(data, "item")
        if kind == "error":
            error = to_json(data)
        elif kind in _TERMINAL and response is not None:
            return _terminal(kind == "response.failed", data, response, done_items, error)
        elif kind == "response.output_item.done" and item is not None:
            done_items.append(item)
    draft = AnswerDraft(error_text=error)  # cut before the terminal event: as far as it went
    _read_items(draft, done_items)
    return draft.finish()


def _terminal(
    failed: bool,
    event: object,
    response: JsonObject,
    done_items: list[JsonObject],
    error: str | None,
) -> DecodedAnswer:
    """The terminal event's whole response; its items when it carries no output."""
    draft = AnswerDraft()
    _read_response(draft, response)
    if not response.get("output"):
        _read_items(draft, done_items)
    if failed and draft.error_text is None:
        draft.error_text = to_json(event)
    draft.error_text = draft.error_text or error
    return draft.finish()
