"""Where a completed exchange goes after the observer read it: the ``FindingSink`` seam.

The proxy hands every sink ``(exchange, findings, traffic)`` once the answer is over,
in the order exchanges complete. The exchange's auth headers are already redacted and
its bodies scrubbed of keys; ``traffic`` says how it ended and how many bytes crossed
(the exchange holds at most ``--max-body-bytes`` of each body). The CLI composes the sinks
(findings file, record, metrics); telemetry adds its own later through the same seam.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal, Protocol, TypeAlias

from harness.wire import Finding, ObservedCall, WireExchange

Outcome: TypeAlias = Literal[
    "answered", "upstream_unreachable", "upstream_timeout", "upstream_broken", "client_left"
]


@dataclass(frozen=True, slots=True)
class Traffic:
    """How one exchange ended, beside what the exchange itself says."""

    outcome: Outcome
    request_bytes: int
    response_bytes: int
    truncated: bool = False
    """A body was longer than ``--max-body-bytes``: the exchange holds its beginning."""
    query: str = ""
    """The request's query string, key parameters redacted."""
    chunks: tuple[bytes, ...] = ()
    """The answer's bytes in the pieces they arrived in (what a replay streams back)."""
    duration_s: float = 0.0
    """From the request's arrival to the answer's end (or the failure): the call's latency
    as the runtime saw it, the proxy's own hop included."""
    upstream_s: float = 0.0
    """The part of ``duration_s`` spent awaiting the upstream (its answer's headers, then
    each chunk of its body): ``duration_s - upstream_s`` is the proxy's own hop."""
    call: ObservedCall | None = None
    """The generation call the observer read in this exchange (``None``: not a generation
    request, or its request could not be decoded)."""


class FindingSink(Protocol):
    """Told of every completed exchange; closed once when the proxy stops. ``accept``
    runs on the proxy's event loop: it must be quick and must not block on the network."""

    def accept(
        self, exchange: WireExchange, findings: tuple[Finding, ...], traffic: Traffic
    ) -> None: ...

    def close(self) -> None: ...


@contextlib.contextmanager
def named_errors(path: Path) -> Iterator[None]:
    """An ``OSError`` of a write names the file (a failed flush names none)."""
    try:
        yield
    except OSError as error:
        if error.filename is not None:
            raise
        raise OSError(error.errno, error.strerror, str(path)) from error


class JsonlFindings:
    """``--findings-jsonl FILE``: one ``Finding.to_json()`` per line, flushed per line, so a
    reader (``tail -f``) sees each finding as it happens and a stop loses none."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stream: IO[str] = path.open("a", encoding="utf-8")

    def accept(
        self, exchange: WireExchange, findings: tuple[Finding, ...], traffic: Traffic
    ) -> None:
        with named_errors(self.path):
            for finding in findings:
                self._stream.write(json.dumps(finding.to_json(), separators=(",", ":")) + "\n")
                self._stream.flush()

    def close(self) -> None:
        self._stream.close()


class Sinks:
    """Several sinks as one, told in the order given. A sink that cannot write (``OSError``:
    a full disk, a folder removed) is reported once through ``on_error`` and told no more;
    the others go on and so does the proxy (``failed`` says which failed, for the exit
    status). ``close`` closes each even when one fails, then raises the first failure."""

    def __init__(
        self, sinks: list[FindingSink], on_error: Callable[[str], None] | None = None
    ) -> None:
        self.sinks = list(sinks)
        self.failed: list[FindingSink] = []
        self._on_error = on_error

    def accept(
        self, exchange: WireExchange, findings: tuple[Finding, ...], traffic: Traffic
    ) -> None:
        for sink in self.sinks:
            if sink in self.failed:
                continue
            try:
                sink.accept(exchange, findings, traffic)
            except OSError as error:
                self.failed.append(sink)
                if self._on_error is not None:
                    self._on_error(f"cannot write {error.filename or sink}: {error.strerror}")

    def close(self) -> None:
        failure: BaseException | None = None
        for sink in self.sinks:
            try:
                sink.close()
            except Exception as error:  # the others still close
                if not (isinstance(error, OSError) and sink in self.failed):  # said once
                    failure = failure or error
        if failure is not None:
            raise failure


__all__ = ["FindingSink", "JsonlFindings", "Outcome", "Sinks", "Traffic", "named_errors"]
