"""Typed access to decoded JSON, and the one JSON encoder every client sends with.

Under ``mypy --strict`` a decoded body is ``object`` until checked; these helpers do the
checking once, so the wire modules read like the wire formats. ``WireShapeError`` is what a
parser raises when a body decodes but does not have the shape its format promises; the
client turns it into a ``ProviderProtocolError`` that carries the body.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TypeAlias

import orjson

from harness.runtime.errors import HarnessError

JsonObject: TypeAlias = dict[str, object]

# Beyond 64 bits needs 19 digits (or 20). Spelled out: ``[0-9]{19}`` scans ~3x slower.
_LONG_DIGITS = re.compile(rb"[0-9]" * 19)


class WireShapeError(HarnessError, ValueError):
    """A decoded body lacks a field its wire format requires."""


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
"""Built once: ``json.dumps`` with options builds a new encoder on every call."""


def dumps(value: object) -> str:
    """Compact JSON, UTF-8 left unescaped, NaN refused (the standard library's encoder)."""
    return _ENCODER.encode(value)


def encode_body(value: object) -> bytes:
    """A request body: compact UTF-8 JSON, as ``dumps`` writes it, encoded by orjson (the
    stdlib encoder costs more per request than the rest of the agent). What orjson refuses
    (a lone surrogate, an integer beyond 64 bits) goes through ``dumps``, so it fails or
    succeeds as it always did. Unlike ``dumps``, a NaN or infinite float is sent as
    ``null`` rather than refused: no payload field carries a float the runtime computed."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return dumps(value).encode("utf-8")


def decode_body(raw: bytes, text: Callable[[], str]) -> object:
    """Decode a UTF-8 JSON body with orjson; what orjson refuses (``NaN``, an escaped lone
    surrogate, invalid JSON) is decoded by ``loads`` on ``text()``, so the value accepted
    and the error raised are the standard library's. So is a body with a run of 19 digits:
    orjson would turn an integer beyond 64 bits into a float."""
    if _LONG_DIGITS.search(raw):
        return loads(text())
    try:
        value: object = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return loads(text())
    return value


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
