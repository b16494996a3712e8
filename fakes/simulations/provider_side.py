"""Context management on the provider's side: the engine's one hook, per wire format.

Before a request is decoded, its body goes through ``prepare``: Anthropic
``context_management.edits`` (``fakes.simulations.context_edits``), OpenAI Responses
``truncation`` and compaction (``fakes.simulations.responses_context``). The edited body is
what the wire decodes, counts and judges against the window. After the answer is rendered,
``decorate`` adds what the provider reports back (``context_management.applied_edits``, the
compaction block or item, ``stop_reason: "compaction"``).

``ProviderSide.handling`` says what the endpoint does with these fields:

- ``honour``: the provider implements them (the default);
- ``ignore``: a gateway drops them silently: the request goes on unedited (a planned
  compaction becomes an overflow);
- ``reject``: the endpoint does not know them: a 400 naming the field, as gateways do
  (anthropics/claude-code#21612, ericc-ch/copilot-api#217).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from http import HTTPStatus
from typing import Any, Literal, TypeAlias

from fakes.serving.answer import Answer
from fakes.simulations import context_edits, responses_context
from fakes.simulations.anthropic_compaction import with_iterations
from fakes.simulations.thinking import Thinking, add_block, add_events, check_thinking
from fakes.wire.anthropic_shape import place_ping
from fakes.wire.base import StreamEvent
from fakes.wire.common import Invalid

Handling: TypeAlias = Literal["honour", "ignore", "reject"]
HANDLINGS: tuple[Handling, ...] = ("honour", "ignore", "reject")
ForeignHistory: TypeAlias = Literal["opaque", "strict"]
FOREIGN_HISTORIES: tuple[ForeignHistory, ...] = ("opaque", "strict")
DEFAULT_FOREIGN_HISTORY: ForeignHistory = "opaque"
"""A session recorded against the real provider resumes on the fake (docs/decisions.md)."""
ANTHROPIC_FIELDS = ("context_management",)
RESPONSES_FIELDS = ("truncation", "context_management")
_FIELDS: dict[str, tuple[str, ...]] = {
    "anthropic": ANTHROPIC_FIELDS,
    "openai_responses": RESPONSES_FIELDS,
}

Counter = Callable[[dict[str, Any]], int]


@dataclass(frozen=True, slots=True)
class ProviderSide:
    """How a fake treats provider-side context management (a fake option)."""

    handling: Handling = "honour"
    compaction_fails: bool = False
    thinks: bool = True
    """``False``: ``thinking`` is dropped (a proxy that strips what it does not know):
    no thinking block comes back."""
    foreign_history: ForeignHistory = DEFAULT_FOREIGN_HISTORY
    """What the fake does with provider-signed content it did not make itself (an
    Anthropic ``thinking`` block's ``signature``, a Responses ``compaction`` item's
    ``encrypted_content``): ``opaque`` accepts it as the real API accepts its own;
    ``strict`` refuses it (400) as the real API refuses content it did not sign. The
    fake's own content is checked either way: an edited block is a 400."""

    def __post_init__(self) -> None:
        if self.handling not in HANDLINGS:
            raise ValueError(f"handling must be one of {', '.join(HANDLINGS)}")
        if self.foreign_history not in FOREIGN_HISTORIES:
            raise ValueError(f"foreign_history must be one of {', '.join(FOREIGN_HISTORIES)}")


DEFAULT_PROVIDER_SIDE = ProviderSide()


@dataclass(frozen=True, slots=True)
class Edited:
    """The body as the model sees it, and what the provider will report about it."""

    body: Any
    anthropic: context_edits.Outcome | None = None
    responses: responses_context.Outcome | None = None
    thinking: Thinking | None = None


def _present(wire: str, body: Mapping[str, Any]) -> list[str]:
    return [f for f in _FIELDS.get(wire, ()) if body.get(f) is not None]


def prepare(
    wire: str,
    body: Any,
    headers: Mapping[str, str],
    count: Counter,
    count_text: Callable[[str], int],
    *,
    window: int,
    side: ProviderSide,
) -> Edited:
    """Apply the provider-side options of ``body``; ``Invalid`` for a bad value, or for
    any of them when the endpoint rejects them."""
    if not isinstance(body, dict) or wire not in _FIELDS:
        return Edited(body)
    # thinking is no context-management field: a gateway's handling leaves it alone
    opaque = side.foreign_history == "opaque"
    thought = check_thinking(body, opaque) if wire == "anthropic" and side.thinks else None
    present = _present(wire, body)
    if present and side.handling == "reject":
        raise Invalid(f"{present[0]}: Extra inputs are not permitted")
    if side.handling == "ignore":
        body = {k: v for k, v in body.items() if k not in present}
    if wire == "anthropic":
        outcome = context_edits.apply(
            body, headers, count, count_text, compaction_fails=side.compaction_fails
        )
        return Edited(outcome.body, anthropic=outcome, thinking=thought)
    return _responses(body, count, window, opaque)


def _responses(body: dict[str, Any], count: Counter, window: int, opaque: bool) -> Edited:
    truncation = responses_context.truncation_of(body)
    threshold = responses_context.compact_threshold(body)
    body = responses_context.read_compactions(body, opaque)
    compacted = None
    if threshold is not None:
        done = responses_context.compact(body, count, threshold)
        body, compacted = done.body, done.compacted
    truncated = None
    if truncation == "auto":
        cut = responses_context.truncate(body, count, window)
        body, truncated = cut.body, cut.truncated
    outcome = responses_context.Outcome(body, truncated, compacted)
    return Edited(body, responses=outcome)


# -- what the provider reports back ----------------------------------------------------


def _anthropic_body(body: dict[str, Any], outcome: context_edits.Outcome) -> dict[str, Any]:
    body = {**body, **context_edits.wire_fields(outcome)}
    compaction = outcome.compaction
    if compaction is not None:
        usage = body.get("usage")
        if isinstance(usage, dict):
            body["usage"] = with_iterations(usage, compaction, usage, body.get("model"))
        content = body.get("content")
        kept = list(content) if isinstance(content, list) and not compaction.pause else []
        body["content"] = [compaction.block(), *kept]
        if compaction.pause:
            body["stop_reason"] = "compaction"
    return body


def _anthropic_events(
    events: tuple[StreamEvent, ...], outcome: context_edits.Outcome
) -> tuple[StreamEvent, ...]:
    """Streaming: the compaction block comes first, its summary in one
    ``compaction_delta`` (``Compaction.events``); ``message_delta`` carries
    ``context_management`` and, after a compaction, ``usage.iterations`` (the message
    step's input counts are ``message_start``'s)."""
    compaction = outcome.compaction
    out: list[StreamEvent] = []
    started: dict[str, Any] = {}  # message_start's message: its model and input usage
    announced = False
    for event in events:
        data = event.data if isinstance(event.data, dict) else None
        kind = data.get("type") if data else None
        if data is not None and kind == "message_start":
            message = data.get("message")
            started = message if isinstance(message, dict) else {}
        opens = str(kind).startswith("content_block") or kind == "message_delta"
        if data is not None and opens and compaction is not None and not announced:
            out += compaction.events()  # before the answer's first block, after the ping
            announced = True
        if data is not None and str(kind).startswith("content_block") and compaction is not None:
            if compaction.pause:
                continue
            index = data.get("index")
            data = {**data, "index": (index if isinstance(index, int) else 0) + 1}
        if data is not None and kind == "message_delta":
            data = {**data, **context_edits.wire_fields(outcome)}
            usage = data.get("usage")
            if isinstance(usage, dict):
                opening = started.get("usage")
                whole = {**(opening if isinstance(opening, dict) else {}), **usage}
                data["usage"] = with_iterations(usage, compaction, whole, started.get("model"))
            if compaction is not None and compaction.pause:
                delta = data.get("delta")
                data["delta"] = {
                    **(delta if isinstance(delta, dict) else {}),
                    "stop_reason": "compaction",
                }
        out.append(StreamEvent(data, event.event, event.literal) if data is not None else event)
    return tuple(out)


def _responses_body(body: dict[str, Any], outcome: responses_context.Outcome) -> dict[str, Any]:
    if outcome.compacted is None:
        return body
    output = body.get("output")
    rest = list(output) if isinstance(output, list) else []
    return {**body, "output": [outcome.compacted.item(), *rest]}


_RESPONSE_EVENTS = frozenset({"response.completed", "response.incomplete"})


def _responses_events(
    events: tuple[StreamEvent, ...], outcome: responses_context.Outcome
) -> tuple[StreamEvent, ...]:
    """Streaming: the compaction item is output item 0, announced whole by its
    ``response.output_item.added`` and ``.done`` before the first other output event (the
    fake's simplification: no in-progress state); every later ``output_index`` moves up one,
    the terminal response's ``output`` starts with the item, and ``sequence_number`` is
    renumbered so it still counts every event."""
    if outcome.compacted is None:
        return events
    item = outcome.compacted.item()
    out: list[StreamEvent] = []
    announced = False
    for event in events:
        data = dict(event.data) if isinstance(event.data, dict) else None
        kind = data.get("type") if data else None
        if data is None:
            out.append(event)
            continue
        if not announced and ("output_index" in data or kind in _RESPONSE_EVENTS):
            for added in ("response.output_item.added", "response.output_item.done"):
                out.append(StreamEvent({"type": added, "output_index": 0, "item": item}, added))
            announced = True
        index = data.get("output_index")
        if isinstance(index, int):
            data["output_index"] = index + 1
        response = data.get("response")
        if kind in _RESPONSE_EVENTS and isinstance(response, dict):
            data["response"] = _responses_body(response, outcome)
        out.append(StreamEvent(data, event.event, event.literal))
    return tuple(_renumbered(out))


def _renumbered(events: list[StreamEvent]) -> list[StreamEvent]:
    """Every Responses stream event carries its ``sequence_number`` (openai-python
    ``response_stream_event.py``): the position in the stream."""
    return [
        StreamEvent({**e.data, "sequence_number": n}, e.event, e.literal)
        if isinstance(e.data, dict)
        else e
        for n, e in enumerate(events)
    ]


def decorate(answer: Answer, edited: Edited | None) -> Answer:
    """Add what the provider reports about its edits to a successful answer; a stream's
    opening ``ping`` then goes where Anthropic sends it (``place_ping``): the blocks
    added here come before it."""
    decorated = _decorated(answer, edited)
    if decorated.events is None or decorated.raw is not None:
        return decorated
    return replace(decorated, events=place_ping(decorated.events))


def _decorated(answer: Answer, edited: Edited | None) -> Answer:
    if edited is None or answer.status != HTTPStatus.OK or answer.raw is not None:
        return answer
    if edited.thinking is not None and isinstance(answer.body, dict):
        answer = replace(answer, body=add_block(answer.body, edited.thinking))
    if edited.thinking is not None and answer.events is not None:
        answer = replace(answer, events=add_events(answer.events, edited.thinking))
    outcome = edited.anthropic
    if outcome is not None and (outcome.requested or outcome.compaction is not None):
        if isinstance(answer.body, dict):
            return replace(answer, body=_anthropic_body(answer.body, outcome))
        if answer.events is not None:
            return replace(answer, events=_anthropic_events(answer.events, outcome))
    if edited.responses is not None and isinstance(answer.body, dict):
        return replace(answer, body=_responses_body(answer.body, edited.responses))
    if edited.responses is not None and answer.events is not None:
        return replace(answer, events=_responses_events(answer.events, edited.responses))
    return answer
