"""Typed access to decoded JSON, and the one JSON encoder every client sends with.

Under ``mypy --strict`` a decoded body is ``object`` until checked; these helpers do the
checking once, so the wire modules read like the wire formats. ``WireShapeError`` is what a
parser raises when a body decodes but does not have the shape its format promises; the
client turns it into a ``ProviderProtocolError`` that carries the body.
"""

from __future__ import annotations

import json
from typing import TypeAlias

JsonObject: TypeAlias = dict[str, object]


class WireShapeError(ValueError):
    """A decoded body lacks a field its wire format requires."""


def dumps(value: object) -> str:
    """Compact JSON, UTF-8 left unescaped: the exact bytes each client sends."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def loads(text: str) -> object:
    """Decode JSON; raise ``WireShapeError`` on malformed text."""
    try:
        value: object = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise WireShapeError(f"malformed JSON: {exc}") from exc
    return value


def loads_or_none(text: str) -> object | None:
    """Decode JSON, or ``None`` when the text is not JSON (error bodies may be plain text)."""
    try:
        value: object = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value


def as_object(value: object) -> JsonObject | None:
    if isinstance(value, dict):
        return {str(key): item for key, item in value.items()}
    return None


def as_list(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []


def child(mapping: JsonObject | None, key: str) -> JsonObject | None:
    """``mapping[key]`` when it is an object, else ``None``."""
    return None if mapping is None else as_object(mapping.get(key))


def string(mapping: JsonObject | None, key: str) -> str | None:
    if mapping is None:
        return None
    value = mapping.get(key)
    return value if isinstance(value, str) else None


def integer(mapping: JsonObject | None, key: str) -> int | None:
    """An integer field; integral floats count (some providers write ``12.0``), bools do not."""
    if mapping is None:
        return None
    value = mapping.get(key)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def require_object(value: object, what: str) -> JsonObject:
    found = as_object(value)
    if found is None:
        raise WireShapeError(f"expected a JSON object for {what}")
    return found


def sum_present(*values: int | None) -> int | None:
    """Sum of the values that are present; ``None`` when none is."""
    present = [value for value in values if value is not None]
    return sum(present) if present else None
