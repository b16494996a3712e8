"""The in-process reference on the same scenario: the rows of each request its fake got.

A protocol run compares the runtime's requests with these, one by one (how many are
identical is reported beside the verdicts; for ``trimscope sut reference`` all are).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence

from fakes.rows import Row
from harness.agent import DEFAULT_SENDER, open_session
from harness.scenarios.environment import build_environment
from harness.scenarios.loader import LoadedScenario
from harness.scenarios.schema import Scenario
from harness.sut.drive import user_texts
from harness.sut.portable import not_portable


async def reference_requests(scenario: Scenario) -> list[tuple[Row, ...]]:
    """Every generation request of the scenario's single fake, in order, as its rows."""
    env = build_environment(scenario)
    driver = open_session(env.session_spec())
    try:
        for text in user_texts(scenario.conversation):
            # A failed turn is part of the scenario, as in `run`: the next one still runs.
            with contextlib.suppress(Exception):
                await driver.send(text, sender=DEFAULT_SENDER)
            # In-process fakes answer without suspending: yield once a turn, so the run's
            # loop also serves the runtime under test while this one computes.
            await asyncio.sleep(0)
    finally:
        await env.aclose()
    fake = next(iter(env.fakes.values()))
    return [exchange.rows for exchange in fake.log.calls()]


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
