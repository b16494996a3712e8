"""Run reports: transcripts in, one self-contained HTML file out.

``write_report(paths, target)`` reads every transcript (files, or folders searched for
``*.jsonl``), checks every line (``ReportInputError`` names file and line), and writes a
document that draws, per session, each provider call's estimated request tokens against its
budget and the model's window, with trims by trigger, capacity refusals, overflows and
recoveries marked, and the run's totals. The document needs no network to be viewed.
"""

from harness.report.compose import Report, build, write_atomic, write_report
from harness.report.model import Call, Session, Totals, sessions_of, totals_of
from harness.report.page import render
from harness.report.parse import ReportInputError, TranscriptFile, discover, read_file

__all__ = [
    "Call",
    "Report",
    "ReportInputError",
    "Session",
    "Totals",
    "TranscriptFile",
    "build",
    "discover",
    "read_file",
    "render",
    "sessions_of",
    "totals_of",
    "write_atomic",
    "write_report",
]
