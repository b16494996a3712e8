"""Cohere v2 chat.

Wire (``POST {base_url}/v2/chat``, ``base_url`` like ``https://api.cohere.com``; bearer):

- system rows stay in place as ``{"role": "system"}`` messages (v2 replaced the preamble);
- a native call row: ``{"role": "assistant", "tool_plan"?: text, "tool_calls": [{"id",
  "type": "function", "function": {"name", "arguments": "<JSON text>"}}]}`` (the call's
  text goes to ``tool_plan``, where v2 expects the model's reasoning before calls); a
  result: ``{"role": "tool", "tool_call_id", "content"}``;
- images: user content parts ``{"type": "image_url", "image_url": {"url"}}``; tool
  results cannot carry images, so they follow the run of results as one user message;
- tools use the OpenAI function shape;
- reply: ``message.content[*].text``, ``message.tool_calls``, ``finish_reason``
  (``COMPLETE``, ``TOOL_CALL``, ``MAX_TOKENS``...); usage from ``usage.tokens`` (what the
  model saw, template included), else ``usage.billed_units``.

Non-streaming only: ``ProviderRequest.stream`` is ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from harness.providers.clients.canonical import (
    AssistantRow,
    ImagePart,
    SystemRow,
    ToolRow,
    UserRow,
    WireRow,
    decode_rows,
)
from harness.providers.clients.common import parse_tool_call, user_content
from harness.providers.clients.toolschema import openai_function_tool
from harness.providers.plumbing.base import ProviderReply, ProviderRequest, Usage
from harness.providers.plumbing.transport import HttpProviderClient, IdFactory
from harness.providers.plumbing.wirejson import (
    JsonObject,
    WireShapeError,
    as_list,
    as_object,
    child,
    integer,
    require_object,
    string,
)

CHAT_PATH: Final = "/v2/chat"


def build_cohere_chat_request(request: ProviderRequest) -> JsonObject:
    payload: JsonObject = {
        "model": request.model,
        "messages": cohere_messages(decode_rows(request.messages)),
    }
    if request.tools:
        payload["tools"] = [openai_function_tool(spec) for spec in request.tools]
    if request.max_tokens is not None:
        payload["max_tokens"] = request.max_tokens
    return payload


def cohere_messages(rows: Sequence[WireRow]) -> list[JsonObject]:
    out: list[JsonObject] = []
    pending: list[ImagePart] = []
    for row in rows:
        if pending and not isinstance(row, ToolRow):
            out.append({"role": "user", "content": user_content(pending)})
            pending = []
        out.append(_message(row))
        if isinstance(row, ToolRow):
            pending.extend(row.images)
    if pending:
        out.append({"role": "user", "content": user_content(pending)})
    return out


def _message(row: WireRow) -> JsonObject:
    if isinstance(row, SystemRow):
        return {"role": "system", "content": row.text}
    if isinstance(row, UserRow):
        return {"role": "user", "content": user_content(row.parts)}
    if isinstance(row, ToolRow):
        return {"role": "tool", "tool_call_id": row.tool_call_id, "content": row.text}
    return _assistant(row)


def _assistant(row: AssistantRow) -> JsonObject:
    if not row.tool_calls:
        return {"role": "assistant", "content": row.text or ""}
    message: JsonObject = {"role": "assistant"}
    if row.text:
        message["tool_plan"] = row.text
    message["tool_calls"] = [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": c.arguments},
        }
        for c in row.tool_calls
    ]
    return message


def cohere_usage(usage: JsonObject | None) -> Usage:
    counted = child(usage, "tokens") or child(usage, "billed_units")
    return Usage(
        input_tokens=integer(counted, "input_tokens"),
        output_tokens=integer(counted, "output_tokens"),
    )


def parse_cohere_chat(body: object, new_id: IdFactory) -> ProviderReply:
    response = require_object(body, "chat response")
    message = child(response, "message")
    if message is None:
        raise WireShapeError("chat response without a message")
    texts = [
        text
        for part in as_list(message.get("content"))
        if (text := string(as_object(part), "text")) is not None
    ]
    calls = tuple(parse_tool_call(item, new_id) for item in as_list(message.get("tool_calls")))
    return ProviderReply(
        text="".join(texts) if texts else None,
        tool_calls=calls,
        usage=cohere_usage(child(response, "usage")),
        finish_reason=string(response, "finish_reason"),
    )


class CohereClient(HttpProviderClient):
    """Cohere v2 chat over the injected client (see the module docstring)."""

    provider_kind = "cohere"

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        answer = await self.post_json(CHAT_PATH, build_cohere_chat_request(request))
        return self.parse_answer(answer, parse_cohere_chat)
