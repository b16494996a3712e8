"""``--record DIR``: every exchange as one line of a cassette (JSON lines), replayable.

One file per proxy run, ``DIR/exchanges-<UTC start>-<pid>.jsonl``, one JSON object per
exchange in the order they completed, flushed per line (a stop loses none; a reader skips
a torn last line after a crash). The format is described in docs/proxy.md. Auth header
values are ``[redacted]``, key query parameters too, and bodies are scrubbed of any echo
of a key: a cassette can be shared.
"""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Final

from harness.proxy.sinks import Traffic, named_errors
from harness.wire import Finding, WireExchange

CASSETTE_VERSION: Final = 1


def _body(chunks: Iterable[bytes]) -> tuple[str, list[str]]:
    """``("utf-8", texts)`` when every chunk is UTF-8 text, else ``("base64", ...)``."""
    pieces = list(chunks)
    try:
        return "utf-8", [piece.decode("utf-8") for piece in pieces]
    except UnicodeDecodeError:
        return "base64", [base64.b64encode(piece).decode("ascii") for piece in pieces]


def cassette_line(
    exchange: WireExchange, findings: tuple[Finding, ...], traffic: Traffic
) -> dict[str, object]:
    """One exchange as the cassette's JSON object."""
    request_encoding, [request_body] = _body([exchange.request_body])
    response_encoding, chunks = _body(traffic.chunks)
    return {
        "version": CASSETTE_VERSION,
        "wire": exchange.wire,
        "method": exchange.method,
        "path": exchange.path,
        "query": traffic.query,
        "request_headers": dict(exchange.request_headers),
        "request_encoding": request_encoding,
        "request_body": request_body,
        "request_bytes": traffic.request_bytes,
        "status": exchange.status,
        "response_headers": dict(exchange.response_headers),
        "streamed": exchange.streamed,
        "response_encoding": response_encoding,
        "response_chunks": chunks,
        "response_bytes": traffic.response_bytes,
        "truncated": traffic.truncated,
        "outcome": traffic.outcome,
        "findings": [finding.to_json() for finding in findings],
    }


class CassetteRecorder:
    """The ``FindingSink`` that writes the cassette."""

    def __init__(self, folder: Path, clock: float | None = None) -> None:
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock))
        self.path = folder / f"exchanges-{stamp}-{os.getpid()}.jsonl"
        self._stream: IO[str] = self.path.open("a", encoding="utf-8")

    def accept(
        self, exchange: WireExchange, findings: tuple[Finding, ...], traffic: Traffic
    ) -> None:
        line = json.dumps(cassette_line(exchange, findings, traffic), separators=(",", ":"))
        with named_errors(self.path):
            self._stream.write(line + "\n")
            self._stream.flush()

    def close(self) -> None:
        self._stream.close()


def read_cassette(path: Path) -> list[dict[str, object]]:
    """The exchanges of a cassette; a torn last line (a crash mid-write) is skipped."""
    exchanges: list[dict[str, object]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            exchanges.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return exchanges


def chunks_of(entry: dict[str, object]) -> list[bytes]:
    """The answer's bytes of one cassette entry, in the pieces they arrived in."""
    raw = entry["response_chunks"]
    if not isinstance(raw, list):
        raise ValueError(f"response_chunks is a list in a cassette, found {type(raw).__name__}")
    if entry["response_encoding"] == "base64":
        return [base64.b64decode(piece) for piece in raw]
    return [str(piece).encode("utf-8") for piece in raw]


__all__ = ["CASSETTE_VERSION", "CassetteRecorder", "cassette_line", "chunks_of", "read_cassette"]
