"""The details of Anthropic's answers the fakes copy from recorded ones: the usage object,
the ``message_delta`` usage, where ``ping`` goes, a tool use's ``caller``.

Sources (records of the real API): charmbracelet/fantasy
``providertests/testdata/TestAnthropicCommon/claude-sonnet-4/*.yaml`` (``simple_streaming``,
``tool``, ``tool_streaming``, ``multi_tool_streaming``) and pydantic/pydantic-ai
``tests/models/cassettes/test_anthropic/test_anthropic_compaction_usage_with_cache*.yaml``
at 4fda389:

- ``usage`` (a message and ``message_start``'s): ``input_tokens``,
  ``cache_creation_input_tokens``, ``cache_read_input_tokens``, ``cache_creation``
  (``ephemeral_5m_input_tokens``, ``ephemeral_1h_input_tokens``), ``output_tokens``,
  ``service_tier`` (``standard``), ``inference_geo`` (``not_available`` in claude-sonnet-4's
  records; claude-sonnet-4-6's say ``global``);
- ``message_delta``'s ``usage`` repeats the input counts (``input_tokens``,
  ``cache_creation_input_tokens``, ``cache_read_input_tokens``) beside ``output_tokens``;
- ``ping`` comes right after the first ``content_block_start`` (the wire formats put it
  after ``message_start``; ``fakes.simulations.provider_side.decorate`` moves it once every block is
  in);
- a ``tool_use`` block says who called it: ``caller: {"type": "direct"}``.

The fake's choice: every cache write is counted as a 5-minute one in ``cache_creation``
(its usage report does not split writes by lifetime).
"""

from __future__ import annotations

import hashlib

from fakes.rows import JSONValue
from fakes.wire.base import StreamEvent

SERVICE_TIER = "standard"
INFERENCE_GEO = "not_available"
TOOL_CALLER: dict[str, JSONValue] = {"type": "direct"}


def anthropic_error(kind: str, message: str) -> JSONValue:
    """An error body: ``type``, ``error`` and the ``request_id`` the API now adds
    (pydantic-ai's ``test_model_name_suggestion[anthropic].yaml`` at 4fda389); the id is
    derived from the message, so a fake's answer stays deterministic."""
    digest = hashlib.sha256(message.encode("utf-8")).hexdigest()[:22]
    return {
        "type": "error",
        "error": {"type": kind, "message": message},
        "request_id": f"req_011C{digest}",
    }


def cache_creation(written: int) -> dict[str, JSONValue]:
    return {"ephemeral_5m_input_tokens": written, "ephemeral_1h_input_tokens": 0}


def input_counts(uncached: int, written: int, read: int) -> dict[str, JSONValue]:
    return {
        "input_tokens": uncached,
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": read,
    }


def message_usage(uncached: int, written: int, read: int, output: int) -> dict[str, JSONValue]:
    """A message's (and ``message_start``'s) ``usage``."""
    return {
        **input_counts(uncached, written, read),
        "cache_creation": cache_creation(written),
        "output_tokens": output,
        "service_tier": SERVICE_TIER,
        "inference_geo": INFERENCE_GEO,
    }


def delta_usage(uncached: int, written: int, read: int, output: int) -> dict[str, JSONValue]:
    """``message_delta``'s ``usage``: the input counts again, the output's final count."""
    return {**input_counts(uncached, written, read), "output_tokens": output}


def _kind(event: StreamEvent) -> object:
    return event.data.get("type") if isinstance(event.data, dict) else None


def place_ping(events: tuple[StreamEvent, ...]) -> tuple[StreamEvent, ...]:
    """The stream with the ``ping`` the wire puts right after ``message_start`` moved to
    right after the first ``content_block_start`` (left where it is when no block
    follows); any other stream, and any later ``ping``, is left alone."""
    kinds = [_kind(e) for e in events]
    if kinds[:2] != ["message_start", "ping"] or "content_block_start" not in kinds:
        return events
    start = kinds.index("content_block_start")
    return (events[0], *events[2 : start + 1], events[1], *events[start + 1 :])
