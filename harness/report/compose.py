"""From transcript paths to a report file, all or nothing.

Every transcript is read and checked before a byte is written; the document is then written
to a temporary file beside the target and renamed over it (``os.replace``, atomic on one
file system). On any failure the temporary file is removed and an existing report at the
target is left as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.atomic import write_text_atomic
from harness.report.model import Session, Totals, sessions_of, totals_of
from harness.report.page import render
from harness.report.parse import TranscriptFile, read_all


@dataclass(frozen=True, slots=True)
class Report:
    files: tuple[TranscriptFile, ...]
    sessions: tuple[Session, ...]
    totals: Totals

    @property
    def notes(self) -> list[str]:
        """Skipped torn last lines, runs stopped before recording anything, incomplete
        sessions left out of the totals: one note each."""
        notes = [
            f"{f.path}:{f.torn_line}: incomplete last line skipped (the run stopped mid-write)"
            for f in self.files
            if f.torn_line is not None
        ]
        notes += [
            f"{f.path}: interrupted by {mark.signal} before any event was recorded"
            for f in self.files
            for mark in f.interruptions
            if mark.session_id is None
        ]
        if self.totals.incomplete_sessions:
            notes.append(
                f"{self.totals.incomplete_sessions} incomplete session(s) (interrupted, or a"
                " turn never finished) are shown but not counted in the totals"
            )
        return notes

    def html(self) -> str:
        return render(self.sessions, self.totals, notes=self.notes)


def build(paths: Sequence[Path], *, strict: bool = False) -> Report:
    """Read every transcript (``ReportInputError`` on the first bad line) and tally them."""
    files = read_all(paths, strict=strict)
    sessions = [
        session for f in files for session in sessions_of(f.path, f.events, f.interruptions)
    ]
    return Report(tuple(files), tuple(sessions), totals_of(sessions, files=len(files)))


def write_atomic(target: Path, text: str) -> None:
    """Write ``text`` to ``target`` through ``harness.atomic`` (temporary file, rename)."""
    write_text_atomic(target, text)


def write_report(paths: Sequence[Path], target: Path, *, strict: bool = False) -> Report:
    """Build the report and write it to ``target``; nothing is written when input is bad."""
    report = build(paths, strict=strict)
    write_atomic(target, report.html())
    return report
