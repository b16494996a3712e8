"""The in-process reference on the same scenario: the rows of each request its fake got.

A protocol run compares the runtime's requests with these, one by one (how many are
identical is reported beside the verdicts; for ``trimscope sut reference`` all are).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Final

from fakes.rows import Row
from fakes.serving.log import Exchange
from harness.agent import DEFAULT_SENDER, open_session
from harness.scenarios.environment import build_environment
from harness.scenarios.loader import LoadedScenario
from harness.scenarios.schema import Scenario
from harness.sut.drive import user_texts
from harness.sut.portable import not_portable

FORK: Final = "fork"
STOP_GRACE_S: Final = 2.0
"""How long the reference process has after SIGTERM (then SIGKILL) to be gone."""
STOP_POLL_S: Final = 0.01


@dataclass(frozen=True, slots=True)
class ReferenceRun:
    """The in-process reference on one scenario: what its fake logged, and which turns
    (1-based) ended in an error, of how many."""

    exchanges: tuple[Exchange, ...]
    failed_turns: tuple[int, ...]
    turns: int


async def reference_run(scenario: Scenario) -> ReferenceRun:
    """The scenario's turns through the reference agent, its single fake's log kept."""
    env = build_environment(scenario)
    driver = open_session(env.session_spec())
    texts = user_texts(scenario.conversation)
    failed: list[int] = []
    try:
        for number, text in enumerate(texts, start=1):
            # A failed turn is part of the scenario, as in `run`: the next one still runs.
            try:
                await driver.send(text, sender=DEFAULT_SENDER)
            except Exception:
                failed.append(number)
            # In-process fakes answer without suspending: yield once a turn, so the run's
            # loop also serves the runtime under test while this one computes.
            await asyncio.sleep(0)
    finally:
        await env.aclose()
    fake = next(iter(env.fakes.values()))
    return ReferenceRun(tuple(fake.log.calls()), tuple(failed), len(texts))


async def reference_requests(scenario: Scenario) -> list[tuple[Row, ...]]:
    """Every generation request of the scenario's single fake, in order, as its rows."""
    return [exchange.rows for exchange in (await reference_run(scenario)).exchanges]


class References:
    """The in-process reference's requests for every portable scenario, computed one
    after another in a forked process (``fork``: the code is imported and the scenarios
    loaded already, so it starts at once) and sent back over a pipe as each is done. The
    run's loop only receives them: computed in that loop, each reference turn held up the
    runtime's requests to the fakes (measured: 1.8 s of wall for 1.2 s of CPU on the 73
    portable scenarios), and another core may be free. Where ``fork`` is not offered they
    are computed by a background task of the run's loop, as before."""

    def __init__(self) -> None:
        self._expected: dict[int, asyncio.Future[list[tuple[Row, ...]]]] = {}
        self._task: asyncio.Task[None] | None = None
        self._forked: _Forked | None = None

    def start(self, loaded: Sequence[LoadedScenario]) -> None:
        loop = asyncio.get_running_loop()
        portable = [item for item in loaded if not_portable(item.scenario) is None]
        self._expected = {id(item): loop.create_future() for item in portable}
        futures = [self._expected[id(item)] for item in portable]
        scenarios = [item.scenario for item in portable]
        if FORK in multiprocessing.get_all_start_methods():
            self._forked = _Forked(scenarios, futures)
        else:
            self._task = asyncio.create_task(_compute(scenarios, futures))

    def expected(self, item: LoadedScenario) -> asyncio.Future[list[tuple[Row, ...]]]:
        return self._expected[id(item)]

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._forked is not None:
            await self._forked.stop()
        for future in self._expected.values():
            if future.done() and not future.cancelled():
                future.exception()  # retrieved: no "never retrieved" warning at exit
            future.cancel()


async def _compute(
    scenarios: Sequence[Scenario], futures: Sequence[asyncio.Future[list[tuple[Row, ...]]]]
) -> None:
    for scenario, future in zip(scenarios, futures, strict=True):
        try:
            future.set_result(await reference_requests(scenario))
        except Exception as error:
            future.set_exception(error)


def _compute_and_send(
    scenarios: Sequence[Scenario], receiving: Connection, sending: Connection
) -> None:
    """In the forked process: each scenario's requests, or its error's text, in order.
    Its copy of the pipe's reading end is closed, so a send fails once the parent has
    closed its own rather than block for ever. Ctrl-C is the parent's to handle (it stops
    this process); its signal wake-up pipe is the parent loop's, so it is let go of."""
    receiving.close()
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    async def each() -> None:
        for index, scenario in enumerate(scenarios):
            message: tuple[int, list[tuple[Row, ...]] | None, str]
            try:
                message = (index, await reference_requests(scenario), "")
            except Exception as error:
                message = (index, None, f"{type(error).__name__}: {error}")
            try:
                sending.send(message)
            except OSError:  # the parent stopped listening: nothing is waited for
                return

    asyncio.run(each())
    sending.close()


class _Forked:
    """The forked process and the pipe its results come back on, read by the loop."""

    def __init__(
        self,
        scenarios: Sequence[Scenario],
        futures: Sequence[asyncio.Future[list[tuple[Row, ...]]]],
    ) -> None:
        self._futures = futures
        self._loop = asyncio.get_running_loop()
        context = multiprocessing.get_context(FORK)
        self._receiving, sending = context.Pipe(duplex=False)
        sys.stdout.flush()  # else the child flushes what the parent buffered a second time
        sys.stderr.flush()
        self._process = context.Process(
            target=_compute_and_send,
            args=(scenarios, self._receiving, sending),
            name="trimscope-reference",
            daemon=True,  # a parent that exits without stop() ends it rather than wait
        )
        self._process.start()
        sending.close()
        self._loop.add_reader(self._receiving.fileno(), self._received)

    def _received(self) -> None:
        try:
            index, rows, error = self._receiving.recv()
        except (EOFError, OSError):  # it ended (or died): what it did not send never comes
            self._loop.remove_reader(self._receiving.fileno())
            for future in self._futures:
                if not future.done():
                    future.set_exception(RuntimeError("the reference process ended"))
            return
        future = self._futures[index]
        if future.done():  # cancelled: the run is ending
            return
        if rows is None:
            future.set_exception(RuntimeError(error))
        else:
            future.set_result(rows)

    async def stop(self) -> None:
        """Bounded: SIGTERM, then SIGKILL, then the process reaped."""
        with contextlib.suppress(ValueError, OSError):
            self._loop.remove_reader(self._receiving.fileno())
        for end in (self._process.terminate, self._process.kill):
            if self._process.is_alive():
                end()
            deadline = self._loop.time() + STOP_GRACE_S
            while self._process.is_alive() and self._loop.time() < deadline:
                await asyncio.sleep(STOP_POLL_S)
        self._process.join(0)
        self._receiving.close()
