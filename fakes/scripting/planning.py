"""What a fake's reply says besides its text: tool calls with ids, and the usage it reports.

Used by ``fakes.engine`` when it plans a reply (``FakeProvider.plan``).
"""

from __future__ import annotations

from fakes.counting.counters import TokenCounter
from fakes.rows import compact_json
from fakes.scripting.script import FakeBehaviour
from fakes.simulations import caching as prompt_cache
from fakes.wire.base import PlannedToolCall, Usage, WireFormat


def planned_calls(
    wire: WireFormat, behaviour: FakeBehaviour, index: int
) -> tuple[PlannedToolCall, ...]:
    """The step's tool calls with ids (generated in the wire's style when absent)."""
    return tuple(
        PlannedToolCall(
            call.id or f"{wire.tool_id_prefix}fake{index:04d}x{n}",
            call.name,
            call.arguments,
            compact_json(dict(call.arguments)),
        )
        for n, call in enumerate(behaviour.reply.tool_calls)
    )


def reported_usage(
    counter: TokenCounter,
    behaviour: FakeBehaviour,
    actual: int,
    calls: tuple[PlannedToolCall, ...],
    cache: prompt_cache.CacheUsage = prompt_cache.NO_CACHE,
) -> Usage:
    """Reported usage: the script's override, or the count scaled by its factor."""
    report = behaviour.usage
    output = report.output_tokens
    if output is None:
        spoken = (behaviour.reply.text or "") + "".join(c.name + c.arguments_json for c in calls)
        output = max(1, counter.count_text(spoken))
    reported = report.input_tokens
    if reported is None:
        reported = round(actual * report.input_factor)
    return Usage(reported, output, *prompt_cache.reported_cache(report, cache, reported))
