"""Span and span-event attributes for each event kind, by the GenAI conventions and ours.

Pure functions from an event to an attribute mapping; ``None`` values are left out (an
attribute that is unknown is absent, never ``0`` or ``""``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias, assert_never

from harness.events import (
    BudgetResolved,
    CapacityChecked,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    ProviderCallStarted,
    RecoveryAttempted,
    ToolCallStarted,
    TurnStarted,
)
from harness.telemetry import names as n

AttributeValue: TypeAlias = str | bool | int | float | Sequence[str]
Attributes: TypeAlias = dict[str, AttributeValue]
Decision: TypeAlias = (
    BudgetResolved | CapacityChecked | HistoryTrimmed | OverflowDetected | RecoveryAttempted
)
"""The events recorded as span events rather than spans."""


def _present(pairs: Mapping[str, AttributeValue | None]) -> Attributes:
    return {key: value for key, value in pairs.items() if value is not None}


def agent_start_attributes(event: TurnStarted) -> Attributes:
    """Set at span start: they matter for sampling (gen-ai-agent-spans.md)."""
    return _present(
        {
            n.GEN_AI_OPERATION_NAME: n.OPERATION_INVOKE_AGENT,
            n.GEN_AI_AGENT_NAME: event.agent_name,
            n.GEN_AI_PROVIDER_NAME: event.provider,
            n.GEN_AI_REQUEST_MODEL: event.model,
            n.GEN_AI_CONVERSATION_ID: event.session_id,
            n.ATTR_TURN_ID: event.turn_id,
            n.ATTR_USER_TEXT_BYTES: event.user_text_bytes,
        }
    )


def call_start_attributes(event: ProviderCallStarted, operation: str) -> Attributes:
    attributes = _present(
        {
            n.GEN_AI_OPERATION_NAME: operation,
            n.GEN_AI_PROVIDER_NAME: event.provider,
            n.GEN_AI_REQUEST_MODEL: event.model,
            n.GEN_AI_CONVERSATION_ID: event.session_id,
            n.ATTR_CALL_ID: event.call_id,
            n.ATTR_PROVIDER_KIND: event.provider_kind,
            n.ATTR_ITERATION: event.iteration,
            n.ATTR_ESTIMATE_TOKENS: event.estimate_tokens,
            n.ATTR_WINDOW_TOKENS: event.model_context_window,
        }
    )
    if event.compacted:  # the convention sets it only ``true``
        attributes[n.GEN_AI_CONVERSATION_COMPACTED] = True
    return attributes


def call_finish_attributes(event: ProviderCallFinished) -> Attributes:
    return _present(
        {
            n.ATTR_CALL_OUTCOME: event.outcome,
            n.GEN_AI_USAGE_INPUT_TOKENS: event.input_tokens,
            n.GEN_AI_USAGE_OUTPUT_TOKENS: event.output_tokens,
            n.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS: event.cache_read_input_tokens,
            n.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS: event.cache_creation_input_tokens,
            n.GEN_AI_RESPONSE_FINISH_REASONS: list(event.finish_reasons) or None,
            n.HTTP_RESPONSE_STATUS_CODE: event.status_code,
        }
    )


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
    match event:
        case BudgetResolved():
            return _budget(event)
        case CapacityChecked():
            return _capacity(event)
        case HistoryTrimmed():
            return _trim(event)
        case OverflowDetected():
            return _overflow(event)
        case RecoveryAttempted():
            return _recovery(event)
        case _:
            assert_never(event)


def _budget(event: BudgetResolved) -> Attributes:
    return _present(
        {
            n.ATTR_PROVIDER: event.provider,
            n.ATTR_MODEL: event.model,
            n.ATTR_WINDOW_TOKENS: event.model_context_window,
            n.ATTR_WINDOW_SOURCE: event.window_source,
            n.ATTR_CONFIGURED_WINDOW_TOKENS: event.configured_model_context_window,
            n.ATTR_BUDGET_TOKENS: event.budget_tokens,
            n.ATTR_BUDGET_RULE: event.rule,
        }
    )


def _capacity(event: CapacityChecked) -> Attributes:
    return _present(
        {
            n.ATTR_PROVIDER: event.provider,
            n.ATTR_MODEL: event.model,
            n.ATTR_MESSAGE_TOKENS: event.message_tokens,
            n.ATTR_TOOL_SCHEMA_TOKENS: event.tool_schema_tokens,
            n.ATTR_ESTIMATE_TOKENS: event.estimate_tokens,
            n.ATTR_WINDOW_TOKENS: event.model_context_window,
            n.ATTR_CAPACITY_FITS: event.fits,
            n.ATTR_CAPACITY_PURPOSE: event.purpose,
        }
    )


def _trim(event: HistoryTrimmed) -> Attributes:
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
        }
    )


def _overflow(event: OverflowDetected) -> Attributes:
    return _present(
        {
            n.ATTR_CALL_ID: event.call_id,
            n.ATTR_PROVIDER: event.provider,
            n.ATTR_PROVIDER_KIND: event.provider_kind,
            n.ERROR_TYPE: event.error_type or n.ERROR_TYPE_OTHER,
            n.HTTP_RESPONSE_STATUS_CODE: event.status_code,
            n.ATTR_REFERENCE_VERDICT: event.reference_verdict,
            n.ATTR_EXTENDED_VERDICT: event.extended_verdict,
            n.ATTR_OVERFLOW_MESSAGE: event.message[: n.MAX_OVERFLOW_MESSAGE_CHARS],
        }
    )


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
