"""The request log of one fake: what came in, what was counted, what went out.

Entries are appended before the answer's first byte is sent, so a client that has seen
an answer can read its entry. Safe to use from the server thread and the test thread.

An in-process fake keeps every exchange: its readers (the scenario runner, the wire
checks, ``harness.sut``, tests) read a whole run, whose calls its scenario bounds. A
server that runs until a signal (``serve_forever``: ``trimscope fake serve``) has no such
bound and no reader, so it keeps the last ``SERVED_EXCHANGES`` and counts the rest
(``dropped``): it had kept every request body it ever answered (issue 28).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, TypeAlias

from fakes.counting.counters import TokenCount
from fakes.rows import JSONValue, Row

SERVED_EXCHANGES: Final = 100
"""Exchanges a served fake keeps (the last ones; see the module docstring)."""

Outcome: TypeAlias = Literal[
    "reply",  # a normal answer
    "overflow",  # the provider's overflow answer (error, in-stream event or stop)
    "truncated",  # over the window, answered 200 with the prompt silently cut
    "silent_overflow",  # over the window, answered 200 with honest, over-window usage
    "rejected",  # invalid request: bad JSON, unknown model, orphaned tool pair
    "fault",  # a scripted fault or look-alike
    "discovery",  # a model-metadata endpoint
]


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request and its answer. ``call_index`` is ``None`` for discovery endpoints;
    ``rows`` are the canonical rows the fake decoded and counted (empty when it could
    not decode the request)."""

    call_index: int | None
    method: str
    path: str
    request_headers: Mapping[str, str]
    request_body: JSONValue
    counter: str
    window: int
    tokens: TokenCount | None
    outcome: Outcome
    status: int
    response_headers: Mapping[str, str]
    response_body: JSONValue
    stream_events: tuple[JSONValue, ...] = ()
    detail: str = ""
    variant: str | None = None
    fault: str | None = None
    rows: tuple[Row, ...] = ()
    extra: Mapping[str, object] = field(default_factory=dict)


class RequestLog:
    """A thread-safe, append-only list of ``Exchange`` records; with ``keep``, a ring of
    the last ``keep`` (``dropped`` counts the ones it let go)."""

    def __init__(self, keep: int | None = None) -> None:
        self._lock = threading.Lock()
        self._entries: deque[Exchange] = deque(maxlen=keep)
        self.dropped = 0

    @property
    def keep(self) -> int | None:
        """The most exchanges kept (``None``: every one)."""
        return self._entries.maxlen

    def keep_last(self, keep: int) -> None:
        """From now on keep only the last ``keep`` exchanges (older ones are dropped now)."""
        if keep < 0:
            raise ValueError(f"keep: expected a count >= 0, found {keep}")
        with self._lock:
            kept = deque(self._entries, maxlen=keep)
            self.dropped += len(self._entries) - len(kept)
            self._entries = kept

    def record(self, exchange: Exchange) -> None:
        with self._lock:
            if len(self._entries) == self._entries.maxlen:
                self.dropped += 1
            self._entries.append(exchange)

    def entries(self) -> tuple[Exchange, ...]:
        with self._lock:
            return tuple(self._entries)

    def calls(self) -> tuple[Exchange, ...]:
        """Only the generation requests (those with a call index)."""
        return tuple(e for e in self.entries() if e.call_index is not None)

    def last(self) -> Exchange:
        with self._lock:
            if not self._entries:
                raise LookupError("the request log is empty")
            return self._entries[-1]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.dropped = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
