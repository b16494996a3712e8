"""The fake behind a scenario's provider: what it answers per call (text, tool calls,
usage, a fault), its window, counter, caching rules, clock and provider-side handling.

Part of the scenario file format (``harness.scenarios.schema`` uses these models), in a
module of its own to keep each module small.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from fakes.scripting.script import SERVER_ERROR_STATUSES
from harness.scenarios.fault_rates_spec import FaultRatesSpec
from harness.scenarios.provider_side import ProviderSideSpec
from harness.scenarios.vocabulary import look_alike_names, raise_if, unknown

NonNegative = Annotated[int, Field(ge=0)]


class _Strict(BaseModel):
    # strict, as every scenario model (harness.scenarios.schema): YAML's ``yes`` is not 1
    # and ``"8000"`` is not 8000 (an int is still a valid float).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class ToolCallSpec(_Strict):
    name: str
    arguments: dict[str, Any] = {}
    id: str | None = None


class UsageSpec(_Strict):
    input_factor: float = Field(default=1.0, ge=0, allow_inf_nan=False)
    input_tokens: NonNegative | None = None
    output_tokens: NonNegative | None = None
    cached_tokens: NonNegative = 0
    cache_creation_tokens: NonNegative = 0


FaultKind = Literal[
    "server_error",
    "rate_limit",
    "look_alike",
    "overflow",
    "hang",
    "malformed_json",
    "drop_mid_stream",
    "auth",
]


class FaultSpec(_Strict):
    kind: FaultKind
    status: int = 500
    retry_after: NonNegative = 1
    seconds: float = Field(default=30.0, ge=0, allow_inf_nan=False)
    name: str | None = Field(default=None, description="look_alike: the look-alike's name")
    after_events: NonNegative | None = None

    @model_validator(mode="after")
    def _complete(self) -> FaultSpec:
        if self.kind == "server_error" and self.status not in SERVER_ERROR_STATUSES:
            raise_if(
                [(("status",), f"expected a 5xx status for server_error, found {self.status}")]
            )
        names = look_alike_names()
        if self.kind == "look_alike" and self.name not in names:
            what = "the name of a look-alike"
            raise_if([(("name",), unknown(self.name, names, what))])
        return self


class WhenSpec(_Strict):
    """Which request a step answers (``fakes.scripting.script.StepCondition``); every key given
    must hold, and at least one is given."""

    user_turn: Annotated[int, Field(ge=1)] | None = Field(
        default=None, description="the conversation's nth distinct user message (from 1)"
    )
    contains: Annotated[str, Field(min_length=1)] | None = Field(
        default=None,
        description="the newest user message or a system message contains this text",
    )
    retry: bool | None = Field(
        default=None, description="the request is (true) or is not (false) the previous one"
    )

    @model_validator(mode="after")
    def _something(self) -> WhenSpec:
        if self.user_turn is None and self.contains is None and self.retry is None:
            raise_if([((), "expected at least one of user_turn, contains, retry, found none")])
        return self


class StepSpec(_Strict):
    """What the fake answers to one call: text and/or tool calls, usage, or a fault;
    ``when``: the request it answers (else: the next call no ``when`` step takes)."""

    text: str | None = "This is a fake reply."
    tool_calls: list[ToolCallSpec] = []
    usage: UsageSpec = UsageSpec()
    fault: FaultSpec | None = None
    latency_ms: NonNegative = 0
    when: WhenSpec | None = None


def refuse_default_when(default: StepSpec) -> None:
    """The default step answers every call no step takes: it names no request."""
    if default.when is not None:
        what = "expected no when on the default step (it answers every call no step takes)"
        raise_if([(("default", "when"), f"{what}, found a condition")])


class FakeSpec(_Strict):
    """The fake provider behind a route: its real window and how it counts."""

    model: str | None = None
    context_window: Annotated[int, Field(gt=0)] | None = None
    counter: Literal[
        "heuristic", "provider", "exact", "o200k_base", "cl100k_base", "llama3", "qwen3"
    ] = "heuristic"
    variant: str = "default"
    script: list[StepSpec] = []
    default: StepSpec = StepSpec()
    caching: Literal["none", "openai", "anthropic", "gemini", "deepseek", "llamacpp"] | None = (
        Field(default=None, description="prompt caching rules (default: the provider's own)")
    )
    seconds_per_call: float = Field(
        default=0.0,
        ge=0,
        allow_inf_nan=False,
        description="the fake's clock: call n is at n x this many seconds (cache lifetimes)",
    )
    provider_side: ProviderSideSpec = ProviderSideSpec()
    fault_rates: FaultRatesSpec | None = Field(
        default=None, description="faults at a rate, placed by a seed (fakes.scripting.fault_rates)"
    )

    @model_validator(mode="after")
    def _default_answers_any(self) -> FakeSpec:
        refuse_default_when(self.default)
        return self
