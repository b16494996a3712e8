"""What ``trimscope fake serve`` can be told beyond its script: faults at a rate, a
latency for every call, caching, the provider-side handling, the clock (what a
scenario's ``fake`` can set), each checked and refused with exit 2 naming the option."""

from __future__ import annotations

import math
from dataclasses import replace

import typer

from fakes import RATE_KINDS, FakeBehaviour, FakeScript, FaultRates

RATE_HELP = (
    f"KIND=RATE, repeatable: this share (0..1) of calls gets this fault, KIND one of "
    f"{', '.join(RATE_KINDS)}; the shares sum to at most 1; placed by --seed "
    "(docs/fakes-fidelity.md, 'Faults at a rate')."
)
MAX_SECONDS_PER_CALL = 86_400.0  # one simulated day between calls: far past any cache TTL


def _rate(text: str) -> tuple[str, float]:
    kind, sep, value = text.partition("=")
    kind = kind.strip()
    if not sep or kind not in RATE_KINDS:
        raise typer.BadParameter(
            f"expected KIND=RATE with KIND one of {', '.join(RATE_KINDS)}, found {text!r}",
            param_hint="--fault-rate",
        )
    try:
        rate = float(value)
    except ValueError:
        rate = math.nan
    if not (math.isfinite(rate) and 0.0 <= rate <= 1.0):
        raise typer.BadParameter(
            f"{kind}: expected a rate in 0..1, found {value!r}", param_hint="--fault-rate"
        )
    return kind, rate


def fault_rates(
    texts: list[str] | None,
    seed: int | None,
    details: tuple[int, int, float],
    scripted: FaultRates | None,
) -> FaultRates | None:
    """``--fault-rate`` (with ``--seed`` and the details ``--fault-status``,
    ``--retry-after``, ``--hang-seconds``) replaces the script's rates; ``--seed`` alone
    reseeds them."""
    status, retry_after, hang_seconds = details
    if not texts:
        if scripted is not None and seed is not None:
            return replace(scripted, seed=seed)
        return scripted
    rates: dict[str, float] = {}
    for text in texts:
        kind, rate = _rate(text)
        if kind in rates:
            raise typer.BadParameter(f"{kind} given twice", param_hint="--fault-rate")
        rates[kind] = rate
    total = sum(rates.values())
    if total > 1.0 + 1e-9:
        raise typer.BadParameter(
            f"expected rates that sum to at most 1, found {total:g}", param_hint="--fault-rate"
        )
    return FaultRates(
        **rates,
        seed=seed if seed is not None else 0,
        status=status,
        retry_after=retry_after,
        hang_seconds=hang_seconds,
    )


def _slowed(step: FakeBehaviour, latency_ms: int) -> FakeBehaviour:
    return step if step.latency_ms else replace(step, latency_ms=latency_ms)


def with_latency(script: FakeScript, latency_ms: int) -> FakeScript:
    """Every step that sets no ``latency_ms`` of its own waits ``latency_ms``."""
    if latency_ms == 0:
        return script
    return replace(
        script,
        steps=tuple(_slowed(step, latency_ms) for step in script.steps),
        default=_slowed(script.default, latency_ms),
    )
