"""The observer: one object that reads exchanges of many sessions and returns findings.

It keeps per session only fingerprints and sizes of rows, never bodies (bounded memory);
idle sessions expire after ``idle_s`` by the injected clock; at most ``max_sessions`` are
kept (the least recently seen goes first). Overflow answers are recognised by an injected
classifier (``harness.providers.classify`` in the composition roots; the observer itself
stays stdlib + runtime).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from harness.wire.model import Finding, WireExchange

DEFAULT_SESSION_HEADER: Final = "x-trimscope-session"
DEFAULT_IDLE_S: Final = 900.0
DEFAULT_MAX_SESSIONS: Final = 100_000
DEFAULT_MAX_BODY_BYTES: Final = 8 * 1024 * 1024

# (provider or wire name, HTTP status or None for an in-stream error, the error body) →
# is this a context-window overflow?
OverflowClassifier = Callable[[str, int | None, str], bool]


def _no_overflow(provider: str, status: int | None, body: str) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class ObserverConfig:
    """Resolved once; every default is the constant above."""

    session_header: str = DEFAULT_SESSION_HEADER
    idle_s: float = DEFAULT_IDLE_S
    max_sessions: int = DEFAULT_MAX_SESSIONS
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    is_overflow: OverflowClassifier = _no_overflow
    clock: Callable[[], float] = field(default=time.monotonic)


class WireObserver:
    """Feed it every exchange in the order they completed; it answers with the findings
    of that exchange (possibly none). Never raises on bad input: what it cannot read is
    an ``unobservable`` finding."""

    def __init__(self, config: ObserverConfig | None = None) -> None:
        self.config = config or ObserverConfig()

    def observe(self, exchange: WireExchange) -> tuple[Finding, ...]:
        return ()

    @property
    def session_count(self) -> int:
        return 0
