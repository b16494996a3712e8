"""Transcripts: one JSON object per event, one line each, flushed as it is written.

A line is ``{"kind": "HistoryTrimmed", <every field of the event>}``. Each line is written
and flushed before ``on_event`` returns, so a run that crashes keeps every event it had
recorded. ``read_transcript`` turns the lines back into equal events; an incomplete last
line (the process died while writing it) is skipped unless ``strict``.

A run stopped by a signal ends each session it left unfinished with one more line that is
not an event: ``{"kind": "interrupted", "session_id": ..., "signal": "SIGINT"}``
(``TranscriptWriter.mark_interrupted``). Readers of events skip it; the report reads it
(``InterruptedMark``) and shows the session as incomplete.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final, assert_never

from harness.events import (
    ENUM_FIELDS,
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
    TurnFinished,
    TurnStarted,
    WireFindingObserved,
    event_kind,
)
from harness.runtime import HarnessError
from harness.telemetry.line_file import LineFile, LineFileFailed

KIND_KEY = "kind"
INTERRUPTED_KIND: Final = "interrupted"
"""The ``kind`` of the line that ends a session a signal stopped (not an event kind)."""
_KINDS: dict[str, type[Event]] = {kind.__name__: kind for kind in EVENT_KINDS}


class TranscriptError(HarnessError, ValueError):
    """A transcript line that is not a recorded event."""


@dataclass(frozen=True, slots=True)
class InterruptedMark:
    """A session a signal stopped before it ended. ``session_id`` is ``None`` when the
    run was stopped before the file recorded any event."""

    session_id: str | None
    signal: str

    def to_record(self) -> dict[str, Any]:
        return {KIND_KEY: INTERRUPTED_KIND, "session_id": self.session_id, "signal": self.signal}


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
    for name, enum in ENUM_FIELDS[kind.__name__].items():
        if isinstance(fields.get(name), str):
            try:
                fields[name] = enum(fields[name])
            except ValueError as exc:
                raise TranscriptError(f"{kind.__name__}.{name}: {exc}") from exc
    if isinstance(fields.get("finish_reasons"), list):
        fields["finish_reasons"] = tuple(fields["finish_reasons"])
    try:
        return kind(**fields)
    except TypeError as exc:
        raise TranscriptError(f"{kind.__name__}: {exc}") from exc


class TranscriptWriter:
    """Observer that appends each event to a JSON-lines file (or an open text stream)."""

    def __init__(
        self,
        target: Path | IO[str],
        *,
        fsync: bool = False,
        on_failure: LineFileFailed | None = None,
    ) -> None:
        """``target``: a file (appended to; a ``LineFile``: a failed write cuts it back to
        its last whole line, then ``on_failure`` is told once and later lines are counted
        in ``dropped``, or, without ``on_failure``, the error is raised) or an open
        stream, written and flushed per line."""
        self._file: LineFile | None = None
        self._stream: IO[str] | None = None
        if isinstance(target, Path):
            self._file = LineFile(target, append=True, on_failure=on_failure, fsync_each=fsync)
        else:
            self._stream = target
        self._fsync = fsync
        self._lock = threading.Lock()
        self.written = 0
        # Session id -> whether a turn of it is open: what an interruption leaves unfinished.
        self._open_turns: dict[str, bool] = {}
        self._last_session: str | None = None

    @property
    def failure(self) -> OSError | None:
        return self._file.failure if self._file is not None else None

    @property
    def dropped(self) -> int:
        return self._file.dropped if self._file is not None else 0

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
                | WireFindingObserved()
                | ToolCallStarted()
                | ToolCallFinished()
            ):
                self._write(event_to_record(event))
            case _:
                assert_never(event)
        with self._lock:
            self._last_session = event.session_id
            if isinstance(event, TurnStarted | TurnFinished):
                self._open_turns[event.session_id] = isinstance(event, TurnStarted)
            else:
                self._open_turns.setdefault(event.session_id, False)

    def mark_interrupted(self, signal: str) -> list[InterruptedMark]:
        """End each unfinished session with an ``interrupted`` line: every session with a
        turn open, else the last session seen (stopped between two of its turns), else one
        mark without a session (nothing was recorded yet). Returns the marks written."""
        with self._lock:
            unfinished: list[str | None] = [s for s, is_open in self._open_turns.items() if is_open]
            last = self._last_session
        marks = [InterruptedMark(sid, signal) for sid in unfinished or [last]]
        for mark in marks:
            self._write(mark.to_record())
        return marks

    def _write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self._lock:
            if self._file is not None:
                self.written += self._file.write(line.encode("utf-8"))
                return
            assert self._stream is not None
            self._stream.write(line)
            self._stream.flush()
            if self._fsync:
                os.fsync(self._stream.fileno())
            self.written += 1

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close(sync=self._fsync)


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
        if record.get(KIND_KEY) == INTERRUPTED_KIND:
            continue  # not an event: see the module docstring
        yield event_from_record(record)


def read_transcript(path: Path, *, strict: bool = False) -> list[Event]:
    return list(iter_transcript(path, strict=strict))
