"""The message model (spec 1): provider-facing rows and the structured history.

A provider-facing ``ChatMessage`` has exactly ``role`` and ``content``; native tool calls
and tool results are JSON encoded *inside* ``content``. The builders here write those
encodings byte for byte: compact JSON, keys in the order spec 1.1 lists them, non-ASCII
text left unescaped (as serde_json writes it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from harness.runtime.constants import TOOL_ATTACHMENTS_HEADER_PREFIX, TOOL_RESULTS_PREFIX
from harness.runtime.text import rust_trim

Role: TypeAlias = str
AttachmentKind: TypeAlias = Literal["image", "audio", "video", "document"]
ATTACHMENT_KINDS: tuple[AttachmentKind, ...] = ("image", "audio", "video", "document")


@dataclass(frozen=True)
class ChatMessage:
    """One provider-facing row: ``system``, ``user``, ``assistant`` or ``tool``.

    Besides its two fields a row has hidden slots (not fields: equality, hashing and
    ``repr`` ignore them) where the runtime remembers what it measured: the row's token
    cost as an older and as a current-turn row, whether it opens a turn, the tool-call ids
    its JSON carries, and its parsed carrier declaration. A row is immutable, so these
    never go stale; rows persist across turns and are re-examined at every trim and every
    loop iteration, and measuring them again each time would dominate.
    """

    __slots__ = (
        "_carrier",
        "_current_tokens",
        "_older_tokens",
        "_opens_turn",
        "_tool_call_ids",
        "_tool_result_id",
        "content",
        "role",
    )
    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A native tool call. ``arguments`` is the JSON text the model produced."""

    id: str
    name: str
    arguments: str
    extra_content: object = None


@dataclass(frozen=True, slots=True)
class Attachment:
    """An attachment a tool declared for its result (spec 1.1, IDX-TC)."""

    kind: AttachmentKind
    target: str


@dataclass(frozen=True, slots=True)
class ToolResultMessage:
    """A tool's recorded result. ``attachments`` (ours, default none) are what the tool
    declared, written into the native envelope or the prompt-mode header."""

    tool_call_id: str
    content: str
    tool_name: str
    attachments: tuple[Attachment, ...] = ()


@dataclass(frozen=True, slots=True)
class Chat:
    """Structured history variant wrapping a plain row."""

    message: ChatMessage


@dataclass(frozen=True, slots=True)
class AssistantToolCalls:
    text: str | None
    tool_calls: tuple[ToolCall, ...]
    reasoning_content: str | None = None


@dataclass(frozen=True, slots=True)
class ToolResults:
    results: tuple[ToolResultMessage, ...]


ConversationMessage: TypeAlias = Chat | AssistantToolCalls | ToolResults


def system(content: str) -> ChatMessage:
    return ChatMessage("system", content)


def user(content: str) -> ChatMessage:
    return ChatMessage("user", content)


def assistant(content: str) -> ChatMessage:
    return ChatMessage("assistant", content)


class _NotJson(ValueError):
    pass


def _reject_constant(name: str) -> object:
    # serde_json rejects NaN and Infinity; Python's json accepts them unless told not to.
    raise _NotJson(name)


# Built once: ``json.loads``/``json.dumps`` with options build a new decoder or encoder on
# every call, which cost more than the parse itself for the short rows of a history.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def from_json(content: str) -> object:
    """Parse JSON as serde_json would, or return ``None`` when it would refuse."""
    try:
        return _DECODER.decode(content)
    except (ValueError, RecursionError):
        return None


def to_json(value: object) -> str:
    """Compact JSON as serde_json writes it: no spaces, UTF-8 left unescaped."""
    return _ENCODER.encode(value)


def _tool_call_object(call: ToolCall) -> dict[str, object]:
    obj: dict[str, object] = {"id": call.id, "name": call.name, "arguments": call.arguments}
    if call.extra_content is not None:
        obj["extra_content"] = call.extra_content
    return obj


def native_tool_call_content(
    text: str | None, tool_calls: Sequence[ToolCall], reasoning_content: str | None = None
) -> str:
    """The JSON content of a native assistant tool-call row.

    ``content`` is the trimmed text, or ``null`` when the text is absent or blank.
    """
    trimmed = rust_trim(text) if text is not None else ""
    obj: dict[str, object] = {
        "content": trimmed or None,
        "tool_calls": [_tool_call_object(call) for call in tool_calls],
    }
    if reasoning_content is not None:
        obj["reasoning_content"] = reasoning_content
    return to_json(obj)


def native_tool_call_row(
    text: str | None, tool_calls: Sequence[ToolCall], reasoning_content: str | None = None
) -> ChatMessage:
    return ChatMessage("assistant", native_tool_call_content(text, tool_calls, reasoning_content))


def native_tool_result_content(
    tool_call_id: str, content: str, attachments: Sequence[Attachment] = ()
) -> str:
    """Seed-era envelope: ``attachments`` is always written, ``[]`` when there are none."""
    return to_json(
        {
            "tool_call_id": tool_call_id,
            "content": content,
            "attachments": [{"kind": a.kind, "target": a.target} for a in attachments],
        }
    )


def native_tool_result_row(
    tool_call_id: str, content: str, attachments: Sequence[Attachment] = ()
) -> ChatMessage:
    return ChatMessage("tool", native_tool_result_content(tool_call_id, content, attachments))


def marker_line(attachment: Attachment) -> str:
    return f"[{attachment.kind.upper()}:{attachment.target}]"


def render_prompt_tool_carrier(body: str, attachments: Sequence[Attachment] = ()) -> str:
    """``[Tool results]``, the count header, one marker line per attachment, then the body."""
    lines = [TOOL_RESULTS_PREFIX, f"{TOOL_ATTACHMENTS_HEADER_PREFIX}{len(attachments)}]"]
    lines.extend(marker_line(a) for a in attachments)
    return "\n".join(lines) + "\n" + body


def tool_result_block(tool_name: str, output: str) -> str:
    return f'<tool_result name="{tool_name}">\n{output}\n</tool_result>'


def prompt_tool_results_row(
    results: Sequence[ToolResultMessage], attachments: Sequence[Attachment] = ()
) -> ChatMessage:
    """One prompt-mode carrier row for a whole tool round (blocks joined by newlines)."""
    body = "\n".join(tool_result_block(r.tool_name, r.content) for r in results)
    return ChatMessage("user", render_prompt_tool_carrier(body, attachments))
