"""The real window, found by growing requests: exponential growth, then bisection.

Sizes are estimated input tokens (``harness.conformance.payloads``). A probe of size ``s``

- *fits* when the endpoint replies and reports at least the input the calibration predicts;
- is *truncated* when it replies but reports fewer input tokens than predicted (less
  ``TRUNCATION_SLACK``): the endpoint dropped part of the prompt without saying so;
- is *refused* when the endpoint answers with an error. Smaller requests were accepted,
  so the size is what changed: the first refusal is the overflow answer, whatever its
  status or wording (the checks then ask whether the classifiers recognise it). A 429 is
  not a refusal: it is waited out and retried, and one that persists stops the search.

Growth starts at ``START_TOKENS`` and doubles until a probe does not fit (with a declared
window, it goes to sizes predicted just under and just over the claim as soon as they are
within reach, so that two probes settle a right claim early); bisection then narrows the
bracket between the largest fitting and the smallest non-fitting size until they are
within ``RESOLUTION`` (1 %, at least ``MIN_RESOLUTION_TOKENS``). A probe is sent only when
the ledger can afford it *plus* a reserve for what follows (the streamed overflow and the
recovery session, ``SearchPlan.reserve_factor`` times its size, and ``RESERVED_REQUESTS``
requests); otherwise the search stops with the bracket it has.

The calibration maps estimates to the endpoint's own count: a line through the small
request and the first growth probe (the filler is uniform, so counts grow linearly with
it). Without reported usage the estimate stands in, and truncation cannot be seen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Final, Literal, TypeAlias

from harness.conformance.budget import BudgetExhausted, Ledger
from harness.conformance.probes import Prober, Sent, is_rate_limit

START_TOKENS: Final = 256
RESOLUTION: Final = 0.01
MIN_RESOLUTION_TOKENS: Final = 8
MAX_GROWTH_STEPS: Final = 24
MIN_GROWTH: Final = 1.25
EDGE_REACH: Final = 4
"""Growth goes straight to a claim edge at most this many times the current size away."""
RESERVED_REQUESTS: Final = 5
LINE_POINTS: Final = 2
"""Calibration points that fit a line (reported = a * estimate + b)."""
WINDOW_TOLERANCE: Final = 0.05
"""A declared window is right when the measured one is within 5 % of it."""
TRUNCATION_SLACK: Final = 0.97
"""A reply reporting under 97 % of the predicted input is a silent truncation."""

Stop: TypeAlias = Literal["bracketed", "budget", "rate_limited", "no_refusal"]


@dataclass(frozen=True, slots=True)
class Calibration:
    """``reported ≈ slope * estimate + intercept``; the identity when nothing was reported."""

    slope: float = 1.0
    intercept: float = 0.0
    measured: bool = False

    def expected(self, estimate: int) -> float:
        return self.slope * estimate + self.intercept

    @classmethod
    def fit(cls, points: list[tuple[int, int]]) -> Calibration:
        if len(points) >= LINE_POINTS and points[1][0] != points[0][0]:
            (e1, r1), (e2, r2) = points[0], points[1]
            slope = (r2 - r1) / (e2 - e1)
            if slope > 0:
                return cls(slope, r1 - slope * e1, measured=True)
        if points and points[0][0] > 0:
            estimate, reported = points[-1]
            return cls(reported / estimate, 0.0, measured=True)
        return cls()


@dataclass(frozen=True, slots=True)
class Point:
    estimate: int
    sent: Sent
    truncated: bool = False

    @property
    def fits(self) -> bool:
        return self.sent.ok and not self.truncated

    @property
    def reported(self) -> int | None:
        return self.sent.reply.usage.input_tokens if self.sent.reply else None


@dataclass(slots=True)
class WindowSearch:
    points: list[Point] = field(default_factory=list)
    calibration: Calibration = field(default_factory=Calibration)
    stopped: Stop = "no_refusal"
    _calibration_points: list[tuple[int, int]] = field(default_factory=list)

    @property
    def fitting(self) -> Point | None:
        fits = [p for p in self.points if p.fits]
        return max(fits, key=lambda p: p.estimate) if fits else None

    @property
    def not_fitting(self) -> Point | None:
        misses = [p for p in self.points if not p.fits]
        return min(misses, key=lambda p: p.estimate) if misses else None

    @property
    def first_refusal(self) -> Point | None:
        return next((p for p in self.points if p.sent.error is not None), None)

    @property
    def truncations(self) -> list[Point]:
        return [p for p in self.points if p.truncated]

    @property
    def measured(self) -> int | None:
        """The window in the endpoint's tokens, once the bracket closed (or truncated
        replies showed it): the largest fitting input it reported (or estimated), or the
        plateau truncated replies report, whichever is larger."""
        plateau = [p.reported or 0 for p in self.truncations]
        if self.stopped != "bracketed" and not plateau:
            return None
        low = self.lower_bound
        values = [*plateau, *([] if low is None else [low])]
        return max(values) if values else None

    @property
    def lower_bound(self) -> int | None:
        """At least this many tokens fit (known even when the search stopped early)."""
        fit = self.fitting
        if fit is None:
            return None
        return fit.reported if fit.reported is not None else fit.estimate

    @property
    def upper_bound(self) -> int | None:
        """Requests of this size (in the endpoint's tokens, predicted) did not fit."""
        miss = self.not_fitting
        return None if miss is None else round(self.calibration.expected(miss.estimate))

    def add(self, sent: Sent) -> Point:
        reported = sent.reply.usage.input_tokens if sent.reply else None
        truncated = False
        if reported is not None and len(self._calibration_points) >= LINE_POINTS:
            truncated = reported < TRUNCATION_SLACK * self.calibration.expected(sent.estimate)
        elif reported is not None:
            self._calibration_points.append((sent.estimate, reported))
            self.calibration = Calibration.fit(self._calibration_points)
        point = Point(sent.estimate, sent, truncated)
        self.points.append(point)
        return point


def _resolution(low: int) -> int:
    return max(MIN_RESOLUTION_TOKENS, int(low * RESOLUTION))


def within_claim(search: WindowSearch, claim: int) -> bool:
    """The bracket lies inside the claim's tolerance band: the claim holds even when the
    budget stopped the search before the bracket closed."""
    low, high, slack = search.lower_bound, search.upper_bound, WINDOW_TOLERANCE * claim
    return low is not None and high is not None and claim - slack <= low <= high <= claim + slack


@dataclass(frozen=True, slots=True)
class SearchPlan:
    """``reserve_factor``: tokens kept back for the probes after the search (streamed
    overflow, recovery session), as a multiple of a probe's size. ``claim``: the declared
    window, whose band edges the growth stops at."""

    reserve_factor: float
    claim: int | None = None


def claim_edges(calibration: Calibration, claim: int) -> tuple[int, int]:
    """Sizes (estimates) predicted at half the tolerance under and over the claim."""
    half = WINDOW_TOLERANCE / 2
    low, high = (
        math.ceil((claim * factor - calibration.intercept) / calibration.slope)
        for factor in (1 - half, 1 + half)
    )
    return low, high


def next_growth(search: WindowSearch, plan: SearchPlan, size: int, ledger: Ledger) -> int:
    """Double; but once calibrated, go to the nearest claim edge when it lies within
    ``EDGE_REACH`` times the size (the doublings below it would only confirm what the edge
    probe shows), so two probes either side of the claim settle it early. The edge is
    taken as it is, however close: the two edges are only ``WINDOW_TOLERANCE`` apart, and a
    minimum step would jump from the lower edge clean over the upper one. A doubled size
    the budget cannot pay for shrinks to the largest it can (at least ``MIN_GROWTH``)."""
    doubled = size * 2
    affordable = int(ledger.remaining_tokens / (1 + plan.reserve_factor))
    if plan.claim is not None and search.calibration.measured:
        edges = claim_edges(search.calibration, plan.claim)
        reachable = [e for e in edges if size < e <= size * EDGE_REACH and e <= affordable]
        if reachable:
            return min(reachable)
    return max(math.ceil(size * MIN_GROWTH), min(doubled, affordable))


async def _probe(
    prober: Prober, ledger: Ledger, search: WindowSearch, size: int, plan: SearchPlan
) -> Point | None:
    reserve = int(size * plan.reserve_factor)
    if not ledger.can_afford(size + reserve, requests=1 + RESERVED_REQUESTS):
        search.stopped = "budget"
        return None
    try:
        sent = await prober.sized(size, purpose="window")
    except BudgetExhausted:  # the reserve makes this rare: a charge raised by usage
        search.stopped = "budget"
        return None
    if sent.error is not None and is_rate_limit(sent.error):
        search.stopped = "rate_limited"  # still throttled after the retries: no signal
        return None
    return search.add(sent)


async def find_window(
    prober: Prober, ledger: Ledger, small: Sent, plan: SearchPlan
) -> WindowSearch:
    """Grow, then bisect; ``small`` (the answered small request) is the first point."""
    search = WindowSearch()
    search.add(small)
    size = max(START_TOKENS, small.estimate * 2)
    for _ in range(MAX_GROWTH_STEPS):
        point = await _probe(prober, ledger, search, size, plan)
        if point is None:
            return search
        if not point.fits:
            break
        size = next_growth(search, plan, size, ledger)
    else:
        return search
    return await _bisect(prober, ledger, search, plan)


async def _bisect(
    prober: Prober, ledger: Ledger, search: WindowSearch, plan: SearchPlan
) -> WindowSearch:
    while True:
        fit, miss = search.fitting, search.not_fitting
        assert fit is not None, "the small request fits"
        assert miss is not None, "bisection starts after a miss"
        if miss.estimate - fit.estimate <= _resolution(fit.estimate):
            search.stopped = "bracketed"
            return search
        middle = (fit.estimate + miss.estimate) // 2
        if await _probe(prober, ledger, search, middle, plan) is None:
            return search
