"""Transcripts: one JSON object per event, one line each, flushed as it is written.

A line is ``{"kind": "HistoryTrimmed", <every field of the event>}``. Each line is written
and flushed before ``on_event`` returns, so a run that crashes keeps every event it had
recorded. ``read_transcript`` turns the lines back into equal events; an incomplete last
line (the process died while writing it) is skipped unless ``strict``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any, assert_never

from harness.events import (
    EVENT_KINDS,
    BudgetResolved,
    CapacityChecked,
    Event,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    ProviderCallStarted,
    ProviderContextEdited,
    RecoveryAttempted,
    ToolCallFinished,
    ToolCallStarted,
    TrimTrigger,
    TurnFinished,
    TurnStarted,
    event_kind,
)

KIND_KEY = "kind"
_KINDS: dict[str, type[Event]] = {kind.__name__: kind for kind in EVENT_KINDS}


class TranscriptError(ValueError):
    """A transcript line that is not a recorded event."""


def event_to_record(event: Event) -> dict[str, Any]:
    """``{"kind": ..., **fields}``: enums as their values, tuples as lists."""
    record: dict[str, Any] = {KIND_KEY: event_kind(event)}
    for field in dataclasses.fields(event):
        value = getattr(event, field.name)
        record[field.name] = list(value) if isinstance(value, tuple) else value
    return record


def event_from_record(record: Mapping[str, Any]) -> Event:
    """The event a record describes; raises ``TranscriptError`` for an unknown kind or field."""
    fields = dict(record)
    kind = _KINDS.get(str(fields.pop(KIND_KEY, "")))
    if kind is None:
        raise TranscriptError(f"unknown event kind in {dict(record)!r}")
    if kind is HistoryTrimmed and "trigger" in fields:
        fields["trigger"] = TrimTrigger(fields["trigger"])
    if isinstance(fields.get("finish_reasons"), list):
        fields["finish_reasons"] = tuple(fields["finish_reasons"])
    try:
        return kind(**fields)
    except TypeError as exc:
        raise TranscriptError(f"{kind.__name__}: {exc}") from exc


class TranscriptWriter:
    """Observer that appends each event to a JSON-lines file (or an open text stream)."""

    def __init__(self, target: Path | IO[str], *, fsync: bool = False) -> None:
        if isinstance(target, Path):
            target.parent.mkdir(parents=True, exist_ok=True)
            self._stream: IO[str] = target.open("a", encoding="utf-8")
            self._owned = True
        else:
            self._stream, self._owned = target, False
        self._fsync = fsync
        self._lock = threading.Lock()
        self.written = 0

    def on_event(self, event: Event) -> None:
        match event:
            case (
                TurnStarted()
                | TurnFinished()
                | BudgetResolved()
                | CapacityChecked()
                | ProviderCallStarted()
                | ProviderCallFinished()
                | ProviderContextEdited()
                | OverflowDetected()
                | RecoveryAttempted()
                | HistoryTrimmed()
                | ToolCallStarted()
                | ToolCallFinished()
            ):
                self._write(event_to_record(event))
            case _:
                assert_never(event)

    def _write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self._lock:
            self._stream.write(line)
            self._stream.flush()
            if self._fsync:
                os.fsync(self._stream.fileno())
            self.written += 1

    def close(self) -> None:
        with self._lock:
            if self._owned and not self._stream.closed:
                self._stream.close()


def iter_transcript(path: Path, *, strict: bool = False) -> Iterator[Event]:
    """Events of a transcript in order; see the module docstring for a torn last line."""
    with path.open(encoding="utf-8") as stream:
        lines = stream.readlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        torn = number == len(lines) and not line.endswith("\n")
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            if torn and not strict:
                return
            raise TranscriptError(f"{path}:{number}: not JSON: {exc}") from exc
        if not isinstance(record, dict):
            raise TranscriptError(f"{path}:{number}: not a JSON object")
        yield event_from_record(record)


def read_transcript(path: Path, *, strict: bool = False) -> list[Event]:
    return list(iter_transcript(path, strict=strict))
