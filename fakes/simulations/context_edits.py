"""Anthropic's context editing, simulated: ``context_management.edits`` on ``/v1/messages``.

Three edits, as the public SDK types define them (anthropic-sdk-python
``src/anthropic/types/beta/``: ``beta_clear_tool_uses_20250919_edit_param.py``,
``beta_clear_thinking_20251015_edit_param.py``, ``beta_compact_20260112_edit_param.py``,
``beta_context_management_response.py``, ``beta_compaction_block.py``):

- ``clear_tool_uses_20250919``: once the prompt exceeds ``trigger`` (``input_tokens``,
  default 100,000, or ``tool_uses``), the oldest tool results are replaced by a placeholder,
  all but the newest ``keep`` tool uses (default 3), never those of ``exclude_tools``;
  ``clear_tool_inputs`` also empties the calls' inputs (all, or the named tools'). The
  edit is not applied when it would clear fewer than ``clear_at_least`` tokens.
- ``clear_thinking_20251015``: thinking blocks of all but the newest ``keep`` assistant
  turns (``thinking_turns``, default 1; ``"all"`` keeps every one) are removed.
- ``compact_20260112``: once the prompt exceeds ``trigger`` (default 150,000), everything
  before the newest user message is summarised into a ``compaction`` block; the answer
  starts with that block, or is only that block with ``stop_reason: "compaction"`` when
  ``pause_after_compaction``. A later request carrying the block drops every message
  before it and reads the summary instead. A failed compaction is a block whose
  ``content`` is ``null``: nothing is dropped. The compaction itself, and the usage
  iterations it reports, are ``fakes.simulations.anthropic_compaction``.

The edits work on the request body, before the wire decodes it, so the window, the
counters and the prompt the fake logs all see the edited context. What the fake cannot
know from public sources is its own choice, named here: the placeholder text and the
summary wording.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fakes.rows import JSONValue
from fakes.simulations.anthropic_compaction import (
    DEFAULT_COMPACT_TRIGGER_TOKENS,
    Compact,
    Compaction,
    compact_body,
    content_blocks,
    resume_compaction,
)
from fakes.wire.common import Invalid

CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27"
COMPACT_BETA = "compact-2026-01-12"
CLEAR_TOOL_USES = "clear_tool_uses_20250919"
CLEAR_THINKING = "clear_thinking_20251015"
COMPACT = "compact_20260112"
DEFAULT_CLEAR_TRIGGER_TOKENS = 100_000
DEFAULT_KEEP_TOOL_USES = 3
DEFAULT_KEEP_THINKING_TURNS = 1
MIN_COMPACT_TRIGGER_TOKENS = 50_000
CLEARED_RESULT = "[tool result cleared]"
NOT_PERMITTED = "context_management: Extra inputs are not permitted"

Counter = Callable[[dict[str, Any]], int]


@dataclass(frozen=True, slots=True)
class ClearToolUses:
    trigger_kind: str = "input_tokens"
    trigger: int = DEFAULT_CLEAR_TRIGGER_TOKENS
    keep: int = DEFAULT_KEEP_TOOL_USES
    clear_at_least: int = 0
    exclude_tools: tuple[str, ...] = ()
    clear_inputs: bool | tuple[str, ...] = False


@dataclass(frozen=True, slots=True)
class ClearThinking:
    keep: int | None = DEFAULT_KEEP_THINKING_TURNS  # None: keep all


Edit = ClearToolUses | ClearThinking | Compact


@dataclass(frozen=True, slots=True)
class Applied:
    """One edit the provider applied, as ``applied_edits`` reports it (compaction aside)."""

    type: str
    cleared: int
    cleared_input_tokens: int

    def wire(self) -> JSONValue:
        key = "cleared_tool_uses" if self.type == CLEAR_TOOL_USES else "cleared_thinking_turns"
        return {
            "type": self.type,
            key: self.cleared,
            "cleared_input_tokens": self.cleared_input_tokens,
        }


@dataclass(frozen=True, slots=True)
class Outcome:
    """The edited body and what the provider reports about the edits."""

    body: dict[str, Any]
    applied: tuple[Applied, ...] = ()
    compaction: Compaction | None = None
    requested: bool = False
    original_tokens: int = 0


# -- parsing ---------------------------------------------------------------------------


def _int(value: Any, where: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid(f"{where}: Input should be a valid integer")
    if value < minimum:
        raise Invalid(f"{where}: Input should be greater than or equal to {minimum}")
    return value


def _counted(value: Any, where: str, kinds: tuple[str, ...]) -> tuple[str, int]:
    if not isinstance(value, dict):
        raise Invalid(f"{where}: Input should be a valid dictionary")
    kind = value.get("type")
    if kind not in kinds:
        expected = " or ".join(f"'{k}'" for k in kinds)
        raise Invalid(f"{where}.type: Input should be {expected}")
    return str(kind), _int(value.get("value"), f"{where}.value")


def _names(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Invalid(f"{where}: Input should be a valid list of strings")
    return tuple(value)


def _clear_tool_uses(edit: dict[str, Any], where: str) -> ClearToolUses:
    kind, trigger = "input_tokens", DEFAULT_CLEAR_TRIGGER_TOKENS
    if "trigger" in edit:
        kind, trigger = _counted(edit["trigger"], f"{where}.trigger", ("input_tokens", "tool_uses"))
    keep = DEFAULT_KEEP_TOOL_USES
    if "keep" in edit:
        keep = _counted(edit["keep"], f"{where}.keep", ("tool_uses",))[1]
    least = edit.get("clear_at_least")
    inputs = edit.get("clear_tool_inputs")
    if inputs is not None and not isinstance(inputs, bool):
        inputs = _names(inputs, f"{where}.clear_tool_inputs")
    exclude = edit.get("exclude_tools")
    return ClearToolUses(
        kind,
        trigger,
        keep,
        _counted(least, f"{where}.clear_at_least", ("input_tokens",))[1] if least else 0,
        _names(exclude, f"{where}.exclude_tools") if exclude is not None else (),
        inputs or False,
    )


def _parse_clear_thinking(edit: dict[str, Any], where: str) -> ClearThinking:
    keep = edit.get("keep", {"type": "thinking_turns", "value": DEFAULT_KEEP_THINKING_TURNS})
    if keep == "all" or (isinstance(keep, dict) and keep.get("type") == "all"):
        return ClearThinking(None)
    return ClearThinking(_counted(keep, f"{where}.keep", ("thinking_turns", "all"))[1])


def _compact(edit: dict[str, Any], where: str) -> Compact:
    trigger = DEFAULT_COMPACT_TRIGGER_TOKENS
    if edit.get("trigger") is not None:
        trigger = _counted(edit["trigger"], f"{where}.trigger", ("input_tokens",))[1]
        _int(trigger, f"{where}.trigger.value", MIN_COMPACT_TRIGGER_TOKENS)
    instructions = edit.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise Invalid(f"{where}.instructions: Input should be a valid string")
    pause = edit.get("pause_after_compaction", False)
    if not isinstance(pause, bool):
        raise Invalid(f"{where}.pause_after_compaction: Input should be a valid boolean")
    return Compact(trigger, instructions, pause)


_PARSERS: dict[str, Callable[[dict[str, Any], str], Edit]] = {
    CLEAR_TOOL_USES: _clear_tool_uses,
    CLEAR_THINKING: _parse_clear_thinking,
    COMPACT: _compact,
}
_BETA_FOR: dict[str, str] = {
    CLEAR_TOOL_USES: CONTEXT_MANAGEMENT_BETA,
    CLEAR_THINKING: CONTEXT_MANAGEMENT_BETA,
    COMPACT: COMPACT_BETA,
}


def parse(value: Any, beta_header: str) -> tuple[Edit, ...]:
    """The edits of a ``context_management`` value; ``Invalid`` names the bad key.

    Without the beta header an edit needs, the field is unknown to the API and rejected
    as an extra input (the wording of anthropics/claude-code#14135 and #21612).
    """
    if not isinstance(value, dict):
        raise Invalid("context_management: Input should be a valid dictionary")
    raw = value.get("edits", [])
    if not isinstance(raw, list):
        raise Invalid("context_management.edits: Input should be a valid list")
    betas = {b.strip() for b in beta_header.split(",")}
    edits: list[Edit] = []
    for n, edit in enumerate(raw):
        where = f"context_management.edits.{n}"
        kind = edit.get("type") if isinstance(edit, dict) else None
        if not isinstance(edit, dict) or kind not in _PARSERS:
            known = ", ".join(f"'{k}'" for k in _PARSERS)
            raise Invalid(f"{where}.type: Input should be {known}")
        if _BETA_FOR[str(kind)] not in betas:
            raise Invalid(NOT_PERMITTED)
        edits.append(_PARSERS[str(kind)](edit, where))
    if not edits and not betas & {CONTEXT_MANAGEMENT_BETA, COMPACT_BETA}:
        raise Invalid(NOT_PERMITTED)
    return tuple(edits)


# -- body helpers ----------------------------------------------------------------------


def _tool_uses(messages: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    return [
        (b, str(b.get("name")))
        for m in messages
        if m.get("role") == "assistant"
        for b in content_blocks(m)
        if b.get("type") == "tool_use"
    ]


def _results_by_id(messages: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        str(b.get("tool_use_id")): b
        for m in messages
        if m.get("role") == "user"
        for b in content_blocks(m)
        if b.get("type") == "tool_result"
    }


# -- applying --------------------------------------------------------------------------


def _clear_tools(
    original: dict[str, Any], edit: ClearToolUses, count: Counter
) -> tuple[dict[str, Any], Applied] | None:
    """The body with old tool uses cleared, or ``None`` when the edit does not apply
    (trigger not reached, nothing to clear, or less than ``clear_at_least``)."""
    body = copy.deepcopy(original)
    messages = body["messages"]
    uses = _tool_uses(messages)
    before = count(body)
    size = len(uses) if edit.trigger_kind == "tool_uses" else before
    if size <= edit.trigger:
        return None
    results = _results_by_id(messages)
    old = uses[: max(0, len(uses) - edit.keep)]
    cleared = 0
    for block, name in old:
        result = results.get(str(block.get("id")))
        if name in edit.exclude_tools or result is None or result.get("content") == CLEARED_RESULT:
            continue
        result["content"] = CLEARED_RESULT
        inputs = edit.clear_inputs
        if inputs is True or (isinstance(inputs, tuple) and name in inputs):
            block["input"] = {}
        cleared += 1
    tokens = before - count(body)
    if cleared == 0 or tokens < edit.clear_at_least:
        return None
    return body, Applied(CLEAR_TOOL_USES, cleared, tokens)


def _clear_thinking(
    body: dict[str, Any], edit: ClearThinking, count_text: Callable[[str], int]
) -> Applied | None:
    turns = [
        m
        for m in body["messages"]
        if m.get("role") == "assistant"
        and any(b.get("type") in ("thinking", "redacted_thinking") for b in content_blocks(m))
    ]
    if edit.keep is None or len(turns) <= edit.keep:
        return None
    old = turns[: len(turns) - edit.keep]
    tokens = 0
    for message in old:
        blocks = content_blocks(message)
        thinking = [b for b in blocks if b.get("type") in ("thinking", "redacted_thinking")]
        tokens += sum(count_text(str(b.get("thinking") or b.get("data") or "")) for b in thinking)
        message["content"] = [b for b in blocks if b not in thinking]
    return Applied(CLEAR_THINKING, len(old), tokens)


def apply(
    body: dict[str, Any],
    headers: Mapping[str, str],
    count: Counter,
    count_text: Callable[[str], int],
    *,
    compaction_fails: bool = False,
) -> Outcome:
    """Validate ``context_management`` and apply its edits to a copy of ``body``, in the
    order given (the API applies them in order)."""
    body = resume_compaction(body)
    if "context_management" not in body:
        return Outcome(body)
    edits = parse(body["context_management"], headers.get("anthropic-beta", ""))
    edited = copy.deepcopy({k: v for k, v in body.items() if k != "context_management"})
    if not isinstance(edited.get("messages"), list):
        return Outcome(edited, requested=True)
    original = count(edited)
    applied: list[Applied] = []
    compaction: Compaction | None = None
    for edit in edits:
        if isinstance(edit, ClearToolUses):
            cleared = _clear_tools(edited, edit, count)
            edited, done = cleared if cleared else (edited, None)
        elif isinstance(edit, ClearThinking):
            done = _clear_thinking(edited, edit, count_text)
        else:
            compaction = (
                compact_body(edited, edit, count, count_text, compaction_fails) or compaction
            )
            done = None
        if done is not None:
            applied.append(done)
    return Outcome(edited, tuple(applied), compaction, True, original)


def wire_fields(outcome: Outcome) -> dict[str, JSONValue]:
    """The top-level response field the provider adds when context management was asked."""
    if not outcome.requested:
        return {}
    return {"context_management": {"applied_edits": [a.wire() for a in outcome.applied]}}
