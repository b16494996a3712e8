"""The ratios and goals table of ``python -m bench load``, from the figures of its runs:
every measure with its value, and beside it the goal it is judged against (met / NOT MET)
or "(information)"."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bench.load_probes import Memory, SessionLength
from bench.load_runs import Measured
from bench.load_settings import (
    GOAL_CACHING,
    GOAL_MEMORY,
    GOAL_OBSERVERS,
    GOAL_OBSERVERS_LATENT,
    GOAL_OVERHEAD,
    GOAL_SESSION_LENGTH,
    LONG_TURNS,
    MEMORY_SESSIONS,
    MEMORY_TURNS,
    ROUNDS,
    SAMPLE_ONE_IN,
    SHORT_TURNS,
)
from bench.observer_floor import GOAL_FLOOR_RATIO, Floor

INFO = "(information)"


def median_of(values: Sequence[Measured], key: Callable[[Measured], float]) -> float:
    return statistics.median(key(v) for v in values)


@dataclass(frozen=True, slots=True)
class Ratios:
    """The rounds' medians compared: what each part of the harness costs."""

    overhead: float
    """Baseline calls/s ÷ harness calls/s − 1, paired per round."""
    spread: str
    """The rounds' overheads from least to most (the noise)."""
    observers: float
    apart: dict[str, float]
    """Off ÷ on − 1 of the runs shown for information: sampled, each observer alone."""
    caching: float
    cpu_overhead: float
    cpu_observers: float
    agent_ms: float

    @classmethod
    def of(cls, runs: dict[str, list[Measured]]) -> Ratios:
        rate = {k: median_of(v, lambda m: m.rate) for k, v in runs.items()}
        cpu = {k: median_of(v, lambda m: m.cpu_ms_per_call) for k, v in runs.items()}
        overhead, spread = paired(runs["baseline"], runs["harness"])
        return cls(
            overhead=overhead,
            spread=spread,
            observers=rate["harness"] / rate["observers"] - 1,
            apart={k: rate["harness"] / rate[k] - 1 for k in ("sampled", "otel", "prometheus")},
            caching=rate["nocache"] / rate["harness"] - 1,
            cpu_overhead=cpu["harness"] / cpu["baseline"] - 1,
            cpu_observers=cpu["observers"] / cpu["harness"] - 1,
            agent_ms=median_of(runs["harness"], lambda m: m.overhead_p50_ms),
        )


def measure_rows(
    found: Ratios, memory: Memory, floor: Floor, length: SessionLength
) -> list[list[str]]:
    """Every measure and its value, in the order ``goal_cells`` judges them (the fake
    server's CPU rows, ``fake_cpu_rows``, come after)."""
    history = f"{memory.rows} rows, {memory.text / 1024:,.1f} KiB of text"
    sessions = f"{MEMORY_SESSIONS} sessions"
    return [
        [f"harness overhead: baseline calls/s ÷ harness calls/s − 1, median of {ROUNDS}"
         f" rounds (each {found.spread})", f"{found.overhead:+.1%}"],
        ["observers on vs off: off calls/s ÷ on calls/s − 1", f"{found.observers:+.1%}"],
        [f"observers ÷ SDK floor, CPU, same {floor.events:,} recorded events",
         f"{floor.ratio:.2f}×"],
        ["harness CPU per call ÷ baseline CPU per call − 1", f"{found.cpu_overhead:+.1%}"],
        ["observers CPU per call, on ÷ off − 1", f"{found.cpu_observers:+.1%}"],
        [f"observers, 1 trace in {SAMPLE_ONE_IN} (every metric): off ÷ on − 1",
         f"{found.apart['sampled']:+.1%}"],
        ["OTel observer alone, every trace: off ÷ on − 1", f"{found.apart['otel']:+.1%}"],
        ["Prometheus observer alone (no exemplars): off ÷ on − 1",
         f"{found.apart['prometheus']:+.1%}"],
        ["caching on vs off: off calls/s ÷ on calls/s − 1", f"{found.caching:+.1%}"],
        ["agent time per call outside HTTP (p50, trim + estimate + checks)",
         f"{found.agent_ms:.3f} ms"],
        [f"the same in CPU, {LONG_TURNS}-turn ÷ {SHORT_TURNS}-turn sessions "
         f"({length.long_ms:.3f} / {length.short_ms:.3f} ms)", f"{length.ratio:.2f}×"],
        [f"idle session holding a {MEMORY_TURNS}-turn history ({history})",
         f"{memory.per_session / 1024:,.1f} KiB"],
        [f"process-wide row caches after those {sessions} (bounded, shared)",
         f"{memory.caches / 1024:,.1f} KiB"],
    ]  # fmt: skip


def goal_cells(
    found: Ratios, memory: Memory, floor: Floor, length: SessionLength, *, latency_ms: int
) -> list[str]:
    """The goal beside each of ``measure_rows`` that is judged (the rest: information).
    With latency only the observers are judged, against a model that takes time, both
    within 1%; the other goals are judged at an instantly answering fake (the run without
    latency), so nothing is judged twice."""
    memory_ratio = memory.per_session / memory.text if memory.text else 0.0
    if latency_ms:
        judged_apart = "(judged at 0 ms latency)"
        goals = [judged_apart, goal(found.observers, GOAL_OBSERVERS_LATENT), judged_apart]
        goals += [INFO, INFO, goal(found.apart["sampled"], GOAL_OBSERVERS_LATENT), INFO, INFO]
        return [*goals, judged_apart, INFO, judged_apart, f"{memory_ratio:.2f}× its text"]
    goals = [goal(found.overhead, GOAL_OVERHEAD), INFO]
    goals += [ratio_goal(floor.ratio, GOAL_FLOOR_RATIO), INFO, INFO]
    goals += [goal(found.apart["sampled"], GOAL_OBSERVERS), INFO, INFO]
    goals += [goal(found.caching, GOAL_CACHING), INFO]
    goals += [ratio_goal(length.ratio, GOAL_SESSION_LENGTH)]
    return [*goals, f"{memory_ratio:.2f}× its text, " + ratio_goal(memory_ratio, GOAL_MEMORY)]


def fake_cpu_rows(runs: dict[str, list[Measured]]) -> list[list[str]]:
    """The fake server's CPU per call beside the bench's, bare loop and harness: on a
    machine whose cores both processes share, throughput follows their sum per call."""
    fake = {k: [m.fake_ms_per_call for m in runs[k]] for k in ("baseline", "harness")}
    if any(value is None for values in fake.values() for value in values):
        return [["fake server CPU per call (bare loop / harness)", "n/a (no /proc)"]]
    base_fake = statistics.median(v for v in fake["baseline"] if v is not None)
    harness_fake = statistics.median(v for v in fake["harness"] if v is not None)
    base = median_of(runs["baseline"], lambda m: m.cpu_ms_per_call) + base_fake
    both = median_of(runs["harness"], lambda m: m.cpu_ms_per_call) + harness_fake
    off_fake = statistics.median(m.fake_ms_per_call or 0.0 for m in runs["nocache"])
    return [
        ["fake server CPU per call (bare loop / harness)",
         f"{base_fake:.3f} / {harness_fake:.3f} ms"],
        ["bench + fake CPU per call, harness ÷ bare loop − 1 "
         f"({both:.3f} / {base:.3f} ms)", f"{both / base - 1:+.1%}"],
        # the caching goal's CPU side: the throughput row is noisy on a shared machine
        [f"fake server CPU per call, caching on ÷ off − 1 ({harness_fake:.3f} / "
         f"{off_fake:.3f} ms)", f"{harness_fake / off_fake - 1:+.1%}" if off_fake else "n/a"],
    ]  # fmt: skip


def paired(base: Sequence[Measured], other: Sequence[Measured]) -> tuple[float, str]:
    """``base`` calls/s ÷ ``other`` calls/s − 1 per round, the two measured back to back
    in it (a machine whose speed drifts between rounds slows both alike), the median of
    the rounds; and the rounds' values from least to most, to show the noise."""
    ratios = sorted(b.rate / o.rate - 1 for b, o in zip(base, other, strict=True))
    return statistics.median(ratios), " ".join(f"{r:+.0%}" for r in ratios)


def ratio_goal(value: float, most: float) -> str:
    """A ratio judged: at most ``most`` times."""
    return f"≤ {most:.2f}×: {'met' if value <= most else 'NOT MET'}"


def goal(value: float, most: float) -> str:
    """A share judged: at most ``most`` (a fraction, shown as a percentage)."""
    return f"≤ {most:.0%}: {'met' if value <= most else 'NOT MET'}"
