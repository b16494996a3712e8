"""Small helpers the wire formats share: reading untyped JSON, parts, schema checks."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fakes.rows import ToolSchema, compact_json, image_marker

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
