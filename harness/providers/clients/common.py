"""The OpenAI family's shapes that several clients send or read (Chat Completions, Cohere v2,
Ollama's native chat): a client imports them from here, never from a sibling client."""

from __future__ import annotations

from collections.abc import Sequence

from harness.providers.clients.canonical import ImagePart, Part, TextPart
from harness.providers.clients.images import image_uri
from harness.providers.plumbing.transport import IdFactory
from harness.providers.plumbing.wirejson import (
    JsonObject,
    WireShapeError,
    dumps,
    require_object,
    string,
)
from harness.runtime.messages import ToolCall


def image_url_part(part: ImagePart) -> JsonObject:
    return {"type": "image_url", "image_url": {"url": image_uri(part.image)}}


def user_content(parts: Sequence[Part]) -> str | list[JsonObject]:
    """Plain text when there is no image; content parts otherwise (also used by Cohere)."""
    if all(isinstance(p, TextPart) for p in parts):
        return "".join(p.text for p in parts if isinstance(p, TextPart))
    return [
        {"type": "text", "text": p.text} if isinstance(p, TextPart) else image_url_part(p)
        for p in parts
    ]


def parse_tool_call(item: object, new_id: IdFactory) -> ToolCall:
    """``{"id", "function": {"name", "arguments"}}`` (OpenAI, Cohere, Ollama native, whose
    arguments arrive as an object and are re-encoded as JSON text)."""
    call = require_object(item, "tool call")
    function = require_object(call.get("function"), "tool call function")
    name = string(function, "name")
    if name is None:
        raise WireShapeError("tool call without a function name")
    arguments = function.get("arguments")
    text = arguments if isinstance(arguments, str) else dumps(arguments or {})
    return ToolCall(string(call, "id") or new_id(), name, text)
