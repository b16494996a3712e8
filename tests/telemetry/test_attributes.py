"""Attribute builders: unknown (``None``) values are absent, never ``None``; the keys come in
a fixed order (exporters write them in that order)."""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from harness.events import (
    BudgetResolved,
    CapacityChecked,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    ProviderCallStarted,
    TurnStarted,
)
from harness.telemetry import names as n
from harness.telemetry.attributes import (
    agent_start_attributes,
    call_finish_attributes,
    call_start_attributes,
    decision_attributes,
)
from tests.telemetry.scripted import Script, full_turn

T = TypeVar("T")


def _first(kind: type[T]) -> T:
    script = Script()
    full_turn(script)
    return next(e for e in script.events if isinstance(e, kind))


def test_agent_start_attributes() -> None:
    event = _first(TurnStarted)
    assert list(agent_start_attributes(event)) == [
        n.GEN_AI_OPERATION_NAME,
        n.GEN_AI_AGENT_NAME,
        n.GEN_AI_PROVIDER_NAME,
        n.ATTR_PROVIDER,
        n.GEN_AI_REQUEST_MODEL,
        n.GEN_AI_CONVERSATION_ID,
        n.ATTR_TURN_ID,
        n.ATTR_USER_TEXT_BYTES,
    ]
    bare = agent_start_attributes(
        dataclasses.replace(event, model=None, turn_id=None, provider_kind=None)
    )
    assert n.GEN_AI_REQUEST_MODEL not in bare
    assert n.GEN_AI_PROVIDER_NAME not in bare  # a transcript that did not record the kind
    assert n.ATTR_TURN_ID not in bare
    assert None not in bare.values()


def test_call_start_attributes() -> None:
    event = dataclasses.replace(_first(ProviderCallStarted), compacted=True)
    assert list(call_start_attributes(event, "chat")) == [
        n.GEN_AI_OPERATION_NAME,
        n.GEN_AI_PROVIDER_NAME,
        n.ATTR_PROVIDER,
        n.GEN_AI_REQUEST_MODEL,
        n.GEN_AI_CONVERSATION_ID,
        n.ATTR_CALL_ID,
        n.ATTR_PROVIDER_KIND,
        n.ATTR_ITERATION,
        n.ATTR_ESTIMATE_TOKENS,
        n.ATTR_WINDOW_TOKENS,
        n.GEN_AI_CONVERSATION_COMPACTED,
        n.ATTR_SOURCE,
    ]
    bare = call_start_attributes(dataclasses.replace(event, model=None, compacted=False), "chat")
    assert n.GEN_AI_REQUEST_MODEL not in bare
    assert n.GEN_AI_CONVERSATION_COMPACTED not in bare  # only ever ``true``


def test_call_finish_attributes() -> None:
    event = dataclasses.replace(
        _first(ProviderCallFinished), cache_read_input_tokens=3, cache_creation_input_tokens=4
    )
    attributes = call_finish_attributes(event)
    assert list(attributes) == [
        n.ATTR_CALL_OUTCOME,
        n.GEN_AI_USAGE_INPUT_TOKENS,
        n.GEN_AI_USAGE_OUTPUT_TOKENS,
        n.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
        n.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
        n.GEN_AI_RESPONSE_FINISH_REASONS,
        n.HTTP_RESPONSE_STATUS_CODE,
    ]
    assert attributes[n.GEN_AI_RESPONSE_FINISH_REASONS] == ["tool_calls"]
    bare = dataclasses.replace(
        event,
        input_tokens=None,
        output_tokens=None,
        cache_read_input_tokens=None,
        cache_creation_input_tokens=None,
        finish_reasons=(),
        status_code=None,
    )
    assert call_finish_attributes(bare) == {n.ATTR_CALL_OUTCOME: "ok"}


def test_budget_and_capacity_attributes() -> None:
    budget = _first(BudgetResolved)
    assert list(decision_attributes(budget)) == [
        n.ATTR_PROVIDER,
        n.ATTR_MODEL,
        n.ATTR_WINDOW_TOKENS,
        n.ATTR_WINDOW_SOURCE,
        n.ATTR_CONFIGURED_WINDOW_TOKENS,
        n.ATTR_BUDGET_TOKENS,
        n.ATTR_BUDGET_RULE,
    ]
    bare = decision_attributes(
        dataclasses.replace(budget, model=None, configured_model_context_window=None)
    )
    assert n.ATTR_MODEL not in bare
    assert n.ATTR_CONFIGURED_WINDOW_TOKENS not in bare
    capacity = _first(CapacityChecked)
    assert list(decision_attributes(capacity)) == [
        n.ATTR_PROVIDER,
        n.ATTR_MODEL,
        n.ATTR_MESSAGE_TOKENS,
        n.ATTR_TOOL_SCHEMA_TOKENS,
        n.ATTR_ESTIMATE_TOKENS,
        n.ATTR_WINDOW_TOKENS,
        n.ATTR_CAPACITY_FITS,
        n.ATTR_CAPACITY_PURPOSE,
    ]
    assert n.ATTR_MODEL not in decision_attributes(dataclasses.replace(capacity, model=None))


def test_trim_and_overflow_attributes() -> None:
    trim = _first(HistoryTrimmed)
    assert list(decision_attributes(trim))[:3] == [
        n.ATTR_TRIM_REASON,
        n.ATTR_TRIM_TRIGGER,
        n.ATTR_DROPPED_MESSAGES,
    ]
    bare = decision_attributes(
        dataclasses.replace(trim, tokens_before=None, provider=None, model=None)
    )
    assert n.ATTR_TOKENS_BEFORE not in bare
    assert n.ATTR_PROVIDER not in bare
    assert None not in bare.values()
    overflow = _first(OverflowDetected)
    assert list(decision_attributes(overflow)) == [
        n.ATTR_CALL_ID,
        n.ATTR_PROVIDER,
        n.ATTR_PROVIDER_KIND,
        n.ERROR_TYPE,
        n.HTTP_RESPONSE_STATUS_CODE,
        n.ATTR_REFERENCE_VERDICT,
        n.ATTR_EXTENDED_VERDICT,
        n.ATTR_OVERFLOW_MESSAGE,
        n.ATTR_SOURCE,
    ]
    bare = decision_attributes(dataclasses.replace(overflow, status_code=None, error_type=""))
    assert n.HTTP_RESPONSE_STATUS_CODE not in bare
    assert bare[n.ERROR_TYPE] == n.ERROR_TYPE_OTHER
