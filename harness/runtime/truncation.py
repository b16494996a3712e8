"""``max_tool_result_chars`` truncation (spec 16).

Applied once, when a tool result is recorded, never to history. Lengths are UTF-8 bytes
even though the marker says "characters", as the reference does.
"""

from __future__ import annotations

from harness.runtime.constants import IMAGE_MARKER_PREFIX
from harness.runtime.messages import from_json, to_json

_MARKER_PREFIX = IMAGE_MARKER_PREFIX.encode()


_CONTINUATION_MASK = 0xC0
_CONTINUATION_BITS = 0x80
"""A UTF-8 continuation byte is ``10xxxxxx``: no character starts there."""


def _is_char_boundary(data: bytes, index: int) -> bool:
    return index >= len(data) or (data[index] & _CONTINUATION_MASK) != _CONTINUATION_BITS


def _marker_spans(data: bytes) -> list[tuple[int, int]]:
    """``(start, end)`` byte spans of ``[IMAGE:…]`` markers, ``end`` exclusive."""
    spans, pos = [], 0
    while (start := data.find(_MARKER_PREFIX, pos)) != -1:
        close = data.find(b"]", start + len(_MARKER_PREFIX))
        if close == -1:
            break
        spans.append((start, close + 1))
        pos = close + 1
    return spans


def truncate_tool_result(output: str, max_chars: int) -> str:
    """Keep the first 2/3 and last 1/3 of ``max_chars`` bytes around an elision marker.

    Cuts land on character boundaries and never split an ``[IMAGE:…]`` marker: the head
    cut moves back to the marker's ``[``, the tail cut forward past its ``]``.
    """
    data = output.encode("utf-8", "surrogatepass")
    if max_chars == 0 or len(data) <= max_chars:
        return output
    head_len = max_chars * 2 // 3
    tail_len = max_chars - head_len
    head_end = head_len
    while not _is_char_boundary(data, head_end):
        head_end -= 1
    tail_start = len(data) - tail_len
    while not _is_char_boundary(data, tail_start):
        tail_start += 1
    for start, end in _marker_spans(data):
        if start < head_end < end:
            head_end = start
        if start < tail_start < end:
            tail_start = end
    if head_end >= tail_start:  # unreachable with the split above; kept as the reference does
        return output
    head = data[:head_end].decode("utf-8", "surrogatepass")
    tail = data[tail_start:].decode("utf-8", "surrogatepass")
    return f"{head}\n\n[... {tail_start - head_end} characters truncated ...]\n\n{tail}"


def truncate_tool_message(content: str, max_chars: int) -> str:
    """Truncate only the inner ``content`` of a native tool envelope, keeping its JSON."""
    if max_chars == 0 or len(content.encode("utf-8", "surrogatepass")) <= max_chars:
        return content
    value = from_json(content)
    if (
        isinstance(value, dict)
        and "tool_call_id" in value
        and isinstance(value.get("content"), str)
    ):
        return to_json({**value, "content": truncate_tool_result(value["content"], max_chars)})
    return truncate_tool_result(content, max_chars)
