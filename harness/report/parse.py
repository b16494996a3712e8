"""Read transcripts for a report: every line checked, every error named ``file:line``.

The line format is ``harness.telemetry.transcript``'s (``{"kind": ..., <fields>}``). A report
is stricter than ``read_transcript`` in one way and equal in another:

- every field is checked against the event's declared type (a string where a token count
  belongs would otherwise draw a broken chart), and an unknown kind or field, bad JSON or
  bad UTF-8 is a ``ReportInputError`` naming the file and the line;
- an incomplete *last* line (no newline, not JSON: the process died while writing it) is
  skipped and reported in ``TranscriptFile.torn_line``, as ``read_transcript`` does, unless
  ``strict``.

Folders are searched recursively for ``*.jsonl``; files are taken as given, in order.

The ``interrupted`` line a stopped run ends a session with (see ``harness.telemetry.
transcript``) is read into ``TranscriptFile.interruptions``, checked like an event line.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, fields
from enum import StrEnum
from pathlib import Path
from typing import Any

from harness.events import EVENT_KINDS, Event
from harness.runtime import HarnessError
from harness.telemetry.transcript import (
    INTERRUPTED_KIND,
    KIND_KEY,
    InterruptedMark,
    TranscriptError,
    event_from_record,
)

SUFFIX = ".jsonl"
SHOWN = 80  # characters of a bad value quoted in an error
_KINDS: dict[str, type[Event]] = {kind.__name__: kind for kind in EVENT_KINDS}


class ReportInputError(HarnessError, ValueError):
    """A transcript that cannot be reported on; the message names the file (and line)."""


@dataclass(frozen=True, slots=True)
class TranscriptFile:
    path: Path
    events: tuple[Event, ...]
    torn_line: int | None = None  # number of a skipped incomplete last line
    interruptions: tuple[InterruptedMark, ...] = ()


def discover(paths: Iterable[Path]) -> list[Path]:
    """Files as given and every ``*.jsonl`` under each folder, sorted, without repeats."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            inside = sorted(p for p in path.rglob(f"*{SUFFIX}") if p.is_file())
            if not inside:
                raise ReportInputError(f"{path}: no {SUFFIX} transcript in this folder")
            found.extend(inside)
        elif path.is_file():
            found.append(path)
        elif path.exists():  # a device, FIFO or socket: never read (it may not end)
            raise ReportInputError(f"{path}: not a regular file or folder")
        else:
            raise ReportInputError(f"{path}: no such file or folder")
    unique: dict[Path, Path] = {}
    for path in found:
        unique.setdefault(path.resolve(), path)
    return list(unique.values())


def read_file(path: Path, *, strict: bool = False) -> TranscriptFile:
    """Every event of one transcript file, checked line by line."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ReportInputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    lines = raw.split(b"\n")
    events: list[Event] = []
    marks: list[InterruptedMark] = []
    torn: int | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        last = number == len(lines)  # only the final chunk lacks its newline
        try:
            record = parse_record(line)
        except ReportInputError as exc:
            if (
                last
                and not strict
                and isinstance(exc.__cause__, json.JSONDecodeError | UnicodeDecodeError)
            ):
                torn = number
                break
            raise ReportInputError(f"{path}:{number}: {exc}") from exc
        if isinstance(record, InterruptedMark):
            marks.append(record)
        else:
            events.append(record)
    if not events and not marks:
        # An empty file, blank lines or one torn line: a report of nothing would pass for
        # a run that did nothing (every run writes at least its turn's events).
        why = f" (its only line, {torn}, is incomplete)" if torn is not None else ""
        raise ReportInputError(f"{path}: no transcript event in this file{why}")
    return TranscriptFile(
        path=path, events=tuple(events), torn_line=torn, interruptions=tuple(marks)
    )


def read_all(paths: Iterable[Path], *, strict: bool = False) -> list[TranscriptFile]:
    return [read_file(path, strict=strict) for path in discover(paths)]


def parse_line(line: bytes) -> Event:
    """One event; ``ReportInputError`` (without location) for anything else."""
    record = parse_record(line)
    if isinstance(record, InterruptedMark):
        raise ReportInputError(f"an {INTERRUPTED_KIND!r} line where an event belongs")
    return record


def parse_record(line: bytes) -> Event | InterruptedMark:
    """One event or ``interrupted`` line; ``ReportInputError`` (no location) otherwise."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReportInputError(f"not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    try:
        record = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise ReportInputError(f"not JSON: {exc.msg} (column {exc.colno})") from exc
    except RecursionError:
        raise ReportInputError("not a transcript line: JSON nested too deeply") from None
    if not isinstance(record, dict):
        raise ReportInputError(f"not a JSON object but {type(record).__name__}")
    if _is_span(record):
        raise ReportInputError(
            "an OpenTelemetry span (this is a --otel-jsonl span file), not a transcript "
            "event: report reads the files --transcript writes"
        )
    if record.get(KIND_KEY) == INTERRUPTED_KIND:
        return _interrupted(record)
    kind = _KINDS.get(str(record.get(KIND_KEY)))
    if kind is None:
        raise ReportInputError(f"unknown event kind {_shown(record.get(KIND_KEY))}")
    _check_fields(kind, record)
    try:
        return event_from_record(record)
    except (TranscriptError, ValueError) as exc:
        raise ReportInputError(str(exc)) from None


def _refuse_constant(name: str) -> object:
    # NaN and ±Infinity are not JSON; Python's codec accepts them, a transcript never has
    # them, and a NaN timestamp would draw an empty chart without a word.
    raise ReportInputError(f"not JSON: {name} is not a number JSON allows")


def _is_span(record: Mapping[str, Any]) -> bool:
    """A line of an ``--otel-jsonl`` file: an OTel span record with its trace context."""
    context = record.get("context")
    return isinstance(context, dict) and "trace_id" in context and "span_id" in context


def _interrupted(record: Mapping[str, Any]) -> InterruptedMark:
    unknown = sorted(set(record) - set(_MARK_FIELDS) - {KIND_KEY})
    if unknown:
        raise ReportInputError(f"interrupted: unknown field(s) {', '.join(map(_shown, unknown))}")
    for name, expected in _MARK_FIELDS.items():
        if name not in record:
            raise ReportInputError(f"interrupted: missing field {name!r}")
        if not _conforms(record[name], expected):
            raise ReportInputError(
                f"interrupted.{name}: expected {_describe(expected)}, "
                f"got {json.dumps(record[name], ensure_ascii=False)[:SHOWN]}"
            )
    return InterruptedMark(session_id=record["session_id"], signal=record["signal"])


def _check_fields(kind: type[Event], record: Mapping[str, Any]) -> None:
    hints = FIELD_TYPES[kind.__name__]
    unknown = sorted(set(record) - set(hints) - {KIND_KEY})
    if unknown:
        shown = ", ".join(_shown(name) for name in unknown)
        raise ReportInputError(f"{kind.__name__}: unknown field(s) {shown}")
    for name, expected in hints.items():
        if name not in record:
            if name in _REQUIRED[kind.__name__]:
                raise ReportInputError(f"{kind.__name__}: missing field {name!r}")
            continue
        if not _conforms(record[name], expected):
            raise ReportInputError(
                f"{kind.__name__}.{name}: expected {_describe(expected)}, "
                f"got {json.dumps(record[name], ensure_ascii=False)[:SHOWN]}"
            )


def _shown(value: object) -> str:
    """A value from a transcript, safe for a terminal: ``repr`` escapes control characters."""
    text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def _field_types(kind: type[Event]) -> dict[str, Any]:
    hints = typing.get_type_hints(kind)
    return {field.name: hints[field.name] for field in fields(kind)}


def _required_fields(kind: type[Event]) -> frozenset[str]:
    return frozenset(
        f.name for f in fields(kind) if f.default is MISSING and f.default_factory is MISSING
    )


FIELD_TYPES: dict[str, dict[str, Any]] = {k.__name__: _field_types(k) for k in EVENT_KINDS}
_MARK_FIELDS: dict[str, Any] = {"session_id": str | None, "signal": str}
_REQUIRED: dict[str, frozenset[str]] = {k.__name__: _required_fields(k) for k in EVENT_KINDS}


def _conforms(value: Any, expected: Any) -> bool:  # noqa: PLR0911 (a return per field type)
    """Whether a JSON value can stand for ``expected`` (as ``event_from_record`` reads it)."""
    if isinstance(expected, types.UnionType) or typing.get_origin(expected) is typing.Union:
        return any(_conforms(value, option) for option in typing.get_args(expected))
    if expected is type(None):
        return value is None
    if expected is bool:
        return isinstance(value, bool)
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if expected is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if expected is str:
        return isinstance(value, str)
    if isinstance(expected, type) and issubclass(expected, StrEnum):
        return isinstance(value, str) and value in {member.value for member in expected}
    if typing.get_origin(expected) is tuple:
        (item, *_) = typing.get_args(expected)
        return isinstance(value, list) and all(_conforms(element, item) for element in value)
    raise TypeError(f"the report cannot check a field of type {expected!r}")


def _describe(expected: Any) -> str:
    if isinstance(expected, types.UnionType):
        return " or ".join(_describe(option) for option in typing.get_args(expected))
    if expected is type(None):
        return "null"
    if isinstance(expected, type) and issubclass(expected, StrEnum):
        return "one of " + ", ".join(repr(member.value) for member in expected)
    if typing.get_origin(expected) is tuple:
        return "a list of strings"
    return {int: "an integer", float: "a number", str: "a string", bool: "true or false"}.get(
        expected, repr(expected)
    )
