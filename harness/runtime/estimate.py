"""The token estimate (spec 5): ~4 bytes per token plus 4 framing tokens per message.

Images in ``[IMAGE:<ref>]`` markers are priced at a flat ``IMAGE_TOKEN_ESTIMATE`` only in
the rows whose images are dispatched: user rows (not carriers) and the tool-result
carriers of the current user turn, whose images are their *declared* attachments.
Everything else is priced by its bytes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, islice, repeat
from operator import attrgetter, contains, eq, methodcaller, not_

from harness.runtime.carriers import is_prompt_tool_carrier, is_tool_result_carrier, parse_carrier
from harness.runtime.constants import (
    BYTES_PER_TOKEN,
    IMAGE_MARKER_PREFIX,
    IMAGE_TOKEN_ESTIMATE,
    PER_MESSAGE_FRAMING_TOKENS,
    TOOL_RESULTS_PREFIX,
)
from harness.runtime.memo import CURRENT_TOKENS, OLDER_TOKENS, OPENS_TURN, Memo
from harness.runtime.messages import ChatMessage, to_json
from harness.runtime.text import RUST_WHITESPACE, rust_trim, utf8_len

_UNC_PREFIX = "\\\\"
_DRIVE_PATH = re.compile(r"[A-Za-z]:[\\/]")


# ceil(bytes / B) + F == (bytes + B - 1 + F * B) // B
_FRAMED_ROUNDING = BYTES_PER_TOKEN - 1 + PER_MESSAGE_FRAMING_TOKENS * BYTES_PER_TOKEN


def row_tokens(text_bytes: int, images: int = 0) -> int:
    """The one row-cost formula (spec 5.1, 5.3): ``ceil(text_bytes / 4) + 1600 * images + 4``.

    Every price in the estimate is this formula; the pricing rules only decide which bytes
    count as text and how many images a row is charged for."""
    return (text_bytes + _FRAMED_ROUNDING) // BYTES_PER_TOKEN + IMAGE_TOKEN_ESTIMATE * images


def rows_tokens(text_sizes: Sequence[int]) -> list[int]:
    """``row_tokens(size)`` of each image-free text size, as one comprehension: the cold
    measure prices every row of a batch, and a Python call per row would cost more than
    the formula (the same expression as ``row_tokens``, which a test checks)."""
    return [(size + _FRAMED_ROUNDING) // BYTES_PER_TOKEN for size in text_sizes]


def plain_message_tokens(content: str) -> int:
    """A row priced by all its bytes, the formula every row falls back to."""
    return row_tokens(utf8_len(content))


def _normalize_ref(ref: str) -> str:
    # A CR or LF inside a ref is removed together with the whitespace after it.
    if "\n" not in ref and "\r" not in ref:
        return rust_trim(ref)
    out, i = [], 0
    while i < len(ref):
        ch = ref[i]
        if ch in "\r\n":
            i += 1
            while i < len(ref) and ref[i] in RUST_WHITESPACE:
                i += 1
            continue
        out.append(ch)
        i += 1
    return rust_trim("".join(out))


def is_loadable_image_ref(ref: str) -> bool:
    if ref.startswith(("/", "http://", "https://", "data:")):
        return True
    if _DRIVE_PATH.match(ref):
        return True
    if ref.startswith(_UNC_PREFIX) and len(ref) > len(_UNC_PREFIX) and ref[2] not in "?.":
        # As the reference's `is_windows_unc_path`: the share may follow `\` or `/`.
        rest = ref[2:]
        cut = min((i for i in (rest.find("\\"), rest.find("/")) if i >= 0), default=-1)
        return cut > 0 and cut + 1 < len(rest)
    return False


@dataclass(frozen=True, slots=True)
class MarkerSummary:
    text_bytes: int
    image_refs: int


def summarize_image_markers(content: str) -> MarkerSummary:
    """Bytes of everything but loadable markers, and how many loadable markers there are."""
    removed_bytes, refs, pos = 0, 0, 0
    while (start := content.find(IMAGE_MARKER_PREFIX, pos)) != -1:
        end = content.find("]", start + len(IMAGE_MARKER_PREFIX))
        if end == -1:
            break  # an unterminated tail is text
        ref = _normalize_ref(content[start + len(IMAGE_MARKER_PREFIX) : end])
        if is_loadable_image_ref(ref):
            refs += 1
            removed_bytes += utf8_len(content[start : end + 1])
        pos = end + 1
    return MarkerSummary(utf8_len(content) - removed_bytes, refs)


def _user_row_tokens(content: str) -> int:
    if IMAGE_MARKER_PREFIX in content:
        summary = summarize_image_markers(content)
        if summary.image_refs > 0:
            return row_tokens(summary.text_bytes, summary.image_refs)
    return plain_message_tokens(content)


def _current_carrier_tokens(message: ChatMessage) -> int:
    parsed = parse_carrier(message)
    if parsed is None or not parsed.declared or not parsed.attachments:
        return plain_message_tokens(message.content)
    images = sum(1 for a in parsed.attachments if a.kind == "image")
    return row_tokens(utf8_len(parsed.text), images)


def message_tokens(message: ChatMessage, *, current_carrier: bool) -> int:
    """Cost of one row; ``current_carrier`` says whether it sits in the current user turn."""
    role, content = message.role, message.content
    # Fast path, the common case: a row that is neither a carrier nor image-bearing is
    # priced by the plain formula. (A user row is a carrier only if, after leading
    # whitespace, it starts with "["; it has images only if it contains "[IMAGE:".)
    if role == "tool":
        if current_carrier:
            return _current_carrier_tokens(message)
    elif role == "user" and (IMAGE_MARKER_PREFIX in content or is_prompt_tool_carrier(content)):
        if is_prompt_tool_carrier(content):
            if current_carrier:
                return _current_carrier_tokens(message)
        else:
            return _user_row_tokens(content)
    return row_tokens(len(content) if content.isascii() else utf8_len(content))


_CONTENT = attrgetter("content")
_ROLE = attrgetter("role")
_ENCODE = methodcaller("encode", "utf-8", "surrogatepass")  # as text.utf8_len


def _utf8_sizes(contents: list[str]) -> list[int]:
    """``utf8_len`` of each text: its length, and an encode only for the non-ASCII ones."""
    sizes = list(map(len, contents))
    wide = list(compress(range(len(contents)), map(not_, map(str.isascii, contents))))
    for index, size in zip(
        wide, map(len, map(_ENCODE, map(contents.__getitem__, wide))), strict=True
    ):
        sizes[index] = size
    return sizes


def _measure_older(rows: Sequence[ChatMessage]) -> list[int]:
    """Price rows as older rows and remember it on each, with whether each opens a turn
    (``turns.is_turn_boundary``: the trimmers read both of every row).

    The cold path (every row of a restored session, measured once), written as C-level
    passes over the batch: a Python loop touching every row cost more than everything
    else together. Python touches only the rows that need it: the non-ASCII ones (their
    UTF-8 size needs an encode, the one cost here that grows with the text), the user
    rows that open a turn, and the user rows with an image marker.
    """
    count = len(rows)
    contents = list(map(_CONTENT, rows))
    costs = rows_tokens(_utf8_sizes(contents))
    users = list(compress(range(count), map(eq, map(_ROLE, rows), repeat("user"))))
    user_texts = list(map(contents.__getitem__, users))
    # Turn openers: the prompts (and the rare carrier with leading whitespace).
    starts = map(str.startswith, user_texts, repeat(TOOL_RESULTS_PREFIX))
    openers = list(compress(users, map(not_, starts)))
    opens = [False] * count
    for index in openers:
        opens[index] = True
    # Only a prompt's image markers are priced as images (an older carrier costs its
    # bytes), so the long carriers are never scanned for markers.
    prompts = list(map(contents.__getitem__, openers))
    for index in compress(openers, map(contains, prompts, repeat(IMAGE_MARKER_PREFIX))):
        content = contents[index]
        if not is_prompt_tool_carrier(content):
            costs[index] = _user_row_tokens(content)
    OLDER_TOKENS.write_all(rows, costs)
    OPENS_TURN.write_all(rows, opens)
    return costs


def _measure_current(rows: Sequence[ChatMessage]) -> list[int]:
    """Price rows of the current turn (carriers by their declared attachments)."""
    costs = _measure_older(rows)
    for index, row in enumerate(rows):
        if is_tool_result_carrier(row):
            costs[index] = message_tokens(row, current_carrier=True)
        CURRENT_TOKENS.write(row, costs[index])
    return costs


def _costs(
    rows: Sequence[ChatMessage],
    remembered: Memo[int],
    measure: Callable[[Sequence[ChatMessage]], list[int]],
) -> list[int]:
    try:
        return remembered.read_all(rows)  # every row measured before: C speed
    except AttributeError:
        return measure(rows)


def older_costs(rows: Sequence[ChatMessage]) -> tuple[list[int], list[bool]]:
    """Every row's cost as an older row (``message_tokens(row, current_carrier=False)``)
    and whether it opens a turn (``turns.is_turn_boundary``): remembered, or measured and
    remembered."""
    try:
        return OLDER_TOKENS.read_all(rows), OPENS_TURN.read_all(rows)
    except AttributeError:
        return _measure_older(rows), OPENS_TURN.read_all(rows)  # it remembers both


def row_costs(rows: Sequence[ChatMessage], anchor: int | None) -> list[int]:
    """``message_tokens`` of every row: carriers at or after ``anchor`` are current (all of
    them when ``anchor`` is None). Each row is measured once and remembers its costs (see
    ``ChatMessage``); a carrier's current-turn cost is measured only when it is needed."""
    split = 0 if anchor is None else anchor
    try:  # the older part is most of a long history: no slice, no concatenated copy
        costs = OLDER_TOKENS.read_all(islice(rows, split))
    except AttributeError:
        costs = _measure_older(rows[:split])
    costs += _costs(rows[split:], CURRENT_TOKENS, _measure_current)
    return costs


def current_turn_start(history: Sequence[ChatMessage]) -> int:
    """Index of the last user row that is not a prompt-mode carrier; 0 when there is none
    (then every carrier counts as current)."""
    for index in range(len(history) - 1, -1, -1):
        row = history[index]
        if row.role == "user" and not is_prompt_tool_carrier(row.content):
            return index
    return 0


def estimate_history_tokens(history: Sequence[ChatMessage]) -> int:
    return sum(row_costs(history, current_turn_start(history)))


def estimate_system_floor_tokens(history: Sequence[ChatMessage]) -> int:
    return sum(plain_message_tokens(row.content) for row in history if row.role == "system")


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    parameters: Mapping[str, object] = field(default_factory=dict)


def estimate_tool_schema_tokens(specs: Sequence[ToolSpec]) -> int:
    """Per spec: ``ceil((len(name)+len(description)+len(compact_json(parameters)))/4) + 4``.

    Lengths are UTF-8 bytes, as everywhere in the estimate; keys keep their given order.
    """
    total = 0
    for spec in specs:
        size = utf8_len(spec.name) + utf8_len(spec.description) + utf8_len(to_json(spec.parameters))
        total += row_tokens(size)
    return total
