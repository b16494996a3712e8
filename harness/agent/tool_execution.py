"""Running the tool calls of a reply (spec 16): each call in order, its result truncated
to ``max_tool_result_chars`` once, when recorded, and announced as it starts and ends.

A failing or unknown tool is reported to the model as the call's result, never raised:
the model decides what to do next, as with the reference."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from harness.agent.announce import Announcer
from harness.agent.config import LoopConfig
from harness.runtime import Attachment, ToolCall, ToolResultMessage, truncate_tool_result

UNKNOWN_TOOL_ERROR = "unknown_tool"


def _arguments(call: ToolCall) -> Mapping[str, object]:
    try:
        value = json.loads(call.arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


async def run_tool(call: ToolCall, config: LoopConfig, announcer: Announcer) -> ToolResultMessage:
    announcer.tool_call_started(call.id, call.name)
    started = announcer.clock()
    tool = config.tools.tools.get(call.name)
    error_type: str | None = None
    attachments: tuple[Attachment, ...] = ()
    if tool is None:
        text, error_type = f"Unknown tool: {call.name}", UNKNOWN_TOOL_ERROR
    else:
        try:
            output = await tool.run(_arguments(call))
            text, attachments = output.text, output.attachments
        except Exception as exc:  # a failing tool is reported to the model, as a result
            text, error_type = f"Error: {exc}", type(exc).__name__
    limit = config.profile.max_tool_result_chars
    recorded = truncate_tool_result(text, limit)  # once, when recorded; never later
    announcer.tool_call_finished(
        call.id,
        call.name,
        result_bytes=len(recorded.encode("utf-8", "surrogatepass")),
        truncated=recorded != text,
        error_type=error_type,
        duration_s=announcer.clock() - started,
    )
    return ToolResultMessage(call.id, recorded, call.name, attachments)


async def run_tool_calls(
    calls: Sequence[ToolCall], config: LoopConfig, announcer: Announcer
) -> tuple[ToolResultMessage, ...]:
    """Every call of one reply, one after another, in the order the model asked."""
    return tuple([await run_tool(call, config, announcer) for call in calls])
