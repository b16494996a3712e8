"""Span-event names and ``trimscope.*`` span attributes.

Part of ``harness.telemetry.names``, which re-exports every name here (observers, dashboards
and tests import ``names`` only); a module of its own to keep each module small.
"""

from __future__ import annotations

from typing import Final

EVENT_BUDGET_RESOLVED: Final = "trimscope.budget_resolved"
EVENT_CAPACITY_CHECKED: Final = "trimscope.capacity_checked"
EVENT_HISTORY_TRIMMED: Final = "trimscope.history_trimmed"
EVENT_OVERFLOW_DETECTED: Final = "trimscope.overflow_detected"
EVENT_RECOVERY_ATTEMPTED: Final = "trimscope.recovery_attempted"
EVENT_PROVIDER_CONTEXT_EDITED: Final = "trimscope.provider_context_edited"
EVENT_WIRE_FINDING_OBSERVED: Final = "trimscope.wire_finding_observed"

SPAN_EVENT_OF_KIND: Final[dict[str, str]] = {
    "BudgetResolved": EVENT_BUDGET_RESOLVED,
    "CapacityChecked": EVENT_CAPACITY_CHECKED,
    "HistoryTrimmed": EVENT_HISTORY_TRIMMED,
    "OverflowDetected": EVENT_OVERFLOW_DETECTED,
    "RecoveryAttempted": EVENT_RECOVERY_ATTEMPTED,
    "ProviderContextEdited": EVENT_PROVIDER_CONTEXT_EDITED,
    "WireFindingObserved": EVENT_WIRE_FINDING_OBSERVED,
}

ATTR_TURN_ID: Final = "trimscope.turn.id"
ATTR_TURN_OUTCOME: Final = "trimscope.turn.outcome"
ATTR_TURN_ITERATIONS: Final = "trimscope.turn.iterations"
ATTR_USER_TEXT_BYTES: Final = "trimscope.turn.user_text_bytes"
ATTR_CALL_ID: Final = "trimscope.call.id"
ATTR_CALL_OUTCOME: Final = "trimscope.call.outcome"
ATTR_ITERATION: Final = "trimscope.call.iteration"
ATTR_ATTEMPT: Final = "trimscope.call.attempt"
"""Set on the inference spans of a retried dispatch (rate limits): 1, 2, ... per attempt."""
ATTR_PROVIDER_KIND: Final = "trimscope.provider.kind"
ATTR_PROVIDER: Final = "trimscope.provider"
ATTR_MODEL: Final = "trimscope.model"
ATTR_WINDOW_TOKENS: Final = "trimscope.context_window.tokens"
ATTR_WINDOW_SOURCE: Final = "trimscope.context_window.source"
ATTR_CONFIGURED_WINDOW_TOKENS: Final = "trimscope.context_window.configured_tokens"
ATTR_BUDGET_TOKENS: Final = "trimscope.budget.tokens"
ATTR_BUDGET_RULE: Final = "trimscope.budget.rule"
ATTR_ESTIMATE_TOKENS: Final = "trimscope.request.estimate_tokens"
ATTR_MESSAGE_TOKENS: Final = "trimscope.request.message_tokens"
ATTR_TOOL_SCHEMA_TOKENS: Final = "trimscope.request.tool_schema_tokens"
ATTR_CAPACITY_FITS: Final = "trimscope.capacity.fits"
ATTR_CAPACITY_PURPOSE: Final = "trimscope.capacity.purpose"
ATTR_TRIM_REASON: Final = "trimscope.trim.reason"
ATTR_TRIM_TRIGGER: Final = "trimscope.trim.trigger"
ATTR_TOKENS_BEFORE: Final = "trimscope.trim.tokens_before"
ATTR_TOKENS_AFTER: Final = "trimscope.trim.tokens_after"
ATTR_DROPPED_MESSAGES: Final = "trimscope.trim.dropped_messages"
ATTR_DROPPED_TURNS: Final = "trimscope.trim.dropped_turns"
ATTR_KEPT_TURNS: Final = "trimscope.trim.kept_turns"
# provider-side edits (issue 17): what the provider reports it cleared or compacted
ATTR_PROVIDER_EDIT: Final = "trimscope.provider_edit.kind"
ATTR_PROVIDER_EDIT_TYPE: Final = "trimscope.provider_edit.type"
ATTR_PROVIDER_EDIT_TRIGGER: Final = "trimscope.provider_edit.trigger"
ATTR_PROVIDER_EDIT_CLEARED_ITEMS: Final = "trimscope.provider_edit.cleared_items"
ATTR_PROVIDER_EDIT_CLEARED_TOKENS: Final = "trimscope.provider_edit.cleared_input_tokens"
ATTR_PROVIDER_EDIT_COMPACTION: Final = "trimscope.provider_edit.compaction"
ATTR_PROVIDER_EDIT_FALLBACK: Final = "trimscope.provider_edit.fallback"
ATTR_PROVIDER_EDIT_COMPACTION_INPUT: Final = "trimscope.provider_edit.compaction_input_tokens"
ATTR_PROVIDER_EDIT_COMPACTION_OUTPUT: Final = "trimscope.provider_edit.compaction_output_tokens"
ATTR_CHANNEL: Final = "trimscope.channel"
ATTR_AGENT_ALIAS: Final = "trimscope.agent_alias"
ATTR_REFERENCE_VERDICT: Final = "trimscope.overflow.reference_verdict"
ATTR_EXTENDED_VERDICT: Final = "trimscope.overflow.extended_verdict"
ATTR_OVERFLOW_MESSAGE: Final = "trimscope.overflow.message"
ATTR_TARGET_BUDGET_TOKENS: Final = "trimscope.recovery.target_budget_tokens"
ATTR_SYSTEM_FLOOR_TOKENS: Final = "trimscope.recovery.system_floor_tokens"
ATTR_ROUTE_BUDGET_TOKENS: Final = "trimscope.recovery.route_budget_tokens"
ATTR_RECOVERY_TRIMMED: Final = "trimscope.recovery.trimmed"
ATTR_RECOVERY_OUTCOME: Final = "trimscope.recovery.outcome"
ATTR_TOOL_RESULT_BYTES: Final = "trimscope.tool.result_bytes"
ATTR_TOOL_TRUNCATED: Final = "trimscope.tool.truncated"
ATTR_CACHE_LOSS_TOKENS: Final = "trimscope.trim.cache_loss_tokens"
ATTR_INCOMPLETE: Final = "trimscope.incomplete"
"""Set on spans still open when the observer was closed (an aborted run)."""

MAX_OVERFLOW_MESSAGE_CHARS: Final = 500

SPAN_RUN_INTERRUPTED: Final = "trimscope.run.interrupted"
"""The last span of a run a signal stopped (``harness.telemetry.run_marker``)."""
ATTR_RUN_SIGNAL: Final = "trimscope.run.signal"
"""On ``SPAN_RUN_INTERRUPTED``: the signal's name, ``SIGINT`` or ``SIGTERM``."""
