"""``trimscope load --sut CMD``: many sessions of one portable scenario through each
runtime under test, at once, against the fakes; each session judged as ``run --sut``
judges it, the verdicts and the invariants it broke counted per runtime.

Each runtime gets ``concurrency`` processes (``harness.sut.worker``), each serving one
session at a time, so ``concurrency`` sessions are in flight; every session has a fake of
its own behind one fake host (``harness.sut.fakehost``). The runtimes run one after the
other (``--sut`` is repeatable: strategies side by side), each within ``duration_s``: at
the cap, or on SIGINT/SIGTERM, the sessions in flight are cancelled and not counted, the
processes stopped and reaped, and the summary says so (``stopped_by``). The in-process
reference is not run: a load run counts, it does not compare.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from harness.interrupt import StopRequest
from harness.pricing.table import PriceTable
from harness.scenarios.loader import LoadedScenario
from harness.sut.judge import Turn
from harness.sut.load_spend import RuntimeSpend
from harness.sut.settings import DEFAULT_OP_TIMEOUT_S, DEFAULT_SCENARIO_TIMEOUT_S
from harness.sut.suite import JudgedSession, SutOutcome, SutSuite
from harness.sut.worker import Worker

DURATION_CAP: Final = "duration"
"""``stopped_by`` of a runtime whose run reached ``duration_s``."""
MAX_RUNTIMES: Final = 8
"""``--sut`` given more often than this is refused: each runs the whole workload."""
FAILED: Final = frozenset({"FAIL", "TIMEOUT", "CRASH", "PROTOCOL"})


@dataclass(frozen=True, slots=True)
class SutLoadPlan:
    commands: Sequence[tuple[str, list[str]]]
    """Each ``--sut`` as given, and its resolved argv."""
    item: LoadedScenario
    sessions: int
    concurrency: int
    duration_s: float
    op_timeout_s: float = DEFAULT_OP_TIMEOUT_S
    scenario_timeout_s: float = DEFAULT_SCENARIO_TIMEOUT_S
    prices: PriceTable | None = None
    """``--prices``: each runtime's cost (``harness.sut.load_report``); ``None``: none."""
    price_as: str | None = None


@dataclass
class RuntimeLoad:
    """One runtime's share of the summary."""

    command: str
    name: str | None = None
    version: str | None = None
    finished: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    violations: Counter[str] = field(default_factory=Counter)
    """Sessions that broke each invariant (a session counts once per invariant)."""
    requests: int = 0
    overflows: int = 0
    trims: int = 0
    tokens_sent: int = 0
    """Input tokens of every request, as the fakes counted them."""
    turns: Counter[str] = field(default_factory=Counter)
    """Turns of the judged sessions by how they ended: ``ok`` (an answer), else the
    ``error`` kind (``overflow``, ``provider``, ``internal``) or ``no end``."""
    spend: RuntimeSpend = field(default_factory=RuntimeSpend)
    """Usage, cache loss and compactions off the wire (``harness.sut.load_spend``)."""
    wall_s: float = 0.0
    stopped_by: str | None = None

    def add(self, outcome: SutOutcome) -> None:
        self.finished += 1
        self.verdicts[outcome.verdict] += 1
        self.violations.update({v.invariant for v in outcome.violations})
        self.requests += outcome.requests
        self.overflows += outcome.overflows
        self.trims += outcome.trims

    def observe(self, session: JudgedSession) -> None:
        """A judged session's tokens, turns, usage and compactions (``SutSuite``'s observer)."""
        self.tokens_sent += sum(e.tokens.total for e in session.exchanges if e.tokens)
        self.turns.update(_ending(turn) for turn in session.driven.turns)
        self.spend.add(session.exchanges, session.wire_findings, session.driven)


def _ending(turn: Turn) -> str:
    if turn.ended == "answer":
        return "ok"
    if turn.ended == "error":
        return turn.error_kind or "error"
    return "no end"


@dataclass
class SutLoadSummary:
    scenario: str
    sessions: int
    concurrency: int
    runtimes: list[RuntimeLoad]
    interrupted_by: str | None = None
    prices: PriceTable | None = None
    price_as: str | None = None

    @property
    def failed(self) -> bool:
        """A session failed, or a runtime finished none."""
        return any(r.finished == 0 or FAILED & set(r.verdicts) for r in self.runtimes)


Progress = Callable[[SutOutcome], None]


def run_sut_load(plan: SutLoadPlan, stop: StopRequest, progress: Progress) -> SutLoadSummary:
    """Every runtime in turn (those after a stop are left out), in the caller's thread."""
    summary = SutLoadSummary(
        plan.item.scenario.id, plan.sessions, plan.concurrency, [], None, plan.prices, plan.price_as
    )
    for command, argv in plan.commands:
        if stop.requested:
            break
        row = RuntimeLoad(command)
        summary.runtimes.append(row)
        asyncio.run(_one_runtime(plan, argv, row, stop, progress))
    summary.interrupted_by = stop.name
    return summary


async def _one_runtime(
    plan: SutLoadPlan, argv: list[str], row: RuntimeLoad, stop: StopRequest, progress: Progress
) -> None:
    suite = SutSuite(
        argv,
        op_timeout_s=plan.op_timeout_s,
        scenario_timeout_s=plan.scenario_timeout_s,
        workers=plan.concurrency,
        observers=(row.observe,),
        references=None,
    )
    loop = asyncio.get_running_loop()
    pending = iter(range(plan.sessions))  # shared: each session runs once
    workers = [Worker(argv, plan.op_timeout_s) for _ in range(plan.concurrency)]

    async def serve(worker: Worker) -> None:
        for index in pending:
            outcome = await suite.run_one(plan.item, index, worker)
            row.add(outcome)
            progress(outcome)

    started = time.perf_counter()
    await suite.host.start()
    every = asyncio.gather(*(serve(worker) for worker in workers))

    def cancel() -> None:  # from the signal handler: through the loop's self-pipe
        loop.call_soon_threadsafe(every.cancel)

    try:
        with stop.on_request(cancel):
            async with asyncio.timeout(plan.duration_s):
                await every
    except TimeoutError:
        row.stopped_by = DURATION_CAP
    except asyncio.CancelledError:
        if not stop.requested:
            raise
        row.stopped_by = stop.name
    finally:
        await asyncio.gather(*(worker.close() for worker in workers))
        await suite.host.stop()
        row.wall_s = time.perf_counter() - started
        if suite.hello is not None:
            row.name, row.version = suite.hello.name, suite.hello.version
