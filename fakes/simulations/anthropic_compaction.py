"""Anthropic's compaction edit (``compact_20260112``), simulated: the summary, its block,
its reuse in a later request, and the usage it reports (``fakes.simulations.context_edits`` parses
and orders the edits; this module is the compaction's own part).

Nothing before the newest user message to summarise (one oversized message): the summary
stands for the whole conversation and the answer follows from it alone, as the real API
does (pydantic-ai's records ``test_anthropic_compaction_usage_with_cache*.yaml`` at
4fda389: one user message over the trigger, a summary, then the answer from 229 input
tokens).

Usage: an answer that compacted reports ``usage.iterations`` (anthropic-sdk-python
``src/anthropic/types/beta/``: ``beta_usage.py``, ``beta_message_delta_usage.py``,
``beta_iterations_usage.py``, ``beta_compaction_iteration_usage.py``,
``beta_message_iteration_usage.py``): one ``compaction`` entry (the summary step), then
one ``message`` entry for the answer. The top-level usage is the message step's only
(Anthropic's compaction guide, "Compaction at a token threshold": its example reports 23,000
input tokens at the top level beside a 180,000-token compaction iteration).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fakes.rows import JSONValue
from fakes.wire.anthropic_shape import cache_creation
from fakes.wire.base import StreamEvent

DEFAULT_COMPACT_TRIGGER_TOKENS = 150_000
COMPACTION_SUMMARY = "[summary of {messages} earlier messages]"

Counter = Callable[[dict[str, Any]], int]


@dataclass(frozen=True, slots=True)
class Compact:
    trigger: int = DEFAULT_COMPACT_TRIGGER_TOKENS
    instructions: str | None = None
    pause: bool = False


@dataclass(frozen=True, slots=True)
class Compaction:
    """The compaction this request triggered: its summary (``None`` when it failed), and
    the summary's size in output tokens (what the compaction iteration generated)."""

    content: str | None
    pause: bool
    tokens_before: int
    tokens_after: int
    summary_tokens: int = 0

    def block(self) -> JSONValue:
        return {"type": "compaction", "content": self.content}

    def events(self) -> list[StreamEvent]:
        """The block streamed at index 0: its start with ``content: null``, the summary in
        one ``compaction_delta``, its stop (pydantic-ai's record
        ``test_anthropic_compaction_usage_with_cache_streaming.yaml``); a failed
        compaction has no delta."""
        empty: JSONValue = {"type": "compaction", "content": None}
        start: JSONValue = {"type": "content_block_start", "index": 0, "content_block": empty}
        delta: JSONValue = {"type": "compaction_delta", "content": self.content}
        events = [StreamEvent(start, event="content_block_start")]
        if self.content is not None:
            change: JSONValue = {"type": "content_block_delta", "index": 0, "delta": delta}
            events.append(StreamEvent(change, event="content_block_delta"))
        stop: JSONValue = {"type": "content_block_stop", "index": 0}
        return [*events, StreamEvent(stop, event="content_block_stop")]

    def iteration(self) -> dict[str, JSONValue]:
        """Its entry in ``usage.iterations`` (``BetaCompactionIterationUsage``): the
        summary step read the whole prompt and wrote the summary; the fake's cache is not
        consulted for it (the fake's choice)."""
        return {
            "type": "compaction",
            "input_tokens": self.tokens_before,
            "output_tokens": self.summary_tokens,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
            "cache_creation": cache_creation(0),
        }


def content_blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A message's content blocks; a string content becomes one text block, in place, so
    that edits can change blocks of any message."""
    content = message.get("content")
    if isinstance(content, str):
        message["content"] = [{"type": "text", "text": content}]
    found = message.get("content")
    return [b for b in found if isinstance(b, dict)] if isinstance(found, list) else []


def resume_compaction(body: dict[str, Any]) -> dict[str, Any]:
    """Drop every message before the newest compaction block that has a summary; the
    block itself is read as its summary text (a ``null`` block is a no-op)."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return body
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        blocks = message.get("content")
        if not isinstance(blocks, list):
            continue
        summaries = [b for b in blocks if isinstance(b, dict) and b.get("type") == "compaction"]
        if any(isinstance(b.get("content"), str) for b in summaries):
            kept = [
                {"type": "text", "text": b["content"]} if b.get("type") == "compaction" else b
                for b in blocks
                if b.get("type") != "compaction" or isinstance(b.get("content"), str)
            ]
            return {**body, "messages": [{**message, "content": kept}, *messages[index + 1 :]]}
    return body


def compact_body(
    body: dict[str, Any],
    edit: Compact,
    count: Counter,
    count_text: Callable[[str], int],
    fails: bool,
) -> Compaction | None:
    before = count(body)
    if before <= edit.trigger:
        return None
    messages = body["messages"]
    users = [n for n, m in enumerate(messages) if m.get("role") == "user"]
    cut = users[-1] if users else len(messages) - 1
    if cut > 0 and any(b.get("type") == "tool_result" for b in content_blocks(messages[cut])):
        cut -= 1  # tool results keep the tool uses they answer (the API's pairing rule)
    if fails:
        return Compaction(None, edit.pause, before, before)
    whole = cut == 0  # one message over the trigger: the summary stands for all of it
    summary = COMPACTION_SUMMARY.format(messages=len(messages) if whole else cut)
    if edit.instructions:
        summary = f"{summary} ({edit.instructions})"
    role = "user" if whole or messages[cut].get("role") == "assistant" else "assistant"
    summary_row = {"role": role, "content": [{"type": "text", "text": summary}]}
    body["messages"] = [summary_row] if whole else [summary_row, *messages[cut:]]
    return Compaction(summary, edit.pause, before, count(body), count_text(summary))


def iterations(
    compaction: Compaction, usage: Mapping[str, Any], model: Any
) -> list[JSONValue] | None:
    """``usage.iterations`` of an answer that compacted: the compaction step, then the
    message step, whose counts are the top-level ``usage``. A failed compaction reports no
    iterations and a paused one only its compaction step (the fake's choices: neither is
    documented)."""
    if compaction.content is None:
        return None
    entries: list[JSONValue] = [compaction.iteration()]
    if not compaction.pause:
        keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        message: dict[str, JSONValue] = {"type": "message", "model": model}
        message.update({key: usage.get(key, 0) for key in (*keys, "output_tokens")})
        written = usage.get("cache_creation_input_tokens", 0)
        message["cache_creation"] = cache_creation(written if isinstance(written, int) else 0)
        entries.append(message)
    return entries


def with_iterations(
    usage: Any, compaction: Compaction | None, whole: Mapping[str, Any], model: Any
) -> Any:
    """``usage`` plus ``iterations`` when the request compacted; ``whole`` is the complete
    usage (a stream's ``message_delta`` usage carries only the output count)."""
    if compaction is None or not isinstance(usage, dict):
        return usage
    found = iterations(compaction, whole, model)
    return usage if found is None else {**usage, "iterations": found}
