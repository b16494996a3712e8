"""The ``heuristic`` counter: the reference runtime's token estimate, re-implemented.

docs/contract.md §5, over canonical rows (see ``fakes.rows``):

- every row costs ``ceil(utf8_bytes(content) / 4) + 4``;
- a user row that is not a tool-result carrier and holds loadable ``[IMAGE:<ref>]``
  markers costs ``ceil(text_bytes / 4) + 1600 * images + 4`` (markers' bytes excluded);
- a tool-result carrier (every ``tool`` row; a ``user`` row starting, after leading
  whitespace, with ``[Tool results]``) in the *current user turn* that declares
  attachments costs ``ceil(body_bytes / 4) + 1600 * declared_images + 4``; older
  carriers and carriers that declare nothing use the plain formula;
- each tool schema costs ``ceil((len(name) + len(description) +
  len(compact_json(parameters))) / 4) + 4`` (lengths in UTF-8 bytes).

This module must never import ``harness``: the fakes stand in for providers, and a
shared implementation would let a runtime bug hide itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from fakes.rows import (
    IMAGE_MARKER_PREFIX,
    RUST_WHITESPACE,
    TOOL_ATTACHMENTS_HEADER_PREFIX,
    TOOL_RESULTS_PREFIX,
    Row,
    ToolSchema,
    compact_json,
    rust_trim,
    utf8_len,
)

BYTES_PER_TOKEN = 4
PER_MESSAGE_FRAMING_TOKENS = 4
IMAGE_TOKEN_ESTIMATE = 1600
_ATTACHMENT_KINDS = ("image", "audio", "video", "document")
_MARKER_KINDS = tuple(kind.upper() for kind in _ATTACHMENT_KINDS)
_USIZE_MAX = 2**64 - 1
_DRIVE_PATH = re.compile(r"[A-Za-z]:[\\/]")
_UNC_PREFIX = "\\\\"
_BRACKETS = len("[]")
_HEADER_LINES = 2  # the prefix line and the count header


def div_ceil(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def plain_tokens(content: str) -> int:
    return div_ceil(utf8_len(content), BYTES_PER_TOKEN) + PER_MESSAGE_FRAMING_TOKENS


def _normalize_ref(ref: str) -> str:
    # A CR or LF inside a ref is removed together with the whitespace that follows it.
    out: list[str] = []
    i = 0
    while i < len(ref):
        if ref[i] in "\r\n":
            i += 1
            while i < len(ref) and ref[i] in RUST_WHITESPACE:
                i += 1
            continue
        out.append(ref[i])
        i += 1
    return rust_trim("".join(out))


def is_loadable_image_ref(ref: str) -> bool:
    if ref.startswith(("/", "http://", "https://", "data:")) or _DRIVE_PATH.match(ref):
        return True
    if ref.startswith(_UNC_PREFIX) and len(ref) > len(_UNC_PREFIX) and ref[2] not in "?.":
        server, sep, share = ref[2:].partition("\\")
        return bool(server and sep and share)
    return False


def strip_image_markers(content: str) -> tuple[str, int]:
    """The content without its loadable markers, and how many loadable markers it had.

    Placeholders (``[IMAGE:...]``, relative paths) and an unterminated tail stay text.
    """
    kept: list[str] = []
    refs, pos = 0, 0
    while (start := content.find(IMAGE_MARKER_PREFIX, pos)) != -1:
        end = content.find("]", start + len(IMAGE_MARKER_PREFIX))
        if end == -1:
            break
        if is_loadable_image_ref(_normalize_ref(content[start + len(IMAGE_MARKER_PREFIX) : end])):
            kept.append(content[pos:start])
            refs += 1
        else:
            kept.append(content[pos : end + 1])
        pos = end + 1
    kept.append(content[pos:])
    return "".join(kept), refs


@dataclass(frozen=True, slots=True)
class Carrier:
    """A carrier's declaration: body text and declared attachment kinds."""

    text: str
    kinds: tuple[str, ...]
    declared: bool


def is_prompt_carrier(content: str) -> bool:
    return content.lstrip(RUST_WHITESPACE).startswith(TOOL_RESULTS_PREFIX)


def is_carrier(row: Row) -> bool:
    return row.role == "tool" or (row.role == "user" and is_prompt_carrier(row.content))


def _reject_constant(name: str) -> object:
    raise ValueError(name)  # serde_json refuses NaN and Infinity


def _parse_native(content: str) -> Carrier | None:
    try:
        value = json.loads(content, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or not isinstance(value.get("content"), str):
        return None
    raw = value.get("attachments")
    if not isinstance(raw, list):
        return Carrier(value["content"], (), declared=False)
    kinds = tuple(
        item["kind"]
        for item in raw
        if isinstance(item, dict)
        and item.get("kind") in _ATTACHMENT_KINDS
        and isinstance(item.get("target"), str)
    )
    return Carrier(value["content"], kinds, declared=True)


def _marker_kind(line: str) -> str | None:
    if len(line) < _BRACKETS or not (line.startswith("[") and line.endswith("]")):
        return None
    kind, sep, target = line[1:-1].partition(":")
    if not sep or not target or kind not in _MARKER_KINDS:
        return None
    return kind.lower()


def _count_header(line: str) -> int | None:
    if not (line.startswith(TOOL_ATTACHMENTS_HEADER_PREFIX) and line.endswith("]")):
        return None
    digits = line[len(TOOL_ATTACHMENTS_HEADER_PREFIX) : -1]
    if not digits or not all("0" <= ch <= "9" for ch in digits):
        return None
    count = int(digits)
    return count if count <= _USIZE_MAX else None


def _parse_prompt(content: str) -> Carrier | None:
    lines = content.split("\n")
    if lines[0] != TOOL_RESULTS_PREFIX:
        return None
    legacy = Carrier(content, (), declared=False)
    count = _count_header(lines[1]) if len(lines) >= _HEADER_LINES else None
    if count is None or len(lines) < 2 + count:
        return legacy
    kinds = [_marker_kind(line) for line in lines[2 : 2 + count]]
    if any(kind is None for kind in kinds):
        return legacy
    return Carrier("\n".join(lines[2 + count :]), tuple(k for k in kinds if k), declared=True)


def parse_carrier(row: Row) -> Carrier | None:
    return _parse_native(row.content) if row.role == "tool" else _parse_prompt(row.content)


def _user_row_tokens(content: str) -> int:
    if IMAGE_MARKER_PREFIX in content:
        text, images = strip_image_markers(content)
        if images:
            return (
                div_ceil(utf8_len(text), BYTES_PER_TOKEN)
                + IMAGE_TOKEN_ESTIMATE * images
                + PER_MESSAGE_FRAMING_TOKENS
            )
    return plain_tokens(content)


def _current_carrier_tokens(row: Row) -> int:
    carrier = parse_carrier(row)
    if carrier is None or not carrier.declared or not carrier.kinds:
        return plain_tokens(row.content)
    images = carrier.kinds.count("image")
    return (
        div_ceil(utf8_len(carrier.text), BYTES_PER_TOKEN)
        + IMAGE_TOKEN_ESTIMATE * images
        + PER_MESSAGE_FRAMING_TOKENS
    )


def current_turn_start(rows: Sequence[Row]) -> int:
    """Index of the last user row that is not a prompt-mode carrier (0 when none)."""
    for index in range(len(rows) - 1, -1, -1):
        if rows[index].role == "user" and not is_prompt_carrier(rows[index].content):
            return index
    return 0


def row_tokens(row: Row, *, current: bool) -> int:
    if is_carrier(row):
        return _current_carrier_tokens(row) if current else plain_tokens(row.content)
    if row.role == "user":
        return _user_row_tokens(row.content)
    return plain_tokens(row.content)


def estimate_rows(rows: Sequence[Row]) -> int:
    start = current_turn_start(rows)
    return sum(row_tokens(row, current=i >= start) for i, row in enumerate(rows))


def estimate_tools(tools: Sequence[ToolSchema]) -> int:
    total = 0
    for tool in tools:
        size = utf8_len(tool.name) + utf8_len(tool.description)
        size += utf8_len(compact_json(dict(tool.parameters)))
        total += div_ceil(size, BYTES_PER_TOKEN) + PER_MESSAGE_FRAMING_TOKENS
    return total


def estimate_text(text: str) -> int:
    """Output-side count: ``ceil(bytes / 4)``, no framing."""
    return div_ceil(utf8_len(text), BYTES_PER_TOKEN)
