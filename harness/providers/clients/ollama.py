"""Ollama's native ``/api/chat`` (its OpenAI-compatible ``/v1`` uses ``openai_chat``).

Wire (``POST {base_url}/api/chat``, ``base_url`` like ``http://localhost:11434``):

- ``"stream": false`` is always sent: the endpoint streams by default;
- system rows stay in place as ``{"role": "system"}`` messages;
- a native call row: ``{"role": "assistant", "content": text or "", "tool_calls":
  [{"id", "function": {"name", "arguments": {...}}}]}`` (arguments as a decoded object);
  a result: ``{"role": "tool", "tool_call_id", "tool_name", "content"}``, the name taken
  from the call with the same id in the request;
- images: the wire takes base64 only (``"images": [...]`` on the message), so data URIs
  are sent there and URLs stay as their text marker;
- ``max_tokens`` -> ``options.num_predict``; tools use the OpenAI function shape;
- usage: ``prompt_eval_count`` -> input, ``eval_count`` -> output.

**Silent truncation is a reply.** Classic Ollama clips an over-window prompt from the start
and answers 200; the only trace is a ``prompt_eval_count`` below what was sent. Nothing is
raised here: the caller compares ``Usage.input_tokens`` with its own estimate. Newer
servers answer 400 ``{"error": "prompt too long; exceeded max context length by N
tokens"}``, which is classified like any other error body.

Non-streaming only: ``ProviderRequest.stream`` is ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

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
    tool_names_by_id,
)
from harness.providers.clients.common import parse_tool_call
from harness.providers.clients.images import InlineImage
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
    loads_or_none,
    require_object,
    string,
)

CHAT_PATH: Final = "/api/chat"


def build_ollama_chat_request(request: ProviderRequest) -> JsonObject:
    rows = decode_rows(request.messages)
    payload: JsonObject = {
        "model": request.model,
        "messages": ollama_messages(rows),
        "stream": False,
    }
    if request.tools:
        payload["tools"] = [openai_function_tool(spec) for spec in request.tools]
    if request.max_tokens is not None:
        payload["options"] = {"num_predict": request.max_tokens}
    return payload


def ollama_messages(rows: Sequence[WireRow]) -> list[JsonObject]:
    names = tool_names_by_id(rows)
    return [_message(row, names) for row in rows]


def _message(row: WireRow, names: dict[str, str]) -> JsonObject:
    if isinstance(row, SystemRow):
        return {"role": "system", "content": row.text}
    if isinstance(row, UserRow):
        return _with_images({"role": "user", "content": _text(row.parts)}, row.images)
    if isinstance(row, ToolRow):
        message: JsonObject = {
            "role": "tool",
            "tool_call_id": row.tool_call_id,
            "tool_name": names.get(row.tool_call_id, ""),
            "content": "\n".join([row.text, *(p.marker for p in row.images if not _inline(p))]),
        }
        return _with_images(message, row.images)
    return _assistant(row)


def _assistant(row: AssistantRow) -> JsonObject:
    message: JsonObject = {"role": "assistant", "content": row.text or ""}
    if row.tool_calls:
        message["tool_calls"] = [
            {
                "id": c.id,
                "function": {"name": c.name, "arguments": _arguments(c.arguments)},
            }
            for c in row.tool_calls
        ]
    return message


def _arguments(arguments: str) -> JsonObject:
    return as_object(loads_or_none(arguments)) or {}


def _text(parts: Sequence[Part]) -> str:
    """Text parts, with each image the wire cannot carry (a URL) left as its marker."""
    return "".join(
        p.text if isinstance(p, TextPart) else ("" if _inline(p) else p.marker) for p in parts
    )


def _inline(part: ImagePart) -> bool:
    return isinstance(part.image, InlineImage)


def _with_images(message: JsonObject, images: Sequence[ImagePart]) -> JsonObject:
    inline = [p.image.data for p in images if isinstance(p.image, InlineImage)]
    if inline:
        message["images"] = inline
    return message


def parse_ollama_chat(body: object, new_id: IdFactory) -> ProviderReply:
    response = require_object(body, "chat response")
    message = child(response, "message")
    if message is None:
        raise WireShapeError("chat response without a message")
    calls = tuple(parse_tool_call(item, new_id) for item in as_list(message.get("tool_calls")))
    return ProviderReply(
        text=string(message, "content"),
        tool_calls=calls,
        usage=Usage(
            input_tokens=integer(response, "prompt_eval_count"),
            output_tokens=integer(response, "eval_count"),
        ),
        finish_reason=string(response, "done_reason"),
        model=string(response, "model"),
    )


class OllamaClient(HttpProviderClient):
    """Native ``/api/chat`` over the injected client (see the module docstring)."""

    provider_kind = "ollama"

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        answer = await self.post_json(CHAT_PATH, build_ollama_chat_request(request))
        return self.parse_answer(answer, parse_ollama_chat)
