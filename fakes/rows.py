"""Canonical provider-facing rows: the shape every wire request is turned back into.

A fake never sees the runtime's history, only a wire request. To count that request the
way the runtime does (``heuristic`` counter) it is first decoded into the rows the
runtime would have built (docs/contract.md §1.1): ``(role, content)`` pairs where a
native assistant tool call is the compact JSON object
``{"content": <text or null>, "tool_calls": [{"id", "name", "arguments"}]}`` and a native
tool result is ``{"tool_call_id", "content", "attachments": [...]}``. JSON is compact,
keys in that order, non-ASCII left unescaped (as serde_json writes it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

JSONValue: TypeAlias = dict[str, "JSONValue"] | list["JSONValue"] | str | int | float | bool | None
JSONObject: TypeAlias = dict[str, JSONValue]

IMAGE_MARKER_PREFIX = "[IMAGE:"
TOOL_RESULTS_PREFIX = "[Tool results]"
TOOL_ATTACHMENTS_HEADER_PREFIX = "[Tool attachments: "

# Rust's `char::is_whitespace`; Python's `str.strip()` also strips U+001C..U+001F.
RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


@dataclass(frozen=True, slots=True)
class Row:
    """One provider-facing row: ``system``, ``user``, ``assistant`` or ``tool``."""

    role: str
    content: str


@dataclass(frozen=True, slots=True)
class ToolSchema:
    """A tool offered to the model; priced by its name, description and parameters."""

    name: str
    description: str
    parameters: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class WireToolCall:
    """A tool call as the wire carried it; ``arguments`` is JSON text."""

    id: str
    name: str
    arguments: str
    extra_content: object = None


@dataclass(frozen=True, slots=True)
class Attachment:
    kind: str
    target: str


def compact_json(value: object) -> str:
    """Compact JSON as serde_json writes it: no spaces, UTF-8 left unescaped."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def rust_trim(text: str) -> str:
    return text.strip(RUST_WHITESPACE)


def image_marker(target: str) -> str:
    return f"{IMAGE_MARKER_PREFIX}{target}]"


def tool_call_row(
    text: str | None,
    calls: Sequence[WireToolCall],
    reasoning_content: str | None = None,
) -> Row:
    """The native assistant tool-call row; blank text becomes ``null``."""
    trimmed = rust_trim(text) if text is not None else ""
    call_objects: list[dict[str, object]] = []
    for call in calls:
        obj: dict[str, object] = {"id": call.id, "name": call.name, "arguments": call.arguments}
        if call.extra_content is not None:
            obj["extra_content"] = call.extra_content
        call_objects.append(obj)
    envelope: dict[str, object] = {"content": trimmed or None, "tool_calls": call_objects}
    if reasoning_content is not None:
        envelope["reasoning_content"] = reasoning_content
    return Row("assistant", compact_json(envelope))


def tool_result_row(tool_call_id: str, content: str, attachments: Sequence[Attachment] = ()) -> Row:
    """The native tool-result row (seed-era envelope: ``attachments`` always written)."""
    return Row(
        "tool",
        compact_json(
            {
                "tool_call_id": tool_call_id,
                "content": content,
                "attachments": [{"kind": a.kind, "target": a.target} for a in attachments],
            }
        ),
    )


@dataclass(frozen=True, slots=True)
class CanonicalRequest:
    """A decoded wire request: what the fake counts and answers."""

    model: str
    rows: tuple[Row, ...]
    tools: tuple[ToolSchema, ...] = ()
    max_output_tokens: int | None = None
    stream: bool = False
    options: Mapping[str, object] = field(default_factory=dict)
