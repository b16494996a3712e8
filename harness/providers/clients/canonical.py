"""Canonical provider-facing rows (spec 1.1) decoded into wire-neutral rows.

Every client renders the same decoded rows, so the rules below hold for every wire format:

- ``system`` rows stay system rows (each wire decides where system text goes);
- ``assistant`` rows whose content is a JSON object with a ``tool_calls`` array are native
  tool calls; calls without a string ``id`` or ``name`` are skipped, and a row left with no
  call is plain text (its ``content``). ``arguments`` that are not a string are re-encoded
  as JSON text. ``reasoning_content`` and ``extra_content`` are not sent;
- ``tool`` rows carry ``{"tool_call_id", "content", "attachments"}``. A row that is not
  such an envelope (legacy or corrupt) is sent as plain user text: nothing is repaired or
  dropped, so an orphan stays an orphan and the provider (or fake) rejects it as the real
  API would;
- prompt-mode ``[Tool results]`` carriers stay user text;
- images: every user row that is not a carrier sends its loadable markers as image parts
  (spec 5.3); carriers of the *current* user turn send their declared image attachments as
  image parts, and those marker lines leave the text. Other attachments of a native tool
  row (non-images, older turns, local paths) are appended to its text as marker lines,
  so the wire carries what the estimate priced.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import TypeAlias

from harness.providers.clients.images import (
    Image,
    ImageMarker,
    image_marker,
    sendable_image,
    split_image_markers,
)
from harness.providers.plumbing.wirejson import as_list, as_object, dumps, string
from harness.runtime.carriers import (
    is_prompt_tool_carrier,
    native_tool_carrier_of,
    parse_prompt_tool_carrier,
)
from harness.runtime.estimate import current_turn_start
from harness.runtime.hygiene import maybe_json_object
from harness.runtime.messages import Attachment, ChatMessage, ToolCall, from_json, marker_line


@dataclass(frozen=True, slots=True)
class TextPart:
    text: str


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image to send; ``marker`` is its text form for wires that cannot carry it."""

    image: Image
    marker: str


Part: TypeAlias = TextPart | ImagePart


@dataclass(frozen=True, slots=True)
class SystemRow:
    text: str


@dataclass(frozen=True, slots=True)
class UserRow:
    parts: tuple[Part, ...]

    @property
    def text(self) -> str:
        """All text parts joined; image parts contribute their marker."""
        return "".join(p.text if isinstance(p, TextPart) else p.marker for p in self.parts)

    @property
    def images(self) -> tuple[ImagePart, ...]:
        return tuple(p for p in self.parts if isinstance(p, ImagePart))


@dataclass(frozen=True, slots=True)
class AssistantRow:
    text: str | None
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolRow:
    tool_call_id: str
    text: str
    images: tuple[ImagePart, ...] = ()


WireRow: TypeAlias = SystemRow | UserRow | AssistantRow | ToolRow


def decode_rows(messages: Sequence[ChatMessage]) -> tuple[WireRow, ...]:
    """Decode canonical rows; raises ``ValueError`` for a role outside the four of spec 1.1."""
    start = current_turn_start(messages)
    # Every call re-sends the history, so the older rows are looked up in a C-level map
    # (no Python loop per row), with ``current`` passed by position: the cache's key is
    # then a plain pair (a keyword doubles the cost of a hit).
    older = map(decoded_row, messages[:start], repeat(False))
    return (
        *older,
        # Only tool rows and user rows (carriers) decode differently in the current turn;
        # the others are looked up as older rows whatever their place, one entry each.
        *(decoded_row(row, row.role in _TURN_SENSITIVE) for row in messages[start:]),
    )


_TURN_SENSITIVE = frozenset({"tool", "user"})


DECODE_CACHE_ROWS = 8192
"""Decoded rows kept, process-wide (least recently used forgotten first)."""


@functools.lru_cache(maxsize=DECODE_CACHE_ROWS)
def decoded_row(row: ChatMessage, current: bool) -> WireRow:
    """Decode one row. Remembered: every request re-sends the whole history, so without
    it each call would parse every tool row's JSON again. Decoding is a pure function of
    the row (and whether it belongs to the current turn) and decoded rows are immutable."""
    if row.role == "system":
        return SystemRow(row.content)
    if row.role == "assistant":
        return _decode_assistant(row.content)
    if row.role == "tool":
        return _decode_tool(row.content, current=current)
    if row.role == "user":
        if is_prompt_tool_carrier(row.content):
            return _decode_prompt_carrier(row.content, current=current)
        return UserRow(_user_parts(row.content))
    raise ValueError(f"unknown role {row.role!r}: canonical rows are system/user/assistant/tool")


def _user_parts(content: str) -> tuple[Part, ...]:
    parts: list[Part] = []
    for segment in split_image_markers(content):
        image = sendable_image(segment.ref) if isinstance(segment, ImageMarker) else None
        if isinstance(segment, ImageMarker) and image is not None:
            parts.append(ImagePart(image, segment.raw))
            continue
        text = segment.raw if isinstance(segment, ImageMarker) else segment
        if parts and isinstance(parts[-1], TextPart):
            parts[-1] = TextPart(parts[-1].text + text)
        else:
            parts.append(TextPart(text))
    return tuple(parts) or (TextPart(""),)


def _decode_assistant(content: str) -> AssistantRow:
    if not maybe_json_object(content):  # not a JSON object: plain text, nothing to parse
        return AssistantRow(content)
    value = as_object(from_json(content))
    if value is None or not isinstance(value.get("tool_calls"), list):
        return AssistantRow(content)
    calls = tuple(c for c in map(_tool_call, as_list(value["tool_calls"])) if c is not None)
    text = string(value, "content")
    if not calls:
        return AssistantRow(text if text is not None else "")
    return AssistantRow(text, calls)


def _tool_call(item: object) -> ToolCall | None:
    obj = as_object(item)
    call_id, name = string(obj, "id"), string(obj, "name")
    if obj is None or call_id is None or name is None:
        return None
    arguments = obj.get("arguments")
    text = arguments if isinstance(arguments, str) else dumps(arguments)
    return ToolCall(call_id, name, text)


def _image_parts(attachments: Sequence[Attachment]) -> tuple[list[ImagePart], list[Attachment]]:
    """Split declared attachments into image parts to send and attachments left as text."""
    sent: list[ImagePart] = []
    kept: list[Attachment] = []
    for attachment in attachments:
        image = sendable_image(attachment.target) if attachment.kind == "image" else None
        if image is None:
            kept.append(attachment)
        else:
            sent.append(ImagePart(image, image_marker(attachment.target)))
    return sent, kept


def _decode_tool(content: str, *, current: bool) -> WireRow:
    value = from_json(content)
    call_id = value.get("tool_call_id") if isinstance(value, dict) else None
    parsed = native_tool_carrier_of(value)
    if not isinstance(call_id, str) or parsed is None:
        return UserRow((TextPart(content),))
    sent, kept = _image_parts(parsed.attachments) if current else ([], list(parsed.attachments))
    text = "\n".join([parsed.text, *(marker_line(a) for a in kept)])
    return ToolRow(call_id, text, tuple(sent))


def _decode_prompt_carrier(content: str, *, current: bool) -> UserRow:
    parsed = parse_prompt_tool_carrier(content) if current else None
    if parsed is None or not parsed.declared:
        return UserRow((TextPart(content),))
    sent, _ = _image_parts(parsed.attachments)
    if not sent:
        return UserRow((TextPart(content),))
    sent_markers = {p.marker for p in sent}
    lines = content.split("\n")
    count = len(parsed.attachments)
    # The count header stays: it still tells the model how many attachments the tool made.
    markers = [line for line in lines[2 : 2 + count] if line not in sent_markers]
    text = "\n".join([*lines[:2], *markers, *lines[2 + count :]])
    return UserRow((TextPart(text), *sent))


def tool_names_by_id(rows: Sequence[WireRow]) -> dict[str, str]:
    """Tool name of every native call in the request, for wires whose results need it."""
    return {
        call.id: call.name
        for row in rows
        if isinstance(row, AssistantRow)
        for call in row.tool_calls
    }
