"""Provider-side context management: what a client asks for, and what it reads back.

A route may hand part of the trimming to the provider (issue 17):

- Anthropic ``context_management.edits`` (beta ``context-management-2025-06-27``):
  ``clear_tool_uses_20250919``, ``clear_thinking_20251015``; and the compaction edit
  ``compact_20260112`` (beta ``compact-2026-01-12``). The response's
  ``context_management.applied_edits`` reports each clearing (items and input tokens
  cleared); a ``compaction`` block in the content reports a compaction, with
  ``content: null`` when it failed.
- OpenAI Responses ``truncation`` (``"auto"`` drops middle items instead of failing;
  nothing in the response says so) and in-request compaction
  (``context_management: [{"type": "compaction", "compact_threshold": N}]``), reported by
  a ``compaction`` output item.

``ProviderContext`` is the route's configuration (every field optional: ``None`` leaves
the provider's default); ``ProviderEdit`` is one edit the provider reports, which the
agent announces as a ``ProviderContextEdited`` event. Sources: see the fakes' modules
``fakes/simulations/context_edits.py`` and ``fakes/simulations/responses_context.py`` and
docs/decisions.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from harness.providers.plumbing.wirejson import (
    JsonObject,
    as_list,
    as_object,
    child,
    integer,
    string,
)
from harness.runtime.provider_edits import CompactionOutcome, ProviderEditKind

CONTEXT_MANAGEMENT_BETA: Final = "context-management-2025-06-27"
COMPACT_BETA: Final = "compact-2026-01-12"
CLEAR_TOOL_USES_TYPE: Final = "clear_tool_uses_20250919"
CLEAR_THINKING_TYPE: Final = "clear_thinking_20251015"
COMPACT_TYPE: Final = "compact_20260112"

Truncation = Literal["auto", "disabled"]
_KIND_OF_TYPE: Final[dict[str, ProviderEditKind]] = {
    CLEAR_TOOL_USES_TYPE: ProviderEditKind.CLEAR_TOOL_USES,
    CLEAR_THINKING_TYPE: ProviderEditKind.CLEAR_THINKING,
}


@dataclass(frozen=True, slots=True)
class ClearToolUses:
    """``clear_tool_uses_20250919``; give at most one of the two triggers."""

    trigger_input_tokens: int | None = None
    trigger_tool_uses: int | None = None
    keep_tool_uses: int | None = None
    clear_at_least_tokens: int | None = None
    exclude_tools: tuple[str, ...] = ()
    clear_tool_inputs: bool = False

    def trigger(self) -> str | None:
        if self.trigger_tool_uses is not None:
            return f"tool_uses>{self.trigger_tool_uses}"
        if self.trigger_input_tokens is not None:
            return f"input_tokens>{self.trigger_input_tokens}"
        return None

    def wire(self) -> JsonObject:
        edit: JsonObject = {"type": CLEAR_TOOL_USES_TYPE}
        if self.trigger_tool_uses is not None:
            edit["trigger"] = {"type": "tool_uses", "value": self.trigger_tool_uses}
        elif self.trigger_input_tokens is not None:
            edit["trigger"] = {"type": "input_tokens", "value": self.trigger_input_tokens}
        if self.keep_tool_uses is not None:
            edit["keep"] = {"type": "tool_uses", "value": self.keep_tool_uses}
        if self.clear_at_least_tokens is not None:
            edit["clear_at_least"] = {"type": "input_tokens", "value": self.clear_at_least_tokens}
        if self.exclude_tools:
            edit["exclude_tools"] = list(self.exclude_tools)
        if self.clear_tool_inputs:
            edit["clear_tool_inputs"] = True
        return edit


@dataclass(frozen=True, slots=True)
class ClearThinking:
    """``clear_thinking_20251015``: keep the newest ``keep_turns`` turns' thinking
    (``None``: every turn's)."""

    keep_turns: int | None = None

    def wire(self) -> JsonObject:
        keep: object = (
            "all"
            if self.keep_turns is None
            else {"type": "thinking_turns", "value": self.keep_turns}
        )
        return {"type": CLEAR_THINKING_TYPE, "keep": keep}


@dataclass(frozen=True, slots=True)
class Compact:
    """``compact_20260112``."""

    trigger_input_tokens: int | None = None
    instructions: str | None = None
    pause_after_compaction: bool = False

    def trigger(self) -> str | None:
        tokens = self.trigger_input_tokens
        return f"input_tokens>{tokens}" if tokens is not None else None

    def wire(self) -> JsonObject:
        edit: JsonObject = {"type": COMPACT_TYPE}
        if self.trigger_input_tokens is not None:
            edit["trigger"] = {"type": "input_tokens", "value": self.trigger_input_tokens}
        if self.instructions is not None:
            edit["instructions"] = self.instructions
        if self.pause_after_compaction:
            edit["pause_after_compaction"] = True
        return edit


@dataclass(frozen=True, slots=True)
class ProviderContext:
    """A route's provider-side context management (Anthropic fields, Responses fields)."""

    clear_tool_uses: ClearToolUses | None = None
    clear_thinking: ClearThinking | None = None
    compact: Compact | None = None
    truncation: Truncation | None = None
    compact_threshold: int | None = None

    def anthropic_edits(self) -> list[JsonObject]:
        """Thinking first, then tool uses, then compaction: the order they are applied."""
        parts = (self.clear_thinking, self.clear_tool_uses, self.compact)
        return [part.wire() for part in parts if part is not None]

    def anthropic_betas(self) -> tuple[str, ...]:
        betas: list[str] = []
        if self.clear_tool_uses is not None or self.clear_thinking is not None:
            betas.append(CONTEXT_MANAGEMENT_BETA)
        if self.compact is not None:
            betas.append(COMPACT_BETA)
        return tuple(betas)

    def responses_fields(self) -> JsonObject:
        fields: JsonObject = {}
        if self.truncation is not None:
            fields["truncation"] = self.truncation
        if self.compact_threshold is not None:
            fields["context_management"] = [
                {"type": "compaction", "compact_threshold": self.compact_threshold}
            ]
        return fields


@dataclass(frozen=True, slots=True)
class ProviderEdit:
    """One edit the provider reports having made to the request it answered."""

    kind: ProviderEditKind
    wire_type: str
    trigger: str | None = None
    cleared_items: int | None = None
    cleared_input_tokens: int | None = None
    compaction: CompactionOutcome | None = None
    # Anthropic's compaction iteration (``usage.iterations``): what the summary step read
    # and wrote, billed on top of the top-level usage, which leaves it out.
    compaction_input_tokens: int | None = None
    compaction_output_tokens: int | None = None


def add_anthropic_fields(payload: JsonObject, context: ProviderContext | None) -> None:
    edits = context.anthropic_edits() if context else []
    if edits:
        payload["context_management"] = {"edits": edits}


def anthropic_beta_header(context: ProviderContext | None) -> dict[str, str]:
    betas = context.anthropic_betas() if context else ()
    return {"anthropic-beta": ",".join(betas)} if betas else {}


def compaction_iteration(usage: JsonObject | None) -> JsonObject | None:
    """The ``compaction`` entry of ``usage.iterations`` (``BetaCompactionIterationUsage``
    in anthropic-sdk-python ``src/anthropic/types/beta/``), if any."""
    entries = (as_object(item) for item in as_list((usage or {}).get("iterations")))
    return next((e for e in entries if e is not None and string(e, "type") == "compaction"), None)


def anthropic_edits(
    message: JsonObject | None,
    blocks: list[JsonObject],
    context: ProviderContext | None,
    usage: JsonObject | None = None,
) -> tuple[ProviderEdit, ...]:
    """The edits an Anthropic message (or its final ``message_delta``) reports: each
    ``applied_edits`` entry, then any ``compaction`` block, with the compaction
    iteration's tokens from ``usage`` (the whole usage: a stream's is merged)."""
    applied = as_list((child(message, "context_management") or {}).get("applied_edits"))
    edits: list[ProviderEdit] = []
    for item in applied:
        entry = as_object(item)
        wire_type = string(entry, "type") or ""
        kind = _KIND_OF_TYPE.get(wire_type)
        if kind is None:
            continue
        clears_tools = kind is ProviderEditKind.CLEAR_TOOL_USES
        items_key = "cleared_tool_uses" if clears_tools else "cleared_thinking_turns"
        trigger = context.clear_tool_uses.trigger() if context and context.clear_tool_uses else None
        edits.append(
            ProviderEdit(
                kind,
                wire_type,
                trigger if clears_tools else None,
                integer(entry, items_key),
                integer(entry, "cleared_input_tokens"),
            )
        )
    compact_trigger = context.compact.trigger() if context and context.compact else None
    iteration = compaction_iteration(usage)
    edits.extend(
        ProviderEdit(
            ProviderEditKind.COMPACTION,
            COMPACT_TYPE,
            compact_trigger,
            compaction=(
                CompactionOutcome.COMPACTED
                if isinstance(block.get("content"), str)
                else CompactionOutcome.FAILED
            ),
            compaction_input_tokens=integer(iteration, "input_tokens"),
            compaction_output_tokens=integer(iteration, "output_tokens"),
        )
        for block in blocks
        if string(block, "type") == "compaction"
    )
    return tuple(edits)


def responses_edits(
    items: list[JsonObject], context: ProviderContext | None
) -> tuple[ProviderEdit, ...]:
    """A ``compaction`` output item is an in-request compaction."""
    threshold = context.compact_threshold if context else None
    trigger = f"input_tokens>{threshold}" if threshold is not None else None
    return tuple(
        ProviderEdit(
            ProviderEditKind.COMPACTION,
            "compaction",
            trigger,
            compaction=CompactionOutcome.COMPACTED,
        )
        for item in items
        if string(item, "type") == "compaction"
    )
