"""What a fake answers, call by call: ``FakeScript`` and ``FakeBehaviour``.

Plain frozen dataclasses, so a scenario loader can build them from YAML with
``pydantic.TypeAdapter(FakeScript).validate_python(data)`` (lists become tuples).

Call ``i`` (0-based, counting every request to a generation endpoint of one fake) gets
``steps[i]``, or ``default`` once the steps run out. A step with ``when`` (a
``StepCondition``) answers instead the first call that is that request (the conversation's
nth user turn, a request whose prompt contains a text, a retry), whenever it comes; the
steps without ``when`` then answer, in order, the calls no such step took
(``fakes.scripting.script_follow``). A behaviour says what to reply (text,
one or several tool calls), how to report usage, how long to wait, and which fault to
inject instead of, or on top of, the normal answer:

- ``server_error``: the wire format's 5xx body with ``status``;
- ``rate_limit``: the wire format's 429 with ``retry-after: retry_after``;
- ``look_alike``: the named look-alike of ``fakes.catalogue.lookalikes``;
- ``overflow``: the provider's overflow answer whatever the request's size;
- ``hang``: wait ``seconds`` (or until the client goes away) before answering normally;
- ``malformed_json``: 200 with a truncated JSON body (or SSE event);
- ``drop_mid_stream``: send part of the answer (``after_events`` SSE events, or half the
  body), then drop the connection;
- ``auth``: the provider's real answer to an invalid API key (``fakes.serving.auth``; its status
  is the provider's, ``status`` is not used).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from fakes.scripting.fault_rates import FaultRates

FaultKind: TypeAlias = Literal[
    "server_error",
    "rate_limit",
    "look_alike",
    "overflow",
    "hang",
    "malformed_json",
    "drop_mid_stream",
    "auth",
]
DEFAULT_REPLY_TEXT = "This is a fake reply."
DEFAULT_HANG_SECONDS = 30.0
SERVER_ERROR_STATUSES = range(500, 600)
"""What a ``server_error`` fault may answer: a 5xx status."""


@dataclass(frozen=True, slots=True)
class ScriptedToolCall:
    """A tool call the fake model makes; ``id`` is generated when absent."""

    name: str
    arguments: Mapping[str, object] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True, slots=True)
class ScriptedReply:
    """Text and/or tool calls (several tool calls = a parallel call)."""

    text: str | None = DEFAULT_REPLY_TEXT
    tool_calls: tuple[ScriptedToolCall, ...] = ()


@dataclass(frozen=True, slots=True)
class UsageReport:
    """How usage is reported.

    ``input_tokens`` overrides the count outright; otherwise the fake's own count is
    multiplied by ``input_factor`` and rounded (``< 1`` under-reports, ``> 1``
    over-reports). ``cached_tokens`` are cache reads and ``cache_creation_tokens`` cache
    writes, reported in each wire format's own fields and with its own convention (OpenAI
    and Gemini include cached tokens in the prompt count, Anthropic does not).
    """

    input_factor: float = 1.0
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int = 0
    cache_creation_tokens: int = 0

    def __post_init__(self) -> None:
        if self.input_factor < 0:
            raise ValueError("input_factor must be >= 0")
        if self.cached_tokens < 0 or self.cache_creation_tokens < 0:
            raise ValueError("cache token counts must be >= 0")


@dataclass(frozen=True, slots=True)
class Fault:
    kind: FaultKind
    status: int = 500
    retry_after: int = 1
    seconds: float = DEFAULT_HANG_SECONDS
    name: str | None = None
    after_events: int | None = None

    def __post_init__(self) -> None:
        if self.kind == "server_error" and self.status not in SERVER_ERROR_STATUSES:
            raise ValueError(f"server_error needs a 5xx status, not {self.status}")
        if self.kind == "look_alike" and not self.name:
            raise ValueError("look_alike needs the look-alike's name")
        if self.seconds < 0 or self.retry_after < 0:
            raise ValueError("seconds and retry_after must be >= 0")


@dataclass(frozen=True, slots=True)
class StepCondition:
    """Which request a step answers; every condition given must hold.

    - ``user_turn``: the request answers the conversation's nth distinct user message
      (1-based; its newest user message is the nth the fake has seen, a user message that
      holds some step's ``contains`` text not counted), however many calls came before;
    - ``contains``: the request's newest user message, or a system message, contains this
      text (a summarisation request, a final tools-free request);
    - ``retry``: the request is (``true``) or is not (``false``) the same as the previous
      call's: the same rows and tools.
    """

    user_turn: int | None = None
    contains: str | None = None
    retry: bool | None = None

    def __post_init__(self) -> None:
        if self.user_turn is None and self.contains is None and self.retry is None:
            raise ValueError("a condition needs user_turn, contains or retry")
        if self.user_turn is not None and self.user_turn < 1:
            raise ValueError("user_turn counts from 1")
        if self.contains == "":
            raise ValueError("contains needs a text")


@dataclass(frozen=True, slots=True)
class FakeBehaviour:
    reply: ScriptedReply = field(default_factory=ScriptedReply)
    usage: UsageReport = field(default_factory=UsageReport)
    fault: Fault | None = None
    latency_ms: int = 0
    when: StepCondition | None = None


@dataclass(frozen=True, slots=True)
class FakeScript:
    """``faults``: faults at a rate on the calls whose step scripts none
    (``fakes.scripting.fault_rates``)."""

    steps: tuple[FakeBehaviour, ...] = ()
    default: FakeBehaviour = field(default_factory=FakeBehaviour)
    faults: FaultRates | None = None

    def __post_init__(self) -> None:
        if self.default.when is not None:
            raise ValueError("the default step answers every call no step takes: no when")

    @property
    def follows(self) -> bool:
        """Whether some step says which request it answers (``when``)."""
        return any(step.when is not None for step in self.steps)

    def behaviour_for(self, index: int) -> FakeBehaviour:
        """Call ``index``'s step by call count (a script without ``when`` steps)."""
        return self.steps[index] if index < len(self.steps) else self.default


def say(text: str) -> FakeBehaviour:
    """A step that answers ``text``."""
    return FakeBehaviour(reply=ScriptedReply(text=text))


def call_tools(*calls: ScriptedToolCall, text: str | None = None) -> FakeBehaviour:
    """A step that makes the given tool calls (parallel when more than one)."""
    return FakeBehaviour(reply=ScriptedReply(text=text, tool_calls=calls))


def fail(
    kind: FaultKind,
    *,
    status: int = 500,
    retry_after: int = 1,
    seconds: float = DEFAULT_HANG_SECONDS,
    name: str | None = None,
    after_events: int | None = None,
) -> FakeBehaviour:
    """A step that injects a fault, e.g. ``fail("rate_limit", retry_after=3)``."""
    return FakeBehaviour(fault=Fault(kind, status, retry_after, seconds, name, after_events))
