"""OpenAI Chat Completions, and the OpenAI-compatible family that speaks it (vLLM,
llama.cpp, Ollama's ``/v1``, OpenRouter, DeepSeek, Groq, Mistral, Together, xAI, LM Studio,
Azure).

Wire (``POST {base_url}/chat/completions``; ``base_url`` includes the version segment, as
OpenAI SDKs spell it, e.g. ``https://api.openai.com/v1``):

- system rows stay in place as ``{"role": "system"}`` messages;
- native calls: ``{"role": "assistant", "content": text|null, "tool_calls": [{"id",
  "type": "function", "function": {"name", "arguments": "<JSON text>"}}]}``; results:
  ``{"role": "tool", "tool_call_id", "content"}``, one per result;
- images: user content becomes ``[{"type": "text"}, {"type": "image_url", "image_url":
  {"url"}}]`` (data URIs verbatim). Tool messages cannot carry images, so the images of a
  run of tool results follow the *whole* run as one user message: a user message between
  two results of one parallel call would orphan the second;
- usage: ``prompt_tokens`` already includes ``prompt_tokens_details.cached_tokens``
  (DeepSeek: ``prompt_cache_hit_tokens``), so ``Usage.input_tokens = prompt_tokens``.

Non-streaming only: ``ProviderRequest.stream`` is ignored (none of the catalogue's overflow
shapes for this wire arrive in-stream). Azure differs only in its ``api-key`` header.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.providers.clients.canonical import (
    ImagePart,
    SystemRow,
    ToolRow,
    UserRow,
    WireRow,
    decode_rows,
)
from harness.providers.clients.common import image_url_part, parse_tool_call, user_content
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
from harness.runtime.messages import ChatMessage, ToolCall

CHAT_COMPLETIONS_PATH = "/chat/completions"


def build_chat_request(request: ProviderRequest) -> JsonObject:
    """The exact JSON body for ``request``."""
    payload: JsonObject = {"model": request.model, "messages": chat_messages(request.messages)}
    if request.tools:
        payload["tools"] = [openai_function_tool(spec) for spec in request.tools]
    if request.max_tokens is not None:
        payload["max_tokens"] = request.max_tokens
    return payload


def chat_messages(messages: Sequence[ChatMessage]) -> list[JsonObject]:
    rows = decode_rows(messages)
    out: list[JsonObject] = []
    pending: list[ImagePart] = []
    for row in rows:
        if pending and not isinstance(row, ToolRow):
            out.append(_image_message(pending))
            pending = []
        out.append(_message(row))
        if isinstance(row, ToolRow):
            pending.extend(row.images)
    if pending:
        out.append(_image_message(pending))
    return out


def _message(row: WireRow) -> JsonObject:
    if isinstance(row, SystemRow):
        return {"role": "system", "content": row.text}
    if isinstance(row, UserRow):
        return {"role": "user", "content": user_content(row.parts)}
    if isinstance(row, ToolRow):
        return {"role": "tool", "tool_call_id": row.tool_call_id, "content": row.text}
    if not row.tool_calls:
        return {"role": "assistant", "content": row.text}
    return {
        "role": "assistant",
        "content": row.text,
        "tool_calls": [_tool_call(call) for call in row.tool_calls],
    }


def _tool_call(call: ToolCall) -> JsonObject:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    }


def _image_message(images: Sequence[ImagePart]) -> JsonObject:
    return {"role": "user", "content": [image_url_part(p) for p in images]}


def parse_chat_reply(body: object, new_id: IdFactory) -> ProviderReply:
    """Text, tool calls, finish reason, usage and model of a completion body."""
    completion = require_object(body, "chat completion")
    choice = as_object(next(iter(as_list(completion.get("choices"))), None))
    message = child(choice, "message")
    if choice is None or message is None:
        raise WireShapeError("chat completion without choices[0].message")
    calls = tuple(parse_tool_call(item, new_id) for item in as_list(message.get("tool_calls")))
    return ProviderReply(
        text=_content_text(message.get("content")),
        tool_calls=calls,
        usage=openai_usage(child(completion, "usage")),
        finish_reason=string(choice, "finish_reason"),
        model=string(completion, "model"),
    )


def _content_text(content: object) -> str | None:
    if isinstance(content, str) or content is None:
        return content
    texts = [string(as_object(part), "text") for part in as_list(content)]
    return "".join(text for text in texts if text is not None)


def openai_usage(usage: JsonObject | None) -> Usage:
    if usage is None:
        return Usage()
    cached = integer(child(usage, "prompt_tokens_details"), "cached_tokens")
    if cached is None:
        cached = integer(usage, "prompt_cache_hit_tokens")
    return Usage(
        input_tokens=integer(usage, "prompt_tokens"),
        output_tokens=integer(usage, "completion_tokens"),
        cache_read_input_tokens=cached,
    )


class OpenAIChatClient(HttpProviderClient):
    """Chat Completions over the injected client (see the module docstring for the wire)."""

    provider_kind = "openai"

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        answer = await self.post_json(CHAT_COMPLETIONS_PATH, build_chat_request(request))
        return self.parse_answer(answer, parse_chat_reply)


class AzureOpenAIChatClient(OpenAIChatClient):
    """Azure OpenAI's v1 surface (``{resource}/openai/v1``): same wire, ``api-key`` header."""

    provider_kind = "azure"

    def auth_headers(self) -> dict[str, str]:
        return {"api-key": self._api_key} if self._api_key else {}
