"""Probing provider-side context management: for each option the endpoint claims, does it
honour it, reject it, or silently ignore it? (issue 17)

One request per claimed option, through the metered client (so within the budget), with
only that option set on the wire client:

- ``clear_tool_uses`` (Anthropic): two tool rounds, trigger "more than 1 tool use", keep 1:
  honoured when the reply reports a ``clear_tool_uses`` edit;
- ``compact`` (Anthropic): a many-turn request just over the smallest compaction trigger
  (50,000 input tokens), sized from the window (``compact_probe_size``): honoured when a
  compaction block comes back (a failed compaction is still an honoured option);
- ``truncation`` (OpenAI Responses, ``auto``): a many-turn request past the window found:
  honoured when it is answered instead of refused;
- ``compaction`` (OpenAI Responses, ``compact_threshold``): a request over a small
  threshold: honoured when a ``compaction`` output item comes back;
- ``clear_thinking`` (Anthropic): three thinking turns (``harness.conformance.thinking``):
  two to get the endpoint's own signed thinking blocks, the third sends both back with
  ``keep`` 1 turn: honoured when a ``clear_thinking`` edit is reported; inconclusive when
  no signed thinking block comes back (nothing to clear) or thinking itself is refused.

A non-overflow 4xx is ``rejected`` (the endpoint does not know the field: a gateway that
validates); an answer without the reported edit, or an overflow despite ``truncation``, is
``ignored`` (a gateway that drops the field). Anything else, or a probe the budget cannot
pay for, is ``inconclusive``.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, Literal

from harness.conformance.budget import BudgetExhausted, request_cost
from harness.conformance.metered import PROVIDER_SIDE_PURPOSE
from harness.conformance.payloads import (
    LOOKUP_TOOL,
    PROBE_MAX_TOKENS,
    QUESTION,
    SYSTEM_PROMPT,
    filler,
    recovery_history,
    sized_request,
)
from harness.conformance.probes import Prober, Sent
from harness.conformance.report import Check, Verdict
from harness.conformance.thinking import ThinkingConversation
from harness.conformance.window import WindowSearch
from harness.providers import ContextWindowExceeded, HttpProviderClient, ProviderRequest
from harness.providers.clients.context_management import (
    ClearToolUses,
    Compact,
    ProviderContext,
)
from harness.runtime import ChatMessage, ToolCall, native_tool_call_row, native_tool_result_row

Outcome = Literal["honoured", "rejected", "ignored", "inconclusive"]
OPTIONS_BY_KIND: Final[dict[str, tuple[str, ...]]] = {
    "anthropic": ("clear_tool_uses", "clear_thinking", "compact"),
    "openai-responses": ("truncation", "compaction"),
}
"""The options a provider kind can claim (``--provider-side``)."""
COMPACT_TRIGGER_TOKENS: Final = 50_000
"""Anthropic's smallest compaction trigger, which the probe asks for (the cheapest)."""
COMPACT_OVER_TRIGGER: Final = 0.05
"""The probe aims 5 % over the trigger (52,500 tokens) where the window holds it..."""
COMPACT_MIN_OVER_TRIGGER: Final = 0.01
"""... and half-way between the trigger and the window where it is tighter, but never
less than 1 % over the trigger: closer, a count a little off would not trigger it."""
RESPONSES_COMPACT_THRESHOLD: Final = 1_000
RESPONSES_COMPACT_PROBE_TOKENS: Final = 2_000
PAST_WINDOW_FACTOR: Final = 1.1
CLIENT_ERROR: Final = range(400, 500)


@dataclass(frozen=True, slots=True)
class ProviderSideOutcome:
    option: str
    outcome: Outcome
    detail: str


def _tool_rounds(model: str) -> ProviderRequest:
    rows = [ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", "Look up two words.")]
    for n, word in enumerate(("river", "stone")):
        call = ToolCall(f"toolu_conformance_{n}", LOOKUP_TOOL.name, f'{{"word":"{word}"}}')
        rows.append(native_tool_call_row(None, [call]))
        rows.append(native_tool_result_row(call.id, f"{word}: " + filler(400, n)))
    rows.append(ChatMessage("user", QUESTION))
    return ProviderRequest(model, rows, (LOOKUP_TOOL,), max_tokens=PROBE_MAX_TOKENS)


def _window_tokens(search: WindowSearch | None, claimed: int | None) -> tuple[int | None, str]:
    """The endpoint's window in its own tokens, and where that comes from: the smallest
    refused size the search predicted, else the claim, else unknown."""
    upper = search.upper_bound if search else None
    if upper is not None:
        return upper, "the window found"
    if claimed is not None:
        return claimed, "the claimed window"
    return None, "no window known"


def compact_probe_size(search: WindowSearch | None, claimed: int | None) -> int | str:
    """The estimate to send for the ``compact`` probe, or why no size fits: over the
    trigger in the endpoint's tokens (mapped through the search's calibration) and under
    the window."""
    window, source = _window_tokens(search, claimed)
    trigger = COMPACT_TRIGGER_TOKENS
    over = int(trigger * COMPACT_OVER_TRIGGER)
    if window is not None:
        over = min(over, (window - trigger) // 2)
    if over < trigger * COMPACT_MIN_OVER_TRIGGER:
        return (
            f"{source} ({window} tokens) cannot hold a request over the smallest "
            f"compaction trigger ({trigger})"
        )
    calibration = search.calibration if search else None
    target = trigger + over
    if calibration is None or not calibration.measured:
        return target
    return math.ceil((target - calibration.intercept) / calibration.slope)


def _judge(sent: Sent, edit: str, *, overflow_means_ignored: bool = False) -> ProviderSideOutcome:
    error = sent.error
    if sent.reply is not None:
        if edit == "" or any(e.kind == edit for e in sent.reply.provider_edits):
            return ProviderSideOutcome("", "honoured", "the reply reports the edit")
        return ProviderSideOutcome("", "ignored", "answered, but no edit reported")
    assert error is not None
    if isinstance(error, ContextWindowExceeded):
        if overflow_means_ignored:
            return ProviderSideOutcome("", "ignored", f"refused as an overflow ({error.status})")
        return ProviderSideOutcome("", "inconclusive", f"an overflow ({error.status})")
    if error.status in CLIENT_ERROR:
        return ProviderSideOutcome("", "rejected", f"HTTP {error.status}: {error.body[:200]}")
    return ProviderSideOutcome("", "inconclusive", f"{type(error).__name__} ({error.status})")


Probe = Callable[[], Awaitable[ProviderSideOutcome]]


class ProviderSideProber:
    """Sends one probe per claimed option with only that option set on ``inner``."""

    def __init__(
        self,
        prober: Prober,
        inner: HttpProviderClient,
        search: WindowSearch | None,
        claimed: int | None = None,
    ):
        self._prober, self._inner, self._search = prober, inner, search
        self._claimed = claimed

    async def _send(self, request: ProviderRequest, context: ProviderContext, why: str) -> Sent:
        self._inner.provider_context = context
        try:
            return await self._prober.send(request, f"{PROVIDER_SIDE_PURPOSE}{why}")
        finally:
            self._inner.provider_context = None

    def _too_large(self, tokens: int) -> str | None:
        search = self._search
        refused = search.not_fitting if search else None
        if refused is not None and refused.estimate <= tokens:
            return f"the window found ({refused.estimate} refused) cannot hold {tokens} tokens"
        return None

    async def clear_tool_uses(self) -> ProviderSideOutcome:
        context = ProviderContext(
            clear_tool_uses=ClearToolUses(trigger_tool_uses=1, keep_tool_uses=1)
        )
        sent = await self._send(_tool_rounds(self._prober.model), context, "clear_tool_uses")
        return _judge(sent, "clear_tool_uses")

    async def compact(self) -> ProviderSideOutcome:
        size = compact_probe_size(self._search, self._claimed)
        if isinstance(size, str):
            return ProviderSideOutcome("", "inconclusive", size)
        too_large = self._too_large(size)
        if too_large:
            return ProviderSideOutcome("", "inconclusive", too_large)
        # turns before the question, so there is something to summarise
        rows = [*recovery_history(size), ChatMessage("user", QUESTION)]
        request = ProviderRequest(self._prober.model, rows, max_tokens=PROBE_MAX_TOKENS)
        ledger = self._prober.client.ledger
        if not ledger.can_afford(request_cost(request)):
            left = f"{ledger.remaining_requests} requests, {ledger.remaining_tokens} tokens"
            why = f"the budget left ({left}) cannot pay for a {request_cost(request)}-token probe"
            return ProviderSideOutcome("", "inconclusive", why)
        context = ProviderContext(compact=Compact(trigger_input_tokens=COMPACT_TRIGGER_TOKENS))
        return _judge(await self._send(request, context, "compact"), "compaction")

    def _set_context(self, context: ProviderContext | None) -> None:
        self._inner.provider_context = context

    async def clear_thinking(self) -> ProviderSideOutcome:
        sent = await ThinkingConversation(self._prober, self._inner, self._set_context).run()
        if isinstance(sent, str):
            return ProviderSideOutcome("", "inconclusive", sent)
        return _judge(sent, "clear_thinking")

    async def truncation(self) -> ProviderSideOutcome:
        refused = self._search.not_fitting if self._search else None
        if refused is None:
            return ProviderSideOutcome("", "inconclusive", "the window was not found")
        # many turns, so there are middle items to drop (one huge message cannot be cut)
        size = int(refused.estimate * PAST_WINDOW_FACTOR)
        request = ProviderRequest(
            self._prober.model, recovery_history(size), max_tokens=PROBE_MAX_TOKENS
        )
        sent = await self._send(request, ProviderContext(truncation="auto"), "truncation")
        return _judge(sent, "", overflow_means_ignored=True)

    async def compaction(self) -> ProviderSideOutcome:
        request = sized_request(self._prober.model, RESPONSES_COMPACT_PROBE_TOKENS)
        context = ProviderContext(compact_threshold=RESPONSES_COMPACT_THRESHOLD)
        return _judge(await self._send(request, context, "compaction"), "compaction")

    async def probe(self, option: str) -> ProviderSideOutcome:
        probes: dict[str, Probe] = {
            "clear_tool_uses": self.clear_tool_uses,
            "clear_thinking": self.clear_thinking,
            "compact": self.compact,
            "truncation": self.truncation,
            "compaction": self.compaction,
        }
        try:
            found = await probes[option]()
        except BudgetExhausted as exhausted:
            found = ProviderSideOutcome("", "inconclusive", f"not sent: {exhausted}")
        return ProviderSideOutcome(option, found.outcome, self._prober.client.redact(found.detail))


async def probe_provider_side(
    prober: Prober,
    inner: HttpProviderClient,
    search: WindowSearch | None,
    options: tuple[str, ...],
    claimed: int | None = None,
) -> tuple[ProviderSideOutcome, ...]:
    side = ProviderSideProber(prober, inner, search, claimed)
    return tuple([await side.probe(option) for option in options])


def provider_side_check(outcomes: tuple[ProviderSideOutcome, ...]) -> Check:
    """``pass`` when every claimed option is honoured; ``n/a`` without claims."""
    title = "Provider-side context management"
    if not outcomes:
        return Check("provider_side", title, Verdict.NOT_APPLICABLE, "no option claimed")
    finding = "; ".join(f"{o.option}: {o.outcome} ({o.detail})" for o in outcomes)
    kinds = {o.outcome for o in outcomes}
    if kinds & {"rejected", "ignored"}:
        verdict = Verdict.FAIL
    elif "inconclusive" in kinds:
        verdict = Verdict.INCONCLUSIVE
    else:
        verdict = Verdict.PASS
    return Check("provider_side", title, verdict, finding)
