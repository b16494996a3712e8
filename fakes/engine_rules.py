"""The engine's pure rules: when a request overflows, which stream media an answer uses,
and the numbers a catalogue body is filled in with (``fakes.scripting.templates``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast, get_args

from fakes.catalogue import OverflowEntry, WireName
from fakes.counting.counters import TokenCount
from fakes.rows import CanonicalRequest
from fakes.wire.base import StreamMedia, WireFormat

STREAMING_WIRES: frozenset[WireName] = frozenset(
    {"openai_chat", "openai_responses", "anthropic", "ollama", "gemini"}
)


@dataclass(frozen=True, slots=True)
class BodyIds:
    """What names one answer in its body: the model, the request's ids, the retry hint."""

    model: str
    request_id: str
    uuid: str
    retry_after: int = 1


def body_numbers(
    request: CanonicalRequest | None,
    tokens: TokenCount | None,
    entry: OverflowEntry | None,
    window: int,
    ids: BodyIds,
) -> dict[str, object]:
    """The values a catalogue body's ``{placeholders}`` take for this request."""
    total = tokens.total if tokens else 0
    completion = (request.max_output_tokens or 0) if request else 0
    trigger = total + completion if entry and entry.trigger == "input_plus_output" else total
    return {
        "window": window,
        "input": total,
        "messages": tokens.messages if tokens else 0,
        "tools": tokens.tools if tokens else 0,
        "completion": completion,
        "requested": total + completion,
        "excess": max(0, trigger - window),
        "model": ids.model,
        "request_id": ids.request_id,
        "uuid": ids.uuid,
        "retry_after": ids.retry_after,
    }


def stream_media(wire: WireFormat, request: CanonicalRequest) -> StreamMedia:
    """The wire's stream media, or the one the request asked for (Gemini's ``alt``)."""
    media = request.options.get("stream_media")
    return cast(StreamMedia, media) if media in get_args(StreamMedia) else wire.stream_media


def exceeds(entry: OverflowEntry, total: int, completion: int, window: int) -> bool:
    if entry.trigger == "input_plus_output":
        return total + completion > window
    return total > window
