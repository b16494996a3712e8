"""OpenAI Responses API, non-streaming and SSE streaming.

Wire (``POST {base_url}/responses``, ``base_url`` with its ``/v1``):

- every row is an input item; system, user and assistant text rows are
  ``{"type": "message", "role", "content"}`` (user content with images:
  ``[{"type": "input_text"}, {"type": "input_image", "image_url", "detail": "auto"}]``);
- a native call row is its text message (when it has text) followed by one
  ``{"type": "function_call", "call_id", "name", "arguments"}`` per call; a result is
  ``{"type": "function_call_output", "call_id", "output"}``; result images follow the run
  of outputs as one user message;
- tools: ``{"type": "function", "name", "description", "parameters"}``;
- reply: ``output`` items (``message`` -> text, ``function_call`` -> tool call);
  ``finish_reason`` is ``incomplete_details.reason`` for an incomplete response, else
  ``status``; usage ``input_tokens`` includes ``input_tokens_details.cached_tokens``.

Streaming: ``response.completed`` / ``response.incomplete`` carry the whole response, which
is parsed as above (items from ``response.output_item.done`` fill in when it has no output).
An in-request compaction streams its ``compaction`` item as an output item like any other
(``response.output_item.added``/``.done``, then in the terminal response's ``output``), so it
is reported and kept exactly as in a JSON answer.
An ``error`` event or ``response.failed`` is raised as a classified error on the event's
data (status ``None``); a stream that ends without a terminal event is a protocol error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from harness.providers.clients.canonical import (
    AssistantRow,
    ImagePart,
    Part,
    SystemRow,
    TextPart,
    ToolRow,
    UserRow,
    WireRow,
    decode_rows,
)
from harness.providers.clients.context_management import responses_edits
from harness.providers.clients.images import image_uri
from harness.providers.clients.kept_compactions import KeptCompactions, KeptWindow
from harness.providers.clients.toolschema import parameters_schema
from harness.providers.plumbing.base import ProviderReply, ProviderRequest, Usage
from harness.providers.plumbing.sse import SseEvent
from harness.providers.plumbing.transport import HttpProviderClient, IdFactory
from harness.providers.plumbing.wirejson import (
    JsonObject,
    WireShapeError,
    as_list,
    as_object,
    child,
    dumps,
    integer,
    require_object,
    string,
)
from harness.runtime.messages import ChatMessage, ToolCall

RESPONSES_PATH = "/responses"
COMPACT_PATH = "/responses/compact"


@dataclass(frozen=True, slots=True)
class CompactedWindow:
    """What ``/responses/compact`` answered: the window that replaces the input, and usage."""

    output: tuple[JsonObject, ...]
    usage: Usage


_TERMINAL_EVENTS = frozenset({"response.completed", "response.incomplete"})


def build_responses_request(request: ProviderRequest) -> JsonObject:
    payload: JsonObject = {"model": request.model, "input": responses_input(request.messages)}
    if request.tools:
        payload["tools"] = [
            {
                "type": "function",
                "name": spec.name,
                "description": spec.description,
                "parameters": parameters_schema(spec),
            }
            for spec in request.tools
        ]
    if request.max_tokens is not None:
        payload["max_output_tokens"] = request.max_tokens
    if request.stream:
        payload["stream"] = True
    return payload


def responses_input(messages: Sequence[ChatMessage]) -> list[JsonObject]:
    items: list[JsonObject] = []
    pending: list[ImagePart] = []
    for row in decode_rows(messages):
        if pending and not isinstance(row, ToolRow):
            items.append(_message("user", list(pending)))
            pending = []
        items.extend(_items(row))
        if isinstance(row, ToolRow):
            pending.extend(row.images)
    if pending:
        items.append(_message("user", list(pending)))
    return items


def _items(row: WireRow) -> list[JsonObject]:
    if isinstance(row, SystemRow):
        return [_message("system", [TextPart(row.text)])]
    if isinstance(row, UserRow):
        return [_message("user", list(row.parts))]
    if isinstance(row, ToolRow):
        return [{"type": "function_call_output", "call_id": row.tool_call_id, "output": row.text}]
    return _assistant_items(row)


def _assistant_items(row: AssistantRow) -> list[JsonObject]:
    items: list[JsonObject] = []
    if row.text is not None and (row.text or not row.tool_calls):
        items.append(_message("assistant", [TextPart(row.text)]))
    items.extend(
        {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments}
        for c in row.tool_calls
    )
    return items


def _message(role: str, parts: Sequence[Part]) -> JsonObject:
    if all(isinstance(p, TextPart) for p in parts):
        content: object = "".join(p.text for p in parts if isinstance(p, TextPart))
    else:
        content = [_input_part(p) for p in parts]
    return {"type": "message", "role": role, "content": content}


def _input_part(part: Part) -> JsonObject:
    if isinstance(part, TextPart):
        return {"type": "input_text", "text": part.text}
    return {"type": "input_image", "image_url": image_uri(part.image), "detail": "auto"}


def parse_response(
    body: object, new_id: IdFactory, extra_items: Sequence[object] = ()
) -> ProviderReply:
    """Parse a Responses object; ``extra_items`` stand in for an empty ``output``."""
    response = require_object(body, "response")
    if not isinstance(response.get("output"), list):
        raise WireShapeError("response without an output array")
    output = as_list(response["output"]) or list(extra_items)
    texts: list[str] = []
    calls: list[ToolCall] = []
    for item in output:
        obj = require_object(item, "output item")
        kind = string(obj, "type")
        if kind == "message":
            texts.extend(_output_texts(obj))
        elif kind == "function_call":
            calls.append(_parse_call(obj, new_id))
    reason = string(child(response, "incomplete_details"), "reason")
    return ProviderReply(
        text="".join(texts) if texts else None,
        tool_calls=tuple(calls),
        usage=_usage(child(response, "usage")),
        finish_reason=reason or string(response, "status"),
        model=string(response, "model"),
    )


def _output_texts(message: JsonObject) -> list[str]:
    parts = (as_object(part) for part in as_list(message.get("content")))
    return [
        text
        for part in parts
        if string(part, "type") == "output_text" and (text := string(part, "text")) is not None
    ]


def _parse_call(item: JsonObject, new_id: IdFactory) -> ToolCall:
    name = string(item, "name")
    if name is None:
        raise WireShapeError("function_call item without a name")
    arguments = item.get("arguments")
    text = arguments if isinstance(arguments, str) else dumps(arguments or {})
    return ToolCall(string(item, "call_id") or string(item, "id") or new_id(), name, text)


def _usage(usage: JsonObject | None) -> Usage:
    if usage is None:
        return Usage()
    return Usage(
        input_tokens=integer(usage, "input_tokens"),
        output_tokens=integer(usage, "output_tokens"),
        cache_read_input_tokens=integer(child(usage, "input_tokens_details"), "cached_tokens"),
    )


class _ResponsesStream:
    """Accumulates one Responses event stream; raises on in-stream errors."""

    def __init__(self, client: OpenAIResponsesClient) -> None:
        self._client = client
        self._final: JsonObject | None = None
        self._items: list[object] = []

    def feed(self, event: SseEvent) -> None:
        data = self._client.decode_event(event)
        kind = string(data, "type") or event.event
        if kind == "error":
            raise self._client.stream_error(event.data)
        if kind == "response.failed":
            raise self._client.stream_error(event.data)
        if kind == "response.output_item.done" and data.get("item") is not None:
            self._items.append(data["item"])
        elif kind in _TERMINAL_EVENTS:
            self._final = require_object(data.get("response"), "terminal event response")

    def items(self) -> list[object]:
        final = as_list(self._final.get("output")) if self._final is not None else []
        return final or self._items

    def finish(self) -> ProviderReply:
        if self._final is None:
            raise self._client.stream_incomplete("response.completed")
        try:
            return parse_response(self._final, self._client.new_id, self._items)
        except WireShapeError as exc:
            raise self._client.protocol_error(None, dumps(self._final), str(exc)) from exc


class OpenAIResponsesClient(HttpProviderClient):
    """Responses API over the injected client; streams when ``request.stream`` is set."""

    provider_kind = "openai-responses"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.kept_compactions = KeptCompactions()

    def _compacts(self) -> bool:
        return (
            self.provider_context is not None
            and self.provider_context.compact_threshold is not None
        )

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        payload = build_responses_request(request)
        if self.provider_context is not None:
            payload.update(self.provider_context.responses_fields())
        sent = as_list(payload.get("input"))
        if self._compacts() or len(self.kept_compactions):
            # The route's own compaction item goes back (outside the reference: see
            # harness.providers.clients.kept_compactions) so the provider does not compact again.
            payload["input"] = self.kept_compactions.resend_items(sent)
        if not request.stream:
            answer = await self.post_json(RESPONSES_PATH, payload)
            reply = self.parse_answer(answer, parse_response)
            value = as_object(answer.value)
            return self._edited(reply, as_list(value.get("output")) if value else [], sent)
        stream = _ResponsesStream(self)
        await self.post_sse(RESPONSES_PATH, payload, stream.feed)
        return self._edited(stream.finish(), stream.items(), sent)

    async def compact(self, request: ProviderRequest) -> CompactedWindow:
        """``POST /responses/compact`` with ``request``'s input (not a generation call) as
        the route sends it: a window kept from an earlier compaction goes in place of what
        it summarised (the compaction guide passes compaction items back in), so the
        endpoint reads the compacted request, not the whole history. The window it answers
        is kept, anchored to the whole input, with the rows it replaces and the tokens the
        pass wrote, and sent in its place by later requests
        (``harness.providers.clients.kept_compactions``)."""
        full = build_responses_request(request)
        sent = as_list(full.get("input"))
        read = self.kept_compactions.resend_items(sent)
        answer = await self.post_json(COMPACT_PATH, {"model": request.model, "input": read})
        value = as_object(answer.value)
        output = as_list(value.get("output")) if value is not None else None
        window = [found for item in output or [] if (found := as_object(item)) is not None]
        if value is None or output is None or len(window) != len(output):
            raise self.protocol_error(answer.status, dumps(answer.value), "no compacted output")
        usage = _usage(child(value, "usage"))
        self.kept_compactions.keep_window(
            sent, window, rows=len(request.messages), written_tokens=usage.output_tokens
        )
        return CompactedWindow(tuple(window), usage)

    def kept_window(self, request: ProviderRequest) -> KeptWindow | None:
        """The kept window a request with ``request``'s rows would send in place of its
        first rows (``None``: the whole input goes as it is)."""
        sent = as_list(build_responses_request(request).get("input"))
        return self.kept_compactions.kept_for(sent)

    def _edited(
        self, reply: ProviderReply, output: list[object], sent: list[object]
    ) -> ProviderReply:
        items = [found for item in output if (found := as_object(item)) is not None]
        if self._compacts():
            self.kept_compactions.keep(sent, items)
        edits = responses_edits(items, self.provider_context)
        return replace(reply, provider_edits=edits) if edits else reply
