"""Tool-result carrier grammar (spec 1.1, IDX-TC).

Every ``tool`` row is a carrier; a ``user`` row is one when its content, after leading
whitespace is trimmed, starts with ``[Tool results]``. A carrier *declares* its
attachments at a fixed position (the native ``attachments`` array, or the prompt-mode
count header followed by exactly N marker lines). Anything else degrades to *legacy*:
zero attachments and an untrusted body.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from harness.runtime.constants import TOOL_ATTACHMENTS_HEADER_PREFIX, TOOL_RESULTS_PREFIX
from harness.runtime.memo import Memo
from harness.runtime.messages import (
    ATTACHMENT_KINDS,
    Attachment,
    AttachmentKind,
    ChatMessage,
    from_json,
)
from harness.runtime.text import rust_trim_start

# Rust parses the count as `usize`; a count that overflows it is not a header.
_USIZE_MAX = 2**64 - 1
_MARKER_KINDS: dict[str, AttachmentKind] = {kind.upper(): kind for kind in ATTACHMENT_KINDS}


@dataclass(frozen=True, slots=True)
class ParsedCarrier:
    text: str
    attachments: tuple[Attachment, ...]
    declared: bool


def is_prompt_tool_carrier(content: str) -> bool:
    return rust_trim_start(content).startswith(TOOL_RESULTS_PREFIX)


def is_tool_result_carrier(message: ChatMessage) -> bool:
    if message.role == "tool":
        return True
    return message.role == "user" and is_prompt_tool_carrier(message.content)


def _attachment_from_json(item: object) -> Attachment | None:
    if not isinstance(item, dict):
        return None
    kind, target = item.get("kind"), item.get("target")
    if kind not in ATTACHMENT_KINDS or not isinstance(target, str):
        return None
    return Attachment(kind, target)


def parse_native_tool_carrier(content: str) -> ParsedCarrier | None:
    """``None`` when the content is not a JSON object with a string ``content``."""
    return native_tool_carrier_of(from_json(content))


def native_tool_carrier_of(value: object) -> ParsedCarrier | None:
    """``parse_native_tool_carrier`` of content already parsed (``from_json``) to ``value``."""
    if not isinstance(value, dict) or not isinstance(value.get("content"), str):
        return None
    raw = value.get("attachments")
    if not isinstance(raw, list):
        return ParsedCarrier(value["content"], (), declared=False)
    parsed = (_attachment_from_json(item) for item in raw)
    return ParsedCarrier(value["content"], tuple(a for a in parsed if a is not None), True)


_BRACKETS = len("[]")
_HEADER_LINES = 2
"""A declared prompt-mode carrier starts with ``[Tool results]`` and its count line."""


def parse_marker_line(line: str) -> Attachment | None:
    if not (line.startswith("[") and line.endswith("]")) or len(line) < _BRACKETS:
        return None
    kind, sep, target = line[1:-1].partition(":")
    if not sep or not target or kind not in _MARKER_KINDS:
        return None
    return Attachment(_MARKER_KINDS[kind], target)


def _parse_count_header(line: str) -> int | None:
    if not (line.startswith(TOOL_ATTACHMENTS_HEADER_PREFIX) and line.endswith("]")):
        return None
    digits = line[len(TOOL_ATTACHMENTS_HEADER_PREFIX) : -1]
    if not digits or not all("0" <= ch <= "9" for ch in digits):
        return None
    count = int(digits)
    return count if count <= _USIZE_MAX else None


def parse_prompt_tool_carrier(content: str) -> ParsedCarrier | None:
    """``None`` unless line 1 is exactly ``[Tool results]``; a bad header is legacy."""
    lines = content.split("\n")
    if lines[0] != TOOL_RESULTS_PREFIX:
        return None
    legacy = ParsedCarrier(content, (), declared=False)
    if len(lines) < _HEADER_LINES:
        return legacy
    count = _parse_count_header(lines[1])
    if count is None or len(lines) < 2 + count:
        return legacy
    attachments = []
    for line in lines[2 : 2 + count]:
        marker = parse_marker_line(line)
        if marker is None:
            return legacy
        attachments.append(marker)
    return ParsedCarrier("\n".join(lines[2 + count :]), tuple(attachments), declared=True)


CARRIER: Final = Memo["ParsedCarrier | None"]("_carrier")
"""A carrier row's parsed declaration, remembered on the row (``harness.runtime.memo``)."""


def parse_carrier(message: ChatMessage) -> ParsedCarrier | None:
    """The declaration of a carrier row, or ``None`` for a carrier with no fixed position.

    Remembered on the (immutable) row: the estimate, the image check and the wire decode
    each read the current turn's carriers on every loop iteration."""
    try:
        cached = CARRIER.read(message)
    except AttributeError:
        if message.role == "tool":
            cached = parse_native_tool_carrier(message.content)
        else:
            cached = parse_prompt_tool_carrier(message.content)
        CARRIER.write(message, cached)
    return cached
