"""Compacting through the endpoint where the proactive trim would run (outside the
reference, whose rules are untouched: it has no provider-side compaction).

A route in ``LoopConfig.compacting_routes`` (an OpenAI Responses route: its client has
``compact``) decides on what it sends, not on the runtime's whole history: the client
keeps the window ``/responses/compact`` answered, anchored to the rows it summarised, and
sends it in place of them (``harness.providers.clients.kept_compactions``), so the route's request
is that window and the rows after its anchor (``sent_tokens``); the runtime's own history
stays whole. On the proactive budget check (``compact_or_trim``):

- What the route sends fits the budget: nothing happens, however long the runtime's
  history has grown (no compaction, no trim).
- Over the budget: every row before the newest user message (``compactable``) is posted to
  ``/responses/compact`` (the client sends the kept window in place of what it summarised),
  and the new window is kept. One ``ProviderContextEdited`` (``edit`` compaction,
  ``wire_type`` ``responses.compact``, ``compaction`` compacted) and no client trim.
- The endpoint fails or refuses (any provider error): the same event with ``compaction``
  failed and ``fallback`` ``client_trim``, then the proactive trim runs as without the
  option.
- What the route would send is past the model's window, or there is nothing before the
  newest user message: no compaction is asked for (the endpoint would have to read it
  all); the proactive trim runs.

The pre-dispatch capacity check of such a route measures the same thing (``sent_tokens``).
Only on the proactive check, not as the recovery from an overflow: the recovery stays the
reference's (docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.agent.announce import Announcer, CallContext
from harness.agent.config import FALLBACK_CLIENT_TRIM, EndpointCompactor, LoopConfig
from harness.agent.routes import Route
from harness.providers import ProviderError, ProviderRequest
from harness.providers.clients.kept_compactions import COMPACTION_TYPE, KeptWindow
from harness.runtime import ChatMessage, estimate_history_tokens, measure_capacity
from harness.runtime.capacity import CapacityCheck
from harness.runtime.constants import PER_MESSAGE_FRAMING_TOKENS
from harness.runtime.estimate import current_turn_start, row_costs


def compactable(rows: Sequence[ChatMessage]) -> list[ChatMessage]:
    """What is compacted: every row before the newest user message (empty when nothing
    but system rows precedes it). The compaction guide's flow: compact what was said, then
    send the window followed by the new input; a window anchored to the whole request
    would never be sent (the client replaces an anchor only when the input extends it)."""
    users = [n for n, row in enumerate(rows) if row.role == "user"]
    cut = users[-1] if users else 0
    prefix = list(rows[:cut])
    return prefix if any(row.role != "system" for row in prefix) else []


def window_tokens(kept: KeptWindow, rows: Sequence[ChatMessage], costs: Sequence[int]) -> int:
    """The kept window's size: the user messages it repeats (the endpoint's output is
    every user message of its input, then the compaction item) at the runtime's estimate
    of those rows, and the item at the tokens the compaction pass reported writing and the
    framing of a row, else at the runtime's estimate of its opaque content as a row."""
    assert kept.rows is not None
    repeated = zip(rows[: kept.rows], costs, strict=False)
    users = sum(cost for row, cost in repeated if row.role == "user")
    items = [item for item in kept.window if item.get("type") == COMPACTION_TYPE]
    if kept.written_tokens is not None and len(items) == 1:
        # the item is one more input row: framed as the estimate frames every row
        return users + kept.written_tokens + PER_MESSAGE_FRAMING_TOKENS
    opaque = [ChatMessage("assistant", str(item.get("encrypted_content", ""))) for item in items]
    return users + estimate_history_tokens(opaque)


def sent_tokens(client: EndpointCompactor, model: str | None, rows: Sequence[ChatMessage]) -> int:
    """The runtime's estimate of what the route sends for ``rows``: the kept window and
    the rows after its anchor, or every row when no window applies."""
    costs = row_costs(rows, current_turn_start(rows))
    kept = client.kept_window(ProviderRequest(model or "", list(rows)))
    if kept is None or kept.rows is None or kept.rows > len(rows):
        return sum(costs)
    return window_tokens(kept, rows, costs) + sum(costs[kept.rows :])


async def compact_or_trim(
    client: EndpointCompactor,
    announcer: Announcer,
    new_call: Callable[[], CallContext],
    rows: Sequence[ChatMessage],
    *,
    model: str | None,
    budget: int,
    window: int,
    tool_schema_tokens: int,
) -> bool:
    """Whether the caller still trims ``rows`` (the rows the next call sends) as the
    reference would; ``False`` when what the route sends fits or was compacted.
    ``new_call`` names the compaction's own call, only when one is asked for (call ids
    are not spent on turns that need none)."""
    sent = sent_tokens(client, model, rows)
    if sent <= budget:
        return False
    if sent + tool_schema_tokens > window:
        return True
    prefix = compactable(rows)
    if not prefix:
        return True
    trigger = f"budget_tokens>{budget}"  # what the route sends, over the runtime's budget
    call = new_call()
    try:
        compacted = await client.compact(ProviderRequest(model or "", prefix))
    except ProviderError:
        announcer.endpoint_compacted(
            call, trigger=trigger, compacted=False, fallback=FALLBACK_CLIENT_TRIM
        )
        return True
    announcer.endpoint_compacted(call, trigger=trigger, compacted=True, usage=compacted.usage)
    return False


def route_compactor(config: LoopConfig, route: Route) -> EndpointCompactor | None:
    """The route's client when the route compacts through its endpoint; ``None`` for every
    other route, which keeps the reference's rules."""
    if route.provider not in config.compacting_routes:
        return None
    client = config.clients[route.provider]
    assert isinstance(client, EndpointCompactor)  # LoopConfig checked it
    return client


def measure_sent(
    compactor: EndpointCompactor | None,
    model: str | None,
    rows: Sequence[ChatMessage],
    tool_schema_tokens: int,
    window: int,
) -> CapacityCheck:
    """The pre-dispatch check's operands: the reference's for a route that does not
    compact (``compactor`` ``None``), what the route sends for one that does."""
    if compactor is None:
        return measure_capacity(rows, tool_schema_tokens, window)
    return CapacityCheck(sent_tokens(compactor, model, rows), tool_schema_tokens, window)
