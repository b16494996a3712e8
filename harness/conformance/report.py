"""The conformance report: verdicts, findings, the cost spent, and every exchange.

A report is data (frozen dataclasses); ``to_json`` gives the ``--json`` document and
``harness.conformance.render`` the table and the Markdown. Every string in it that came
from the endpoint has been redacted (``metered.Redactor``).
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from harness.conformance.metered import PROVIDER_SIDE_PURPOSE, Exchange
from harness.conformance.recovery import RecoveryResult
from harness.exit_codes import ExitCode

SCHEMA_VERSION: Final = 1


class Verdict(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"
    NOT_APPLICABLE = "n/a"

    @property
    def acceptable(self) -> bool:
        """``pass`` and ``n/a`` allow conformance; ``fail`` and ``inconclusive`` do not."""
        return self in (Verdict.PASS, Verdict.NOT_APPLICABLE)


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    title: str
    verdict: Verdict
    finding: str


@dataclass(frozen=True, slots=True)
class OverflowAnswer:
    """The endpoint's answer to a request past its window."""

    shape: str
    """``http_error`` (4xx), ``http_200_error_body``, ``http_5xx``, ``in_stream_error``,
    ``no_http_status`` (the connection failed), ``silent_truncation`` or
    ``stream_accepted`` (a streamed request past the window was answered)."""
    status: int | None
    streamed: bool
    estimate_tokens: int
    error_class: str | None
    reference: bool
    extended: bool
    excerpt: str


@dataclass(frozen=True, slots=True)
class PairingOutcome:
    probe: str
    outcome: str
    """``accepted``; ``rejected`` (a 4xx whose body is about tool calls and results);
    ``failed`` (any other error: a 5xx, a 4xx about something else; the excerpt shows
    it); ``throttled`` (429 after the retries) or ``not_sent`` (budget)."""
    status: int | None = None
    excerpt: str = ""


@dataclass(frozen=True, slots=True)
class WindowFinding:
    declared: int | None
    measured: int | None
    lower_bound: int | None
    upper_bound: int | None
    tolerance: float
    stopped: str
    probes: int


@dataclass(frozen=True, slots=True)
class Spent:
    max_requests: int
    max_input_tokens: int
    requests: int
    input_tokens: int
    """Charged against ``max_input_tokens`` (estimates, raised to reported counts)."""
    estimated_input_tokens: int
    reported_input_tokens: int


@dataclass(frozen=True, slots=True)
class EstimateRatio:
    """The endpoint's reported input tokens ÷ the runtime's estimate, over the answered
    requests that reported usage (provider-side probes left out: their usage is of the
    context the endpoint edited): how far ``ceil(bytes/4) + 4`` per row is from this
    endpoint's tokenizer for the probes' text (ASCII words, JSON tool rows). Above 1 the
    estimate undercounts and budgets need that much headroom."""

    samples: int
    low: float
    median: float
    high: float
    overall: float
    """Sum of reported ÷ sum of estimated."""

    @classmethod
    def of(cls, exchanges: Sequence[Exchange]) -> EstimateRatio | None:
        pairs = [
            (e.reported_input_tokens, e.estimate_tokens)
            for e in exchanges
            if e.ok
            and e.reported_input_tokens is not None
            and e.estimate_tokens > 0
            # an edited context (cleared, compacted) is not what the estimate measured
            and not e.purpose.startswith(PROVIDER_SIDE_PURPOSE)
        ]
        if not pairs:
            return None
        ratios = sorted(reported / estimate for reported, estimate in pairs)
        overall = sum(r for r, _ in pairs) / sum(e for _, e in pairs)
        return cls(len(ratios), ratios[0], statistics.median(ratios), ratios[-1], overall)


@dataclass(frozen=True, slots=True)
class ConformanceReport:
    provider: str
    base_url: str
    model: str
    spent: Spent
    checks: tuple[Check, ...]
    window: WindowFinding
    overflow: tuple[OverflowAnswer, ...]
    pairing: tuple[PairingOutcome, ...]
    row_shapes: tuple[PairingOutcome, ...]
    """The two well-paired tool rounds: call row with ``content: null``, then ``""``."""
    recovery: RecoveryResult
    exchanges: tuple[Exchange, ...]
    counter: str
    """The counter behind the endpoint's token figures (``harness.conformance.counter``)."""
    estimate_ratio: EstimateRatio | None = None

    @property
    def conforms(self) -> bool:
        return all(check.verdict.acceptable for check in self.checks)

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.CONFORMS if self.conforms else ExitCode.DOES_NOT_CONFORM

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why it does not conform: one line per failing or inconclusive check."""
        return tuple(f"{c.title}: {c.finding}" for c in self.checks if not c.verdict.acceptable)

    def check(self, name: str) -> Check:
        for check in self.checks:
            if check.name == name:
                return check
        raise KeyError(name)

    def verdicts(self) -> dict[str, str]:
        return {check.name: check.verdict.value for check in self.checks}

    def to_json(self) -> dict[str, object]:
        return {
            "schema_version": SCHEMA_VERSION,
            "provider": self.provider,
            "base_url": self.base_url,
            "model": self.model,
            "conforms": self.conforms,
            "exit_code": self.exit_code,
            "reasons": list(self.reasons),
            "checks": [dataclasses.asdict(c) for c in self.checks],
            "spent": dataclasses.asdict(self.spent),
            "window": dataclasses.asdict(self.window),
            "overflow": [dataclasses.asdict(o) for o in self.overflow],
            "pairing": [dataclasses.asdict(p) for p in self.pairing],
            "row_shapes": [dataclasses.asdict(p) for p in self.row_shapes],
            "recovery": dataclasses.asdict(self.recovery),
            "exchanges": [dataclasses.asdict(e) for e in self.exchanges],
            "estimate_ratio": (
                None if self.estimate_ratio is None else dataclasses.asdict(self.estimate_ratio)
            ),
            "counter": self.counter,
        }
