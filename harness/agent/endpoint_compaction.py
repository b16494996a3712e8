"""Compacting through the endpoint where the proactive trim would run (outside the
reference, whose rules are untouched: it has no provider-side compaction).

A route in ``LoopConfig.compacting_routes`` (an OpenAI Responses route: its client has
``compact``) answers the proactive budget check's "trim" by posting its history to
``/responses/compact`` instead: every row before the newest user message (``compactable``).
The client keeps the window the endpoint answers, anchored to that input, and sends it in
place of the input from then on
(``harness.providers.kept_compactions``): the route's provider-facing history is the
compaction item and what followed it, while the runtime's own history stays whole.

- Compacted: one ``ProviderContextEdited`` (``edit`` compaction, ``wire_type``
  ``responses.compact``, ``compaction`` compacted) and no client trim.
- The endpoint fails or refuses (any provider error): the same event with ``compaction``
  failed and ``fallback`` ``client_trim``, then the proactive trim runs as without the
  option.
- The history past the model's window: no compaction is asked for (the endpoint would have
  to read it all, and the runtime's capacity check measures the history it holds, not the
  compacted window); the proactive trim runs.

Only on the proactive check, not as the recovery from an overflow: the recovery stays the
reference's (docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.agent.announce import Announcer, CallContext
from harness.agent.config import FALLBACK_CLIENT_TRIM, EndpointCompactor
from harness.providers import ProviderError, ProviderRequest
from harness.runtime import ChatMessage, measure_capacity


def compactable(rows: Sequence[ChatMessage]) -> list[ChatMessage]:
    """What is compacted: every row before the newest user message (empty when nothing
    but system rows precedes it). The compaction guide's flow: compact what was said, then
    send the window followed by the new input; a window anchored to the whole request
    would never be sent (the client replaces an anchor only when the input extends it)."""
    users = [n for n, row in enumerate(rows) if row.role == "user"]
    cut = users[-1] if users else 0
    prefix = list(rows[:cut])
    return prefix if any(row.role != "system" for row in prefix) else []


async def compact_instead_of_trim(
    client: EndpointCompactor,
    announcer: Announcer,
    call: CallContext,
    rows: Sequence[ChatMessage],
    *,
    budget: int,
    window: int,
    tool_schema_tokens: int,
) -> bool:
    """Whether the endpoint compacted ``rows`` (the rows the next call sends); ``False``
    means the caller trims as usual."""
    if not measure_capacity(rows, tool_schema_tokens, window).fits:
        return False
    prefix = compactable(rows)
    if not prefix:
        return False
    trigger = f"budget_tokens>{budget}"  # the runtime's estimate over its budget
    try:
        await client.compact(ProviderRequest(call.model or "", prefix))
    except ProviderError:
        announcer.endpoint_compacted(
            call, trigger=trigger, compacted=False, fallback=FALLBACK_CLIENT_TRIM
        )
        return False
    announcer.endpoint_compacted(call, trigger=trigger, compacted=True)
    return True
