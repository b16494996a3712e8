"""Small helpers the wire formats share: reading untyped JSON, parts, schema checks, and the
OpenAI family's message, tool and error shapes (a wire imports these from here, never from a
sibling wire)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from fakes.rows import (
    Attachment,
    JSONValue,
    Row,
    ToolSchema,
    WireToolCall,
    compact_json,
    image_marker,
    tool_call_row,
    tool_result_row,
)
from fakes.wire.base import ErrorKind

ErrorBody = Callable[[str], Any]


class Invalid(ValueError):
    """A malformed request; the wire format turns it into its own 400 body."""


def obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid(f"{where} must be an object")
    return value


def arr(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise Invalid(f"{where} must be an array")
    return value


def objects(value: Any, where: str) -> list[dict[str, Any]]:
    """An array of objects (``None`` reads as empty)."""
    if value is None:
        return []
    return [obj(item, f"{where}[{n}]") for n, item in enumerate(arr(value, where))]


def string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise Invalid(f"{where} must be a string")
    return value


def required(body: Mapping[str, Any], key: str) -> Any:
    if key not in body or body[key] is None:
        raise Invalid(f"Missing required parameter: '{key}'.")
    return body[key]


def optional_int(body: Mapping[str, Any], *keys: str) -> int | None:
    """The first of ``keys`` present, as an int (``max_tokens``, ``max_completion_tokens``...)."""
    for key in keys:
        value = body.get(key)
        if value is not None:
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise Invalid(f"'{key}' must be a non-negative integer")
            return value
    return None


def schema(name: Any, description: Any, parameters: Any, where: str) -> ToolSchema:
    params = parameters if parameters is not None else {}
    return ToolSchema(
        string(name, f"{where}.name"),
        description if isinstance(description, str) else "",
        obj(params, f"{where}.parameters"),
    )


def arguments_text(value: Any) -> str:
    """Tool-call arguments as JSON text: strings are kept verbatim, objects compacted."""
    return value if isinstance(value, str) else compact_json(value)


def join_user_parts(texts_and_images: list[tuple[str, str]]) -> str:
    """Text parts verbatim and images as ``[IMAGE:<target>]`` markers, in order, unjoined."""
    return "".join(
        value if kind == "text" else image_marker(value) for kind, value in texts_and_images
    )


def data_uri(mime: str, data: str) -> str:
    return f"data:{mime};base64,{data}"


# The OpenAI family's shapes, shared by the wires that speak them (Chat Completions,
# Responses, Cohere v2's messages, Ollama's tools) and the simulations that stream text.

_ERROR_TYPES: dict[ErrorKind, str] = {
    "invalid_request": "invalid_request_error",
    "not_found": "invalid_request_error",
    "rate_limit": "requests",
    "server_error": "server_error",
    "overloaded": "server_error",
}
_WORDS = re.compile(r"\S+\s*|\s+")


def openai_error_body(message: str, kind: str, param: str | None, code: str | None) -> JSONValue:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def _parts(content: Any, where: str) -> list[tuple[str, str]]:
    """Content as ``(kind, value)`` pairs: ``("text", ...)`` or ``("image", url)``."""
    if content is None:
        return []
    if isinstance(content, str):
        return [("text", content)]
    out: list[tuple[str, str]] = []
    for n, part in enumerate(objects(content, where)):
        if part.get("type") in ("text", "input_text", "output_text"):
            out.append(("text", string(part.get("text"), f"{where}[{n}].text")))
        elif part.get("type") == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
            out.append(("image", string(url, f"{where}[{n}].image_url.url")))
    return out


def content_text(content: Any, where: str) -> str:
    return "".join(value for kind, value in _parts(content, where) if kind == "text")


def _tool_calls(calls: list[Any], where: str) -> list[WireToolCall]:
    out = []
    for n, call in enumerate(objects(calls, where)):
        function = obj(call.get("function"), f"{where}[{n}].function")
        out.append(
            WireToolCall(
                string(call.get("id"), f"{where}[{n}].id"),
                string(function.get("name"), f"{where}[{n}].function.name"),
                arguments_text(function.get("arguments", "")),
                call.get("extra_content"),
            )
        )
    return out


def message_row(message: dict[str, Any], where: str) -> Row:
    role = message.get("role")
    content = message.get("content")
    if role in ("system", "developer"):
        return Row("system", content_text(content, f"{where}.content"))
    if role == "user":
        return Row("user", join_user_parts(_parts(content, f"{where}.content")))
    if role == "assistant":
        calls = message.get("tool_calls")
        if calls:
            wire_calls = _tool_calls(arr(calls, f"{where}.tool_calls"), f"{where}.tool_calls")
            text = content_text(content, f"{where}.content") if content is not None else None
            reasoning = message.get("reasoning_content")
            return tool_call_row(
                text, wire_calls, reasoning if isinstance(reasoning, str) else None
            )
        return Row("assistant", content_text(content, f"{where}.content"))
    if role == "tool":
        parts = _parts(content, f"{where}.content")
        text = "".join(v for k, v in parts if k == "text")
        images = [Attachment("image", v) for k, v in parts if k == "image"]
        call_id = string(message.get("tool_call_id"), f"{where}.tool_call_id")
        return tool_result_row(call_id, text, images)
    raise Invalid(
        f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', "
        "'user', 'tool', and 'developer'."
    )


def tool_schemas(tools: Any) -> tuple[ToolSchema, ...]:
    out = []
    for n, tool in enumerate(objects(tools, "tools")):
        fn = obj(tool.get("function"), f"tools[{n}].function")
        out.append(
            schema(fn.get("name"), fn.get("description"), fn.get("parameters"), f"tools[{n}]")
        )
    return tuple(out)


def cache_key_option(body: dict[str, Any]) -> dict[str, object]:
    """OpenAI's ``prompt_cache_key`` (Chat Completions and Responses), when a string."""
    key = body.get("prompt_cache_key")
    if key is None:
        return {}
    return {"prompt_cache_key": string(key, "prompt_cache_key")}


def text_pieces(text: str) -> list[str]:
    return _WORDS.findall(text)


def openai_error(kind: ErrorKind, message: str) -> JSONValue:
    """OpenAI's error body for one kind of failure (Chat Completions and Responses)."""
    code = {"not_found": "model_not_found", "rate_limit": "rate_limit_exceeded"}.get(kind)
    return openai_error_body(message, _ERROR_TYPES[kind], None, code)
