"""The in-process reference on the same scenario: the rows of each request its fake got.

A protocol run compares the runtime's requests with these, one by one (how many are
identical is reported beside the verdicts; for ``trimscope sut reference`` all are).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

from fakes.rows import Row
from fakes.serving.log import Exchange
from harness.agent import DEFAULT_SENDER, open_session
from harness.scenarios.environment import build_environment
from harness.scenarios.loader import LoadedScenario
from harness.scenarios.schema import Scenario
from harness.sut.drive import user_texts
from harness.sut.portable import not_portable


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
    after another by one background task started with the run: the run's loop works on
    them while it waits for the runtime (starting, calling its fakes, thinking)."""

    def __init__(self) -> None:
        self._expected: dict[int, asyncio.Future[list[tuple[Row, ...]]]] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self, loaded: Sequence[LoadedScenario]) -> None:
        loop = asyncio.get_running_loop()
        portable = [item for item in loaded if not_portable(item.scenario) is None]
        self._expected = {id(item): loop.create_future() for item in portable}
        self._task = asyncio.create_task(self._compute(portable))

    async def _compute(self, portable: Sequence[LoadedScenario]) -> None:
        for item in portable:
            future = self._expected[id(item)]
            try:
                future.set_result(await reference_requests(item.scenario))
            except Exception as error:
                future.set_exception(error)

    def expected(self, item: LoadedScenario) -> asyncio.Future[list[tuple[Row, ...]]]:
        return self._expected[id(item)]

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for future in self._expected.values():
            if future.done() and not future.cancelled():
                future.exception()  # retrieved: no "never retrieved" warning at exit
            future.cancel()
