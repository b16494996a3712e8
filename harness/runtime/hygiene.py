"""History hygiene: the orphan sweep (spec 15) and system-row normalisation (spec 2.2).

Whole-turn trimming never creates orphans; these are the safety net for histories that
are already inconsistent (restored sessions, external edits, row-level channel caches).
Ids are read from the JSON structure only: an id that appears in prose does not count.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from harness.runtime.memo import TOOL_CALL_IDS, TOOL_RESULT_ID
from harness.runtime.messages import ChatMessage, from_json, to_json
from harness.runtime.text import rust_trim

_JSON_WHITESPACE = " \t\n\r"


def maybe_json_object(content: str) -> bool:
    """A JSON object starts with "{" after JSON whitespace: skip parsing anything else."""
    return content.lstrip(_JSON_WHITESPACE)[:1] == "{"


def tool_call_id_of(content: str) -> str | None:
    """The ``tool_call_id`` string of a native tool row, if its JSON carries one."""
    if not maybe_json_object(content):
        return None
    value = from_json(content)
    if isinstance(value, dict) and isinstance(value.get("tool_call_id"), str):
        return str(value["tool_call_id"])
    return None


def assistant_tool_call_ids(content: str) -> list[str] | None:
    """Ids of an assistant row's native ``tool_calls``; ``None`` when it has none."""
    if not maybe_json_object(content):
        return None
    value = from_json(content)
    if not isinstance(value, dict) or not isinstance(value.get("tool_calls"), list):
        return None
    ids = [
        call["id"]
        for call in value["tool_calls"]
        if isinstance(call, dict) and isinstance(call.get("id"), str)
    ]
    return ids or None


def _call_ids(row: ChatMessage) -> tuple[str, ...] | None:
    """``assistant_tool_call_ids`` of an assistant row, remembered on the (immutable) row:
    the sweep runs before every loop iteration and would otherwise re-parse each row."""
    if row.role != "assistant":
        return None
    try:
        cached = TOOL_CALL_IDS.read(row)
    except AttributeError:
        ids = assistant_tool_call_ids(row.content)
        cached = tuple(ids) if ids is not None else None
        TOOL_CALL_IDS.write(row, cached)
    return cached


def _result_id(row: ChatMessage) -> str | None:
    """``tool_call_id_of`` a row, remembered on it like ``_call_ids``."""
    try:
        cached = TOOL_RESULT_ID.read(row)
    except AttributeError:
        cached = tool_call_id_of(row.content)
        TOOL_RESULT_ID.write(row, cached)
    return cached


class OrphanSweep(NamedTuple):
    """``(history, removed, orphan_tool_call_ids)``: a named tuple so callers can unpack it
    as the issue's signature says, or read the reference's field names."""

    history: list[ChatMessage]
    removed: int
    orphan_tool_call_ids: tuple[str, ...]


def _drop_unresolved_back_to_back_dispatches(rows: list[ChatMessage], orphan_ids: list[str]) -> int:
    removed, i = 0, 0
    # Whether rows[i - 1] is a dispatch (an assistant row with call ids), carried along
    # rather than asked of the previous row again: the sweep runs before every call.
    previous_is_dispatch = False
    while i < len(rows):
        doomed = _call_ids(rows[i])
        # The previous row is directly adjacent, so nothing can have answered it in between:
        # a dispatch that follows another dispatch always means the first went unanswered.
        if doomed is None or not previous_is_dispatch:
            previous_is_dispatch = doomed is not None
            i += 1
            continue
        # rows[i] goes (with its results); rows[i - 1] stays the previous row, a dispatch.
        orphan_ids.extend(doomed)
        del rows[i]
        removed += 1
        while i < len(rows) and rows[i].role == "tool":
            result_id = _result_id(rows[i])
            if result_id is not None and result_id not in doomed:
                break
            del rows[i]
            removed += 1
    return removed


def _owning_assistant(rows: Sequence[ChatMessage], tool_index: int) -> int | None:
    for j in range(tool_index - 1, -1, -1):
        role = rows[j].role
        if role == "assistant":
            return j
        if role != "tool":
            return None
    return None


def _drop_orphan_tool_rows(rows: list[ChatMessage], orphan_ids: list[str]) -> int:
    removed, i = 0, 0
    while i < len(rows):
        if rows[i].role != "tool":
            i += 1
            continue
        owner = _owning_assistant(rows, i)
        ids = _call_ids(rows[owner]) if owner is not None else None
        result_id = _result_id(rows[i])
        orphan = ids is None or (result_id is not None and result_id not in ids)
        if not orphan:
            i += 1
            continue
        if result_id is not None:
            orphan_ids.append(result_id)
        del rows[i]
        removed += 1
    return removed


def remove_orphaned_tool_messages(history: Sequence[ChatMessage]) -> OrphanSweep:
    """Two passes: unresolved back-to-back dispatches, then tool rows with no owner."""
    rows = list(history)
    orphan_ids: list[str] = []
    removed = _drop_unresolved_back_to_back_dispatches(rows, orphan_ids)
    removed += _drop_orphan_tool_rows(rows, orphan_ids)
    return OrphanSweep(rows, removed, tuple(orphan_ids))


class StrippedToolCalls(NamedTuple):
    """``(history, stripped)``, unpackable like the issue's signature."""

    history: list[ChatMessage]
    stripped: int


def _strip_one(row: ChatMessage, answered: set[str]) -> ChatMessage | bool | None:
    """The rewritten row, ``None`` to delete it, or ``False`` when it stays as it is."""
    if "tool_calls" not in row.content:
        return False
    value = from_json(row.content)
    if not isinstance(value, dict) or not isinstance(value.get("tool_calls"), list):
        return False
    calls = value["tool_calls"]
    paired = [
        call
        for call in calls
        if isinstance(call, dict) and isinstance(call.get("id"), str) and call["id"] in answered
    ]
    if len(paired) == len(calls):
        return False
    if paired:
        return ChatMessage(row.role, to_json({**value, "tool_calls": paired}))
    text = value.get("content")
    salvaged = rust_trim(text) if isinstance(text, str) else ""
    return ChatMessage(row.role, salvaged) if salvaged else None


def strip_orphaned_tool_calls_from_assistants(history: Sequence[ChatMessage]) -> StrippedToolCalls:
    """Newest to oldest: drop the tool_calls entries no later tool row answers."""
    rows = list(history)
    answered: set[str] = set()
    stripped = 0
    for index in range(len(rows) - 1, -1, -1):
        row = rows[index]
        if row.role == "tool":
            result_id = _result_id(row)
            if result_id is not None:
                answered.add(result_id)
            continue
        if row.role != "assistant":
            continue
        outcome = _strip_one(row, answered)
        if outcome is False:
            continue
        stripped += 1
        if outcome is None:
            del rows[index]
        else:
            assert isinstance(outcome, ChatMessage)
            rows[index] = outcome
    return StrippedToolCalls(rows, stripped)


def normalize_system_messages(history: Sequence[ChatMessage]) -> list[ChatMessage]:
    """Merge every system row, wherever it is, into one leading row (``"\\n\\n"``-joined).

    When every system content is empty, no system row remains.
    """
    systems = [index for index, row in enumerate(history) if row.role == "system"]
    if not systems:
        return list(history)
    if systems == [0] and history[0].content:  # already normalised: the same rows
        return list(history)
    merged = "\n\n".join(row.content for row in history if row.role == "system" and row.content)
    rest = [row for row in history if row.role != "system"]
    return [ChatMessage("system", merged), *rest] if merged else rest
