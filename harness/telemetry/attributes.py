"""Span and span-event attributes for each event kind, by the GenAI conventions and ours.

Pure functions from an event to an attribute mapping; ``None`` values are left out (an
attribute that is unknown is absent, never ``0`` or ``""``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias, assert_never

from harness.events import (
    BudgetResolved,
    CapacityChecked,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    ProviderCallStarted,
    ProviderContextEdited,
    RecoveryAttempted,
    ToolCallStarted,
    TurnStarted,
    WireFindingObserved,
)
from harness.telemetry import names as n

AttributeValue: TypeAlias = str | bool | int | float | Sequence[str]
Attributes: TypeAlias = dict[str, AttributeValue]
Decision: TypeAlias = (
    BudgetResolved
    | CapacityChecked
    | HistoryTrimmed
    | OverflowDetected
    | RecoveryAttempted
    | ProviderContextEdited
    | WireFindingObserved
)
"""The events recorded as span events rather than spans."""


def _present(pairs: Mapping[str, AttributeValue | None]) -> Attributes:
    return {key: value for key, value in pairs.items() if value is not None}


def agent_start_attributes(event: TurnStarted) -> Attributes:
    """Set at span start: they matter for sampling (gen-ai-agent-spans.md)."""
    attributes: Attributes = {
        n.GEN_AI_OPERATION_NAME: n.OPERATION_INVOKE_AGENT,
        n.GEN_AI_AGENT_NAME: event.agent_name,
    }
    if event.provider_kind is not None:  # unknown (an older transcript): absent
        attributes[n.GEN_AI_PROVIDER_NAME] = n.gen_ai_provider_name(event.provider_kind)
    attributes[n.ATTR_PROVIDER] = event.provider
    if event.model is not None:
        attributes[n.GEN_AI_REQUEST_MODEL] = event.model
    attributes[n.GEN_AI_CONVERSATION_ID] = event.session_id
    if event.turn_id is not None:
        attributes[n.ATTR_TURN_ID] = event.turn_id
    attributes[n.ATTR_USER_TEXT_BYTES] = event.user_text_bytes
    return attributes


def call_start_attributes(event: ProviderCallStarted, operation: str) -> Attributes:
    attributes: Attributes = {
        n.GEN_AI_OPERATION_NAME: operation,
        n.GEN_AI_PROVIDER_NAME: n.gen_ai_provider_name(event.provider_kind),
        n.ATTR_PROVIDER: event.provider,
    }
    if event.model is not None:
        attributes[n.GEN_AI_REQUEST_MODEL] = event.model
    attributes[n.GEN_AI_CONVERSATION_ID] = event.session_id
    attributes[n.ATTR_CALL_ID] = event.call_id
    attributes[n.ATTR_PROVIDER_KIND] = event.provider_kind
    attributes[n.ATTR_ITERATION] = event.iteration
    attributes[n.ATTR_ESTIMATE_TOKENS] = event.estimate_tokens
    attributes[n.ATTR_WINDOW_TOKENS] = event.model_context_window
    if event.compacted:  # the convention sets it only ``true``
        attributes[n.GEN_AI_CONVERSATION_COMPACTED] = True
    attributes[n.ATTR_SOURCE] = event.source
    return attributes


def call_finish_attributes(event: ProviderCallFinished) -> Attributes:
    attributes: Attributes = {n.ATTR_CALL_OUTCOME: event.outcome}
    if event.input_tokens is not None:
        attributes[n.GEN_AI_USAGE_INPUT_TOKENS] = event.input_tokens
    if event.output_tokens is not None:
        attributes[n.GEN_AI_USAGE_OUTPUT_TOKENS] = event.output_tokens
    if event.cache_read_input_tokens is not None:
        attributes[n.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = event.cache_read_input_tokens
    if event.cache_creation_input_tokens is not None:
        attributes[n.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] = event.cache_creation_input_tokens
    if event.finish_reasons:
        attributes[n.GEN_AI_RESPONSE_FINISH_REASONS] = list(event.finish_reasons)
    if event.status_code is not None:
        attributes[n.HTTP_RESPONSE_STATUS_CODE] = event.status_code
    return attributes


def tool_start_attributes(event: ToolCallStarted) -> Attributes:
    return {
        n.GEN_AI_OPERATION_NAME: n.OPERATION_EXECUTE_TOOL,
        n.GEN_AI_TOOL_NAME: event.tool_name,
        n.GEN_AI_TOOL_TYPE: n.TOOL_TYPE_FUNCTION,
        n.GEN_AI_TOOL_CALL_ID: event.call_id,
        n.GEN_AI_CONVERSATION_ID: event.session_id,
    }


def decision_attributes(event: Decision) -> Attributes:
    """The ``trimscope.*`` attributes of a decision's span event."""
    return decision_attributes_of(event)(event)


def decision_attributes_of(  # noqa: PLR0911 (a case per decision kind)
    event: Decision,
) -> Callable[[Any], Attributes]:
    """The function that makes ``event``'s attributes, for every event of its type (the
    span observer keeps it per type rather than matching each event)."""
    match event:
        case BudgetResolved():
            return _budget
        case CapacityChecked():
            return _capacity
        case HistoryTrimmed():
            return _trim
        case OverflowDetected():
            return _overflow
        case RecoveryAttempted():
            return _recovery
        case ProviderContextEdited():
            return _provider_edit
        case WireFindingObserved():
            return _wire_finding
        case _:
            assert_never(event)


def _budget(event: BudgetResolved) -> Attributes:
    attributes: Attributes = {n.ATTR_PROVIDER: event.provider}
    if event.model is not None:
        attributes[n.ATTR_MODEL] = event.model
    attributes[n.ATTR_WINDOW_TOKENS] = event.model_context_window
    attributes[n.ATTR_WINDOW_SOURCE] = event.window_source
    if event.configured_model_context_window is not None:
        attributes[n.ATTR_CONFIGURED_WINDOW_TOKENS] = event.configured_model_context_window
    attributes[n.ATTR_BUDGET_TOKENS] = event.budget_tokens
    attributes[n.ATTR_BUDGET_RULE] = event.rule
    return attributes


def _capacity(event: CapacityChecked) -> Attributes:
    attributes: Attributes = {n.ATTR_PROVIDER: event.provider}
    if event.model is not None:
        attributes[n.ATTR_MODEL] = event.model
    attributes[n.ATTR_MESSAGE_TOKENS] = event.message_tokens
    attributes[n.ATTR_TOOL_SCHEMA_TOKENS] = event.tool_schema_tokens
    attributes[n.ATTR_ESTIMATE_TOKENS] = event.estimate_tokens
    attributes[n.ATTR_WINDOW_TOKENS] = event.model_context_window
    attributes[n.ATTR_CAPACITY_FITS] = event.fits
    attributes[n.ATTR_CAPACITY_PURPOSE] = event.purpose
    return attributes


def _trim(event: HistoryTrimmed) -> Attributes:
    # the optional fields are mostly present: filtering one dict beats a test per field
    return _present(
        {
            n.ATTR_TRIM_REASON: event.reason,
            n.ATTR_TRIM_TRIGGER: str(event.trigger),
            n.ATTR_DROPPED_MESSAGES: event.dropped_messages,
            n.ATTR_DROPPED_TURNS: event.dropped_turns,
            n.ATTR_KEPT_TURNS: event.kept_turns,
            n.ATTR_TOKENS_BEFORE: event.tokens_before,
            n.ATTR_TOKENS_AFTER: event.tokens_after,
            n.ATTR_BUDGET_TOKENS: event.budget_tokens,
            n.ATTR_PROVIDER: event.provider,
            n.ATTR_MODEL: event.model,
            n.ATTR_CHANNEL: event.channel,
            n.ATTR_AGENT_ALIAS: event.agent_alias,
            n.ATTR_CACHE_LOSS_TOKENS: event.cache_loss_tokens,
            n.ATTR_SOURCE: event.source,
        }
    )


def _overflow(event: OverflowDetected) -> Attributes:
    attributes: Attributes = {
        n.ATTR_CALL_ID: event.call_id,
        n.ATTR_PROVIDER: event.provider,
        n.ATTR_PROVIDER_KIND: event.provider_kind,
        n.ERROR_TYPE: event.error_type or n.ERROR_TYPE_OTHER,
    }
    if event.status_code is not None:
        attributes[n.HTTP_RESPONSE_STATUS_CODE] = event.status_code
    attributes[n.ATTR_REFERENCE_VERDICT] = event.reference_verdict
    attributes[n.ATTR_EXTENDED_VERDICT] = event.extended_verdict
    attributes[n.ATTR_OVERFLOW_MESSAGE] = event.message[: n.MAX_OVERFLOW_MESSAGE_CHARS]
    attributes[n.ATTR_SOURCE] = event.source
    return attributes


def _recovery(event: RecoveryAttempted) -> Attributes:
    return {
        n.ATTR_CALL_ID: event.call_id,
        n.ATTR_PROVIDER: event.provider,
        n.ATTR_ESTIMATE_TOKENS: event.estimate_tokens,
        n.ATTR_TARGET_BUDGET_TOKENS: event.target_budget_tokens,
        n.ATTR_SYSTEM_FLOOR_TOKENS: event.system_floor_tokens,
        n.ATTR_ROUTE_BUDGET_TOKENS: event.route_budget_tokens,
        n.ATTR_RECOVERY_TRIMMED: event.trimmed,
        n.ATTR_RECOVERY_OUTCOME: event.outcome,
    }


def _provider_edit(event: ProviderContextEdited) -> Attributes:
    return _present(
        {
            n.ATTR_CALL_ID: event.call_id,
            n.ATTR_PROVIDER: event.provider,
            n.ATTR_PROVIDER_KIND: event.provider_kind,
            n.ATTR_MODEL: event.model,
            n.ATTR_PROVIDER_EDIT: event.edit,
            n.ATTR_PROVIDER_EDIT_TYPE: event.wire_type,
            n.ATTR_PROVIDER_EDIT_TRIGGER: event.trigger,
            n.ATTR_PROVIDER_EDIT_CLEARED_ITEMS: event.cleared_items,
            n.ATTR_PROVIDER_EDIT_CLEARED_TOKENS: event.cleared_input_tokens,
            n.ATTR_PROVIDER_EDIT_COMPACTION: event.compaction,
            n.ATTR_PROVIDER_EDIT_FALLBACK: event.fallback,
            n.ATTR_PROVIDER_EDIT_COMPACTION_INPUT: event.compaction_input_tokens,
            n.ATTR_PROVIDER_EDIT_COMPACTION_OUTPUT: event.compaction_output_tokens,
            n.ATTR_SOURCE: event.source,
        }
    )


def _wire_finding(event: WireFindingObserved) -> Attributes:
    # the counts reuse the trim's keys: dropped messages and turns mean the same there
    return _present(
        {
            n.ATTR_WIRE_FINDING: event.finding,
            n.ATTR_WIRE: event.wire,
            n.ATTR_WIRE_CALL: event.call,
            n.HTTP_RESPONSE_STATUS_CODE: event.status_code,
            n.ATTR_PROVIDER: event.provider,
            n.ATTR_MODEL: event.model,
            n.ATTR_DROPPED_MESSAGES: event.dropped_messages,
            n.ATTR_DROPPED_TURNS: event.dropped_turns,
            n.ATTR_KEPT_TURNS: event.kept_turns,
            n.ATTR_TOKENS_BEFORE: event.tokens_before,
            n.ATTR_TOKENS_AFTER: event.tokens_after,
            n.ATTR_WIRE_BREADCRUMB: event.breadcrumb,
            n.ATTR_WIRE_ON_TURN_BOUNDARY: event.on_turn_boundary,
            n.ATTR_WIRE_DETAIL: event.detail[: n.MAX_WIRE_DETAIL_CHARS] or None,
            n.ATTR_SOURCE: event.source,
        }
    )
