"""``trimscope run --sut``: every portable scenario through a runtime process, judged.

``workers`` runtime processes serve the run, a session per scenario, one session at a
time each (``harness.sut.worker``); a process is started again after a scenario where it
broke the protocol, hung or died, so one fault costs one verdict. When it cannot even
greet (``hello``), every scenario left gets that verdict at once: a run is bounded by
(scenarios x timeouts) at worst. One fake host serves every scenario's fake. The
in-process reference runs the same scenarios in the background, for the comparison.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypeAlias

from fakes.rows import Row
from fakes.serving.log import Exchange
from harness.interrupt import StopRequest
from harness.scenarios.environment import FAKE_FOR_KIND, SCENARIO_API_KEY, build_fake
from harness.scenarios.loader import LoadedScenario
from harness.sut.child import RuntimeFault, RuntimeProcess
from harness.sut.drive import Driven, SessionDriver
from harness.sut.fakehost import FakeHost
from harness.sut.inprocess import References
from harness.sut.judge import (
    ERROR_STATUS,
    Call,
    SessionLog,
    Violation,
    judge_findings,
    judge_session,
)
from harness.sut.observe import final_answers, findings
from harness.sut.portable import not_portable, open_message, wire_of
from harness.sut.protocol import Open, RuntimeHello
from harness.sut.settings import (
    DEFAULT_OP_TIMEOUT_S,
    DEFAULT_SCENARIO_TIMEOUT_S,
    DEFAULT_WORKERS,
)
from harness.sut.side import reported_side_calls, side_requests
from harness.sut.worker import Worker
from harness.wire.model import Finding

Verdict: TypeAlias = Literal["PASS", "FAIL", "SKIP", "TIMEOUT", "CRASH", "PROTOCOL"]


@dataclass(frozen=True, slots=True)
class SutOutcome:
    path: Path
    scenario_id: str
    verdict: Verdict
    violations: tuple[Violation, ...] = ()
    skipped_reason: str | None = None
    detail: str = ""
    requests: int = 0
    identical: int = 0
    reference_requests: int = 0
    overflows: int = 0
    trims: int = 0
    duration_s: float = 0.0
    side_requests: int = 0
    """Requests judged apart from the conversation (a summariser's: ``harness.sut.side``)."""


@dataclass(frozen=True, slots=True)
class JudgedSession:
    """One scenario's session as it was judged: what a ``SessionObserver`` is given.
    ``exchanges`` are the fake's log (each request the runtime sent, as received, and the
    answer), ``driven`` the protocol side (turns, events), ``outcome`` the verdict."""

    item: LoadedScenario
    opening: Open
    driven: Driven
    exchanges: tuple[Exchange, ...]
    outcome: SutOutcome
    wire_findings: tuple[Finding, ...] = ()
    """What the wire observer inferred from ``exchanges`` (the verdict's own reading)."""


SessionObserver: TypeAlias = Callable[[JudgedSession], None]
"""Called once per judged session (PASS or FAIL), in the run's loop: keep it quick."""


@dataclass
class SutSuite:
    argv: list[str]
    op_timeout_s: float = DEFAULT_OP_TIMEOUT_S
    scenario_timeout_s: float = DEFAULT_SCENARIO_TIMEOUT_S
    workers: int = DEFAULT_WORKERS
    observers: Sequence[SessionObserver] = ()
    """Given each judged session (``trimscope matrix`` keeps the requests it quotes)."""
    hello: RuntimeHello | None = None
    """The first hello any process gave (the JSON's ``sut``)."""
    _broken: RuntimeFault | None = None
    host: FakeHost = field(default_factory=FakeHost)
    references: References | None = field(default_factory=References)
    """The in-process reference, for the identical-request counts; ``None``: not run
    (the counts are then zero)."""

    async def run_one(self, item: LoadedScenario, index: int, worker: Worker) -> SutOutcome:
        reason = not_portable(item.scenario)
        if reason is not None:
            return SutOutcome(item.path, item.scenario.id, "SKIP", skipped_reason=reason)
        if self._broken is not None:
            return _faulted(item, self._broken, 0.0)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.scenario_timeout_s):
                process = await worker.greeted()
                self.hello = self.hello or worker.hello
                reason = worker.skip_reason(item)
                if reason is not None:
                    return SutOutcome(item.path, item.scenario.id, "SKIP", skipped_reason=reason)
                return await self._session(process, worker, item, index, started)
        except RuntimeFault as fault:
            return await self._after_fault(item, worker, fault, started)
        except TimeoutError:
            overdue = RuntimeFault("TIMEOUT", f"scenario over {self.scenario_timeout_s:g}s")
            return await self._after_fault(item, worker, overdue, started)

    async def _after_fault(
        self, item: LoadedScenario, worker: Worker, fault: RuntimeFault, started: float
    ) -> SutOutcome:
        """Stop the broken process (a new one serves the next scenario), unless it did not
        greet: then every scenario left gets the same verdict without a new try."""
        if worker.hello is None:
            fault = self._broken = RuntimeFault(fault.verdict, f"at hello: {fault.detail}")
        await worker.discard()
        return _faulted(item, fault, time.perf_counter() - started)

    async def _session(
        self,
        process: RuntimeProcess,
        worker: Worker,
        item: LoadedScenario,
        index: int,
        started: float,
    ) -> SutOutcome:
        scenario = item.scenario
        spec = next(iter(scenario.providers.values()))
        fake = build_fake(spec)
        key = f"{index}"
        base_url = self.host.mount(key, fake) + FAKE_FOR_KIND[spec.kind][1]
        try:
            opening = open_message(scenario, scenario.id, base_url, SCENARIO_API_KEY)
            driven = await SessionDriver(process, scenario, fake, self.op_timeout_s).run(opening)
        finally:
            self.host.unmount(key)
        if driven.unsupported is not None:
            reason = f"the runtime said unsupported: {driven.unsupported}"
            return SutOutcome(item.path, scenario.id, "SKIP", skipped_reason=reason)
        expected = [] if self.references is None else await _settled(self.references.expected(item))
        exchanges = tuple(fake.log.calls())
        reports_events = worker.hello is not None and "events" in worker.hello.features
        side = side_requests(
            session_log(item, opening, driven, exchanges),
            reported_side_calls(driven.events),
            final_answers(wire_of(scenario), scenario.id, exchanges),
        )
        seen = tuple(findings(wire_of(scenario), scenario.id, exchanges, side))
        outcome = judge(
            item, opening, driven, exchanges, expected,
            seen=seen, reports_events=reports_events, side=side,
        )  # fmt: skip
        outcome = replace(outcome, duration_s=time.perf_counter() - started)
        for observer in self.observers:
            observer(JudgedSession(item, opening, driven, exchanges, outcome, seen))
        return outcome


def judge(
    item: LoadedScenario,
    opening: Open,
    driven: Driven,
    exchanges: Sequence[Exchange],
    expected: Sequence[tuple[Row, ...]],
    *,
    seen: Sequence[Finding],
    reports_events: bool,
    side: Collection[int] = (),
) -> SutOutcome:
    """The verdict from the fake's log and the wire's findings of it (pure); ``side``:
    the numbers of the session's side requests (``harness.sut.side``)."""
    scenario = item.scenario
    log = session_log(item, opening, driven, exchanges)
    calls = log.calls
    trims = sum(event.kind == "trim" for event in driven.events)
    violations = judge_session(log, side) + judge_findings(
        seen, trims, reports_events=reports_events
    )
    return SutOutcome(
        item.path,
        scenario.id,
        "FAIL" if violations else "PASS",
        violations=tuple(violations),
        requests=len(calls),
        identical=sum(c.rows == rows for c, rows in zip(calls, expected, strict=False)),
        reference_requests=len(expected),
        overflows=sum(c.outcome == "overflow" for c in calls),
        trims=max(trims, sum(f.kind == "trim" for f in seen)),
        side_requests=len(side),
    )


def session_log(
    item: LoadedScenario, opening: Open, driven: Driven, exchanges: Sequence[Exchange]
) -> SessionLog:
    """What the judge reads of a session: each request with its turn, the turns, the
    window told and the system prompt."""
    calls = tuple(
        Call(n, turn, e.rows, e.tokens.total if e.tokens else None, e.outcome, e.status,
             refused=e.detail if not e.rows and e.status >= ERROR_STATUS else "")
        for n, (e, turn) in enumerate(zip(exchanges, driven.turn_of_call, strict=False), 1)
    )  # fmt: skip
    system = item.scenario.system_prompt
    return SessionLog(system, opening.context_window, tuple(driven.turns), calls)


async def _settled(expected: asyncio.Future[list[tuple[Row, ...]]]) -> list[tuple[Row, ...]]:
    """The reference's requests; none when it failed (the comparison then counts zero)."""
    try:
        return await expected
    except Exception:
        return []


def _faulted(item: LoadedScenario, fault: RuntimeFault, duration_s: float) -> SutOutcome:
    verdict: Verdict = fault.verdict  # type: ignore[assignment]
    return SutOutcome(item.path, item.scenario.id, verdict, detail=fault.detail,
                      duration_s=duration_s)  # fmt: skip


Progress = Callable[[SutOutcome], None]


def run_sut_suite(
    suite: SutSuite, loaded: Sequence[LoadedScenario], progress: Progress, stop: StopRequest
) -> list[SutOutcome]:
    """Every scenario (in the order given), or those finished before a stop. ``workers``
    runtime processes take the scenarios in turn; the processes and the fake host are
    stopped (process groups reaped) in every case, Ctrl-C included."""

    async def main() -> list[SutOutcome]:
        loop = asyncio.get_running_loop()
        finished: dict[int, SutOutcome] = {}
        pending = iter(enumerate(loaded))
        workers = [Worker(suite.argv, suite.op_timeout_s) for _ in range(suite.workers)]

        async def serve(worker: Worker) -> None:
            for index, item in pending:  # one shared iterator: each scenario runs once
                finished[index] = outcome = await suite.run_one(item, index, worker)
                progress(outcome)

        await suite.host.start()
        if suite.references is not None:
            suite.references.start(loaded)
        every = asyncio.gather(*(serve(worker) for worker in workers))

        def cancel() -> None:  # from the signal handler: through the loop's self-pipe
            loop.call_soon_threadsafe(every.cancel)

        try:
            with stop.on_request(cancel):
                await every
        except asyncio.CancelledError:
            if not stop.requested:
                raise
        finally:
            if suite.references is not None:
                await suite.references.stop()
            await asyncio.gather(*(worker.close() for worker in workers))
            await suite.host.stop()
        return [finished[index] for index in sorted(finished)]

    return asyncio.run(main())
