"""The pre-dispatch capacity check (spec 8, decision 19.8).

The prepared request (messages after multimodal preparation and hooks, images priced as
in the estimate) plus the native tool-schema estimate must fit the served route's window.
Otherwise the call fails before any byte is sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.runtime.errors import ContextCapacityExceeded
from harness.runtime.estimate import estimate_history_tokens
from harness.runtime.messages import ChatMessage


@dataclass(frozen=True, slots=True)
class CapacityCheck:
    message_tokens: int
    tool_schema_tokens: int
    model_context_window: int

    @property
    def estimate(self) -> int:
        return self.message_tokens + self.tool_schema_tokens

    @property
    def fits(self) -> bool:
        return self.estimate <= self.model_context_window


def measure_capacity(
    prepared_messages: Sequence[ChatMessage], tool_schema_tokens: int, model_context_window: int
) -> CapacityCheck:
    """The operands and verdict of the check, without raising."""
    return CapacityCheck(
        estimate_history_tokens(prepared_messages), tool_schema_tokens, model_context_window
    )


def check_capacity(
    prepared_messages: Sequence[ChatMessage], tool_schema_tokens: int, model_context_window: int
) -> CapacityCheck:
    """Return the passing check, or raise ``ContextCapacityExceeded`` naming every operand."""
    return require_fit(
        measure_capacity(prepared_messages, tool_schema_tokens, model_context_window)
    )


def require_fit(check: CapacityCheck) -> CapacityCheck:
    """``check`` when it fits; else ``ContextCapacityExceeded`` naming every operand."""
    if not check.fits:
        raise ContextCapacityExceeded(
            message_tokens=check.message_tokens,
            tool_schema_tokens=check.tool_schema_tokens,
            model_context_window=check.model_context_window,
        )
    return check
