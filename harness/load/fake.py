"""The fake behind a load run: one ``FakeProvider`` that scripts each session on its own.

A plain fake numbers calls across everything it serves, so thousands of interleaved
sessions would share one script. ``SessionScriptedFake`` numbers calls per session (the
``SESSION_HEADER`` every load client sends) and answers call ``n`` of a session with the
template's step ``n``; requests without the header fall back to the global numbering.

``CountingLog`` keeps counts instead of every exchange: a long run would otherwise keep
each request body in the server's memory.

**Per-session state is bounded by the sessions at once**, not the sessions of the run
(issue 28: the fake grew ~5 KB a session). A session's cached prefixes (``PrefixStore``
keys, LRU) and the row costs behind them are sized ``CACHE_KEYS_PER_SLOT`` keys per
concurrent session: a session running is touched on each of its calls, so only one that
sat idle while that many others made calls loses its cache (a miss, as a real provider's
eviction would be). The per-session call counters, which carry each session's script
position, are kept for ``MAX_TRACKED_SESSIONS`` sessions (~150 bytes each).
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, replace

from fakes import (
    Exchange,
    FakeBehaviour,
    FakeProvider,
    FakeScript,
    RequestLog,
    counter_label,
)
from fakes.serving.answer import Answer
from fakes.simulations.caching import DEFAULT_MAX_KEYS, CachePolicyName, PrefixStore
from fakes.simulations.prefix_chain import ROW_COST_CACHE_ENTRIES, RowCosts
from fakes.wire.base import RequestContext, WireFormat
from harness.load.template import SESSION_HEADER, ProviderTemplate

MAX_TRACKED_SESSIONS = 100_000
"""Per-session call counters kept by one fake (the least recently called forgotten)."""
CACHE_KEYS_PER_SLOT = 4
MIN_CACHE_KEYS = 64
ROWS_PER_CACHE_KEY = 32
"""Row costs kept per cache key (a history's rows; more are counted again, not lost)."""


def load_cache_store(sessions_at_once: int) -> PrefixStore:
    """The prefix store of a load fake serving ``sessions_at_once`` sessions at a time."""
    keys = min(DEFAULT_MAX_KEYS, max(MIN_CACHE_KEYS, CACHE_KEYS_PER_SLOT * sessions_at_once))
    rows = min(ROW_COST_CACHE_ENTRIES, keys * ROWS_PER_CACHE_KEY)
    return PrefixStore(max_keys=keys, row_costs=RowCosts(rows))


class CountingLog(RequestLog):
    """A request log that counts exchanges by outcome and status and keeps none."""

    def __init__(self) -> None:
        super().__init__()
        self._count_lock = threading.Lock()
        self.outcomes: Counter[str] = Counter()
        self.statuses: Counter[int] = Counter()
        self.generation_requests = 0
        self.requests = 0

    def record(self, exchange: Exchange) -> None:
        with self._count_lock:
            self.requests += 1
            if exchange.call_index is not None:
                self.generation_requests += 1
            self.outcomes[exchange.outcome] += 1
            self.statuses[exchange.status] += 1

    def __len__(self) -> int:
        with self._count_lock:
            return self.requests


class SessionScriptedFake(FakeProvider):
    """A fake whose script runs per session (see the module docstring)."""

    def __init__(  # noqa: PLR0913 (one keyword per fake setting a scenario can give)
        self,
        provider: str,
        model: str,
        *,
        context_window: int,
        counter: str,
        variant: str,
        session_script: FakeScript,
        cycle: bool,
        latency_ms: int = 0,
        caching: CachePolicyName | None = None,
        cache_store: PrefixStore | None = None,
    ) -> None:
        # The global script only delays (app.py applies its latency before sending the
        # answer) and draws the faults at a rate, by the fake's own call numbers: a rate is
        # a share of the route's calls, and the engine draws from ``self.script``.
        delay = FakeScript(
            default=FakeBehaviour(latency_ms=latency_ms), faults=session_script.faults
        )
        super().__init__(
            provider,
            model,
            context_window=context_window,
            counter=counter,
            script=delay,
            variant=variant,
            caching=caching,
            cache_store=cache_store,
        )
        self.session_script = session_script
        self.cycle = cycle
        self._session_lock = threading.Lock()
        self._session_calls: dict[str, int] = {}

    def session_behaviour(self, session: str) -> FakeBehaviour:
        with self._session_lock:
            index = self._session_calls.pop(session, 0)
            self._session_calls[session] = index + 1  # re-inserted: newest last
            if len(self._session_calls) > MAX_TRACKED_SESSIONS:
                del self._session_calls[next(iter(self._session_calls))]
        return self.step(index)

    def step(self, index: int) -> FakeBehaviour:
        steps = self.session_script.steps
        if self.cycle and steps:
            return steps[index % len(steps)]
        return self.session_script.behaviour_for(index)

    def answer(
        self,
        wire: WireFormat,
        raw: bytes,
        ctx: RequestContext,
        index: int,
        behaviour: FakeBehaviour,
    ) -> Answer:
        session = ctx.headers.get(SESSION_HEADER)
        scripted = self.session_behaviour(session) if session is not None else self.step(index)
        # the step's own delay, and the route's on top (issue 28: the step's was replaced)
        behaviour = replace(scripted, latency_ms=scripted.latency_ms + behaviour.latency_ms)
        return super().answer(wire, raw, ctx, index, behaviour)


def build_load_fake(
    provider: ProviderTemplate, *, counting: bool, sessions_at_once: int | None = None
) -> SessionScriptedFake:
    """The fake for one provider route; ``counting`` swaps in a ``CountingLog``;
    ``sessions_at_once`` (the plan's concurrency) bounds its cache (``load_cache_store``)."""
    fake = SessionScriptedFake(
        provider.fake_profile,
        provider.served_model,
        context_window=provider.fake_window,
        counter=provider.counter,
        variant=provider.variant,
        session_script=provider.script,
        cycle=provider.cycle,
        latency_ms=provider.latency_ms,
        caching=provider.caching,
        cache_store=load_cache_store(sessions_at_once) if sessions_at_once else None,
    )
    if counting:
        fake.log = CountingLog()
    return fake


@dataclass(frozen=True, slots=True)
class ServerStats:
    """What a fake-server process reports when it stops."""

    ref: str
    requests: int
    generation_requests: int
    outcomes: dict[str, int]
    statuses: dict[str, int]
    cpu_s: float
    peak_rss_mb: float
    counter: str
    """The counter behind the fake's token counts, as the fake used it (``counter_label``
    of its ``TokenCounter.name``: ``o200k_base (exact)``, ``heuristic (estimate: ...)``)."""
    unanswered: int = 0
    """Generation requests the fake read and numbered but stopped before answering (a
    call in flight at a signal, held by its latency past the server's graceful stop):
    counted in ``generation_requests``, in no outcome. The harness counts them
    ``cancelled``, so the two agree to the call (issue 28)."""

    @classmethod
    def from_fake(
        cls, ref: str, fake: FakeProvider, cpu_s: float, peak_rss_mb: float
    ) -> ServerStats:
        log = fake.log
        if isinstance(log, CountingLog):
            outcomes = dict(log.outcomes)
            statuses = {str(k): v for k, v in log.statuses.items()}
            total, generation = log.requests, log.generation_requests
        else:
            entries = log.entries()
            outcomes = dict(Counter(e.outcome for e in entries))
            statuses = {str(k): v for k, v in Counter(e.status for e in entries).items()}
            total, generation = len(entries), len(log.calls())
        unanswered = max(0, fake.calls_taken - generation)
        counter = counter_label(fake.counter.name)
        return cls(
            ref,
            total + unanswered,
            generation + unanswered,
            outcomes,
            statuses,
            cpu_s,
            peak_rss_mb,
            counter,
            unanswered,
        )
