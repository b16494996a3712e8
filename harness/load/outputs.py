"""Every output of a load run is its own failure domain (issue 28).

A run writes several files: the summary (``--json``), spans (``--otel-jsonl``), metrics
(``--metrics-out``), transcripts (``--transcript``), a sweep's page (``--html``). A disk
that fills up or fails under one of them must not cost the others, the summary above all:
``OutputFailures`` records the output that could not be written, says so in one line (the
option, the file, the system's error), and the run goes on; the command exits 1 at the end
(``exit_code``), or with its signal's code when a signal stopped it. Line files (spans,
transcripts) report their first failed write through ``line_file_failed`` and count the
lines dropped after it (``lines_dropped``), so a full disk costs one line, never one per
span or event.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from prometheus_client import CollectorRegistry

from harness.exit_codes import ExitCode
from harness.telemetry.exposition import mark_interrupted, write_metrics
from harness.telemetry.line_file import LineFileFailed
from harness.telemetry.setup import Telemetry, TelemetryOptions

SPANS_OPTION: Final = "--otel-jsonl"
METRICS_OPTION: Final = "--metrics-out"
TRANSCRIPT_OPTION: Final = "--transcript"


@dataclass(frozen=True, slots=True)
class UnwrittenOutput:
    """An output the run could not write: the option, its file, the system's error."""

    option: str
    path: str
    error: str
    lines_dropped: int | None = None
    """Span files and transcripts: the spans or events not written from the failed write
    on (the file keeps every whole line written before it)."""

    def line(self) -> str:
        return f"error: cannot write {self.option} {self.path}: {self.error}"


def describe(error: OSError) -> str:
    """``No space left on device (errno 28)``: the system's words, then its number."""
    words = error.strerror or str(error)
    return f"{words} (errno {error.errno})" if error.errno is not None else words


class OutputFailures:
    """The outputs of one command that could not be written, each said once."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self._say = say
        self._failed: dict[str, UnwrittenOutput] = {}

    def failed(self, option: str, path: Path, error: OSError, *, goes_on: str = "") -> None:
        """Record ``option`` (writing ``path``) as failed with ``error``; say it once."""
        if option in self._failed:
            return
        unwritten = UnwrittenOutput(option, str(path), describe(error))
        self._failed[option] = unwritten
        self._say(unwritten.line() + (f"; {goes_on}" if goes_on else ""))

    @contextmanager
    def writing(self, option: str, path: Path) -> Iterator[None]:
        """Run the block that writes ``path``; an ``OSError`` is recorded, not raised."""
        try:
            yield
        except OSError as error:
            self.failed(option, path, error, goes_on="the other outputs are written")

    def line_file_failed(self, option: str, what: str) -> LineFileFailed:
        """A line file's first-failure callback (``LineFile``): ``what`` it holds."""

        def told(path: Path, error: OSError) -> None:
            goes_on = f"the file keeps its whole lines; later {what} are counted, not written"
            self.failed(option, path, error, goes_on=goes_on)

        return told

    def lines_dropped(self, option: str, dropped: int) -> None:
        """The lines ``option``'s file dropped, known once the run has ended."""
        if option in self._failed:
            self._failed[option] = replace(self._failed[option], lines_dropped=dropped)

    @property
    def unwritten(self) -> list[UnwrittenOutput]:
        return list(self._failed.values())

    def exit_code(self, code: int) -> int:
        """``code``, or ``ExitCode.UNWRITTEN`` when it is 0 and an output was not written (a
        signal's code, or a failure's, already says the run did not end well)."""
        return ExitCode.UNWRITTEN if code == 0 and self._failed else code


@dataclass(frozen=True, slots=True)
class RunOutputs:
    """The files one asyncio run writes besides the summary, and where failures go."""

    failures: OutputFailures
    metrics_out: Path | None = None
    transcript_dir: Path | None = None


def transcript_path(folder: Path, template_name: str) -> Path:
    """``FOLDER/<template name>.jsonl``, the name's other characters as ``-`` (a sweep's
    runs are ``default-openai-budget-1200.jsonl``, ...)."""
    return folder / f"{re.sub(r'[^A-Za-z0-9._-]+', '-', template_name).strip('-')}.jsonl"


def telemetry_for_run(
    options: TelemetryOptions, outputs: RunOutputs, template_name: str
) -> TelemetryOptions:
    """``options`` for one run: a registry of its own for ``--metrics-out``, and its
    transcript file (emptied first) in ``--transcript``'s folder."""
    if outputs.metrics_out is not None and options.registry is None:
        options = replace(options, registry=CollectorRegistry())
    if outputs.transcript_dir is not None:
        path = transcript_path(outputs.transcript_dir, template_name)
        with outputs.failures.writing(TRANSCRIPT_OPTION, path):
            path.unlink(missing_ok=True)
        told = outputs.failures.line_file_failed(TRANSCRIPT_OPTION, "events")
        options = replace(options, transcript=path, transcript_failed=told)
    return options


def close_telemetry(telemetry: Telemetry, outputs: RunOutputs) -> None:
    """End the transcript's unfinished sessions when a signal stopped the run
    (``telemetry.mark_interrupted`` called first), shut the telemetry down (spans flushed,
    pending overflows settled, the transcript closed), then write ``--metrics-out``
    (marked too); what could not be written is recorded in ``outputs.failures``."""
    failures = outputs.failures
    if telemetry.interrupted_by is not None and telemetry.transcript is not None:
        telemetry.transcript.mark_interrupted(telemetry.interrupted_by)
    telemetry.shutdown()
    written = ((SPANS_OPTION, telemetry.span_file), (TRANSCRIPT_OPTION, telemetry.transcript))
    for option, file in written:
        if file is not None and file.failure is not None:
            failures.lines_dropped(option, file.dropped)
    metrics_out = outputs.metrics_out
    if metrics_out is not None and telemetry.registry is not None:
        with failures.writing(METRICS_OPTION, metrics_out):
            write_metrics(telemetry.registry, metrics_out)


def metrics_writer(
    failures: OutputFailures, path: Path | None
) -> Callable[[CollectorRegistry, str | None], None] | None:
    """``--metrics-out`` for a registry read at the end of a run (Locust's aggregate):
    marked interrupted by the signal given, if any; ``None`` without the option."""
    if path is None:
        return None

    def write(registry: CollectorRegistry, interrupted_by: str | None) -> None:
        if interrupted_by is not None:
            mark_interrupted(registry, interrupted_by)
        with failures.writing(METRICS_OPTION, path):
            write_metrics(registry, path)

    return write
