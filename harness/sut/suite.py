"""``trimscope run --sut``: every portable scenario through a runtime process, judged.

One runtime process serves the run (a session per scenario); it is started again after a
scenario where it broke the protocol, hung or died, so one fault costs one verdict. When
it cannot even greet (``hello``), every scenario left gets that verdict at once: a run is
bounded by (scenarios x timeouts) at worst. One fake host serves every scenario's fake.
The in-process reference runs the same scenario concurrently, for the comparison.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal, TypeAlias

from fakes.rows import Row
from harness.interrupt import StopRequest
from harness.scenarios.environment import FAKE_FOR_KIND, SCENARIO_API_KEY, build_fake
from harness.scenarios.loader import LoadedScenario
from harness.sut.child import RuntimeFault, RuntimeProcess
from harness.sut.drive import SessionDriver
from harness.sut.fakehost import FakeHost
from harness.sut.inprocess import reference_requests
from harness.sut.judge import Call, SessionLog, Violation, judge_findings, judge_session
from harness.sut.observe import findings
from harness.sut.portable import features_needed, not_portable, open_message, wire_of
from harness.sut.protocol import PROTOCOL_VERSION, Hello, RuntimeHello

Verdict: TypeAlias = Literal["PASS", "FAIL", "SKIP", "TIMEOUT", "CRASH", "PROTOCOL"]
DEFAULT_OP_TIMEOUT_S: Final = 30.0
"""How long trimscope waits for any one message of the runtime (a hello, an opened, the
next message of a turn): far above a provider call against a local fake."""
DEFAULT_SCENARIO_TIMEOUT_S: Final = 120.0


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


@dataclass
class SutSuite:
    argv: list[str]
    op_timeout_s: float = DEFAULT_OP_TIMEOUT_S
    scenario_timeout_s: float = DEFAULT_SCENARIO_TIMEOUT_S
    hello: RuntimeHello | None = None
    _process: RuntimeProcess | None = None
    _broken: RuntimeFault | None = None
    host: FakeHost = field(default_factory=FakeHost)

    async def _greeted(self) -> RuntimeProcess:
        if self._process is not None:
            return self._process
        process = RuntimeProcess(self.argv)
        await process.start()
        self._process = process
        await process.send(Hello())
        reply = await process.receive(self.op_timeout_s, "hello")
        if not isinstance(reply, RuntimeHello):
            raise RuntimeFault("PROTOCOL", f"line {process.lines_read}: expected hello")
        if reply.protocol != PROTOCOL_VERSION:
            found = f"found protocol {reply.protocol}"
            raise RuntimeFault("PROTOCOL", f"expected protocol {PROTOCOL_VERSION}, {found}")
        self.hello = reply
        return process

    async def _discard(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            await process.stop(polite=False)

    async def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            await process.stop()

    def _skip_reason(self, item: LoadedScenario) -> str | None:
        assert self.hello is not None
        wire = wire_of(item.scenario)
        if wire not in self.hello.wires:
            return f"the runtime does not speak {wire}"
        missing = [f for f in features_needed(item.scenario) if f not in self.hello.features]
        return f"the runtime lacks {', '.join(missing)}" if missing else None

    async def run_one(self, item: LoadedScenario, index: int) -> SutOutcome:
        reason = not_portable(item.scenario)
        if reason is not None:
            return SutOutcome(item.path, item.scenario.id, "SKIP", skipped_reason=reason)
        if self._broken is not None:
            return _faulted(item, self._broken, 0.0)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.scenario_timeout_s):
                process = await self._greeted()
                reason = self._skip_reason(item)
                if reason is not None:
                    return SutOutcome(item.path, item.scenario.id, "SKIP", skipped_reason=reason)
                return await self._session(process, item, index, started)
        except RuntimeFault as fault:
            return await self._after_fault(item, fault, started)
        except TimeoutError:
            overdue = RuntimeFault("TIMEOUT", f"scenario over {self.scenario_timeout_s:g}s")
            return await self._after_fault(item, overdue, started)

    async def _after_fault(
        self, item: LoadedScenario, fault: RuntimeFault, started: float
    ) -> SutOutcome:
        """Stop the broken process (a new one serves the next scenario), unless it never
        greeted: then every scenario left gets the same verdict without a new try."""
        if self.hello is None:
            fault = self._broken = RuntimeFault(fault.verdict, f"at hello: {fault.detail}")
        await self._discard()
        return _faulted(item, fault, time.perf_counter() - started)

    async def _session(
        self, process: RuntimeProcess, item: LoadedScenario, index: int, started: float
    ) -> SutOutcome:
        scenario = item.scenario
        spec = next(iter(scenario.providers.values()))
        fake = build_fake(spec)
        key = f"{index}"
        base_url = self.host.mount(key, fake) + FAKE_FOR_KIND[spec.kind][1]
        reference = asyncio.create_task(reference_requests(scenario))
        try:
            opening = open_message(scenario, scenario.id, base_url, SCENARIO_API_KEY)
            driven = await SessionDriver(process, scenario, fake, self.op_timeout_s).run(opening)
        finally:
            self.host.unmount(key)
            expected = await _settled(reference)
        if driven.unsupported is not None:
            reason = f"the runtime said unsupported: {driven.unsupported}"
            return SutOutcome(item.path, scenario.id, "SKIP", skipped_reason=reason)
        exchanges = fake.log.calls()
        calls = tuple(
            Call(n, turn, e.rows, e.tokens.total if e.tokens else None, e.outcome, e.status)
            for n, (e, turn) in enumerate(zip(exchanges, driven.turn_of_call, strict=False), 1)
        )
        log = SessionLog(scenario.system_prompt, opening.context_window, tuple(driven.turns), calls)
        trims = sum(event.kind == "trim" for event in driven.events)
        assert self.hello is not None
        seen = findings(wire_of(scenario), scenario.id, exchanges)
        violations = judge_session(log) + judge_findings(
            seen, trims, reports_events="events" in self.hello.features
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
            duration_s=time.perf_counter() - started,
        )


async def _settled(task: asyncio.Task[list[tuple[Row, ...]]]) -> list[tuple[Row, ...]]:
    """The reference's requests; none when it failed (the comparison then counts zero)."""
    try:
        return await task
    except Exception:
        return []


def _faulted(item: LoadedScenario, fault: RuntimeFault, duration_s: float) -> SutOutcome:
    verdict: Verdict = fault.verdict  # type: ignore[assignment]
    return SutOutcome(item.path, item.scenario.id, verdict, detail=fault.detail,
                      duration_s=duration_s)  # fmt: skip


Progress = Callable[[SutOutcome], None]


def _canceller(
    loop: asyncio.AbstractEventLoop, task: asyncio.Task[SutOutcome]
) -> Callable[[], None]:
    """Cancel ``task`` from a signal handler: through the loop's self-pipe, thread-safe."""

    def cancel() -> None:
        loop.call_soon_threadsafe(task.cancel)

    return cancel


def run_sut_suite(
    suite: SutSuite, loaded: Sequence[LoadedScenario], progress: Progress, stop: StopRequest
) -> list[SutOutcome]:
    """Every scenario in order, or those before a stop; the runtime and the fake host are
    stopped (process group reaped) in every case, Ctrl-C included."""

    async def main() -> list[SutOutcome]:
        loop = asyncio.get_running_loop()
        outcomes: list[SutOutcome] = []
        try:
            for index, item in enumerate(loaded):
                if stop.requested:
                    break
                task = asyncio.create_task(suite.run_one(item, index))
                with stop.on_request(_canceller(loop, task)):
                    try:
                        outcome = await task
                    except asyncio.CancelledError:
                        if not stop.requested:
                            raise
                        break
                outcomes.append(outcome)
                progress(outcome)
        finally:
            await suite.close()
        return outcomes

    suite.host.start()
    try:
        return asyncio.run(main())
    finally:
        suite.host.stop()
