"""What every wire decoder shares: bounded JSON parsing, typed reads of untyped JSON that
name the bad path, the canonical row encoding, SSE and NDJSON framing, and the answer draft
each wire fills.

Every failure is a ``WireDecodeError`` whose message names where and what was wrong
(``messages[3].content: expected string or list, found int``); nothing else leaves.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

from harness.runtime.constants import IMAGE_MARKER_PREFIX
from harness.runtime.messages import (
    Attachment,
    ChatMessage,
    ToolCall,
    from_json,
    native_tool_call_row,
    native_tool_result_row,
    to_json,
)
from harness.wire.decoded import DecodedAnswer, WireDecodeError

JsonObject: TypeAlias = dict[str, object]
Part: TypeAlias = tuple[str, str]
"""``("text", text)`` or ``("image", target)``: a user message's content, in order."""


def type_name(value: object) -> str:
    """The JSON name of a parsed value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def mismatch(where: str, expected: str, value: object) -> WireDecodeError:
    return WireDecodeError(f"{where}: expected {expected}, found {type_name(value)}")


def parse_json(text: bytes | str, where: str = "body") -> object:
    """JSON as the wire carried it. Nesting deep enough to exhaust the interpreter's stack
    is refused like any other unreadable body (``json`` raises ``RecursionError``)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise WireDecodeError(f"{where}: JSON nested too deeply") from None
    except ValueError as error:  # JSONDecodeError and UnicodeDecodeError both are
        raise WireDecodeError(f"{where}: not JSON ({error})") from None


def parse_object(body: bytes) -> JsonObject:
    return as_object(parse_json(body), "body")


def as_object(value: object, where: str) -> JsonObject:
    if not isinstance(value, dict):
        raise mismatch(where, "object", value)
    return value


def as_list(value: object, where: str) -> list[object]:
    if not isinstance(value, list):
        raise mismatch(where, "list", value)
    return value


def as_str(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise mismatch(where, "string", value)
    return value


def objects(value: object, where: str) -> list[JsonObject]:
    """A list of objects; absent (``None``) reads as empty."""
    if value is None:
        return []
    return [as_object(item, f"{where}[{n}]") for n, item in enumerate(as_list(value, where))]


def optional_str(value: object, where: str) -> str | None:
    return None if value is None else as_str(value, where)


def child(value: object, key: str) -> JsonObject | None:
    """``value[key]`` when both are objects, else ``None`` (for lenient answer reads)."""
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, dict) else None


def integer(value: object, key: str) -> int | None:
    """``value[key]`` when it is a JSON integer (not a bool), else ``None``."""
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, int) and not isinstance(found, bool) else None


def text_of(value: object, key: str) -> str | None:
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, str) else None


def arguments_text(value: object) -> str:
    """Tool-call arguments as JSON text: a string verbatim, anything else compacted."""
    return value if isinstance(value, str) else to_json(value)


def object_arguments(value: object) -> str:
    """An answer's call arguments on wires that carry them as an object, as the next
    request carries them: the object compacted (JSON text is parsed first); a client sends
    ``{}`` for anything that is not an object."""
    parsed = from_json(value) if isinstance(value, str) else value
    return to_json(parsed if isinstance(parsed, dict) else {})


def image_marker(target: str) -> str:
    return f"{IMAGE_MARKER_PREFIX}{target}]"


def data_uri(mime: str, data: str) -> str:
    return f"data:{mime};base64,{data}"


def join_parts(parts: Iterable[Part]) -> str:
    """Text verbatim and images as ``[IMAGE:<target>]`` markers, in order, unseparated."""
    return "".join(value if kind == "text" else image_marker(value) for kind, value in parts)


def texts(parts: Iterable[Part]) -> str:
    return "".join(value for kind, value in parts if kind == "text")


def images(parts: Iterable[Part]) -> list[str]:
    return [value for kind, value in parts if kind == "image"]


def hints_of(body: Mapping[str, object], names: Iterable[str]) -> dict[str, str]:
    """Session hints: each dotted ``name`` present in ``body`` as a string (a number is
    written as JSON; objects and lists are not hints)."""
    found: dict[str, str] = {}
    for name in names:
        value: object = body
        for key in name.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, str):
            found[name] = value
        elif isinstance(value, int | float) and not isinstance(value, bool):
            found[name] = json.dumps(value)
    return found


# -- streams -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SseEvent:
    event: str | None
    data: str


def sse_events(body: bytes) -> list[SseEvent]:
    """The events of an SSE body (``event:`` and ``data:`` fields; comments and other
    fields ignored). A last event without its closing blank line still counts: a stream
    cut short is read as far as it went."""
    text = body.decode("utf-8", "replace")
    out: list[SseEvent] = []
    event: str | None = None
    data: list[str] = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not line:
            if data:
                out.append(SseEvent(event, "\n".join(data)))
            event, data = None, []
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    if data:
        out.append(SseEvent(event, "\n".join(data)))
    return out


def sse_json(body: bytes) -> list[tuple[str | None, object]]:
    """Each SSE event with its data parsed as JSON; ``[DONE]`` sentinels are left out. An
    unreadable last event is dropped (a cut stream); an unreadable earlier one is an error."""
    events = sse_events(body)
    out: list[tuple[str | None, object]] = []
    for n, event in enumerate(events):
        if event.data.strip() == "[DONE]":
            continue
        try:
            out.append((event.event, parse_json(event.data, f"event {n}")))
        except WireDecodeError:
            if n < len(events) - 1:
                raise
    return out


def ndjson_lines(body: bytes) -> list[object]:
    """Each non-blank line parsed as JSON; an unreadable last line is dropped (cut stream)."""
    lines = [line for line in body.split(b"\n") if line.strip()]
    out: list[object] = []
    for n, line in enumerate(lines):
        try:
            out.append(parse_json(line, f"line {n}"))
        except WireDecodeError:
            if n < len(lines) - 1:
                raise
    return out


def error_body_text(body: bytes) -> str:
    return body.decode("utf-8", "replace")


# -- answers -----------------------------------------------------------------------------


@dataclass(slots=True)
class AnswerDraft:
    """What a wire reads from an answer, filled piece by piece (streams arrive in
    deltas), then turned into the record by ``finish``."""

    text: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    error_text: str | None = None
    input_tokens: int | None = None
    cached_tokens: int | None = None
    output_tokens: int | None = None
    cache_write_tokens: int | None = None
    provider_edits: list[str] = field(default_factory=list)
    stop_reason: str | None = None
    response_id: str | None = None

    def finish(self) -> DecodedAnswer:
        """An errored answer adds no row (the runtime records none); otherwise the native
        tool-call row when it called tools, else one assistant row with its text (empty
        when it said nothing), as the runtime's next request would carry it."""
        return DecodedAnswer(
            rows=() if self.error_text is not None else (self.row(),),
            error_text=self.error_text,
            input_tokens=self.input_tokens,
            cached_tokens=self.cached_tokens,
            output_tokens=self.output_tokens,
            provider_edits=tuple(self.provider_edits),
            cache_write_tokens=self.cache_write_tokens,
            stop_reason=self.stop_reason,
            response_id=self.response_id,
        )

    def row(self) -> ChatMessage:
        text = "".join(self.text)
        if self.calls:
            return native_tool_call_row(text, self.calls)
        return ChatMessage("assistant", text)


def error_answer(body: bytes) -> DecodedAnswer:
    """A non-2xx answer: its body is the error text the overflow classifier reads."""
    return AnswerDraft(error_text=error_body_text(body)).finish()


# -- Chat Completions-style messages (OpenAI Chat, and Cohere v2 built on it) -------------

# Tuples, not sets: a part's ``type`` may be any JSON value, lists (unhashable) included.
_TEXT_PARTS = ("text", "input_text", "output_text")


def chat_parts(content: object, where: str) -> list[Part]:
    """A Chat Completions content: a string, or parts (text kept, ``image_url`` as an
    image, other kinds not counted); absent reads as empty."""
    if content is None:
        return []
    if isinstance(content, str):
        return [("text", content)]
    if not isinstance(content, list):
        raise mismatch(where, "string or list", content)
    out: list[Part] = []
    for n, part in enumerate(objects(content, where)):
        kind = part.get("type")
        if kind in _TEXT_PARTS:
            out.append(("text", as_str(part.get("text"), f"{where}[{n}].text")))
        elif kind == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
            out.append(("image", as_str(url, f"{where}[{n}].image_url.url")))
    return out


def chat_tool_calls(value: object, where: str) -> list[ToolCall]:
    """``[{"id", "function": {"name", "arguments"}, "extra_content"?}]``."""
    calls = []
    for n, call in enumerate(objects(value, where)):
        function = as_object(call.get("function"), f"{where}[{n}].function")
        calls.append(
            ToolCall(
                as_str(call.get("id"), f"{where}[{n}].id"),
                as_str(function.get("name"), f"{where}[{n}].function.name"),
                arguments_text(function.get("arguments", "")),
                call.get("extra_content"),
            )
        )
    return calls


def chat_message_row(message: JsonObject, where: str) -> ChatMessage:
    """One Chat Completions message as its canonical row (module docs of the wires)."""
    role = message.get("role")
    content = message.get("content")
    parts = chat_parts(content, f"{where}.content")
    if role in ("system", "developer"):
        return ChatMessage("system", texts(parts))
    if role == "user":
        return ChatMessage("user", join_parts(parts))
    if role == "assistant":
        calls = message.get("tool_calls")
        if not calls:
            return ChatMessage("assistant", texts(parts))
        reasoning = message.get("reasoning_content")
        return native_tool_call_row(
            texts(parts) if content is not None else None,
            chat_tool_calls(calls, f"{where}.tool_calls"),
            reasoning if isinstance(reasoning, str) else None,
        )
    if role == "tool":
        call_id = as_str(message.get("tool_call_id"), f"{where}.tool_call_id")
        attachments = [Attachment("image", target) for target in images(parts)]
        return native_tool_result_row(call_id, texts(parts), attachments)
    raise WireDecodeError(f"{where}.role: unknown role {role!r}")
