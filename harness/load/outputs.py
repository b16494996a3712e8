"""Every output of a load run is its own failure domain (issue 28).

A run writes several files: the summary (``--json``), spans (``--otel-jsonl``), metrics
(``--metrics-out``), a sweep's page (``--html``). A disk that fills up or fails under one
of them must not cost the others, the summary above all: ``OutputFailures`` records the
output that could not be written, says so in one line (the option, the file, the system's
error), and the run goes on; the command exits 1 at the end (``exit_code``), or with its
signal's code when a signal stopped it. Span files report their first failed write through
``span_file_failed`` and count the spans dropped after it (``spans_dropped``), so a full
disk costs one line, never one per span.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from prometheus_client import CollectorRegistry

from harness.telemetry.exposition import mark_interrupted, write_metrics
from harness.telemetry.setup import Telemetry

SPANS_OPTION: Final = "--otel-jsonl"
METRICS_OPTION: Final = "--metrics-out"
EXIT_UNWRITTEN: Final = 1
"""The exit code of a run that wrote everything but one of its outputs."""


@dataclass(frozen=True, slots=True)
class UnwrittenOutput:
    """An output the run could not write: the option, its file, the system's error."""

    option: str
    path: str
    error: str
    spans_dropped: int | None = None
    """Span files: the spans not written from the failed write on (the file keeps every
    whole line written before it)."""

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

    def span_file_failed(self, option: str) -> Callable[[Path, OSError], None]:
        """The span file's first-failure callback (``JsonLinesSpanExporter.on_failure``)."""

        def told(path: Path, error: OSError) -> None:
            self.failed(
                option,
                path,
                error,
                goes_on="the file keeps its whole lines; later spans are counted, not written",
            )

        return told

    def spans_dropped(self, option: str, dropped: int) -> None:
        """The spans ``option``'s file dropped, known once the run has ended."""
        if option in self._failed:
            self._failed[option] = replace(self._failed[option], spans_dropped=dropped)

    @property
    def unwritten(self) -> list[UnwrittenOutput]:
        return list(self._failed.values())

    def exit_code(self, code: int) -> int:
        """``code``, or ``EXIT_UNWRITTEN`` when it is 0 and an output was not written (a
        signal's code, or a failure's, already says the run did not end well)."""
        return EXIT_UNWRITTEN if code == 0 and self._failed else code


def close_telemetry(
    telemetry: Telemetry, failures: OutputFailures, metrics_out: Path | None
) -> None:
    """Shut the run's telemetry down (spans flushed, pending overflows settled), then write
    ``--metrics-out`` (marked when ``telemetry.mark_interrupted`` was called first); what
    could not be written is recorded in ``failures``."""
    telemetry.shutdown()
    span_file = telemetry.span_file
    if span_file is not None and span_file.failure is not None:
        failures.spans_dropped(SPANS_OPTION, span_file.dropped)
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
