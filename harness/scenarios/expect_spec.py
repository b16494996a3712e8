"""What a scenario expects (``expect:``): events, counts, the rows each call received, the
final history, answers, the error, the legacy path's log records.

Part of the scenario file format (``harness.scenarios.schema`` uses these models), in a
module of its own to keep each module small.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from harness.scenarios.fake_spec import NonNegative
from harness.scenarios.vocabulary import (
    EVENT_FIELDS,
    TRIM_TRIGGERS,
    check_event_items,
    check_words,
    event_items_json_schema,
)

CallNumber = Annotated[int, Field(ge=1)]
Role = Literal["system", "user", "assistant", "tool"]


class _Strict(BaseModel):
    # strict, as every scenario model (harness.scenarios.schema)
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class RowSpec(_Strict):
    role: Role
    content: str


class EventExpectation(_Strict):
    """Events to find. ``ordered``: a subsequence in this order; ``exact``: the whole list
    of the kinds named (others ignored); ``set``: each present, any order."""

    mode: Literal["ordered", "exact", "set"] = "ordered"
    kinds: list[str] | None = Field(
        default=None, description="with exact: only these kinds are compared"
    )
    items: list[dict[str, Any]] = Field(json_schema_extra=event_items_json_schema())

    @field_validator("items")
    @classmethod
    def _known_fields(cls, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        check_event_items(items)
        return items

    @field_validator("kinds")
    @classmethod
    def _known_kinds(cls, kinds: list[str] | None) -> list[str] | None:
        check_words(kinds or (), EVENT_FIELDS, "an event kind")
        return kinds


class CountsSpec(_Strict):
    trims: dict[str, NonNegative] | None = Field(
        default=None, description="by trigger (proactive, reported_usage, reactive, turn_limit)"
    )
    trims_total: NonNegative | None = None
    provider_calls: NonNegative | None = None
    recoveries: NonNegative | None = None
    capacity_refusals: NonNegative | None = None
    budget_decisions: NonNegative | None = None
    overflows: NonNegative | None = None
    events: dict[str, NonNegative] | None = Field(default=None, description="by event kind")

    @field_validator("trims")
    @classmethod
    def _known_triggers(cls, trims: dict[str, int] | None) -> dict[str, int] | None:
        check_words(trims or {}, TRIM_TRIGGERS, "a trim trigger", keys=True)
        return trims

    @field_validator("events")
    @classmethod
    def _known_kinds(cls, events: dict[str, int] | None) -> dict[str, int] | None:
        check_words(events or {}, EVENT_FIELDS, "an event kind", keys=True)
        return events


class LogSpec(_Strict):
    """One log record of the legacy path: its message and (some of) its attributes."""

    message: str
    attributes: dict[str, Any] = {}


class ErrorSpec(_Strict):
    type: str
    turn: Annotated[int, Field(ge=1)] | None = None
    message_contains: str | None = None


_CALL_NUMBER_KEYS: dict[str, Any] = {"propertyNames": {"pattern": "^[1-9][0-9]*$"}}


class Expectations(_Strict):
    events: EventExpectation | None = None
    counts: CountsSpec | None = None
    requests: dict[CallNumber, list[RowSpec]] = Field(
        default={},
        description="the exact rows the provider received on call N (1-based)",
        json_schema_extra=_CALL_NUMBER_KEYS,
    )
    request_roles: dict[CallNumber, list[Role]] = Field(
        default={},
        description="the roles of the rows the provider received on call N (1-based)",
        json_schema_extra=_CALL_NUMBER_KEYS,
    )
    final_history: list[RowSpec] | None = None
    final_history_length: NonNegative | None = None
    breadcrumb_flag: bool | None = None
    answers: list[str | None] | None = None
    error: ErrorSpec | None = None
    logs: list[str | LogSpec] | None = Field(
        default=None,
        description="legacy driver: the WARN records in order; a string names the message"
        " only, {message, attributes} also checks the listed attributes",
    )
