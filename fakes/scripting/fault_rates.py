"""Faults at a rate: a seeded mix of 5xx, 429s, hangs, broken streams and malformed bodies.

A script's steps place faults by call position; a soak wants them spread across sessions
instead ("one call in fifty is a 503"). ``FaultRates`` gives each fault kind a rate; call
``i`` of a fake draws one number in ``[0, 1)`` from ``(seed, i)`` alone (SHA-256, so the
same on every machine and Python), and the kinds take consecutive slices of ``[0, 1)`` in
``RATE_KINDS`` order: a draw below ``server_error`` is a 5xx, the next ``rate_limit`` of
the interval a 429, and so on; past the last slice the call is answered normally.

So the faults a run meets depend only on the seed and the call numbers: the same seed gives
the same faults on the same calls, whatever the timing, and over many calls each kind's
share tends to its rate. A step that scripts a fault keeps it (the script is explicit;
the rates fill the rest). Rates are each in ``[0, 1]`` and sum to at most 1.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from http import HTTPStatus
from typing import Final, Literal, TypeAlias

RateKind: TypeAlias = Literal[
    "server_error", "rate_limit", "hang", "drop_mid_stream", "malformed_json"
]
RATE_KINDS: tuple[RateKind, ...] = (
    "server_error",
    "rate_limit",
    "hang",
    "drop_mid_stream",
    "malformed_json",
)
DEFAULT_FAULT_SEED = 0
_DRAW_SPAN = 2**64

LAST_SERVER_ERROR_STATUS: Final = 599  # the 5xx range's last status


def draw(seed: int, index: int) -> float:
    """Call ``index``'s number in ``[0, 1)`` under ``seed``: a function of both alone."""
    digest = hashlib.sha256(f"trimscope-faults/{seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / _DRAW_SPAN


@dataclass(frozen=True, slots=True)
class FaultRates:
    """Each kind's share of calls, and the details of the faults drawn: a 5xx's
    ``status``, a 429's ``retry_after`` (seconds, sent as ``retry-after``), a hang's
    ``hang_seconds``. A drawn ``drop_mid_stream`` sends half the answer, then drops."""

    server_error: float = 0.0
    rate_limit: float = 0.0
    hang: float = 0.0
    drop_mid_stream: float = 0.0
    malformed_json: float = 0.0
    seed: int = DEFAULT_FAULT_SEED
    status: int = 500
    retry_after: int = 1
    hang_seconds: float = 30.0

    def __post_init__(self) -> None:
        for kind in RATE_KINDS:
            rate = getattr(self, kind)
            if not (math.isfinite(rate) and 0.0 <= rate <= 1.0):
                raise ValueError(f"{kind}: expected a rate in 0..1, found {rate}")
        if self.total > 1.0 + 1e-9:
            raise ValueError(f"expected rates that sum to at most 1, found {self.total:g}")
        if not HTTPStatus.INTERNAL_SERVER_ERROR <= self.status <= LAST_SERVER_ERROR_STATUS:
            raise ValueError(f"status: expected a 5xx status, found {self.status}")
        if self.retry_after < 0 or not (
            math.isfinite(self.hang_seconds) and self.hang_seconds >= 0
        ):
            raise ValueError("retry_after and hang_seconds must be >= 0")

    @property
    def total(self) -> float:
        return float(sum(getattr(self, kind) for kind in RATE_KINDS))

    def kind_for(self, index: int) -> RateKind | None:
        """The fault call ``index`` draws, or ``None`` (answered normally)."""
        if self.total == 0.0:
            return None
        point = draw(self.seed, index)
        edge = 0.0
        for kind in RATE_KINDS:
            edge += getattr(self, kind)
            if point < edge:
                return kind
        return None
