"""Where a completed exchange goes after the observer read it: the ``FindingSink`` seam.

The proxy hands every sink ``(exchange, findings, traffic)`` once the answer is over,
in the order exchanges complete. The exchange's auth headers are already redacted and
its bodies scrubbed of keys; ``traffic`` says how it ended and how many bytes crossed
(the exchange holds at most ``--max-body-bytes`` of each body). The CLI composes the sinks
(findings file, record, metrics); telemetry adds its own later through the same seam.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal, Protocol, TypeAlias

from harness.wire import Finding, WireExchange

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


class FindingSink(Protocol):
    """Told of every completed exchange; closed once when the proxy stops. ``accept``
    runs on the proxy's event loop: it must be quick and must not block on the network."""

    def accept(
        self, exchange: WireExchange, findings: tuple[Finding, ...], traffic: Traffic
    ) -> None: ...

    def close(self) -> None: ...


class JsonlFindings:
    """``--findings-jsonl FILE``: one ``Finding.to_json()`` per line, flushed per line, so a
    reader (``tail -f``) sees each finding as it happens and a stop loses none."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stream: IO[str] = path.open("a", encoding="utf-8")

    def accept(
        self, exchange: WireExchange, findings: tuple[Finding, ...], traffic: Traffic
    ) -> None:
        for finding in findings:
            self._stream.write(json.dumps(finding.to_json(), separators=(",", ":")) + "\n")
            self._stream.flush()

    def close(self) -> None:
        self._stream.close()


class Sinks:
    """Several sinks as one, told in the order given; ``close`` closes each even when
    one fails, then raises the first failure."""

    def __init__(self, sinks: list[FindingSink]) -> None:
        self.sinks = list(sinks)

    def accept(
        self, exchange: WireExchange, findings: tuple[Finding, ...], traffic: Traffic
    ) -> None:
        for sink in self.sinks:
            sink.accept(exchange, findings, traffic)

    def close(self) -> None:
        failure: BaseException | None = None
        for sink in self.sinks:
            try:
                sink.close()
            except Exception as error:  # the others still close
                failure = failure or error
        if failure is not None:
            raise failure


__all__ = ["FindingSink", "JsonlFindings", "Outcome", "Sinks", "Traffic"]
