"""Anthropic Messages (``POST /v1/messages``), with SSE streaming.

Decoding: ``system`` → one ``system`` row per text block (a string is one block); a user
message's ``tool_result`` blocks → native tool rows (in order), its other blocks → one
``user`` row after them (text verbatim, images as ``[IMAGE:<url or data URI>]``); an
assistant message with ``tool_use`` blocks → the native tool-call row (its text blocks
joined, ``arguments`` = compact JSON of ``input``). ``thinking`` blocks are not counted, but
they are part of the cached prefix (``UNCOUNTED_BLOCKS_OPTION``): clearing them is a miss.

Pairing, with the API's real messages: every ``tool_use`` must be answered by a
``tool_result`` in the very next message, and every ``tool_result`` must answer a
``tool_use`` of the message just before.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakes.catalogue import WireName
from fakes.rows import (
    Attachment,
    CanonicalRequest,
    JSONValue,
    Row,
    ToolSchema,
    WireToolCall,
    compact_json,
    tool_call_row,
    tool_result_row,
)
from fakes.simulations.caching import Breakpoint
from fakes.simulations.prefix_chain import UNCOUNTED_BLOCKS_OPTION
from fakes.wire.anthropic_cache import check_count, marked, marker_ttl
from fakes.wire.anthropic_shape import TOOL_CALLER, anthropic_error, delta_usage, message_usage
from fakes.wire.base import (
    ErrorKind,
    ReplyPlan,
    RequestContext,
    StreamEvent,
    StreamMedia,
    WireError,
)
from fakes.wire.common import (
    Invalid,
    arr,
    data_uri,
    join_user_parts,
    obj,
    optional_int,
    required,
    schema,
    string,
    text_pieces,
)

CONTEXT_WINDOW_STOP_BETA = "model-context-window-exceeded-2025-08-26"
UNANSWERED = (
    "messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately "
    "after: {ids}. Each `tool_use` block must have a corresponding `tool_result` block in "
    "the next message."
)
UNEXPECTED = (
    "messages.{index}.content.{block}: unexpected `tool_use_id` found in `tool_result` "
    "blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in "
    "the previous message."
)
_TYPES: dict[ErrorKind, str] = {
    "invalid_request": "invalid_request_error",
    "not_found": "not_found_error",
    "rate_limit": "rate_limit_error",
    "server_error": "api_error",
    "overloaded": "overloaded_error",
}
_STOP = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "context_window": "model_context_window_exceeded",
}


def _blocks(content: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [obj(b, f"{where}[{n}]") for n, b in enumerate(arr(content, where))]


def _ids(blocks: list[dict[str, Any]], kind: str, key: str) -> list[str]:
    return [str(b.get(key)) for b in blocks if b.get("type") == kind]


def _error(message: str) -> WireError:
    body: JSONValue = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": message},
    }
    return WireError(400, body, detail="tool pairing")


def check_pairing(messages: list[dict[str, Any]]) -> None:
    previous_uses: list[str] = []
    for index, message in enumerate(messages):
        blocks = _blocks(message.get("content"), f"messages[{index}].content")
        results = _ids(blocks, "tool_result", "tool_use_id")
        for block, result_id in enumerate(results):
            if result_id not in previous_uses:
                raise _error(UNEXPECTED.format(index=index, block=block, id=result_id))
        missing = [u for u in previous_uses if u not in results]
        if missing:
            raise _error(UNANSWERED.format(index=index - 1, ids=", ".join(missing)))
        previous_uses = _ids(blocks, "tool_use", "id") if message.get("role") == "assistant" else []
    if previous_uses:
        raise _error(UNANSWERED.format(index=len(messages) - 1, ids=", ".join(previous_uses)))


def _image_target(block: dict[str, Any]) -> str:
    source: dict[str, Any] = block["source"] if isinstance(block.get("source"), dict) else {}
    if source.get("type") == "base64":
        return data_uri(str(source.get("media_type")), str(source.get("data")))
    return str(source.get("url") or source.get("file_id") or "")


def _result_row(block: dict[str, Any], where: str) -> Row:
    content = block.get("content")
    inner = _blocks(content, f"{where}.content") if content is not None else []
    text = "".join(str(b.get("text", "")) for b in inner if b.get("type") == "text")
    images = [Attachment("image", _image_target(b)) for b in inner if b.get("type") == "image"]
    return tool_result_row(string(block.get("tool_use_id"), f"{where}.tool_use_id"), text, images)


def _user_rows(blocks: list[dict[str, Any]], where: str) -> list[Row]:
    rows = [
        _result_row(b, f"{where}[{n}]")
        for n, b in enumerate(blocks)
        if b.get("type") == "tool_result"
    ]
    parts = [
        ("text", str(b.get("text", ""))) if b.get("type") == "text" else ("image", _image_target(b))
        for b in blocks
        if b.get("type") in ("text", "image")
    ]
    if parts or not rows:
        rows.append(Row("user", join_user_parts(parts)))
    return rows


def _thinking(blocks: list[dict[str, Any]]) -> tuple[str, ...]:
    """A message's thinking blocks, as the cache sees them (their text or redacted data,
    and signature): not counted, but part of the prompt prefix."""
    return tuple(
        json.dumps([b.get("thinking"), b.get("data"), b.get("signature")])
        for b in blocks
        if b.get("type") in ("thinking", "redacted_thinking")
    )


def _assistant_row(blocks: list[dict[str, Any]], where: str) -> Row:
    text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    calls = [
        WireToolCall(
            string(b.get("id"), f"{where}.id"),
            string(b.get("name"), f"{where}.name"),
            compact_json(b.get("input", {})),
        )
        for b in blocks
        if b.get("type") == "tool_use"
    ]
    return tool_call_row(text, calls) if calls else Row("assistant", text)


def _system(system: Any) -> tuple[list[Row], list[Breakpoint]]:
    """System rows, and a breakpoint after each marked text block's row."""
    rows: list[Row] = []
    points: list[Breakpoint] = []
    if system is None:
        return rows, points
    for n, block in enumerate(_blocks(system, "system")):
        if block.get("type") == "text":
            rows.append(Row("system", str(block.get("text", ""))))
        ttl = marker_ttl(block, f"system[{n}]")
        if ttl is not None:
            points.append(Breakpoint(len(rows), ttl))
    return rows, points


def _tool_list(tools: Any) -> list[Any]:
    return arr(tools, "tools") if tools is not None else []


def _tools(tools: Any) -> tuple[ToolSchema, ...]:
    return (
        tuple(
            schema(t.get("name"), t.get("description"), t.get("input_schema"), f"tools[{n}]")
            for n, t in enumerate(obj(x, f"tools[{i}]") for i, x in enumerate(arr(tools, "tools")))
            if "input_schema" in t
        )
        if tools is not None
        else ()
    )


@dataclass(frozen=True, slots=True)
class AnthropicMessages:
    name: WireName = "anthropic"
    tool_id_prefix: str = "toolu_"
    stream_media: StreamMedia = "sse"
    response_id_prefix: str = "msg_"

    def decode(self, body: Any, ctx: RequestContext) -> CanonicalRequest:
        body = obj(body, "body")
        model = string(required(body, "model"), "model")
        if body.get("max_tokens") is None:
            raise Invalid("max_tokens: Field required")
        messages = [
            obj(m, f"messages[{n}]")
            for n, m in enumerate(arr(required(body, "messages"), "messages"))
        ]
        if ctx.enforce_pairing:
            check_pairing(messages)
        rows, points = _system(body.get("system"))
        uncounted: dict[int, tuple[str, ...]] = {}  # thinking, by its row's boundary
        points[:0] = [Breakpoint(0, t) for t in marked(_tool_list(body.get("tools")), "tools")]
        for n, message in enumerate(messages):
            blocks = _blocks(message.get("content"), f"messages[{n}].content")
            if message.get("role") == "user":
                rows += _user_rows(blocks, f"messages[{n}].content")
            elif message.get("role") == "assistant":
                rows.append(_assistant_row(blocks, f"messages[{n}].content"))
                thinking = _thinking(blocks)
                if thinking:
                    uncounted[len(rows)] = thinking
            else:
                raise Invalid(f"messages.{n}.role: Input should be 'user' or 'assistant'")
            points += [Breakpoint(len(rows), t) for t in marked(blocks, f"messages[{n}].content")]
        automatic = marker_ttl(body, "body")
        if automatic is not None:
            points.append(Breakpoint(len(rows), automatic))
        beta = ctx.headers.get("anthropic-beta", "")
        return CanonicalRequest(
            model=model,
            rows=tuple(rows),
            tools=_tools(body.get("tools")),
            max_output_tokens=optional_int(body, "max_tokens"),
            stream=body.get("stream") is True,
            options={
                "context_window_stop": CONTEXT_WINDOW_STOP_BETA in beta,
                "cache_breakpoints": check_count(points),
                UNCOUNTED_BLOCKS_OPTION: uncounted,
            },
        )

    def _counts(self, plan: ReplyPlan) -> tuple[int, int, int]:
        """``(uncached, written, read)`` input tokens: Anthropic's input excludes both."""
        u = plan.usage
        uncached = max(0, u.input_tokens - u.cached_tokens - u.cache_creation_tokens)
        return uncached, u.cache_creation_tokens, u.cached_tokens

    def _usage(self, plan: ReplyPlan, output: int) -> dict[str, JSONValue]:
        return message_usage(*self._counts(plan), output)

    def _message(self, plan: ReplyPlan, content: list[JSONValue], done: bool) -> JSONValue:
        return {
            "id": plan.response_id,
            "type": "message",
            "role": "assistant",
            "model": plan.model,
            "content": content,
            "stop_reason": _STOP[plan.stop] if done else None,
            "stop_sequence": None,
            "usage": self._usage(plan, plan.usage.output_tokens if done else 1),
        }

    def reply(self, plan: ReplyPlan) -> JSONValue:
        content: list[JSONValue] = [{"type": "text", "text": plan.text}] if plan.text else []
        content += [
            {
                "type": "tool_use",
                "id": c.id,
                "name": c.name,
                "input": json.loads(c.arguments_json),
                "caller": TOOL_CALLER,
            }
            for c in plan.tool_calls
        ]
        return self._message(plan, content, done=True)

    def _blocks_events(self, plan: ReplyPlan) -> list[tuple[str, JSONValue]]:
        events: list[tuple[str, JSONValue]] = []
        index = 0
        if plan.text:
            events.append(
                (
                    "content_block_start",
                    {"index": index, "content_block": {"type": "text", "text": ""}},
                )
            )
            events += [
                (
                    "content_block_delta",
                    {"index": index, "delta": {"type": "text_delta", "text": p}},
                )
                for p in text_pieces(plan.text)
            ]
            events.append(("content_block_stop", {"index": index}))
            index += 1
        for call in plan.tool_calls:
            block: JSONValue = {
                "type": "tool_use",
                "id": call.id,
                "name": call.name,
                "input": {},
                "caller": TOOL_CALLER,
            }
            events.append(("content_block_start", {"index": index, "content_block": block}))
            events.append(
                (
                    "content_block_delta",
                    {
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": call.arguments_json},
                    },
                )
            )
            events.append(("content_block_stop", {"index": index}))
            index += 1
        return events

    def stream(self, plan: ReplyPlan) -> tuple[StreamEvent, ...]:
        events: list[tuple[str, JSONValue]] = [
            ("message_start", {"message": self._message(plan, [], done=False)}),
            ("ping", {}),
            *self._blocks_events(plan),
            (
                "message_delta",
                {
                    "delta": {"stop_reason": _STOP[plan.stop], "stop_sequence": None},
                    "usage": delta_usage(*self._counts(plan), plan.usage.output_tokens),
                },
            ),
            ("message_stop", {}),
        ]
        return tuple(
            StreamEvent({"type": kind, **data} if isinstance(data, dict) else data, event=kind)
            for kind, data in events
        )

    def stream_error(self, plan: ReplyPlan, event: JSONValue) -> tuple[StreamEvent, ...]:
        return (StreamEvent(event, event="error"),)

    def error(self, status: int, kind: ErrorKind, message: str) -> JSONValue:
        return anthropic_error(_TYPES[kind], message)

    def error_headers(self, kind: ErrorKind) -> Mapping[str, str]:
        return {}

    def unknown_model(self, model: str) -> WireError:
        return WireError(
            404, self.error(404, "not_found", f"model: {model}"), detail="unknown model"
        )
