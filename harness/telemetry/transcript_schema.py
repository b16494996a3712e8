"""The transcript line format as a JSON Schema (draft 2020-12), generated from the event
record types so that it cannot drift from what ``TranscriptWriter`` writes.

``transcript_schema()`` builds it; ``harness/telemetry/transcript.schema.json`` is the
generated copy shipped with the package for other tools (docs/reports.md), and
``tests/telemetry/test_transcript_schema.py`` fails when the two differ. Regenerate with
``python -m harness.telemetry.transcript_schema``.

The schema accepts what ``trimscope report`` reads: each field typed as its event declares
(a float field takes any JSON number, an int field an integer), the fields with a default
optional, no other key. What no JSON Schema can say is left to the reader: NaN and
±Infinity are not JSON at all, and only the last line of a file may be incomplete.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import sys
import types
import typing
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from harness.atomic import write_text_atomic
from harness.events import EVENT_KINDS, Event
from harness.telemetry.transcript import INTERRUPTED_KIND, KIND_KEY

SCHEMA_PATH: Final = Path(__file__).with_name("transcript.schema.json")
SCHEMA_ID: Final = "urn:trimscope:transcript-line"

_COMMON: Final = {
    "session_id": "The session the event belongs to.",
    "turn_id": "The turn it belongs to; null outside a turn (e.g. a seeding trim).",
    "at": "Seconds from the run's clock (a fake clock makes transcripts reproducible).",
}
_SCALARS: Final[dict[object, str]] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def type_schema(hint: object) -> dict[str, Any]:
    """The JSON Schema of one field type (the types event records use)."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        options = [type_schema(option) for option in typing.get_args(hint)]
        if all(set(o) == {"type"} for o in options):
            return {"type": [o["type"] for o in options]}
        enums = [o for o in options if "enum" in o]
        if len(enums) == 1 and all(o == {"type": "null"} for o in options if "enum" not in o):
            return {"enum": [*enums[0]["enum"], None]}
        return {"anyOf": options}
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return {"enum": [member.value for member in hint]}
    if typing.get_origin(hint) is tuple:
        (item, *_) = typing.get_args(hint)
        return {"type": "array", "items": type_schema(item)}
    raise TypeError(f"no JSON Schema for a field of type {hint!r}")


def _description(kind: type[Event]) -> str:
    doc = inspect.getdoc(kind) or ""
    # A dataclass without a docstring gets its signature as one: not a description.
    if not doc or doc.startswith(f"{kind.__name__}("):
        return f"The {kind.__name__} event."
    return " ".join(doc.split())


def event_schema(kind: type[Event]) -> dict[str, Any]:
    """One event kind's line: ``kind`` and every field, those without a default required."""
    hints = typing.get_type_hints(kind)
    properties: dict[str, Any] = {KIND_KEY: {"const": kind.__name__}}
    required = [KIND_KEY]
    for field in dataclasses.fields(kind):
        schema = type_schema(hints[field.name])
        if field.name in _COMMON:
            schema["description"] = _COMMON[field.name]
        properties[field.name] = schema
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            required.append(field.name)
    return {
        "description": _description(kind),
        "type": "object",
        "required": required,
        "additionalProperties": False,
        "properties": properties,
    }


def _interrupted_schema() -> dict[str, Any]:
    return {
        "description": (
            "Not an event: the line a run stopped by a signal ends each unfinished session "
            "with (session_id null when nothing was recorded yet). The report shows the "
            "session as incomplete."
        ),
        "type": "object",
        "required": [KIND_KEY, "session_id", "signal"],
        "additionalProperties": False,
        "properties": {
            KIND_KEY: {"const": INTERRUPTED_KIND},
            "session_id": {"type": ["string", "null"]},
            "signal": {"type": "string", "description": "The signal's name, e.g. SIGINT."},
        },
    }


def transcript_schema() -> dict[str, Any]:
    """The schema of one transcript line (a file is such lines, one JSON object each)."""
    kinds = [kind.__name__ for kind in EVENT_KINDS]
    definitions = {kind.__name__: event_schema(kind) for kind in EVENT_KINDS}
    definitions[INTERRUPTED_KIND] = _interrupted_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "$comment": (
            "Generated from harness/events/kinds.py by "
            "`python -m harness.telemetry.transcript_schema`; do not edit by hand."
        ),
        "title": "trimscope transcript line",
        "description": (
            "One line of a transcript (JSON lines, UTF-8, one object per line, each ended "
            "by a newline): an event, named by its kind, with its fields, or an "
            "'interrupted' mark. docs/reports.md describes the format."
        ),
        "type": "object",
        "required": [KIND_KEY],
        "properties": {KIND_KEY: {"enum": [*kinds, INTERRUPTED_KIND]}},
        "allOf": [
            {
                "if": {"properties": {KIND_KEY: {"const": name}}},
                "then": {"$ref": f"#/$defs/{name}"},
            }
            for name in definitions
        ],
        "$defs": definitions,
    }


def schema_text() -> str:
    return json.dumps(transcript_schema(), indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    """Write the generated schema beside this module (the copy the package ships)."""
    write_text_atomic(SCHEMA_PATH, schema_text())
    print(SCHEMA_PATH, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
