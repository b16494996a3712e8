"""Anthropic Messages API, non-streaming and SSE streaming.

Wire (``POST {base_url}/v1/messages``, ``base_url`` like ``https://api.anthropic.com``;
headers ``x-api-key`` and ``anthropic-version``):

- every system row, wherever it sits, goes to the top-level ``system`` as one text block
  per row, in order (the Messages API has no system role in ``messages``);
- a native call row is an assistant message with a ``text`` block (when it has text) and
  one ``{"type": "tool_use", "id", "name", "input"}`` per call; ``input`` is the decoded
  ``arguments`` object (arguments that are not a JSON object are sent as ``{}``, the
  reference's fallback);
- results are ``{"type": "tool_result", "tool_use_id", "content"}`` blocks in a user
  message; images of a current-turn result go inside its ``content`` (text then images);
- consecutive messages of one role are merged into one, so all results of a parallel call
  sit in the one user message right after the ``tool_use`` blocks, as the API requires;
- images: ``{"type": "image", "source": {"type": "base64", "media_type", "data"}}`` for
  data URIs, ``{"source": {"type": "url", "url"}}`` for URLs;
- ``max_tokens`` is required by the API: ``DEFAULT_MAX_TOKENS`` when the request has none.

**Usage normalisation.** Anthropic's ``input_tokens`` *excludes* cached input, so
``Usage.input_tokens = input_tokens + cache_read_input_tokens +
cache_creation_input_tokens``: the whole context the model saw, comparable with every other
provider's input count. The two cache counts are also kept separately. After a server-side
compaction the top-level usage is the answer's own step only; the compaction step's counts
(``usage.iterations``) go on the compaction's ``ProviderEdit``, not into ``Usage``.

**Cache breakpoints** (``AnthropicClient.cache_breakpoints``, default ``none``): ``system``
marks the last system block ``cache_control: {"type": "ephemeral"}``; ``system_and_last``
also marks the last block of the last message, so each request reads the prefix the
previous one wrote (the API caches only up to marked blocks).

``stop_reason: "model_context_window_exceeded"`` (HTTP 200) is a reply, not an error: the
generation was cut at the window (see ``classify.is_context_window_stop``).

Streaming: usage starts in ``message_start`` and is updated by ``message_delta``; text and
``tool_use`` blocks are assembled from their deltas; an ``error`` event is raised as a
classified error on its data (status ``None``); no ``message_stop`` is a protocol error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final, Literal, TypeAlias

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
from harness.providers.clients.context_management import (
    add_anthropic_fields,
    anthropic_beta_header,
    anthropic_edits,
)
from harness.providers.clients.images import InlineImage
from harness.providers.clients.kept_compactions import KeptCompactions
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
    loads_or_none,
    require_object,
    string,
    sum_present,
)
from harness.runtime.messages import ToolCall

MESSAGES_PATH: Final = "/v1/messages"
ANTHROPIC_VERSION: Final = "2023-06-01"
DEFAULT_MAX_TOKENS: Final = 4096
CacheBreakpoints: TypeAlias = Literal["none", "system", "system_and_last"]
CACHE_BREAKPOINTS: Final[tuple[CacheBreakpoints, ...]] = ("none", "system", "system_and_last")
DEFAULT_CACHE_BREAKPOINTS: Final[CacheBreakpoints] = "none"
EPHEMERAL: Final = {"type": "ephemeral"}


def build_messages_request(
    request: ProviderRequest, cache_breakpoints: CacheBreakpoints = DEFAULT_CACHE_BREAKPOINTS
) -> JsonObject:
    rows = decode_rows(request.messages)
    payload: JsonObject = {
        "model": request.model,
        "max_tokens": request.max_tokens if request.max_tokens is not None else DEFAULT_MAX_TOKENS,
    }
    system = [{"type": "text", "text": row.text} for row in rows if isinstance(row, SystemRow)]
    if system:
        payload["system"] = system
    payload["messages"] = anthropic_messages(rows)
    if request.tools:
        payload["tools"] = [
            {"name": s.name, "description": s.description, "input_schema": parameters_schema(s)}
            for s in request.tools
        ]
    if request.stream:
        payload["stream"] = True
    if cache_breakpoints != "none":
        _mark(payload, last_message=cache_breakpoints == "system_and_last")
    return payload


def _mark(payload: JsonObject, *, last_message: bool) -> None:
    """Place the cache breakpoints (module doc) on blocks built for this request only."""
    system = payload.get("system")
    if isinstance(system, list) and system:
        system[-1] = {**system[-1], "cache_control": dict(EPHEMERAL)}
    messages = payload.get("messages")
    if last_message and isinstance(messages, list) and messages:
        content = messages[-1]["content"]
        if isinstance(content, list) and content:
            content[-1] = {**content[-1], "cache_control": dict(EPHEMERAL)}


def anthropic_messages(rows: Sequence[WireRow]) -> list[JsonObject]:
    messages: list[JsonObject] = []
    for row in rows:
        if isinstance(row, SystemRow):
            continue
        role = "assistant" if isinstance(row, AssistantRow) else "user"
        blocks = _blocks(row)
        last = messages[-1] if messages else None
        if last is not None and last["role"] == role and isinstance(last["content"], list):
            last["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})
    return messages


def _blocks(row: UserRow | AssistantRow | ToolRow) -> list[JsonObject]:
    if isinstance(row, ToolRow):
        return [_tool_result(row)]
    if isinstance(row, UserRow):
        blocks = [_part_block(p) for p in row.parts if not (isinstance(p, TextPart) and not p.text)]
    else:
        blocks = [{"type": "text", "text": row.text}] if row.text else []
        blocks.extend(_tool_use(call) for call in row.tool_calls)
    # An empty row stays an (empty) text block: the API rejects it, and it should.
    return blocks or [{"type": "text", "text": ""}]


def _tool_use(call: ToolCall) -> JsonObject:
    arguments = as_object(loads_or_none(call.arguments))
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": arguments or {}}


def _tool_result(row: ToolRow) -> JsonObject:
    content: object = row.text
    if row.images:
        text = [{"type": "text", "text": row.text}] if row.text else []
        content = text + [_image_block(p) for p in row.images]
    return {"type": "tool_result", "tool_use_id": row.tool_call_id, "content": content}


def _part_block(part: Part) -> JsonObject:
    return {"type": "text", "text": part.text} if isinstance(part, TextPart) else _image_block(part)


def _image_block(part: ImagePart) -> JsonObject:
    image = part.image
    if isinstance(image, InlineImage):
        source: JsonObject = {"type": "base64", "media_type": image.media_type, "data": image.data}
    else:
        source = {"type": "url", "url": image.url}
    return {"type": "image", "source": source}


def anthropic_usage(usage: JsonObject | None) -> Usage:
    """Whole-context input: ``input_tokens`` + cache reads + cache writes (module doc)."""
    if usage is None:
        return Usage()
    read = integer(usage, "cache_read_input_tokens")
    created = integer(usage, "cache_creation_input_tokens")
    return Usage(
        input_tokens=sum_present(integer(usage, "input_tokens"), read, created),
        output_tokens=integer(usage, "output_tokens"),
        cache_read_input_tokens=read,
        cache_creation_input_tokens=created,
    )


def parse_message(body: object, new_id: IdFactory) -> ProviderReply:
    message = require_object(body, "message")
    if not isinstance(message.get("content"), list):
        raise WireShapeError("message without a content array")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for item in as_list(message["content"]):
        block = require_object(item, "content block")
        kind = string(block, "type")
        if kind == "text":
            texts.append(string(block, "text") or "")
        elif kind == "tool_use":
            calls.append(_parse_tool_use(block, dumps(block.get("input") or {}), new_id))
    return ProviderReply(
        text="".join(texts) if texts else None,
        tool_calls=tuple(calls),
        usage=anthropic_usage(child(message, "usage")),
        finish_reason=string(message, "stop_reason"),
        model=string(message, "model"),
    )


def _parse_tool_use(block: JsonObject, arguments: str, new_id: IdFactory) -> ToolCall:
    name = string(block, "name")
    if name is None:
        raise WireShapeError("tool_use block without a name")
    return ToolCall(string(block, "id") or new_id(), name, arguments)


class _MessagesStream:
    """Assembles one Messages event stream into a reply."""

    def __init__(self, client: AnthropicClient) -> None:
        self._client = client
        self.usage: JsonObject = {}  # message_start's, updated by each message_delta
        self._blocks: dict[int, JsonObject] = {}
        self._parts: dict[int, list[str]] = {}
        self._stop_reason: str | None = None
        self._model: str | None = None
        self._done = False
        self.reported: JsonObject | None = None  # the delta that reports context edits

    def blocks(self) -> list[JsonObject]:
        return [self._blocks[index] for index in sorted(self._blocks)]

    def feed(self, event: SseEvent) -> None:
        data = self._client.decode_event(event)
        kind = string(data, "type") or event.event
        if kind == "error":
            raise self._client.stream_error(event.data)
        if kind == "message_start":
            message = child(data, "message")
            self._model = string(message, "model")
            self.usage.update(child(message, "usage") or {})
        elif kind == "content_block_start":
            index = integer(data, "index") or 0
            self._blocks[index] = require_object(data.get("content_block"), "content_block")
            self._parts[index] = []
        elif kind == "content_block_delta":
            self._delta(integer(data, "index") or 0, child(data, "delta"))
        elif kind == "message_delta":
            self._stop_reason = string(child(data, "delta"), "stop_reason") or self._stop_reason
            self.reported = data if "context_management" in data else self.reported
            self.usage.update(child(data, "usage") or {})
        elif kind == "message_stop":
            self._done = True

    def _delta(self, index: int, delta: JsonObject | None) -> None:
        block = self._blocks.get(index)
        if string(delta, "type") == "compaction_delta" and block is not None:
            # the summary streams in compaction_delta events after a start with content
            # null (pydantic-ai's recorded test_anthropic_compaction_usage_with_cache_streaming)
            block["content"] = (string(block, "content") or "") + (string(delta, "content") or "")
            return
        piece = string(delta, "text")
        if piece is None:
            piece = string(delta, "partial_json")
        if piece is not None and index in self._parts:
            self._parts[index].append(piece)

    def finish(self) -> ProviderReply:
        if not self._done:
            raise self._client.stream_incomplete("message_stop")
        texts: list[str] = []
        calls: list[ToolCall] = []
        for index in sorted(self._blocks):
            block, joined = self._blocks[index], "".join(self._parts[index])
            if string(block, "type") == "text":
                texts.append((string(block, "text") or "") + joined)
            elif string(block, "type") == "tool_use":
                arguments = joined or dumps(block.get("input") or {})
                calls.append(_parse_tool_use(block, arguments, self._client.new_id))
        return ProviderReply(
            text="".join(texts) if texts else None,
            tool_calls=tuple(calls),
            usage=anthropic_usage(self.usage),
            finish_reason=self._stop_reason,
            model=self._model,
        )


class AnthropicClient(HttpProviderClient):
    """Messages API over the injected client; streams when ``request.stream`` is set."""

    provider_kind = "anthropic"

    def __init__(
        self, *, cache_breakpoints: CacheBreakpoints = DEFAULT_CACHE_BREAKPOINTS, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.cache_breakpoints = cache_breakpoints
        self.kept_compactions = KeptCompactions()

    def auth_headers(self) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        headers.update(anthropic_beta_header(self.provider_context))
        return headers

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        payload = build_messages_request(request, self.cache_breakpoints)
        add_anthropic_fields(payload, self.provider_context)
        sent = as_list(payload.get("messages"))
        if self._compacts():
            # The route's own compaction blocks go back (outside the reference: see
            # harness.providers.clients.kept_compactions) so the provider does not compact again.
            payload["messages"] = self.kept_compactions.resend(sent)
        if not request.stream:
            answer = await self.post_json(MESSAGES_PATH, payload)
            reply = self.parse_answer(answer, parse_message)
            message = as_object(answer.value)
            content = as_list(message.get("content")) if message else []
            blocks = [block for b in content if (block := as_object(b)) is not None]
            return self._edited(reply, message, blocks, sent, child(message, "usage"))
        stream = _MessagesStream(self)
        await self.post_sse(MESSAGES_PATH, payload, stream.feed)
        try:
            reply = stream.finish()
            return self._edited(reply, stream.reported, stream.blocks(), sent, stream.usage)
        except WireShapeError as exc:
            raise self.protocol_error(None, "", str(exc)) from exc

    def _compacts(self) -> bool:
        return self.provider_context is not None and self.provider_context.compact is not None

    def _edited(
        self,
        reply: ProviderReply,
        reported: JsonObject | None,
        blocks: list[JsonObject],
        sent: list[object],
        usage: JsonObject | None,
    ) -> ProviderReply:
        if self._compacts():
            self.kept_compactions.keep(sent, blocks)
        edits = anthropic_edits(reported, blocks, self.provider_context, usage)
        return replace(reply, provider_edits=edits) if edits else reply
